//! One benchmark run's record and its identity (the instance hash in it is
//! the proofs' own, [`crate::proof::instance_sha256`]).

use crate::solve::Status;
use serde::{Deserialize, Serialize};

/// copyspace-guard's numbers for the same instance and model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CgResult {
    /// Ticks of copyspace-guard's greedy schedule.
    pub ticks: Option<u64>,
    pub lower_bound: Option<u64>,
    /// Whether copyspace-guard considers its bound complete.
    pub bounds_complete: Option<bool>,
    /// Wall-clock seconds of `copyspace-guard analyze` (timing field).
    pub seconds: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How a run ended: a solve with its certificate status, or no solve at
/// all (the instance or entry could not be read, or the engine failed).
/// Written as the status's own name (`optimal`, `optimal_exhaustive`,
/// `within_one`, `feasible`) or `failed`, so results files keep one flat
/// string field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunStatus {
    Solved(Status),
    Failed,
}

impl RunStatus {
    /// Every outcome, in display order (strongest certificate first).
    pub const ALL: [RunStatus; 5] = [
        RunStatus::Solved(Status::Optimal),
        RunStatus::Solved(Status::OptimalExhaustive),
        RunStatus::Solved(Status::WithinOne),
        RunStatus::Solved(Status::Feasible),
        RunStatus::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Solved(s) => s.as_str(),
            RunStatus::Failed => "failed",
        }
    }

    /// Whether the run's schedule is proven optimal (`optimal`,
    /// `optimal_exhaustive`): its gap to the optimum is zero whatever its
    /// gap to the lower bound.
    pub fn proves_optimum(self) -> bool {
        matches!(
            self,
            RunStatus::Solved(Status::Optimal | Status::OptimalExhaustive)
        )
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RunStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        RunStatus::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!("unknown run status {s:?} (expected optimal, optimal_exhaustive, within_one, feasible or failed)")
            })
    }
}

impl Serialize for RunStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RunStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One run: an instance of a set under one model with one set of options.
/// A failed run has `status == RunStatus::Failed`, `error` set and the
/// numbers it could not compute absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchRecord {
    pub set: String,
    pub instance: String,
    /// File relative to the set's manifest.
    pub file: String,
    pub family: String,
    /// SHA-256 of the normalised instance, the proofs' own hash
    /// ([`crate::proof::instance_sha256`]: model, slots, bw, merged sorted
    /// demands, and ports and per-demand bw for a multi-port instance);
    /// empty when the instance could not be read. Older journals hold an
    /// earlier bench-only hash (no model, ports or per-demand bw): those
    /// records match no run key now, so `--resume` runs them once again.
    pub instance_hash: String,
    /// `STRICT1`, `READ1_WRITE1`, or empty for an entry that never got to a model.
    pub model: String,
    /// The options that shape the result ([`crate::bench::BenchOptions::key`]).
    pub options: String,
    pub slots: Option<u32>,
    pub demands: Option<u64>,
    pub chunks: Option<u64>,
    /// Bits per chunk the run used (copy_bw_bits_per_tick); absent in
    /// journals written before it was recorded.
    #[serde(default)]
    pub bw: Option<u64>,
    /// Where `bw` came from: `manifest` (the entry's `bw`), `csv comment`
    /// (the CSV's `# copy_bw_bits_per_tick=N` line), `instance json` (its
    /// own field) or `--bw` (the fallback for files that record none).
    #[serde(default)]
    pub bw_from: Option<String>,
    pub lower_bound: Option<u64>,
    pub witness: Option<String>,
    pub ticks: Option<u64>,
    /// The solve's status, or `failed`.
    pub status: RunStatus,
    /// ticks - lower bound (audit's `gap_ticks` is ticks - optimum when the
    /// optimum is proven). Journals written before the rename say `gap`.
    #[serde(alias = "gap")]
    pub gap_ticks: Option<u64>,
    /// ticks / lower bound (1.0 at the bound; not audit's `gap_ratio`, which
    /// is gap / reference and 0.0 at the optimum). Old journals: `gap_ratio`.
    #[serde(alias = "gap_ratio")]
    pub ticks_over_bound: Option<f64>,
    /// Seconds the schedule takes under the run's link cost model (ticks x
    /// tick time at the instance's bw); absent without a cost model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_predicted: Option<f64>,
    /// `seconds_predicted` over the fluid limit (bytes through the busiest
    /// slot / link rate): 1.0 is what the links allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_over_fluid: Option<f64>,
    pub known_optimum: Option<u64>,
    /// `match`, `above` (ticks > known optimum) or `contradiction` (ticks or
    /// bound on the wrong side of a proven optimum: a bug).
    pub known_check: Option<String>,
    /// Whether the engine's validator passed the schedule.
    pub valid: Option<bool>,
    pub solver: Option<String>,
    pub rounds: Option<u64>,
    /// Seconds for the bounds (timing field).
    pub bounds_seconds: f64,
    /// Seconds for the solve, bounds and validation included (timing field).
    pub seconds: f64,
    pub tickopt_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cg: Option<CgResult>,
    /// Ticks of the pairwise-exchange baseline (`--compare-pairwise`:
    /// round `i`, slot `r` sends to `(r + i) mod n`), absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairwise_ticks: Option<u64>,
    /// `pairwise_ticks / ticks`: how many times fewer ticks tickopt needs
    /// than the baseline (>= 1 when tickopt is at least as good).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairwise_over_ticks: Option<f64>,
}

/// Identity of a run: what `--resume` and `merge` match on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunKey {
    pub set: String,
    pub file: String,
    pub model_order: u8,
    pub model: String,
    pub instance_hash: String,
    pub options: String,
}

impl BenchRecord {
    pub fn is_failed(&self) -> bool {
        self.status == RunStatus::Failed
    }

    /// The identity `--resume` and `merge` use.
    pub fn key(&self) -> RunKey {
        RunKey {
            set: self.set.clone(),
            file: self.file.clone(),
            model_order: model_order(&self.model),
            model: self.model.clone(),
            instance_hash: self.instance_hash.clone(),
            options: self.options.clone(),
        }
    }

    /// The record with every timing field zeroed: what is compared for
    /// determinism (seconds vary from run to run).
    pub fn without_timing(&self) -> BenchRecord {
        let mut r = self.clone();
        r.seconds = 0.0;
        r.bounds_seconds = 0.0;
        if let Some(cg) = &mut r.cg {
            cg.seconds = 0.0;
        }
        r
    }
}

/// Sort position of a model name: STRICT1, READ1_WRITE1, anything else.
fn model_order(model: &str) -> u8 {
    match model {
        "STRICT1" => 0,
        "READ1_WRITE1" => 1,
        _ => 2,
    }
}

/// Sorts records into the canonical order (set, file, model, options).
pub fn sort_records(records: &mut [BenchRecord]) {
    records.sort_by_key(|r| r.key());
}
