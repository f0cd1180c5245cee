//! One correctness suite over every registered solver and both models
//! (`tickopt::solve::registry`): on tiny random instances each schedule
//! validates, the bound is at most the brute-force optimum, and the status
//! is true: `optimal` and `optimal_exhaustive` mean the brute-force
//! optimum, `within_one` at most one more. Repeated runs are identical.

mod common;
use common::*;
use tickopt::bounds_for;
use tickopt::graph::DemandGraph;
use tickopt::instance::Model;
use tickopt::solve::{registry, SolveOptions, Status};
use tickopt::validate::validate_compact;

#[test]
fn every_solver_on_both_models_against_brute_force() {
    let mut runs = 0;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |k: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k
    };
    for _ in 0..40 {
        let n = 3 + next(3) as u32;
        let mut d = Vec::new();
        for _ in 0..2 + next(6) {
            let (a, b) = (next(n as u64) as u32, next(n as u64) as u32);
            if a != b {
                d.push((a, b, 1 + next(3)));
            }
        }
        if d.is_empty() {
            continue;
        }
        for model in Model::ALL {
            let inst = instance(model, n, 1, &d);
            if inst.total_chunks() > 10 {
                continue;
            }
            let opt = brute_force_ticks(&inst);
            let bounds = bounds_for(&inst, &DemandGraph::new(&inst));
            for entry in registry().iter().filter(|e| e.models.contains(&model)) {
                let name = entry.solver.name();
                let sol = entry.solver.solve(&inst, &bounds, &SolveOptions::default());
                let again = entry.solver.solve(&inst, &bounds, &SolveOptions::default());
                assert_eq!(
                    sol.schedule, again.schedule,
                    "{name} {model} {d:?}: not deterministic"
                );
                assert!(
                    validate_compact(&inst, &sol.schedule).passed(),
                    "{name} {model} {d:?}"
                );
                assert_eq!(sol.ticks, sol.schedule.ticks());
                assert!(
                    sol.lower_bound.ticks <= opt && opt <= sol.ticks,
                    "{name} {model} {d:?}"
                );
                match sol.status {
                    Status::Optimal | Status::OptimalExhaustive => {
                        assert_eq!(sol.ticks, opt, "{name} {model} {d:?}: false optimality")
                    }
                    Status::WithinOne => assert!(sol.ticks <= opt + 1),
                    Status::Feasible => {}
                }
                assert_eq!(
                    sol.proof.is_some(),
                    sol.status == Status::OptimalExhaustive,
                    "{name}: a proof exactly behind optimal_exhaustive"
                );
                runs += 1;
            }
        }
    }
    assert!(runs >= 60, "only {runs} runs");
}
