//! Peeling a 1-factorisation off an all-to-all support (one port).
//!
//! When most pairs of the k slots that have demands share chunks (an
//! all-to-all: MoE dispatch, uniform or skewed, a few pairs possibly
//! without tokens; at least half of the pairs are asked for), the pairs of
//! K_k split into perfect matchings whose ticks lower every active slot's
//! degree alike; a matching with a pair that has no chunks is left out:
//!
//! - STRICT1 ([`PeelPlan`]): the circle method (Walecki's 1-factorisation
//!   of K_k: slot k-1 fixed, the others on a circle; matching r pairs r
//!   with k-1 and `r+t` with `r-t` modulo k-1). For odd k a dummy slot
//!   takes the fixed place and the slot matched to it sits idle in that
//!   matching, for at most its slack `Delta - deg` ticks.
//! - READ1_WRITE1 ([`ShiftPlan`]): the cyclic shifts `i -> i + t` modulo k,
//!   t = 1..k-1 (the Latin square of Z_k: a 1-factorisation of senders x
//!   receivers without the diagonal), each sending and receiving once per
//!   active slot.
//!
//! Running each complete matching for `c` ticks, with `c` its smallest
//! multiplicity, lowers every active slot's degree by the same P = sum of
//! the `c`s, so the rest has maximum degree Delta - P exactly, and a
//! schedule of the rest in Delta - P ticks completes one of Delta ticks,
//! which is optimal by the degree bound. For READ1_WRITE1 König guarantees that schedule; at MoE
//! 1024 the shifts take 1268 of 3605 ticks. For STRICT1 the load greedy
//! ([`super::greedy`]) schedules the rest: at MoE 1024 the matchings take
//! 3998 of 7143 ticks, which leaves it less than half of its rounds. A
//! STRICT1 peel can spoil a rest that was colourable in Delta - P (it lowers
//! an odd set's edges by up to P (|S|-1)/2 chunks, so the rest may have an
//! overfull odd set); the greedy then also runs without it and keeps the
//! shorter schedule. O(pairs + slots) for the plans and the rests, O(P k / 2)
//! for the rounds.

use crate::graph::{Adjacency, DemandGraph, UndirectedEdge};
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;

/// Smallest active slot count worth a peel (below it the greedy is instant).
const MIN_ACTIVE_SLOTS: usize = 4;

/// No rank (a slot without chunks).
const NONE: u32 = u32::MAX;

/// What to peel off a STRICT1 (near) all-to-all: the ticks of each matching
/// of the circle method, and its pairs.
pub(crate) struct PeelPlan {
    /// Ticks of matching r (0: not used, or a pair of it has no chunks).
    ticks: Vec<u64>,
    /// Indices into [`DemandGraph::undirected`] of the pairs of each matching.
    pairs: Buckets,
}

impl PeelPlan {
    /// The plan for `inst`, or `None` when fewer than [`MIN_ACTIVE_SLOTS`]
    /// slots have chunks, fewer than half of their pairs do, or no matching
    /// has all its pairs.
    pub(crate) fn new(inst: &Instance, g: &DemandGraph) -> Option<PeelPlan> {
        if inst.model != Model::Strict1 || !inst.is_single_port() {
            return None;
        }
        let degree: Vec<u64> = (0..inst.slots as usize).map(|v| g.degree(v)).collect();
        let (active, rank) = dense_active_set(&degree, g.undirected().len(), 1)?;
        let k = active.len();
        let circle = Circle::new(k);
        let matching = |e: &UndirectedEdge| {
            circle.matching_of(rank[e.a as usize] as usize, rank[e.b as usize] as usize)
        };
        let pairs = Buckets::new(circle.matchings(), g.undirected().iter().map(matching));
        let mut ticks: Vec<u64> = (0..circle.matchings())
            .map(|r| {
                let edges = pairs.get(r);
                if edges.len() < k / 2 {
                    return 0;
                }
                edges
                    .iter()
                    .map(|&e| g.undirected()[e as usize].mult)
                    .min()
                    .unwrap_or(0)
            })
            .collect();
        if k % 2 == 1 {
            // Matching r leaves rank r idle: at most its slack.
            let delta = degree.iter().copied().max().unwrap_or(0);
            for (r, t) in ticks.iter_mut().enumerate() {
                *t = (*t).min(delta - degree[active[r] as usize]);
            }
        }
        (ticks.iter().any(|&t| t > 0)).then_some(PeelPlan { ticks, pairs })
    }

    /// The matchings to peel, with their ticks and pairs.
    fn peeled(&self) -> impl Iterator<Item = (u64, &[u32])> {
        self.pairs.with_ticks(&self.ticks)
    }

