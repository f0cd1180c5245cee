//! Exact READ1_WRITE1 scheduling: König's theorem, made compact.
//!
//! Two methods, both exactly Delta ticks: at small multiplicities (few
//! chunks per pair) the Euler-split colouring of
//! [`crate::colour::bipartite_split`] (Gabow; Cole–Ost–Schirra; Alon), chosen
//! by [`prefers_euler_split`]; otherwise the peeling below, whose time does
//! not grow with the multiplicity. Before the Euler split, a (near)
//! all-to-all support has its complete cyclic shifts peeled (module
//! `factor_peel`), which leaves the split a smaller Delta.
//!
//! The bipartite multigraph senders x receivers (edge = demand, multiplicity
//! = chunks) is regularised to degree Delta with dummy pairs between
//! deficient senders and receivers (at most `2 * slots` of them, as
//! multiplicities), then peeled: find a perfect matching, repeat it `r`
//! times where `r` is the smallest multiplicity on it, subtract, repair the
//! matching where edges ran out (augmenting paths) and go on. Every peel
//! exhausts at least one pair, so there are at most `pairs + 2 * slots`
//! rounds whatever the multiplicities: time does not grow with the
//! multiplicity. The result has exactly Delta ticks: optimal, with the
//! max-degree slot as witness.
//!
//! Complexity: O(R * A) where R <= pairs + 2n is the number of rounds and A
//! the cost of the augmentations that repair the matching (an alternating
//! BFS, usually short), plus O(R * n) to emit the rounds.

use super::{Solution, SolveOptions, Solver};
use crate::bounds::Bounds;
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The exact READ1_WRITE1 solver (errors-free: always Delta ticks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Koenig;

impl Solver for Koenig {
    fn name(&self) -> &'static str {
        "koenig"
    }

    /// Euler splits ([`crate::colour::bipartite_split`]) where the chunks
    /// are few per pair ([`prefers_euler_split`]), else the peeling below;
    /// both give Delta ticks. The solution names the method used.
    fn solve(&self, inst: &Instance, bounds: &Bounds, _opts: &SolveOptions) -> Solution {
        let t0 = Instant::now();
        let (schedule, name) = delta_schedule(inst);
        Solution::from_schedule(schedule, bounds, name, t0.elapsed().as_secs_f64())
    }
}

/// The Delta-tick schedule of a READ1_WRITE1 instance by the faster of the
/// two methods (module docs), and the method's name (`euler_split` or
/// `koenig`).
pub fn delta_schedule(inst: &Instance) -> (Schedule, &'static str) {
    let edges = bipartite_edges(inst);
    match split_preferred(inst, &edges)
        .then(|| peeled_split_schedule(inst, edges))
        .flatten()
    {
        Some(s) => (s, "euler_split"),
        None => (koenig_schedule(inst), "koenig"),
    }
}

/// Chunks of the regularised multigraph per pair (demands plus slots) up
/// to which [`prefers_euler_split`] picks the Euler splits. The split costs
/// about `N * Delta * log Delta` (every chunk split down on its own), the
/// peeling about one matching repair per pair whatever the multiplicities;
/// measured on MoE all-to-all at 1024 slots (doc/performance.md), the
/// split is the faster below this ratio.
pub const SPLIT_CHUNKS_PER_PAIR: u64 = 8;

/// Whether the Euler-split colouring is expected to beat the peeling on
/// `inst`: its regularised chunk count (slots with chunks x Delta) is at
/// most [`SPLIT_CHUNKS_PER_PAIR`] per pair.
pub fn prefers_euler_split(inst: &Instance) -> bool {
    split_preferred(inst, &bipartite_edges(inst))
}

/// [`prefers_euler_split`] given the instance's [`bipartite_edges`].
fn split_preferred(inst: &Instance, edges: &[(u32, u32, u64)]) -> bool {
    let pairs = inst.demands().len() as u64 + inst.slots as u64;
    crate::colour::bipartite_split::split_cost(edges)
        .is_some_and(|c| c <= pairs.saturating_mul(SPLIT_CHUNKS_PER_PAIR))
}

/// The demands as bipartite edges `(src, dst, chunks)`, edge id = demand index.
fn bipartite_edges(inst: &Instance) -> Vec<(u32, u32, u64)> {
    inst.demands()
        .iter()
        .zip(inst.chunk_counts())
        .map(|(d, &m)| (d.src, d.dst, m))
        .collect()
}

