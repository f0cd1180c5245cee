//! Re-checking a solve's claim without any solver.
//!
//! Given the instance, the schedule file's validation report and the claim
//! a summary makes, [`verify_claim`] checks, part by part, from the data
//! alone ([`Part`]):
//! 1. `model`: the summary's model is the instance's;
//! 2. `schedule`: the schedule validates (copyspace-guard semantics);
//! 3. `ticks`: its tick count is the summary's `ticks` (a count at the u64
//!    limit is refused: it cannot be told from a saturated one);
//! 4. `witness`: the witness re-derives the summary's `lower_bound` from the
//!    instance ([`Witness::recompute`]: a slot's degree, or an odd set's
//!    chunks);
//! 5. `status`: the status follows from those numbers (DESIGN.md §3), in
//!    checked arithmetic;
//! 6. `proof`: `optimal_exhaustive` needs a [`Proof`] bound to this
//!    instance's hash and to `lower_bound` ticks, checked by
//!    [`crate::proof::check_proof`] (a DRAT refutation of a CNF re-derived
//!    here, or a complementary-slackness argument re-enumerated here).
//!
//! A part that was not checked is reported as such, never as verified. A
//! wrong optimality claim is the worst bug this project can have, so this
//! path shares nothing with the solvers but the validator and the witness
//! arithmetic.

use crate::bounds::Witness;
use crate::graph::DemandGraph;
use crate::instance::Instance;
use crate::proof::{check_proof, Proof};
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
    /// The proof behind `optimal_exhaustive`.
    #[serde(default)]
    pub proof: Option<Proof>,
}

/// The parts of a claim, each checked on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Model,
    Schedule,
    Ticks,
    Witness,
    Status,
    Proof,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Model => "model",
            Part::Schedule => "schedule",
            Part::Ticks => "ticks",
            Part::Witness => "witness",
            Part::Status => "status",
            Part::Proof => "proof",
        }
    }
}

/// What was found for one part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Recomputed and equal to the claim.
    Checked,
    /// Recomputed and different, or impossible to check (a refusal).
    Failed,
    /// The claim does not rest on this part, so it was not checked.
    NotChecked,
}

/// One line of a verification.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    pub part: Part,
    pub outcome: Outcome,
    pub what: String,
}

/// Outcome of a verification: per part, what was recomputed.
#[derive(Clone, Debug, Serialize)]
pub struct Verification {
    /// True iff no line failed and every part the status rests on was checked.
    pub holds: bool,
    pub lines: Vec<Line>,
    /// The failed lines' texts (for messages).
    pub failures: Vec<String>,
}

struct Lines(Vec<Line>);

impl Lines {
    fn check(&mut self, part: Part, ok: bool, what: String) {
        let outcome = if ok {
            Outcome::Checked
        } else {
            Outcome::Failed
        };
        self.0.push(Line {
            part,
            outcome,
            what,
        });
    }
    fn skip(&mut self, part: Part, what: String) {
        self.0.push(Line {
            part,
            outcome: Outcome::NotChecked,
            what,
        });
    }
}

/// Whether the schedule was refused unread because its model is not the
/// instance's (its tick count is then 0 in the report, not the file's).
fn schedule_model_differs(report: &Report) -> bool {
    report.ticks_total == 0
        && report.errors.iter().any(|e| {
            e.kind == crate::validate::ErrorKind::Struct
                && e.msg.starts_with("schedule.model must match")
        })
}