    /// Chunks each demand has left after the peel.
    pub(crate) fn rest(&self, inst: &Instance, g: &DemandGraph) -> Vec<u64> {
        let mut left = inst.chunk_counts().to_vec();
        for (ticks, edges) in self.peeled() {
            for &e in edges {
                let mut take = ticks;
                for &(d, _) in &g.undirected()[e as usize].demands {
                    let t = take.min(left[d as usize]);
                    left[d as usize] -= t;
                    take -= t;
                }
            }
        }
        left
    }

    /// The peeled rounds: each matching for its ticks, every pair sending
    /// its demands in the order of [`UndirectedEdge::demands`] (a round
    /// ends where some pair moves to its next demand).
    pub(crate) fn rounds(&self, g: &DemandGraph) -> Schedule {
        let mut schedule = Schedule::new();
        // (edge, part, chunks left in the part) of each pair of the matching.
        let mut cursors: Vec<(&UndirectedEdge, usize, u64)> = Vec::new();
        for (ticks, edges) in self.peeled() {
            cursors.clear();
            cursors.extend(edges.iter().map(|&e| {
                let e = &g.undirected()[e as usize];
                (e, 0, e.demands[0].1)
            }));
            let mut to_go = ticks;
            while to_go > 0 {
                let step = cursors.iter().map(|c| c.2).min().unwrap_or(0).min(to_go);
                schedule.push(step, cursors.iter().map(|c| c.0.demands[c.1].0).collect());
                to_go -= step;
                for (e, part, left) in &mut cursors {
                    *left -= step;
                    if *left == 0 && to_go > 0 {
                        *part += 1;
                        *left = e.demands[*part].1;
                    }
                }
            }
        }
        schedule
    }
}

/// What to peel off a READ1_WRITE1 (near) all-to-all: the ticks of each
/// shift `i -> i + t` of the ranks, and its demands.
pub(crate) struct ShiftPlan {
    /// Ticks of shift t (0: t = 0, or a demand of the shift is missing).
    ticks: Vec<u64>,
    /// Demand indices of each shift.
    demands: Buckets,
}

impl ShiftPlan {
    /// The plan for `inst`, or `None` when fewer than [`MIN_ACTIVE_SLOTS`]
    /// slots have demands, fewer than half of their ordered pairs do, or no
    /// shift has all its demands.
    pub(crate) fn new(inst: &Instance) -> Option<ShiftPlan> {
        if inst.model != Model::Read1Write1 || !inst.is_single_port() {
            return None;
        }
        let mut degree = vec![0u64; inst.slots as usize];
        for d in inst.demands() {
            degree[d.src as usize] += 1;
            degree[d.dst as usize] += 1;
        }
        let (active, rank) = dense_active_set(&degree, inst.demands().len(), 2)?;
        let k = active.len();
        let shift = |d: &crate::instance::Demand| {
            (rank[d.dst as usize] as usize + k - rank[d.src as usize] as usize) % k
        };
        let demands = Buckets::new(k, inst.demands().iter().map(shift));
        let chunks = inst.chunk_counts();
        let ticks: Vec<u64> = (0..k)
            .map(|t| {
                let ds = demands.get(t);
                if t == 0 || ds.len() < k {
                    return 0;
                }
                ds.iter().map(|&d| chunks[d as usize]).min().unwrap_or(0)
            })
            .collect();
        (ticks.iter().any(|&t| t > 0)).then_some(ShiftPlan { ticks, demands })
    }

    /// The shifts to peel, with their ticks and demands.
    fn peeled(&self) -> impl Iterator<Item = (u64, &[u32])> {
        self.demands.with_ticks(&self.ticks)
    }

    /// Chunks each demand has left after the peel.
    pub(crate) fn rest(&self, inst: &Instance) -> Vec<u64> {
        let mut left = inst.chunk_counts().to_vec();
        for (ticks, demands) in self.peeled() {
            for &d in demands {
                left[d as usize] -= ticks;
            }
        }
        left
    }

    /// The peeled rounds: each shift for its ticks, one round each.
    pub(crate) fn rounds(&self) -> Schedule {
        let mut schedule = Schedule::new();
        for (ticks, demands) in self.peeled() {
            schedule.push(ticks, demands.to_vec());
        }
        schedule
    }
}

/// The slots with `degree > 0` (ascending) and the rank of each slot among
/// them ([`NONE`] for the others), when there are at least
/// [`MIN_ACTIVE_SLOTS`] of them and `pairs` is at least half of their pairs
/// (`per_pair` pairs per two slots: 1 undirected, 2 ordered).
fn dense_active_set(degree: &[u64], pairs: usize, per_pair: usize) -> Option<(Vec<u32>, Vec<u32>)> {
    let active: Vec<u32> = (0..degree.len() as u32)
        .filter(|&v| degree[v as usize] > 0)
        .collect();
    let k = active.len();
    if k < MIN_ACTIVE_SLOTS || 4 * pairs < per_pair * k * (k - 1) {
        return None;
    }
    let mut rank = vec![NONE; degree.len()];
    for (i, &v) in active.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    Some((active, rank))
}

