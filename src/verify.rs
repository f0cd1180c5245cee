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
//! 6. `seconds` (doc/design.md §12): `seconds_predicted`,
//!    `seconds_lower_bound` and the `cost` object, recomputed under the
//!    cost model (the one given to verify, else the summary's own): the
//!    predicted time from the ticks, the bound's witness step at its chunk
//!    size, and the bound over the chunk range re-searched from the
//!    instance with the summary's odd sets;
//! 7. `proof`: `optimal_exhaustive` needs a [`Proof`] bound to this
//!    instance's hash and to `lower_bound` ticks, checked by
//!    [`crate::proof::check_proof`] (a DRAT refutation of a CNF re-derived
//!    here, or a complementary-slackness argument re-enumerated here). With
//!    multi-port slots (DESIGN.md §11) the CNF is the f-colouring one and
//!    the hash covers ports and per-demand bandwidths; dual proofs are
//!    one-port only.
//!
//! A part that was not checked is reported as such, never as verified. A
//! wrong optimality claim is the worst bug this project can have, so this
//! path shares nothing with the solvers but the validator and the witness
//! arithmetic.

use crate::bounds::Witness;
use crate::cost::{chunk, CostModel, Seconds};
use crate::graph::DemandGraph;
use crate::instance::Instance;
use crate::proof::{check_proof, Proof};
use crate::solve::Status;
use crate::validate::Report;
use serde::{Deserialize, Serialize};

/// A summary JSON as verify reads it: the claim, the facts about the
/// instance it states, and every other key (reported as not checked).
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
    /// Facts about the instance, each compared with the instance's.
    #[serde(default)]
    pub slots: Option<u64>,
    #[serde(default)]
    pub copy_bw_bits_per_tick: Option<u64>,
    #[serde(default)]
    pub demands: Option<u64>,
    #[serde(default)]
    pub chunks: Option<u64>,
    #[serde(default)]
    pub gap: Option<u64>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub ports: Option<serde_json::Value>,
    /// The instance file the summary was made from (compared by file name).
    #[serde(default)]
    pub instance: Option<String>,
    /// Seconds under the cost model (doc/design.md §12).
    #[serde(default)]
    pub seconds_predicted: Option<f64>,
    #[serde(default)]
    pub seconds_lower_bound: Option<f64>,
    #[serde(default)]
    pub cost: Option<serde_json::Value>,
    /// Keys of the summary's witness object that no witness of its kind
    /// has (a witness is rejected for them).
    #[serde(skip)]
    pub witness_extra_fields: Vec<String>,
    /// Every other key: informational (solver, seconds, timings, ...) or unknown;
    /// listed as not checked.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Claim {
    /// Reads a summary JSON value, noting witness keys that the parsed
    /// witness does not carry.
    pub fn from_value(v: serde_json::Value) -> Result<Claim, serde_json::Error> {
        let raw_witness = v.get("witness").cloned();
        let mut claim: Claim = serde_json::from_value(v)?;
        let known = serde_json::to_value(&claim.witness)?;
        if let (Some(serde_json::Value::Object(raw)), serde_json::Value::Object(known)) =
            (raw_witness, known)
        {
            claim.witness_extra_fields = raw
                .keys()
                .filter(|k| !known.contains_key(*k))
                .cloned()
                .collect();
        }
        Ok(claim)
    }
}

/// How verify runs: its work budget and what it knows of the inputs.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Work budget of the proof check ([`crate::proof::Work`]).
    pub max_proof_work: u64,
    /// The instance file's name, compared with the summary's `instance`.
    pub instance_file_name: Option<String>,
    /// The cost model given to verify (flags or the instance's `"cost"`),
    /// compared with the summary's.
    pub cost: Option<crate::cost::CostModel>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            max_proof_work: crate::proof::DEFAULT_MAX_PROOF_WORK,
            instance_file_name: None,
            cost: None,
        }
    }
}

