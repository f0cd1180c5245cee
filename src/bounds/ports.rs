//! Lower bounds for multi-port slots (DESIGN.md §11), each with a witness.
//!
//! With `ports(v)` transfers per slot and tick, a tick is an *f-matching*
//! (f = ports) and the fractional f-chromatic index is the larger of
//!
//! - the port degree `max_v d(v) / ports(v)` (READ1_WRITE1: per direction),
//!   witnessed by [`Witness::PortDegree`];
//! - for STRICT1, the odd-port density `max_S E(S) / floor(ports(S)/2)` over
//!   slot sets `S` whose ports add up to an odd number (a tick carries at
//!   most `floor(ports(S)/2)` transfers inside `S`), witnessed by
//!   [`Witness::OddPortSet`].
//!
//! These are the facets of the uncapacitated b-matching polytope (Edmonds;
//! Pulleyblank), so their maximum is the best fractional bound: ticks are
//! at least its ceiling. READ1_WRITE1 always reaches the port degree bound
//! (port splitting and König), so there the bound is complete.
//!
//! # The odd-port density, exactly
//!
//! The odd-cut method of [`super::gamma`] carries over with capacities: for
//! `lambda = P/Q >= max_v d(v)/ports(v)`, join a vertex `t` to every slot
//! `v` with capacity `lambda ports(v) - d(v) >= 0`. A set `S` without `t`
//! then has cut `lambda ports(S) - 2E(S)`, below `lambda` iff
//! `2E(S) > lambda (ports(S) - 1)`; a singleton's cut is
//! `lambda ports(v) >= lambda`, so a cut below `lambda` has `ports(S) >= 3`. "ports(S) odd"
//! is "the cut is T-odd" for `T` = the slots with an odd number of ports
//! (plus `t` to make `|T|` even), and a minimum T-odd cut is a fundamental
//! cut of a Gomory–Hu tree (Padberg and Rao, 1982). The tree is built by
//! Gusfield's method (n max-flows, petgraph's Dinic) on capacities scaled by
//! `Q` (integers, `u128`, checked); each violated set raises `lambda` to its
//! own density (Dinkelbach) until no T-odd cut is below `lambda`. Every set
//! found is re-measured from the data, so a wrong cut could only cost
//! tightness, never soundness; the tests compare with brute force.
//!
//! Cost: each round is `n` max-flows on `n+1` vertices and the graph's
//! edges; rounds are few (each strictly raises `lambda`). A deadline cuts
//! the search short and leaves `complete = false`.

use super::witness::Direction;
use super::{checked_sum, Bounds, LowerBound, Witness};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model, Slot};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::time::Instant;

/// Port degree bound `max_v ceil(d(v)/ports(v))` (READ1_WRITE1: the larger
/// direction), with the lowest slot attaining it as witness.
pub fn port_degree_bound(inst: &Instance, g: &DemandGraph) -> LowerBound {
    let mut best: Option<LowerBound> = None;
    for v in 0..inst.slots as usize {
        let p = inst.port(v);
        let sides: &[(u64, Direction)] = match inst.model {
            Model::Strict1 => &[(g.out_degree[v] + g.in_degree[v], Direction::Both)],
            Model::Read1Write1 => &[
                (g.out_degree[v], Direction::Out),
                (g.in_degree[v], Direction::In),
            ],
        };
        for &(chunks, direction) in sides {
            let bound = chunks.div_ceil(p as u64);
            if chunks > 0 && best.as_ref().is_none_or(|b| bound > b.ticks) {
                best = Some(LowerBound {
                    ticks: bound,
                    witness: Witness::PortDegree {
                        slot: v as Slot,
                        chunks,
                        ports: p,
                        direction,
                        bound,
                    },
                });
            }
        }
    }
    best.unwrap_or(LowerBound {
        ticks: 0,
        witness: Witness::Empty,
    })
}

/// A slot set with an odd number of ports, and its chunks inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddPortSet {
    /// The slots, ascending.
    pub slots: Vec<Slot>,
    /// Chunks with both ends in the set.
    pub inside: u64,
    /// Sum of the set's ports (odd, >= 3).
    pub ports: u64,
}

impl OddPortSet {
    /// `ceil(inside / floor(ports/2))`.
    pub fn bound(&self) -> u64 {
        self.inside.div_ceil(self.ports / 2)
    }

    fn lower_bound(&self) -> LowerBound {
        LowerBound {
            ticks: self.bound(),
            witness: Witness::OddPortSet {
                slots: self.slots.clone(),
                chunks_inside: self.inside,
                ports_total: self.ports,
                bound: self.bound(),
            },
        }
    }
}

