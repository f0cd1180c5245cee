//! Building a relay plan (DESIGN.md §14, "Building a relay plan"): the
//! node pairs' chunks split evenly over the G rails (`rails`: every NIC
//! within the node bound), each rail's NIC layer coloured by König
//! (`nic`, through `colour`, the one call into the solvers) and kept as
//! intervals of repeated rounds, and the NVLink hops pipelined around it
//! (`hops`, swept by `sweep` in windows of ticks, in two halves on the
//! thread pool where the layer is long, on the per-tick NVLink use of
//! `grid`), written as runs, then the intra-node chunks in the NVLink
//! room left (`intra`); rails of at most 16 nodes are coloured by `peel`
//! instead, unless a port is tight and NVLink slow (and where that plan
//! falls outside 2% + 2 ticks of the bound, planned again with König's).
//! Where NVLink is slow or a GPU's NVLink port tight (`pressure`), the
//! rails' shares favour the tight GPUs (`shares`, or `align::loaded_rails`
//! where NVLink binds), each pair's chunks are ordered for the rails
//! (`align::by_rails`) and the tight GPUs' intra-node chunks go first,
//! tick by tick. A plan still outside 2% + 2 ticks of its bound has its
//! last hops and intra-node chunks placed again (`repack`), the shorter
//! kept. The plan is validated by `super::check` before it is returned.
//! `direct` writes the best direct plan the same way, for where relays
//! do not pay.

mod align;
mod colour;
mod direct;
mod grid;
mod hops;
mod intra;
mod item;
mod nic;
mod peel;
mod prefetch;
mod pressure;
mod rails;
mod repack;
mod shares;
mod sweep;

pub(crate) use direct::direct_schedule;

use super::bounds::Loads;
use super::model::{RelayError, TwoTier};
use super::schedule::{RelayRun, RelaySchedule};
use crate::instance::Instance;
use rayon::prelude::*;

/// Runs from which the ticks are shifted on the thread pool (and the
/// size of each part there).
const PARALLEL_RUNS: usize = 1 << 15;

/// Layers of at most this many nodes are coloured by `peel` (at 64 ranks,
/// 8 nodes: a plan's median 0.45 -> 0.40 ms; with a tight port at rho 4,
/// 0.60 -> 0.55 ms), unless a port is tight at rho < G/2; at
/// 32 nodes it took as long as the engine's König colouring (perf, 256
/// ranks: 9% of the plan either way), which is used from there on.
const PEEL_NODES: u32 = 16;