/// Items grouped by key, in item order within a key (a counting sort).
struct Buckets(Adjacency<u32>);

impl Buckets {
    /// Items `0..` with the keys `keys` (each below `count`).
    fn new(count: usize, keys: impl Iterator<Item = usize> + Clone) -> Buckets {
        let entries = keys
            .enumerate()
            .map(|(item, key)| (key as u32, item as u32));
        Buckets(Adjacency::from_entries(count, entries))
    }

    fn get(&self, key: usize) -> &[u32] {
        self.0.row(key)
    }

    /// `(ticks[key], items of key)` for the keys with ticks, in key order.
    fn with_ticks<'a>(&'a self, ticks: &'a [u64]) -> impl Iterator<Item = (u64, &'a [u32])> {
        (ticks.iter().enumerate())
            .filter(|&(_, &t)| t > 0)
            .map(|(key, &t)| (t, self.get(key)))
    }
}

/// The circle method on k ranks (a dummy rank k for odd k).
struct Circle {
    /// Ranks on the circle: k - 1 for even k, k for odd k (always odd).
    m: usize,
}

impl Circle {
    fn new(k: usize) -> Circle {
        Circle {
            m: if k % 2 == 0 { k - 1 } else { k },
        }
    }

    fn matchings(&self) -> usize {
        self.m
    }

    /// The matching that holds the pair of ranks `i != j`: r with
    /// `i + j = 2r` modulo m (2 is invertible modulo the odd m, with
    /// inverse (m+1)/2), or r = the other rank when one is the fixed rank m.
    fn matching_of(&self, i: usize, j: usize) -> usize {
        if j == self.m {
            i
        } else if i == self.m {
            j
        } else {
            (i + j) * self.m.div_ceil(2) % self.m
        }
    }

