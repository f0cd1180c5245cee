//! Which GPUs' NVLink ports are tight: each GPU's NVLink load if every
//! node pair's chunks were spread evenly over the rails, against `rho x`
//! the plan's bound. Where one is, the rails' shares favour it
//! (`super::shares`), the rails take the chunks that spare it first
//! (`super::align::by_rails`), the first hops are placed before the last
//! (`super::hops`), and its intra-node chunks go first (`super::intra`).

use crate::relay::bounds::Loads;
use crate::relay::model::TwoTier;

/// A GPU's NVLink port is tight when the even split would load it to
/// this percentage of `rho x` the bound or more. Measured on hot-column
/// matrices at sigma 0.8-1.6 (doc/performance.md "Relays at sigma 1.6"):
/// 60-95 plan alike; at 85 the relay bench's 64 ranks (rho 4) counted as
/// tight and planned a tick longer (365 against 364).
const TIGHT_PERCENT: u64 = 95;

/// Each GPU's NVLink load under the even split (times G, the busier
/// direction) and the load from which a port is tight.
pub(crate) struct Pressure {
    pub(crate) per_gpu: Vec<u64>,
    pub(crate) limit: u64,
}

impl Pressure {
    /// The pressure on the GPUs of `loads` (the instance's, per GPU and
    /// kind) for a plan of `bound` ticks; `None` where rho >= G (every hop
    /// fits: `super::hops`).
    pub(crate) fn of(tt: TwoTier, loads: &Loads, bound: u64) -> Option<Pressure> {
        (tt.nvlink_speedup < tt.gpus_per_node).then(|| Pressure {
            per_gpu: nvlink_loads(tt, loads),
            limit: (TIGHT_PERCENT * tt.nvlink_speedup as u64 * tt.gpus_per_node as u64)
                .saturating_mul(bound)
                / 100,
        })
    }

    /// Whether GPU `gpu`'s NVLink port is tight.
    pub(crate) fn tight(&self, gpu: u32) -> bool {
        self.per_gpu[gpu as usize] >= self.limit
    }

    /// Whether any GPU's is.
    pub(crate) fn any_tight(&self) -> bool {
        self.per_gpu.iter().any(|&p| p >= self.limit)
    }
}

/// Each GPU's NVLink load (the busier of its two directions, times G) if
/// every pair's chunks were spread evenly over the rails: its intra-node
/// chunks, `(G-1)/G` of its inter-node chunks (first and last hops), and
/// the relayed hops through it (`1/G` of its node's other GPUs' chunks
/// each way).
fn nvlink_loads(tt: TwoTier, loads: &Loads) -> Vec<u64> {
    let g = tt.gpus_per_node as u64;
    let n = loads.inter_out.len();
    let mut out = Vec::with_capacity(n);
    for node in 0..(n / g as usize) as u32 {
        let (node_out, node_in) = loads.node_totals(tt, node);
        for r in tt.rank(node, 0) as usize..tt.rank(node + 1, 0) as usize {
            let o = loads.intra_out[r] * g
                + loads.inter_out[r] * (g - 1)
                + (node_in - loads.inter_in[r]);
            let i = loads.intra_in[r] * g
                + loads.inter_in[r] * (g - 1)
                + (node_out - loads.inter_out[r]);
            out.push(o.max(i));
        }
    }
    out
}
