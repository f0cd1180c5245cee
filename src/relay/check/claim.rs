//! Checks a relay summary's claim against the instance and the written
//! schedule, line by line (what `tickopt verify` prints for a relay
//! summary): the schedule validates and has the claimed ticks; the
//! certificate's weights prove its bound; that bound is the claimed lower
//! bound, under the claimed name; the node bound and the direct optimum
//! recomputed from the data match the summary; the status and gap follow.
//! VERIFIED only for what is recomputed here.

use super::{check_certificate, validate_relay};
use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelaySchedule;
use crate::relay::solution::{RelaySummary, SUMMARY_KIND};

/// One checked statement: whether it holds, and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimLine {
    pub holds: bool,
    pub what: String,
}

/// Every check of `claim` (module docs); the claim holds when all do.
pub fn check_relay_claim(
    inst: &Instance,
    s: &RelaySchedule,
    claim: &RelaySummary,
) -> Vec<ClaimLine> {
    let mut lines = Vec::new();
    let mut line = |holds: bool, what: String| lines.push(ClaimLine { holds, what });
    let tt = TwoTier {
        gpus_per_node: claim.gpus_per_node,
        nvlink_speedup: claim.nvlink_speedup,
    };
    line(
        claim.kind == SUMMARY_KIND,
        format!("summary kind {:?}", claim.kind),
    );
    match validate_relay(inst, tt, s) {
        Ok(()) => line(
            true,
            format!(
                "schedule valid on {} nodes x {} GPUs, NVLink x{}",
                tt.nodes(inst.slots),
                tt.gpus_per_node,
                tt.nvlink_speedup
            ),
        ),
        Err(e) => line(false, format!("schedule invalid: {e}")),
    }
    line(
        s.ticks == claim.ticks,
        format!("schedule has {} ticks, the claim {}", s.ticks, claim.ticks),
    );
    match check_certificate(inst, tt, &claim.certificate) {
        Ok(b) => line(
            true,
            format!(
                "certificate ({} weights) proves {b} ticks",
                claim.certificate.weights.len()
            ),
        ),
        Err(e) => line(false, format!("certificate refused: {e}")),
    }
    line(
        claim.certificate.bound == claim.lower_bound && claim.certificate.kind == claim.bound,
        format!(
            "lower bound {} ({}) is the certificate's {} ({})",
            claim.lower_bound,
            claim.bound.as_str(),
            claim.certificate.bound,
            claim.certificate.kind.as_str()
        ),
    );
    let (node, direct) = node_bound_and_degree(inst, tt);
    line(
        node == claim.node_bound,
        format!(
            "node bound recomputed: {node}, claimed {}",
            claim.node_bound
        ),
    );
    line(
        claim.lower_bound >= node,
        format!("lower bound {} >= node bound {node}", claim.lower_bound),
    );
    line(
        direct == claim.direct_ticks,
        format!(
            "direct optimum (largest GPU degree) recomputed: {direct}, claimed {}",
            claim.direct_ticks
        ),
    );
    let status = if claim.ticks == claim.lower_bound {
        "optimal"
    } else {
        "feasible"
    };
    line(
        claim.ticks >= claim.lower_bound
            && claim.status == status
            && claim.gap == claim.ticks.saturating_sub(claim.lower_bound),
        format!(
            "status {} with gap {} for {} ticks over bound {}",
            claim.status, claim.gap, claim.ticks, claim.lower_bound
        ),
    );
    lines
}

/// The node bound and the largest GPU degree, from the demands (checked
/// sums: an overflow gives `u64::MAX`, which no honest claim matches).
fn node_bound_and_degree(inst: &Instance, tt: TwoTier) -> (u64, u64) {
    if tt.gpus_per_node == 0 || inst.slots % tt.gpus_per_node != 0 {
        return (u64::MAX, u64::MAX);
    }
    let g = tt.gpus_per_node;
    let nodes = (inst.slots / g) as usize;
    let (mut out, mut inn) = (vec![0u64; nodes], vec![0u64; nodes]);
    let (mut gout, mut gin) = (
        vec![0u64; inst.slots as usize],
        vec![0u64; inst.slots as usize],
    );
    let add = |v: &mut u64, c: u64| *v = v.checked_add(c).unwrap_or(u64::MAX);
    for (d, dem) in inst.demands().iter().enumerate() {
        let c = inst.chunks(d);
        add(&mut gout[dem.src as usize], c);
        add(&mut gin[dem.dst as usize], c);
        if dem.src / g != dem.dst / g {
            add(&mut out[(dem.src / g) as usize], c);
            add(&mut inn[(dem.dst / g) as usize], c);
        }
    }
    let node = out
        .iter()
        .chain(&inn)
        .map(|&c| c.div_ceil(g as u64))
        .max()
        .unwrap_or(0);
    let degree = gout.iter().chain(&gin).copied().max().unwrap_or(0);
    (node, degree)
}
