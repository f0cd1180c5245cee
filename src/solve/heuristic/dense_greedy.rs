//! STRICT1 on dense traffic (an all-to-all matrix of one port per slot):
//! the tightest-first greedy on a dense matrix, in rounds with repeats.
//!
//! A schedule of Delta ticks must, in every tick, give a transfer to each
//! *tight* slot (remaining chunks = remaining ticks). Each round the slots
//! are taken in decreasing remaining degree and each free one is paired
//! with the free neighbour of largest remaining degree (ties: lower slot).
//! On dense traffic a free neighbour is almost always a few steps down the
//! order, so a round costs O(slots) instead of the O(pairs) of the
//! general greedy ([`super::greedy`]); the order is kept by insertion
//! sort (degrees fall by at most the repeat between rounds).
//!
//! A round is repeated while it stays safe: no pair runs out and no unpaired
//! slot becomes tight (its slack, remaining ticks to Delta minus its degree,
//! bounds the repeat). Schedules are valid by construction and validated by
//! the caller; they reach Delta on skewed MoE matrices (where the hot slots
//! are tight and the others have slack) but it is a heuristic: the caller
//! proves optimality only when the ticks equal Delta.
//!
//! Time O(rounds x slots x scan) with memory O(slots^2): for matrices up to
//! [`MAX_DENSE_SLOTS`] slots.

use crate::instance::{Instance, Model};
use crate::schedule::Schedule;

/// Largest slot count of the dense path (an n x n table of 16 bytes: 64
/// MiB at 2048).
pub const MAX_DENSE_SLOTS: u32 = 2048;

const NONE: u32 = u32::MAX;

/// Whether `inst` is dense enough for [`dense_strict1_schedule`]: STRICT1,
/// one port and one bandwidth, at most [`MAX_DENSE_SLOTS`] slots, and at
/// least half of all ordered pairs present.
pub fn applies(inst: &Instance) -> bool {
    let n = inst.slots as u64;
    inst.model == Model::Strict1
        && !inst.is_multiport()
        && inst.slots <= MAX_DENSE_SLOTS
        && n >= 2
        && inst.demands().len() as u64 * 2 >= n * (n - 1)
        && inst.chunk_counts().iter().all(|&m| m <= u32::MAX as u64)
}

/// Chunks left and demand index of both directions of a pair (`lo -> hi`
/// first, for `lo < hi`); index [`NONE`] when there is no such demand.
#[derive(Clone, Copy, Default)]
struct Pair {
    left: [u32; 2],
    index: [u32; 2],
}

/// The dense matrix state of the greedy. Slots are also numbered by
/// *rank* (decreasing initial degree, ties by slot): the neighbour sets are
/// bitsets over ranks, so "the free neighbour of highest rank" is a
/// first-set-bit search over `slots / 64` words.
struct Dense {
    n: usize,
    /// The pair `{u, v}`, `u < v`, at `u * n + v` (the lower triangle is
    /// unused): both directions in one cache line.
    pairs: Vec<Pair>,
    /// Remaining chunks per slot, sent and received.
    degree: Vec<u64>,
    /// Slot of each rank and rank of each slot.
    slot_of: Vec<u32>,
    rank_of: Vec<u32>,
    /// Words per bitset row.
    words: usize,
    /// Row `rank(u)`: bit `rank(v)` set while `{u, v}` has chunks left.
    neighbours: Vec<u64>,
}

impl Dense {
    fn new(inst: &Instance) -> Dense {
        let n = inst.slots as usize;
        let mut pairs = vec![
            Pair {
                left: [0, 0],
                index: [NONE, NONE]
            };
            n * n
        ];
        let mut degree = vec![0u64; n];
        for (i, (d, &m)) in inst.demands().iter().zip(inst.chunk_counts()).enumerate() {
            let (lo, hi) = (d.src.min(d.dst) as usize, d.src.max(d.dst) as usize);
            let dir = usize::from(d.src > d.dst);
            let pair = &mut pairs[lo * n + hi];
            pair.left[dir] = m as u32;
            pair.index[dir] = i as u32;
            degree[d.src as usize] += m;
            degree[d.dst as usize] += m;
        }
        let mut slot_of: Vec<u32> = (0..n as u32).collect();
        slot_of.sort_unstable_by_key(|&v| (std::cmp::Reverse(degree[v as usize]), v));
        let mut rank_of = vec![0u32; n];
        for (r, &v) in slot_of.iter().enumerate() {
            rank_of[v as usize] = r as u32;
        }
        let words = n.div_ceil(64);
        let mut neighbours = vec![0u64; n * words];
        for d in inst.demands() {
            let (a, b) = (
                rank_of[d.src as usize] as usize,
                rank_of[d.dst as usize] as usize,
            );
            neighbours[a * words + b / 64] |= 1 << (b % 64);
            neighbours[b * words + a / 64] |= 1 << (a % 64);
        }
        Dense {
            n,
            pairs,
            degree,
            slot_of,
            rank_of,
            words,
            neighbours,
        }
    }

