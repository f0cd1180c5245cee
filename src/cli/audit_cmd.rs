//! `tickopt audit INSTANCE SCHEDULE...`: how far each schedule is from
//! optimal, against tickopt's own solve (the comparison is
//! [`crate::audit`]); given a two-tier machine, also against the relayed
//! lower bound and relay plan ([`crate::audit::relay`]).

use super::common::OverrideArgs;
use super::model_source::{model_from_files, note_instance_model, schedule_model};
use super::solve_cmd::{set_threads, time_limit};
use crate::audit::{export, read_schedule_facts, Audit, Gates};
use crate::instance::Model;
use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Instance JSON, or demands CSV (bw: --bw or its recorded one; model:
    /// --model, else the schedules', else STRICT1).
    pub instance: PathBuf,
    /// Schedules to audit, in any format tickopt reads (copyspace-guard
    /// JSON or CSV, tickopt compact JSON); several are ranked side by side.
    #[arg(required = true, value_name = "SCHEDULE")]
    pub schedules: Vec<PathBuf>,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Fail (exit 2) a schedule more than N ticks above the optimum (or,
    /// when tickopt cannot prove the optimum, above the lower bound).
    #[arg(long, value_name = "N")]
    pub max_gap_ticks: Option<u64>,
    /// Fail (exit 2) a schedule whose gap / optimum (or / lower bound) is
    /// above RATIO, e.g. 0.1 for 10%.
    #[arg(long, value_name = "RATIO")]
    pub max_gap: Option<f64>,
    /// Write audit.json, report.md and report.html here (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Time limit in seconds for each exact phase of tickopt's solve (as in
    /// `tickopt solve`). Cut short, the optimum may stay unproven and the
    /// gaps become upper estimates.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// Worker threads (default: all cores). Output does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print audit.json on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// With a cost model: predicted seconds of each schedule and its ratio
    /// to the fluid limit, and tickopt's bound in seconds over chunk sizes.
    #[command(flatten)]
    pub cost: super::common::CostArgs,
    #[command(flatten)]
    pub relay: super::relay_cmd::RelayArgs,
}

pub fn run(a: AuditArgs) -> anyhow::Result<u8> {
    set_threads(a.threads)?;
    if let Some(r) = a.max_gap {
        if !(r.is_finite() && r >= 0.0) {
            anyhow::bail!("--max-gap must be a ratio >= 0, got {r}");
        }
    }
    let request = SolveRequest {
        solver: SolverChoice::Auto,
        time_limit: time_limit(a.time_limit)?,
        keep_classes: false,
    };
    if let Some(dir) = &a.out_dir {
        if dir.exists() && !dir.is_dir() {
            anyhow::bail!("--out-dir {}: not a directory", dir.display());
        }
    }
    // Everything is read before anything is solved or written: an
    // unreadable file is exit 1 with no output.
    let phases = super::progress::Phases::start("reading the instance");
    let mut overrides = a.overrides.to_overrides();
    let mut stated = Vec::with_capacity(a.schedules.len());
    for p in &a.schedules {
        if crate::interop::is_relay_schedule_file(p)? {
            anyhow::bail!(
                "{}: a relay schedule: audit ranks direct schedules (against the relayed lower bound with --gpus-per-node and --nvlink-speedup); check a relay schedule with `tickopt validate` or, with its summary, `tickopt verify`",
                p.display()
            );
        }
        stated.push((p.display().to_string(), schedule_model(p)?));
    }
    model_from_files(&a.instance, &mut overrides, &stated)?;
    let read =
        super::common::load_instance_recorded(&a.instance, &overrides, &a.limits.to_limits())?;
    let inst = read.instance;
    note_instance_model(&a.instance, inst.model, &overrides, &stated);
    let mut facts = Vec::with_capacity(a.schedules.len());
    for p in &a.schedules {
        phases.phase(format!("validating {}", p.display()));
        facts.push(read_schedule_facts(&inst, p)?);
    }
    phases.phase(format!(
        "tickopt's own bounds and solve ({} slots, {} chunks)",
        inst.slots,
        inst.total_chunks()
    ));
    let cost = a.cost.model(&inst)?;
    let (sol, seconds) = match cost {
        Some(c) => {
            let req = super::solve_cmd::ChunkArgs::default().request(c, request.time_limit);
            let r = crate::cost::solve_seconds(&inst, &req, &request)?;
            (r.solution, Some(r.seconds))
        }
        None => (solve_instance(&inst, &request)?, None),
    };
    let relayed = match relay_machine(&a, &read.machine, inst.model)? {
        Some(tt) => {
            phases.phase(format!(
                "relayed bound and relay plan (nodes of {} GPUs, NVLink x{})",
                tt.gpus_per_node, tt.nvlink_speedup
            ));
            Some(crate::relay::plan_relay(&inst, tt).context(
                "no relayed bound (--gpus-per-node, --nvlink-speedup, or the CSV's record)",
            )?)
        }
        None => None,
    };
    drop(phases);
    let gates = Gates {
        max_gap_ticks: a.max_gap_ticks,
        max_gap: a.max_gap,
    };
    let mut audit = Audit::build(&inst, &a.instance.display().to_string(), &sol, facts, gates)
        .with_pairwise(&inst);
    audit.seconds = seconds.map(|s| crate::audit::AuditSeconds::new(&audit, s));
    audit.relay = relayed.map(|sol| crate::audit::relay::AuditRelay::new(&audit, &sol));
    if let Some(dir) = &a.out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        export::write_outputs(dir, &audit)?;
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&audit)?)?;
    } else {
        print_table(&audit)?;
    }
    Ok(if audit.passed { 0 } else { 2 })
}

