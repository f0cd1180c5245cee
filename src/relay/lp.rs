//! The exact fractional optimum of a relay plan: a concurrent-flow LP on
//! HiGHS, and its dual port weights as a [`Certificate`].
//!
//! Fractionally a route's two ends are independent: how much of GPU
//! `(a,i)`'s inter-node traffic leaves through NIC `k` (`f[i][k]`) and how
//! much of `(a,j)`'s arrives through NIC `k'` (`g[k'][j]`) can be chosen
//! per node, and splitting every demand in those proportions loads each
//! port exactly as `f` and `g` say (the NIC layer has no per-link limit).
//! So the LP is one small problem per node (2 G^2 + 1 columns, 6 G rows):
//!
//! ```text
//! min T  s.t.  sum_k f[i][k] = out(i),  sum_k g[k][j] = in(j)
//!              NIC out k:   sum_i f[i][k] <= T,   NIC in k: sum_j g[k][j] <= T
//!              NVLink out x: sum_{k!=x} f[x][k] + sum_{j!=x} g[x][j] + intra_out(x) <= rho T
//!              NVLink in x:  sum_{i!=x} f[i][x] + sum_{k!=x} g[k][x] + intra_in(x) <= rho T
//! ```
//!
//! and the optimum is the largest node's value. The capacity rows' duals
//! of that node, scaled to integers, are the certificate; the bound is
//! what the integer weights prove (`super::check::bound_of_weights`), so
//! rounding the duals can only cost, never overstate. Nodes whose even
//! split (`f = out/G` on every NIC) already fits in the best integer bound
//! known cannot raise it and are skipped.

use super::bounds::{stated, Loads};
use super::certificate::{BoundKind, Certificate, PortKind, PortWeight};
use super::model::{RelayError, TwoTier};
use crate::instance::Instance;
use highs::{HighsModelStatus, RowProblem, Sense};

/// Largest integer weight of a certificate (duals are scaled to it).
const SCALE: f64 = (1u64 << 24) as f64;

/// The LP bound as a certificate, or `None` when no node can beat `known`
/// (the best integer bound already proven).
pub fn lp_bound(
    inst: &Instance,
    tt: TwoTier,
    loads: &Loads,
    known: u64,
) -> Result<Option<Certificate>, RelayError> {
    let mut best: Option<Certificate> = None;
    for a in 0..tt.nodes(inst.slots) {
        if even_split_value(tt, loads, a) <= known as f64 {
            continue;
        }
        let duals = solve_node(tt, loads, a)?;
        let cert = stated(inst, tt, BoundKind::Lp, weights(tt, a, &duals))?;
        if cert.bound > best.as_ref().map_or(known, |b| b.bound) {
            best = Some(cert);
        }
    }
    Ok(best)
}

/// The value of the even split on node `a`: an upper bound on its LP.
fn even_split_value(tt: TwoTier, loads: &Loads, a: u32) -> f64 {
    let g = tt.gpus_per_node as f64;
    let rho = tt.nvlink_speedup as f64;
    let (out, inn) = loads.node_totals(tt, a);
    let mut v = out.max(inn) as f64 / g;
    for k in 0..tt.gpus_per_node {
        let x = tt.rank(a, k) as usize;
        let nv_out = loads.inter_out[x] as f64 * (g - 1.0) / g
            + (inn - loads.inter_in[x]) as f64 / g
            + loads.intra_out[x] as f64;
        let nv_in = loads.inter_in[x] as f64 * (g - 1.0) / g
            + (out - loads.inter_out[x]) as f64 / g
            + loads.intra_in[x] as f64;
        v = v.max(nv_out.max(nv_in) / rho);
    }
    v
}

/// Solves node `a`'s LP; the duals of its capacity rows, in the order
/// NIC out, NIC in, NVLink out, NVLink in (G each), as magnitudes.
fn solve_node(tt: TwoTier, loads: &Loads, a: u32) -> Result<Vec<f64>, RelayError> {
    let g = tt.gpus_per_node as usize;
    let rho = tt.nvlink_speedup as f64;
    let gpu = |k: usize| tt.rank(a, k as u32) as usize;
    let mut pb = RowProblem::default();
    let t = pb.add_column(1.0, 0.0..);
    let f: Vec<Vec<_>> = (0..g)
        .map(|_| (0..g).map(|_| pb.add_column(0.0, 0.0..)).collect())
        .collect();
    let gg: Vec<Vec<_>> = (0..g)
        .map(|_| (0..g).map(|_| pb.add_column(0.0, 0.0..)).collect())
        .collect();
    for i in 0..g {
        let out = loads.inter_out[gpu(i)] as f64;
        pb.add_row(out..=out, (0..g).map(|k| (f[i][k], 1.0)));
        let inn = loads.inter_in[gpu(i)] as f64;
        pb.add_row(inn..=inn, (0..g).map(|k| (gg[k][i], 1.0)));
    }
    for k in 0..g {
        pb.add_row(..=0.0, (0..g).map(|i| (f[i][k], 1.0)).chain([(t, -1.0)]));
    }
    for k in 0..g {
        pb.add_row(..=0.0, (0..g).map(|j| (gg[k][j], 1.0)).chain([(t, -1.0)]));
    }
    for x in 0..g {
        let terms = (0..g)
            .filter(|&o| o != x)
            .flat_map(|o| [(f[x][o], 1.0), (gg[x][o], 1.0)]);
        let intra = loads.intra_out[gpu(x)] as f64;
        pb.add_row(..=-intra, terms.chain([(t, -rho)]));
    }
    for x in 0..g {
        let terms = (0..g)
            .filter(|&o| o != x)
            .flat_map(|o| [(f[o][x], 1.0), (gg[o][x], 1.0)]);
        let intra = loads.intra_in[gpu(x)] as f64;
        pb.add_row(..=-intra, terms.chain([(t, -rho)]));
    }
    let lp_err = |why: String| RelayError::Lp { node: a, why };
    let mut model = pb
        .try_optimise(Sense::Minimise)
        .map_err(|e| lp_err(format!("{e:?}")))?;
    model.set_option("threads", 1);
    model.set_option("output_flag", false);
    let solved = model.try_solve().map_err(|e| lp_err(format!("{e:?}")))?;
    if solved.status() != HighsModelStatus::Optimal {
        return Err(lp_err(format!("status {:?}", solved.status())));
    }
    let duals = solved.get_solution().dual_rows().to_vec();
    Ok(duals[2 * g..].iter().map(|d| d.abs()).collect())
}

/// The duals of node `a` scaled to integer weights (the largest becomes
/// [`SCALE`]; zeros left out).
fn weights(tt: TwoTier, a: u32, duals: &[f64]) -> Vec<PortWeight> {
    let g = tt.gpus_per_node as usize;
    let top = duals.iter().cloned().fold(0.0f64, f64::max);
    if top <= 0.0 {
        return Vec::new();
    }
    let kinds = [
        PortKind::NicOut,
        PortKind::NicIn,
        PortKind::NvOut,
        PortKind::NvIn,
    ];
    let mut out = Vec::new();
    for (r, &d) in duals.iter().enumerate() {
        let w = (d / top * SCALE).round() as u64;
        if w > 0 {
            out.push(PortWeight {
                gpu: tt.rank(a, (r % g) as u32),
                port: kinds[r / g],
                weight: w,
            });
        }
    }
    out
}
