//! Exact odd-set density (Gamma) of an undirected multigraph, in integers.
//!
//! For a multigraph with edge multiplicities `m_e`, weighted degrees `d(v)` and
//! maximum degree `Delta`, the odd-set density is
//!
//! ```text
//! Gamma = max over odd S, |S| >= 3, of 2*E(S) / (|S| - 1)
//! ```
//!
//! where `E(S)` is the total multiplicity of the edges with both ends in `S`.
//! `max(Delta, Gamma)` is the fractional chromatic index (Edmonds, Seymour), so
//! an odd set with `Gamma > Delta` is a witness that the degree bound is not
//! tight. This module owns finding that witness *exactly* (no floating point
//! anywhere) in polynomial time; see DESIGN.md §2 and §9.
//!
//! # Method
//!
//! *Odd cuts.* For a rational `lambda >= Delta`, add a vertex `t` joined to
//! every `v` with capacity `lambda - d(v) >= 0`. For every `S` not containing
//! `t` the cut capacity is `cut(S) = delta(S) + sum_{v in S}(lambda - d(v)) =
//! lambda*|S| - 2*E(S)`, so `2E(S) > lambda(|S|-1)` iff `cut(S) < lambda`.
//! A singleton has `cut({v}) = lambda` exactly, so any cut below `lambda`
//! automatically has `|S| >= 2`, and odd ones `|S| >= 3`. With `T` = the
//! original vertices (plus `t` when their number is odd, so that `|T|` is
//! even), "the side without `t` has odd size" is exactly "the cut is T-odd";
//! by Padberg and Rao (1982) a minimum T-odd cut is a fundamental cut of a
//! Gomory–Hu tree. The tree is built by Gusfield's method (n-1 max-flows,
//! no contraction) with a Dinic max-flow on integer capacities; with `t` as the
//! root a tree edge is T-odd iff the subtree below it has odd size, and that
//! subtree is `S`. Among the T-odd tree edges below `lambda`, the one whose
//! set is densest is taken.
//!
//! *Dinkelbach.* `lambda = p/q` is kept in lowest terms and every capacity is
//! multiplied by `q`, so all arithmetic is integral. Starting from `lambda =
//! max(delta, Delta)` (raised first to the best odd set of a greedy peeling,
//! which often is already optimal), each violated odd set `S` found raises
//! `lambda` to its own density `2E(S)/(|S|-1)`; when no odd cut is below
//! `lambda`, no odd set is denser than `lambda` and the last set is optimal.
//!
//! *Pruning (exact).* A densest odd set `S*` (take a smallest one; it is
//! connected, since splitting off an even part never lowers the density)
//! satisfies `d_S(v) + d_S(w) - m(vw) >= Gamma` for every pair in it (compare
//! with `S* \ {v, w}`). So while `lambda < Gamma`, at most one vertex `w` of
//! `S*` has `2 d_S(w) <= lambda`, and every other `v` has `2 d_{S*\w}(v) >
//! lambda`: `S*` lies inside the set `K` left after repeatedly deleting
//! vertices with `2 d(v) <= lambda`, plus one neighbour of `K`. The flows
//! therefore run only on `K` and its neighbours, keeping only edges that
//! touch `K`, one connected component at a time; a component in which a
//! denser set was found is pruned again at the new `lambda`. On sparse graphs
//! with a planted dense part this shrinks a thousand-vertex instance to a few
//! dozen vertices.
//!
//! *Components (exact).* A smallest densest odd set is connected, so each
//! connected component is searched on its own. In a component whose support
//! is a path or a cycle (no slot with three partners), an odd set other
//! than a whole odd cycle induces paths, and a path part with `v` slots holds
//! at most `floor(v/2)` pairs of consecutive edges, each pair at most
//! `Delta`: such a set is never denser than `Delta`. So only the whole odd
//! cycle can beat `lambda`, and it is checked in closed form (`O(k)`, no
//! flows): odd rings of any length and multiplicity cost linear time.
//!
//! *Blocks and chains (exact).* Let `lambda >= Delta` and let `S` be a
//! smallest odd set of maximum density `Gamma > lambda` (only then must the
//! test find anything). Then `S` induces a 2-connected subgraph. It is
//! connected (above). Suppose a slot `c` separates it, `S - c` falling
//! apart into nonempty `S1`, `S2` with no edge between them; `|S1| + |S2|
//! = |S| - 1` is even. If both are even, `A = S1 + c` and `B = S2 + c` are
//! smaller odd sets and `2E(S)/(|S|-1) = (2E(A) + 2E(B)) / ((|A|-1) +
//! (|B|-1))` is at most the larger of their densities: one of them is a
//! smaller densest odd set. If both are odd, `Gamma (|S1|-1 + |S2|-1 + 2) =
//! 2E(S) = 2E(S1) + 2E(S2) + 2 d_S(c) <= 2E(S1) + 2E(S2) + 2 Delta`; were
//! each `S_i` a single slot (`E = 0`) or less dense than `Gamma`, this
//! would give `Gamma <= Delta`; so some `S_i` of 3 or more slots is at
//! least as dense: again a smaller densest odd set. (Without `Gamma >
//! Delta` it fails: two K4 sharing a slot have `Gamma = 4`, on all seven
//! slots.) Hence (1) `S` lies in one *block* (a 2-connected piece of the
//! graph searched), and only that block's edges count in `E(S)`: the
//! odd-cut test runs on each block of 3 or more slots alone, with `t`
//! joined at `lambda - d(v)` for `d` the degree in the block; and (2) every
//! slot of `S` has two neighbours in `S`, so a slot with exactly two
//! neighbours in its block is in `S` only with both, and a *chain* (a
//! maximal path of such slots) is in `S` whole or not at all, ends
//! included. A chain becomes one vertex that stands for its `k` slots: its
//! arc to `t` is the sum of `lambda - d(v)` over them and its edges are the
//! chain's two end edges, so a set of the contracted graph has the cut
//! value `lambda |S| - 2E(S)` of the slots it stands for, and is T-odd iff
//! it stands for an odd number of slots (`T`: the vertices standing for an
//! odd number, plus `t` to make `|T|` even). Padberg and Rao's argument is
//! unchanged on this graph, whose sets are exactly the slot sets that take
//! chains whole, `S` among them; the tree's subtree *weights* give `|S|`.
//! A block that is a cycle becomes one vertex (its only candidate is
//! itself). A ring of 20,001 slots with 100 chords is one block of about
//! 200 slots and 200 chains: a few hundred flows on a few hundred vertices
//! instead of 20,000 flows along the ring. Blocks (iterative Hopcroft–
//! Tarjan) and chains cost `O(k + m log m)` per test; a component that is
//! 2-connected and has no chain gives exactly the graph of old, so its
//! answer is unchanged.
//!
//! *Fewer flows (exact).* In the augmented graph every slot's singleton cut
//! is exactly `lambda`, and cuts of value `lambda` are of no interest. Pairs
//! whose flow reached `lambda` are merged in a union-find (local edge
//! connectivity is transitive), and a slot already connected at `lambda` to
//! its Gusfield parent gets its singleton as the minimum cut without a flow;
//! the flows that remain mostly go to a neighbour. Flows stop as soon as they
//! saturate a singleton cut, reset only the arcs they touched, and run on
//! `u64` capacities when the values provably fit.
//!
//! # Tests
//!
//! The unit and property tests live in `tests.rs` (`proptest` as a
//! dev-dependency): every answer is compared with [`brute_force_gamma`] on
//! random multigraphs of up to 16 slots, also with each speed-up switched
//! off, and the Gomory–Hu trees and max-flows are checked against
//! brute-force minimum cuts. Blocks and chains have their own: the lemma
//! above (every smallest densest odd set 2-connected when `Gamma > Delta`)
//! checked by enumeration, graphs built of cores, chains, cut vertices and
//! bridges against brute force, rings with chords against the search
//! without contraction, and the blocks against a brute-force separation
//! test (`reduce.rs`). `cargo test --release -- --ignored` runs a longer
//! stress test.
//!
//! # Size of the numbers
//!
//! With `n` vertices, maximum degree `D` and `P = max(delta, n*D)`, every
//! intermediate value (scaled capacities, residuals, flow values, cross
//! products of densities) is at most `4*(n+1)*P`. That fits in `u128`
//! whenever, for example, `n < 2^30` and `D, delta < 2^64` — i.e. always in
//! practice (`n` counts slots up to the largest id with an edge). The bound
//! is checked up front; an input beyond it makes [`max_odd_density`] return
//! `None` (a conservative answer: the degree bound stays a valid lower
//! bound) instead of overflowing. Flows run on `u64` when `4 (k+1) c < 2^64`
//! for a component of `k` slots and largest scaled capacity `c`.