    /// The pair `{u, v}` and the direction to send next (the one with more
    /// chunks left, the lower slot's on a tie): (cell, direction, chunks).
    fn direction(&self, u: usize, v: usize) -> (usize, usize, u64) {
        let at = u.min(v) * self.n + u.max(v);
        let p = &self.pairs[at];
        let dir = usize::from(p.left[1] > p.left[0]);
        (at, dir, p.left[dir] as u64)
    }

    /// The free neighbour of `u` of highest rank, if any.
    fn partner(&self, u: usize, free: &[u64]) -> Option<usize> {
        let row = &self.neighbours[self.rank_of[u] as usize * self.words..][..self.words];
        row.iter().zip(free).position(|(a, b)| a & b != 0).map(|w| {
            let bits = row[w] & free[w];
            self.slot_of[w * 64 + bits.trailing_zeros() as usize] as usize
        })
    }

    /// Sends pair cell `at` in direction `dir` for `repeat` ticks; returns
    /// the demand sent.
    fn send(&mut self, u: usize, v: usize, (at, dir): (usize, usize), repeat: u64) -> u32 {
        let p = &mut self.pairs[at];
        p.left[dir] -= repeat as u32;
        let (index, done) = (p.index[dir], p.left == [0, 0]);
        self.degree[u] -= repeat;
        self.degree[v] -= repeat;
        if done {
            let (a, b) = (self.rank_of[u] as usize, self.rank_of[v] as usize);
            self.neighbours[a * self.words + b / 64] &= !(1 << (b % 64));
            self.neighbours[b * self.words + a / 64] &= !(1 << (a % 64));
        }
        index
    }
}

/// Restores decreasing degree order (ties: lower slot first) after degrees
/// fell; nearly sorted input, so insertion sort.
fn reorder(order: &mut [u32], degree: &[u64]) {
    let key = |v: u32| (std::cmp::Reverse(degree[v as usize]), v);
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && key(order[j - 1]) > key(order[j]) {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The tightest-first greedy schedule of a dense STRICT1 instance (module
/// docs); `delta` is its maximum degree, the target the repeats keep safe.
pub fn dense_strict1_schedule(inst: &Instance, delta: u64) -> Schedule {
    let mut g = Dense::new(inst);
    let n = g.n;
    let mut order: Vec<u32> = (0..n as u32).collect();
    reorder(&mut order, &g.degree);
    let mut free = vec![0u64; g.words];
    let mut schedule = Schedule::new();
    let (mut ticks, mut round) = (0u64, 0u64);
    let mut paired = vec![0u64; n];
    let mut pairs: Vec<(usize, usize, (usize, usize), u64)> = Vec::new();
    loop {
        let active = order.partition_point(|&v| g.degree[v as usize] > 0);
        if active == 0 {
            break;
        }
        round += 1;
        free.iter_mut().for_each(|w| *w = 0);
        for &v in &order[..active] {
            let r = g.rank_of[v as usize] as usize;
            free[r / 64] |= 1 << (r % 64);
        }
        pairs.clear();
        for &u in &order[..active] {
            let (u, r) = (u as usize, g.rank_of[u as usize] as usize);
            if free[r / 64] & (1 << (r % 64)) == 0 {
                continue;
            }
            free[r / 64] &= !(1 << (r % 64));
            if let Some(v) = g.partner(u, &free) {
                let rv = g.rank_of[v] as usize;
                free[rv / 64] &= !(1 << (rv % 64));
                let (at, dir, left) = g.direction(u, v);
                pairs.push((u, v, (at, dir), left));
            }
        }
        // Safe repeat: no pair runs out, no unpaired slot becomes tight.
        let mut repeat = pairs.iter().map(|p| p.3).min().unwrap_or(1);
        let to_delta = delta.saturating_sub(ticks);
        for &(u, v, _, _) in &pairs {
            paired[u] = round;
            paired[v] = round;
        }
        for &v in &order[..active] {
            if paired[v as usize] != round {
                let slack = to_delta.saturating_sub(g.degree[v as usize]);
                repeat = repeat.min(slack.max(1));
            }
        }
        let repeat = repeat.max(1);
        let mut demands = Vec::with_capacity(pairs.len());
        for &(u, v, cell, _) in &pairs {
            demands.push(g.send(u, v, cell, repeat));
        }
        schedule.push(repeat, demands);
        ticks += repeat;
        reorder(&mut order[..active], &g.degree);
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_instance;
    use crate::graph::DemandGraph;
    use crate::validate::validate_compact;

    #[test]
    fn dense_greedy_schedules_are_valid_and_near_delta() {
        for (n, k, seed) in [(8, 1, 0), (16, 4, 1), (64, 1, 2), (64, 4, 3), (65, 2, 4)] {
            let inst = test_instance(Model::Strict1, n, k, seed);
            assert!(applies(&inst));
            let delta = DemandGraph::new(&inst).max_degree().0;
            let s = dense_strict1_schedule(&inst, delta);
            assert!(validate_compact(&inst, &s).passed(), "n={n} k={k}");
            assert!(s.ticks() >= delta);
            assert!(
                s.ticks() * 100 <= delta * 101,
                "n={n} k={k}: {} vs {delta}",
                s.ticks()
            );
        }
    }
}