/// The Delta-tick schedule of a READ1_WRITE1 instance by Euler splits
/// ([`crate::colour::bipartite_split`]); `None` when the multiplicities are
/// too large for it (then [`koenig_schedule`] applies).
pub fn euler_split_schedule(inst: &Instance) -> Option<Schedule> {
    split_schedule(&bipartite_edges(inst))
}

/// [`split_schedule`] after peeling the complete shifts of a (near)
/// all-to-all support (module `factor_peel`: they lower every degree alike,
/// so the rest's Delta - P colours complete Delta), or of all of `edges`
/// otherwise.
fn peeled_split_schedule(inst: &Instance, mut edges: Vec<(u32, u32, u64)>) -> Option<Schedule> {
    let Some(plan) = super::factor_peel::ShiftPlan::new(inst) else {
        return split_schedule(&edges);
    };
    for (e, left) in edges.iter_mut().zip(plan.rest(inst)) {
        e.2 = left;
    }
    let mut schedule = plan.rounds();
    schedule.extend(split_schedule(&edges)?);
    Some(schedule)
}

/// [`euler_split_schedule`] given the instance's [`bipartite_edges`].
fn split_schedule(edges: &[(u32, u32, u64)]) -> Option<Schedule> {
    let rounds = crate::colour::bipartite_split::euler_split_colouring(edges)?;
    let mut schedule = Schedule::new();
    for (repeat, demands) in rounds {
        schedule.push(repeat, demands);
    }
    Some(schedule)
}

const NONE: u32 = u32::MAX;

/// Largest Delta for which [`KeyQueue`] uses buckets (one per key: 24
/// bytes each, 24 MiB here); above it, a binary heap.
const BUCKET_MAX_DELTA: u64 = 1 << 20;

/// The peeler's priority queue of `(key, edge)`, smallest key first, with
/// lazy deletion (the caller skips stale entries). Keys only grow past the
/// ticks peeled, so up to [`BUCKET_MAX_DELTA`] a bucket per key with a
/// cursor (a lower bound of the smallest key) serves it in O(1) amortised (the heap's sifts were a third of the
/// peeling on a 1,024-slot MoE).
enum KeyQueue {
    Heap(BinaryHeap<Reverse<(u64, u32)>>),
    Buckets { buckets: Vec<Vec<u32>>, cur: usize },
}

impl KeyQueue {
    fn new(delta: u64) -> Self {
        if delta <= BUCKET_MAX_DELTA {
            KeyQueue::Buckets {
                buckets: vec![Vec::new(); delta as usize + 1],
                cur: 0,
            }
        } else {
            KeyQueue::Heap(BinaryHeap::new())
        }
    }

    /// `key` is at most Delta and above every key already popped (keys
    /// between those popped and the cursor are fine).
    fn push(&mut self, key: u64, e: u32) {
        match self {
            KeyQueue::Heap(h) => h.push(Reverse((key, e))),
            KeyQueue::Buckets { buckets, cur } => {
                // A key below the cursor (pushed after a peek moved it on)
                // moves it back: the cursor is a lower bound, not the min.
                *cur = (*cur).min(key as usize);
                buckets[key as usize].push(e)
            }
        }
    }

    fn peek(&mut self) -> Option<(u64, u32)> {
        match self {
            KeyQueue::Heap(h) => h.peek().map(|r| r.0),
            KeyQueue::Buckets { buckets, cur } => {
                while *cur < buckets.len() && buckets[*cur].is_empty() {
                    *cur += 1;
                }
                let e = *buckets.get(*cur)?.last()?;
                Some((*cur as u64, e))
            }
        }
    }

    /// Removes the entry [`KeyQueue::peek`] returned.
    fn pop(&mut self) {
        match self {
            KeyQueue::Heap(h) => {
                h.pop();
            }
            KeyQueue::Buckets { buckets, cur } => {
                buckets[*cur].pop();
            }
        }
    }
}

/// Largest slot count for which the dense (left, right) -> edge index is
/// kept (n^2 entries of 4 bytes: 16 MiB at 2048).
const DENSE_INDEX_MAX_SLOTS: usize = 2048;

