//! Proof objects: the data behind an `optimal_exhaustive` claim, and the
//! checker that re-derives everything it needs from the instance alone
//! (DESIGN.md §10).
//!
//! A [`Proof`] is bound to one instance (the SHA-256 of the normalised
//! instance, model included) and to the tick count `T` it refutes: it shows
//! that no STRICT1 schedule of `T` ticks exists. Two kinds:
//!
//! - [`ProofBody::Drat`]: a DRAT refutation of the CNF "the chunk multigraph
//!   is edge-colourable with `T` colours" ([`cnf`]; with multi-port slots,
//!   f-colourable: at most `ports(v)` chunks per slot and tick), checked by
//!   the forward RUP checker in [`drat`] against the CNF that this module
//!   re-derives from the instance; fits small chunk multigraphs.
//! - [`ProofBody::Dual`]: a matching-LP dual of value `T` (complementary
//!   slackness restricts every `T`-tick schedule to the matchings of zero
//!   reduced cost), and the restricted integer system has no non-negative
//!   integer solution, checked in exact rational arithmetic ([`dual`]); fits
//!   high multiplicities on a small support (Petersen x 1001). One port per
//!   slot only.
//!
//! This module shares no code with the solvers (`colour`, `solve`): the
//! solvers call it to self-check a proof before claiming it, and `verify`
//! calls it to check a claim. Every count is checked arithmetic; every
//! search has a work limit, and running into it is a refusal, never a pass.

pub mod cnf;
pub mod drat;
pub mod dual;
mod rational;

use crate::instance::{Instance, Model};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A proof that the instance has no schedule of `refutes_ticks` ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proof {
    /// [`instance_sha256`] of the instance the proof is about.
    pub instance_sha256: String,
    /// The tick count shown impossible (the claim's lower bound).
    pub refutes_ticks: u64,
    /// The mathematics.
    pub body: ProofBody,
}

/// The two kinds of proof (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProofBody {
    Drat(drat::DratProof),
    Dual(dual::DualProof),
}

impl ProofBody {
    /// Short name of the kind, as in the JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            ProofBody::Drat(_) => "drat",
            ProofBody::Dual(_) => "dual",
        }
    }
}

/// Why a proof does not hold (or could not be checked within the limits).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("proof is for instance {found}, this instance is {expected}")]
    WrongInstance { expected: String, found: String },
    #[error("proof refutes {found} ticks, the claim needs {expected} refuted")]
    WrongTicks { expected: u64, found: u64 },
    #[error("proofs exist only for STRICT1 instances")]
    WrongModel,
    #[error("{0}")]
    Invalid(String),
    #[error("refused: {0}")]
    TooLarge(String),
    #[error("proof too large for the verify budget: {what} needs more than {budget} work units; raise it with --max-proof-work")]
    OverBudget { what: String, budget: u64 },
    #[error("refused: arithmetic overflow in {0}")]
    Overflow(&'static str),
}

/// Default verify budget, in work units (see [`Work`]): at most about a
/// second and 100 MB; every proof tickopt writes fits in it (the solver
/// self-checks under the same budget before it claims a proof).
pub const DEFAULT_MAX_PROOF_WORK: u64 = 100_000_000;

/// The work a proof check may do, counted as it goes: a unit is a clause
/// visit or a literal touched by the DRAT checker, or a
/// node of the matching enumeration; priced before anything is built,
/// [`drat::DRAT_BYTE_WORK`] per byte of DRAT text and
/// [`drat::LITERAL_WORK`] per literal of the CNF. Work is bounded
/// by the budget, so time and memory are bounded by the input and the
/// budget, never by what a claim asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    pub used: u64,
    pub budget: u64,
}

impl Work {
    pub fn new(budget: u64) -> Work {
        Work { used: 0, budget }
    }

    /// Charges `units` for `what`; refuses when the budget is exceeded.
    pub fn charge(&mut self, units: u64, what: &str) -> Result<(), ProofError> {
        self.used = self.used.saturating_add(units);
        if self.used > self.budget {
            return Err(ProofError::OverBudget {
                what: what.to_string(),
                budget: self.budget,
            });
        }
        Ok(())
    }
}

/// What a successful check established, for `verify` to print.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProofCheck {
    pub kind: &'static str,
    /// One line per thing recomputed.
    pub steps: Vec<String>,
}

