//! Heavy arbitrary traffic by binary splitting (issue 29): a colouring
//! whose cost grows with pairs x bits of the largest multiplicity, not
//! with chunks.
//!
//! Write each demand's chunk count in binary, `m = sum_j 2^j b_j`. Level
//! `j` is the multigraph of the demands whose bit `j` is set, one chunk
//! each (a simple graph, or a pair of opposite demands). Colouring level
//! `j` in `T_j` ticks and repeating every one of its rounds `2^j` times
//! sends each demand exactly `m` chunks, so the levels laid end to end are a
//! schedule of `sum_j 2^j T_j` ticks with `sum_j T_j` rounds: a demand
//! appears in as many rounds as its count has one-bits.
//!
//! How far from optimal: with `Delta_j` the largest degree of level `j`,
//! `sum_j 2^j Delta_j >= Delta` (the most loaded slot is not the most loaded
//! one on every level), and each level's colouring may take a tick more than
//! `Delta_j`. On random heavy traffic (sizes uniform, 1,000 pairs per slot)
//! the sum is about 1.03 x Delta; on structured traffic the exact paths of
//! [`super::portfolio`] stay better, which is why this path only takes
//! instances too heavy for them ([`applies`]). Heuristic, not exact: its
//! status is whatever the bound proves.
//!
//! Each level is coloured by the load greedy ([`super::greedy`]) on its own
//! instance; levels run in parallel (rayon) and are combined in a fixed
//! order, so the schedule is the same on any number of threads.

use super::greedy::greedy_schedule_until;
use crate::instance::{Demand, Instance, Limits, Model};
use crate::schedule::Schedule;
use rayon::prelude::*;
use std::time::Instant;

/// Chunks from which an instance counts as heavy: above this the load
/// greedy's rounds (one per tick at worst) no longer fit a time limit of
/// tens of seconds, while the levels here cost about pairs x 20.
const HEAVY_CHUNKS: u64 = 1 << 27;
/// Pairs from which the split is used: smaller supports go to the compact
/// greedy, whose rounds follow the pairs.
const HEAVY_MIN_DEMANDS: usize = 1 << 16;

/// Whether `inst` is heavy arbitrary traffic this path is for: one-port
/// STRICT1 with more than 2^27 chunks over at least 65,536 pairs. (READ1_WRITE1
/// is exact at any weight by König, multi-port has its own engine.)
pub(crate) fn applies(inst: &Instance) -> bool {
    inst.model == Model::Strict1
        && inst.is_single_port()
        && inst.total_chunks() > HEAVY_CHUNKS
        && inst.demands().len() >= HEAVY_MIN_DEMANDS
}

/// The level of bit `j`: an instance of one chunk per demand whose count
/// has bit `j` set, and the original index of each of its demands.
fn level(inst: &Instance, j: u32) -> Option<(Instance, Vec<u32>)> {
    let counts = inst.chunk_counts();
    let mut index = Vec::new();
    let mut demands = Vec::new();
    for (i, (d, &m)) in inst.demands().iter().zip(counts).enumerate() {
        if (m >> j) & 1 == 1 {
            index.push(i as u32);
            demands.push(Demand {
                src: d.src,
                dst: d.dst,
                bits: 1,
            });
        }
    }
    if demands.is_empty() {
        return None;
    }
    // A subset of sorted, distinct pairs stays sorted and distinct, so the
    // level's demand k is the original demand index[k].
    let limits = Limits {
        max_slots: inst.slots.max(1),
        max_demands: demands.len() as u64,
    };
    let lvl = Instance::new(inst.model, inst.slots, 1, demands, &limits)
        .expect("a subset of a valid instance's pairs is valid");
    debug_assert!(lvl
        .demands()
        .iter()
        .zip(&index)
        .all(|(d, &i)| (d.src, d.dst)
            == (
                inst.demands()[i as usize].src,
                inst.demands()[i as usize].dst
            )));
    Some((lvl, index))
}

/// The binary-split schedule of `inst` (see the module docs), whether
/// `deadline` cut some level's greedy short (its schedule is still
/// complete and valid, only longer), and the number of levels.
pub(crate) fn bit_split_schedule(
    inst: &Instance,
    deadline: Option<Instant>,
) -> (Schedule, bool, usize) {
    let top = inst
        .chunk_counts()
        .iter()
        .copied()
        .max()
        .map_or(0, |m| u64::BITS - m.leading_zeros());
    // Highest level first: its rounds carry the most ticks each.
    let levels: Vec<(u32, Schedule, bool)> = (0..top)
        .rev()
        .collect::<Vec<_>>()
        .into_par_iter()
        .filter_map(|j| {
            let (lvl, index) = level(inst, j)?;
            let (sched, cut) = greedy_schedule_until(&lvl, deadline);
            let mapped = Schedule {
                rounds: sched
                    .rounds
                    .into_iter()
                    .map(|r| crate::schedule::Round {
                        repeat: r.repeat,
                        demands: r.demands.iter().map(|&k| index[k as usize]).collect(),
                    })
                    .collect(),
            };
            Some((j, mapped, cut))
        })
        .collect();
    let mut out = Schedule::new();
    let mut cut_any = false;
    let count = levels.len();
    for (j, sched, cut) in levels {
        cut_any |= cut;
        for r in sched.rounds {
            // repeat <= 2 (one chunk per demand, at most two demands a
            // pair), times 2^j with j < 64: checked all the same.
            let repeat = r
                .repeat
                .checked_mul(1u64 << j)
                .expect("level repeats fit: a demand's count fits u64");
            out.push(repeat, r.demands);
        }
    }
    (out, cut_any, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::validate_compact;

    /// Random heavy-ish traffic small enough for a unit test: the split is
    /// a valid schedule whose rounds number the one-bits' levels' ticks.
    #[test]
    fn binary_levels_make_a_valid_schedule() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 40u32;
        let mut demands = Vec::new();
        for u in 0..n {
            for v in 0..n {
                if u != v && next() % 3 == 0 {
                    demands.push(Demand {
                        src: u,
                        dst: v,
                        bits: 1 + next() % 5000,
                    });
                }
            }
        }
        let inst = Instance::new(Model::Strict1, n, 16, demands, &Limits::default()).unwrap();
        let (sched, cut, _) = bit_split_schedule(&inst, None);
        assert!(!cut);
        let report = validate_compact(&inst, &sched);
        assert!(report.passed(), "{}", report.one_line());
        // Each demand is in one round per one-bit of its chunk count (rounds
        // of one level never merge with another level's: repeats differ,
        // and a merge only ever lowers the count).
        let ones: u64 = inst
            .chunk_counts()
            .iter()
            .map(|m| u64::from(m.count_ones()))
            .sum();
        let appearances: u64 = sched.rounds.iter().map(|r| r.demands.len() as u64).sum();
        assert!(appearances <= ones, "{appearances} > {ones}");
        // Ticks: at least the degree bound, and within the levels' sum.
        let g = crate::graph::DemandGraph::new(&inst);
        assert!(sched.ticks() >= g.max_degree().0);
        // Same schedule on one thread.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = pool.install(|| bit_split_schedule(&inst, None).0);
        assert_eq!(single, sched);
    }
}