/// The machine of the relayed bound: the flags, else the CSV's record.
/// A recorded machine with a STRICT1 audit is noted and left out (relays
/// are READ1_WRITE1 only); flags with STRICT1 are refused by the planner,
/// by name.
fn relay_machine(
    a: &AuditArgs,
    recorded: &crate::instance::RecordedMachine,
    model: Model,
) -> anyhow::Result<Option<crate::relay::TwoTier>> {
    let tt = a.relay.machine(recorded, &a.instance)?;
    if tt.is_some() && model == Model::Strict1 && !a.relay.given() {
        eprintln!(
            "note: {} records a two-tier machine, but relays are READ1_WRITE1 only: this STRICT1 audit has no relayed bound",
            a.instance.display()
        );
        return Ok(None);
    }
    Ok(tt)
}

fn print_table(a: &Audit) -> std::io::Result<()> {
    use crate::audit::export::ranking_rows;
    outln!("{} {} slots, {} chunks", a.model, a.slots, a.chunks)?;
    outln!("{}", a.optimum_sentence())?;
    outln!(
        "tickopt's schedule: {} ticks ({}, solver {})",
        a.best_ticks,
        a.optimum_status,
        a.solver
    )?;
    outln!(
        "{:>4}  {:<40} {:>5} {:>10} {:>10} {:>9} {:>11}  {}",
        "rank",
        "schedule",
        "valid",
        "ticks",
        "gap",
        "gap ratio",
        "ticks saved",
        "result"
    )?;
    for r in ranking_rows(a) {
        outln!(
            "{:>4}  {:<40} {:>5} {:>10} {:>10} {:>9} {:>11}  {}",
            r.rank,
            r.name,
            r.valid,
            r.ticks,
            r.gap_ticks,
            r.gap_ratio,
            r.ticks_saved,
            r.result
        )?;
        for e in &r.audit.first_errors {
            outln!("        {}", serde_json::to_string(e)?)?;
        }
    }
    if let Some(r) = &a.relay {
        outln!("{}", r.sentence(a.best_ticks))?;
        for s in &r.schedules {
            outln!("        {}", s.line())?;
        }
    }
    if let Some(s) = &a.seconds {
        let t = &s.tickopt;
        outln!(
            "seconds ({}): fluid limit {:.6} s; tickopt's schedule {:.6} s ({:.2}x fluid); no chunk size does better than {:.6} s",
            crate::cost::CostModel { alpha_us: t.alpha_us, link_gbps: t.link_gbps }.flags(),
            t.fluid_limit_seconds,
            t.predicted,
            t.ratio_to_fluid,
            t.lower_bound
        )?;
        for r in &s.schedules {
            outln!(
                "        {:<40} predicted {:.6} s ({:.2}x fluid)",
                r.name,
                r.predicted,
                r.ratio_to_fluid
            )?;
        }
    }
    outln!("audit: {}", if a.passed { "PASS" } else { "FAIL" })
}
