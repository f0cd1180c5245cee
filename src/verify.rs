//! Re-checking a solve's claim without any solver.
//!
//! Given the instance, the schedule file and the summary a solve wrote,
//! [`verify_claim`] checks, from the data alone:
//! 1. the schedule validates (copyspace-guard semantics) and its tick count
//!    is the summary's `ticks`;
//! 2. the witness re-derives the summary's `lower_bound` from the instance
//!    ([`Witness::recompute`]: a slot's degree, or an odd set's chunks);
//! 3. the status follows from those numbers (DESIGN.md §3):
//!    `optimal` needs ticks == bound; `within_one` needs ticks == bound + 1
//!    and bound == Delta (recomputed); `optimal_exhaustive` needs ticks ==
//!    bound + 1 and an exhaustive-search record (the search itself is not
//!    re-run); `feasible` needs ticks >= bound.
//!
//! A wrong optimality claim is the worst bug this project can have, so
//! this path shares nothing with the solvers but the validator and the
//! witness arithmetic.

use crate::bounds::Witness;
use crate::graph::DemandGraph;
use crate::instance::Instance;
use crate::solve::Status;
use crate::validate::Report;
use serde::{Deserialize, Serialize};

/// The part of a summary JSON that makes the claim.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Claim {
    pub model: String,
    pub ticks: u64,
    pub lower_bound: u64,
    pub status: Status,
    pub witness: Witness,
    #[serde(default)]
    pub exhaustive: Option<serde_json::Value>,
}

/// Outcome of a verification: what was checked, and what failed.
#[derive(Clone, Debug, Serialize)]
pub struct Verification {
    pub holds: bool,
    pub checks: Vec<String>,
    pub failures: Vec<String>,
}

/// Checks `claim` against `inst` and the validation `report` of its schedule.
pub fn verify_claim(inst: &Instance, report: &Report, claim: &Claim) -> Verification {
    let mut checks = Vec::new();
    let mut failures = Vec::new();
    let mut check = |ok: bool, what: String| {
        if ok {
            checks.push(what);
        } else {
            failures.push(what);
        }
    };
    check(
        claim.model == inst.model.as_str(),
        format!(
            "summary model {} matches instance model {}",
            claim.model, inst.model
        ),
    );
    check(
        report.passed(),
        format!("schedule validates: {}", report.one_line()),
    );
    check(
        report.ticks_total == claim.ticks,
        format!(
            "schedule has {} ticks, summary claims {}",
            report.ticks_total, claim.ticks
        ),
    );
    match claim.witness.recompute(inst) {
        Ok(b) => check(
            b == claim.lower_bound,
            format!(
                "witness ({}) proves {b} ticks, summary claims lower bound {}",
                claim.witness.kind(),
                claim.lower_bound
            ),
        ),
        Err(e) => check(
            false,
            format!("witness ({}) does not hold: {e}", claim.witness.kind()),
        ),
    }
    let (t, lb) = (claim.ticks, claim.lower_bound);
    match claim.status {
        Status::Optimal => check(t == lb, format!("optimal: ticks {t} == lower bound {lb}")),
        Status::WithinOne => {
            let g = DemandGraph::new(inst);
            // Multi-port (DESIGN.md §11): Delta is max ceil(d(v)/ports(v)).
            let delta = match inst.is_single_port() {
                true => g.max_degree().0,
                false => (0..inst.slots as usize)
                    .map(|v| g.degree(v).div_ceil(inst.port(v) as u64))
                    .max()
                    .unwrap_or(0),
            };
            check(
                t == lb + 1,
                format!("within_one: ticks {t} == lower bound {lb} + 1"),
            );
            check(
                lb == delta,
                format!("within_one: lower bound {lb} == Delta {delta}"),
            );
        }
        Status::OptimalExhaustive => {
            check(
                t == lb + 1,
                format!("optimal_exhaustive: ticks {t} == lower bound {lb} + 1"),
            );
            check(
                claim.exhaustive.is_some(),
                "optimal_exhaustive: summary carries the exhaustive-search record".into(),
            );
        }
        Status::Feasible => check(t >= lb, format!("feasible: ticks {t} >= lower bound {lb}")),
    }
    Verification {
        holds: failures.is_empty(),
        checks,
        failures,
    }
}
