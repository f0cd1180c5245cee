//! Public input/output types of the STRICT1 colouring module.

use serde::Serialize;
use std::time::Duration;

/// An undirected chunk multigraph to colour, with its lower bound.
#[derive(Clone, Debug)]
pub struct ColourInput<'a> {
    /// Number of vertices (slots).
    pub n: usize,
    /// Undirected edges `(a, b, m_e)` with `a < b`, distinct pairs, `m_e >= 1`.
    pub edges: &'a [(u32, u32, u64)],
    /// `LB = max(Delta, ceil(Gamma))`, exact, computed by the caller.
    pub lower_bound: u64,
    /// `Delta`, the largest weighted degree.
    pub delta: u64,
    /// Time limit for each HiGHS MIP (residual ILP, exact search); `None` = 10 s.
    pub time_limit: Option<Duration>,
}

/// A compact schedule: rounds of matchings with repeat counts.
#[derive(Clone, Debug, Serialize)]
pub struct Colouring {
    /// Rounds in tick order: `(repeat >= 1, edge indices into `edges` forming a matching)`.
    /// Every edge `e` appears in rounds whose repeats sum to exactly `m_e`.
    pub rounds: Vec<(u64, Vec<u32>)>,
    /// Sum of repeats.
    pub ticks: u64,
    /// `Some` iff an exact search proved `lower_bound` ticks infeasible
    /// (so `ticks == lower_bound + 1` is optimal).
    pub exhaustive: Option<ExhaustiveProof>,
    /// How the colouring was obtained.
    pub stats: ColourStats,
}

/// What the exact search did to prove `lower_bound` ticks infeasible.
#[derive(Clone, Debug, Serialize)]
pub struct ExhaustiveProof {
    /// E.g. `"highs-mip assignment, symmetry fixed at slot 3"`.
    pub method: String,
    /// ILP variables.
    pub variables: u64,
    /// ILP constraints.
    pub constraints: u64,
    /// Branch-and-bound nodes reported by HiGHS.
    pub nodes: u64,
    /// Wall-clock seconds of the search.
    pub seconds: f64,
}

/// Diagnostics: which phase produced the colouring and what each phase cost.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ColourStats {
    /// Phase that produced the returned colouring: `greedy`, `gcd_scaled`, `kempe`, `lp_round`, `exact_ilp`.
    pub method: String,
    /// Lower bound used (the caller's, raised to the computed Delta if that was larger).
    pub lower_bound: u64,
    /// Common factor of all multiplicities that was divided out first (0 or 1: none).
    pub gcd: u64,
    /// Ticks of the compact greedy start.
    pub greedy_ticks: u64,
    /// Ticks reached by Kempe-chain recolouring of chunks (if run).
    pub kempe_ticks: Option<u64>,
    /// Moves (assignments, chain flips, kicks) spent by the Kempe search.
    pub kempe_moves: u64,
    /// Value of the fractional edge-colouring LP when column generation stopped.
    pub lp_value: Option<f64>,
    /// Whether column generation ran until no column priced out (LP optimal).
    pub lp_optimal: bool,
    /// Columns (matchings) in the master at the end, including the start columns.
    pub lp_columns: u64,
    /// Pricing rounds (maximum-weight matchings solved).
    pub pricing_rounds: u64,
    /// Simplex iterations summed over master solves.
    pub lp_iterations: u64,
    /// Ticks reached by LP rounding + residual colouring (if run).
    pub lp_round_ticks: Option<u64>,
    /// Repeats moved back from rounded columns into the residual (last attempt).
    pub lp_released: u64,
    /// Residual ILP solves and their outcome summary.
    pub residual_ilps: u64,
    /// Outcome of the exact search: `not_run`, `infeasible`, `feasible`, `timeout`, `error`, `too_large`.
    pub exact: String,
    /// Seconds per phase.
    pub greedy_s: f64,
    /// Seconds in Kempe recolouring.
    pub kempe_s: f64,
    /// Seconds in column generation (LP solves + pricing).
    pub lp_s: f64,
    /// Seconds in rounding and residual colouring (incl. residual ILPs).
    pub round_s: f64,
    /// Seconds in the exact search.
    pub exact_s: f64,
    /// Total seconds.
    pub total_s: f64,
}
