//! What a solve states in seconds ([`Seconds`]): the predicted time of its
//! schedule, the proven bound over chunk sizes with its witness, and the
//! fluid limit. Built by [`assess`]; `verify` recomputes every number.

use super::chunk::{choose_chunk, ChunkChoice, ChunkError, ChunkOptions, ChunkRange, StepBound};
use super::model::CostModel;
use crate::bounds::LowerBound;
use crate::instance::{Instance, Slot};
use serde::{Deserialize, Serialize};

/// How the schedule's chunk size was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkMode {
    /// Chosen by the search (`--chunk auto`).
    Auto,
    /// Given by the instance or `--bw`.
    Given,
}

/// The seconds part of a summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seconds {
    pub alpha_us: f64,
    pub link_gbps: f64,
    pub chunk: ChunkMode,
    /// The schedule's chunk size (its `copy_bw_bits_per_tick`).
    pub chunk_bits: u64,
    /// One tick at that size: `alpha + chunk_bits / rate`.
    pub tick_seconds: f64,
    /// The schedule's ticks x `tick_seconds`.
    pub predicted: f64,
    /// Proven: no schedule at any chunk size of `range`, nor at
    /// `chunk_bits`, takes less under the model.
    pub lower_bound: f64,
    /// The whole-byte chunk sizes the bound covers (absent with per-demand
    /// bandwidths: then only `chunk_bits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<ChunkRange>,
    /// The step that gives `lower_bound`: its chunk size, tick bound and
    /// witness (a slot or a set, for the instance at that chunk size).
    pub bound: StepBound,
    /// How the bound was obtained, in words.
    pub bound_method: String,
    /// Whether `lower_bound` is the exact minimum over the range of the
    /// bounds used (false: the walk's work budget ran out first, and the
    /// bound is a smaller, still valid, value).
    pub bound_complete: bool,
    /// Odd slot sets whose bounds were used at every chunk size (STRICT1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub odd_sets: Vec<Vec<Slot>>,
    /// Bits through the busiest slot over the link rate: the floor no
    /// chunking beats.
    pub fluid_limit_seconds: f64,
    /// `predicted / fluid_limit_seconds`.
    pub ratio_to_fluid: f64,
}

/// The seconds of a solve of `inst` (at its chunk size `inst.bw`) that took
/// `ticks` ticks with tick lower bound `lb`. `choice`: the search that
/// chose `inst.bw` (`--chunk auto`); without it, a search over `range`
/// runs here (one-bandwidth instances) so that the bound covers every
/// chunk size of the range.
pub fn assess(
    inst: &Instance,
    cost: &CostModel,
    ticks: u64,
    lb: &LowerBound,
    choice: Option<&ChunkChoice>,
    range: ChunkRange,
    opts: &ChunkOptions,
) -> Result<Seconds, ChunkError> {
    let chunk_bits = inst.bw;
    let at_given = StepBound {
        chunk_bits,
        ticks: lb.ticks,
        seconds: cost.seconds(lb.ticks, chunk_bits),
        witness: lb.witness.clone(),
    };
    let fluid = super::chunk::fluid_limit_seconds(inst, cost);
    let predicted = cost.seconds(ticks, chunk_bits);
    let mode = match choice {
        Some(_) => ChunkMode::Auto,
        None => ChunkMode::Given,
    };
    let (range, bound, lower_bound, complete, odd_sets, method) = if inst.has_demand_bw() {
        (
            None,
            at_given.clone(),
            at_given.seconds,
            true,
            Vec::new(),
            "tick lower bound x tick time at the given chunk size only (per-demand bandwidths: chunk sizes are not searched; the tick time follows the instance bandwidth)".to_string(),
        )
    } else {
        let owned;
        let c = match choice {
            Some(c) => c,
            None => {
                owned = choose_chunk(inst, cost, range, opts)?;
                &owned
            }
        };
        let s = &c.search;
        let mut method = format!(
            "min over every whole-byte chunk size from {} to {} bits of (tick lower bound x tick time), exact breakpoint search ({} evaluations); tick bound: {}",
            c.range.min_bits,
            c.range.max_bits,
            s.evaluations,
            match (inst.model, inst.is_single_port(), c.odd_sets.len()) {
                (crate::instance::Model::Read1Write1, _, _) => "degree (exact for READ1_WRITE1)".to_string(),
                (_, false, _) => "port degree".to_string(),
                (_, true, 0) => "degree and capacity".to_string(),
                (_, true, k) => format!("degree, capacity and {k} odd set(s) found at the chosen sizes"),
            }
        );
        if inst.model == crate::instance::Model::Strict1 && inst.is_single_port() {
            method.push_str(match c.odd_sets_complete {
                true => "; the odd-set search at the chosen size ran to its end",
                false => "; an odd-set search was cut short (its sets are still valid)",
            });
        }
        if !s.complete {
            method.push_str(
                "; the walk's work budget ran out: the bound is below the best step, still valid",
            );
        }
        let (bound, lower) = if at_given.seconds < s.lower_bound_seconds {
            method.push_str(
                "; the solve's own bound at the schedule's chunk size is lower and is used",
            );
            (at_given.clone(), at_given.seconds)
        } else {
            (s.best.clone(), s.lower_bound_seconds)
        };
        (
            Some(c.range),
            bound,
            lower,
            s.complete,
            c.odd_sets.clone(),
            method,
        )
    };
    Ok(Seconds {
        alpha_us: cost.alpha_us,
        link_gbps: cost.link_gbps,
        chunk: mode,
        chunk_bits,
        tick_seconds: cost.tick_seconds(chunk_bits),
        predicted,
        lower_bound,
        range,
        bound,
        bound_method: method,
        bound_complete: complete,
        odd_sets,
        fluid_limit_seconds: fluid,
        ratio_to_fluid: if fluid > 0.0 { predicted / fluid } else { 0.0 },
    })
}
