//! `tickopt solve --gpus-per-node G --nvlink-speedup RHO` (a relay plan:
//! `relay::plan_relay`) and `tickopt verify` of a relay summary
//! (`relay::check::check_relay_claim`): flags in, files out, no
//! mathematics here.

use crate::instance::{
    Instance, RecordedMachine, RecordedValue, GPUS_PER_NODE_KEY, NVLINK_SPEEDUP_KEY,
};
use crate::relay::check::check_relay_claim;
use crate::relay::{plan_relay, RelaySummary, TwoTier};
use crate::schedule::output::OutputFile;
use anyhow::Context;
use clap::Args;
use std::path::Path;

/// The two-tier machine of a relay plan (doc/design.md, "Relays").
#[derive(Args, Debug, Clone, Default)]
pub struct RelayArgs {
    /// Two-tier machine: nodes of G GPUs (rank r is GPU r % G of node
    /// r / G; each GPU one NIC), where chunks may go through a GPU of their
    /// node to another NIC and through a GPU of the destination node.
    /// solve: plan with relays, writing a relay schedule (--out, JSON) and
    /// a relay summary with the bound's certificate (--summary). validate,
    /// export: the machine a relay schedule is checked on. audit: add the
    /// relayed lower bound and each schedule against it. READ1_WRITE1
    /// only. Needs --nvlink-speedup. A demands CSV may record both as
    /// `# gpus_per_node=G` and `# nvlink_speedup=RHO` comment lines instead,
    /// an instance JSON as its keys "gpus_per_node" and "nvlink_speedup".
    #[arg(long, value_name = "G")]
    pub gpus_per_node: Option<u32>,
    /// Chunks an NVLink port carries each way per tick (a NIC carries one).
    #[arg(long, value_name = "RHO")]
    pub nvlink_speedup: Option<u32>,
}

impl RelayArgs {
    /// The machine, when one is asked for: the flags, else what the input
    /// file records (`recorded`, returned by the instance reader with the
    /// instance: a demands CSV's leading comment lines `# gpus_per_node=G`,
    /// `# nvlink_speedup=RHO`, an instance JSON's keys of those names;
    /// doc/formats.md); both or neither. `input` names the file in the
    /// note saying which recorded value was taken.
    pub fn machine(
        &self,
        recorded: &RecordedMachine,
        input: &Path,
    ) -> anyhow::Result<Option<TwoTier>> {
        let take = |flag: Option<u32>, rec: Option<RecordedValue>, key: &str| {
            flag.or_else(|| {
                let r = rec?;
                match r.line {
                    Some(line) => eprintln!(
                        "tickopt: {key} {} from {} line {line}",
                        r.value,
                        input.display()
                    ),
                    None => eprintln!("tickopt: {key} {} from {}", r.value, input.display()),
                }
                Some(r.value)
            })
        };
        let g = take(
            self.gpus_per_node,
            recorded.gpus_per_node,
            GPUS_PER_NODE_KEY,
        );
        let rho = take(
            self.nvlink_speedup,
            recorded.nvlink_speedup,
            NVLINK_SPEEDUP_KEY,
        );
        match (g, rho) {
            (None, None) => Ok(None),
            (Some(g), Some(rho)) => Ok(Some(TwoTier {
                gpus_per_node: g,
                nvlink_speedup: rho,
            })),
            _ => anyhow::bail!("--gpus-per-node and --nvlink-speedup go together: give both"),
        }
    }

    /// Whether either flag was given (not only recorded in the input).
    pub fn given(&self) -> bool {
        self.gpus_per_node.is_some() || self.nvlink_speedup.is_some()
    }
}

/// Plans `inst` on `tt` and writes the schedule and the summary (the
/// files were prepared by the caller; nothing appears before the end).
pub fn solve(
    inst: &Instance,
    tt: TwoTier,
    out: Option<OutputFile>,
    summary: Option<OutputFile>,
) -> anyhow::Result<u8> {
    let sol = plan_relay(inst, tt)?;
    let s = sol.summary(inst.slots, inst.bw, inst.total_chunks());
    let files = [
        (out, serde_json::to_string(&sol.schedule.to_json())?),
        (summary, serde_json::to_string_pretty(&s)?),
    ];
    let mut kept = Vec::new();
    for (file, text) in files {
        if let Some(mut f) = file {
            f.write(|w| {
                w.write_all(text.as_bytes())?;
                w.write_all(b"\n")
            })
            .with_context(|| format!("cannot write {}", f.shown()))?;
            kept.push(f);
        }
    }
    for f in kept {
        let shown = f.shown().to_string();
        f.commit()
            .with_context(|| format!("cannot write {shown}"))?;
    }
    eprintln!(
        "relay: {} ticks, lower bound {} ({}), {} x{}; direct optimum {} ticks ({:.2}x); planned in {:.1} ms",
        sol.ticks,
        sol.lower_bound,
        sol.binding().as_str(),
        s.status,
        tt.nvlink_speedup,
        sol.direct_ticks,
        sol.direct_ticks as f64 / sol.ticks.max(1) as f64,
        sol.plan_seconds * 1e3
    );
    Ok(0)
}

/// Whether a summary's text is a relay summary.
pub fn is_relay_summary(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            v.get("kind")?
                .as_str()
                .map(|k| k == crate::relay::solution::SUMMARY_KIND)
        })
        .unwrap_or(false)
}

/// The chunk size a relay summary was planned at (verify reads the
/// instance at it unless --bw says otherwise).
pub fn summary_bw(text: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get("copy_bw_bits_per_tick")?
        .as_u64()
}

/// `tickopt verify INSTANCE SCHEDULE SUMMARY` for a relay summary: prints
/// one line per check and VERIFIED or REJECTED (exit 0 or 2).
pub fn verify(
    inst: &Instance,
    schedule: &Path,
    summary_text: &str,
    summary: &Path,
) -> anyhow::Result<u8> {
    let claim: RelaySummary = serde_json::from_str(summary_text)
        .with_context(|| format!("{}: not a relay summary", summary.display()))?;
    let s = crate::interop::read_relay_schedule_file(schedule)?;
    let lines = check_relay_claim(inst, &s, &claim);
    let holds = lines.iter().all(|l| l.holds);
    for l in &lines {
        outln!(
            "{} relay     {}",
            if l.holds { "ok   " } else { "FAIL " },
            l.what
        )?;
    }
    outln!(
        "{}: relay claim {} ticks, lower bound {} ({}), status {}",
        if holds { "VERIFIED" } else { "REJECTED" },
        claim.ticks,
        claim.lower_bound,
        claim.bound.as_str(),
        claim.status
    )?;
    Ok(if holds { 0 } else { 2 })
}
