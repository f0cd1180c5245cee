//! The two-tier machine (DESIGN.md §14, "Relays"): N nodes of G GPUs,
//! rank `r` is GPU `r % G` of node `r / G`. Each GPU has one NIC
//! (READ1_WRITE1: one chunk out and one in per tick, to GPUs of other
//! nodes) and one NVLink port carrying `nvlink_speedup` (rho) chunks out
//! and rho in per tick, to GPUs of its own node.
//!
//! A chunk of a demand `(a,i) -> (b,j)` with `a != b` travels
//! `(a,i) -> (a,k)` over NVLink (left out when `k = i`), `(a,k) -> (b,k')`
//! over the NICs, `(b,k') -> (b,j)` over NVLink (left out when `k' = j`);
//! a chunk of an intra-node demand takes one NVLink hop.

use crate::instance::{Instance, Model};

/// The machine a relay plan runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TwoTier {
    /// GPUs per node (G >= 1); the instance's slots are `nodes * G`.
    pub gpus_per_node: u32,
    /// Chunks one NVLink port carries each way per tick (rho >= 1).
    pub nvlink_speedup: u32,
}

/// Why an instance cannot be planned or checked with relays.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    #[error("relays are defined for READ1_WRITE1 only (one send and one receive per NIC and tick); STRICT1 with relays is not supported yet")]
    Strict1,
    #[error("gpus_per_node must be at least 1")]
    NoGpus,
    #[error("nvlink_speedup must be at least 1 (chunks per NVLink port and tick)")]
    NoSpeedup,
    #[error("{slots} slots are not a whole number of nodes of {gpus_per_node} GPUs (gpus_per_node must divide the slot count)")]
    PartialNode { slots: u32, gpus_per_node: u32 },
    #[error("relays take one NIC per GPU: the instance gives slots several ports")]
    MultiPort,
    #[error("the fractional bound's LP failed on node {node}: {why}")]
    Lp { node: u32, why: String },
    #[error("internal error: the relay plan does not validate ({0}); please report it")]
    Invalid(String),
    #[error("tick counts overflow u64 (the plan would be too long to represent)")]
    Overflow,
}

impl TwoTier {
    /// Checks that `inst` fits this machine: READ1_WRITE1, one port per
    /// slot, G dividing the slots, rho >= 1.
    pub fn check(&self, inst: &Instance) -> Result<(), RelayError> {
        if inst.model == Model::Strict1 {
            return Err(RelayError::Strict1);
        }
        if self.gpus_per_node == 0 {
            return Err(RelayError::NoGpus);
        }
        if self.nvlink_speedup == 0 {
            return Err(RelayError::NoSpeedup);
        }
        if inst.slots % self.gpus_per_node != 0 {
            return Err(RelayError::PartialNode {
                slots: inst.slots,
                gpus_per_node: self.gpus_per_node,
            });
        }
        if !inst.is_single_port() {
            return Err(RelayError::MultiPort);
        }
        Ok(())
    }

    /// Nodes of an instance of `slots` GPUs.
    pub fn nodes(&self, slots: u32) -> u32 {
        slots / self.gpus_per_node
    }

    /// The node of GPU `r`.
    pub fn node(&self, r: u32) -> u32 {
        r / self.gpus_per_node
    }

    /// The GPU of node `node` with local index `local`.
    pub fn rank(&self, node: u32, local: u32) -> u32 {
        node * self.gpus_per_node + local
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits};

    fn inst(model: Model, slots: u32) -> Instance {
        let d = [Demand {
            src: 0,
            dst: 1,
            bits: 8,
        }];
        Instance::new(model, slots, 8, d, &Limits::default()).unwrap()
    }

    #[test]
    fn strict1_and_bad_machines_are_refused_by_name() {
        let tt = TwoTier {
            gpus_per_node: 2,
            nvlink_speedup: 4,
        };
        assert_eq!(tt.check(&inst(Model::Strict1, 4)), Err(RelayError::Strict1));
        assert!(tt.check(&inst(Model::Read1Write1, 4)).is_ok());
        let err = tt.check(&inst(Model::Read1Write1, 5)).unwrap_err();
        assert!(err.to_string().contains("5 slots"), "{err}");
        let no_rho = TwoTier {
            nvlink_speedup: 0,
            ..tt
        };
        assert_eq!(
            no_rho.check(&inst(Model::Read1Write1, 4)),
            Err(RelayError::NoSpeedup)
        );
    }
}
