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
    /// partial. (Where the search would still face 4096 or more vertices
    /// after splitting into blocks and contracting chains, and a backbone
    /// colouring meets the cheap bound, that colouring settles the bound
    /// and the search does not run.)
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    /// With a cost model, also the proven bound in seconds over every
    /// whole-byte chunk size (doc/design.md §12) and the fluid limit.
    #[command(flatten)]
    pub cost: super::common::CostArgs,
    /// Smallest chunk size of the seconds bound (default 1 byte; whole bytes).
    #[arg(long, value_name = "SIZE", value_parser = super::common::parse_chunk_arg)]
    pub min_chunk: Option<u64>,
    /// Largest chunk size of the seconds bound (default: the largest demand).
    #[arg(long, value_name = "SIZE", value_parser = super::common::parse_chunk_arg)]
    pub max_chunk: Option<u64>,
}

/// The seconds bound over chunk sizes, as JSON.
fn seconds_bound(
    inst: &crate::instance::Instance,
    a: &BoundsArgs,
    deadline: Option<std::time::Instant>,
) -> anyhow::Result<Option<serde_json::Value>> {
    use crate::cost::{choose_chunk, chunk::fluid_limit_seconds, ChunkOptions, ChunkRange};
    let Some(cost) = a.cost.model(inst)? else {
        if a.min_chunk.is_some() || a.max_chunk.is_some() {
            anyhow::bail!("--min-chunk/--max-chunk bound the chunk sizes of the seconds bound: they need a cost model (--alpha-us and --link-gbps)");
        }
        return Ok(None);
    };
    let range = ChunkRange::given_or_default(inst, a.min_chunk, a.max_chunk)?;
    let c = choose_chunk(
        inst,
        &cost,
        range,
        &ChunkOptions {
            deadline,
            ..ChunkOptions::default()
        },
    )?;
    Ok(Some(serde_json::json!({
        "alpha_us": cost.alpha_us,
        "link_gbps": cost.link_gbps,
        "range": c.range,
        "seconds_lower_bound": c.search.lower_bound_seconds,
        "best_chunk_bits": c.search.best.chunk_bits,
        "bound": c.search.best,
        "complete": c.search.complete,
        "odd_sets": c.odd_sets,
        "fluid_limit_seconds": fluid_limit_seconds(inst, &cost),
    })))
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
    let seconds = seconds_bound(&inst, &a, deadline)?;
    drop(phases);
    if a.json {
        // `settled_by`: the colouring that settled completeness (null when
        // the exact search did, or the bounds are partial).
        let mut v = serde_json::to_value(&b)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert("settled_by".into(), serde_json::to_value(&settled_by)?);
            if let Some(sec) = seconds {
                obj.insert("seconds".into(), sec);
            }
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
    if let Some(sec) = seconds {
        outln!(
            "seconds      >= {:.9} s over chunk sizes {}..={} bits (least at {} bits: {} ticks, {}{})",
            sec["seconds_lower_bound"].as_f64().unwrap_or(0.0),
            sec["range"]["min_bits"],
            sec["range"]["max_bits"],
            sec["best_chunk_bits"],
            sec["bound"]["ticks"],
            sec["bound"]["witness"]["kind"].as_str().unwrap_or("?"),
            if sec["complete"] == true { "" } else { "; walk cut short, bound still valid" }
        )?;
        outln!(
            "fluid limit  {:.9} s (bits through the busiest slot / link rate)",
            sec["fluid_limit_seconds"].as_f64().unwrap_or(0.0)
        )?;
    }
    Ok(0)
}
