//! Multiplicity-aware greedy scheduling for both models (a heuristic).
//!
//! Each round picks a matching greedily, highest remaining load first
//! (score = load of the two ends, ties by lowest slot ids, as
//! copyspace-guard's greedy does per tick), then repeats it for as many ticks
//! as keeps the choice sound: every chosen pair still has chunks, and the
//! slots it serves stay at least as loaded as the slots it leaves idle, up
//! to a slack of `max(1, load / 512)` chunks that bounds the number of
//! rounds at high multiplicity. With small loads (slack 1) this is the
//! per-tick greedy with equal ticks merged; at multiplicity 10^6 it takes
//! a few thousand rounds instead of millions of ticks.
//!
//! Deterministic. Complexity: O(R * E log E) for R rounds over E pairs.

use super::{Solution, SolveOptions, Solver};
use crate::bounds::Bounds;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use std::time::Instant;

/// The greedy solver.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Solver for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn solve(&self, inst: &Instance, bounds: &Bounds, _opts: &SolveOptions) -> Solution {
        let t0 = Instant::now();
        let schedule = greedy_schedule(inst);
        Solution::from_schedule(schedule, bounds, self.name(), t0.elapsed().as_secs_f64())
    }
}

/// Load divisor for the repeat slack (see module docs).
const SLACK_DIVISOR: u64 = 512;

/// One schedulable item: an undirected pair (STRICT1) or a demand
/// (READ1_WRITE1), with the demands it feeds, in order.
struct Item {
    a: u32,
    b: u32,
    remaining: u64,
    /// (demand index, chunks left), consumed front to back.
    parts: Vec<(u32, u64)>,
    next_part: usize,
}

/// Builds a greedy schedule of `inst` under its model.
pub fn greedy_schedule(inst: &Instance) -> Schedule {
    let n = inst.slots as usize;
    let strict = inst.model == Model::Strict1;
    let mut items: Vec<Item> = if strict {
        DemandGraph::new(inst)
            .undirected
            .into_iter()
            .map(|e| Item {
                a: e.a,
                b: e.b,
                remaining: e.mult,
                parts: e.demands,
                next_part: 0,
            })
            .collect()
    } else {
        inst.demands()
            .iter()
            .enumerate()
            .map(|(i, d)| Item {
                a: d.src,
                b: d.dst,
                remaining: inst.chunks(i),
                parts: vec![(i as u32, inst.chunks(i))],
                next_part: 0,
            })
            .collect()
    };
    // Loads: STRICT1 uses load[a] for any slot; READ1_WRITE1 uses
    // load[a] for senders and load[n + b] for receivers.
    let mut load = vec![0u64; 2 * n];
    let side_b = |b: u32| if strict { b as usize } else { n + b as usize };
    for it in &items {
        load[it.a as usize] += it.remaining;
        load[side_b(it.b)] += it.remaining;
    }
    let mut schedule = Schedule::new();
    let mut used = vec![0u64; 2 * n];
    let mut stamp = 0u64;
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    let mut chosen: Vec<u32> = Vec::new();
    while !order.is_empty() {
        stamp += 1;
        order.sort_unstable_by_key(|&k| {
            let it = &items[k as usize];
            (
                std::cmp::Reverse(load[it.a as usize] + load[side_b(it.b)]),
                it.a,
                it.b,
            )
        });
        chosen.clear();
        for &k in &order {
            let it = &items[k as usize];
            let (x, y) = (it.a as usize, side_b(it.b));
            if used[x] != stamp && used[y] != stamp {
                used[x] = stamp;
                used[y] = stamp;
                chosen.push(k);
            }
        }
        // Repeat count: chunks of the current direction, and the load gap.
        let mut r = u64::MAX;
        let mut min_covered = u64::MAX;
        for &k in &chosen {
            let it = &items[k as usize];
            r = r.min(it.parts[it.next_part].1);
            min_covered = min_covered.min(load[it.a as usize]).min(load[side_b(it.b)]);
        }
        let max_idle = (0..2 * n)
            .filter(|&v| used[v] != stamp)
            .map(|v| load[v])
            .max()
            .unwrap_or(0);
        let max_load = load.iter().copied().max().unwrap_or(0);
        let slack = (max_load / SLACK_DIVISOR).max(1);
        let allowed = (min_covered + slack).saturating_sub(max_idle).max(1);
        r = r.min(allowed);
        let mut round = Vec::with_capacity(chosen.len());
        for &k in &chosen {
            let it = &mut items[k as usize];
            round.push(it.parts[it.next_part].0);
            it.parts[it.next_part].1 -= r;
            if it.parts[it.next_part].1 == 0 {
                it.next_part += 1;
            }
            it.remaining -= r;
            load[it.a as usize] -= r;
            load[side_b(it.b)] -= r;
        }
        schedule.push(r, round);
        order.retain(|&k| items[k as usize].remaining > 0);
    }
    schedule
}
