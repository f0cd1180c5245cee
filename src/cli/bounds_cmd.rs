//! `tickopt bounds`.

use super::common::InstanceArgs;
use crate::graph::DemandGraph;
use crate::solve::portfolio::bounds_settled_until;
use clap::Args;

#[derive(Args, Debug)]
pub struct BoundsArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Print JSON instead of text: every bound that has a witness, the best,
    /// "complete", and "settled_by" (the colouring that settled
    /// completeness, or null).
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
        // `settled_by`: the colouring that settled completeness (null when
        // the exact search did, or the bounds are partial).
        let mut v = serde_json::to_value(&b)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("settled_by".into(), serde_json::to_value(&settled_by)?);
        }
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
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
    match &b.odd_set {
        Some(o) => outln!(
            "odd set      {}  ({})",
            o.ticks,
            serde_json::to_string(&o.witness)?
        )?,
        // The search ran to the end and found no odd slot set above the
        // other bounds: say so rather than leave the line out.
        None if b.complete
            && settled_by.is_none()
            && inst.model == crate::instance::Model::Strict1 =>
        {
            outln!(
                "odd set      <= {}  (no odd slot set needs more ticks than the bounds above)",
                b.best.ticks
            )?
        }
        None => {}
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