/// Result of the odd-set density search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddSetDensity {
    /// The odd slot set S (|S| >= 3, odd), sorted ascending.
    pub slots: Vec<u32>,
    /// E(S): total multiplicity of edges with both ends in S.
    pub inside: u64,
}

/// Returns an odd vertex set `S` (`|S| >= 3`) of maximum density
/// `2*E(S)/(|S|-1)` (that maximum is Gamma), provided that Gamma exceeds
/// `delta`; returns `None` when `Gamma <= delta`, i.e. when no odd set beats
/// the degree bound.
///
/// `edges` are `(a, b, multiplicity)`; repeated pairs are added up. Entries
/// that are not valid edges (self-loops, an end `>= n`, multiplicity 0) are
/// ignored. `delta` should be the maximum weighted degree; the odd-cut test
/// needs `lambda >= every degree`, so a `delta` below the true maximum degree
/// is raised to it (the answer is then `None` whenever Gamma is at most the
/// true maximum degree). A `delta` above it is fine.
///
/// The answer is exact: integer arithmetic throughout, no floating point,
/// and the returned set is a maximiser (when several sets tie, any one of
/// them). `inside` is `E(S)`; a set whose `E(S)` exceeds `u64` is not
/// returned (`None`; impossible when the total multiplicity fits in
/// `u64`), never a saturated count. See the module docs for the bound on input size (beyond it the
/// function answers `None`). Never panics.
///
/// Complexity: `O(m log n)` for merging edges and the greedy start, then per
/// Dinkelbach round `O(m log m)` for blocks and chains and one Gomory–Hu
/// tree per block, i.e. `k` Dinic max-flows on each block (with `k`
/// vertices once its chains are contracted) of the pruned graph —
/// `O(k^3 m)` in the worst case, in practice `O(k m)` per round; typically
/// 1–3 rounds. Near-linear where the blocks have few slots with three or
/// more neighbours (long rings and paths with chords).
pub fn max_odd_density(n: usize, edges: &[(u32, u32, u64)], delta: u64) -> Option<OddSetDensity> {
    search(n, edges, delta, Tuning::FULL, None).best
}

