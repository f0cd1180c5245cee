//! Recomputes a relay certificate's bound from its weights alone, in
//! checked integer arithmetic, with no solver and no planner code:
//! `bound = ceil(sum_d chunks_d * dist_y(d) / sum_p y_p cap_p)`.
//!
//! `dist_y(d)` is the cheapest route of the model under the weights: for
//! `(a,i) -> (b,j)` across nodes, the cheapest way out of node `a`
//! (`min_k [k != i](y_nvout(a,i) + y_nvin(a,k)) + y_nicout(a,k)`) plus the
//! cheapest way into `b` (`min_k' y_nicin(b,k') + [k' != j](y_nvout(b,k') +
//! y_nvin(b,j))`), the two choices being independent; inside a node,
//! `y_nvout(i) + y_nvin(j)`. O(demands + slots * G).

use crate::instance::Instance;
use crate::relay::certificate::{Certificate, PortKind, PortWeight};
use crate::relay::model::TwoTier;

/// Why a certificate does not prove what it says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    #[error("weights[{at}]: GPU {gpu} is not a slot of the instance ({slots} slots)")]
    UnknownGpu { at: usize, gpu: u32, slots: u32 },
    #[error("the weights are all zero: they prove nothing")]
    Zero,
    #[error("the weighted sums overflow u128: refused, not rounded")]
    Overflow,
    #[error("the weights prove {recomputed} ticks, the certificate claims {claimed}")]
    Mismatch { claimed: u64, recomputed: u64 },
    #[error("{0}")]
    Machine(String),
}

/// The bound `cert`'s weights prove for `inst` on `tt`, recomputed; an
/// error when it differs from `cert.bound` (or cannot be computed).
pub fn check_certificate(
    inst: &Instance,
    tt: TwoTier,
    cert: &Certificate,
) -> Result<u64, CertificateError> {
    let recomputed = bound_of_weights(inst, tt, &cert.weights)?;
    if recomputed != cert.bound {
        return Err(CertificateError::Mismatch {
            claimed: cert.bound,
            recomputed,
        });
    }
    Ok(recomputed)
}

/// The whole number of ticks that `weights` prove for `inst` on `tt`
/// (module docs). The one definition of what a weight vector proves: the
/// bounds module states its certificates' bounds with it, `verify`
/// recomputes them with it.
pub fn bound_of_weights(
    inst: &Instance,
    tt: TwoTier,
    weights: &[PortWeight],
) -> Result<u64, CertificateError> {
    tt.check(inst)
        .map_err(|e| CertificateError::Machine(e.to_string()))?;
    let n = inst.slots as usize;
    let mut y = vec![[0u64; 4]; n];
    for (at, w) in weights.iter().enumerate() {
        let Some(row) = y.get_mut(w.gpu as usize) else {
            return Err(CertificateError::UnknownGpu {
                at,
                gpu: w.gpu,
                slots: inst.slots,
            });
        };
        let k = kind_index(w.port);
        row[k] = row[k]
            .checked_add(w.weight)
            .ok_or(CertificateError::Overflow)?;
    }
    let rho = tt.nvlink_speedup as u128;
    let mut den: u128 = 0;
    for row in &y {
        let here = (row[0] as u128 + row[1] as u128)
            .checked_add(
                (row[2] as u128 + row[3] as u128)
                    .checked_mul(rho)
                    .ok_or(CertificateError::Overflow)?,
            )
            .ok_or(CertificateError::Overflow)?;
        den = den.checked_add(here).ok_or(CertificateError::Overflow)?;
    }
    if den == 0 {
        return Err(CertificateError::Zero);
    }
    let (out_cost, in_cost) = cheapest_ends(&y, tt.gpus_per_node as usize);
    let g = tt.gpus_per_node;
    let mut num: u128 = 0;
    for (d, dem) in inst.demands().iter().enumerate() {
        let (s, t) = (dem.src as usize, dem.dst as usize);
        let dist = if dem.src / g == dem.dst / g {
            y[s][2] as u128 + y[t][3] as u128
        } else {
            out_cost[s] + in_cost[t]
        };
        let term = dist
            .checked_mul(inst.chunks(d) as u128)
            .ok_or(CertificateError::Overflow)?;
        num = num.checked_add(term).ok_or(CertificateError::Overflow)?;
    }
    u64::try_from(num.div_ceil(den)).map_err(|_| CertificateError::Overflow)
}

/// Column of a port kind in the weight rows.
fn kind_index(p: PortKind) -> usize {
    match p {
        PortKind::NicOut => 0,
        PortKind::NicIn => 1,
        PortKind::NvOut => 2,
        PortKind::NvIn => 3,
    }
}

/// Per GPU, the cheapest way of a chunk out of its node (to a NIC and
/// through it) and into it from a NIC (module docs).
fn cheapest_ends(y: &[[u64; 4]], g: usize) -> (Vec<u128>, Vec<u128>) {
    let n = y.len();
    let mut out_cost = vec![0u128; n];
    let mut in_cost = vec![0u128; n];
    for base in (0..n).step_by(g) {
        for i in base..base + g {
            out_cost[i] = (base..base + g)
                .map(|k| {
                    let hop = if k == i {
                        0
                    } else {
                        y[i][2] as u128 + y[k][3] as u128
                    };
                    hop + y[k][0] as u128
                })
                .min()
                .unwrap_or(0);
            in_cost[i] = (base..base + g)
                .map(|k| {
                    let hop = if k == i {
                        0
                    } else {
                        y[k][2] as u128 + y[i][3] as u128
                    };
                    hop + y[k][1] as u128
                })
                .min()
                .unwrap_or(0);
        }
    }
    (out_cost, in_cost)
}