/// The parts of a claim, each checked on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Model,
    Fields,
    Schedule,
    Ticks,
    Witness,
    Status,
    Seconds,
    Proof,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Model => "model",
            Part::Fields => "fields",
            Part::Schedule => "schedule",
            Part::Ticks => "ticks",
            Part::Witness => "witness",
            Part::Status => "status",
            Part::Seconds => "seconds",
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

/// Checks `claim` against `inst` and the validation `report` of its
/// schedule. Cheap parts first; the proof is checked only when everything
/// else holds, within `opts.max_proof_work`.
pub fn verify_claim(
    inst: &Instance,
    report: &Report,
    claim: &Claim,
    opts: &VerifyOptions,
) -> Verification {
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
    check_fields(&mut l, inst, claim, opts);
    l.check(
        Part::Schedule,
        report.passed(),
        format!("schedule validates: {}", report.one_line()),
    );
    check_ticks(&mut l, report, claim);
    let witness_ok = check_witness(&mut l, inst, claim);
    check_status(&mut l, inst, claim);
    check_seconds(&mut l, inst, claim, opts);
    check_proof_part(&mut l, inst, claim, witness_ok, opts);
    let unchecked: Vec<&str> = claim.other.keys().map(String::as_str).collect();
    if !unchecked.is_empty() {
        l.skip(
            Part::Fields,
            format!(
                "not checked: {} (informational; nothing here recomputes them)",
                unchecked.join(", ")
            ),
        );
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

/// The schedule's tick count against the claim's (not counted when the
/// schedule was refused unread; refused at the u64 limit).
fn check_ticks(l: &mut Lines, report: &Report, claim: &Claim) {
    let t = claim.ticks;
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
}

/// The witness recomputed from the instance proves the claimed lower
/// bound; returns whether it does.
fn check_witness(l: &mut Lines, inst: &Instance, claim: &Claim) -> bool {
    let lb = claim.lower_bound;
    match claim.witness.recompute(inst) {
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
    }
}

/// The status against ticks and lower bound (doc/design.md §3):
/// `within_one` also needs the bound to be Delta, recomputed.
fn check_status(l: &mut Lines, inst: &Instance, claim: &Claim) {
    let (t, lb) = (claim.ticks, claim.lower_bound);
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
            plus_one(l, "within_one");
            l.check(
                Part::Status,
                lb == delta,
                format!("within_one: lower bound {lb} == Delta {delta} (recomputed)"),
            );
        }
        Status::OptimalExhaustive => plus_one(l, "optimal_exhaustive"),
        Status::Feasible => l.check(
            Part::Status,
            t >= lb,
            format!("feasible: ticks {t} >= lower bound {lb}"),
        ),
    }
}