/// Result of [`max_odd_port_density`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddPortSearch {
    /// The densest set found whose density beats the port degree ratio.
    pub best: Option<OddPortSet>,
    /// Whether the search finished (else `best` is valid but maybe not the densest).
    pub complete: bool,
}

/// The odd-port set of largest density `2E(S)/(ports(S)-1)`, when it is
/// above `max_v d(v)/ports(v)` (`best = None` otherwise). `edges` are the
/// STRICT1 multigraph's `(a, b, chunks)`, `ports[v] >= 1`. Exact (see the
/// module docs); `None` with `complete = false` on a deadline or on numbers
/// that do not fit in `u128`.
pub fn max_odd_port_density(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    deadline: Option<Instant>,
) -> OddPortSearch {
    let n = ports.len();
    let mut deg = vec![0u128; n];
    for &(a, b, m) in edges {
        deg[a as usize] += m as u128;
        deg[b as usize] += m as u128;
    }
    // lambda = p/q starts at the largest d(v)/ports(v).
    let (mut p, mut q) = (0u128, 1u128);
    for v in 0..n {
        if deg[v] * q > p * ports[v] as u128 {
            (p, q) = (deg[v], ports[v] as u128);
        }
    }
    let mut best: Option<OddPortSet> = None;
    // No slot with an odd number of ports: no set has odd ports.
    if p == 0 || ports.iter().all(|&k| k % 2 == 0) {
        return OddPortSearch {
            best,
            complete: true,
        };
    }
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return OddPortSearch {
                best,
                complete: false,
            };
        }
        let Some(candidates) = violated_sets(ports, edges, &deg, p, q, deadline) else {
            return OddPortSearch {
                best,
                complete: false,
            };
        };
        // The densest candidate, if it beats lambda.
        let mut improved = false;
        for set in candidates {
            let (num, den) = (2 * set.inside as u128, set.ports as u128 - 1);
            if num * q > p * den {
                let g = gcd(num, den);
                (p, q) = (num / g, den / g);
                best = Some(set);
                improved = true;
            }
        }
        if !improved {
            return OddPortSearch {
                best,
                complete: true,
            };
        }
    }
}

/// The slot sets of T-odd fundamental cuts of a Gomory–Hu tree whose cut is
/// below `lambda = p/q`, each re-measured from the data. `None` on overflow
/// or deadline.
fn violated_sets(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    deg: &[u128],
    p: u128,
    q: u128,
    deadline: Option<Instant>,
) -> Option<Vec<OddPortSet>> {
    let n = ports.len();
    let t = n; // the extra vertex
    let mut graph: DiGraph<(), u128> = DiGraph::with_capacity(n + 1, 2 * (edges.len() + n));
    for _ in 0..=n {
        graph.add_node(());
    }
    for &(a, b, m) in edges {
        let c = (m as u128).checked_mul(q)?;
        graph.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), c);
        graph.add_edge(NodeIndex::new(b as usize), NodeIndex::new(a as usize), c);
    }
    for v in 0..n {
        let c = p
            .checked_mul(ports[v] as u128)?
            .checked_sub(deg[v].checked_mul(q)?)?;
        if c > 0 {
            graph.add_edge(NodeIndex::new(v), NodeIndex::new(t), c);
            graph.add_edge(NodeIndex::new(t), NodeIndex::new(v), c);
        }
    }
    let tree = gusfield(&graph, t, deadline)?;
    // Subtree of each vertex below its tree edge, with t as the root.
    let nn = n + 1;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nn];
    for v in 0..nn {
        if v != t {
            children[tree.parent[v]].push(v);
        }
    }
    let mut order = vec![t];
    let mut i = 0;
    while i < order.len() {
        let v = order[i];
        order.extend(children[v].iter().copied());
        i += 1;
    }
    let mut odd = vec![0u32; nn];
    for &v in order.iter().rev() {
        let own = if v != t { ports[v] % 2 } else { 0 };
        odd[v] = (own + children[v].iter().map(|&c| odd[c]).sum::<u32>()) % 2;
    }
    let mut sets = Vec::new();
    for (v, &parity) in odd.iter().enumerate().take(n) {
        if parity == 1 && tree.cut[v] < p {
            let mut members = Vec::new();
            let mut stack = vec![v];
            while let Some(u) = stack.pop() {
                members.push(u as Slot);
                stack.extend(children[u].iter().copied());
            }
            members.sort_unstable();
            sets.push(measure(ports, edges, members)?);
        }
    }
    Some(sets)
}

