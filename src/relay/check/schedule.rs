//! The relay schedule validator. It shares no code with the planner: it
//! reads the instance, the machine and the hops, and checks
//!
//! - every chunk `(demand, chunk)` of the instance appears exactly once;
//! - each route starts at the demand's source, ends at its destination,
//!   and its hops chain (`to` of one is `from` of the next), in strictly
//!   increasing ticks below the schedule's length;
//! - the route's shape is the model's: an intra-node demand one NVLink
//!   hop; an inter-node demand exactly one NIC hop, at most one NVLink hop
//!   before it (in the source node) and one after (in the destination node);
//! - per tick, every NIC sends and receives at most one chunk and every
//!   NVLink port carries at most rho chunks out and rho in.

use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelaySchedule;

/// Why a relay schedule is not valid; each names the chunk (its position
/// in the schedule) or the port and tick.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelayInvalid {
    #[error("chunks[{at}]: demand {demand} does not exist ({demands} demands)")]
    UnknownDemand {
        at: usize,
        demand: u32,
        demands: usize,
    },
    #[error("chunks[{at}]: demand {demand} has {chunks} chunks, not a chunk {chunk}")]
    UnknownChunk {
        at: usize,
        demand: u32,
        chunk: u64,
        chunks: u64,
    },
    #[error("chunks[{at}]: chunk {chunk} of demand {demand} appears twice")]
    Duplicate { at: usize, demand: u32, chunk: u64 },
    #[error("chunks[{at}]: {what}")]
    Route { at: usize, what: String },
    #[error("tick {tick}: GPU {gpu}'s {port} carries {count} chunks, more than its {cap}")]
    Port {
        tick: u64,
        gpu: u32,
        port: &'static str,
        count: u64,
        cap: u64,
    },
    #[error("demand {demand} ({src} -> {dst}): {sent} of its {chunks} chunks are delivered")]
    Coverage {
        demand: usize,
        src: u32,
        dst: u32,
        sent: u64,
        chunks: u64,
    },
    #[error("{0}")]
    Machine(String),
}

/// Port kinds of the per-tick count, in key order.
const PORTS: [(&str, bool); 4] = [
    ("NIC out", true),
    ("NIC in", true),
    ("NVLink out", false),
    ("NVLink in", false),
];

