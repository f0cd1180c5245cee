//! The pairwise-exchange baseline: the order MoE libraries run today
//! (DESIGN.md §13), as a solver so that reports can say how many times
//! fewer ticks the optimum needs.
//!
//! Round `i = 1..n-1`: slot `r` sends to `(r + i) mod n`. Every ordered
//! pair is in exactly one round, and the rounds run one after the other.
//! Under READ1_WRITE1 a round is a permutation (each slot sends once and
//! receives once), so all its transfers run in parallel and it takes as
//! many ticks as its largest transfer in chunks: in all
//! `sum_i max_r chunks(r, (r + i) mod n)` ticks. Under STRICT1 a slot
//! cannot send and receive in one tick: a round's transfers form disjoint
//! cycles (pairs when `i = n / 2`), and the round is split into the
//! fewest conflict-free ticks by the exact engine on that round alone
//! (cycles are coloured exactly by structure, module `structured`).
//!
//! A baseline, not an optimiser: the status says how far from the lower
//! bound it is.

use crate::instance::{Demand, Instance, Model};
use crate::schedule::Schedule;

/// The pairwise-exchange schedule of `inst` (module docs). `fewest_ticks`
/// schedules one STRICT1 round (an instance of disjoint cycles) in its
/// fewest ticks: the portfolio passes its exact engine (this module stays
/// below the portfolio).
pub fn pairwise_schedule(
    inst: &Instance,
    fewest_ticks: &dyn Fn(&Instance) -> Schedule,
) -> Schedule {
    let n = inst.slots;
    let mut schedule = Schedule::new();
    for shift in 1..n {
        // Demand indices of the round, in slot order.
        let round: Vec<u32> = (0..n)
            .filter_map(|r| inst.demand_index(r, (r + shift) % n))
            .map(|i| i as u32)
            .collect();
        if round.is_empty() {
            continue;
        }
        match inst.model {
            Model::Read1Write1 => push_parallel(inst, &round, &mut schedule),
            Model::Strict1 => schedule.extend(strict1_round(inst, &round, fewest_ticks)),
        }
    }
    schedule
}

/// A READ1_WRITE1 round: every transfer from the round's first tick, each
/// for its chunks; rounds of the compact schedule where one runs out.
fn push_parallel(inst: &Instance, round: &[u32], schedule: &mut Schedule) {
    let mut by_chunks: Vec<(u64, u32)> = round
        .iter()
        .map(|&i| (inst.chunks(i as usize), i))
        .collect();
    by_chunks.sort_unstable();
    let mut done = 0u64;
    for (k, &(m, _)) in by_chunks.iter().enumerate() {
        if m > done {
            let running: Vec<u32> = by_chunks[k..].iter().map(|&(_, i)| i).collect();
            schedule.push(m - done, running);
            done = m;
        }
    }
}

/// A STRICT1 round in the fewest ticks: the exact engine on the round's
/// demands alone (same slots, ports and bandwidths), mapped back to
/// `inst`'s demand indices.
fn strict1_round(
    inst: &Instance,
    round: &[u32],
    fewest_ticks: &dyn Fn(&Instance) -> Schedule,
) -> Schedule {
    let demands = round.iter().map(|&i| {
        let d: Demand = inst.demands()[i as usize];
        let bw = inst.has_demand_bw().then(|| inst.demand_bw(i as usize));
        (d, bw)
    });
    let part = Instance::new_multiport(
        inst.model,
        inst.slots,
        inst.bw,
        demands,
        inst.ports().clone(),
        &crate::instance::Limits::default(),
    )
    .expect("a subset of a valid instance is valid");
    let mut schedule = Schedule::new();
    for r in fewest_ticks(&part).rounds {
        let back = r
            .demands
            .iter()
            .map(|&j| {
                let d = part.demands()[j as usize];
                inst.demand_index(d.src, d.dst).expect("a demand of inst") as u32
            })
            .collect();
        schedule.push(r.repeat, back);
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::Skew;
    use crate::instance::Limits;
    use crate::solve::portfolio::{solve_instance, SolveRequest};
    use crate::validate::validate_compact;

    fn exact(part: &Instance) -> Schedule {
        solve_instance(part, &SolveRequest::default())
            .unwrap()
            .schedule
    }

    fn skewed(model: Model, n: u32, seed: u64) -> Instance {
        let skew = Skew {
            mean_bits: 256.0,
            sigma: 1.0,
            hot: (n / 16).max(1),
            hot_factor: 4,
        };
        Instance::new(
            model,
            n,
            64,
            skew.all_to_all(n, seed).unwrap(),
            &Limits::default(),
        )
        .unwrap()
    }

    /// READ1_WRITE1: exactly sum over shifts of the largest transfer.
    #[test]
    fn read1_write1_pairwise_takes_the_formula_s_ticks() {
        for (n, seed) in [(2, 0), (5, 1), (8, 2), (16, 3), (33, 4)] {
            let inst = skewed(Model::Read1Write1, n, seed);
            let s = pairwise_schedule(&inst, &exact);
            assert!(validate_compact(&inst, &s).passed());
            let formula: u64 = (1..n)
                .map(|i| {
                    (0..n)
                        .map(|r| {
                            inst.demand_index(r, (r + i) % n)
                                .map_or(0, |j| inst.chunks(j))
                        })
                        .max()
                        .unwrap()
                })
                .sum();
            assert_eq!(s.ticks(), formula, "n={n}");
        }
    }

    /// STRICT1: valid, and each round at least its largest transfer and
    /// at most twice... in all between the READ1_WRITE1 count and 3x it.
    #[test]
    fn strict1_pairwise_is_valid_and_splits_each_round() {
        for (n, seed) in [(2, 0), (5, 1), (8, 2), (9, 3), (16, 4)] {
            let inst = skewed(Model::Strict1, n, seed);
            let s = pairwise_schedule(&inst, &exact);
            assert!(validate_compact(&inst, &s).passed(), "n={n}");
            let r1w1 = pairwise_schedule(&inst.with_model(Model::Read1Write1), &exact).ticks();
            assert!(s.ticks() >= r1w1 && s.ticks() <= 3 * r1w1, "n={n}");
        }
    }
}
