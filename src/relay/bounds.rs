//! Lower bounds on a relay plan's ticks, each as port weights
//! ([`Certificate`]): the node bound (every inter-node chunk crosses one
//! of its node's G NICs: `max_a ceil(out(a)/G), ceil(in(a)/G)`), the
//! NVLink bound (every chunk out of or into a GPU crosses its NIC or its
//! NVLink port: `ceil(total/(1 + rho))`) and the LP's (`super::lp`).

use super::certificate::{BoundKind, Certificate, PortKind, PortWeight};
use super::check::bound_of_weights;
use super::model::{RelayError, TwoTier};
use crate::instance::Instance;

/// Chunks per GPU: inter-node out and in, intra-node out and in.
#[derive(Clone, Debug, Default)]
pub struct Loads {
    pub inter_out: Vec<u64>,
    pub inter_in: Vec<u64>,
    pub intra_out: Vec<u64>,
    pub intra_in: Vec<u64>,
}

impl Loads {
    /// Sums the chunks of `inst` per GPU and kind (checked: a total that
    /// overflows u64 is an error).
    pub fn of(inst: &Instance, tt: TwoTier) -> Result<Loads, RelayError> {
        let n = inst.slots as usize;
        let mut l = Loads {
            inter_out: vec![0; n],
            inter_in: vec![0; n],
            intra_out: vec![0; n],
            intra_in: vec![0; n],
        };
        for (d, dem) in inst.demands().iter().enumerate() {
            let c = inst.chunks(d);
            let (s, t) = (dem.src as usize, dem.dst as usize);
            let (o, i) = if tt.node(dem.src) == tt.node(dem.dst) {
                (&mut l.intra_out, &mut l.intra_in)
            } else {
                (&mut l.inter_out, &mut l.inter_in)
            };
            o[s] = o[s].checked_add(c).ok_or(RelayError::Overflow)?;
            i[t] = i[t].checked_add(c).ok_or(RelayError::Overflow)?;
        }
        Ok(l)
    }

    /// Inter-node chunks out of and into node `a`.
    pub fn node_totals(&self, tt: TwoTier, a: u32) -> (u64, u64) {
        let r = tt.rank(a, 0) as usize..tt.rank(a + 1, 0) as usize;
        (
            self.inter_out[r.clone()].iter().sum(),
            self.inter_in[r].iter().sum(),
        )
    }
}

/// The node bound and its certificate (unit weights on the NIC sides of
/// the node that sets it), the bound counted from `loads` (a plan states
/// only the binding bound's certificate through its weights: [`stated`]).
pub fn node_bound(inst: &Instance, tt: TwoTier, loads: &Loads) -> Certificate {
    let g = tt.gpus_per_node as u64;
    let mut best = (0u64, 0u32, PortKind::NicOut);
    for a in 0..tt.nodes(inst.slots) {
        let (o, i) = loads.node_totals(tt, a);
        for (total, kind) in [(o, PortKind::NicOut), (i, PortKind::NicIn)] {
            if total.div_ceil(g) > best.0 {
                best = (total.div_ceil(g), a, kind);
            }
        }
    }
    let weights = (0..tt.gpus_per_node)
        .map(|k| PortWeight {
            gpu: tt.rank(best.1, k),
            port: best.2,
            weight: 1,
        })
        .collect();
    Certificate {
        kind: BoundKind::Node,
        bound: best.0,
        weights,
    }
}

/// The NVLink bound and its certificate (unit weights on the NIC and
/// NVLink side of one direction of the GPU that sets it), the bound
/// counted from `loads` as in [`node_bound`].
pub fn nvlink_bound(inst: &Instance, tt: TwoTier, loads: &Loads) -> Certificate {
    let cap = 1 + tt.nvlink_speedup as u64;
    let mut best = (0u64, 0u32, true);
    for r in 0..inst.slots as usize {
        let out = loads.inter_out[r] + loads.intra_out[r];
        let inn = loads.inter_in[r] + loads.intra_in[r];
        for (total, is_out) in [(out, true), (inn, false)] {
            if total.div_ceil(cap) > best.0 {
                best = (total.div_ceil(cap), r as u32, is_out);
            }
        }
    }
    let kinds = if best.2 {
        [PortKind::NicOut, PortKind::NvOut]
    } else {
        [PortKind::NicIn, PortKind::NvIn]
    };
    let weights = kinds
        .iter()
        .map(|&port| PortWeight {
            gpu: best.1,
            port,
            weight: 1,
        })
        .collect();
    Certificate {
        kind: BoundKind::Nvlink,
        bound: best.0,
        weights,
    }
}

/// A certificate whose bound is what its weights prove.
pub(crate) fn stated(
    inst: &Instance,
    tt: TwoTier,
    kind: BoundKind,
    weights: Vec<PortWeight>,
) -> Result<Certificate, RelayError> {
    let bound = match bound_of_weights(inst, tt, &weights) {
        Ok(b) => b,
        // No chunk anywhere (or no weight): the empty bound.
        Err(super::check::CertificateError::Zero) => 0,
        Err(_) => return Err(RelayError::Overflow),
    };
    Ok(Certificate {
        kind,
        bound,
        weights,
    })
}
