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

/// A random STRICT1 instance solved with a time limit of zero: every
/// deadline check fires the first time it is made, so what is cut short
/// depends on where the checks are, never on the machine's speed (a 1 ms
/// limit let a fast machine finish the greedy in time). The solve still
/// returns a validated schedule, an honest status, and names the greedy as
/// cut short, with the bounds, and the exact engine as skipped.
#[test]
fn solve_with_a_zero_time_limit_returns_a_valid_cut_short_schedule() {
    for solver in [SolverChoice::Auto, SolverChoice::Greedy] {
        let inst = random(Model::Strict1, 400, 7, 1024);
        let request = SolveRequest {
            solver,
            time_limit: Some(Duration::ZERO),
            ..Default::default()
        };
        let sol = solve_instance(&inst, &request).unwrap();
        let report = validate_compact(&inst, &sol.schedule);
        assert!(report.passed(), "{}", report.one_line());
        assert!(sol.ticks > sol.lower_bound.ticks);
        assert_eq!(sol.status, Status::Feasible);
        // The greedy and the bounds are cut short; the exact engine, that
        // Auto runs after the greedy, is skipped (and named) with no time left.
        let mut phases = cut_phases(&sol.stats.details);
        phases.sort();
        let expected: &[&str] = match solver {
            SolverChoice::Auto => &["bounds", "exact", "greedy"],
            _ => &["bounds", "greedy"],
        };
        assert_eq!(phases, expected, "{solver:?}");
        assert!(
            sol.stats.solver.starts_with("greedy"),
            "{}",
            sol.stats.solver
        );
    }
}
