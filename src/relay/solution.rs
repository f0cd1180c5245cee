//! A relay plan and what is proven about it, and its summary JSON.

use super::certificate::{BoundKind, Certificate};
use super::model::TwoTier;
use super::schedule::RelaySchedule;
use serde::{Deserialize, Serialize};

/// A relay plan: the schedule, its ticks, and the best proven lower bound
/// with the certificate that proves it.
#[derive(Clone, Debug)]
pub struct RelaySolution {
    pub machine: TwoTier,
    pub schedule: RelaySchedule,
    pub ticks: u64,
    /// The largest of the bounds below; `certificate` proves it.
    pub lower_bound: u64,
    pub certificate: Certificate,
    pub node_bound: u64,
    pub nvlink_bound: u64,
    /// The LP's integer bound, when some node's LP could beat the others.
    pub lp_bound: Option<u64>,
    /// Ticks of the NIC layer alone (the node bound when rails balance).
    pub nic_ticks: u64,
    /// The best direct (unrelayed) schedule's ticks: the largest GPU
    /// degree in chunks (König, READ1_WRITE1).
    pub direct_ticks: u64,
    pub plan_seconds: f64,
}

/// The summary JSON of a relay solve (doc/formats.md, "Relay summary").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelaySummary {
    pub kind: String,
    pub model: String,
    pub slots: u32,
    pub gpus_per_node: u32,
    pub nvlink_speedup: u32,
    pub copy_bw_bits_per_tick: u64,
    pub chunks: u64,
    pub ticks: u64,
    pub lower_bound: u64,
    /// Which bound binds: `node`, `nvlink` or `lp`.
    pub bound: BoundKind,
    /// `optimal` when ticks equal the bound, else `feasible`.
    pub status: String,
    pub gap: u64,
    pub node_bound: u64,
    pub nvlink_bound: u64,
    pub lp_bound: Option<u64>,
    pub direct_ticks: u64,
    pub certificate: Certificate,
}

/// The `kind` of a relay summary.
pub const SUMMARY_KIND: &str = "relay_summary";

impl RelaySolution {
    /// Which bound binds.
    pub fn binding(&self) -> BoundKind {
        self.certificate.kind
    }

    /// The summary for an instance of `slots` GPUs, `bw` bits per chunk,
    /// `chunks` chunks in all.
    pub fn summary(&self, slots: u32, bw: u64, chunks: u64) -> RelaySummary {
        RelaySummary {
            kind: SUMMARY_KIND.to_string(),
            model: "READ1_WRITE1".to_string(),
            slots,
            gpus_per_node: self.machine.gpus_per_node,
            nvlink_speedup: self.machine.nvlink_speedup,
            copy_bw_bits_per_tick: bw,
            chunks,
            ticks: self.ticks,
            lower_bound: self.lower_bound,
            bound: self.binding(),
            status: if self.ticks == self.lower_bound {
                "optimal"
            } else {
                "feasible"
            }
            .to_string(),
            gap: self.ticks.saturating_sub(self.lower_bound),
            node_bound: self.node_bound,
            nvlink_bound: self.nvlink_bound,
            lp_bound: self.lp_bound,
            direct_ticks: self.direct_ticks,
            certificate: self.certificate.clone(),
        }
    }
}
