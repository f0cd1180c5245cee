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
//! Where each part lives (each folder's `mod.rs` says what it owns and
//! what it may use; bottom to top, a folder uses only those above it in
//! this list):
//!
//! | folder or file | what it solves |
//! |---|---|
//! | this file, `solution.rs`, `status.rs`, [`proofs`] | the core: the [`Solver`] trait, [`SolveOptions`], [`Solution`] and its [`Status`], the infeasibility proofs behind `optimal_exhaustive` |
//! | [`heuristic`] | heuristics and baselines: the load greedy, copyspace-guard's per-tick greedy, the dense STRICT1 greedy, the pairwise baseline, all-to-all peeling |
//! | [`one_port`] | exact one-port solvers: König, the STRICT1 LP/ILP engine, STRICT1 by structure |
//! | [`first_fit`] | first fit on dense skewed traffic, and the [`replan::Planner`] (which alone sits above the portfolio) |
//! | [`multiport`] | multi-port slots and per-demand bandwidth |
//! | [`structure`] | structure at scale: equal components, binary split, merged slots |
//! | [`portfolio`] | [`portfolio::solve_instance`]: bounds, the choice among all of the above, validation |
//!
//! Before any heuristic, [`portfolio::solve_instance`] looks at the shape of
//! the whole support (module `structure::at_scale`, issue 39): a union of
//! equal components (module `structure::classes`: grouped by colour
//! refinement, each merge confirmed by an explicit bijection) is solved one
//! component per class and the class's rounds shared by its members; a
//! heavy one-sided STRICT1 support goes to König (exact) rather than the
//! binary split. `scripts/module_graph.py` checks the folder order.

pub mod first_fit;
pub mod heuristic;
pub mod multiport;
pub mod one_port;
pub mod portfolio;
pub mod proofs;
mod solution;
mod status;
pub mod structure;

// The paths these modules had before the folders (issue 53), kept for the
// code and tests that name them.
pub use first_fit::replan;
pub use heuristic::{dense_greedy, greedy, pairwise, per_tick_greedy};
pub use multiport::first_fit_grouped;
pub use one_port::{koenig, orient, strict1_exact};
pub use structure::merged;

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
            solver: &one_port::koenig::Koenig,
            models: &[Read1Write1],
        },
        RegisteredSolver {
            solver: &heuristic::greedy::Greedy,
            models: &[Strict1, Read1Write1],
        },
        RegisteredSolver {
            solver: &one_port::strict1_exact::Strict1Exact,
            models: &[Strict1],
        },
    ];
    &ALL
}
