//! Heavy arbitrary traffic by binary splitting (issue 29): a colouring
//! whose cost grows with the pairs and the bits of the multiplicities, not
//! with chunks.
//!
//! Split each demand's chunk count as `m = 2^k (m >> k) + sum_{j<k} 2^j b_j`.
//! The *top* layer is the multigraph of the counts `m >> k`, with `k` the
//! smallest shift that leaves at most 4 chunks a pair (so its greedy costs
//! about what a few chunks a pair cost); bit layer `j < k` is the multigraph
//! of the demands whose bit `j` is set, one chunk each. Colouring each layer
//! and repeating its rounds `2^k` or `2^j` times sends every demand exactly
//! `m` chunks, so the layers laid end to end are a schedule of
//! `2^k T_top + sum_j 2^j T_j` ticks, and a demand appears in a few rounds of
//! the top and one per set bit below it.
//!
//! How far from optimal: the load greedy meets each layer's degree bound
//! on random traffic, so what is lost is the max-over-slots of each layer:
//! `2^k Delta_top + sum_j 2^j Delta_j >= Delta` (the most loaded slot is
//! not the most loaded one on every layer). The top keeps the slots' high
//! bits together, so only the low layers lose: on the 2M random
//! pairs (sizes uniform in 8..1e6 bits) 1.007 x Delta, where splitting
//! every bit gives 1.038 x. On structured traffic the exact paths of
//! [`crate::solve::portfolio`] stay better, which is why this path only takes
//! instances too heavy for them ([`applies`]). Heuristic, not exact: its
//! status is whatever the bound proves.
//!
//! Each layer is coloured by the load greedy ([`crate::solve::heuristic::greedy`]) on its
//! own instance; layers run in parallel (rayon; the top, the largest,
//! first) and are combined in a fixed order, so the schedule is the same on
//! any number of threads.

use crate::instance::{Demand, Instance, Limits, Model};
use crate::schedule::Schedule;
use crate::solve::heuristic::greedy::greedy_schedule_until;
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

/// Chunks the top layer may hold per pair: its cost is the load greedy's on
/// a multigraph of about this multiplicity.
const TOP_CHUNKS_PER_PAIR: u64 = 4;

/// A part of the split: the demands' counts `m >> k` (the top, `Top(k)`),
/// or bit `j` of them (`Bit(j)`), each sent `2^k` or `2^j` times over.
#[derive(Clone, Copy, Debug)]
enum Layer {
    Top(u32),
    Bit(u32),
}

impl Layer {
    /// Chunks of a demand of `m` chunks in this layer.
    fn count(self, m: u64) -> u64 {
        match self {
            Layer::Top(k) => m >> k,
            Layer::Bit(j) => (m >> j) & 1,
        }
    }

    /// log2 of the ticks each of the layer's ticks stands for.
    fn shift(self) -> u32 {
        match self {
            Layer::Top(k) | Layer::Bit(k) => k,
        }
    }
}

/// The layers of `counts`: the top `m >> k` for the smallest `k` at which it
/// holds at most [`TOP_CHUNKS_PER_PAIR`] chunks a pair (coloured as one
/// multigraph, its slots' degrees stay together: only the bits below `k`
/// lose to the max-over-slots of each level), then bits `k-1 .. 0`.
fn layers(counts: &[u64]) -> Vec<Layer> {
    let budget = TOP_CHUNKS_PER_PAIR.saturating_mul(counts.len() as u64);
    let top_chunks = |k: u32| {
        counts.iter().fold(0u64, |a, &m| {
            a.saturating_add(m.checked_shr(k).unwrap_or(0))
        })
    };
    let k = (0..u64::BITS)
        .find(|&k| top_chunks(k) <= budget)
        .unwrap_or(u64::BITS);
    let mut out = Vec::new();
    if k < u64::BITS {
        out.push(Layer::Top(k));
    }
    out.extend((0..k).rev().map(Layer::Bit));
    out
}