/// SHA-256 (hex) of the normalised instance: model, slots, bw and the
/// merged, sorted demands (the instance's own normal form), independent of
/// how the file was written. A multi-port instance (DESIGN.md §11) is
/// hashed in a second form (`v2`) that adds every slot's ports and every
/// demand's bandwidth, so a proof about one port layout or bandwidth never
/// passes for another; copyspace-guard v0 instances keep the `v1` form.
/// `bench` keys its records by the same hash (one normal form, one hash).
pub fn instance_sha256(inst: &Instance) -> String {
    let mut h = Sha256::new();
    let multiport = inst.is_multiport();
    h.update(
        format!(
            "tickopt-proof-instance-{}\nmodel={}\nslots={}\nbw={}\n",
            if multiport { "v2" } else { "v1" },
            inst.model,
            inst.slots,
            inst.bw
        )
        .as_bytes(),
    );
    if multiport {
        let ports: Vec<String> = (0..inst.slots as usize)
            .map(|v| inst.port(v).to_string())
            .collect();
        h.update(format!("ports={}\n", ports.join(",")).as_bytes());
    }
    for (i, d) in inst.demands().iter().enumerate() {
        match multiport {
            false => h.update(format!("{},{},{}\n", d.src, d.dst, d.bits).as_bytes()),
            true => h.update(
                format!("{},{},{},{}\n", d.src, d.dst, d.bits, inst.demand_bw(i)).as_bytes(),
            ),
        }
    }
    hex(&h.finalize())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An undirected pair of slots `a < b` and its chunks (both directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SupportEdge {
    pub a: u32,
    pub b: u32,
    pub mult: u64,
}

/// The STRICT1 chunk multigraph as its support (pairs sorted, `a < b`) and
/// multiplicities, recomputed here from the demands with checked sums.
pub fn support(inst: &Instance) -> Result<Vec<SupportEdge>, ProofError> {
    let mut pairs: Vec<(u32, u32, u64)> = inst
        .demands()
        .iter()
        .enumerate()
        .map(|(i, d)| (d.src.min(d.dst), d.src.max(d.dst), inst.chunks(i)))
        .collect();
    pairs.sort_unstable();
    let mut out: Vec<SupportEdge> = Vec::with_capacity(pairs.len());
    for (a, b, m) in pairs {
        match out.last_mut() {
            Some(e) if e.a == a && e.b == b => {
                e.mult = e
                    .mult
                    .checked_add(m)
                    .ok_or(ProofError::Overflow("chunks"))?
            }
            _ => out.push(SupportEdge { a, b, mult: m }),
        }
    }
    out.retain(|e| e.mult > 0);
    Ok(out)
}

/// Checks that `proof` refutes `ticks` ticks for `inst`, re-deriving
/// everything from the instance, within `budget` work units ([`Work`]).
/// `Ok` only when every step was checked.
pub fn check_proof(
    inst: &Instance,
    ticks: u64,
    proof: &Proof,
    budget: u64,
) -> Result<ProofCheck, ProofError> {
    let mut work = Work::new(budget);
    if inst.model != Model::Strict1 {
        return Err(ProofError::WrongModel);
    }
    let expected = instance_sha256(inst);
    if proof.instance_sha256 != expected {
        return Err(ProofError::WrongInstance {
            expected,
            found: proof.instance_sha256.clone(),
        });
    }
    if proof.refutes_ticks != ticks {
        return Err(ProofError::WrongTicks {
            expected: ticks,
            found: proof.refutes_ticks,
        });
    }
    let mut steps = vec![format!(
        "proof bound to this instance (sha256 {}) and to {} ticks",
        &expected[..16],
        ticks
    )];
    match &proof.body {
        ProofBody::Drat(p) => steps.extend(drat::check(inst, ticks, p, &mut work)?),
        // The dual's tight sets are matchings: one port per slot only.
        ProofBody::Dual(_) if !inst.is_single_port() => {
            return Err(ProofError::Invalid(
                "a dual proof refutes one-port colourings; this instance has multi-port slots (a DRAT proof of the f-colouring CNF fits)".into(),
            ))
        }
        ProofBody::Dual(p) => steps.extend(dual::check(inst, ticks, p, &mut work)?),
    }
    Ok(ProofCheck {
        kind: proof.body.kind(),
        steps,
    })
}
