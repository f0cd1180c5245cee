//! The chunk multigraph of an instance, per model.
//!
//! STRICT1 sees an undirected multigraph: edge `{a,b}` has multiplicity
//! `m(a->b) + m(b->a)` (both directions compete for the same two slots).
//! READ1_WRITE1 sees a bipartite multigraph senders x receivers whose edges
//! are the demands themselves. Degrees are in chunks.
//!
//! [`Adjacency`] is the one compressed adjacency (CSR) of the crate: the
//! neighbours or incident edges of each vertex, built by a counting sort,
//! for every module that walks them (bipartite sides, structure
//! colouring, the odd-set search, factor peeling).

use crate::instance::{Instance, Model, Slot};

/// The one or two demands of an undirected edge.
pub type EdgeDemands = smallvec::SmallVec<[(u32, u64); 2]>;

/// An undirected STRICT1 edge: the demands `a->b` and/or `b->a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndirectedEdge {
    pub a: Slot,
    pub b: Slot,
    /// Chunks of both directions together.
    pub mult: u64,
    /// Demand indices of `a->b` and `b->a` (either may be absent), with
    /// their chunks; stored inline (no allocation per edge).
    pub demands: EdgeDemands,
}

/// The chunk multigraph of an instance: degrees at once, STRICT1's
/// undirected edges when first asked for (the planner's first fit needs
/// only the degrees).
#[derive(Clone, Debug)]
pub struct DemandGraph<'a> {
    inst: &'a Instance,
    pub model: Model,
    pub slots: u32,
    /// STRICT1 edges with `a < b`, sorted; empty for READ1_WRITE1.
    undirected: std::sync::OnceLock<Vec<UndirectedEdge>>,
    /// Chunks sent by each slot.
    pub out_degree: Vec<u64>,
    /// Chunks received by each slot.
    pub in_degree: Vec<u64>,
}

/// A compressed adjacency (CSR) over vertices `0..n`: vertex `v`'s
/// entries are one slice, in the order they were given (a stable counting
/// sort). O(n + entries) time and memory, two allocations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjacency<T> {
    start: Vec<usize>,
    items: Vec<T>,
}