/// The greedy peeling's densest odd set alone (no flows): a valid odd set
/// denser than `delta` when the peeling finds one, not necessarily the
/// densest. `O(m log n)`. Used to try cheap colourings against a cheap bound
/// before the exact search (a colouring that meets it makes the search
/// unnecessary).
pub fn quick_odd_density(n: usize, edges: &[(u32, u32, u64)], delta: u64) -> Option<OddSetDensity> {
    let (g, deg) = support(n, edges)?;
    let (slots, inside) = peeling_candidate(&g, &deg)?;
    let dense = 2 * inside > u128::from(delta) * (slots.len() as u128 - 1);
    // An `E(S)` past `u64` is no witness (DESIGN.md §10): no set.
    let inside = u64::try_from(inside).ok()?;
    dense.then_some(OddSetDensity { slots, inside })
}

/// The most vertices one odd-cut test of [`max_odd_density`] can face on
/// this support: the largest block after chain contraction (module docs),
/// before any pruning (which only shrinks it). Depends on the support
/// alone, not on multiplicities beyond being positive; `O(n + m log m)`.
/// Callers use it to tell a cheap search from an expensive one ahead of
/// time (the search's cost grows with this size, not with the slots).
pub fn reduced_search_size(n: usize, edges: &[(u32, u32, u64)]) -> usize {
    let Some((g, _)) = support(n, edges) else {
        return 0;
    };
    let simple: Vec<(u32, u32, u128)> = (0..g.n())
        .flat_map(|v| {
            g.nbrs(v)
                .iter()
                .filter(move |&&(u, _)| (v as u32) < u)
                .map(move |&(u, m)| (v as u32, u, m))
        })
        .collect();
    reduce::blocks(g.n(), &simple)
        .iter()
        .map(Part::len)
        .max()
        .unwrap_or(0)
}

/// The support graph on the slots up to the largest id with an edge (the
/// slots above are isolated and never part of a dense set) and its weighted
/// degrees; `None` when fewer than 3 slots remain or the ids would reach
/// the `NONE` marker.
fn support(n: usize, edges: &[(u32, u32, u64)]) -> Option<(Csr, Vec<u128>)> {
    let used = edges
        .iter()
        .filter(|&&(a, b, m)| a != b && (a as usize) < n && (b as usize) < n && m > 0)
        .map(|&(a, b, _)| a.max(b) as usize + 1)
        .max()
        .unwrap_or(0);
    let n = n.min(used);
    if n < 3 || n > NONE as usize {
        return None;
    }
    let g = Csr::from_edges(n, edges);
    let deg: Vec<u128> = (0..n)
        .map(|v| g.nbrs(v).iter().map(|&(_, m)| m).sum())
        .collect();
    Some((g, deg))
}

/// The search ran out of time (between two max-flows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Expired;

/// Result of [`max_odd_density_until`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddSetSearch {
    /// The densest odd set found with density above `delta`, if any.
    pub best: Option<OddSetDensity>,
    /// Whether the search finished: then `best` is exactly as in
    /// [`max_odd_density`]. When the deadline cut it short, `best` is still
    /// a valid odd set (its density is real) but a denser one may exist.
    /// Also false when the densest set's `E(S)` passes `u64` (it is then
    /// dropped, not saturated).
    pub complete: bool,
}

