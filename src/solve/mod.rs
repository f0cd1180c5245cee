//! Solvers: one [`Solver`] trait, one [`Solution`] type.
//!
//! A solver turns an [`Instance`] into a compact [`Schedule`] and says what
//! is proven about it ([`Status`], DESIGN.md §3). Solvers do no I/O. Bad
//! input is an `Err` at parse time, never here: `solve` always returns a
//! `Solution` (a time limit is a status, not an error).
//!
//! | solver | models | exact? | time vs multiplicity |
//! |---|---|---|---|
//! | [`koenig::Koenig`] | READ1_WRITE1 | yes: Delta ticks | independent (weighted perfect matchings) |
//! | [`greedy::Greedy`] | both | heuristic | rounds with repeat counts, O(log) growth |
//! | [`strict1_exact::Strict1Exact`] | STRICT1 | LP/ILP: LB or LB+1 with proof | LP over matchings: independent |

pub mod greedy;
pub mod koenig;
pub mod orient;
pub mod per_tick_greedy;
pub mod portfolio;
mod status;
pub mod strict1_exact;
mod structured;

pub use status::{certify, Status};

use crate::bounds::{Bounds, LowerBound};
use crate::instance::Instance;
use crate::schedule::Schedule;
use serde::Serialize;
use std::time::Duration;

/// Options every solver understands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveOptions {
    /// Limit for exact searches (ILP); `None` means the solver's default.
    pub time_limit: Option<Duration>,
}

/// Record of an exact search that proved the lower bound infeasible.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExhaustiveRecord {
    pub method: String,
    pub variables: u64,
    pub constraints: u64,
    pub nodes: u64,
    pub seconds: f64,
}

/// Statistics of a solve.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SolveStats {
    /// Name of the solver (or portfolio member) that produced the schedule.
    pub solver: String,
    pub rounds: usize,
    /// Whole solve, bounds included (set by [`crate::solve_instance`]).
    pub seconds: f64,
    /// Of which computing the bounds (set by [`crate::solve_instance`]).
    #[serde(default)]
    pub bounds_seconds: f64,
    /// Free-form details of the method (LP value, columns, ...).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// A schedule and what is proven about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    #[serde(skip)]
    pub schedule: Schedule,
    pub ticks: u64,
    pub lower_bound: LowerBound,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exhaustive: Option<ExhaustiveRecord>,
    pub stats: SolveStats,
    /// Every bound computed for the instance (`lower_bound` is the best).
    #[serde(skip)]
    pub bounds: Bounds,
}

/// A scheduling algorithm.
pub trait Solver: Sync {
    /// Stable name, as used by `--solver` and in summaries.
    fn name(&self) -> &'static str;
    /// Solves `inst`; `bounds` are the bounds already known to the caller
    /// (solvers may strengthen them but never weaken them).
    fn solve(&self, inst: &Instance, bounds: &Bounds, opts: &SolveOptions) -> Solution;
}

impl Solution {
    /// Wraps a schedule with its certificate (no exhaustive proof).
    pub fn from_schedule(
        schedule: Schedule,
        bounds: &Bounds,
        solver: &str,
        seconds: f64,
    ) -> Solution {
        let ticks = schedule.ticks();
        let delta = bounds.degree.ticks;
        Solution {
            status: certify(ticks, bounds.best.ticks, delta, bounds.complete, false),
            ticks,
            lower_bound: bounds.best.clone(),
            exhaustive: None,
            stats: SolveStats {
                bounds_seconds: 0.0,
                solver: solver.to_string(),
                rounds: schedule.len(),
                seconds,
                details: Default::default(),
            },
            bounds: bounds.clone(),
            schedule,
        }
    }

    /// Gap to the lower bound in ticks.
    pub fn gap(&self) -> u64 {
        self.ticks.saturating_sub(self.lower_bound.ticks)
    }
}