/// The proof object: checked (within `opts.max_proof_work`) only for
/// `optimal_exhaustive` when everything above holds and the witness
/// proves the bound it refutes; its absence fails that status.
fn check_proof_part(
    l: &mut Lines,
    inst: &Instance,
    claim: &Claim,
    witness_ok: bool,
    opts: &VerifyOptions,
) {
    let lb = claim.lower_bound;
    let earlier_failed = l.0.iter().any(|x| x.outcome == Outcome::Failed);
    match (claim.status, &claim.proof) {
        (Status::OptimalExhaustive, Some(p)) if earlier_failed => l.skip(
            Part::Proof,
            format!(
                "{} proof not checked: the claim already fails above",
                p.body.kind()
            ),
        ),
        (Status::OptimalExhaustive, None) => l.check(
            Part::Proof,
            false,
            "optimal_exhaustive: the summary carries no proof object, so the claim is unchecked"
                .into(),
        ),
        (Status::OptimalExhaustive, Some(p)) if !witness_ok => l.check(
            Part::Proof,
            false,
            format!(
                "{} proof not checked: it refutes the lower bound, which the witness does not prove",
                p.body.kind()
            ),
        ),
        (Status::OptimalExhaustive, Some(p)) => match check_proof(inst, lb, p, opts.max_proof_work) {
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
}

/// Whether a summary's `instance` says the instance came on stdin (the
/// plugin's `<stdin>`, a CLI's `-`): there is no file name to compare, and
/// the instance is bound by the other fields (and a proof's hash).
fn read_from_stdin(name: &str) -> bool {
    matches!(name, "<stdin>" | "-")
}

/// The summary's statements about the instance, each recomputed from it
/// (checked arithmetic) and compared.
fn check_fields(l: &mut Lines, inst: &Instance, claim: &Claim, opts: &VerifyOptions) {
    // `from` says where the true value comes from ("the instance", or
    // "ticks - lower_bound" for the gap), so the line reads right.
    let mut field_from =
        |name: &str, claimed: Option<String>, actual: Option<String>, from: &str| {
            if let Some(c) = claimed {
                let ok = actual.as_deref() == Some(c.as_str());
                let actual = actual.unwrap_or_else(|| "not computable (overflow)".into());
                l.check(
                    Part::Fields,
                    ok,
                    format!("{name}: summary says {c}, {from} gives {actual}"),
                );
            }
        };
    let chunks = (0..inst.demands().len()).try_fold(0u64, |a, i| a.checked_add(inst.chunks(i)));
    let mut field = |name: &str, claimed: Option<String>, actual: Option<String>| {
        field_from(name, claimed, actual, "the instance")
    };
    field(
        "slots",
        claim.slots.map(|x| x.to_string()),
        Some(inst.slots.to_string()),
    );
    field(
        "copy_bw_bits_per_tick",
        claim.copy_bw_bits_per_tick.map(|x| x.to_string()),
        Some(inst.bw.to_string()),
    );
    field(
        "demands",
        claim.demands.map(|x| x.to_string()),
        Some(inst.demands().len().to_string()),
    );
    field(
        "chunks",
        claim.chunks.map(|x| x.to_string()),
        chunks.map(|c| c.to_string()),
    );
    field(
        "id",
        claim.id.clone(),
        Some(inst.id.clone().unwrap_or_else(|| "(none)".into())),
    );
    field_from(
        "gap",
        claim.gap.map(|x| x.to_string()),
        claim
            .ticks
            .checked_sub(claim.lower_bound)
            .map(|g| g.to_string()),
        "ticks - lower_bound",
    );
    let ports = (!inst.is_single_port())
        .then(|| serde_json::to_value(inst.ports()).ok())
        .flatten();
    if let Some(p) = &claim.ports {
        let ok = Some(p) == ports.as_ref() || (p.is_null() && ports.is_none());
        l.check(
            Part::Fields,
            ok,
            format!(
                "ports: summary says {p}, the instance gives {}",
                ports.map_or("one port per slot".to_string(), |v| v.to_string())
            ),
        );
    }
    if let Some(name) = claim.instance.as_ref().filter(|n| !read_from_stdin(n)) {
        let claimed = std::path::Path::new(name)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        match &opts.instance_file_name {
            Some(given) => l.check(
                Part::Fields,
                claimed.as_deref() == Some(given.as_str()),
                format!("instance: summary names {name}, verifying against {given}"),
            ),
            None => l.skip(
                Part::Fields,
                format!("instance: summary names {name}; no file name to compare"),
            ),
        }
    }
    if let Some(name) = claim.instance.as_ref().filter(|n| read_from_stdin(n)) {
        l.skip(
            Part::Fields,
            format!("instance: {name} (read from stdin): no file name to compare"),
        );
    }
    if !claim.witness_extra_fields.is_empty() {
        l.check(
            Part::Fields,
            false,
            format!(
                "witness: field(s) {} are not part of a {} witness",
                claim.witness_extra_fields.join(", "),
                claim.witness.kind()
            ),
        );
    }
}

/// Whether two computed seconds agree up to rounding.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-300
}

/// The seconds part of a claim, recomputed (doc/design.md §12): the cost
/// model, the predicted seconds, the bound's witness step, the bound over
/// the chunk range.
fn check_seconds(l: &mut Lines, inst: &Instance, claim: &Claim, opts: &VerifyOptions) {
    let Some((s, model)) = seconds_cost_model(l, claim, opts) else {
        return;
    };
    let predicted = check_predicted(l, inst, claim, &s, &model);
    check_bound_step(l, inst, &s, &model);
    check_seconds_lower_bound(l, inst, claim, &s, &model, predicted);
    l.skip(
        Part::Seconds,
        "not checked: cost.bound_method, cost.bound_complete, cost.chunk (informational)".into(),
    );
}

/// The claim's `cost` object and its cost model, compared with the one
/// given; `None` (with the failure, if seconds are stated) when there is
/// nothing to check against.
fn seconds_cost_model(
    l: &mut Lines,
    claim: &Claim,
    opts: &VerifyOptions,
) -> Option<(Seconds, CostModel)> {
    let stated = claim.seconds_predicted.is_some() || claim.seconds_lower_bound.is_some();
    let s: Seconds = match &claim.cost {
        None if !stated => return None,
        None => {
            l.check(
                Part::Seconds,
                false,
                "seconds_predicted/seconds_lower_bound stated without the `cost` object: nothing to check them against".into(),
            );
            return None;
        }
        Some(v) => match serde_json::from_value(v.clone()) {
            Ok(s) => s,
            Err(e) => {
                l.check(Part::Seconds, false, format!("cost object unreadable: {e}"));
                return None;
            }
        },
    };
    let model = match CostModel::new(s.alpha_us, s.link_gbps) {
        Ok(m) => m,
        Err(e) => {
            l.check(Part::Seconds, false, format!("cost model: {e}"));
            return None;
        }
    };
    match &opts.cost {
        Some(given) => l.check(
            Part::Seconds,
            *given == model,
            format!(
                "cost model: summary's {} against the given {}",
                model.flags(),
                given.flags()
            ),
        ),
        None => l.skip(
            Part::Seconds,
            format!(
                "cost model: the summary's own ({}); none given to compare (--alpha-us/--link-gbps or the instance's \"cost\")",
                model.flags()
            ),
        ),
    }
    Some((s, model))
}

/// The chunk size, the predicted seconds (ticks x tick time) and the fluid
/// limit; returns the predicted seconds recomputed.
fn check_predicted(
    l: &mut Lines,
    inst: &Instance,
    claim: &Claim,
    s: &Seconds,
    model: &CostModel,
) -> f64 {
    l.check(
        Part::Seconds,
        s.chunk_bits == inst.bw,
        format!(
            "cost.chunk_bits {} is the instance's chunk size {}",
            s.chunk_bits, inst.bw
        ),
    );
    let predicted = model.seconds(claim.ticks, inst.bw);
    for (name, v) in [
        ("seconds_predicted", claim.seconds_predicted),
        ("cost.predicted", Some(s.predicted)),
    ] {
        match v {
            Some(v) => l.check(
                Part::Seconds,
                close(v, predicted),
                format!(
                    "{name} {v:e} s: ticks {} x tick time {:e} s = {predicted:e} s",
                    claim.ticks,
                    model.tick_seconds(inst.bw)
                ),
            ),
            None => l.check(Part::Seconds, false, format!("{name} missing")),
        }
    }
    let fluid = chunk::fluid_limit_seconds(inst, model);
    l.check(
        Part::Seconds,
        close(s.fluid_limit_seconds, fluid) && close(s.ratio_to_fluid * fluid, s.predicted),
        format!(
            "fluid limit {:e} s (recomputed {fluid:e} s), ratio {:.6}",
            s.fluid_limit_seconds, s.ratio_to_fluid
        ),
    );
    predicted
}

/// The witness step: a tick bound at one chunk size (in the range),
/// recomputed, times its tick time.
fn check_bound_step(l: &mut Lines, inst: &Instance, s: &Seconds, model: &CostModel) {
    // The witness step: a tick bound at one chunk size, times its tick time.
    let b = &s.bound;
    let in_range = b.chunk_bits == inst.bw
        || s.range.is_some_and(|r| {
            b.chunk_bits % 8 == 0 && (r.min_bits..=r.max_bits).contains(&b.chunk_bits)
        });
    let step = match (in_range, inst.with_bw(b.chunk_bits)) {
        (false, _) => Err(format!("chunk size {} is outside the range", b.chunk_bits)),
        (true, _) if b.chunk_bits == inst.bw => {
            b.witness.recompute(inst).map_err(|e| e.to_string())
        }
        (true, Ok(at)) => b.witness.recompute(&at).map_err(|e| e.to_string()),
        (true, Err(e)) => Err(e.to_string()),
    };
    let step_ok = matches!(step, Ok(t) if t == b.ticks)
        && close(b.seconds, model.seconds(b.ticks, b.chunk_bits));
    l.check(
        Part::Seconds,
        step_ok,
        match step {
            Ok(t) => format!(
                "bound step: at chunk {} bits the {} witness proves {t} ticks (claims {}), x tick time = {:e} s (claims {:e} s)",
                b.chunk_bits,
                b.witness.kind(),
                b.ticks,
                model.seconds(t, b.chunk_bits),
                b.seconds
            ),
            Err(e) => format!("bound step at chunk {} bits does not hold: {e}", b.chunk_bits),
        },
    );
}

/// The bound over the range, searched again with the summary's odd sets:
/// the claimed seconds lower bound is no more than it, equals the cost
/// object's, and is no more than the predicted seconds.
fn check_seconds_lower_bound(
    l: &mut Lines,
    inst: &Instance,
    claim: &Claim,
    s: &Seconds,
    model: &CostModel,
    predicted: f64,
) {
    // The bound over the range, searched again with the summary's odd sets.
    let at_given = model.seconds(claim.lower_bound, inst.bw);
    let recomputed = match s.range {
        None if inst.has_demand_bw() => Ok(at_given),
        None => Err("no chunk range stated for a one-bandwidth instance".to_string()),
        Some(r) => chunk::ChunkRange::new(r.min_bits, r.max_bits)
            .and_then(|r| {
                chunk::bound_over_range(
                    inst,
                    model,
                    r,
                    &s.odd_sets,
                    chunk::ChunkOptions::default().max_work,
                )
            })
            .map(|x| x.lower_bound_seconds.min(at_given))
            .map_err(|e| e.to_string()),
    };
    let claimed = claim.seconds_lower_bound;
    match (claimed, recomputed) {
        (Some(v), Ok(r)) => {
            let over = format!(
                "the minimum over {} of (tick bound x tick time) recomputed{}",
                match s.range {
                    Some(r) => format!(
                        "chunk sizes {}..={} bits and {} bits",
                        r.min_bits, r.max_bits, inst.bw
                    ),
                    None => format!("the chunk size {} bits", inst.bw),
                },
                if s.odd_sets.is_empty() {
                    String::new()
                } else {
                    format!(" with {} odd set(s)", s.odd_sets.len())
                }
            );
            // Each failure says which comparison failed (never a "<=" line
            // on a FAIL that reads true).
            let (ok, what) = if v > r * (1.0 + 1e-9) {
                (
                    false,
                    format!("seconds_lower_bound {v:e} s is above {r:e} s, {over}"),
                )
            } else if !close(v, s.lower_bound) {
                (
                    false,
                    format!(
                        "seconds_lower_bound {v:e} s differs from the summary's cost.lower_bound {:e} s",
                        s.lower_bound
                    ),
                )
            } else if v > predicted * (1.0 + 1e-9) {
                (
                    false,
                    format!(
                        "seconds_lower_bound {v:e} s is above seconds_predicted {predicted:e} s"
                    ),
                )
            } else {
                (
                    true,
                    format!("seconds_lower_bound {v:e} s <= {r:e} s, {over}"),
                )
            };
            l.check(Part::Seconds, ok, what)
        }
        (None, _) => l.check(Part::Seconds, false, "seconds_lower_bound missing".into()),
        (Some(v), Err(e)) => l.check(
            Part::Seconds,
            false,
            format!("seconds_lower_bound {v:e} s cannot be recomputed: {e}"),
        ),
    }
}
