//! The NIC layer: each rail's node-pair chunks coloured bipartitely
//! (König: as many ticks as the rail's busiest NIC), the rails side by
//! side (a NIC belongs to one rail), on the thread pool.

use super::colour::colour_bipartite;
use super::rails::RailLoads;
use crate::relay::model::RelayError;
use rayon::prelude::*;

/// One NIC transfer: rail `k` carries a chunk from node `a` to node `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NicSlot {
    pub rail: u32,
    pub a: u32,
    pub b: u32,
}

/// Per tick, the NIC transfers of every rail (rails in order). The tick
/// count is the busiest NIC's chunk count.
pub(crate) fn nic_ticks(nodes: u32, rails: &RailLoads) -> Result<Vec<Vec<NicSlot>>, RelayError> {
    let per_rail: Vec<Vec<(u64, Vec<usize>)>> = rails
        .par_iter()
        .map(|pairs| colour_bipartite(nodes, nodes, pairs))
        .collect::<Result<_, _>>()?;
    let ticks = per_rail
        .iter()
        .map(|c| c.iter().map(|r| r.0).sum::<u64>())
        .max()
        .unwrap_or(0);
    let mut out: Vec<Vec<NicSlot>> = vec![Vec::new(); ticks as usize];
    for (k, classes) in per_rail.iter().enumerate() {
        let shift = (ticks as usize * k) / rails.len();
        let mut t = 0usize;
        for (repeat, class) in classes {
            for _ in 0..*repeat {
                out[(t + shift) % ticks as usize].extend(class.iter().map(|&e| NicSlot {
                    rail: k as u32,
                    a: rails[k][e].0,
                    b: rails[k][e].1,
                }));
                t += 1;
            }
        }
    }
    Ok(out)
}
