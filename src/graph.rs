//! The chunk multigraph of an instance, per model.
//!
//! STRICT1 sees an undirected multigraph: edge `{a,b}` has multiplicity
//! `m(a->b) + m(b->a)` (both directions compete for the same two slots).
//! READ1_WRITE1 sees a bipartite multigraph senders x receivers whose edges
//! are the demands themselves. Degrees are in chunks.

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
    let mut start = vec![0usize; n + 1];
    for d in demands.iter().filter(|d| d.src > d.dst) {
        start[d.dst as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut from_above = vec![0u32; start[n]];
    for (i, d) in demands.iter().enumerate().filter(|(_, d)| d.src > d.dst) {
        from_above[fill[d.dst as usize]] = i as u32;
        fill[d.dst as usize] += 1;
    }
    let part = |i: usize| (i as u32, inst.chunks(i));
    let mut edges = Vec::with_capacity(demands.len());
    let mut row = 0;
    for a in 0..n {
        let row_end = row + demands[row..].partition_point(|d| d.src as usize == a);
        let mut p = row + demands[row..row_end].partition_point(|d| (d.dst as usize) < a);
        let mut q = start[a];
        let a = a as Slot;
        loop {
            let out = (p < row_end).then(|| demands[p].dst);
            let back = (q < start[a as usize + 1]).then(|| demands[from_above[q] as usize].src);
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
                parts.push(part(from_above[q] as usize));
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