/// The set's ports and inside chunks, from the data; `None` when a count
/// passes `u64` (no witness states a wrapped count, DESIGN.md §10).
fn measure(ports: &[u32], edges: &[(u32, u32, u64)], slots: Vec<Slot>) -> Option<OddPortSet> {
    let mut inside = vec![false; ports.len()];
    for &s in &slots {
        inside[s as usize] = true;
    }
    let e = checked_sum(
        edges
            .iter()
            .filter(|&&(a, b, _)| inside[a as usize] && inside[b as usize])
            .map(|&(_, _, m)| m),
    )?;
    let pt = checked_sum(slots.iter().map(|&s| u64::from(ports[s as usize])))?;
    Some(OddPortSet {
        slots,
        inside: e,
        ports: pt,
    })
}

/// A Gomory–Hu cut tree: `parent[v]` and the minimum cut `cut[v]` between
/// `v` and its parent, the root being `root`.
struct CutTree {
    parent: Vec<usize>,
    cut: Vec<u128>,
}

/// Gusfield's cut-tree algorithm (1990): `n - 1` max-flows, no contraction.
fn gusfield(graph: &DiGraph<(), u128>, root: usize, deadline: Option<Instant>) -> Option<CutTree> {
    let nn = graph.node_count();
    // Work in an order where the root comes first.
    let order: Vec<usize> = std::iter::once(root)
        .chain((0..nn).filter(|&v| v != root))
        .collect();
    let mut parent = vec![root; nn];
    let mut cut = vec![0u128; nn];
    for &s in &order[1..] {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let tp = parent[s];
        let (value, side) = min_cut(graph, s, tp);
        cut[s] = value;
        for i in 0..nn {
            if i != s && side[i] && parent[i] == tp {
                parent[i] = s;
            }
        }
        if tp != root && side[parent[tp]] {
            parent[s] = parent[tp];
            parent[tp] = s;
            cut[s] = cut[tp];
            cut[tp] = value;
        }
    }
    Some(CutTree { parent, cut })
}

