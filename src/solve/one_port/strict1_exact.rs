//! Exact STRICT1 scheduling: the LP/ILP colouring engine of [`crate::colour`].
//!
//! Column generation on the matching LP (HiGHS), rounding to compact
//! rounds, residual recolouring (Kempe chains, assignment ILP), and, when
//! the result is one tick above the bound, a search for a checkable proof
//! that the bound is infeasible ([`crate::solve::proofs`]; `optimal_exhaustive`
//! only with one).
//! See DESIGN.md §9 and the module docs of `colour`.

use super::orient::edge_rounds_to_schedule;
use crate::bounds::Bounds;
use crate::colour::{colour_strict1, greedy_rounds, ColourInput};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::solve::{ExhaustiveRecord, Solution, SolveOptions, Solver};
use std::time::Instant;

/// The exact STRICT1 solver.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strict1Exact;

impl Solver for Strict1Exact {
    fn name(&self) -> &'static str {
        "strict1_exact"
    }

    fn solve(&self, inst: &Instance, bounds: &Bounds, opts: &SolveOptions) -> Solution {
        let t0 = Instant::now();
        debug_assert_eq!(inst.model, Model::Strict1);
        let g = DemandGraph::new(inst);
        let edges = g.edge_triples();
        let input = ColourInput {
            n: inst.slots as usize,
            edges: &edges,
            lower_bound: bounds.best.ticks,
            delta: bounds.degree.ticks,
            time_limit: opts.time_limit,
        };
        let colouring = colour_strict1(&input);
        let schedule = edge_rounds_to_schedule(g.undirected(), &colouring.rounds);
        let mut details = match serde_json::to_value(&colouring.stats) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => Default::default(),
        };
        if let Some(p) = &colouring.exhaustive {
            // The ILP's infeasibility is evidence, not a proof: kept as a detail.
            let rec = ExhaustiveRecord {
                method: p.method.clone(),
                variables: p.variables,
                constraints: p.constraints,
                nodes: p.nodes,
                seconds: p.seconds,
            };
            if let Ok(v) = serde_json::to_value(rec) {
                details.insert("exhaustive_ilp".into(), v);
            }
        }
        let mut sol = Solution::from_schedule(
            schedule,
            bounds,
            &format!("{}:{}", self.name(), colouring.stats.method),
            t0.elapsed().as_secs_f64(),
        );
        sol.stats.details = details;
        // One tick above the bound: look for a checkable proof of the bound's
        // infeasibility (within_one or feasible without one).
        sol.attach_proof(inst);
        sol.stats.seconds = t0.elapsed().as_secs_f64();
        sol
    }
}

/// The engine's first phase alone: the compact greedy, whose rounds follow
/// the support (at most one per pair, whatever the multiplicities). Cheap
/// at any multiplicity; the caller keeps it only when it meets the bound.
pub fn compact_greedy(inst: &Instance, bounds: &Bounds) -> Solution {
    let t0 = Instant::now();
    let g = DemandGraph::new(inst);
    let edges = g.edge_triples();
    let rounds = greedy_rounds(inst.slots as usize, &edges);
    let schedule = edge_rounds_to_schedule(g.undirected(), &rounds);
    let mut sol = Solution::from_schedule(
        schedule,
        bounds,
        "strict1_exact:greedy",
        t0.elapsed().as_secs_f64(),
    );
    sol.stats
        .details
        .insert("method".into(), "compact_greedy".into());
    sol
}