/// [`max_odd_density`] with a deadline, checked between max-flows. A cut-
/// short search returns the best set found so far (a valid lower bound)
/// and `complete: false`. Instances where the Gomory–Hu trees get expensive
/// are long odd cycles at high multiplicity and similar sparse, regular,
/// globally dense graphs: every vertex stays in play and each of the n-1
/// flows walks the whole graph.
pub fn max_odd_density_until(
    n: usize,
    edges: &[(u32, u32, u64)],
    delta: u64,
    deadline: Option<Instant>,
) -> OddSetSearch {
    search(n, edges, delta, Tuning::FULL, deadline)
}

/// Switches for the speed-ups that do not affect the answer (tests turn
/// them off to check the bare odd-cut / Dinkelbach loop on its own).
#[derive(Clone, Copy, Debug)]
struct Tuning {
    /// Start from the greedy peeling's best odd set.
    greedy_start: bool,
    /// Restrict to the `lambda/2`-core plus neighbours.
    prune: bool,
    /// Union-find shortcut in Gusfield's method.
    shortcut: bool,
    /// One connected component at a time; paths and cycles in closed form.
    components: bool,
    /// Each odd-cut test on the blocks, chains contracted.
    reduce: bool,
}

impl Tuning {
    const FULL: Tuning = Tuning {
        greedy_start: true,
        prune: true,
        shortcut: true,
        components: true,
        reduce: true,
    };
}

fn search(
    n: usize,
    edges: &[(u32, u32, u64)],
    delta: u64,
    tuning: Tuning,
    deadline: Option<Instant>,
) -> OddSetSearch {
    let none = OddSetSearch {
        best: None,
        complete: true,
    };
    let Some((g, deg)) = support(n, edges) else {
        return none;
    };
    let n = g.n();
    let dmax = deg.iter().copied().max().unwrap_or(0);
    let lambda0 = u128::from(delta).max(dmax);
    // Gamma <= Delta * |S| / (|S| - 1) <= 3/2 Delta: nothing can beat lambda0.
    if 2 * lambda0 >= dmax.saturating_mul(3) {
        return none;
    }
    // Overflow guard (module docs): everything stays below 4 (n+1) P.
    let nn = n as u128;
    let fits = nn
        .checked_mul(dmax)
        .map(|nd| nd.max(lambda0))
        .and_then(|p| p.checked_mul(4 * (nn + 1)))
        .is_some();
    if !fits {
        return none;
    }

    let mut lam = Ratio::new(lambda0, 1);
    let mut best: Option<(Vec<u32>, u128)> = None;
    let mut map = vec![NONE; n];

    // Greedy start: the best odd suffix of a min-degree peeling order.
    if tuning.greedy_start {
        if let Some((set, inside)) = peeling_candidate(&g, &deg) {
            let r = Ratio::new(2 * inside, set.len() as u128 - 1);
            if r.gt(lam) {
                lam = r;
                best = Some((set, inside));
            }
        }
    }

    // Invariant: while lambda < Gamma, a (smallest, hence connected) densest
    // odd set lies inside one vertex set on the stack. Components whose
    // support is a path or a cycle are settled in closed form (module docs).
    let mut stack: Vec<Vec<u32>> = Vec::new();
    if tuning.components {
        for comp in connected_components(&g) {
            if comp.len() < 3 {
                continue;
            }
            if comp.iter().all(|&v| g.nbrs(v as usize).len() <= 2) {
                let k = comp.len();
                let links: usize = comp.iter().map(|&v| g.nbrs(v as usize).len()).sum();
                if links == 2 * k && k % 2 == 1 {
                    let inside: u128 = comp.iter().map(|&v| deg[v as usize]).sum::<u128>() / 2;
                    let r = Ratio::new(2 * inside, k as u128 - 1);
                    if r.gt(lam) {
                        lam = r;
                        best = Some((comp, inside));
                    }
                }
            } else {
                stack.push(comp);
            }
        }
    } else {
        stack.push((0..n as u32).collect());
    }
    let mut pos: Vec<u32> = Vec::new();
    let mut complete = true;
    'search: while let Some(w) = stack.pop() {
        let owned;
        // Sets on the stack are sorted and distinct, so size n means 0..n.
        let sub = if w.len() == n {
            &g // the whole graph, in its own numbering
        } else {
            owned = g.induced(&w, &mut map);
            &owned
        };
        let (core, comps) = prune_and_split(sub, lam, tuning.prune);
        pos.clear();
        pos.resize(w.len(), NONE);
        for comp in comps {
            if comp.len() < 3 {
                continue;
            }
            let local = match violated_odd_set(sub, &core, &comp, lam, &mut pos, tuning, deadline) {
                Ok(Some(local)) => local,
                Ok(None) => continue,
                Err(Expired) => {
                    complete = false;
                    break 'search;
                }
            };
            let mut set: Vec<u32> = local.iter().map(|&v| w[v as usize]).collect();
            set.sort_unstable();
            let inside = g.inside(&set, &mut map);
            let r = Ratio::new(2 * inside, set.len() as u128 - 1);
            debug_assert!(r.gt(lam), "odd cut below lambda must give a denser set");
            if r.gt(lam) {
                lam = r;
                best = Some((set, inside));
                // Re-examine this component at the higher lambda.
                let mut again: Vec<u32> = comp.iter().map(|&v| w[v as usize]).collect();
                again.sort_unstable();
                stack.push(again);
            }
        }
    }
    OddSetSearch::of(best, complete)
}

