//! The summary JSON that `solve` writes (and `verify` reads).

use crate::bounds::{Bounds, LowerBound};
use crate::instance::Instance;
use crate::proof::Proof;
use crate::solve::{Solution, Status};
use serde::{Deserialize, Serialize};

/// Summary of one solve: the claim and the numbers behind it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub tickopt_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub model: String,
    pub slots: u32,
    pub copy_bw_bits_per_tick: u64,
    /// Ports per slot, when not all 1 (DESIGN.md §11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<crate::instance::Ports>,
    pub demands: usize,
    pub chunks: u64,
    pub ticks: u64,
    pub lower_bound: u64,
    pub status: Status,
    pub witness: crate::bounds::Witness,
    pub gap: u64,
    pub solver: String,
    pub rounds: usize,
    pub seconds: f64,
    /// All bounds computed, each with its witness.
    pub bounds: serde_json::Value,
    /// The proof behind `optimal_exhaustive` (bound to the instance's hash
    /// and the refuted tick count); `verify` checks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<Proof>,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub details: serde_json::Map<String, serde_json::Value>,
    /// The schedule's ticks x tick time under the cost model (doc/design.md §12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_predicted: Option<f64>,
    /// Proven: no chunk size of `cost.range` (nor the schedule's) does better.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_lower_bound: Option<f64>,
    /// The cost model, the chunk size and how the seconds bound was obtained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cost::Seconds>,
    /// Wall-clock seconds of each phase (`tickopt solve` only; last, so
    /// that every other key keeps its place). Informational: `verify`
    /// lists it as not checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
}

/// Where the time of a `tickopt solve` went, in wall-clock seconds. The
/// phases follow one another; `seconds` (the library's solve) is bounds +
/// solve + validate, give or take the clock reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Timings {
    /// Reading and normalising the instance.
    pub parse: f64,
    /// The exact bound search (0 where the solver settled the bounds with
    /// its schedule: structure, backbone, a cheap pass at the degree bound).
    pub bounds: f64,
    /// Everything else of the solve: solvers, proofs, a chunk-size search.
    pub solve: f64,
    /// Validating the schedule before anything is written.
    pub validate: f64,
    /// Checking the size of and writing the schedule (`--out`); the summary
    /// itself, written last, is not counted.
    pub write: f64,
}

impl Summary {
    pub fn new(inst: &Instance, input: Option<String>, bounds: &Bounds, sol: &Solution) -> Summary {
        let LowerBound { ticks: lb, witness } = sol.lower_bound.clone();
        Summary {
            tickopt_version: env!("CARGO_PKG_VERSION").to_string(),
            instance: input,
            id: inst.id.clone(),
            model: inst.model.to_string(),
            slots: inst.slots,
            copy_bw_bits_per_tick: inst.bw,
            ports: (!inst.is_single_port()).then(|| inst.ports().clone()),
            demands: inst.demands().len(),
            chunks: inst.total_chunks(),
            ticks: sol.ticks,
            lower_bound: lb,
            status: sol.status,
            witness,
            gap: sol.gap(),
            solver: sol.stats.solver.clone(),
            rounds: sol.stats.rounds,
            seconds: sol.stats.seconds,
            bounds: serde_json::to_value(bounds).unwrap_or_default(),
            proof: sol.proof.clone(),
            details: sol.stats.details.clone(),
            seconds_predicted: None,
            seconds_lower_bound: None,
            cost: None,
            timings: None,
        }
    }

    /// The summary with the seconds of the solve under a cost model.
    pub fn with_seconds(mut self, s: crate::cost::Seconds) -> Summary {
        self.seconds_predicted = Some(s.predicted);
        self.seconds_lower_bound = Some(s.lower_bound);
        self.cost = Some(s);
        self
    }

    /// One human line: `T ticks (status; lower bound LB by WITNESS) in S s`.
    pub fn one_line(&self) -> String {
        let line = format!(
            "{} {} slots, {} chunks: {} ticks, lower bound {} ({}), status {}, solver {}, {:.3} s",
            self.model,
            self.slots,
            self.chunks,
            self.ticks,
            self.lower_bound,
            self.witness.kind(),
            self.status,
            self.solver,
            self.seconds
        );
        match &self.cost {
            Some(c) => format!(
                "{line}; chunk {} bits ({}): predicted {:.6} s, lower bound {:.6} s, fluid limit {:.6} s",
                c.chunk_bits,
                match c.chunk {
                    crate::cost::ChunkMode::Auto => "chosen",
                    crate::cost::ChunkMode::Given => "given",
                },
                c.predicted,
                c.lower_bound,
                c.fluid_limit_seconds
            ),
            None => line,
        }
    }
}