struct Edge {
    left: u32,
    right: u32,
    /// Multiplicity when not matched; when matched, see `Peeler::remaining`.
    mult: u64,
    /// Demand index, or NONE for a dummy pair.
    demand: u32,
    /// Position in `adj[left]`, for O(1) removal.
    pos: u32,
    /// Position in `radj[right]`.
    rpos: u32,
}

struct Peeler {
    edges: Vec<Edge>,
    /// Live edges at each left vertex as (edge, right end): the right end
    /// is stored inline so the BFS scans one contiguous array.
    adj: Vec<Vec<(u32, u32)>>,
    /// Live edges at each right vertex as (edge, left end).
    radj: Vec<Vec<(u32, u32)>>,
    /// Live edge of each (left, right) pair when `n <= DENSE_INDEX_MAX_SLOTS`
    /// (NONE if absent or exhausted; with two edges on one pair, one of
    /// them): lets [`Peeler::swap_repair`] test a pair in O(1).
    pair_edge: Vec<u32>,
    /// One bit per (left, right) pair: whether `pair_edge` holds an edge
    /// there. Tested before `pair_edge` is read (n^2 bits stay in cache
    /// where n^2 words do not: 512 KiB at 2048 slots).
    pair_live: Vec<u64>,
    n: usize,
    match_left: Vec<u32>,
    match_right: Vec<u32>,
    /// Demand of the edge matched at each left vertex (NONE: dummy or
    /// unmatched), kept beside `match_left` so emitting a round reads one
    /// contiguous array.
    match_demand: Vec<u32>,
    /// Right end of the edge matched at each left vertex (NONE: unmatched).
    mate: Vec<u32>,
    /// Ticks peeled so far; a matched edge's remaining multiplicity is
    /// `key - peeled` where `key = mult_when_matched + peeled_when_matched`.
    peeled: u64,
    keys: Vec<u64>,
    heap: KeyQueue,
    // BFS scratch.
    seen: Vec<u64>,
    stamp: u64,
    parent: Vec<u32>,
    queue: Vec<u32>,
}

