//! Bipartite multigraph edge colouring through the engine's König
//! colouring (`crate::solve::koenig::delta_schedule`): the one place the
//! relay planner calls into the solvers.

use crate::instance::{Demand, Instance, Limits, Model};
use crate::relay::model::RelayError;

/// Colours the bipartite multigraph with left vertices `0..left`, right
/// vertices `0..right` and `edges` `(l, r, multiplicity)` (distinct pairs,
/// multiplicities > 0) in Delta colours (König). Returns the colour
/// classes in order, each `(repeat, edge indices)`: the next `repeat`
/// colours are the matching of those edges. Edges given sorted by `(l,
/// r)` (the rails' are) are the colouring's own demand indices, so its
/// rounds are returned as they are (at 1,024 ranks a rail's are ~9,300
/// rounds of ~128 edges: no copy of them).
pub(crate) fn colour_bipartite(
    left: u32,
    right: u32,
    edges: &[(u32, u32, u64)],
) -> Result<Vec<(u64, Vec<u32>)>, RelayError> {
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let demands = edges.iter().map(|&(l, r, m)| Demand {
        src: l,
        dst: left + r,
        bits: m,
    });
    let limits = Limits {
        max_slots: u32::MAX,
        max_demands: u64::MAX,
    };
    let inst = Instance::new(Model::Read1Write1, left + right, 1, demands, &limits)
        .map_err(|_| RelayError::Overflow)?;
    let (schedule, _) = crate::solve::koenig::delta_schedule(&inst);
    let rounds = if schedule.classes.is_empty() {
        schedule.rounds
    } else {
        schedule.flat().into_owned().rounds
    };
    let sorted = inst.demands().len() == edges.len()
        && edges
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1));
    if sorted {
        return Ok(rounds.into_iter().map(|r| (r.repeat, r.demands)).collect());
    }
    // Instance demands are sorted by (src, dst): map them back to edges.
    let mut order: Vec<u32> = (0..edges.len() as u32).collect();
    order.sort_unstable_by_key(|&e| (edges[e as usize].0, edges[e as usize].1));
    Ok(rounds
        .into_iter()
        .map(|r| {
            (
                r.repeat,
                r.demands.iter().map(|&d| order[d as usize]).collect(),
            )
        })
        .collect())
}

/// The rounds of a Delta-tick (König) schedule of `inst` itself
/// (READ1_WRITE1), each `(repeat, demand indices)`: the best direct plan.
pub(crate) fn colour_instance(inst: &Instance) -> Vec<(u64, Vec<u32>)> {
    let (schedule, _) = crate::solve::koenig::delta_schedule(inst);
    schedule
        .flat()
        .rounds
        .iter()
        .map(|r| (r.repeat, r.demands.clone()))
        .collect()
}
