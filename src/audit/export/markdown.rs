//! `report.md`: the instance, what tickopt proves, the ranking, and each
//! invalid schedule's first errors.

use super::{ranking_rows, Audit, AuditExporter};
use std::io::{self, Write};

pub struct Markdown;

impl AuditExporter for Markdown {
    fn file_name(&self) -> &'static str {
        "report.md"
    }
    fn write(&self, a: &Audit, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "# tickopt audit\n")?;
        writeln!(w, "- tickopt {}", a.tickopt_version)?;
        writeln!(
            w,
            "- instance: {} ({}, {} slots, {} bits per tick, {} demands, {} chunks)",
            a.instance, a.model, a.slots, a.copy_bw_bits_per_tick, a.demands, a.chunks
        )?;
        writeln!(
            w,
            "- lower bound: {} ticks, witness {} (`{}`){}",
            a.lower_bound,
            a.witness.kind(),
            serde_json::to_string(&a.witness).map_err(io::Error::other)?,
            if a.bound_complete {
                ""
            } else {
                "; the bound search was cut short"
            }
        )?;
        match a.optimum_ticks {
            Some(t) => writeln!(
                w,
                "- optimum: {t} ticks, proven ({}); gaps are measured against it",
                a.optimum_status
            )?,
            None => writeln!(
                w,
                "- optimum: not proven; tickopt's best schedule has {} ticks ({}). Gaps are measured against the lower bound and are upper estimates",
                a.best_ticks, a.optimum_status
            )?,
        }
        let mut gates = Vec::new();
        if let Some(g) = a.gates.max_gap_ticks {
            gates.push(format!("gap <= {g} ticks"));
        }
        if let Some(g) = a.gates.max_gap {
            gates.push(format!("gap ratio <= {g}"));
        }
        writeln!(
            w,
            "- gates: {}",
            if gates.is_empty() {
                "none (only validity)".to_string()
            } else {
                gates.join(", ")
            }
        )?;
        writeln!(
            w,
            "- verdict: {}\n",
            if a.passed && gates.is_empty() {
                "PASS (every schedule valid)"
            } else if a.passed {
                "PASS (every schedule valid and inside the gates)"
            } else {
                "FAIL"
            }
        )?;

        writeln!(w, "## Ranking\n")?;
        writeln!(
            w,
            "| rank | schedule | valid | ticks | gap_ticks | gap_ratio | ticks saved by tickopt | mean utilisation | passed |"
        )?;
        writeln!(w, "|---:|---|---|---:|---:|---:|---:|---:|---|")?;
        let rows = ranking_rows(a);
        for r in &rows {
            writeln!(
                w,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.rank,
                r.name,
                r.valid,
                r.ticks,
                r.gap_ticks,
                r.gap_ratio,
                r.ticks_saved,
                r.utilisation,
                r.passed
            )?;
        }
        writeln!(
            w,
            "\ntickopt's own schedule: {} ticks ({}, solver {}).",
            a.best_ticks, a.optimum_status, a.solver
        )?;
        if let Some(relay) = &a.relay {
            writeln!(w, "\n## Relayed\n\n{}.\n", relay.sentence(a.best_ticks))?;
            for r in &relay.schedules {
                writeln!(w, "- {}", r.line())?;
            }
        }
        let failing: Vec<_> = rows.iter().filter(|r| !r.audit.passed).collect();
        if !failing.is_empty() {
            writeln!(w, "\n## Not passed\n")?;
            for row in failing {
                writeln!(w, "- {}: {}", row.name, row.why_not)?;
                let r = row.audit;
                for e in &r.first_errors {
                    writeln!(
                        w,
                        "  - `{}`",
                        serde_json::to_string(e).map_err(io::Error::other)?
                    )?;
                }
                if r.total_errors > r.first_errors.len() as u64 {
                    writeln!(
                        w,
                        "  - ... {} more",
                        r.total_errors - r.first_errors.len() as u64
                    )?;
                }
            }
        }
        Ok(())
    }
}
