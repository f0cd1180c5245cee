//! Building a relay plan (DESIGN.md §14, "Building a relay plan"): the
//! node pairs' chunks split evenly over the G rails (`rails`: every NIC
//! within the node bound), each rail's NIC layer coloured by König
//! (`nic`, through `colour`, the one call into the solvers), and the
//! NVLink hops pipelined around it (`hops`, on the per-tick NVLink use of
//! `grid`). The plan is validated by `super::check` before it is returned.

mod colour;
mod grid;
mod hops;
mod nic;
mod rails;

use super::model::{RelayError, TwoTier};
use super::schedule::{Hop, RelayChunk, RelaySchedule};
use crate::instance::Instance;
use std::collections::BTreeMap;

/// A relay schedule for `inst` on `tt` and the NIC layer's tick count.
pub(crate) fn build_schedule(
    inst: &Instance,
    tt: TwoTier,
) -> Result<(RelaySchedule, u64), RelayError> {
    let mut node_pairs: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for (d, dem) in inst.demands().iter().enumerate() {
        let (a, b) = (tt.node(dem.src), tt.node(dem.dst));
        if a != b {
            let c = node_pairs.entry((a, b)).or_insert(0);
            *c = c.checked_add(inst.chunks(d)).ok_or(RelayError::Overflow)?;
        }
    }
    let pairs: Vec<(u32, u32, u64)> = node_pairs
        .into_iter()
        .map(|((a, b), c)| (a, b, c))
        .collect();
    let nodes = tt.nodes(inst.slots);
    let rails = rails::split_rails(nodes, tt.gpus_per_node, &pairs)?;
    let nic = nic::nic_ticks(nodes, &rails)?;
    let placed = hops::place(inst, tt, &nic);
    let first = placed
        .iter()
        .flat_map(|p| p.2[..p.3 as usize].iter().map(|h| h.0))
        .min()
        .unwrap_or(0);
    let mut ticks = 0u64;
    let chunks = placed
        .iter()
        .map(|&(demand, chunk, h, len)| {
            let mut hops = [Hop::default(); 3];
            for (k, &(t, from, to)) in h[..len as usize].iter().enumerate() {
                hops[k] = Hop {
                    tick: (t - first) as u64,
                    from,
                    to,
                };
            }
            ticks = ticks.max(hops[len as usize - 1].tick + 1);
            RelayChunk::new(demand, chunk, &hops[..len as usize]).expect("one to three hops")
        })
        .collect();
    Ok((RelaySchedule { ticks, chunks }, nic.len() as u64))
}