impl<T: Copy + Default> Adjacency<T> {
    /// From `(v, item)` entries, every `v < n`; the iterator is walked
    /// twice (once to count, once to fill).
    pub fn from_entries<I>(n: usize, entries: I) -> Adjacency<T>
    where
        I: IntoIterator<Item = (u32, T)>,
        I::IntoIter: Clone,
    {
        let entries = entries.into_iter();
        let mut start = vec![0usize; n + 1];
        for (v, _) in entries.clone() {
            start[v as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut items = vec![T::default(); start[n]];
        for (v, item) in entries {
            items[fill[v as usize]] = item;
            fill[v as usize] += 1;
        }
        Adjacency { start, items }
    }

    /// Both ends of every undirected edge of `edges` (`(a, b, x)` in
    /// order): `item(b, e, x)` at `a`, then `item(a, e, x)` at `b`, where
    /// `e` is the edge's index.
    pub fn of_edges<'e, X: Copy + 'e>(
        n: usize,
        edges: &'e [(u32, u32, X)],
        item: impl Fn(u32, u32, X) -> T + Copy,
    ) -> Adjacency<T> {
        let both = edges.iter().enumerate().flat_map(move |(e, &(a, b, x))| {
            let e = e as u32;
            [(a, item(b, e, x)), (b, item(a, e, x))]
        });
        Adjacency::from_entries(n, both)
    }
}

impl<T> Adjacency<T> {
    /// From rows given one after another (row `v` is the `v`-th).
    pub fn from_rows<R: IntoIterator<Item = T>>(rows: impl IntoIterator<Item = R>) -> Self {
        let mut start = vec![0];
        let mut items = Vec::new();
        for row in rows {
            items.extend(row);
            start.push(items.len());
        }
        Adjacency { start, items }
    }

    /// The number of vertices.
    pub fn n(&self) -> usize {
        self.start.len() - 1
    }

    /// The entries of `v`.
    pub fn row(&self, v: usize) -> &[T] {
        &self.items[self.start[v]..self.start[v + 1]]
    }

    /// The number of entries of `v`.
    pub fn len_of(&self, v: usize) -> usize {
        self.start[v + 1] - self.start[v]
    }

    /// The positions of `v`'s entries in [`Adjacency::at`]'s numbering (a
    /// walk that keeps its place in a row as a position).
    pub fn positions(&self, v: usize) -> std::ops::Range<usize> {
        self.start[v]..self.start[v + 1]
    }

    /// The entry at position `p`.
    pub fn at(&self, p: usize) -> &T {
        &self.items[p]
    }
}

/// The STRICT1 edges of `inst`, sorted by `(a, b)`, each listing `a->b`
/// before `b->a`.
///
/// Demands come sorted by `(src, dst)`, so no sort is needed: the edges at
/// `a` are the merge of two runs sorted by `b`, the demands `a->b` with
/// `b > a` (the tail of `a`'s row) and the demands `b->a` with `b > a`
/// (a counting sort by destination, filled in demand order, keeps them by
/// source). O(demands + slots) time, one allocation per edge.
fn undirected_edges(inst: &Instance) -> Vec<UndirectedEdge> {
    let n = inst.slots as usize;
    let demands = inst.demands();
    // The demands `b->a` with `b > a`, at `a`, in demand order (so by `b`).
    let from_above: Adjacency<u32> = Adjacency::from_entries(
        n,
        (demands.iter().enumerate())
            .filter(|(_, d)| d.src > d.dst)
            .map(|(i, d)| (d.dst, i as u32)),
    );
    let part = |i: usize| (i as u32, inst.chunks(i));
    let mut edges = Vec::with_capacity(demands.len());
    let mut row = 0;
    for a in 0..n {
        let row_end = row + demands[row..].partition_point(|d| d.src as usize == a);
        let mut p = row + demands[row..row_end].partition_point(|d| (d.dst as usize) < a);
        let above = from_above.row(a);
        let mut q = 0;
        let a = a as Slot;
        loop {
            let out = (p < row_end).then(|| demands[p].dst);
            let back = above.get(q).map(|&i| demands[i as usize].src);
            let (take_out, take_back) = match (out, back) {
                (None, None) => break,
                (Some(b), Some(c)) => (b <= c, c <= b),
                (o, c) => (o.is_some(), c.is_some()),
            };
            let mut parts = EdgeDemands::new();
            let b = if take_out { out } else { back }.expect("one run is not empty");
            if take_out {
                parts.push(part(p));
                p += 1;
            }
            if take_back {
                parts.push(part(above[q] as usize));
                q += 1;
            }
            edges.push(UndirectedEdge {
                a,
                b,
                mult: parts.iter().map(|&(_, c)| c).sum(),
                demands: parts,
            });
        }
        row = row_end;
    }
    edges
}

/// Chunks sent and received by each slot of `inst`.
fn slot_degrees(inst: &Instance) -> (Vec<u64>, Vec<u64>) {
    let n = inst.slots as usize;
    let mut out_degree = vec![0u64; n];
    let mut in_degree = vec![0u64; n];
    for (i, d) in inst.demands().iter().enumerate() {
        out_degree[d.src as usize] += inst.chunks(i);
        in_degree[d.dst as usize] += inst.chunks(i);
    }
    (out_degree, in_degree)
}

impl<'a> DemandGraph<'a> {
    /// The graph of `inst` with its slot degrees given (kept up to date by
    /// a caller that edits the instance, [`crate::solve::replan`]): what
    /// [`DemandGraph::new`] would count (checked in debug builds).
    pub fn with_degrees(
        inst: &'a Instance,
        out_degree: Vec<u64>,
        in_degree: Vec<u64>,
    ) -> DemandGraph<'a> {
        debug_assert!(slot_degrees(inst) == (out_degree.clone(), in_degree.clone()));
        DemandGraph::assembled(inst, (out_degree, in_degree))
    }

    pub fn new(inst: &'a Instance) -> DemandGraph<'a> {
        DemandGraph::assembled(inst, slot_degrees(inst))
    }

    fn assembled(inst: &'a Instance, (out_degree, in_degree): (Vec<u64>, Vec<u64>)) -> Self {
        DemandGraph {
            inst,
            model: inst.model,
            slots: inst.slots,
            undirected: std::sync::OnceLock::new(),
            out_degree,
            in_degree,
        }
    }

    /// STRICT1 edges with `a < b`, sorted (built on the first call); empty
    /// for READ1_WRITE1.
    pub fn undirected(&self) -> &[UndirectedEdge] {
        self.undirected.get_or_init(|| match self.model {
            Model::Strict1 => undirected_edges(self.inst),
            Model::Read1Write1 => Vec::new(),
        })
    }

    /// Degree of slot `v` under the model: sends + receives for STRICT1,
    /// the larger of the two for READ1_WRITE1.
    pub fn degree(&self, v: usize) -> u64 {
        match self.model {
            Model::Strict1 => self.out_degree[v] + self.in_degree[v],
            Model::Read1Write1 => self.out_degree[v].max(self.in_degree[v]),
        }
    }

    /// Whether every slot has the same degree (uniform all-to-all
    /// traffic, where first fit in demand order tends to leave chunks;
    /// skewed traffic is not regular).
    pub fn is_regular(&self) -> bool {
        let mut degrees = (0..self.slots as usize).map(|v| self.degree(v));
        let first = degrees.next();
        degrees.all(|d| Some(d) == first)
    }

    /// The undirected edges as `(a, b, chunks)`, the form the colouring and
    /// odd-set code take.
    pub fn edge_triples(&self) -> Vec<(u32, u32, u64)> {
        self.undirected()
            .iter()
            .map(|e| (e.a, e.b, e.mult))
            .collect()
    }

    /// The maximum degree Delta and the lowest slot attaining it.
    pub fn max_degree(&self) -> (u64, Slot) {
        (0..self.slots as usize)
            .map(|v| (self.degree(v), v as Slot))
            .fold(
                (0, 0),
                |best, (d, v)| if d > best.0 { (d, v) } else { best },
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};
    use proptest::prelude::*;

    /// The edges as a sort of all demands by `(a, b, index)` lists them
    /// (an obviously correct reference for [`undirected_edges`]).
    fn sorted_reference(inst: &Instance) -> Vec<UndirectedEdge> {
        let mut keyed: Vec<(Slot, Slot, u32, u64)> = inst
            .demands()
            .iter()
            .enumerate()
            .map(|(i, d)| (d.src.min(d.dst), d.src.max(d.dst), i as u32, inst.chunks(i)))
            .collect();
        keyed.sort_unstable();
        let mut out: Vec<UndirectedEdge> = Vec::new();
        for (a, b, i, c) in keyed {
            match out.last_mut() {
                Some(e) if e.a == a && e.b == b => {
                    e.mult += c;
                    e.demands.push((i, c));
                }
                _ => out.push(UndirectedEdge {
                    a,
                    b,
                    mult: c,
                    demands: smallvec::smallvec![(i, c)],
                }),
            }
        }
        out
    }

    /// Entries land in their vertex's row in the order given; both ends
    /// of an edge are listed, `a`'s first; rows can be given whole.
    #[test]
    fn adjacency_rows_keep_the_order_given() {
        let adj: Adjacency<u32> =
            Adjacency::from_entries(4, [(2, 7), (0, 5), (2, 1), (3, 9), (2, 4)]);
        assert_eq!(adj.n(), 4);
        let rows: Vec<&[u32]> = (0..4).map(|v| adj.row(v)).collect();
        assert_eq!(rows, [&[5][..], &[], &[7, 1, 4], &[9]]);
        assert_eq!((adj.len_of(1), adj.len_of(2)), (0, 3));
        assert_eq!(
            adj.positions(2).map(|p| *adj.at(p)).collect::<Vec<_>>(),
            [7, 1, 4]
        );
        let edges = [(0u32, 1u32, 'x'), (1, 2, 'y'), (0, 2, 'z')];
        let inc: Adjacency<(u32, u32, char)> = Adjacency::of_edges(3, &edges, |o, e, x| (o, e, x));
        assert_eq!(inc.row(0), [(1, 0, 'x'), (2, 2, 'z')]);
        assert_eq!(inc.row(1), [(0, 0, 'x'), (2, 1, 'y')]);
        assert_eq!(inc.row(2), [(1, 1, 'y'), (0, 2, 'z')]);
        let rows = Adjacency::from_rows([vec![3u8], vec![], vec![1, 2]]);
        assert_eq!(
            (rows.row(0), rows.row(1), rows.row(2)),
            (&[3u8][..], &[][..], &[1u8, 2][..])
        );
    }

    proptest! {
        #[test]
        fn strict1_edges_match_a_sort_of_all_demands(
            n in 2u32..14,
            pairs in proptest::collection::vec((0u32..14, 0u32..14, 1u64..9), 1..80),
        ) {
            let demands = pairs
                .into_iter()
                .map(|(s, d, bits)| (s % n, d % n, bits))
                .filter(|(s, d, _)| s != d)
                .map(|(src, dst, bits)| Demand { src, dst, bits });
            let inst = Instance::new(Model::Strict1, n, 2, demands, &Limits::default()).unwrap();
            let g = DemandGraph::new(&inst);
            prop_assert_eq!(g.undirected(), &sorted_reference(&inst));
            let total: u64 = g.undirected().iter().map(|e| e.mult).sum();
            prop_assert_eq!(total, inst.total_chunks());
        }
    }
}