/// Builds the Delta-tick schedule of a READ1_WRITE1 instance (the model
/// field of `inst` is not consulted: the demands are read as a bipartite
/// multigraph).
pub fn koenig_schedule(inst: &Instance) -> Schedule {
    let n = inst.slots as usize;
    let mut out = vec![0u64; n];
    let mut inn = vec![0u64; n];
    let mut edges = Vec::with_capacity(inst.demands().len() + 2 * n);
    for (i, d) in inst.demands().iter().enumerate() {
        out[d.src as usize] += inst.chunks(i);
        inn[d.dst as usize] += inst.chunks(i);
        edges.push(Edge {
            left: d.src,
            right: d.dst,
            mult: inst.chunks(i),
            demand: i as u32,
            pos: 0,
            rpos: 0,
        });
    }
    let delta = out.iter().chain(inn.iter()).copied().max().unwrap_or(0);
    let mut schedule = Schedule::new();
    if delta == 0 {
        return schedule;
    }
    // Regularise: pair deficient senders with deficient receivers.
    let mut def_l: Vec<(usize, u64)> = (0..n)
        .filter(|&v| out[v] < delta)
        .map(|v| (v, delta - out[v]))
        .collect();
    let mut def_r: Vec<(usize, u64)> = (0..n)
        .filter(|&v| inn[v] < delta)
        .map(|v| (v, delta - inn[v]))
        .collect();
    let (mut i, mut j) = (0, 0);
    while i < def_l.len() && j < def_r.len() {
        let m = def_l[i].1.min(def_r[j].1);
        edges.push(Edge {
            left: def_l[i].0 as u32,
            right: def_r[j].0 as u32,
            mult: m,
            demand: NONE,
            pos: 0,
            rpos: 0,
        });
        def_l[i].1 -= m;
        def_r[j].1 -= m;
        if def_l[i].1 == 0 {
            i += 1;
        }
        if def_r[j].1 == 0 {
            j += 1;
        }
    }
    let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    let mut radj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    let mut pair_edge = if n <= DENSE_INDEX_MAX_SLOTS {
        vec![NONE; n * n]
    } else {
        Vec::new()
    };
    for (e, edge) in edges.iter_mut().enumerate() {
        edge.pos = adj[edge.left as usize].len() as u32;
        adj[edge.left as usize].push((e as u32, edge.right));
        edge.rpos = radj[edge.right as usize].len() as u32;
        radj[edge.right as usize].push((e as u32, edge.left));
        if !pair_edge.is_empty() {
            pair_edge[edge.left as usize * n + edge.right as usize] = e as u32;
        }
    }
    let m = edges.len();
    let mut pair_live = vec![0u64; pair_edge.len().div_ceil(64)];
    for (i, &e) in pair_edge.iter().enumerate() {
        if e != NONE {
            pair_live[i / 64] |= 1 << (i % 64);
        }
    }
    let mut p = Peeler {
        edges,
        adj,
        radj,
        pair_edge,
        pair_live,
        n,
        match_left: vec![NONE; n],
        match_right: vec![NONE; n],
        match_demand: vec![NONE; n],
        mate: vec![NONE; n],
        peeled: 0,
        keys: vec![0; m],
        heap: KeyQueue::new(delta),
        seen: vec![0; n],
        stamp: 0,
        parent: vec![NONE; n],
        queue: Vec::new(),
    };
    for u in 0..n {
        p.augment(u as u32);
    }
    let mut round = Vec::with_capacity(n);
    while p.peeled < delta {
        // Smallest remaining multiplicity on the matching (lazy heap).
        let r = loop {
            let (key, e) = p
                .heap
                .peek()
                .expect("perfect matching is never empty while ticks remain");
            if p.is_matched(e) && p.keys[e as usize] == key {
                break key - p.peeled;
            }
            p.heap.pop();
        };
        round.clear();
        round.extend(p.match_demand.iter().copied().filter(|&d| d != NONE));
        schedule.push(r, round.clone());
        p.peeled += r;
        // Remove the pairs that ran out, then repair the matching.
        let mut freed = Vec::new();
        while let Some((key, e)) = p.heap.peek() {
            if key > p.peeled {
                break;
            }
            p.heap.pop();
            if p.is_matched(e) && p.keys[e as usize] == key {
                let (l, rt) = (p.edges[e as usize].left, p.edges[e as usize].right);
                p.match_left[l as usize] = NONE;
                p.match_right[rt as usize] = NONE;
                p.match_demand[l as usize] = NONE;
                p.mate[l as usize] = NONE;
                p.edges[e as usize].mult = 0;
                p.remove_from_adj(e);
                freed.push((l, rt));
            }
        }
        if p.peeled < delta {
            // Repairs only ever match right vertices, so the first freed
            // right vertex still free only moves forward: O(freed) in all.
            let mut free_right = 0;
            for k in 0..freed.len() {
                let l = freed[k].0;
                while free_right < freed.len()
                    && p.match_right[freed[free_right].1 as usize] != NONE
                {
                    free_right += 1;
                }
                let v = freed.get(free_right).map(|f| f.1);
                if !v.is_some_and(|v| p.swap_repair(l, v)) {
                    p.augment(l);
                }
            }
        }
    }
    schedule
}

impl Peeler {
    fn is_matched(&self, e: u32) -> bool {
        self.match_left[self.edges[e as usize].left as usize] == e
    }

    fn remove_from_adj(&mut self, e: u32) {
        let (l, pos) = (
            self.edges[e as usize].left as usize,
            self.edges[e as usize].pos as usize,
        );
        let (last, _) = *self.adj[l].last().expect("edge is in its adjacency list");
        self.adj[l].swap_remove(pos);
        if last != e {
            self.edges[last as usize].pos = pos as u32;
        }
        let (r, rpos) = (
            self.edges[e as usize].right as usize,
            self.edges[e as usize].rpos as usize,
        );
        if !self.pair_edge.is_empty() && self.pair_edge[l * self.n + r] == e {
            self.pair_edge[l * self.n + r] = NONE;
            let i = l * self.n + r;
            self.pair_live[i / 64] &= !(1 << (i % 64));
        }
        let (rlast, _) = *self.radj[r].last().expect("edge is in its adjacency list");
        self.radj[r].swap_remove(rpos);
        if rlast != e {
            self.edges[rlast as usize].rpos = rpos as u32;
        }
    }