/// The instance of `layer`: each demand with chunks in it, as that many
/// one-bit chunks (bw 1), and the original index of each of its demands.
fn layer_instance(inst: &Instance, layer: Layer) -> Option<(Instance, Vec<u32>)> {
    let counts = inst.chunk_counts();
    let mut index = Vec::new();
    let mut demands = Vec::new();
    for (i, (d, &m)) in inst.demands().iter().zip(counts).enumerate() {
        let c = layer.count(m);
        if c > 0 {
            index.push(i as u32);
            demands.push(Demand {
                src: d.src,
                dst: d.dst,
                bits: c,
            });
        }
    }
    if demands.is_empty() {
        return None;
    }
    // A subset of sorted, distinct pairs stays sorted and distinct, so the
    // layer's demand k is the original demand index[k].
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
/// `deadline` cut some layer's greedy short (its schedule is still
/// complete and valid, only longer), and the layers as `m >> k` / bit `j`
/// names.
pub(crate) fn bit_split_schedule(
    inst: &Instance,
    deadline: Option<Instant>,
) -> (Schedule, bool, Vec<String>) {
    let layers = layers(inst.chunk_counts());
    let names = layers
        .iter()
        .map(|l| match l {
            Layer::Top(k) => format!("m>>{k}"),
            Layer::Bit(j) => format!("bit {j}"),
        })
        .collect();
    // The top first: it carries the most ticks, and rayon starts it first.
    let parts: Vec<(u32, Schedule, bool)> = layers
        .into_par_iter()
        .filter_map(|layer| {
            let (lvl, index) = layer_instance(inst, layer)?;
            let (sched, cut) = greedy_schedule_until(&lvl, deadline);
            let mapped = Schedule::from_rounds(
                sched
                    .rounds
                    .into_iter()
                    .map(|r| crate::schedule::Round {
                        repeat: r.repeat,
                        demands: r.demands.iter().map(|&k| index[k as usize]).collect(),
                    })
                    .collect(),
            );
            Some((layer.shift(), mapped, cut))
        })
        .collect();
    let mut out = Schedule::new();
    let mut cut_any = false;
    for (shift, sched, cut) in parts {
        cut_any |= cut;
        for r in sched.rounds {
            // repeat x 2^shift <= the demand's count, which fits u64.
            let repeat = r
                .repeat
                .checked_mul(1u64 << shift)
                .expect("layer repeats fit: a demand's count fits u64");
            out.push(repeat, r.demands);
        }
    }
    (out, cut_any, names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::validate_compact;

    /// The top takes the smallest shift that leaves at most 4 chunks a
    /// pair; the bits below it follow, highest first.
    #[test]
    fn layers_are_the_top_then_the_low_bits() {
        let l = layers(&[1000; 10]);
        assert!(matches!(l[0], Layer::Top(8)), "{l:?}"); // 1000 >> 8 = 3
        let bits: Vec<u32> = l[1..].iter().map(|x| x.shift()).collect();
        assert_eq!(bits, (0..8).rev().collect::<Vec<_>>());
        assert!(matches!(layers(&[3, 4])[..], [Layer::Top(0)]));
        // Every demand gets exactly its chunks back.
        for m in [1u64, 7, 1000, 977, u64::MAX] {
            let layers = layers(&[m]);
            let total = layers
                .iter()
                .fold(0u128, |a, l| a + (u128::from(l.count(m)) << l.shift()));
            assert_eq!(total, u128::from(m), "{m}: {layers:?}");
        }
    }

    /// Random heavy-ish traffic small enough for a unit test: the split is
    /// a valid schedule, at or above the degree bound, the same on one
    /// thread, and each demand appears in few rounds.
    #[test]
    fn the_layers_make_a_valid_schedule() {
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
        let (sched, cut, names) = bit_split_schedule(&inst, None);
        assert!(!cut);
        assert!(names[0].starts_with("m>>"), "{names:?}");
        let report = validate_compact(&inst, &sched);
        assert!(report.passed(), "{}", report.one_line());
        let g = crate::graph::DemandGraph::new(&inst);
        assert!(sched.ticks() >= g.max_degree().0);
        // Entries grow with pairs x layers, not with chunks.
        let appearances: u64 = sched.rounds.iter().map(|r| r.demands.len() as u64).sum();
        let pairs = inst.demands().len() as u64;
        assert!(
            appearances <= pairs * (names.len() as u64 + 4),
            "{appearances} entries for {pairs} pairs"
        );
        assert!(appearances < inst.total_chunks() / 4);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = pool.install(|| bit_split_schedule(&inst, None).0);
        assert_eq!(single, sched);
    }
}
