//! Exact edge colouring of bipartite multigraphs by Euler splits: the
//! divide-and-conquer of Gabow (1976, "Using Euler partitions to edge color
//! bipartite multigraphs"), as presented by Cole, Ost and Schirra (2001,
//! "Edge-coloring bipartite multigraphs in O(E log D) time") and Alon (2003,
//! "A simple algorithm for edge-coloring bipartite multigraphs").
//!
//! König: a bipartite multigraph of maximum degree Delta has a proper
//! Delta-edge-colouring. This module builds one:
//!
//! 1. **Regularise.** Slots without edges on a side are dropped, the sides
//!    are padded to the same size `N`, and deficient left and right vertices
//!    are paired by dummy edges (multiplicities, at most `2N` of them) until
//!    every vertex has degree Delta.
//! 2. **Split** a `D`-regular multigraph with `D` even into two
//!    `D/2`-regular halves: an edge of multiplicity `m` gives `floor(m/2)`
//!    copies to each half; the single copies left over form a graph in which
//!    every degree is even, and walking its closed trails (Euler partition)
//!    while alternating halves gives every vertex as many edges in one half as
//!    in the other (bipartite closed trails have even length). When no single
//!    copy is left the halves are equal: one is coloured and each of its
//!    colours repeated twice, so uniform high multiplicities cost nothing.
//! 3. **Odd degree.** A `D`-regular bipartite multigraph with `D` odd has a
//!    perfect matching (Hall); it is found by Hopcroft–Karp on the support,
//!    emitted as one colour and removed, leaving `D - 1`.
//! 4. Degree 1: the graph is a perfect matching, one colour.
//!
//! Each colour is a perfect matching of the regular graph; dropping the dummy
//! edges leaves a matching of the input, so the colouring has exactly Delta
//! colours. Every split level touches each edge entry once, and an edge of
//! multiplicity `m` becomes at most `min(m, 2^k)` entries at level `k`, so
//! the time is O(N * Delta * log Delta) in the worst case (every chunk
//! split down separately) plus the matchings at odd levels (O(E' sqrt N)
//! each by Hopcroft–Karp for E' support pairs). That beats peeling weighted
//! perfect matchings one exhausted pair at a time (`solve::koenig`) when the
//! multiplicities are small; the caller picks by [`split_cost`].
//!
//! Exact (Delta colours) and deterministic: no randomness, ties broken by
//! vertex and edge order.

/// No edge / no vertex.
const NONE: u32 = u32::MAX;

/// Entries (both halves together) from which the two halves of a split
/// are coloured in parallel.
const PARALLEL_ENTRIES: usize = 1 << 16;

/// Default of [`Splitter::walk_budget_factor`].
const WALK_BUDGET_FACTOR: u64 = 8;

/// Halves of a single copy in an Euler split.
const UNUSED: u8 = 0;
const FIRST: u8 = 1;
const SECOND: u8 = 2;

/// One edge of a (sub)multigraph: left and right vertex (compacted ids),
/// multiplicity, and the caller's edge id (`NONE` for a dummy edge).
#[derive(Clone, Copy, Debug)]
struct Entry {
    l: u32,
    r: u32,
    mult: u32,
    id: u32,
}

/// Chunks the regularised multigraph has (`N * Delta`, see the module
/// docs) for `edges` given as `(left, right, multiplicity)`: the work of
/// [`euler_split_colouring`] is about this times log Delta. `None` when it
/// does not fit in u64 or an edge id would not fit in u32.
pub fn split_cost(edges: &[(u32, u32, u64)]) -> Option<u64> {
    let (n, delta) = regular_size(edges)?;
    (n as u64).checked_mul(delta)
}

