//! Peeling a 1-factorisation off an all-to-all support (STRICT1, one port).
//!
//! When every two slots that have demands share chunks (an all-to-all:
//! MoE dispatch, uniform or skewed), the pairs of the k active slots split
//! into perfect matchings by the circle method (Walecki's 1-factorisation
//! of K_k: slot k-1 fixed, the others on a circle; matching r pairs r with
//! k-1 and `r+t` with `r-t` modulo k-1). For odd k a dummy slot takes the
//! fixed place and the slot matched to it sits idle in that matching.
//!
//! Running matching r for `c_r` ticks, with `c_r` its smallest multiplicity,
//! lowers every active slot's degree by the same P = sum of `c_r` (less the
//! idle ticks for odd k, which are capped by the idle slot's slack
//! `Delta - deg`), so the rest has maximum degree Delta - P exactly, and a
//! schedule of the rest in Delta - P ticks completes one of Delta ticks,
//! which is optimal by the degree bound. At MoE 1024 (multiplicities 2 to
//! 12 per pair) the matchings cover 3998 of 7143 ticks, which leaves the
//! load greedy ([`super::greedy`]) less than half of its rounds.
//!
//! A peel can spoil a rest that was colourable in Delta - P (it lowers an
//! odd set's edges by up to P (|S|-1)/2 chunks, so the rest may have an
//! overfull odd set); the greedy then also runs without it and keeps the
//! shorter schedule. O(pairs) for the plan and the rest, O(P k / 2) for the
//! rounds.

use crate::graph::{DemandGraph, UndirectedEdge};
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;

/// Smallest active slot count worth a peel (below it the greedy is instant).
const MIN_ACTIVE_SLOTS: usize = 4;

/// What to peel: the active slots, and the ticks of each matching.
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
        let n = inst.slots as usize;
        let degree: Vec<u64> = (0..n).map(|v| g.degree(v)).collect();
        let active: Vec<u32> = (0..n as u32).filter(|&v| degree[v as usize] > 0).collect();
        let k = active.len();
        if k < MIN_ACTIVE_SLOTS || g.undirected.len() != k * (k - 1) / 2 {
            return None;
        }
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
    /// `matching_of` names, and each matching is a matching.
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
            for (i, j) in pair_ranks(k) {
                assert!(seen[i][j], "k {k}: pair ({i}, {j}) missing");
                assert_eq!(
                    pair_ranks(k).position(|p| p == (i, j)),
                    Some(edge_index(k, i, j))
                );
            }
        }
    }
}