impl OddSetSearch {
    /// The search's answer from its best set and `E(S)` (`u128`). An
    /// `E(S)` past `u64` is no witness (DESIGN.md §10): the set is dropped
    /// and the search says it is incomplete.
    fn of(best: Option<(Vec<u32>, u128)>, complete: bool) -> OddSetSearch {
        match best.map(|(slots, inside)| (slots, u64::try_from(inside))) {
            None => OddSetSearch {
                best: None,
                complete,
            },
            Some((slots, Ok(inside))) => OddSetSearch {
                best: Some(OddSetDensity { slots, inside }),
                complete,
            },
            Some((_, Err(_))) => OddSetSearch {
                best: None,
                complete: false,
            },
        }
    }
}

/// Brute-force reference for [`max_odd_density`]: enumerates every odd
/// vertex subset `S` with `|S| >= 3` and returns one of maximum density
/// `2E(S)/(|S|-1)` together with `E(S)` (ratios compared exactly by integer
/// cross-multiplication; ties go to the smaller set, then to the
/// lexicographically smaller sorted set). Unlike [`max_odd_density`] it does
/// not compare with any degree bound: it returns the best set even when its
/// density is small (even 0).
///
/// Invalid edges are ignored as in [`max_odd_density`]. Returns `None` when
/// `n < 3`, and also when `n > 20` (the enumeration is `O(n 2^n)` time and
/// `O(2^n)` memory; meant for `n <= 16`). `E(S)` saturates at `u64::MAX`.
pub fn brute_force_gamma(n: usize, edges: &[(u32, u32, u64)]) -> Option<(Vec<u32>, u64)> {
    if !(3..=20).contains(&n) {
        return None;
    }
    let mut w = vec![0u128; n * n];
    for &(a, b, m) in edges {
        let (a, b) = (a as usize, b as usize);
        if a != b && a < n && b < n && m > 0 {
            w[a * n + b] += u128::from(m);
            w[b * n + a] += u128::from(m);
        }
    }
    let full = 1usize << n;
    let mut e = vec![0u128; full];
    // (mask, E, size) of the best set so far.
    let mut best: Option<(usize, u128, u128)> = None;
    for mask in 1..full {
        let low = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        let mut s = e[rest];
        let mut r = rest;
        while r != 0 {
            let u = r.trailing_zeros() as usize;
            s += w[low * n + u];
            r &= r - 1;
        }
        e[mask] = s;
        let size = mask.count_ones() as u128;
        if size < 3 || size % 2 == 0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((bm, be, bs)) => {
                let lhs = 2 * s * (bs - 1);
                let rhs = 2 * be * (size - 1);
                // Equal size and density: the set holding the lowest vertex of
                // the symmetric difference is lexicographically smaller.
                lhs > rhs
                    || (lhs == rhs
                        && (size < bs
                            || (size == bs && mask & (1 << (mask ^ bm).trailing_zeros()) != 0)))
            }
        };
        if better {
            best = Some((mask, s, size));
        }
    }
    best.map(|(mask, s, _)| {
        let set = (0..n as u32).filter(|&v| mask & (1 << v) != 0).collect();
        (set, u64::try_from(s).unwrap_or(u64::MAX))
    })
}

const NONE: u32 = u32::MAX;

/// Non-negative rational `p/q` in lowest terms, `q >= 1`.
#[derive(Clone, Copy, Debug)]
struct Ratio {
    p: u128,
    q: u128,
}