/// Max-flow value between `s` and `t` and the source side of a minimum cut
/// (vertices reachable from `s` in the residual graph).
fn min_cut(graph: &DiGraph<(), u128>, s: usize, t: usize) -> (u128, Vec<bool>) {
    let (value, flows) = petgraph::algo::dinics(graph, NodeIndex::new(s), NodeIndex::new(t));
    let nn = graph.node_count();
    let mut seen = vec![false; nn];
    seen[s] = true;
    let mut stack = vec![s];
    while let Some(u) = stack.pop() {
        let ui = NodeIndex::new(u);
        for e in graph.edges_directed(ui, petgraph::Direction::Outgoing) {
            let w = e.target().index();
            if !seen[w] && flows[e.id().index()] < *e.weight() {
                seen[w] = true;
                stack.push(w);
            }
        }
        for e in graph.edges_directed(ui, petgraph::Direction::Incoming) {
            let w = e.source().index();
            if !seen[w] && flows[e.id().index()] > 0 {
                seen[w] = true;
                stack.push(w);
            }
        }
    }
    (value, seen)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Brute force over all slot sets (for tests; `n` up to about 16): the
/// largest `ceil(E(S)/floor(ports(S)/2))` over sets with odd ports >= 3,
/// as `(E, ports)` of a densest set, compared by `2E/(ports-1)`.
pub fn brute_force_odd_port_density(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
) -> Option<(u64, u64)> {
    let n = ports.len();
    assert!(n <= 20, "brute force is for small instances");
    let mut best: Option<(u64, u64)> = None;
    for mask in 1u32..(1 << n) {
        let pt: u64 = (0..n)
            .filter(|&v| mask >> v & 1 == 1)
            .map(|v| ports[v] as u64)
            .sum();
        if pt % 2 == 0 || pt < 3 {
            continue;
        }
        let e: u64 = edges
            .iter()
            .filter(|&&(a, b, _)| mask >> a & 1 == 1 && mask >> b & 1 == 1)
            .map(|&(_, _, m)| m)
            .sum();
        let better = match best {
            None => e > 0,
            Some((be, bp)) => 2 * e as u128 * (bp as u128 - 1) > 2 * be as u128 * (pt as u128 - 1),
        };
        if better {
            best = Some((e, pt));
        }
    }
    best
}

/// All bounds of a multi-port instance: port degree, and for STRICT1 the
/// exact odd-port bound (cut short by `deadline`, then `complete = false`).
pub fn port_bounds(inst: &Instance, g: &DemandGraph, deadline: Option<Instant>) -> Bounds {
    let degree = port_degree_bound(inst, g);
    let mut best = degree.clone();
    let (mut odd_set, mut complete) = (None, true);
    if inst.model == Model::Strict1 {
        let ports: Vec<u32> = (0..inst.slots as usize).map(|v| inst.port(v)).collect();
        let edges = g.edge_triples();
        let search = max_odd_port_density(&ports, &edges, deadline);
        complete = search.complete;
        if let Some(set) = search.best {
            let lb = set.lower_bound();
            debug_assert_eq!(lb.witness.recompute(inst).ok(), Some(lb.ticks));
            if lb.ticks > best.ticks {
                best = lb.clone();
            }
            odd_set = Some(lb);
        }
    }
    Bounds {
        model: inst.model,
        degree,
        capacity: None,
        odd_set,
        best,
        complete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_set_whose_inside_count_passes_u64_is_not_measured() {
        let ports = [1, 1, 1];
        let edges = [(0, 1, u64::MAX), (1, 2, 1)];
        assert_eq!(measure(&ports, &edges, vec![0, 1, 2]), None);
        let fits = [(0, 1, u64::MAX - 1), (1, 2, 1)];
        assert_eq!(
            measure(&ports, &fits, vec![0, 1, 2]),
            Some(OddPortSet {
                slots: vec![0, 1, 2],
                inside: u64::MAX,
                ports: 3
            })
        );
    }

    fn random_case() -> impl Strategy<Value = (Vec<u32>, Vec<(u32, u32, u64)>)> {
        (3usize..9).prop_flat_map(|n| {
            (
                proptest::collection::vec(1u32..4, n),
                proptest::collection::vec((0..n as u32, 0..n as u32, 1u64..6), 1..20),
            )
                .prop_map(|(ports, raw)| {
                    let mut edges: Vec<(u32, u32, u64)> = raw
                        .into_iter()
                        .filter(|(a, b, _)| a != b)
                        .map(|(a, b, m)| (a.min(b), a.max(b), m))
                        .collect();
                    edges.sort_unstable();
                    edges.dedup_by(|x, y| {
                        if x.0 == y.0 && x.1 == y.1 {
                            y.2 += x.2;
                            true
                        } else {
                            false
                        }
                    });
                    (ports, edges)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The exact search finds the brute-force density whenever it beats
        /// the port degree ratio, and only sets that really are that dense.
        #[test]
        fn odd_port_density_matches_brute_force((ports, edges) in random_case()) {
            let n = ports.len();
            let mut deg = vec![0u128; n];
            for &(a, b, m) in &edges {
                deg[a as usize] += m as u128;
                deg[b as usize] += m as u128;
            }
            let (mut dp, mut dq) = (0u128, 1u128);
            for v in 0..n {
                if deg[v] * dq > dp * ports[v] as u128 {
                    (dp, dq) = (deg[v], ports[v] as u128);
                }
            }
            let found = max_odd_port_density(&ports, &edges, None);
            prop_assert!(found.complete);
            let brute = brute_force_odd_port_density(&ports, &edges);
            let brute_beats = brute.is_some_and(|(e, pt)| 2 * e as u128 * dq > dp * (pt as u128 - 1));
            match (&found.best, brute) {
                (None, _) => prop_assert!(!brute_beats, "missed a dense odd-port set: {brute:?}"),
                (Some(s), Some((e, pt))) => {
                    prop_assert!(brute_beats);
                    prop_assert_eq!(2 * s.inside as u128 * (pt as u128 - 1), 2 * e as u128 * (s.ports as u128 - 1));
                    prop_assert_eq!(Some(s.clone()), measure(&ports, &edges, s.slots.clone()));
                    prop_assert!(s.ports % 2 == 1 && s.ports >= 3);
                }
                (Some(s), None) => prop_assert!(false, "found {s:?}, brute force none"),
            }
        }
    }

    #[test]
    fn triangle_of_one_port_slots_is_the_odd_set_bound() {
        // K3 with 2 chunks per edge, one port each: Gamma = 2*6/2 = 6 > Delta = 4.
        let found = max_odd_port_density(&[1, 1, 1], &[(0, 1, 2), (0, 2, 2), (1, 2, 2)], None);
        let s = found.best.unwrap();
        assert_eq!(
            (s.slots.clone(), s.inside, s.ports, s.bound()),
            (vec![0, 1, 2], 6, 3, 6)
        );
    }

    #[test]
    fn two_ports_each_make_the_triangle_even() {
        // ports(S) = 6 is even: no odd-port set, the degree ratio 4/2 rules.
        let found = max_odd_port_density(&[2, 2, 2], &[(0, 1, 2), (0, 2, 2), (1, 2, 2)], None);
        assert_eq!(found.best, None);
        // Ports 1,1,3: S = all has 5 ports, floor 2 per tick, 6 chunks: 3 ticks
        // against a degree ratio of 4 at slots 0 and 1. Not denser.
        let found = max_odd_port_density(&[1, 1, 3], &[(0, 1, 2), (0, 2, 2), (1, 2, 2)], None);
        assert_eq!(found.best, None);
    }
}
