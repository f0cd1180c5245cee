//! `tickopt bounds`.

use super::common::InstanceArgs;
use crate::{bounds_for, graph::DemandGraph};
use clap::Args;

#[derive(Args, Debug)]
pub struct BoundsArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Print JSON (every bound with its witness) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: BoundsArgs) -> anyhow::Result<u8> {
    let phases = super::progress::Phases::start("reading the instance");
    let inst = a.instance.load()?;
    phases.phase(format!(
        "bounds ({} slots, {} chunks)",
        inst.slots,
        inst.total_chunks()
    ));
    let b = bounds_for(&inst, &DemandGraph::new(&inst));
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
        if b.complete {
            "complete: max(Delta, ceil Gamma)"
        } else {
            "partial"
        }
    )?;
    Ok(0)
}
