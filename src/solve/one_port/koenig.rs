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

use crate::bounds::Bounds;
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use crate::solve::{Solution, SolveOptions, Solver};
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
    let Some(plan) = crate::solve::heuristic::factor_peel::ShiftPlan::new(inst) else {
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

/// The peeler's priority queue of `(key, edge, left end)`, smallest key
/// first, with lazy deletion (the caller skips stale entries: the left end
/// lets it tell from per-vertex state alone, without the edge record). Keys only grow past the
/// ticks peeled, so up to [`BUCKET_MAX_DELTA`] a bucket per key with a
/// cursor (a lower bound of the smallest key) serves it in O(1) amortised
/// (the heap's sifts were a third of the peeling on a 1,024-slot MoE).
enum KeyQueue {
    Heap(BinaryHeap<Reverse<(u64, u32, u32)>>),
    Buckets {
        buckets: Vec<Vec<(u32, u32)>>,
        cur: usize,
    },
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
    fn push(&mut self, key: u64, e: u32, left: u32) {
        match self {
            KeyQueue::Heap(h) => h.push(Reverse((key, e, left))),
            KeyQueue::Buckets { buckets, cur } => {
                // A key below the cursor (pushed after a peek moved it on)
                // moves it back: the cursor is a lower bound, not the min.
                *cur = (*cur).min(key as usize);
                buckets[key as usize].push((e, left))
            }
        }
    }

    fn peek(&mut self) -> Option<(u64, u32, u32)> {
        match self {
            KeyQueue::Heap(h) => h.peek().map(|r| r.0),
            KeyQueue::Buckets { buckets, cur } => {
                while *cur < buckets.len() && buckets[*cur].is_empty() {
                    *cur += 1;
                }
                let (e, left) = *buckets.get(*cur)?.last()?;
                Some((*cur as u64, e, left))
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
    /// Multiplicity when not matched; when matched, see `Peeler::peeled`.
    mult: u64,
    /// Demand index, or NONE for a dummy pair.
    demand: u32,
}

struct Peeler {
    edges: Vec<Edge>,
    /// Edges at each left vertex as (edge, right end): the right end is
    /// stored inline so the BFS scans one contiguous array. Exhausted
    /// edges stay until a scan meets them (`alive` tells), then go: a
    /// removal touches no list, the lists need no back-pointers.
    adj: Vec<Vec<(u32, u32)>>,
    /// Edges at each right vertex as (edge, left end), the same way.
    radj: Vec<Vec<(u32, u32)>>,
    /// One bit per edge: not exhausted yet.
    alive: Vec<u64>,
    /// An edge of each (left, right) pair when `n <= DENSE_INDEX_MAX_SLOTS`
    /// (with two edges on one pair, one of them), read only where
    /// `pair_live` says: lets [`Peeler::swap_repair`] test a pair in O(1).
    pair_edge: Vec<u32>,
    /// One bit per (left, right) pair: whether `pair_edge` holds a live
    /// edge there; cleared when an edge of the pair runs out (with two
    /// edges on it, the other is then reached through the lists only).
    /// Tested before `pair_edge` is read (n^2 bits stay in cache where n^2
    /// words do not: 512 KiB at 2048 slots).
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
    /// Left end of the edge matched at each right vertex (when matched).
    rmate: Vec<u32>,
    /// Ticks peeled so far; a matched edge's remaining multiplicity is
    /// `key - peeled` where `key = mult_when_matched + peeled_when_matched`.
    peeled: u64,
    /// Key of the edge matched at each left vertex.
    match_key: Vec<u64>,
    heap: KeyQueue,
    // BFS scratch.
    seen: Vec<u64>,
    stamp: u64,
    parent: Vec<u32>,
    queue: Vec<u32>,
}

/// `mult` chunks from sender `left` to receiver `right` of the bipartite
/// multigraph the peeler colours, for demand `demand` (NONE: a dummy pair
/// of the regularisation).
#[derive(Clone, Copy, Debug)]
struct ChunkArc {
    left: u32,
    right: u32,
    mult: u64,
    demand: u32,
}

/// Chunk degrees of `arcs` on `n` senders then `n` receivers (receiver `r`
/// at index `n + r`).
fn degrees(n: usize, arcs: &[ChunkArc]) -> Vec<u64> {
    let mut deg = vec![0u64; 2 * n];
    for a in arcs {
        deg[a.left as usize] += a.mult;
        deg[n + a.right as usize] += a.mult;
    }
    deg
}

/// Builds the Delta-tick schedule of a READ1_WRITE1 instance (the model
/// field of `inst` is not consulted: the demands are read as a bipartite
/// multigraph).
pub fn koenig_schedule(inst: &Instance) -> Schedule {
    let n = inst.slots as usize;
    let arcs: Vec<ChunkArc> = inst
        .demands()
        .iter()
        .enumerate()
        .map(|(i, d)| ChunkArc {
            left: d.src,
            right: d.dst,
            mult: inst.chunks(i),
            demand: i as u32,
        })
        .collect();
    peel(n, arcs)
}

/// The peeling of module docs on `arcs` over `n` senders and receivers:
/// `Delta` ticks.
fn peel(n: usize, mut arcs: Vec<ChunkArc>) -> Schedule {
    let deg = degrees(n, &arcs);
    let delta = deg.iter().copied().max().unwrap_or(0);
    if delta == 0 {
        return Schedule::new();
    }
    regularise(n, &deg, delta, &mut arcs);
    let mut p = Peeler::new(n, &arcs, delta);
    drop(arcs);
    for u in 0..n {
        p.augment(u as u32);
    }
    p.run(delta)
}

/// Pairs deficient senders with deficient receivers (dummy arcs, demand
/// NONE) until every degree is `delta`: at most `2 n` arcs. `deg` as
/// [`degrees`] gives it.
fn regularise(n: usize, deg: &[u64], delta: u64, arcs: &mut Vec<ChunkArc>) {
    let deficient = |side: &[u64]| -> Vec<(usize, u64)> {
        (0..n)
            .filter(|&v| side[v] < delta)
            .map(|v| (v, delta - side[v]))
            .collect()
    };
    let (mut def_l, mut def_r) = (deficient(&deg[..n]), deficient(&deg[n..]));
    let (mut i, mut j) = (0, 0);
    while i < def_l.len() && j < def_r.len() {
        let m = def_l[i].1.min(def_r[j].1);
        arcs.push(ChunkArc {
            left: def_l[i].0 as u32,
            right: def_r[j].0 as u32,
            mult: m,
            demand: NONE,
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
}

impl Peeler {
    /// The peeler's state for the regular `arcs` (degree `delta`), nothing
    /// matched yet.
    fn new(n: usize, arcs: &[ChunkArc], delta: u64) -> Peeler {
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut radj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut pair_edge = if n <= DENSE_INDEX_MAX_SLOTS {
            vec![NONE; n * n]
        } else {
            Vec::new()
        };
        let mut edges = Vec::with_capacity(arcs.len());
        for (e, a) in arcs.iter().enumerate() {
            edges.push(Edge {
                left: a.left,
                right: a.right,
                mult: a.mult,
                demand: a.demand,
            });
            adj[a.left as usize].push((e as u32, a.right));
            radj[a.right as usize].push((e as u32, a.left));
            if !pair_edge.is_empty() {
                pair_edge[a.left as usize * n + a.right as usize] = e as u32;
            }
        }
        let mut pair_live = vec![0u64; pair_edge.len().div_ceil(64)];
        for (i, &e) in pair_edge.iter().enumerate() {
            if e != NONE {
                pair_live[i / 64] |= 1 << (i % 64);
            }
        }
        Peeler {
            edges,
            adj,
            radj,
            alive: vec![u64::MAX; arcs.len().div_ceil(64)],
            pair_edge,
            pair_live,
            n,
            match_left: vec![NONE; n],
            match_right: vec![NONE; n],
            match_demand: vec![NONE; n],
            mate: vec![NONE; n],
            rmate: vec![NONE; n],
            peeled: 0,
            match_key: vec![0; n],
            heap: KeyQueue::new(delta),
            seen: vec![0; n],
            stamp: 0,
            parent: vec![NONE; n],
            queue: Vec::new(),
        }
    }

    /// Peels the perfect matching (every left vertex matched) until
    /// `delta` ticks are out: the schedule.
    fn run(&mut self, delta: u64) -> Schedule {
        let mut schedule = Schedule::new();
        let mut round = Vec::with_capacity(self.n);
        let mut freed = Vec::new();
        while self.peeled < delta {
            // Smallest remaining multiplicity on the matching (lazy heap).
            let r = loop {
                let (key, e, l) = self
                    .heap
                    .peek()
                    .expect("perfect matching is never empty while ticks remain");
                if self.is_current(key, e, l) {
                    break key - self.peeled;
                }
                self.heap.pop();
            };
            round.clear();
            round.extend(self.match_demand.iter().copied().filter(|&d| d != NONE));
            schedule.push(r, round.clone());
            self.peeled += r;
            self.remove_exhausted(&mut freed);
            if self.peeled < delta {
                self.repair(&freed);
            }
        }
        schedule
    }

    /// Removes the matched pairs that ran out at the ticks peeled so far;
    /// `freed` gets their ends `(left, right)`, now unmatched.
    fn remove_exhausted(&mut self, freed: &mut Vec<(u32, u32)>) {
        freed.clear();
        while let Some((key, e, l)) = self.heap.peek() {
            if key > self.peeled {
                break;
            }
            self.heap.pop();
            if self.is_current(key, e, l) {
                // Per-vertex state only: the edge record stays cold.
                let rt = self.mate[l as usize];
                self.match_left[l as usize] = NONE;
                self.match_right[rt as usize] = NONE;
                self.match_demand[l as usize] = NONE;
                self.mate[l as usize] = NONE;
                self.remove(e, l, rt);
                freed.push((l, rt));
            }
        }
    }

    /// Rematches the left ends of `freed`: a swap where one is at hand,
    /// else an augmenting path.
    fn repair(&mut self, freed: &[(u32, u32)]) {
        // Repairs only ever match right vertices, so the first freed right
        // vertex still free only moves forward: O(freed) in all.
        let mut free_right = 0;
        for &(l, _) in freed {
            while free_right < freed.len() && self.match_right[freed[free_right].1 as usize] != NONE
            {
                free_right += 1;
            }
            let v = freed.get(free_right).map(|f| f.1);
            if !v.is_some_and(|v| self.swap_repair(l, v)) {
                self.augment(l);
            }
        }
    }
    /// Whether queue entry `(key, e, l)` is the edge matched at left `l`
    /// with its key now (else a stale entry).
    fn is_current(&self, key: u64, e: u32, l: u32) -> bool {
        self.match_left[l as usize] == e && self.match_key[l as usize] == key
    }

    fn is_alive(&self, e: u32) -> bool {
        self.alive[e as usize / 64] & (1 << (e % 64)) != 0
    }

    /// Marks edge `e` on pair `(l, r)` exhausted; the lists drop it when a
    /// scan meets it.
    fn remove(&mut self, e: u32, l: u32, r: u32) {
        self.alive[e as usize / 64] &= !(1 << (e % 64));
        if !self.pair_edge.is_empty() {
            let i = l as usize * self.n + r as usize;
            self.pair_live[i / 64] &= !(1 << (i % 64));
        }
    }

    fn set_matched(&mut self, e: u32) {
        let edge = &self.edges[e as usize];
        let (l, r) = (edge.left as usize, edge.right as usize);
        let key = edge.mult + self.peeled;
        self.match_left[l] = e;
        self.match_right[r] = e;
        self.rmate[r] = l as u32;
        self.match_demand[l] = edge.demand;
        self.mate[l] = r as u32;
        self.match_key[l] = key;
        self.heap.push(key, e, l as u32);
    }

    /// Materialises the multiplicity left on the edge matched at left `l`
    /// after the ticks peeled meanwhile; before `l` is matched again.
    fn unset_matched(&mut self, l: u32) {
        let e = self.match_left[l as usize];
        self.edges[e as usize].mult = self.match_key[l as usize] - self.peeled;
    }

    /// Fast path for the common repair: free left `u` and a free right `v`
    /// (the ends of the pair that ran out). Looks for a left `x` with a live
    /// pair `x -> v` whose matched right `y` has a live pair `u -> y`, and
    /// swaps (path of length 3). O(deg(v)) with the dense pair index;
    /// returns false (and changes nothing but dropping exhausted edges
    /// from `radj[v]`) when there is none.
    fn swap_repair(&mut self, u: u32, v: u32) -> bool {
        if self.pair_edge.is_empty() {
            return false;
        }
        let (u, v) = (u as usize, v as usize);
        // A set `pair_live` bit means a live edge in `pair_edge`, and `u`
        // is free, so that edge is unmatched.
        if let Some(direct) = self.live_pair(u, v) {
            self.set_matched(direct);
            return true;
        }
        let mut k = 0;
        while k < self.radj[v].len() {
            let (e_xv, x) = self.radj[v][k];
            if !self.is_alive(e_xv) {
                self.radj[v].swap_remove(k);
                continue;
            }
            k += 1;
            let y = self.mate[x as usize];
            if y == NONE {
                continue;
            }
            if let Some(e_uy) = self.live_pair(u, y as usize) {
                self.unset_matched(x);
                self.set_matched(e_xv);
                self.set_matched(e_uy);
                return true;
            }
        }
        false
    }

    /// The live edge the dense index holds on pair `(l, r)`, if any.
    fn live_pair(&self, l: usize, r: usize) -> Option<u32> {
        let i = l * self.n + r;
        (self.pair_live[i / 64] & (1 << (i % 64)) != 0).then(|| self.pair_edge[i])
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
            let mut k = 0;
            while k < self.adj[x].len() {
                let (e, y) = self.adj[x][k];
                if !self.is_alive(e) {
                    self.adj[x].swap_remove(k);
                    continue;
                }
                k += 1;
                let y = y as usize;
                if self.seen[y] == self.stamp {
                    continue;
                }
                self.seen[y] = self.stamp;
                self.parent[y] = e;
                if self.match_right[y] == NONE {
                    self.flip_path(y as u32);
                    return;
                }
                self.queue.push(self.rmate[y]);
            }
        }
        // Unreachable for regular graphs; leaving u unmatched would make the
        // schedule fail validation, which the caller always runs.
    }

    fn flip_path(&mut self, mut y: u32) {
        loop {
            let e = self.parent[y as usize];
            let x = self.edges[e as usize].left;
            let prev_right = self.mate[x as usize];
            if prev_right != NONE {
                self.unset_matched(x);
            }
            self.set_matched(e);
            if prev_right == NONE {
                return;
            }
            // The right end `x` left is now matched by the next edge up
            // the path.
            y = prev_right;
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

    /// Pops everything, smallest key first, as `(key, edge, left)`.
    fn drain(q: &mut KeyQueue) -> Vec<(u64, u32, u32)> {
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
            q.push(7, 1, 10);
            q.push(9, 2, 20);
            // A peek moves the bucket cursor to 7; a later, smaller key
            // must still come out first.
            assert_eq!(q.peek(), Some((7, 1, 10)));
            q.push(3, 3, 30);
            assert_eq!(drain(&mut q), vec![(3, 3, 30), (7, 1, 10), (9, 2, 20)]);
        }
    }
}

#[cfg(test)]
mod peel_tests {
    use super::{degrees, peel, ChunkArc, DENSE_INDEX_MAX_SLOTS};
    use crate::gen::rng::SplitMix64;

    /// Peels `arcs` and checks the schedule: `Delta` ticks, every round a
    /// matching, every arc's chunks sent exactly.
    fn check_peel(n: usize, arcs: &[ChunkArc]) {
        let delta = degrees(n, arcs).into_iter().max().unwrap_or(0);
        let s = peel(n, arcs.to_vec());
        assert_eq!(s.ticks(), delta, "n {n}");
        let mut sent = vec![0u64; arcs.len()];
        for r in &s.rounds {
            let (mut ls, mut rs) = (vec![false; n], vec![false; n]);
            for &d in &r.demands {
                let a = arcs[d as usize];
                assert!(
                    !ls[a.left as usize] && !rs[a.right as usize],
                    "not a matching"
                );
                ls[a.left as usize] = true;
                rs[a.right as usize] = true;
                sent[d as usize] += r.repeat;
            }
        }
        let want: Vec<u64> = arcs.iter().map(|a| a.mult).collect();
        assert_eq!(sent, want, "n {n}");
    }

    /// `pairs` random arcs on `n` slots, several on some pairs, one hot
    /// receiver taking heavier ones.
    fn random_arcs(rng: &mut SplitMix64, n: usize, pairs: usize) -> Vec<ChunkArc> {
        let hot = rng.below(n as u64) as u32;
        (0..pairs)
            .map(|i| {
                let (left, right) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
                let heavy = if right == hot { 8 } else { 1 };
                ChunkArc {
                    left,
                    right,
                    mult: (1 + rng.below(9)) * heavy,
                    demand: i as u32,
                }
            })
            .collect()
    }

    #[test]
    fn random_multigraphs_peel_to_delta_with_the_dense_index_and_without() {
        let mut rng = SplitMix64::new(39, 0);
        for _ in 0..30 {
            let n = 2 + rng.below(40) as usize;
            let pairs = rng.below(4 * n as u64 * n as u64) as usize;
            check_peel(n, &random_arcs(&mut rng, n, pairs));
        }
        // Above the dense index's size: augmenting paths only.
        let n = DENSE_INDEX_MAX_SLOTS + 3;
        check_peel(n, &random_arcs(&mut rng, n, 6 * n));
    }
}