    /// The real pairs of matching r on k ranks (a pair with the dummy is
    /// left out).
    #[cfg(test)]
    fn pairs(&self, r: usize, k: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let m = self.m;
        let fixed = (m < k).then_some((r, m));
        fixed
            .into_iter()
            .chain((1..=(m - 1) / 2).map(move |t| ((r + t) % m, (r + m - t) % m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of ranks is in exactly one matching, the one
    /// `matching_of` names, and each matching is a matching.
    #[test]
    fn the_circle_is_a_one_factorisation() {
        for k in 4..40 {
            let c = Circle::new(k);
            let mut seen = vec![vec![false; k]; k];
            for r in 0..c.matchings() {
                let mut used = vec![false; k];
                for (i, j) in c.pairs(r, k) {
                    let (i, j) = (i.min(j), i.max(j));
                    assert!(j < k && i != j, "k {k} r {r}: ({i}, {j})");
                    assert!(!used[i] && !used[j], "k {k} r {r}: rank used twice");
                    used[i] = true;
                    used[j] = true;
                    assert!(!seen[i][j], "k {k}: pair ({i}, {j}) twice");
                    seen[i][j] = true;
                    assert_eq!(c.matching_of(i, j), r, "k {k}: pair ({i}, {j})");
                }
                let idle = used.iter().filter(|&&u| !u).count();
                assert_eq!(idle, k % 2, "k {k} r {r}");
            }
            for (i, row) in seen.iter().enumerate() {
                let missing = row.iter().skip(i + 1).position(|&s| !s);
                assert_eq!(missing, None, "k {k}: a pair of rank {i} is missing");
            }
        }
    }

    fn moe(n: u32, model: Model) -> Instance {
        let spec = crate::gen::GenSpec {
            family: crate::gen::Family::Moe {
                n,
                experts_per_rank: 1,
                tokens: 64 * n as u64,
                topk: 2,
                zipf: 0.5,
                token_bits: 12000,
            },
            mult: 1,
            bw: 1024,
            seed: n as u64,
        };
        let g = crate::gen::generate(&spec).expect("valid parameters");
        Instance::new(
            model,
            g.slots,
            1024,
            g.demands,
            &crate::instance::Limits::default(),
        )
        .expect("valid")
    }

    /// Chunks per demand in `s`, and whether every round is a matching
    /// (STRICT1) or sends and receives once per slot (READ1_WRITE1).
    fn sent_by(inst: &Instance, s: &Schedule) -> (Vec<u64>, bool) {
        let mut sent = vec![0u64; inst.demands().len()];
        let mut proper = true;
        for round in &s.rounds {
            let mut busy = vec![[false; 2]; inst.slots as usize];
            for &d in &round.demands {
                sent[d as usize] += round.repeat;
                let dm = inst.demands()[d as usize];
                let (a, b) = match inst.model {
                    Model::Strict1 => (0, 0),
                    Model::Read1Write1 => (0, 1),
                };
                proper &= !busy[dm.src as usize][a] && !busy[dm.dst as usize][b];
                busy[dm.src as usize][a] = true;
                busy[dm.dst as usize][b] = true;
            }
        }
        (sent, proper)
    }

    /// The peeled rounds are proper, they and the rest add up to every
    /// demand's chunks, and the rest's Delta is Delta less the peeled ticks.
    #[test]
    fn peels_lower_delta_by_their_ticks() {
        for n in [16, 15, 4, 5] {
            for model in [Model::Strict1, Model::Read1Write1] {
                let inst = moe(n, model);
                let g = DemandGraph::new(&inst);
                let (rounds, rest) = match model {
                    Model::Strict1 => {
                        let plan = PeelPlan::new(&inst, &g).expect("all-to-all");
                        (plan.rounds(&g), plan.rest(&inst, &g))
                    }
                    Model::Read1Write1 => {
                        let plan = ShiftPlan::new(&inst).expect("all-to-all");
                        (plan.rounds(), plan.rest(&inst))
                    }
                };
                let (sent, proper) = sent_by(&inst, &rounds);
                assert!(proper, "n {n} {model:?}");
                assert!(rounds.ticks() > 0, "n {n} {model:?}");
                for (i, (s, r)) in sent.iter().zip(&rest).enumerate() {
                    assert_eq!(s + r, inst.chunks(i), "n {n} {model:?} demand {i}");
                }
                let demands = inst.demands().iter().zip(&rest);
                let rest_inst = Instance::new(
                    model,
                    inst.slots,
                    1,
                    demands
                        .filter(|(_, &r)| r > 0)
                        .map(|(d, &r)| crate::instance::Demand { bits: r, ..*d })
                        .collect::<Vec<_>>(),
                    &crate::instance::Limits::default(),
                )
                .expect("valid");
                let rest_delta = DemandGraph::new(&rest_inst).max_degree().0;
                let delta = g.max_degree().0;
                assert_eq!(rest_delta + rounds.ticks(), delta, "n {n} {model:?}");
            }
        }
    }

    /// The plan's peeled matchings (or shifts) and its rounds and rest.
    fn peel(inst: &Instance) -> Option<(usize, Schedule, Vec<u64>)> {
        let g = DemandGraph::new(inst);
        match inst.model {
            Model::Strict1 => PeelPlan::new(inst, &g)
                .map(|p| (p.peeled().count(), p.rounds(&g), p.rest(inst, &g))),
            Model::Read1Write1 => {
                ShiftPlan::new(inst).map(|p| (p.peeled().count(), p.rounds(), p.rest(inst)))
            }
        }
    }

    /// A missing pair leaves the one matching (or shift) that holds it out
    /// of the peel, and the rest still has Delta less the peeled ticks; a
    /// sparse support (a ring) is not peeled.
    #[test]
    fn a_missing_pair_leaves_out_its_matching_only() {
        for model in [Model::Strict1, Model::Read1Write1] {
            let inst = moe(8, model);
            let (full, _, _) = peel(&inst).expect("all-to-all");
            assert_eq!(full, 7, "{model:?}: every matching of 8 slots has chunks");
            let (a, b) = (inst.demands()[2].src, inst.demands()[2].dst);
            let mut demands = inst.demands().to_vec();
            // STRICT1: the pair both ways; READ1_WRITE1: one direction.
            let gone = |d: &crate::instance::Demand| {
                (d.src, d.dst) == (a, b) || (model == Model::Strict1 && (d.src, d.dst) == (b, a))
            };
            demands.retain(|d| !gone(d));
            let cut = Instance::new(model, 8, 1024, demands, &Default::default()).expect("valid");
            let (peeled, rounds, rest) = peel(&cut).expect("near all-to-all");
            assert_eq!(peeled, 6, "{model:?}");
            let (sent, proper) = sent_by(&cut, &rounds);
            assert!(proper);
            for (i, (s, r)) in sent.iter().zip(&rest).enumerate() {
                assert_eq!(s + r, cut.chunks(i), "{model:?} demand {i}");
            }
            let ring: Vec<_> = (0..9u32)
                .map(|v| crate::instance::Demand {
                    src: v,
                    dst: (v + 1) % 9,
                    bits: 4096,
                })
                .collect();
            let ring = Instance::new(model, 9, 1024, ring, &Default::default()).expect("valid");
            assert!(peel(&ring).is_none(), "{model:?}");
        }
    }
}
