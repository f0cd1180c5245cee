//! The chunk multigraph of an instance, per model.
//!
//! STRICT1 sees an undirected multigraph: edge `{a,b}` has multiplicity
//! `m(a->b) + m(b->a)` (both directions compete for the same two slots).
//! READ1_WRITE1 sees a bipartite multigraph senders x receivers whose edges
//! are the demands themselves. Degrees are in chunks.

use crate::instance::{Instance, Model, Slot};

/// An undirected STRICT1 edge: the demands `a->b` and/or `b->a`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndirectedEdge {
    pub a: Slot,
    pub b: Slot,
    /// Chunks of both directions together.
    pub mult: u64,
    /// Demand indices of `a->b` and `b->a` (either may be absent), with their chunks.
    pub demands: Vec<(u32, u64)>,
}

/// The chunk multigraph of an instance.
#[derive(Clone, Debug)]
pub struct DemandGraph {
    pub model: Model,
    pub slots: u32,
    /// STRICT1 edges with `a < b`, sorted; empty for READ1_WRITE1.
    pub undirected: Vec<UndirectedEdge>,
    /// Chunks sent by each slot.
    pub out_degree: Vec<u64>,
    /// Chunks received by each slot.
    pub in_degree: Vec<u64>,
}

impl DemandGraph {
    pub fn new(inst: &Instance) -> DemandGraph {
        let n = inst.slots as usize;
        let mut out_degree = vec![0u64; n];
        let mut in_degree = vec![0u64; n];
        for (i, d) in inst.demands().iter().enumerate() {
            out_degree[d.src as usize] += inst.chunks(i);
            in_degree[d.dst as usize] += inst.chunks(i);
        }
        let mut undirected = Vec::new();
        if inst.model == Model::Strict1 {
            let mut keyed: Vec<(Slot, Slot, u32, u64)> = inst
                .demands()
                .iter()
                .enumerate()
                .map(|(i, d)| (d.src.min(d.dst), d.src.max(d.dst), i as u32, inst.chunks(i)))
                .collect();
            keyed.sort_unstable();
            for (a, b, i, c) in keyed {
                match undirected.last_mut() {
                    Some(UndirectedEdge {
                        a: la,
                        b: lb,
                        mult,
                        demands,
                    }) if *la == a && *lb == b => {
                        *mult += c;
                        demands.push((i, c));
                    }
                    _ => undirected.push(UndirectedEdge {
                        a,
                        b,
                        mult: c,
                        demands: vec![(i, c)],
                    }),
                }
            }
        }
        DemandGraph {
            model: inst.model,
            slots: inst.slots,
            undirected,
            out_degree,
            in_degree,
        }
    }

    /// Degree of slot `v` under the model: sends + receives for STRICT1,
    /// the larger of the two for READ1_WRITE1.
    pub fn degree(&self, v: usize) -> u64 {
        match self.model {
            Model::Strict1 => self.out_degree[v] + self.in_degree[v],
            Model::Read1Write1 => self.out_degree[v].max(self.in_degree[v]),
        }
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
