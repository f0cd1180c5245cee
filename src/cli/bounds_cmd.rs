//! `tickopt bounds`.

use super::common::InstanceArgs;
use crate::graph::DemandGraph;
use crate::solve::portfolio::bounds_settled_until;
use clap::Args;

#[derive(Args, Debug)]
pub struct BoundsArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Print JSON (every bound with its witness) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Time limit in seconds for the odd-set search (default: none). When it
    /// runs out, the best bound found is printed with its witness, marked
    /// partial. (From 4096 slots, where a backbone colouring meets the cheap
    /// bound, that colouring settles the bound and the search does not run.)
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
}

pub fn run(a: BoundsArgs) -> anyhow::Result<u8> {
    let limit = super::solve_cmd::time_limit(a.time_limit)?;
    let phases = super::progress::Phases::start("reading the instance");
    let inst = a.instance.load()?;
    phases.phase(format!(
        "bounds ({} slots, {} chunks)",
        inst.slots,
        inst.total_chunks()
    ));
    let g = DemandGraph::new(&inst);
    let deadline = limit.map(|t| std::time::Instant::now() + t);
    let (b, settled_by) = bounds_settled_until(&inst, &g, deadline);
    drop(phases);
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&b)?)?;
        return Ok(0);
    }
    outln!("model        {}", inst.model)?;
    outln!("slots        {}", inst.slots)?;
    outln!("demands      {}", inst.demands().len())?;
    outln!("chunks       {}", inst.total_chunks())?;
    outln!(
        "degree       {}  ({})",
        b.degree.ticks,
        serde_json::to_string(&b.degree.witness)?
    )?;
    if let Some(c) = &b.capacity {
        outln!(
            "capacity     {}  ({})",
            c.ticks,
            serde_json::to_string(&c.witness)?
        )?;
    }
    if let Some(o) = &b.odd_set {
        outln!(
            "odd set      {}  ({})",
            o.ticks,
            serde_json::to_string(&o.witness)?
        )?;
    }
    outln!(
        "lower bound  {}  ({}, {})",
        b.best.ticks,
        b.best.witness.kind(),
        match (b.complete, &settled_by) {
            (true, None) => "complete: max(Delta, ceil Gamma)".to_string(),
            (true, Some(how)) => format!("complete: max(Delta, ceil Gamma), {how} meets it"),
            (false, _) => "partial".to_string(),
        }
    )?;
    Ok(0)
}
