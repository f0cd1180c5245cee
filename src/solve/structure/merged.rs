//! Exact READ1_WRITE1 colouring of skewed traffic by merging slots first.
//!
//! Under skew (MoE dispatch with hot experts) Delta is set by a few slots
//! and most slots carry a fraction of it. A colouring of a graph in which
//! low-degree vertices of one side are *merged* (identified) is a
//! colouring of the original: a matching of the merged graph touches a
//! merged vertex once, so it touches each of its members at most once.
//! Merging keeps Delta as long as every merged vertex's degree stays at
//! most Delta, so [`merged_delta_schedule`] packs each side's degrees into
//! bins of capacity Delta (first fit decreasing), colours the merged
//! bipartite multigraph with Delta colours by [`crate::solve::one_port::koenig::delta_schedule`]
//! (König: exact), and hands each merged pair's chunks back to its member
//! demands in order.
//!
//! Why it is faster: the König engines cost about (vertices x Delta) x
//! log Delta (Euler splits) or one matching repair per pair (peeling); after
//! merging there are about `chunks / Delta` vertices per side instead of
//! `slots`, and pairs are merged too (at 256 ranks with 1/16 hot columns x4,
//! 65,280 pairs become about 5,000). The hand-back is linear in the output:
//! a round of the merged schedule is cut where a member demand runs out,
//! so the schedule has at most (merged rounds + demands) rounds.
//!
//! Exact (Delta ticks, the degree witness proves it) and deterministic.

use crate::graph::DemandGraph;
use crate::instance::{Demand, Instance, Limits, Model};
use crate::schedule::Schedule;
use crate::solve::one_port::koenig::delta_schedule;

/// Merged vertices over slot sides with chunks below which merging is
/// worth its set-up (`Merge::pays`).
const MERGE_RATIO_NUM: usize = 3;
/// Demands below which the plain engines are kept (microseconds either
/// way; their rounds are what small instances' tests and reports show).
const MERGE_MIN_DEMANDS: usize = 1024;
const MERGE_RATIO_DEN: usize = 4;

/// Assigns each vertex with a positive degree to a bin of capacity `cap`
/// (first fit decreasing; `cap` is at least every degree). Returns the bin
/// of each vertex (`u32::MAX` for degree 0) and the number of bins.
fn pack(degrees: &[u64], cap: u64) -> (Vec<u32>, u32) {
    let mut order: Vec<u32> = (0..degrees.len() as u32)
        .filter(|&v| degrees[v as usize] > 0)
        .collect();
    // Decreasing degree, ties by vertex: deterministic.
    order.sort_unstable_by_key(|&v| (std::cmp::Reverse(degrees[v as usize]), v));
    let mut bin_of = vec![u32::MAX; degrees.len()];
    let mut room: Vec<u64> = Vec::new();
    // Bins with room >= the smallest degree still to place are the only
    // candidates; `first_open` skips the full ones at the front.
    let mut first_open = 0usize;
    for &v in &order {
        let d = degrees[v as usize];
        while first_open < room.len() && room[first_open] == 0 {
            first_open += 1;
        }
        let bin = match (first_open..room.len()).find(|&b| room[b] >= d) {
            Some(b) => b,
            None => {
                room.push(cap);
                room.len() - 1
            }
        };
        room[bin] -= d;
        bin_of[v as usize] = bin as u32;
    }
    (bin_of, room.len() as u32)
}

/// Assigns each vertex with a positive degree to a bin of capacity `cap`,
/// vertices in slot order filling one bin until the next does not fit (next
/// fit): bins are contiguous slot ranges, so merged demands in bin order
/// hand back demands in slot order and the rounds need no sort.
fn pack_in_order(degrees: &[u64], cap: u64) -> (Vec<u32>, u32) {
    let mut bin_of = vec![u32::MAX; degrees.len()];
    let (mut bins, mut room) = (0u32, 0u64);
    for (v, &d) in degrees.iter().enumerate() {
        if d == 0 {
            continue;
        }
        if bins == 0 || d > room {
            bins += 1;
            room = cap;
        }
        room -= d;
        bin_of[v] = bins - 1;
    }
    (bin_of, bins)
}

/// The slots after merging: bins per side and each slot's bin.
struct Merge {
    left_of: Vec<u32>,
    right_of: Vec<u32>,
    left: u32,
    right: u32,
}

impl Merge {
    fn new(g: &DemandGraph) -> Merge {
        let (out, inn) = (&g.out_degree, &g.in_degree);
        let delta = out.iter().chain(inn).copied().max().unwrap_or(0);
        let (left_of, left) = pack_in_order(out, delta);
        let (right_of, right) = pack(inn, delta);
        Merge {
            left_of,
            right_of,
            left,
            right,
        }
    }

    /// Whether merging shrinks the vertex count enough to pay: fewer than
    /// 3/4 of the slot sides with chunks remain.
    fn pays(&self) -> bool {
        let active = self
            .left_of
            .iter()
            .chain(&self.right_of)
            .filter(|&&b| b != u32::MAX)
            .count();
        (self.left + self.right) as usize * MERGE_RATIO_DEN < active * MERGE_RATIO_NUM
    }
}

