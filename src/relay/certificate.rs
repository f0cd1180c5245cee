//! The proof object of a relay lower bound: non-negative integer weights
//! on ports (DESIGN.md §14). Any weights `y >= 0` prove
//! `T >= sum_d chunks_d * dist_y(d) / sum_p y_p cap_p` (every chunk's
//! route costs at least `dist_y`, and in `T` ticks port `p` carries at
//! most `cap_p * T` chunks: 1 for a NIC side, rho for an NVLink side), so
//! `T >= ceil` of that. The node bound, the NVLink bound and the LP's
//! duals are all such weights; [`crate::relay::check::check_certificate`]
//! recomputes the bound from the weights alone.

use serde::{Deserialize, Serialize};

/// A port side of a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PortKind {
    #[serde(rename = "nic_out")]
    NicOut,
    #[serde(rename = "nic_in")]
    NicIn,
    #[serde(rename = "nvlink_out")]
    NvOut,
    #[serde(rename = "nvlink_in")]
    NvIn,
}

/// Weight `weight` on port side `port` of GPU `gpu`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortWeight {
    pub gpu: u32,
    pub port: PortKind,
    pub weight: u64,
}

/// Which bound a certificate proves (the summary names the one that binds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundKind {
    /// Every inter-node chunk crosses one of its node's G NICs.
    Node,
    /// Every chunk into (out of) a GPU crosses its NIC or its NVLink port.
    Nvlink,
    /// The fractional optimum's dual weights.
    Lp,
}

impl BoundKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BoundKind::Node => "node",
            BoundKind::Nvlink => "nvlink",
            BoundKind::Lp => "lp",
        }
    }
}

/// Port weights and the bound they prove (a whole number of ticks).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Certificate {
    pub kind: BoundKind,
    pub bound: u64,
    pub weights: Vec<PortWeight>,
}
