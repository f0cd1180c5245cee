//! The NIC layer: each rail's node-pair chunks coloured bipartitely
//! (König: as many ticks as the rail's busiest NIC), the rails side by
//! side (a NIC belongs to one rail), on the thread pool. The colouring's
//! rounds repeat: a pair of a round with repeat `r` holds its rail for `r`
//! consecutive ticks, an [`Interval`], and a pair matched in consecutive
//! rounds holds it for one interval (the peeling repairs its matching
//! rather than rebuilding it, so most pairs stay matched over many
//! rounds); the layer is kept as intervals, not tick by tick.

use super::colour::colour_bipartite;
use super::peel::{peel_colour, MAX_SIDE};
use super::rails::RailLoads;
use crate::relay::model::RelayError;
use rayon::prelude::*;

/// Rail `rail` carries chunks from node `a` to node `b` in ticks `start ..
/// start + len`: its `cursor`-th load (rails' loads counted in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Interval {
    pub start: u64,
    pub len: u64,
    pub rail: u32,
    pub cursor: u32,
    pub a: u32,
    pub b: u32,
}

/// Node pairs from which the rails are coloured on the thread pool: from
/// 256 ranks in nodes of 8 (992 pairs, about 2.4 ms of colouring on one
/// thread). There it also wakes the pool's other thread before the
/// placement's halves (`super::sweep`) need it: on this project's 2-core
/// VM a sleeping thread takes 0.5-1.3 ms to wake; the plan's median went
/// 8.9-10.3 -> 8.0-8.4 ms at rho 4 (`examples/relay_time.rs`).
pub(super) const PARALLEL_PAIRS: usize = 512;

/// The NIC layer's intervals ordered by start tick (ties: rail, then the
/// colouring's order), and its tick count (the busiest NIC's chunks).
/// With `peel` (up to 64 nodes) each rail is coloured by peeling perfect
/// matchings (`super::peel`: no instance built, no engine set-up), else by
/// the engine's König colouring. The two layers take the same ticks and
/// plan about as close to the bound: on `examples/relay_gap.rs`' 96
/// plans at 64 ranks and rho 4, peeled layers planned 17 differently, by
/// -5 to +6 ticks (9 more in all), one of them outside 2% + 2, which
/// `super::build_schedule` plans again with König's layer (then 16 differ,
/// -5 to +3, 3 more in all). Where a GPU's NVLink port is tight at rho 1-2
/// the pairs' order was tuned on König's rounds (peeled, those plans were
/// 0.8% longer on average), so `super::build_schedule` does not peel
/// there; tight at rho 4, peeled layers planned 17 of the 240 differently
/// (12 a tick shorter, 5 a tick longer).
/// Rail `k`'s rounds are rotated by `k * ticks / G` ticks (so the rails do
/// not all start with the same pairs), wrapping around.
pub(crate) fn nic_intervals(
    nodes: u32,
    pairs: &[(u32, u32, u64)],
    rails: &RailLoads,
    peel: bool,
) -> Result<(Vec<Interval>, u64), RelayError> {
    debug_assert!(!peel || nodes <= MAX_SIDE);
    let colour = |loads: &Vec<(u32, u64)>| {
        let edges: Vec<(u32, u32, u64)> = loads
            .iter()
            .map(|&(p, c)| (pairs[p as usize].0, pairs[p as usize].1, c))
            .collect();
        if peel {
            peel_colour(nodes, nodes, &edges)
        } else {
            colour_bipartite(nodes, nodes, &edges)
        }
    };
    // Small layers on this thread: handing them to the pool costs more
    // than it saves (and each worker's allocator takes fresh pages).
    let per_rail: Vec<Vec<(u64, Vec<u32>)>> = if pairs.len() >= PARALLEL_PAIRS {
        rails.par_iter().map(colour).collect::<Result<_, _>>()?
    } else {
        rails.iter().map(colour).collect::<Result<_, _>>()?
    };
    let ticks = per_rail
        .iter()
        .map(|c| c.iter().map(|r| r.0).sum::<u64>())
        .max()
        .unwrap_or(0);
    // Each rail's intervals on its own (on the pool where the rails were
    // coloured there), then all ordered by start.
    let bases: Vec<usize> = rails
        .iter()
        .scan(0usize, |acc, r| {
            let base = *acc;
            *acc += r.len();
            Some(base)
        })
        .collect();
    let of_rail = |k: usize| {
        rail_intervals(
            k,
            &per_rail[k],
            &rails[k],
            bases[k],
            pairs,
            ticks,
            rails.len(),
        )
    };
    let parts: Vec<Vec<Interval>> = if pairs.len() >= PARALLEL_PAIRS {
        (0..rails.len()).into_par_iter().map(of_rail).collect()
    } else {
        (0..rails.len()).map(of_rail).collect()
    };
    Ok((by_start(&parts, ticks), ticks))
}

/// Rail `k`'s intervals from its colour classes (its loads `loads`, its
/// first cursor `base`), its rounds rotated by `k * ticks / rails` ticks.
fn rail_intervals(
    k: usize,
    classes: &[(u64, Vec<u32>)],
    loads: &[(u32, u64)],
    base: usize,
    pairs: &[(u32, u32, u64)],
    ticks: u64,
    rails: usize,
) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::new();
    let shift = ticks * k as u64 / rails as u64;
    // Per edge of the rail, its latest interval in `out` and the tick that
    // interval ends at so far: a class lists ~a node's worth of edges a
    // round (9.5 M entries over 8 rails at 1,024 ranks), so an extension
    // touches only these (small, cached), and `out` only when an interval
    // starts or is closed.
    let mut latest = vec![usize::MAX; loads.len()];
    let mut ends = vec![u64::MAX; loads.len()];
    let close = |out: &mut Vec<Interval>, x: usize, end: u64| {
        if let Some(iv) = out.get_mut(x) {
            iv.len = end - iv.start;
        }
    };
    let mut t = 0u64;
    for (repeat, class) in classes {
        let start = (t + shift) % ticks;
        // The part up to the wrap, then the rest from tick 0.
        let first = (*repeat).min(ticks - start);
        for &e in class {
            let e = e as usize;
            for (s, len) in [(start, first), (0, repeat - first)] {
                if len == 0 {
                    continue;
                }
                // An edge matched again right after its interval extends
                // it.
                if ends[e] == s {
                    ends[e] += len;
                    continue;
                }
                close(&mut out, latest[e], ends[e]);
                let (a, b, _) = pairs[loads[e].0 as usize];
                latest[e] = out.len();
                ends[e] = s + len;
                out.push(Interval {
                    start: s,
                    len,
                    rail: k as u32,
                    cursor: (base + e) as u32,
                    a,
                    b,
                });
            }
        }
        t += repeat;
    }
    for (&x, &end) in latest.iter().zip(&ends) {
        close(&mut out, x, end);
    }
    out
}

/// The intervals of `parts` (in order) ordered by start tick, stably (a
/// counting sort over the ticks).
fn by_start(parts: &[Vec<Interval>], ticks: u64) -> Vec<Interval> {
    let mut at = vec![0usize; ticks as usize + 1];
    for x in parts.iter().flatten() {
        at[x.start as usize + 1] += 1;
    }
    for t in 0..ticks as usize {
        at[t + 1] += at[t];
    }
    let mut out = vec![Interval::default(); at[ticks as usize]];
    for x in parts.iter().flatten() {
        out[at[x.start as usize]] = *x;
        at[x.start as usize] += 1;
    }
    out
}
