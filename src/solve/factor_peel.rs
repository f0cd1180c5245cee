//! Peeling a 1-factorisation off an all-to-all support (one port).
//!
//! When every two slots that have demands share chunks (an all-to-all:
//! MoE dispatch, uniform or skewed), the pairs of the k active slots split
//! into perfect matchings whose ticks lower every active slot's degree
//! alike:
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
//! Running each matching for `c` ticks, with `c` its smallest multiplicity,
//! lowers every active slot's degree by the same P = sum of the `c`s, so the
//! rest has maximum degree Delta - P exactly, and a schedule of the rest in
//! Delta - P ticks completes one of Delta ticks, which is optimal by the
//! degree bound. For READ1_WRITE1 König guarantees that schedule; at MoE
//! 1024 the shifts take 1268 of 3605 ticks. For STRICT1 the load greedy
//! ([`super::greedy`]) schedules the rest: at MoE 1024 the matchings take
//! 3998 of 7143 ticks, which leaves it less than half of its rounds. A
//! STRICT1 peel can spoil a rest that was colourable in Delta - P (it lowers
//! an odd set's edges by up to P (|S|-1)/2 chunks, so the rest may have an
//! overfull odd set); the greedy then also runs without it and keeps the
//! shorter schedule. O(pairs) for the plans and the rests, O(P k / 2) for
//! the rounds.

use crate::graph::{DemandGraph, UndirectedEdge};
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;

/// Smallest active slot count worth a peel (below it the greedy is instant).
const MIN_ACTIVE_SLOTS: usize = 4;

/// What to peel off a STRICT1 all-to-all: the active slots, and the
/// ticks of each matching of the circle method.
pub(crate) struct PeelPlan {
    /// Slots with chunks, ascending (their rank is their index here).
    active: Vec<u32>,
    /// Ticks of matching r (0: not used).
    ticks: Vec<u64>,
}

impl PeelPlan {
    /// The plan for `inst`, or `None` when the support is not all-to-all
    /// over an active set of at least [`MIN_ACTIVE_SLOTS`] slots, or no
    /// matching can run a tick.
    pub(crate) fn new(inst: &Instance, g: &DemandGraph) -> Option<PeelPlan> {
        if inst.model != Model::Strict1 || !inst.is_single_port() {
            return None;
        }
        let degree: Vec<u64> = (0..inst.slots as usize).map(|v| g.degree(v)).collect();
        let active = active_slots(&degree, g.undirected.len(), 1)?;
        let k = active.len();
        let circle = Circle::new(k);
        let mut ticks = vec![u64::MAX; circle.matchings()];
        for (e, (i, j)) in g.undirected.iter().zip(pair_ranks(k)) {
            debug_assert_eq!((e.a, e.b), (active[i], active[j]));
            let r = circle.matching_of(i, j);
            ticks[r] = ticks[r].min(e.mult);
        }
        if k % 2 == 1 {
            // Matching r leaves rank r idle: at most its slack.
            let delta = degree.iter().copied().max().unwrap_or(0);
            for (r, t) in ticks.iter_mut().enumerate() {
                *t = (*t).min(delta - degree[active[r] as usize]);
            }
        }
        (ticks.iter().any(|&t| t > 0)).then_some(PeelPlan { active, ticks })
    }

    /// Chunks each demand has left after the peel.
    pub(crate) fn rest(&self, inst: &Instance, g: &DemandGraph) -> Vec<u64> {
        let mut left: Vec<u64> = (0..inst.demands().len()).map(|i| inst.chunks(i)).collect();
        let circle = Circle::new(self.active.len());
        for (e, (i, j)) in g.undirected.iter().zip(pair_ranks(self.active.len())) {
            let mut take = self.ticks[circle.matching_of(i, j)];
            for &(d, _) in &e.demands {
                let t = take.min(left[d as usize]);
                left[d as usize] -= t;
                take -= t;
            }
        }
        left
    }

