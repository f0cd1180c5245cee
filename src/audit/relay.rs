//! The relayed optimum beside an audit of direct schedules (issue 52):
//! on a two-tier machine a relay plan may beat every direct schedule, so
//! an audit given the machine ranks each direct schedule against the
//! relayed lower bound (node, NVLink and LP bounds, proven by port
//! weights: [`crate::relay::plan_relay`]) and tickopt's relay plan.

use super::Audit;
use crate::relay::{BoundKind, RelaySolution};
use serde::Serialize;

/// The relayed bound and plan, and each valid schedule against the bound.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditRelay {
    pub gpus_per_node: u32,
    pub nvlink_speedup: u32,
    /// No relay plan has fewer ticks (the largest of the bounds below).
    pub lower_bound: u64,
    /// Which bound that is: `node`, `nvlink` or `lp`.
    pub bound: BoundKind,
    pub node_bound: u64,
    pub nvlink_bound: u64,
    pub lp_bound: Option<u64>,
    /// Ticks of tickopt's relay plan (`tickopt solve --gpus-per-node G
    /// --nvlink-speedup RHO`): the relayed optimum is between the bound
    /// and this.
    pub plan_ticks: u64,
    /// tickopt's best direct schedule's ticks over the relayed bound.
    pub best_direct_times_bound: Option<f64>,
    /// Valid schedules, in input order.
    pub schedules: Vec<ScheduleRelay>,
}

/// One valid schedule against the relayed bound.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleRelay {
    pub name: String,
    pub ticks: u64,
    /// Its ticks over the relayed lower bound (`None` when the bound is 0).
    pub times_bound: Option<f64>,
}

/// `ticks / bound`, none when the bound is 0.
fn times(ticks: u64, bound: u64) -> Option<f64> {
    (bound > 0).then(|| ticks as f64 / bound as f64)
}

impl AuditRelay {
    /// `audit`'s schedules against `sol`, a relay plan of its instance.
    pub fn new(audit: &Audit, sol: &RelaySolution) -> AuditRelay {
        let bound = sol.lower_bound;
        AuditRelay {
            gpus_per_node: sol.machine.gpus_per_node,
            nvlink_speedup: sol.machine.nvlink_speedup,
            lower_bound: bound,
            bound: sol.binding(),
            node_bound: sol.node_bound,
            nvlink_bound: sol.nvlink_bound,
            lp_bound: sol.lp_bound,
            plan_ticks: sol.ticks,
            best_direct_times_bound: times(audit.best_ticks, bound),
            schedules: audit
                .schedules
                .iter()
                .filter(|r| r.valid)
                .map(|r| ScheduleRelay {
                    name: r.name.clone(),
                    ticks: r.schedule_ticks,
                    times_bound: times(r.schedule_ticks, bound),
                })
                .collect(),
        }
    }

    /// One sentence for every report: the machine, the bound, the plan,
    /// and tickopt's direct schedule against the bound.
    pub fn sentence(&self, best_direct: u64) -> String {
        format!(
            "relayed on nodes of {} GPUs, NVLink x{}: lower bound {} ticks ({} bound), tickopt's relay plan {} ticks; tickopt's direct schedule ({best_direct} ticks) is {} the relayed bound",
            self.gpus_per_node,
            self.nvlink_speedup,
            self.lower_bound,
            self.bound.as_str(),
            self.plan_ticks,
            times_text(self.best_direct_times_bound)
        )
    }
}

impl ScheduleRelay {
    /// `NAME: T ticks, X.XXx the relayed lower bound`.
    pub fn line(&self) -> String {
        format!(
            "{}: {} ticks, {} the relayed lower bound",
            self.name,
            self.ticks,
            times_text(self.times_bound)
        )
    }
}

/// `2.50x`, or `-` without a bound.
pub fn times_text(t: Option<f64>) -> String {
    t.map(|t| format!("{t:.2}x")).unwrap_or_else(|| "-".into())
}
