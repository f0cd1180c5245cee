//! [`Solution`]: a schedule and what is proven about it, built only here.
//!
//! The status is never set by a solver: [`Solution::from_schedule`] computes
//! it from the schedule's ticks and the bounds ([`certify`]), and
//! [`Solution::attach_proof`] upgrades a schedule one tick above the bound
//! to `optimal_exhaustive` only with a [`Proof`] that the proof checker of
//! [`crate::proof`] accepts for this very instance. A private field keeps
//! struct literals out of every other module.

use super::proofs::find_proof;
use super::status::{certify, Status};
use crate::bounds::{simple_bounds, Bounds, LowerBound};
use crate::graph::DemandGraph;
use crate::instance::Instance;
use crate::proof::Proof;
use crate::schedule::Schedule;
use serde::Serialize;

/// Statistics of a solve.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SolveStats {
    /// Name of the solver (or portfolio member) that produced the schedule.
    pub solver: String,
    pub rounds: usize,
    /// Whole solve, bounds included (set by [`crate::solve_instance`]).
    pub seconds: f64,
    /// Of which the exact bound search (set by [`crate::solve_instance`];
    /// 0 where the schedule's solver settled the bounds itself: structure,
    /// backbone, a cheap pass at the degree bound).
    #[serde(default)]
    pub bounds_seconds: f64,
    /// Of which validating the schedule (set by [`crate::solve_instance`]).
    #[serde(default)]
    pub validate_seconds: f64,
    /// Free-form details of the method (LP value, columns, an ILP's
    /// infeasibility record as evidence, ...): never part of the claim.
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Zero-sized token: only this module can make a [`Solution`].
#[derive(Clone, Debug, PartialEq, Default)]
struct Certified;

/// A schedule and what is proven about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    #[serde(skip)]
    pub schedule: Schedule,
    pub ticks: u64,
    pub lower_bound: LowerBound,
    pub status: Status,
    /// The proof behind `optimal_exhaustive` (present exactly then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<Proof>,
    pub stats: SolveStats,
    /// Every bound computed for the instance (`lower_bound` is the best).
    #[serde(skip)]
    pub bounds: Bounds,
    #[serde(skip)]
    _certified: Certified,
}

impl Solution {
    /// A schedule of exactly Delta ticks (the maximum degree of `g`), with
    /// the cheap bounds made complete: the degree witness proves it
    /// optimal (capacity and ceil Gamma are at most the optimum, here
    /// Delta, so the degree bound is the best one).
    pub fn at_degree_bound(
        inst: &Instance,
        g: &DemandGraph,
        schedule: Schedule,
        solver: &str,
        seconds: f64,
    ) -> Solution {
        let mut bounds = simple_bounds(inst, g);
        if bounds.degree.ticks >= bounds.best.ticks {
            bounds.best = bounds.degree.clone();
        }
        bounds.complete = true;
        Solution::from_schedule(schedule, &bounds, solver, seconds)
    }

    /// The same schedule certified against other `bounds` (the status
    /// recomputed; solver, seconds and details kept; no proof).
    pub fn under_bounds(self, bounds: &Bounds) -> Solution {
        let mut sol = Solution::from_schedule(
            self.schedule,
            bounds,
            &self.stats.solver,
            self.stats.seconds,
        );
        sol.stats.details = self.stats.details;
        sol
    }

    /// The certifying constructor: wraps a schedule with the status its
    /// ticks earn against `bounds` (no proof yet, so never
    /// `optimal_exhaustive`).
    pub fn from_schedule(
        schedule: Schedule,
        bounds: &Bounds,
        solver: &str,
        seconds: f64,
    ) -> Solution {
        let ticks = schedule.ticks();
        Solution {
            status: certify(
                ticks,
                bounds.best.ticks,
                bounds.degree.ticks,
                bounds.complete,
                false,
            ),
            ticks,
            lower_bound: bounds.best.clone(),
            proof: None,
            stats: SolveStats {
                bounds_seconds: 0.0,
                validate_seconds: 0.0,
                solver: solver.to_string(),
                rounds: schedule.len(),
                seconds,
                details: Default::default(),
            },
            bounds: bounds.clone(),
            schedule,
            _certified: Certified,
        }
    }

    /// When the schedule is one tick above the bound, looks for a proof that
    /// the bound is infeasible ([`find_proof`]: complementary slackness or a
    /// SAT refutation, each re-checked by [`crate::proof::check_proof`]) and
    /// recomputes the status with it. Does nothing otherwise.
    pub fn attach_proof(&mut self, inst: &Instance) {
        let lb = self.lower_bound.ticks;
        if self.proof.is_some() || lb.checked_add(1) != Some(self.ticks) {
            return;
        }
        self.proof = find_proof(inst, lb);
        self.status = certify(
            self.ticks,
            lb,
            self.bounds.degree.ticks,
            self.bounds.complete,
            self.proof.is_some(),
        );
    }

    /// Gap to the lower bound in ticks.
    pub fn gap(&self) -> u64 {
        self.ticks.saturating_sub(self.lower_bound.ticks)
    }
}
