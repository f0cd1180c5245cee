//! Certificates: what a schedule's length is proven to be (DESIGN.md §3).

use serde::{Deserialize, Serialize};

/// What is proven about a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// ticks == lower bound; the witness proves it.
    Optimal,
    /// ticks == lower bound + 1 and an exact search proved the bound infeasible.
    OptimalExhaustive,
    /// ticks == lower bound + 1 == Delta + 1, with the bound complete
    /// (max(Delta, ceil Gamma)): Goldberg–Seymour puts the optimum at LB or LB+1.
    WithinOne,
    /// A valid schedule with a gap to the lower bound.
    Feasible,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::OptimalExhaustive => "optimal_exhaustive",
            Status::WithinOne => "within_one",
            Status::Feasible => "feasible",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The status a schedule of `ticks` earns against `lower_bound`.
///
/// - `optimal` iff `ticks == lower_bound` (the witness proves it);
/// - `optimal_exhaustive` iff `ticks == lower_bound + 1` and an exact search
///   proved `lower_bound` infeasible (`exhaustive_proof`);
/// - `within_one` iff `ticks == lower_bound + 1 == delta + 1` and the bound
///   is complete, i.e. equals max(Delta, ceil Gamma): only then does
///   Goldberg–Seymour place the optimum at LB or LB + 1;
/// - `feasible` otherwise.
pub fn certify(
    ticks: u64,
    lower_bound: u64,
    delta: u64,
    bound_complete: bool,
    exhaustive_proof: bool,
) -> Status {
    if ticks == lower_bound {
        Status::Optimal
    } else if ticks == lower_bound + 1 && exhaustive_proof {
        Status::OptimalExhaustive
    } else if ticks == lower_bound + 1 && lower_bound == delta && bound_complete {
        Status::WithinOne
    } else {
        Status::Feasible
    }
}