/// Checks `claim` against `inst` and the validation `report` of its schedule.
pub fn verify_claim(inst: &Instance, report: &Report, claim: &Claim) -> Verification {
    let mut l = Lines(Vec::new());
    l.check(
        Part::Model,
        claim.model == inst.model.as_str(),
        format!(
            "summary model {} {} instance model {}",
            claim.model,
            if claim.model == inst.model.as_str() {
                "matches"
            } else {
                "differs from"
            },
            inst.model
        ),
    );
    l.check(
        Part::Schedule,
        report.passed(),
        format!("schedule validates: {}", report.one_line()),
    );
    let (t, lb) = (claim.ticks, claim.lower_bound);
    if schedule_model_differs(report) {
        l.skip(
            Part::Ticks,
            format!("summary claims {t} ticks; not counted: the schedule's model is not the instance's, so it was not read"),
        );
    } else if t == u64::MAX || report.ticks_total == u64::MAX {
        l.check(
            Part::Ticks,
            false,
            format!("tick count {} is at the u64 limit: refused (it cannot be told from an overflowed count)", t.max(report.ticks_total)),
        );
    } else {
        l.check(
            Part::Ticks,
            report.ticks_total == t,
            format!(
                "schedule has {} ticks, summary claims {t}",
                report.ticks_total
            ),
        );
    }
    let witness_ok = match claim.witness.recompute(inst) {
        Ok(b) => {
            l.check(
                Part::Witness,
                b == lb,
                format!(
                    "witness ({}) recomputed from the instance proves {b} ticks, summary claims lower bound {lb}",
                    claim.witness.kind()
                ),
            );
            b == lb
        }
        Err(e) => {
            l.check(
                Part::Witness,
                false,
                format!("witness ({}) does not hold: {e}", claim.witness.kind()),
            );
            false
        }
    };
    let lb1 = lb.checked_add(1);
    let plus_one = |l: &mut Lines, name: &str| match lb1 {
        Some(x) => l.check(
            Part::Status,
            t == x,
            format!("{name}: ticks {t} == lower bound {lb} + 1"),
        ),
        None => l.check(
            Part::Status,
            false,
            format!("{name}: lower bound {lb} + 1 overflows u64: refused"),
        ),
    };
    match claim.status {
        Status::Optimal => l.check(
            Part::Status,
            t == lb,
            format!("optimal: ticks {t} == lower bound {lb}"),
        ),
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
            plus_one(&mut l, "within_one");
            l.check(
                Part::Status,
                lb == delta,
                format!("within_one: lower bound {lb} == Delta {delta} (recomputed)"),
            );
        }
        Status::OptimalExhaustive => plus_one(&mut l, "optimal_exhaustive"),
        Status::Feasible => l.check(
            Part::Status,
            t >= lb,
            format!("feasible: ticks {t} >= lower bound {lb}"),
        ),
    }
    match (claim.status, &claim.proof) {
        (Status::OptimalExhaustive, None) => l.check(
            Part::Proof,
            false,
            "optimal_exhaustive: the summary carries no proof object, so the claim is unchecked"
                .into(),
        ),
        (Status::OptimalExhaustive, Some(p)) if inst.is_multiport() => l.check(
            Part::Proof,
            false,
            format!(
                "{} proof refused: proofs refute one-port colourings, and this instance has multi-port slots or per-demand bandwidths",
                p.body.kind()
            ),
        ),
        (Status::OptimalExhaustive, Some(p)) if !witness_ok => l.check(
            Part::Proof,
            false,
            format!(
                "{} proof not checked: it refutes the lower bound, which the witness does not prove",
                p.body.kind()
            ),
        ),
        (Status::OptimalExhaustive, Some(p)) => match check_proof(inst, lb, p) {
            Ok(c) => {
                for s in c.steps {
                    l.check(Part::Proof, true, format!("{} proof: {s}", c.kind));
                }
            }
            Err(e) => l.check(
                Part::Proof,
                false,
                format!("{} proof does not hold: {e}", p.body.kind()),
            ),
        },
        (s, Some(_)) => l.skip(
            Part::Proof,
            format!("a proof is attached but status {s} does not rest on one: not checked"),
        ),
        (s, None) => l.skip(
            Part::Proof,
            format!("status {s} needs no proof object"),
        ),
    }
    let failures: Vec<String> =
        l.0.iter()
            .filter(|x| x.outcome == Outcome::Failed)
            .map(|x| format!("{}: {}", x.part.as_str(), x.what))
            .collect();
    Verification {
        holds: failures.is_empty(),
        lines: l.0,
        failures,
    }
}