/// The Delta-tick schedule of a READ1_WRITE1 instance (one port, one
/// bandwidth) through merged slots (module docs). `None` when merging does
/// not pay (fewer than a quarter of the slots go: uniform traffic, left to
/// the plain engines) or the merged instance cannot be built (more chunks
/// in a merged pair than u64 holds).
/// `g` is the instance's demand graph (its side degrees are the bins'
/// loads).
pub fn merged_delta_schedule(inst: &Instance, g: &DemandGraph) -> Option<Schedule> {
    if inst.model != Model::Read1Write1
        || inst.is_multiport()
        || inst.demands().len() < MERGE_MIN_DEMANDS
    {
        return None;
    }
    let merge = Merge::new(g);
    if !merge.pays() {
        return None;
    }
    let (left, right) = (merge.left as usize, merge.right as usize);
    // Member demands of each merged pair (a, b), grouped by counting sort
    // over the pair's dense index, in demand order within a pair.
    let pair_of = |d: &Demand| {
        merge.left_of[d.src as usize] as usize * right + merge.right_of[d.dst as usize] as usize
    };
    let mut start = vec![0u32; left * right + 1];
    for d in inst.demands() {
        start[pair_of(d) + 1] += 1;
    }
    for p in 0..left * right {
        start[p + 1] += start[p];
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; inst.demands().len()];
    let mut chunks = vec![0u64; left * right];
    for (i, (d, &m)) in inst.demands().iter().zip(inst.chunk_counts()).enumerate() {
        let p = pair_of(d);
        members[fill[p] as usize] = i as u32;
        fill[p] += 1;
        chunks[p] = chunks[p].checked_add(m)?;
    }
    // The merged instance: left bins are slots 0..left, right bins follow;
    // one chunk per bit. Its demands are the non-empty pairs in (a, b)
    // order, so merged demand j is the j-th non-empty pair.
    let used: Vec<usize> = (0..left * right).filter(|&p| chunks[p] > 0).collect();
    let merged_demands = used.iter().map(|&p| Demand {
        src: (p / right) as u32,
        dst: (left + p % right) as u32,
        bits: chunks[p],
    });
    let merged = Instance::new(
        Model::Read1Write1,
        (left + right) as u32,
        1,
        merged_demands,
        &Limits::default(),
    )
    .ok()?;
    let (coarse, _) = delta_schedule(&merged);
    // Member j's demands are members[from[j]..from[j + 1]], their chunks
    // alongside (read in order: the hand-back's cache misses were a third
    // of a plan).
    let from: Vec<usize> = used
        .iter()
        .map(|&p| start[p] as usize)
        .chain(std::iter::once(members.len()))
        .collect();
    let member_chunks: Vec<u64> = members.iter().map(|&i| inst.chunks(i as usize)).collect();
    Some(hand_back(&coarse, &members, &member_chunks, &from))
}

/// Turns the merged schedule into one of the instance: merged demand `j`'s
/// chunks go to `members[from[j]..from[j + 1]]` in order (`chunks` of each
/// alongside), and a round is cut where one of its members runs out.
fn hand_back(coarse: &Schedule, members: &[u32], chunks: &[u64], from: &[usize]) -> Schedule {
    // Per merged demand: position of its current member, chunks left of it.
    let mut pos: Vec<usize> = from[..from.len() - 1].to_vec();
    let mut left: Vec<u64> = pos.iter().map(|&p| chunks[p]).collect();
    let mut schedule = Schedule::new();
    for round in &coarse.rounds {
        let mut repeat = round.repeat;
        while repeat > 0 {
            let step = round
                .demands
                .iter()
                .map(|&j| left[j as usize])
                .min()
                .unwrap_or(repeat)
                .min(repeat);
            let tick: Vec<u32> = round
                .demands
                .iter()
                .map(|&j| members[pos[j as usize]])
                .collect();
            schedule.push(step, tick);
            for &j in &round.demands {
                let j = j as usize;
                left[j] -= step;
                if left[j] == 0 && pos[j] + 1 < from[j + 1] {
                    pos[j] += 1;
                    left[j] = chunks[pos[j]];
                }
            }
            repeat -= step;
        }
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_instance;
    use crate::validate::validate_compact;

    fn skewed(n: u32, k: u64, seed: u64) -> Instance {
        test_instance(Model::Read1Write1, n, k, seed)
    }

    #[test]
    fn merged_schedules_are_valid_and_take_delta_ticks() {
        for (n, k, seed) in [(40, 1, 0), (48, 4, 1), (64, 1, 2), (64, 4, 3), (100, 2, 4)] {
            let inst = skewed(n, k, seed);
            let g = DemandGraph::new(&inst);
            let delta = g.max_degree().0;
            let s = merged_delta_schedule(&inst, &g).expect("fits");
            assert!(validate_compact(&inst, &s).passed(), "n={n} k={k}");
            assert_eq!(s.ticks(), delta, "n={n} k={k}");
        }
    }

    #[test]
    fn packing_respects_the_capacity_and_places_every_active_vertex() {
        let degrees = [5, 0, 3, 3, 2, 7, 1];
        let (bin_of, bins) = pack(&degrees, 7);
        let mut load = vec![0; bins as usize];
        for (v, &b) in bin_of.iter().enumerate() {
            if degrees[v] == 0 {
                assert_eq!(b, u32::MAX);
            } else {
                load[b as usize] += degrees[v];
            }
        }
        assert!(load.iter().all(|&l| l <= 7));
        assert_eq!(load.iter().sum::<u64>(), 21);
        assert_eq!(bins, 3);
    }
}