impl Ratio {
    fn new(p: u128, q: u128) -> Self {
        let g = gcd(p, q);
        Ratio { p: p / g, q: q / g }
    }
    /// `self > other`, by cross-multiplication (within the documented bound).
    fn gt(self, other: Ratio) -> bool {
        self.p * other.q > other.p * self.q
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Simple weighted graph (parallel edges merged) in compressed adjacency
/// form ([`Adjacency`]: neighbour and weight per vertex).
struct Csr {
    adj: Adjacency<(u32, u128)>,
}

impl Csr {
    /// Merges the valid entries of `edges` into a simple weighted graph.
    fn from_edges(n: usize, edges: &[(u32, u32, u64)]) -> Self {
        let mut list: Vec<(u32, u32, u128)> = edges
            .iter()
            .filter(|&&(a, b, m)| a != b && (a as usize) < n && (b as usize) < n && m > 0)
            .map(|&(a, b, m)| (a.min(b), a.max(b), u128::from(m)))
            .collect();
        list.sort_unstable_by_key(|&(a, b, _)| (a, b));
        let mut merged: Vec<(u32, u32, u128)> = Vec::with_capacity(list.len());
        for (a, b, m) in list {
            match merged.last_mut() {
                Some(last) if last.0 == a && last.1 == b => last.2 += m,
                _ => merged.push((a, b, m)),
            }
        }
        Self::from_simple(n, &merged)
    }

    /// Builds the adjacency of a simple graph given as `(a, b, w)`, `a != b`.
    fn from_simple(n: usize, edges: &[(u32, u32, u128)]) -> Self {
        Csr {
            adj: Adjacency::of_edges(n, edges, |other, _, m| (other, m)),
        }
    }

    fn n(&self) -> usize {
        self.adj.n()
    }

    fn nbrs(&self, v: usize) -> &[(u32, u128)] {
        self.adj.row(v)
    }

    /// The subgraph induced by `verts` (vertex `i` of the result is
    /// `verts[i]`). `map` is scratch of length `n`, all `NONE`, and is
    /// restored.
    fn induced(&self, verts: &[u32], map: &mut [u32]) -> Csr {
        for (i, &v) in verts.iter().enumerate() {
            map[v as usize] = i as u32;
        }
        let seen: &[u32] = map;
        let adj = Adjacency::from_rows(verts.iter().map(|&v| {
            (self.nbrs(v as usize).iter())
                .filter(move |&&(u, _)| seen[u as usize] != NONE)
                .map(move |&(u, m)| (seen[u as usize], m))
        }));
        for &v in verts {
            map[v as usize] = NONE;
        }
        Csr { adj }
    }

    /// `E(set)`. `map` as in [`Csr::induced`].
    fn inside(&self, set: &[u32], map: &mut [u32]) -> u128 {
        for &v in set {
            map[v as usize] = 0;
        }
        let mut twice = 0u128;
        for &v in set {
            twice += self
                .nbrs(v as usize)
                .iter()
                .filter(|&&(u, _)| map[u as usize] != NONE)
                .map(|&(_, m)| m)
                .sum::<u128>();
        }
        for &v in set {
            map[v as usize] = NONE;
        }
        twice / 2
    }
}

/// Connected components of `g` with their slots in ascending order (a
/// connected graph gives `0..n`, which [`search`] takes without copying).
fn connected_components(g: &Csr) -> Vec<Vec<u32>> {
    let n = g.n();
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut comp = vec![root as u32];
        let mut i = 0;
        while i < comp.len() {
            let v = comp[i] as usize;
            i += 1;
            for &(u, _) in g.nbrs(v) {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    comp.push(u);
                }
            }
        }
        comp.sort_unstable();
        out.push(comp);
    }
    out
}

/// Greedy lower bound: peel a vertex of minimum current degree at a time
/// (ties: smallest id) and return the densest odd remainder (`|S| >= 3`)
/// seen, with its `E(S)`. `O(m log n)`.
fn peeling_candidate(g: &Csr, deg: &[u128]) -> Option<(Vec<u32>, u128)> {
    let n = g.n();
    let mut edges_left: u128 = deg.iter().sum::<u128>() / 2;
    let mut removed_at = vec![usize::MAX; n];
    let mut heap = IndexedHeap::new(deg.to_vec());
    // (E, size, step)
    let mut best: Option<(u128, u128, usize)> = None;
    let mut step = 0usize;
    while let Some(v) = heap.pop() {
        let left = (n - step) as u128;
        if left >= 3 && left % 2 == 1 {
            let better = match best {
                None => true,
                Some((be, bs, _)) => edges_left * (bs - 1) >= be * (left - 1),
            };
            if better {
                best = Some((edges_left, left, step));
            }
        }
        removed_at[v as usize] = step;
        step += 1;
        edges_left -= heap.key[v as usize];
        for &(u, m) in g.nbrs(v as usize) {
            if heap.contains(u) {
                heap.decrease(u, m);
            }
        }
    }
    let (inside, _, at) = best?;
    let set = (0..n as u32)
        .filter(|&v| removed_at[v as usize] >= at)
        .collect();
    Some((set, inside))
}

/// Binary min-heap of vertices ordered by `(key, id)`, with decrease-key.
struct IndexedHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<u128>,
}

impl IndexedHeap {
    fn new(key: Vec<u128>) -> Self {
        let n = key.len();
        let mut h = IndexedHeap {
            heap: (0..n as u32).collect(),
            pos: (0..n as u32).collect(),
            key,
        };
        for i in (0..n / 2).rev() {
            h.sift_down(i);
        }
        h
    }

