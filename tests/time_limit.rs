//! `--time-limit` bounds the whole solve, greedy included (issue 15 item 3):
//! past the deadline the greedy finishes by list scheduling, the result is a
//! complete schedule that validates with an honest status, and the details
//! name the phases the limit cut short. Behaviour only: no timings asserted.

mod common;
use common::*;
use std::time::{Duration, Instant};
use tickopt::bounds_for;
use tickopt::graph::DemandGraph;
use tickopt::instance::Model;
use tickopt::solve::greedy::{greedy_schedule, greedy_schedule_until, Greedy};
use tickopt::solve::{certify, SolveOptions, Solver, Status, CUT_SHORT};
use tickopt::validate::validate_compact;
use tickopt::{solve_instance, SolveRequest, SolverChoice};

fn cut_phases(details: &serde_json::Map<String, serde_json::Value>) -> Vec<String> {
    details
        .get(CUT_SHORT)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// A deadline already passed: the whole schedule comes from the list
/// scheduling completion, and it is complete and valid in both models.
#[test]
fn greedy_past_its_deadline_completes_a_valid_schedule() {
    for model in [Model::Strict1, Model::Read1Write1] {
        for (n, seed) in [(2, 1), (5, 2), (9, 3), (16, 4), (31, 5)] {
            let inst = random(model, n, seed, 4);
            let (cut_sched, cut) = greedy_schedule_until(&inst, Some(Instant::now()));
            assert!(cut, "{model:?} n={n}: a passed deadline cuts the greedy");
            let report = validate_compact(&inst, &cut_sched);
            assert!(report.passed(), "{model:?} n={n}: {}", report.one_line());
            let bounds = bounds_for(&inst, &DemandGraph::new(&inst));
            assert!(cut_sched.ticks() >= bounds.best.ticks);
            // Never more ticks than one demand-chunk per tick.
            assert!(cut_sched.ticks() <= inst.total_chunks());

            let (full, cut) = greedy_schedule_until(&inst, None);
            assert!(!cut);
            assert_eq!(full, greedy_schedule(&inst));

            let opts = SolveOptions {
                deadline: Some(Instant::now()),
                ..SolveOptions::default()
            };
            let sol = Greedy.solve(&inst, &bounds, &opts);
            assert_eq!(sol.schedule, cut_sched);
            assert_eq!(cut_phases(&sol.stats.details), ["greedy"]);
            assert_eq!(
                sol.status,
                certify(
                    sol.ticks,
                    bounds.best.ticks,
                    bounds.degree.ticks,
                    bounds.complete,
                    false
                )
            );
        }
    }
}

/// A random STRICT1 instance far too big for a 1 ms limit: the solve still
/// returns a validated schedule, an honest status, and names the greedy as
/// cut short (the exact engine is not run after it, unless the greedy's
/// schedule already met the bound).
#[test]
fn solve_with_a_tiny_time_limit_returns_a_valid_cut_short_schedule() {
    for solver in [SolverChoice::Auto, SolverChoice::Greedy] {
        let inst = random(Model::Strict1, 400, 7, 1024);
        let request = SolveRequest {
            solver,
            time_limit: Some(Duration::from_millis(1)),
            ..Default::default()
        };
        let sol = solve_instance(&inst, &request).unwrap();
        let report = validate_compact(&inst, &sol.schedule);
        assert!(report.passed(), "{}", report.one_line());
        assert!(sol.ticks >= sol.lower_bound.ticks);
        assert!(
            matches!(
                sol.status,
                Status::Feasible | Status::Optimal | Status::WithinOne
            ),
            "{:?}",
            sol.status
        );
        let phases = cut_phases(&sol.stats.details);
        assert!(phases.contains(&"greedy".to_string()), "{phases:?}");
        if sol.status != Status::Optimal && solver == SolverChoice::Auto {
            assert!(phases.contains(&"exact".to_string()), "{phases:?}");
            assert!(
                sol.stats.solver.starts_with("greedy"),
                "{}",
                sol.stats.solver
            );
        }
    }
}