/// Weighted degrees of the left and the right ends, indexed by vertex id
/// (both sides as long as the largest id); `None` if one overflows u64.
fn side_degrees(edges: &[(u32, u32, u64)]) -> Option<(Vec<u64>, Vec<u64>)> {
    let slots = edges
        .iter()
        .map(|&(l, r, _)| l.max(r) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![0u64; slots];
    let mut inn = vec![0u64; slots];
    for &(l, r, m) in edges {
        out[l as usize] = out[l as usize].checked_add(m)?;
        inn[r as usize] = inn[r as usize].checked_add(m)?;
    }
    Some((out, inn))
}

/// `(N, Delta)`: vertices per side after dropping isolated slots and
/// padding, and the maximum degree. `None` if a degree overflows u64 or
/// there are too many edges for u32 ids.
fn regular_size(edges: &[(u32, u32, u64)]) -> Option<(usize, u64)> {
    if edges.len() >= NONE as usize / 2 {
        return None;
    }
    let (out, inn) = side_degrees(edges)?;
    let delta = out.iter().chain(&inn).copied().max().unwrap_or(0);
    let left = out.iter().filter(|&&d| d > 0).count();
    let right = inn.iter().filter(|&&d| d > 0).count();
    Some((left.max(right), delta))
}

/// A proper Delta-edge-colouring of the bipartite multigraph `edges`
/// (`(left, right, multiplicity)`, left and right vertex ids in separate
/// name spaces), as rounds `(repeat, edge ids)`: each round's edges have
/// distinct left and distinct right ends, edge `e` appears in rounds whose
/// repeats sum to its multiplicity, the repeats sum to Delta, and each
/// round's ids are ascending. Consecutive equal rounds are merged.
///
/// Returns `None` when Delta is 2^31 or more, or the regularised graph has
/// more than 2^40 chunks (multiplicities that large belong to the
/// multiplicity-independent peeling of `solve::koenig`).
pub fn euler_split_colouring(edges: &[(u32, u32, u64)]) -> Option<Vec<(u64, Vec<u32>)>> {
    colouring_with(edges, WALK_BUDGET_FACTOR)
}

/// [`euler_split_colouring`] with a random-walk budget (0: the matchings
/// at odd degrees by Hopcroft–Karp alone).
fn colouring_with(
    edges: &[(u32, u32, u64)],
    walk_budget_factor: u64,
) -> Option<Vec<(u64, Vec<u32>)>> {
    let (n, delta) = regular_size(edges)?;
    if delta >= 1 << 31 || (n as u64).checked_mul(delta)? > 1 << 40 {
        return None;
    }
    let mut rounds: Vec<(u64, Vec<u32>)> = Vec::new();
    if delta == 0 {
        return Some(rounds);
    }
    let (out, inn) = side_degrees(edges)?;
    // Compact ids in slot order (so rounds come out in edge-id order when
    // the edges are sorted by left end), padded to `n` per side.
    let compact = |deg: &[u64]| {
        let mut id = vec![NONE; deg.len()];
        let mut next = 0u32;
        for (v, &d) in deg.iter().enumerate() {
            if d > 0 {
                id[v] = next;
                next += 1;
            }
        }
        let mut deficit: Vec<u64> = deg.iter().copied().filter(|&d| d > 0).collect();
        deficit.resize(n, 0);
        for d in &mut deficit {
            *d = delta - *d;
        }
        (id, deficit)
    };
    let (lid, mut def_l) = compact(&out);
    let (rid, mut def_r) = compact(&inn);
    let mut g: Vec<Entry> = Vec::with_capacity(edges.len() + 2 * n);
    for (e, &(l, r, m)) in edges.iter().enumerate() {
        if m > 0 {
            g.push(Entry {
                l: lid[l as usize],
                r: rid[r as usize],
                mult: m as u32,
                id: e as u32,
            });
        }
    }
    // Regularise: pair deficient left vertices with deficient right ones.
    let (mut i, mut j) = (0, 0);
    loop {
        while i < n && def_l[i] == 0 {
            i += 1;
        }
        while j < n && def_r[j] == 0 {
            j += 1;
        }
        if i == n || j == n {
            break;
        }
        let m = def_l[i].min(def_r[j]);
        g.push(Entry {
            l: i as u32,
            r: j as u32,
            mult: m as u32,
            id: NONE,
        });
        def_l[i] -= m;
        def_r[j] -= m;
    }
    let mut s = Splitter::new(n);
    s.walk_budget_factor = walk_budget_factor;
    s.colour(g, delta as u32, 1, &mut rounds);
    Some(rounds)
}

/// Scratch space shared by every level of the recursion.
struct Splitter {
    n: usize,
    // Euler partition of the single copies (odd multiplicities).
    /// Entry index of each single copy.
    odd: Vec<u32>,
    /// Partner of each single copy at its left end and at its right end.
    link: Vec<[u32; 2]>,
    /// Single copy waiting for a partner at each left / right vertex.
    pend_l: Vec<u32>,
    pend_r: Vec<u32>,
    /// Half of each single copy: `UNUSED` until its trail reaches it.
    half: Vec<u8>,
    // Hopcroft–Karp.
    lstart: Vec<u32>,
    ladj: Vec<u32>,
    match_l: Vec<u32>,
    match_r: Vec<u32>,
    dist: Vec<u32>,
    it: Vec<u32>,
    queue: Vec<u32>,
    stack: Vec<u32>,
    /// Random walks: edge chosen at each step, position of each left
    /// vertex on the walk (`NONE` if absent).
    chosen: Vec<u32>,
    stamp: Vec<u32>,
    // One round, indexed by left vertex.
    slot_round: Vec<u32>,
    /// Entry lists to reuse.
    pool: Vec<Vec<Entry>>,
    /// Random-walk steps allowed per vertex and edge of a matching's graph
    /// before Hopcroft–Karp takes over (tests set 0 to run it alone).
    walk_budget_factor: u64,
}

impl Splitter {
    fn new(n: usize) -> Self {
        Splitter {
            n,
            odd: Vec::new(),
            link: Vec::new(),
            pend_l: vec![NONE; n],
            pend_r: vec![NONE; n],
            half: Vec::new(),
            lstart: vec![0; n + 1],
            ladj: Vec::new(),
            match_l: vec![NONE; n],
            match_r: vec![NONE; n],
            dist: vec![0; n],
            it: vec![0; n],
            queue: Vec::with_capacity(n),
            stack: Vec::new(),
            chosen: Vec::new(),
            stamp: vec![NONE; n],
            slot_round: vec![NONE; n],
            pool: Vec::new(),
            walk_budget_factor: WALK_BUDGET_FACTOR,
        }
    }

    /// An empty entry list with room for `len` (recycled: the recursion
    /// allocates, and the kernel zeroes, fresh pages only at the top).
    fn take(&mut self, len: usize) -> Vec<Entry> {
        let mut v = self.pool.pop().unwrap_or_default();
        v.clear();
        v.reserve(len);
        v
    }

    /// Returns an entry list to the pool.
    fn give(&mut self, v: Vec<Entry>) {
        self.pool.push(v);
    }

    /// Colours the `d`-regular multigraph `g` with `d` colours, each
    /// emitted `factor` times.
    fn colour(
        &mut self,
        mut g: Vec<Entry>,
        d: u32,
        factor: u64,
        rounds: &mut Vec<(u64, Vec<u32>)>,
    ) {
        if d == 0 {
            return;
        }
        if d == 1 {
            // `g` is a perfect matching.
            self.slot_round.fill(NONE);
            for e in &g {
                debug_assert_eq!(e.mult, 1);
                self.slot_round[e.l as usize] = e.id;
            }
            emit(rounds, factor, &self.slot_round);
            self.give(g);
            return;
        }
        let mut d = d;
        if d % 2 == 1 {
            self.perfect_matching(&g);
            self.slot_round.fill(NONE);
            for &e in &self.match_l {
                self.slot_round[g[e as usize].l as usize] = g[e as usize].id;
            }
            emit(rounds, factor, &self.slot_round);
            for u in 0..self.n {
                let e = self.match_l[u] as usize;
                g[e].mult -= 1;
            }
            g.retain(|e| e.mult > 0);
            d -= 1;
        }
        let (g1, g2) = self.split(&g);
        self.give(g);
        match g2 {
            None => self.colour(g1, d / 2, 2 * factor, rounds),
            Some(g2) if g1.len() + g2.len() >= PARALLEL_ENTRIES => {
                // The halves are independent: colour them on two threads,
                // the second into its own list, appended in order (the
                // output does not depend on the thread count).
                let n = self.n;
                let mut second = Vec::new();
                rayon::join(
                    || self.colour(g1, d / 2, factor, rounds),
                    || Splitter::new(n).colour(g2, d / 2, factor, &mut second),
                );
                for (repeat, ids) in second {
                    push_round(rounds, repeat, ids);
                }
            }
            Some(g2) => {
                self.colour(g1, d / 2, factor, rounds);
                self.colour(g2, d / 2, factor, rounds);
            }
        }
    }

    /// Euler split of a regular multigraph of even degree into two halves of
    /// half the degree; `None` for the second when the halves are equal.
    ///
    /// The single copies (odd multiplicities) are paired at every vertex,
    /// in entry order (every such degree is even); the pairs at left and
    /// at right vertices chain the copies into closed trails that alternate
    /// a left link and a right link, and colouring each trail alternately
    /// puts the two copies of every pair in different halves. This is the
    /// Euler partition without building adjacency lists: two sequential
    /// passes and one walk over `2 x copies` links.
    fn split(&mut self, g: &[Entry]) -> (Vec<Entry>, Option<Vec<Entry>>) {
        self.odd.clear();
        self.link.clear();
        for (k, e) in g.iter().enumerate() {
            if e.mult & 1 == 0 {
                continue;
            }
            let h = self.odd.len() as u32;
            self.odd.push(k as u32);
            self.link.push([NONE; 2]);
            for (side, pend) in [
                (0, &mut self.pend_l[e.l as usize]),
                (1, &mut self.pend_r[e.r as usize]),
            ] {
                if *pend == NONE {
                    *pend = h;
                } else {
                    self.link[h as usize][side] = *pend;
                    self.link[*pend as usize][side] = h;
                    *pend = NONE;
                }
            }
        }
        if self.odd.is_empty() {
            let mut half = self.take(g.len());
            half.extend(g.iter().map(|e| Entry {
                mult: e.mult / 2,
                ..*e
            }));
            return (half, None);
        }
        debug_assert!(self.pend_l.iter().chain(&self.pend_r).all(|&p| p == NONE));
        self.half.clear();
        self.half.resize(self.odd.len(), UNUSED);
        for start in 0..self.odd.len() as u32 {
            if self.half[start as usize] != UNUSED {
                continue;
            }
            let mut h = start;
            loop {
                self.half[h as usize] = FIRST;
                let t = self.link[h as usize][1];
                self.half[t as usize] = SECOND;
                h = self.link[t as usize][0];
                if h == start {
                    break;
                }
            }
        }
        let mut g1 = self.take(g.len());
        let mut g2 = self.take(g.len());
        let mut h = 0;
        for (k, e) in g.iter().enumerate() {
            let (mut m1, mut m2) = (e.mult / 2, e.mult / 2);
            if e.mult & 1 == 1 {
                debug_assert_eq!(self.odd[h] as usize, k);
                if self.half[h] == SECOND {
                    m2 += 1;
                } else {
                    m1 += 1;
                }
                h += 1;
            }
            if m1 > 0 {
                g1.push(Entry { mult: m1, ..*e });
            }
            if m2 > 0 {
                g2.push(Entry { mult: m2, ..*e });
            }
        }
        (g1, Some(g2))
    }

    /// Hopcroft–Karp on the support of the regular multigraph `g`: leaves in
    /// `match_l[u]` the index in `g` of the edge matched at left vertex `u`.
    /// A regular bipartite multigraph has a perfect matching, so every left
    /// vertex ends matched.
    fn perfect_matching(&mut self, g: &[Entry]) {
        let n = self.n;
        self.lstart.fill(0);
        for e in g {
            self.lstart[e.l as usize + 1] += 1;
        }
        for u in 0..n {
            self.lstart[u + 1] += self.lstart[u];
        }
        self.it.copy_from_slice(&self.lstart[..n]);
        self.ladj.clear();
        self.ladj.resize(g.len(), 0);
        for (k, e) in g.iter().enumerate() {
            self.ladj[self.it[e.l as usize] as usize] = k as u32;
            self.it[e.l as usize] += 1;
        }
        self.match_l.fill(NONE);
        self.match_r.fill(NONE);
        // Greedy start.
        let mut free = 0;
        for u in 0..n {
            for p in self.lstart[u]..self.lstart[u + 1] {
                let k = self.ladj[p as usize];
                let r = g[k as usize].r as usize;
                if self.match_r[r] == NONE {
                    self.match_r[r] = u as u32;
                    self.match_l[u] = k;
                    break;
                }
            }
            if self.match_l[u] == NONE {
                free += 1;
            }
        }
        if free > 0 {
            free = self.random_walks(g, free);
        }
        while free > 0 {
            // BFS layers from the free left vertices.
            self.queue.clear();
            for u in 0..n {
                if self.match_l[u] == NONE {
                    self.dist[u] = 0;
                    self.queue.push(u as u32);
                } else {
                    self.dist[u] = NONE;
                }
            }
            // Stops after the first layer that reaches a free right vertex
            // (`limit`): the DFS below then follows shortest paths only.
            let mut head = 0;
            let mut limit = NONE;
            while head < self.queue.len() {
                let u = self.queue[head] as usize;
                head += 1;
                if self.dist[u] >= limit {
                    break;
                }
                for p in self.lstart[u]..self.lstart[u + 1] {
                    let r = g[self.ladj[p as usize] as usize].r as usize;
                    let w = self.match_r[r];
                    if w == NONE {
                        limit = self.dist[u] + 1;
                    } else if self.dist[w as usize] == NONE {
                        self.dist[w as usize] = self.dist[u] + 1;
                        self.queue.push(w);
                    }
                }
            }
            assert!(
                limit != NONE,
                "a regular bipartite multigraph has a perfect matching"
            );
            // Layered augmenting paths, by an explicit-stack DFS.
            self.it.copy_from_slice(&self.lstart[..n]);
            for root in 0..n {
                if self.match_l[root] != NONE {
                    continue;
                }
                self.stack.clear();
                self.stack.push(root as u32);
                while let Some(&u) = self.stack.last() {
                    let u = u as usize;
                    if self.it[u] == self.lstart[u + 1] {
                        self.dist[u] = NONE;
                        self.stack.pop();
                        continue;
                    }
                    let k = self.ladj[self.it[u] as usize];
                    let r = g[k as usize].r as usize;
                    let w = self.match_r[r];
                    if w == NONE {
                        // Flip the path root -> ... -> u -> r.
                        for &x in &self.stack {
                            let k = self.ladj[self.it[x as usize] as usize];
                            self.match_l[x as usize] = k;
                            self.match_r[g[k as usize].r as usize] = x;
                        }
                        free -= 1;
                        break;
                    }
                    if self.dist[w as usize] == self.dist[u] + 1 && self.dist[w as usize] < limit {
                        self.stack.push(w);
                    } else {
                        self.it[u] += 1;
                    }
                }
            }
        }
    }

    /// Augments the matching by truncated random walks (Goel, Kapralov and
    /// Khanna 2010, "Perfect matchings in O(n log n) time in regular
    /// bipartite graphs"): from a free left vertex, follow a random
    /// unmatched edge to its right end, then that vertex's matched edge
    /// back to the left, until a free right vertex is reached; cycles are
    /// cut off the path as they close. In a regular graph with `k` free
    /// vertices a walk takes O(n / k) expected steps, so the walks cost
    /// O(n log n) in all. The seed is fixed, so the result is
    /// deterministic. Walks stop after a total step budget of a few times
    /// the graph's size (then Hopcroft–Karp finishes, keeping the worst
    /// case bounded); returns the number of left vertices still free.
    fn random_walks(&mut self, g: &[Entry], mut free: usize) -> usize {
        let n = self.n;
        let mut budget = self.walk_budget_factor * (n + g.len()) as u64;
        let mut rng =
            0x9e37_79b9_7f4a_7c15u64 ^ (g.len() as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let mut next = move || {
            // xorshift64*
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        self.stamp.fill(NONE);
        for root in 0..n {
            if self.match_l[root] != NONE {
                continue;
            }
            self.stack.clear();
            self.chosen.clear();
            self.stack.push(root as u32);
            self.stamp[root] = 0;
            loop {
                if budget == 0 {
                    for &x in &self.stack {
                        self.stamp[x as usize] = NONE;
                    }
                    return free;
                }
                budget -= 1;
                let u = *self.stack.last().expect("the walk is never empty") as usize;
                let (lo, hi) = (self.lstart[u], self.lstart[u + 1]);
                let k = loop {
                    let p = lo + (((next() >> 32) * (hi - lo) as u64) >> 32) as u32;
                    let k = self.ladj[p as usize];
                    if k != self.match_l[u] {
                        break k;
                    }
                };
                self.chosen.push(k);
                let w = self.match_r[g[k as usize].r as usize];
                if w == NONE {
                    for (i, &x) in self.stack.iter().enumerate() {
                        let k = self.chosen[i];
                        self.match_l[x as usize] = k;
                        self.match_r[g[k as usize].r as usize] = x;
                        self.stamp[x as usize] = NONE;
                    }
                    free -= 1;
                    break;
                }
                let at = self.stamp[w as usize];
                if at == NONE {
                    self.stamp[w as usize] = self.stack.len() as u32;
                    self.stack.push(w);
                } else {
                    // A cycle closed at `w`: cut it off, walk on from `w`.
                    for &x in &self.stack[at as usize + 1..] {
                        self.stamp[x as usize] = NONE;
                    }
                    self.stack.truncate(at as usize + 1);
                    self.chosen.truncate(at as usize);
                }
            }
        }
        free
    }
}

/// Appends the round of `slot_round` (edge id per left vertex, `NONE`
/// where unused or dummy) with `repeat`, merging it into an equal last round.
fn emit(rounds: &mut Vec<(u64, Vec<u32>)>, repeat: u64, slot_round: &[u32]) {
    let mut ids: Vec<u32> = slot_round.iter().copied().filter(|&e| e != NONE).collect();
    if ids.is_empty() {
        return;
    }
    if ids.windows(2).any(|w| w[0] > w[1]) {
        ids.sort_unstable();
    }
    push_round(rounds, repeat, ids);
}

/// Appends a round, merging it into an equal last round.
fn push_round(rounds: &mut Vec<(u64, Vec<u32>)>, repeat: u64, ids: Vec<u32>) {
    if let Some(last) = rounds.last_mut() {
        if last.1 == ids {
            last.0 += repeat;
            return;
        }
    }
    rounds.push((repeat, ids));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Checks that `rounds` is a proper colouring of `edges` with exactly
    /// Delta colours: distinct ends per round, coverage, ascending ids.
    fn check(edges: &[(u32, u32, u64)], rounds: &[(u64, Vec<u32>)]) {
        let mut out = std::collections::HashMap::new();
        let mut inn = std::collections::HashMap::new();
        for &(l, r, m) in edges {
            *out.entry(l).or_insert(0u64) += m;
            *inn.entry(r).or_insert(0u64) += m;
        }
        let delta = out.values().chain(inn.values()).copied().max().unwrap_or(0);
        let mut covered = vec![0u64; edges.len()];
        let mut ticks = 0;
        for (k, (repeat, ids)) in rounds.iter().enumerate() {
            assert!(*repeat >= 1);
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "round {k} ids not ascending"
            );
            let mut lefts = std::collections::HashSet::new();
            let mut rights = std::collections::HashSet::new();
            for &e in ids {
                let (l, r, _) = edges[e as usize];
                assert!(lefts.insert(l), "round {k}: left {l} twice");
                assert!(rights.insert(r), "round {k}: right {r} twice");
                covered[e as usize] += repeat;
            }
            if k > 0 {
                assert_ne!(rounds[k - 1].1, *ids, "equal consecutive rounds not merged");
            }
            ticks += repeat;
        }
        assert_eq!(ticks, delta, "colours != Delta");
        for (e, &(_, _, m)) in edges.iter().enumerate() {
            assert_eq!(covered[e], m, "edge {e} covered {} of {m}", covered[e]);
        }
    }

    /// Random bipartite multigraph: distinct (left, right) pairs on up to
    /// `n` vertices a side, multiplicities 1..=max_mult.
    fn multigraph(n: u32, max_mult: u64) -> impl Strategy<Value = Vec<(u32, u32, u64)>> {
        proptest::collection::btree_map((0..n, 0..n), 1..=max_mult, 0..(n * n) as usize)
            .prop_map(|m| m.into_iter().map(|((l, r), m)| (l, r, m)).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn simple_graphs_get_delta_colours(edges in multigraph(9, 1)) {
            check(&edges, &euler_split_colouring(&edges).unwrap());
        }

        #[test]
        fn multigraphs_get_delta_colours(edges in multigraph(7, 9)) {
            check(&edges, &euler_split_colouring(&edges).unwrap());
        }

        #[test]
        fn hopcroft_karp_alone_gives_the_same_guarantee(edges in multigraph(8, 5)) {
            check(&edges, &colouring_with(&edges, 0).unwrap());
        }

        #[test]
        fn deterministic(edges in multigraph(8, 6)) {
            prop_assert_eq!(euler_split_colouring(&edges), euler_split_colouring(&edges));
        }
    }

    #[test]
    fn odd_and_power_of_two_degrees() {
        // Complete bipartite K_{n,n} with multiplicity m: Delta = n * m.
        for (n, m) in [(1, 1), (3, 1), (4, 1), (5, 3), (4, 4), (7, 2), (2, 1 << 20)] {
            let edges: Vec<_> = (0..n)
                .flat_map(|l| (0..n).map(move |r| (l, r, m)))
                .collect();
            let rounds = euler_split_colouring(&edges).unwrap();
            check(&edges, &rounds);
            if n == 2 {
                // Uniform multiplicity halves without single copies: the
                // rounds do not grow with the multiplicity.
                assert!(rounds.len() <= 2, "{} rounds", rounds.len());
            }
        }
    }

    #[test]
    fn star_and_empty() {
        // One sender to 5 receivers, odd multiplicities: Delta = 25.
        let edges: Vec<_> = (0..5).map(|r| (0, r, 2 * r as u64 + 1)).collect();
        check(&edges, &euler_split_colouring(&edges).unwrap());
        assert_eq!(euler_split_colouring(&[]), Some(vec![]));
        assert_eq!(split_cost(&edges), Some(5 * 25));
    }

    #[test]
    fn refuses_huge_multiplicities() {
        assert_eq!(euler_split_colouring(&[(0, 1, 1 << 31)]), None);
    }
}
