//! The best direct plan as a relay schedule: every chunk one hop, from its
//! source GPU to its destination (a NIC hop between nodes, an NVLink hop
//! inside one), in the tick the König colouring of the whole instance
//! gives it. Each GPU then sends and receives at most one chunk a tick,
//! within both of its ports (NVLink carries at least one), so the schedule
//! is valid under any machine and takes the direct optimum's ticks (the
//! largest GPU degree). `crate::relay::plan_relay` keeps it where the
//! relayed plan would take longer: a relay plan is never worse than the
//! best direct one.

use super::colour::colour_instance;
use crate::instance::Instance;
use crate::relay::schedule::{Hop, RelayRun, RelaySchedule};

/// The direct König plan of `inst` (READ1_WRITE1), as runs: a demand's
/// chunks in one round of `repeat` ticks are one run.
pub(crate) fn direct_schedule(inst: &Instance) -> RelaySchedule {
    let mut next_chunk = vec![0u64; inst.demands().len()];
    let mut runs = Vec::with_capacity(inst.demands().len());
    let mut tick = 0u64;
    for (repeat, demands) in colour_instance(inst) {
        for d in demands {
            let dem = inst.demands()[d as usize];
            let hop = Hop {
                tick,
                from: dem.src,
                to: dem.dst,
            };
            let chunk = &mut next_chunk[d as usize];
            runs.push(RelayRun::new(d, *chunk, repeat, &[hop]).expect("one hop, repeat >= 1"));
            *chunk += repeat;
        }
        tick += repeat;
    }
    RelaySchedule { ticks: tick, runs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};
    use crate::relay::check::validate_relay;
    use crate::relay::model::TwoTier;

    #[test]
    fn the_direct_plan_is_valid_under_any_machine_and_takes_the_largest_degree() {
        // 8 GPUs; chunks of 64 bits; intra- and inter-node demands.
        let rows = [
            [0u64, 3, 0, 2, 0, 3, 0, 0],
            [1, 0, 0, 0, 0, 0, 0, 0],
            [2, 0, 0, 0, 6, 3, 0, 0],
            [0, 0, 0, 0, 0, 3, 3, 0],
            [0, 3, 0, 0, 0, 0, 0, 0],
            [1, 2, 0, 3, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 2, 0, 3],
            [0, 0, 0, 0, 0, 0, 2, 0],
        ];
        let demands = (0..8u32).flat_map(|s| {
            (0..8u32)
                .filter(move |&d| rows[s as usize][d as usize] > 0)
                .map(move |d| Demand {
                    src: s,
                    dst: d,
                    bits: rows[s as usize][d as usize] * 64,
                })
        });
        let inst = Instance::new(Model::Read1Write1, 8, 64, demands, &Limits::default()).unwrap();
        let degree = (0..8)
            .map(|r| {
                let out: u64 = rows[r].iter().sum();
                let inn: u64 = rows.iter().map(|row| row[r]).sum();
                out.max(inn)
            })
            .max()
            .unwrap();
        let s = direct_schedule(&inst);
        assert_eq!(s.ticks, degree);
        assert_eq!(s.chunk_count(), rows.iter().flatten().sum::<u64>());
        for (g, rho) in [(2, 1), (4, 1), (4, 3), (8, 1)] {
            let tt = TwoTier {
                gpus_per_node: g,
                nvlink_speedup: rho,
            };
            validate_relay(&inst, tt, &s).unwrap_or_else(|e| panic!("G={g} rho={rho}: {e}"));
        }
    }
}