/// A relay schedule for `inst` on `tt` and the NIC layer's tick count.
pub(crate) fn build_schedule(
    inst: &Instance,
    tt: TwoTier,
    loads: &Loads,
    bound: u64,
) -> Result<(RelaySchedule, u64), RelayError> {
    let pairs = node_pairs(inst, tt)?;
    let nodes = tt.nodes(inst.slots);
    let pressure = pressure::Pressure::of(tt, loads, bound);
    let (rails, routes) = if bound > node_bound(nodes, tt.gpus_per_node, &pairs) {
        let (rails, routes) = align::loaded_rails(inst, tt, &pairs, bound);
        (rails, Some(routes))
    } else {
        let even = rails::split_rails(nodes, tt.gpus_per_node, &pairs)?;
        match pressure.as_ref().filter(|p| p.any_tight()) {
            Some(p) => (
                shares::favour_tight(inst, tt, &pairs, &even, p, bound),
                None,
            ),
            None => (even, None),
        }
    };
    // Small layers are peeled (`nic_intervals`) unless a port is tight
    // and NVLink slow (rho < G/2); a plan outside its target that way is
    // planned again with König's layer, and the shorter kept.
    let tight = pressure.as_ref().is_some_and(|p| p.any_tight());
    let slow_nvlink = 2 * tt.nvlink_speedup < tt.gpus_per_node;
    let peel = nodes <= PEEL_NODES && !(tight && slow_nvlink);
    let place = |peel: bool| -> Result<_, RelayError> {
        // The NIC layer and the demands' order for it, side by side on the
        // thread pool where the rails are coloured there.
        let layer = || nic::nic_intervals(nodes, &pairs, &rails, peel);
        let order = || hops::order(inst, tt, &pairs, &rails, routes.as_ref(), pressure.as_ref());
        let (layer, order) = if pairs.len() >= nic::PARALLEL_PAIRS {
            rayon::join(layer, order)
        } else {
            (layer(), order())
        };
        let (intervals, nic_ticks) = layer?;
        let (runs, span) = sweep::place(
            inst,
            tt,
            order,
            &rails,
            &intervals,
            nic_ticks,
            pressure.as_ref(),
        );
        Ok((runs, span, nic_ticks))
    };
    let length = |span: Option<(i64, i64)>| span.map_or(0, |(lo, hi)| (hi - lo + 1) as u64);
    let (mut runs, mut span, mut nic_ticks) = place(peel)?;
    // The target: within 2% + 2 ticks of the bound.
    let target = bound + (bound / 50).max(2);
    if peel && length(span) > target {
        let again = place(false)?;
        if length(again.1) < length(span) {
            (runs, span, nic_ticks) = again;
        }
    }
    // The ticks counted from the plan's first, on the thread pool for
    // large plans; the plan's length is its hops' span.
    let (first, ticks) = (span.map_or(0, |s| s.0), length(span));
    let first = (first + hops::BIAS) as u64;
    let shift = |part: &mut [RelayRun]| {
        for r in part {
            for h in r.hops_mut() {
                h.tick -= first;
            }
        }
    };
    if runs.len() >= PARALLEL_RUNS {
        runs.par_chunks_mut(PARALLEL_RUNS).for_each(shift);
    } else {
        shift(&mut runs);
    }
    let mut schedule = RelaySchedule { ticks, runs };
    // Outside the target, the last hops and intra-node chunks placed
    // again (`repack`), the shorter plan kept.
    if ticks > target {
        if let Some(again) = repack::repack(inst, tt, &schedule) {
            if again.ticks < schedule.ticks {
                schedule = again;
            }
        }
    }
    Ok((schedule, nic_ticks))
}

/// The most chunks a NIC must carry with the rails split evenly: every
/// node's inter-node chunks out and in over its G NICs, rounded up.
fn node_bound(nodes: u32, g: u32, pairs: &[(u32, u32, u64)]) -> u64 {
    let (mut out, mut inn) = (vec![0u64; nodes as usize], vec![0u64; nodes as usize]);
    for &(a, b, c) in pairs {
        out[a as usize] += c;
        inn[b as usize] += c;
    }
    out.iter()
        .chain(&inn)
        .map(|&c| c.div_ceil(g as u64))
        .max()
        .unwrap_or(0)
}

/// The inter-node chunks of each node pair `(a, b, chunks)`, sorted by
/// `(a, b)`, chunks > 0. One pass over the demands (sorted by source,
/// then destination) with a per-destination-node tally for each source
/// node.
fn node_pairs(inst: &Instance, tt: TwoTier) -> Result<Vec<(u32, u32, u64)>, RelayError> {
    let nodes = tt.nodes(inst.slots) as usize;
    let mut tally = vec![0u64; nodes];
    let mut touched: Vec<u32> = Vec::new();
    let mut pairs = Vec::new();
    let mut flush = |a: u32, tally: &mut [u64], touched: &mut Vec<u32>| {
        touched.sort_unstable();
        for &b in touched.iter() {
            pairs.push((a, b, std::mem::take(&mut tally[b as usize])));
        }
        touched.clear();
    };
    let mut node = 0u32;
    for (d, dem) in inst.demands().iter().enumerate() {
        let (a, b) = (tt.node(dem.src), tt.node(dem.dst));
        if a != node {
            flush(node, &mut tally, &mut touched);
            node = a;
        }
        if a == b {
            continue;
        }
        let c = &mut tally[b as usize];
        if *c == 0 {
            touched.push(b);
        }
        *c = c.checked_add(inst.chunks(d)).ok_or(RelayError::Overflow)?;
    }
    flush(node, &mut tally, &mut touched);
    pairs.retain(|p| p.2 > 0);
    Ok(pairs)
}
