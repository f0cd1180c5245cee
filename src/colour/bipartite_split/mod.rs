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
//!    perfect matching (Hall); it is found by random walks, finished by
//!    Hopcroft–Karp (module `matching`, on the support of a weighted graph
//!    or the positions of a flat one), emitted as one colour and removed,
//!    leaving `D - 1`.
//! 4. Degree 1: the graph is a perfect matching, one colour.
//!
//! Once the multiplicities are small (at most `FLAT_RATIO` chunks per
//! entry on average, some of them odd, and fewer than 2^31 chunks) the
//! subgraphs move to a flat layout, one position per chunk by left vertex
//! (module `flat`): most of the time is spent there. The Euler partition
//! itself is in module `trails`, the matchings in module `matching`.
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
//! Exact (Delta colours) and deterministic: the random walks use a fixed
//! seed, ties are broken by vertex and edge order, and the halves coloured
//! on other threads are appended in a fixed order.

/// No edge / no vertex.
const NONE: u32 = u32::MAX;

/// Entries or flat positions (both halves together) from which the two
/// halves of a split may be coloured in parallel (see
/// `Splitter::colour_halves`: only near the top of the recursion).
const PARALLEL_ENTRIES: usize = 1 << 16;

mod flat;
mod matching;
mod trails;

/// Chunks per entry up to which a subgraph moves to the flat layout of
/// module `flat` (parallel copies spelled out): a flat trail step costs a
/// fraction of a weighted one, so spelling out a few copies pays.
const FLAT_RATIO: u64 = 4;

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
    colouring_with(edges, matching::WALK_BUDGET_FACTOR)
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
    // By left vertex (stable; the input usually is, the dummies are not):
    // the splits pair the single copies of a vertex as neighbours.
    g.sort_by_key(|e| e.l);
    let mut s = Splitter::new(n, walk_budget_factor);
    s.colour(g, delta as u32, 1, &mut rounds);
    Some(rounds)
}

/// Scratch space of one thread, shared by the levels of the recursion it
/// colours.
struct Splitter {
    n: usize,
    // Euler partition of the single copies (see module `trails`).
    /// Single copy waiting for a partner at each right vertex.
    pend_r: Vec<u32>,
    /// Partner of each single copy at its right end, and its half (module
    /// `trails`).
    pair: Vec<u32>,
    /// Next free position per left vertex while laying out a flat graph.
    fill: Vec<u32>,
    /// Perfect matchings at odd degrees.
    matcher: matching::Matcher,
    /// Right end of each entry of a weighted graph handed to the matcher.
    rows_right: Vec<u32>,
    // One round, indexed by left vertex.
    slot_round: Vec<u32>,
    /// Entry lists and flat-graph arrays to reuse.
    pool: Vec<Vec<Entry>>,
    pool_u32: Vec<Vec<u32>>,
    /// Recursion levels below this one that may still hand a half to
    /// another thread.
    forks_left: u32,
}