    /// The peeled rounds: each matching for its ticks, every pair sending
    /// its demands in the order of [`UndirectedEdge::demands`] (a round
    /// ends where some pair moves to its next demand).
    pub(crate) fn rounds(&self, g: &DemandGraph) -> Schedule {
        let k = self.active.len();
        let circle = Circle::new(k);
        let mut schedule = Schedule::new();
        // (edge, part, chunks left in the part) of each pair of the matching.
        let mut cursors: Vec<(&UndirectedEdge, usize, u64)> = Vec::with_capacity(k / 2);
        for (r, &ticks) in self.ticks.iter().enumerate() {
            if ticks == 0 {
                continue;
            }
            cursors.clear();
            cursors.extend(circle.pairs(r).map(|(i, j)| {
                let e = &g.undirected[edge_index(k, i.min(j), i.max(j))];
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

/// What to peel off a READ1_WRITE1 all-to-all: the active slots, and
/// the ticks of each shift `i -> i + t` (index t; 0 unused).
pub(crate) struct ShiftPlan {
    active: usize,
    ticks: Vec<u64>,
}

impl ShiftPlan {
    /// The plan for `inst`, or `None` when its demands are not every
    /// ordered pair of at least [`MIN_ACTIVE_SLOTS`] active slots, or no
    /// shift can run a tick.
    pub(crate) fn new(inst: &Instance) -> Option<ShiftPlan> {
        if inst.model != Model::Read1Write1 || !inst.is_single_port() {
            return None;
        }
        let mut degree = vec![0u64; inst.slots as usize];
        for d in inst.demands() {
            degree[d.src as usize] += 1;
            degree[d.dst as usize] += 1;
        }
        let k = active_slots(&degree, inst.demands().len(), 2)?.len();
        let mut ticks = vec![u64::MAX; k];
        ticks[0] = 0;
        for (idx, &c) in inst.chunk_counts().iter().enumerate() {
            let t = shift_of(k, idx);
            ticks[t] = ticks[t].min(c);
        }
        (ticks.iter().any(|&t| t > 0)).then_some(ShiftPlan { active: k, ticks })
    }

    /// Chunks each demand has left after the peel.
    pub(crate) fn rest(&self, inst: &Instance) -> Vec<u64> {
        let k = self.active;
        (inst.chunk_counts().iter().enumerate())
            .map(|(idx, &c)| c - self.ticks[shift_of(k, idx)])
            .collect()
    }

    /// The peeled rounds: shift t for its ticks, one round each.
    pub(crate) fn rounds(&self) -> Schedule {
        let k = self.active;
        let mut schedule = Schedule::new();
        for (t, &ticks) in self.ticks.iter().enumerate().filter(|&(_, &c)| c > 0) {
            // Demands are sorted by (src, dst): rank i's row starts at
            // i (k - 1) and skips its own column.
            let demand = |i: usize| {
                let j = (i + t) % k;
                (i * (k - 1) + if j < i { j } else { j - 1 }) as u32
            };
            schedule.push(ticks, (0..k).map(demand).collect());
        }
        schedule
    }
}

/// The shift t of demand `idx` of an all-to-all on k ranks (demands sorted
/// by (src, dst), every ordered pair once).
fn shift_of(k: usize, idx: usize) -> usize {
    let (i, jj) = (idx / (k - 1), idx % (k - 1));
    let j = if jj >= i { jj + 1 } else { jj };
    (j + k - i) % k
}

/// The slots with `degree > 0` (ascending) when there are at least
/// [`MIN_ACTIVE_SLOTS`] of them and `pairs` is every pair of them
/// (`per_pair` pairs per two slots: 1 undirected, 2 ordered).
fn active_slots(degree: &[u64], pairs: usize, per_pair: usize) -> Option<Vec<u32>> {
    let active: Vec<u32> = (0..degree.len() as u32)
        .filter(|&v| degree[v as usize] > 0)
        .collect();
    let k = active.len();
    (k >= MIN_ACTIVE_SLOTS && pairs == per_pair * k * (k - 1) / 2).then_some(active)
}

/// The pairs of ranks `(i, j)`, `i < j < k`, in the order of the sorted
/// edges of an all-to-all support.
fn pair_ranks(k: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..k).flat_map(move |i| (i + 1..k).map(move |j| (i, j)))
}

/// Index of the edge of ranks `i < j` among the sorted edges of K_k.
fn edge_index(k: usize, i: usize, j: usize) -> usize {
    i * k - i * (i + 1) / 2 + (j - i - 1)
}

/// The circle method on k ranks (a dummy rank k for odd k).
struct Circle {
    /// Ranks on the circle: k - 1 for even k, k for odd k (always odd).
    m: usize,
    k: usize,
}

impl Circle {
    fn new(k: usize) -> Circle {
        Circle {
            m: if k % 2 == 0 { k - 1 } else { k },
            k,
        }
    }

    fn matchings(&self) -> usize {
        self.m
    }

    /// The matching that holds the pair of ranks `i < j`: r with
    /// `i + j = 2r` modulo m (2 is invertible modulo the odd m, with
    /// inverse (m+1)/2), or r = i when j is the fixed rank m.
    fn matching_of(&self, i: usize, j: usize) -> usize {
        if j == self.m {
            i
        } else {
            (i + j) * self.m.div_ceil(2) % self.m
        }
    }

    /// The real pairs of matching r (a pair with the dummy is left out).
    fn pairs(&self, r: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let m = self.m;
        let fixed = (self.m < self.k).then_some((r, m));
        fixed
            .into_iter()
            .chain((1..=(m - 1) / 2).map(move |t| ((r + t) % m, (r + m - t) % m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of ranks is in exactly one matching, the one
    /// `matching_of` names, and each matching is a matching; every shift
    /// sends once from each rank, to the rank t further.
    #[test]
    fn the_circle_is_a_one_factorisation() {
        for k in 4..40 {
            let c = Circle::new(k);
            let mut seen = vec![vec![false; k]; k];
            for r in 0..c.matchings() {
                let mut used = vec![false; k];
                for (i, j) in c.pairs(r) {
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
            for t in 1..k {
                let mut row = vec![false; k];
                for idx in 0..k * (k - 1) {
                    if shift_of(k, idx) == t {
                        let (i, jj) = (idx / (k - 1), idx % (k - 1));
                        assert!(!row[i], "k {k} shift {t}: sender {i} twice");
                        row[i] = true;
                        let j = if jj >= i { jj + 1 } else { jj };
                        assert_eq!((i + t) % k, j);
                    }
                }
                assert!(row.iter().all(|&r| r), "k {k} shift {t}");
            }
            for (i, j) in pair_ranks(k) {
                assert!(seen[i][j], "k {k}: pair ({i}, {j}) missing");
                assert_eq!(
                    pair_ranks(k).position(|p| p == (i, j)),
                    Some(edge_index(k, i, j))
                );
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

    /// Supports that are not all-to-all (a missing pair) are not peeled.
    #[test]
    fn only_all_to_all_supports_are_peeled() {
        for model in [Model::Strict1, Model::Read1Write1] {
            let inst = moe(8, model);
            let mut demands = inst.demands().to_vec();
            demands.remove(3);
            let cut = Instance::new(model, 8, 1024, demands, &crate::instance::Limits::default())
                .expect("valid");
            let g = DemandGraph::new(&cut);
            match model {
                Model::Strict1 => {
                    // One direction of the pair is left: still a pair.
                    assert!(PeelPlan::new(&cut, &g).is_some());
                    let mut both = cut.demands().to_vec();
                    let (a, b) = (both[2].src, both[2].dst);
                    both.retain(|d| (d.src, d.dst) != (a, b) && (d.src, d.dst) != (b, a));
                    let cut2 =
                        Instance::new(model, 8, 1024, both, &Default::default()).expect("valid");
                    assert!(PeelPlan::new(&cut2, &DemandGraph::new(&cut2)).is_none());
                }
                Model::Read1Write1 => assert!(ShiftPlan::new(&cut).is_none()),
            }
        }
    }
}
