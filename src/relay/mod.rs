//! Relays: two-tier plans (DESIGN.md §14, "Relays (two-tier)").
//!
//! On nodes of G GPUs whose NVLink is rho times a NIC, a chunk may travel
//! through a GPU of its own node to another NIC and through a GPU of the
//! destination node. A direct plan pays the busiest GPU's NIC; a relay
//! plan pays the node's average. This module owns:
//!
//! - `model`: the machine ([`TwoTier`]) and [`RelayError`];
//! - `schedule`: [`RelaySchedule`], every chunk's hops with their ticks, as
//!   runs of chunks one tick apart ([`RelayRun`]);
//! - `certificate`: port weights that prove a lower bound ([`Certificate`]);
//! - `bounds`: the node and NVLink bounds as certificates;
//! - `lp`: the exact fractional optimum on HiGHS and its dual certificate;
//! - `plan`: the planner (rails, König NIC layer, pipelined NVLink hops);
//! - `check`: the schedule validator and the certificate checker, sharing
//!   no code with `plan` or `lp`;
//! - `solution`: [`RelaySolution`] and its summary JSON;
//! - `program`: the per-rank relay program a runner executes.
//!
//! It uses `instance`, HiGHS (in `lp`) and the solvers' König colouring
//! (`solve::koenig`, called from `plan/colour.rs` only).

mod bounds;
pub mod certificate;
pub mod check;
mod lp;
pub mod model;
mod plan;
pub mod program;
pub mod schedule;
pub mod solution;

pub use certificate::{BoundKind, Certificate, PortKind, PortWeight};
pub use model::{RelayError, TwoTier};
pub use schedule::{Hop, RelayRun, RelaySchedule};
pub use solution::{RelaySolution, RelaySummary};

use crate::instance::Instance;
use std::time::Instant;

/// Plans `inst` with relays on `tt`: the schedule (the relayed plan, or the
/// best direct plan where that is shorter), the node, NVLink and (where
/// it can bind) LP bounds, the binding bound's certificate. The
/// schedule is validated before it is returned (a plan that fails is a
/// bug, reported as [`RelayError::Invalid`]).
pub fn plan_relay(inst: &Instance, tt: TwoTier) -> Result<RelaySolution, RelayError> {
    let t0 = Instant::now();
    tt.check(inst)?;
    let loads = bounds::Loads::of(inst, tt)?;
    let node = bounds::node_bound(inst, tt, &loads);
    let nvlink = bounds::nvlink_bound(inst, tt, &loads);
    let (node_bound, nvlink_bound) = (node.bound, nvlink.bound);
    let lp = lp::lp_bound(inst, tt, &loads, node_bound.max(nvlink_bound))?;
    let lp_bound = lp.as_ref().map(|c| c.bound);
    // The binding bound's certificate, its bound what its weights prove
    // (the LP's is stated already).
    let certificate = match lp {
        Some(c) => c,
        None => {
            let c = if nvlink_bound > node_bound {
                nvlink
            } else {
                node
            };
            bounds::stated(inst, tt, c.kind, c.weights)?
        }
    };
    let direct_ticks = (0..inst.slots as usize)
        .map(|r| {
            let out = loads.inter_out[r] + loads.intra_out[r];
            out.max(loads.inter_in[r] + loads.intra_in[r])
        })
        .max()
        .unwrap_or(0);
    let (mut schedule, nic_ticks) = plan::build_schedule(inst, tt, &loads, certificate.bound)?;
    if schedule.ticks > direct_ticks {
        // Where NVLink binds hard (rho 1, a hot GPU) the relayed plan can
        // take longer than the best direct one, which is valid too.
        schedule = plan::direct_schedule(inst);
    }
    check::validate_relay(inst, tt, &schedule).map_err(|e| RelayError::Invalid(e.to_string()))?;
    Ok(RelaySolution {
        machine: tt,
        ticks: schedule.ticks,
        schedule,
        lower_bound: certificate.bound,
        certificate,
        node_bound,
        nvlink_bound,
        lp_bound,
        nic_ticks,
        direct_ticks,
        plan_seconds: t0.elapsed().as_secs_f64(),
    })
}