    fn set_matched(&mut self, e: u32) {
        let edge = &self.edges[e as usize];
        let key = edge.mult + self.peeled;
        self.match_left[edge.left as usize] = e;
        self.match_right[edge.right as usize] = e;
        self.match_demand[edge.left as usize] = edge.demand;
        self.mate[edge.left as usize] = edge.right;
        self.keys[e as usize] = key;
        self.heap.push(key, e);
    }

    fn unset_matched(&mut self, e: u32) {
        // Materialise the multiplicity left after the ticks peeled meanwhile.
        self.edges[e as usize].mult = self.keys[e as usize] - self.peeled;
    }

    /// Fast path for the common repair: free left `u` and a free right `v`
    /// (the ends of the pair that ran out). Looks for a left `x` with a live
    /// pair `x -> v` whose matched right `y` has a live pair `u -> y`, and
    /// swaps (path of length 3). O(deg(v)) with the dense pair index;
    /// returns false (and changes nothing) when there is none.
    fn swap_repair(&mut self, u: u32, v: u32) -> bool {
        if self.pair_edge.is_empty() {
            return false;
        }
        let v = v as usize;
        // `pair_edge` holds live edges only (cleared on removal), and `u` is
        // free, so a non-NONE entry at `u` is a live unmatched edge.
        let direct = self.pair_edge[u as usize * self.n + v];
        if direct != NONE {
            self.set_matched(direct);
            return true;
        }
        for k in 0..self.radj[v].len() {
            let (e_xv, x) = self.radj[v][k];
            let y = self.mate[x as usize];
            if y == NONE {
                continue;
            }
            let i = u as usize * self.n + y as usize;
            if self.pair_live[i / 64] & (1 << (i % 64)) == 0 {
                continue;
            }
            let e_uy = self.pair_edge[i];
            if e_uy != NONE {
                self.unset_matched(self.match_left[x as usize]);
                self.set_matched(e_xv);
                self.set_matched(e_uy);
                return true;
            }
        }
        false
    }

    /// Alternating BFS from free left vertex `u` to a free right vertex,
    /// then flips the path. A regular bipartite multigraph always has one.
    fn augment(&mut self, u: u32) {
        self.stamp += 1;
        self.queue.clear();
        self.queue.push(u);
        let mut head = 0;
        while head < self.queue.len() {
            let x = self.queue[head] as usize;
            head += 1;
            for k in 0..self.adj[x].len() {
                let (e, y) = self.adj[x][k];
                let y = y as usize;
                if self.seen[y] == self.stamp {
                    continue;
                }
                self.seen[y] = self.stamp;
                self.parent[y] = e;
                let me = self.match_right[y];
                if me == NONE {
                    self.flip_path(y as u32);
                    return;
                }
                self.queue.push(self.edges[me as usize].left);
            }
        }
        // Unreachable for regular graphs; leaving u unmatched would make the
        // schedule fail validation, which the caller always runs.
    }

    fn flip_path(&mut self, mut y: u32) {
        loop {
            let e = self.parent[y as usize];
            let x = self.edges[e as usize].left;
            let prev = self.match_left[x as usize];
            self.set_matched(e);
            if prev == NONE {
                return;
            }
            self.unset_matched(prev);
            y = self.edges[prev as usize].right;
            // `prev`'s right end is now matched by the next edge up the path.
        }
    }
}

/// Convenience: is the model one König applies to?
pub fn applies_to(model: Model) -> bool {
    model == Model::Read1Write1
}

#[cfg(test)]
mod key_queue_tests {
    use super::KeyQueue;

    /// Pops everything, smallest key first, as `(key, edge)`.
    fn drain(q: &mut KeyQueue) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        while let Some(x) = q.peek() {
            q.pop();
            out.push(x);
        }
        out
    }

    #[test]
    fn buckets_and_heap_agree_when_a_key_lands_behind_the_cursor() {
        for mut q in [KeyQueue::new(10), KeyQueue::Heap(Default::default())] {
            q.push(7, 1);
            q.push(9, 2);
            // A peek moves the bucket cursor to 7; a later, smaller key
            // must still come out first.
            assert_eq!(q.peek(), Some((7, 1)));
            q.push(3, 3);
            assert_eq!(drain(&mut q), vec![(3, 3), (7, 1), (9, 2)]);
        }
    }
}