    fn less(&self, a: u32, b: u32) -> bool {
        (self.key[a as usize], a) < (self.key[b as usize], b)
    }

    fn contains(&self, v: u32) -> bool {
        self.pos[v as usize] != NONE
    }

    fn place(&mut self, i: usize, v: u32) {
        self.heap[i] = v;
        self.pos[v as usize] = i as u32;
    }

    fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop()?;
        if !self.heap.is_empty() {
            self.place(0, last);
            self.sift_down(0);
        }
        self.pos[top as usize] = NONE;
        Some(top)
    }

    fn decrease(&mut self, v: u32, by: u128) {
        self.key[v as usize] -= by;
        let mut i = self.pos[v as usize] as usize;
        while i > 0 {
            let parent = (i - 1) / 2;
            let pv = self.heap[parent];
            if !self.less(v, pv) {
                break;
            }
            self.place(i, pv);
            i = parent;
        }
        self.place(i, v);
    }

    fn sift_down(&mut self, mut i: usize) {
        let v = self.heap[i];
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.less(self.heap[r], self.heap[l]) {
                r
            } else {
                l
            };
            if !self.less(self.heap[c], v) {
                break;
            }
            let cv = self.heap[c];
            self.place(i, cv);
            i = c;
        }
        self.place(i, v);
    }
}

/// Exact pruning (module docs): returns the `lambda/2`-core flags of `sub`
/// and the connected components of core-plus-neighbours, using only edges
/// with an end in the core (vertex ids of `sub`).
fn prune_and_split(sub: &Csr, lam: Ratio, prune: bool) -> (Vec<bool>, Vec<Vec<u32>>) {
    let k = sub.n();
    let mut d: Vec<u128> = (0..k)
        .map(|v| sub.nbrs(v).iter().map(|&(_, m)| m).sum())
        .collect();
    // Strict: a vertex with 2 d <= lambda is not needed (module docs).
    let low = |x: u128| prune && 2 * lam.q * x <= lam.p;
    let mut alive = vec![true; k];
    let mut queue: Vec<u32> = (0..k as u32).filter(|&v| low(d[v as usize])).collect();
    for &v in &queue {
        alive[v as usize] = false;
    }
    while let Some(v) = queue.pop() {
        for &(u, m) in sub.nbrs(v as usize) {
            let u = u as usize;
            if alive[u] {
                d[u] -= m;
                if low(d[u]) {
                    alive[u] = false;
                    queue.push(u as u32);
                }
            }
        }
    }
    let core = alive;
    let mut seen = vec![false; k];
    let mut comps = Vec::new();
    for root in 0..k {
        if !core[root] || seen[root] {
            continue;
        }
        seen[root] = true;
        let mut comp = vec![root as u32];
        let mut i = 0;
        while i < comp.len() {
            let v = comp[i] as usize;
            i += 1;
            for &(u, _) in sub.nbrs(v) {
                let u = u as usize;
                // Only edges touching the core are kept, so a non-core vertex
                // is entered but never expanded.
                if !seen[u] && (core[v] || core[u]) {
                    seen[u] = true;
                    comp.push(u as u32);
                }
            }
        }
        comps.push(comp);
    }
    (core, comps)
}

/// Runs the odd-cut test at `lam` on one component `comp` of the pruned
/// graph (ids of `sub`); returns the members (ids of `sub`) of the densest
/// odd set among the T-odd Gomory–Hu cuts below `lam`, or `None` if there is
/// none (then no odd subset of `comp` is denser than `lam`). With
/// `tuning.reduce` the test runs on each block, chains contracted (module
/// docs), else on the component as it is. `pos` is scratch of length
/// `sub.n()`, all `NONE`, and is restored.
fn violated_odd_set(
    sub: &Csr,
    core: &[bool],
    comp: &[u32],
    lam: Ratio,
    pos: &mut [u32],
    tuning: Tuning,
    deadline: Option<Instant>,
) -> Result<Option<Vec<u32>>, Expired> {
    let k = comp.len();
    for (i, &v) in comp.iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    let mut deg = vec![0u128; k];
    let mut inner: Vec<(u32, u32, u128)> = Vec::new();
    for &v in comp {
        let a = pos[v as usize];
        for &(u, m) in sub.nbrs(v as usize) {
            let b = pos[u as usize];
            if b != NONE && a < b && (core[v as usize] || core[u as usize]) {
                inner.push((a, b, m));
                deg[a as usize] += m;
                deg[b as usize] += m;
            }
        }
    }
    for &v in comp {
        pos[v as usize] = NONE;
    }
    let parts = if tuning.reduce {
        reduce::blocks(k, &inner)
    } else {
        vec![Part::whole(deg, inner)]
    };
    // (members, 2E, |S|) of the densest set; ties go to the smaller set,
    // then to the first part.
    let mut best: Option<(Vec<u32>, u128, u128)> = None;
    for part in &parts {
        let Some((set, two_e, s)) = densest_odd_cut(part, lam, tuning.shortcut, deadline)? else {
            continue;
        };
        let better = match &best {
            None => true,
            Some((_, be, bs)) => {
                let (l, r) = (two_e * (bs - 1), be * (s - 1));
                l > r || (l == r && s < *bs)
            }
        };
        if better {
            best = Some((set, two_e, s));
        }
    }
    Ok(best.map(|(set, _, _)| set.iter().map(|&v| comp[v as usize]).collect()))
}

