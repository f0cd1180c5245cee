//! `report.md`: totals, a per-family table, every run, and the failures.

use super::{bw_cell, family_summaries, fmt_seconds, opt, status_counts, Exporter, Results};
use std::io::{self, Write};

pub struct Markdown;

/// The sentence saying whether copyspace-guard was compared.
pub(crate) fn cg_sentence(results: &Results) -> &'static str {
    if results.header.compare_cg {
        "copyspace-guard was compared: its greedy ticks, lower bound and time are in the cg columns."
    } else {
        "copyspace-guard was not compared (run with --compare-cg PATH to add its columns)."
    }
}

impl Exporter for Markdown {
    fn file_name(&self) -> &'static str {
        "report.md"
    }
    fn write(&self, results: &Results, w: &mut dyn Write) -> io::Result<()> {
        write_totals(results, w)?;
        write_families(results, w)?;
        write_runs(results, w)?;
        write_failures(results, w)
    }
}

/// The header: version, sets, options, runs, seconds, and the status counts.
fn write_totals(results: &Results, w: &mut dyn Write) -> io::Result<()> {
    let h = &results.header;
    let rs = &results.records;
    writeln!(w, "# tickopt bench report\n")?;
    writeln!(w, "- tickopt {}", h.tickopt_version)?;
    writeln!(w, "- sets: {}", h.sets.join(", "))?;
    writeln!(w, "- options: {}", h.options.join(" | "))?;
    if let Some(s) = &h.shard {
        writeln!(w, "- shard {s}")?;
    }
    writeln!(w, "- runs: {}", rs.len())?;
    let total: f64 = rs.iter().map(|r| r.seconds).sum();
    writeln!(w, "- solve seconds (sum over runs): {}", fmt_seconds(total))?;
    writeln!(w, "- {}", cg_sentence(results))?;
    if let Some(p) = super::pairwise_sentence(results) {
        writeln!(w, "- {p}")?;
    }
    writeln!(w)?;

    writeln!(w, "## Status\n")?;
    writeln!(w, "| status | runs |\n|---|---:|")?;
    for (s, n) in status_counts(rs.iter()) {
        writeln!(w, "| {s} | {n} |")?;
    }
    let contradictions = rs
        .iter()
        .filter(|r| r.known_check.as_deref() == Some("contradiction"))
        .count();
    let invalid = rs.iter().filter(|r| r.valid == Some(false)).count();
    writeln!(
        w,
        "\nKnown optima contradicted: {contradictions}. Schedules failing validation: {invalid}.\n"
    )?;
    Ok(())
}

/// The per-family table.
fn write_families(results: &Results, w: &mut dyn Write) -> io::Result<()> {
    let rs = &results.records;
    writeln!(w, "## Families\n")?;
    writeln!(
        w,
        "Ticks above the lower bound: how far a schedule is from the bound (a proven-optimal schedule can be above it, as on Petersen). Possible gap to the optimum: zero for runs proven optimal (`optimal`, `optimal_exhaustive`), the gap to the bound otherwise (an upper estimate).\n"
    )?;
    writeln!(
        w,
        "| family | runs | optimal | optimal_exhaustive | within_one | feasible | failed | max ticks above LB (gap_ticks) | mean ticks/LB (ticks_over_bound) | max possible gap to optimum | known optimum matched | seconds (sum) |"
    )?;
    writeln!(
        w,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )?;
    for f in family_summaries(rs) {
        let c: Vec<String> = f.statuses.iter().map(|(_, n)| n.to_string()).collect();
        writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {}/{} | {} |",
            f.family,
            f.runs,
            c.join(" | "),
            f.max_gap,
            f.mean_ticks_over_bound
                .map_or("n/a (no run finished)".to_string(), |m| format!("{m:.4}")),
            f.max_possible_gap,
            f.known_matched,
            f.known_total,
            fmt_seconds(f.seconds_sum)
        )?;
    }
    Ok(())
}

/// Every run, one row each (predicted seconds, copyspace-guard and
/// pairwise-exchange columns when the runs have them).
fn write_runs(results: &Results, w: &mut dyn Write) -> io::Result<()> {
    let (h, rs) = (&results.header, &results.records);
    writeln!(w, "\n## Runs\n")?;
    let cg = h.compare_cg;
    let pairwise = h.compare_pairwise;
    let predicted = super::has_seconds(rs);
    write!(
        w,
        "| instance | model | slots | chunks | bw (from) | lower bound | witness | ticks | status | gap_ticks | known | seconds | solver |"
    )?;
    if predicted {
        write!(w, " predicted (x fluid) |")?;
    }
    if cg {
        write!(w, " cg ticks | cg LB | cg seconds |")?;
    }
    if pairwise {
        write!(w, " pairwise ticks | pairwise / ticks |")?;
    }
    writeln!(w)?;
    write!(
        w,
        "|---|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---|"
    )?;
    if predicted {
        write!(w, "---:|")?;
    }
    if cg {
        write!(w, "---:|---:|---:|")?;
    }
    if pairwise {
        write!(w, "---:|---:|")?;
    }
    writeln!(w)?;
    for r in rs {
        write!(
            w,
            "| {}/{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.set,
            r.instance,
            r.model,
            opt(&r.slots),
            opt(&r.chunks),
            bw_cell(r),
            opt(&r.lower_bound),
            opt(&r.witness),
            opt(&r.ticks),
            r.status,
            opt(&r.gap_ticks),
            opt(&r.known_optimum),
            fmt_seconds(r.seconds),
            opt(&r.solver)
        )?;
        if predicted {
            write!(w, " {} |", super::predicted_cell(r))?;
        }
        if cg {
            match &r.cg {
                Some(c) => write!(
                    w,
                    " {} | {} | {} |",
                    opt(&c.ticks),
                    opt(&c.lower_bound),
                    fmt_seconds(c.seconds)
                )?,
                None => write!(w, " - | - | - |")?,
            }
        }
        if pairwise {
            let [t, x] = super::pairwise_cells(r);
            write!(w, " {t} | {x} |")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// The runs that failed and copyspace-guard's failures, if any.
fn write_failures(results: &Results, w: &mut dyn Write) -> io::Result<()> {
    let rs = &results.records;
    let failed: Vec<_> = rs.iter().filter(|r| r.is_failed()).collect();
    let cg_failed: Vec<_> = rs
        .iter()
        .filter_map(|r| r.cg.as_ref().and_then(|c| c.error.as_ref()).map(|e| (r, e)))
        .collect();
    if !failed.is_empty() || !cg_failed.is_empty() {
        writeln!(w, "\n## Failures\n")?;
        for r in failed {
            writeln!(
                w,
                "- {}/{} {}: {}",
                r.set,
                r.instance,
                r.model,
                r.error.as_deref().unwrap_or("failed")
            )?;
        }
        for (r, e) in cg_failed {
            writeln!(
                w,
                "- copyspace-guard on {}/{} {}: {e}",
                r.set, r.instance, r.model
            )?;
        }
    }
    Ok(())
}