/// Checks `s` against `inst` on machine `tt` (module docs). Linear in the
/// hops plus a sort of the port uses.
pub fn validate_relay(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> Result<(), RelayInvalid> {
    tt.check(inst)
        .map_err(|e| RelayInvalid::Machine(e.to_string()))?;
    let g = tt.gpus_per_node;
    let demands = inst.demands();
    let mut seen_start = Vec::with_capacity(demands.len() + 1);
    let mut acc = 0u64;
    for i in 0..demands.len() {
        seen_start.push(acc);
        acc += inst.chunks(i);
    }
    let mut seen = vec![false; acc as usize];
    let mut sent = vec![0u64; demands.len()];
    let mut uses: Vec<(u64, u32, u8)> = Vec::with_capacity(s.chunks.len() * 4);
    for (at, c) in s.chunks.iter().enumerate() {
        let d = c.demand as usize;
        let Some(dem) = demands.get(d) else {
            return Err(RelayInvalid::UnknownDemand {
                at,
                demand: c.demand,
                demands: demands.len(),
            });
        };
        if c.chunk >= inst.chunks(d) {
            return Err(RelayInvalid::UnknownChunk {
                at,
                demand: c.demand,
                chunk: c.chunk,
                chunks: inst.chunks(d),
            });
        }
        let slot = (seen_start[d] + c.chunk) as usize;
        if std::mem::replace(&mut seen[slot], true) {
            return Err(RelayInvalid::Duplicate {
                at,
                demand: c.demand,
                chunk: c.chunk,
            });
        }
        sent[d] += 1;
        let route = |what: String| RelayInvalid::Route { at, what };
        let hops = c.hops();
        if hops[0].from != dem.src || hops[hops.len() - 1].to != dem.dst {
            return Err(route(format!(
                "the route runs {} -> {}, the demand {} -> {}",
                hops[0].from,
                hops[hops.len() - 1].to,
                dem.src,
                dem.dst
            )));
        }
        let mut shape = [b' '; 3];
        for (h, hop) in hops.iter().enumerate() {
            if hop.from >= inst.slots || hop.to >= inst.slots || hop.from == hop.to {
                return Err(route(format!(
                    "hop {h} ({} -> {}) is not between two GPUs",
                    hop.from, hop.to
                )));
            }
            if hop.tick >= s.ticks {
                return Err(route(format!(
                    "hop {h} is in tick {}, past the schedule's {} ticks",
                    hop.tick, s.ticks
                )));
            }
            if h > 0 && (hops[h - 1].to != hop.from || hops[h - 1].tick >= hop.tick) {
                return Err(route(format!(
                    "hop {h} ({} -> {} in tick {}) does not follow hop {} ({} -> {} in tick {})",
                    hop.from,
                    hop.to,
                    hop.tick,
                    h - 1,
                    hops[h - 1].from,
                    hops[h - 1].to,
                    hops[h - 1].tick
                )));
            }
            let nic = hop.from / g != hop.to / g;
            shape[h] = if nic { b'N' } else { b'V' };
            let (out, inn) = if nic { (0u8, 1u8) } else { (2, 3) };
            uses.push((hop.tick, hop.from, out));
            uses.push((hop.tick, hop.to, inn));
        }
        let inter = dem.src / g != dem.dst / g;
        let shape = &shape[..hops.len()];
        let ok = if inter {
            matches!(shape, b"N" | b"VN" | b"NV" | b"VNV")
        } else {
            shape == b"V"
        };
        if !ok {
            return Err(route(format!(
                "hops {:?} (V NVLink, N NIC) are not a route of the model for an {} demand",
                String::from_utf8_lossy(shape),
                if inter { "inter-node" } else { "intra-node" }
            )));
        }
    }
    check_ports(&uses, s.ticks, inst.slots, tt.nvlink_speedup as u64)?;
    for (d, dem) in demands.iter().enumerate() {
        if sent[d] != inst.chunks(d) {
            return Err(RelayInvalid::Coverage {
                demand: d,
                src: dem.src,
                dst: dem.dst,
                sent: sent[d],
                chunks: inst.chunks(d),
            });
        }
    }
    Ok(())
}

/// Counts each (tick, GPU, port) and refuses any above its capacity:
/// the uses bucketed by tick (a counting sort), then one count per GPU
/// and port kind, reset by a stamp when the tick changes. Linear. A
/// length with more ticks than uses (mostly empty ticks: a length read
/// from a file can be anything) sorts the uses instead of bucketing
/// every tick, O(uses log uses).
fn check_ports(
    uses: &[(u64, u32, u8)],
    ticks: u64,
    slots: u32,
    rho: u64,
) -> Result<(), RelayInvalid> {
    if ticks > uses.len() as u64 {
        let mut sorted = uses.to_vec();
        sorted.sort_unstable();
        for run in sorted.chunk_by(|a, b| a == b) {
            let (tick, gpu, kind) = run[0];
            within_cap(tick, gpu, kind, run.len() as u64, rho)?;
        }
        return Ok(());
    }
    let mut start = vec![0usize; ticks as usize + 1];
    for u in uses {
        start[u.0 as usize + 1] += 1;
    }
    for t in 0..ticks as usize {
        start[t + 1] += start[t];
    }
    let mut fill = start.clone();
    let mut by_tick = vec![(0u32, 0u8); uses.len()];
    for u in uses {
        by_tick[fill[u.0 as usize]] = (u.1, u.2);
        fill[u.0 as usize] += 1;
    }
    let mut count = vec![(u64::MAX, 0u64); slots as usize * 4];
    for t in 0..ticks as usize {
        for &(gpu, kind) in &by_tick[start[t]..start[t + 1]] {
            let c = &mut count[gpu as usize * 4 + kind as usize];
            if c.0 != t as u64 {
                *c = (t as u64, 0);
            }
            c.1 += 1;
            within_cap(t as u64, gpu, kind, c.1, rho)?;
        }
    }
    Ok(())
}

/// Refuses `count` uses of GPU `gpu`'s port `kind` in tick `tick` when
/// they are more than the port carries (1 for a NIC side, rho for NVLink).
fn within_cap(tick: u64, gpu: u32, kind: u8, count: u64, rho: u64) -> Result<(), RelayInvalid> {
    let (port, is_nic) = PORTS[kind as usize];
    let cap = if is_nic { 1 } else { rho };
    if count > cap {
        return Err(RelayInvalid::Port {
            tick,
            gpu,
            port,
            count,
            cap,
        });
    }
    Ok(())
}