/// The odd-cut test on one [`Part`]: the members (component ids), `2E(S)`
/// and `|S|` of the densest set `S` among the T-odd fundamental cuts of a
/// Gomory–Hu tree of the part plus `t` whose value is below `lam`, `T`
/// being the part's vertices that stand for an odd number of slots.
fn densest_odd_cut(
    part: &Part,
    lam: Ratio,
    shortcut: bool,
    deadline: Option<Instant>,
) -> Result<Option<(Vec<u32>, u128, u128)>, Expired> {
    let k = part.len();
    // Arcs to t first: augmenting paths into t are then found at once.
    let mut fedges: Vec<(u32, u32, u128)> = Vec::with_capacity(k + part.edges.len());
    for x in 0..k {
        // lam >= every degree, so this is >= 0 (Part's docs).
        let c = lam.p * part.weight(x) - lam.q * part.degree_sum[x];
        if c > 0 {
            fedges.push((0, x as u32 + 1, c));
        }
    }
    fedges.extend(
        part.edges
            .iter()
            .map(|&(a, b, m)| (a + 1, b + 1, lam.q * m)),
    );
    // Capacities in u64 when every value provably fits (the usual case),
    // else u128: arcs <= cmax, residuals <= 2 cmax, node totals <= k p.
    let cmax = fedges.iter().map(|e| e.2).max().unwrap_or(0).max(lam.p);
    let small = (k as u128 + 1)
        .checked_mul(cmax)
        .and_then(|x| x.checked_mul(4))
        .is_some_and(|x| x <= u128::from(u64::MAX));
    let theta = Some(lam.p).filter(|_| shortcut);
    let (par, fl, complete) = if small {
        let mut net = FlowNet::<u64>::new(k + 1, &fedges);
        net.deadline = deadline;
        gusfield(&mut net, theta)
    } else {
        let mut net = FlowNet::<u128>::new(k + 1, &fedges);
        net.deadline = deadline;
        gusfield(&mut net, theta)
    };
    if !complete {
        return Err(Expired);
    }

    // Root the tree at t = 0; a tree edge (i, par[i]) is T-odd iff the
    // subtree of i (which never contains t) stands for an odd number of
    // slots, and that number is |S|.
    let mut children = vec![Vec::new(); k + 1];
    for i in 1..=k {
        children[par[i]].push(i);
    }
    let mut order = vec![0usize];
    let mut i = 0;
    while i < order.len() {
        let v = order[i];
        i += 1;
        order.extend_from_slice(&children[v]);
    }
    let mut size: Vec<u128> = std::iter::once(0)
        .chain((0..k).map(|x| part.weight(x)))
        .collect();
    for &v in order.iter().rev() {
        if v != 0 {
            size[par[v]] += size[v];
        }
    }
    // Densest candidate: 2E(S) = (p|S| - cut(S)) / q for a fundamental cut.
    let mut best: Option<(usize, u128, u128)> = None; // (node, 2E, |S|)
    for i in 1..=k {
        let s = size[i];
        if fl[i] >= lam.p || s < 3 || s % 2 == 0 {
            continue;
        }
        let num = lam.p * s - fl[i];
        if num % lam.q != 0 {
            debug_assert!(false, "Gomory-Hu cut value inconsistent");
            continue;
        }
        let two_e = num / lam.q;
        let better = match best {
            None => true,
            Some((_, be, bs)) => {
                let (l, r) = (two_e * (bs - 1), be * (s - 1));
                l > r || (l == r && s < bs)
            }
        };
        if better {
            best = Some((i, two_e, s));
        }
    }
    let Some((root, two_e, s)) = best else {
        return Ok(None);
    };
    let mut members = Vec::new();
    let mut todo = vec![root];
    while let Some(v) = todo.pop() {
        members.extend_from_slice(part.members(v - 1));
        todo.extend_from_slice(&children[v]);
    }
    Ok(Some((members, two_e, s)))
}

use crate::graph::Adjacency;
use std::time::Instant;

mod flow;
mod reduce;
#[cfg(test)]
mod tests;

use flow::{gusfield, FlowNet};
use reduce::Part;
