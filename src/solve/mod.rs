//! Solvers: one [`Solver`] trait, one [`Solution`] type.
//!
//! A solver turns an [`Instance`] into a compact [`Schedule`](crate::schedule::Schedule) and says what
//! is proven about it ([`Status`], DESIGN.md §3). Solvers do no I/O. Bad
//! input is an `Err` at parse time, never here: `solve` always returns a
//! `Solution` (a time limit is a status, not an error).
//!
//! | solver | models | exact? | time vs multiplicity |
//! |---|---|---|---|
//! | [`koenig::Koenig`] | READ1_WRITE1 | yes: Delta ticks | independent (weighted perfect matchings); at few chunks per pair, Euler splits ([`crate::colour::bipartite_split`], O(chunks log Delta)) |
//! | [`greedy::Greedy`] | both | heuristic | rounds with repeat counts, O(log) growth |
//! | [`strict1_exact::Strict1Exact`] | STRICT1 | LP/ILP: LB, or LB+1 (`optimal_exhaustive` only with a checked [`crate::proof::Proof`]) | LP over matchings: independent |
//! | [`multiport::Multiport`] | both, multi-port (DESIGN §11) | READ1_WRITE1 and STRICT1 with even ports: yes; odd ports: the one-port engine on a port split, then an f-colouring MIP at the bound | independent (port splitting, Euler orientation, König); the MIP grows with edges x ticks |
//!
//! Before any heuristic, [`portfolio::solve_instance`] looks at the shape of
//! the whole support (module `at_scale`, issue 39): a union of equal
//! components (module `classes`: grouped by colour refinement, each merge
//! confirmed by an explicit bijection) is solved one component per class
//! and the class's rounds shared by its members; a heavy one-sided STRICT1
//! support goes to König (exact) rather than the binary split.

mod at_scale;
mod bipartite;
mod bit_split;
mod classes;
pub mod dense_greedy;
mod factor_peel;
mod fcolour_colgen;
mod fcolour_ilp;
pub mod first_fit;
pub mod first_fit_grouped;
mod first_fit_halves;
pub mod greedy;
pub mod koenig;
pub mod merged;
pub mod multiport;
pub mod orient;
pub mod pairwise;
pub mod per_tick_greedy;
mod port_grouping;
mod port_split;
pub mod portfolio;
pub mod proofs;
pub mod replan;
mod solution;
mod status;
pub mod strict1_exact;
mod structured;
mod tick_table;

pub use solution::{Solution, SolveStats};
pub use status::{certify, Status};

use crate::bounds::Bounds;
use crate::instance::Instance;
use serde::Serialize;
use std::time::{Duration, Instant};

/// Options every solver understands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveOptions {
    /// Limit for exact searches (ILP); `None` means the solver's default.
    pub time_limit: Option<Duration>,
    /// End of the whole solve's time (its start plus `--time-limit`), for
    /// the phases that have no limit of their own (the greedy): past it they
    /// finish cheaply and record `"cut_short"` in the details. `None`: no
    /// deadline.
    pub deadline: Option<Instant>,
}

/// The time left before `deadline` (zero once it has passed; `None`: no
/// deadline): the limit a nested solve gets, so that it ends by its
/// caller's deadline instead of starting a fresh limit of its own.
pub(crate) fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    deadline.map(|d| d.saturating_duration_since(Instant::now()))
}

/// Key in [`SolveStats::details`]: the phases (`"bounds"`, `"greedy"`,
/// `"exact"`) that a time limit cut short or skipped, in solve order.
pub const CUT_SHORT: &str = "cut_short";

/// Adds `phase` to the [`CUT_SHORT`] list of `stats` (once).
pub(crate) fn note_cut_short(stats: &mut SolveStats, phase: &str) {
    let list = stats
        .details
        .entry(CUT_SHORT)
        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let serde_json::Value::Array(phases) = list {
        if !phases.iter().any(|p| p == phase) {
            phases.push(phase.into());
        }
    }
}

/// Record of an exact search (the assignment ILP) that found the lower
/// bound infeasible. Evidence only, kept in the solve's details: an ILP's
/// "infeasible" is not a proof (DESIGN.md §10); [`Solution::proof`] is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExhaustiveRecord {
    pub method: String,
    pub variables: u64,
    pub constraints: u64,
    pub nodes: u64,
    pub seconds: f64,
}

/// A scheduling algorithm.
pub trait Solver: Sync {
    /// Stable name, as used by `--solver` and in summaries.
    fn name(&self) -> &'static str;
    /// Solves `inst`; `bounds` are the bounds already known to the caller
    /// (solvers may strengthen them but never weaken them).
    fn solve(&self, inst: &Instance, bounds: &Bounds, opts: &SolveOptions) -> Solution;
}

/// A solver and the models it solves.
#[derive(Clone, Copy)]
pub struct RegisteredSolver {
    pub solver: &'static dyn Solver,
    pub models: &'static [crate::instance::Model],
}

/// Every solver of the crate, for test suites that run all of them
/// (and for choosing by name).
pub fn registry() -> &'static [RegisteredSolver] {
    use crate::instance::Model::{Read1Write1, Strict1};
    static ALL: [RegisteredSolver; 3] = [
        RegisteredSolver {
            solver: &koenig::Koenig,
            models: &[Read1Write1],
        },
        RegisteredSolver {
            solver: &greedy::Greedy,
            models: &[Strict1, Read1Write1],
        },
        RegisteredSolver {
            solver: &strict1_exact::Strict1Exact,
            models: &[Strict1],
        },
    ];
    &ALL
}
