//! Exact STRICT1 scheduling: the LP/ILP colouring engine of [`crate::colour`].
//!
//! Column generation on the matching LP (HiGHS), rounding to compact
//! rounds, residual recolouring (Kempe chains, assignment ILP), and, when
//! the result is one tick above a bound that equals Delta, an exact
//! search that can prove the bound infeasible (`optimal_exhaustive`).
//! See DESIGN.md §9 and the module docs of `colour`.

use super::orient::edge_rounds_to_schedule;
use super::{certify, ExhaustiveRecord, Solution, SolveOptions, SolveStats, Solver};
use crate::bounds::Bounds;
use crate::colour::{colour_strict1, ColourInput};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
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
        let edges: Vec<(u32, u32, u64)> = g.undirected.iter().map(|e| (e.a, e.b, e.mult)).collect();
        let input = ColourInput {
            n: inst.slots as usize,
            edges: &edges,
            lower_bound: bounds.best.ticks,
            delta: bounds.degree.ticks,
            time_limit: opts.time_limit,
        };
        let colouring = colour_strict1(&input);
        let schedule = edge_rounds_to_schedule(&g.undirected, &colouring.rounds);
        let ticks = schedule.ticks();
        let exhaustive = colouring.exhaustive.as_ref().map(|p| ExhaustiveRecord {
            method: p.method.clone(),
            variables: p.variables,
            constraints: p.constraints,
            nodes: p.nodes,
            seconds: p.seconds,
        });
        let status = certify(
            ticks,
            bounds.best.ticks,
            bounds.degree.ticks,
            bounds.complete,
            exhaustive.is_some(),
        );
        let details = match serde_json::to_value(&colouring.stats) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => Default::default(),
        };
        Solution {
            ticks,
            lower_bound: bounds.best.clone(),
            status,
            exhaustive: if status == super::Status::OptimalExhaustive {
                exhaustive
            } else {
                None
            },
            stats: SolveStats {
                bounds_seconds: 0.0,
                solver: format!("{}:{}", self.name(), colouring.stats.method),
                rounds: schedule.len(),
                seconds: t0.elapsed().as_secs_f64(),
                details,
            },
            bounds: bounds.clone(),
            schedule,
        }
    }
}
