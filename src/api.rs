//! The one-call library entry point: bounds, solver choice, validation.

use crate::bounds::{exact_bounds, Bounds};
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::solve::{greedy::Greedy, koenig::Koenig, Solution, SolveOptions, Solver};
use crate::validate::validate_compact;
use std::time::{Duration, Instant};

/// Which solver to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverChoice {
    /// The exact solver where the model has one; else the best available.
    #[default]
    Auto,
    /// The greedy heuristic.
    Greedy,
    /// The exact method of the model (König for READ1_WRITE1).
    Exact,
}

impl std::str::FromStr for SolverChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(SolverChoice::Auto),
            "greedy" => Ok(SolverChoice::Greedy),
            "exact" => Ok(SolverChoice::Exact),
            _ => Err(format!(
                "unknown solver {s:?} (expected auto, greedy or exact)"
            )),
        }
    }
}

/// What to solve for, independent of any command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveRequest {
    pub solver: SolverChoice,
    pub time_limit: Option<Duration>,
}

/// Error of [`solve_instance`]: only an internal fault can cause one.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("internal error: solver {solver} produced an invalid schedule ({report}); please report this with the input")]
    InvalidSchedule { solver: String, report: String },
}

/// Computes the bounds of `inst` for `request` (exact where the solve will
/// need them).
pub fn bounds_for(inst: &Instance, g: &DemandGraph) -> Bounds {
    exact_bounds(inst, g)
}

/// Solves `inst`: bounds, solver, and a validation of the result. The
/// returned schedule has passed [`validate_compact`].
pub fn solve_instance(inst: &Instance, request: &SolveRequest) -> Result<Solution, EngineError> {
    let t0 = Instant::now();
    let g = DemandGraph::new(inst);
    let bounds = bounds_for(inst, &g);
    let opts = SolveOptions {
        time_limit: request.time_limit,
    };
    let solver: &dyn Solver = match (inst.model, request.solver) {
        (Model::Read1Write1, SolverChoice::Auto | SolverChoice::Exact) => &Koenig,
        (_, _) => &Greedy,
    };
    let mut sol = solver.solve(inst, &bounds, &opts);
    let report = validate_compact(inst, &sol.schedule);
    if !report.passed() {
        return Err(EngineError::InvalidSchedule {
            solver: sol.stats.solver,
            report: report.one_line(),
        });
    }
    sol.stats.seconds = t0.elapsed().as_secs_f64();
    Ok(sol)
}