impl Splitter {
    fn new(n: usize, walk_budget_factor: u64) -> Self {
        let mut matcher = matching::Matcher::new(n);
        matcher.walk_budget_factor = walk_budget_factor;
        Splitter {
            n,
            pend_r: vec![NONE; n],
            pair: Vec::new(),
            fill: Vec::with_capacity(n),
            matcher,
            rows_right: Vec::new(),
            slot_round: vec![NONE; n],
            pool: Vec::new(),
            pool_u32: Vec::new(),
            forks_left: rayon::current_num_threads()
                .next_power_of_two()
                .trailing_zeros()
                + 1,
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
    /// emitted `factor` times; once the multiplicities are small the flat
    /// layout of module `flat` takes over.
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
        // Flat when the copies are few, and some are single (all even:
        // the halves are equal, the next split is free). Positions are u32
        // (and `NONE` is not one).
        let chunks: u64 = g.iter().map(|e| e.mult as u64).sum();
        let single = g.iter().any(|e| e.mult & 1 == 1);
        if single && chunks <= FLAT_RATIO * g.len() as u64 && chunks < u64::from(NONE / 2) {
            let s = self.lay_out_flat(&g, d);
            self.give(g);
            return self.colour_flat(s, factor, rounds);
        }
        let mut d = d;
        if d % 2 == 1 {
            self.weighted_matching_rows(&g);
            self.matcher.perfect_matching(&self.rows_right);
            self.slot_round.fill(NONE);
            for &p in &self.matcher.match_l {
                let e = &mut g[p as usize];
                self.slot_round[e.l as usize] = e.id;
                e.mult -= 1;
            }
            emit(rounds, factor, &self.slot_round);
            g.retain(|e| e.mult > 0);
            d -= 1;
        }
        let (g1, g2) = self.split(&g);
        self.give(g);
        match g2 {
            None => self.colour(g1, d / 2, 2 * factor, rounds),
            Some(g2) => {
                let entries = g1.len() + g2.len();
                self.colour_halves(g1, g2, entries, rounds, |s, g, out| {
                    s.colour(g, d / 2, factor, out)
                });
            }
        }
    }

    /// Colours the two halves of a split with `colour`, the first's rounds
    /// first. Large halves near the top of the recursion go to two threads
    /// (the second into its own list, appended after: the output does not
    /// depend on the thread count); the halves have equal sizes, so forking
    /// the top `log2(threads) + 1` levels keeps every thread busy, and
    /// deeper levels reuse this thread's scratch space.
    fn colour_halves<G: Send>(
        &mut self,
        g1: G,
        g2: G,
        entries: usize,
        rounds: &mut Vec<(u64, Vec<u32>)>,
        colour: impl Fn(&mut Splitter, G, &mut Vec<(u64, Vec<u32>)>) + Sync,
    ) {
        if self.forks_left == 0 || entries < PARALLEL_ENTRIES {
            colour(self, g1, rounds);
            colour(self, g2, rounds);
            return;
        }
        self.forks_left -= 1;
        let mut other = Splitter::new(self.n, self.matcher.walk_budget_factor);
        other.forks_left = self.forks_left;
        let mut second = Vec::new();
        rayon::join(
            || colour(self, g1, rounds),
            || colour(&mut other, g2, &mut second),
        );
        self.forks_left += 1;
        for (repeat, ids) in second {
            push_round(rounds, repeat, ids);
        }
    }

    /// The rows of `g` for the matcher: the entries are sorted by left
    /// vertex, so row positions are entry indices and only the row starts
    /// and the right ends (`rows_right`) are needed.
    fn weighted_matching_rows(&mut self, g: &[Entry]) {
        debug_assert!(g.windows(2).all(|w| w[0].l <= w[1].l));
        let n = self.n;
        let start = &mut self.matcher.start;
        start.clear();
        start.resize(n + 1, 0);
        for e in g {
            start[e.l as usize + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        self.rows_right.clear();
        self.rows_right.extend(g.iter().map(|e| e.r));
    }

    /// Euler split of a regular multigraph of even degree into two halves of
    /// half the degree; `None` for the second when the halves are equal.
    ///
    /// An edge of multiplicity `m` gives `floor(m / 2)` copies to each half;
    /// the single copies left (odd multiplicities) are split by the trails
    /// of [`trails`]. The entries are sorted by left vertex, so the single
    /// copies of a vertex are consecutive (and even in number).
    fn split(&mut self, g: &[Entry]) -> (Vec<Entry>, Option<Vec<Entry>>) {
        self.pair_by_right(g.iter().filter(|e| e.mult & 1 == 1).map(|e| e.r));
        if self.pair.is_empty() {
            let mut half = self.take(g.len());
            half.extend(g.iter().map(|e| Entry {
                mult: e.mult / 2,
                ..*e
            }));
            return (half, None);
        }
        self.walk_trails();
        let mut g1 = self.take(g.len());
        let mut g2 = self.take(g.len());
        let mut h = 0;
        for e in g {
            let (mut m1, mut m2) = (e.mult / 2, e.mult / 2);
            if e.mult & 1 == 1 {
                if self.second_half(h) {
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

    /// Large enough to fork at the top (K_{256,256}: 65,536 chunks, and a
    /// multigraph that starts weighted): the same rounds on 1 and 4
    /// threads, and a proper Delta-colouring.
    #[test]
    fn output_does_not_depend_on_threads() {
        let complete: Vec<_> = (0..256)
            .flat_map(|l| (0..256).map(move |r| (l, r, 1)))
            .collect();
        let weighted: Vec<_> = (0..128u32)
            .flat_map(|l| (0..128u32).map(move |r| (l, r, 1 + u64::from((l * 7 + r * 3) % 9))))
            .collect();
        for edges in [complete, weighted] {
            let on = |threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| euler_split_colouring(&edges).unwrap())
            };
            let one = on(1);
            check(&edges, &one);
            assert_eq!(one, on(4));
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
