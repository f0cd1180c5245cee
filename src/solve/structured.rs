//! STRICT1 by structure: when every connected component of the support is a
//! path, a cycle or a uniform complete graph, [`crate::colour::colour_by_structure`]
//! colours it exactly in time linear in the output, together with the
//! witness (max-degree slot or odd set) that proves the tick count optimal.
//! The solve then needs neither the greedy nor the odd-set search.

use super::orient::edge_rounds_to_schedule;
use super::{certify, Solution, SolveStats, Status};
use crate::bounds::{capacity_bound, degree_bound, Bounds, LowerBound, Witness};
use crate::colour::colour_by_structure;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use std::time::Instant;

/// Solves `inst` by structure when it applies (STRICT1 only); the returned
/// solution is `optimal`. `None` when some component has another shape.
pub fn solve_by_structure(inst: &Instance, g: &DemandGraph) -> Option<Solution> {
    if inst.model != Model::Strict1 {
        return None;
    }
    let t0 = Instant::now();
    let edges: Vec<(u32, u32, u64)> = g.undirected.iter().map(|e| (e.a, e.b, e.mult)).collect();
    let s = colour_by_structure(inst.slots as usize, &edges)?;
    let degree = degree_bound(inst, g);
    let odd_set = s.odd_set.map(|(slots, inside)| {
        let bound = ((2 * inside as u128).div_ceil(slots.len() as u128 - 1)) as u64;
        LowerBound {
            ticks: bound,
            witness: Witness::OddSet {
                slots,
                chunks_inside: inside,
                bound,
            },
        }
    });
    let best = match &odd_set {
        Some(o) if o.ticks > degree.ticks => o.clone(),
        _ => degree.clone(),
    };
    if best.ticks != s.ticks {
        return None;
    }
    // A schedule of L ticks with a valid bound L proves chi' = L, and
    // L <= max(Delta, ceil Gamma) <= chi': the bound is complete.
    let bounds = Bounds {
        model: inst.model,
        degree,
        capacity: capacity_bound(inst),
        odd_set,
        best,
        complete: true,
    };
    let schedule = edge_rounds_to_schedule(&g.undirected, &s.rounds);
    let ticks = schedule.ticks();
    let status = certify(ticks, bounds.best.ticks, bounds.degree.ticks, true, false);
    if status != Status::Optimal {
        return None;
    }
    let mut details = serde_json::Map::new();
    details.insert("method".into(), "structure".into());
    Some(Solution {
        ticks,
        lower_bound: bounds.best.clone(),
        status,
        exhaustive: None,
        stats: SolveStats {
            solver: "structure".into(),
            rounds: schedule.len(),
            seconds: t0.elapsed().as_secs_f64(),
            bounds_seconds: 0.0,
            details,
        },
        bounds,
        schedule,
    })
}
