//! From rounds over undirected STRICT1 edges to rounds over demands.
//!
//! A STRICT1 edge `{a, b}` carries the chunks of `a->b` and `b->a`; a round
//! that sends the edge `r` times sends the first direction until it runs
//! out, then the other. A round is split where a direction runs out, so the
//! result has at most `rounds + edges` rounds.

use crate::graph::UndirectedEdge;
use crate::schedule::Schedule;

/// Converts `(repeat, edge indices)` rounds into a demand schedule. Each
/// edge must be covered exactly its multiplicity over all rounds (the
/// caller's colouring guarantees it; validation checks it again).
pub fn edge_rounds_to_schedule(edges: &[UndirectedEdge], rounds: &[(u64, Vec<u32>)]) -> Schedule {
    // Per edge: index of the current direction and chunks left in it.
    let mut part = vec![0usize; edges.len()];
    let mut left: Vec<u64> = edges
        .iter()
        .map(|e| e.demands.first().map_or(0, |d| d.1))
        .collect();
    let mut schedule = Schedule::new();
    let mut demands = Vec::new();
    for (repeat, round) in rounds {
        let mut r = *repeat;
        while r > 0 {
            let step = round
                .iter()
                .map(|&e| left[e as usize])
                .filter(|&c| c > 0)
                .min()
                .unwrap_or(r)
                .min(r);
            demands.clear();
            for &e in round {
                let e = e as usize;
                if left[e] == 0 {
                    continue; // over-covered edge: validation will report it
                }
                demands.push(edges[e].demands[part[e]].0);
                left[e] -= step;
                if left[e] == 0 && part[e] + 1 < edges[e].demands.len() {
                    part[e] += 1;
                    left[e] = edges[e].demands[part[e]].1;
                }
            }
            schedule.push(step, demands.clone());
            r -= step;
        }
    }
    schedule
}
