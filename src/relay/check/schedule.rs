//! The relay schedule validator. It shares no code with the planner: it
//! reads the instance, the machine and the runs, and checks
//!
//! - every chunk `(demand, chunk)` of the instance appears in exactly one
//!   run (runs of a demand tile its chunks without gap or overlap);
//! - each route starts at the demand's source, ends at its destination,
//!   and its hops chain (`to` of one is `from` of the next), in strictly
//!   increasing ticks, the run's last chunk's below the schedule's length;
//! - the route's shape is the model's: an intra-node demand one NVLink
//!   hop; an inter-node demand exactly one NIC hop, at most one NVLink hop
//!   before it (in the source node) and one after (in the destination node);
//! - per tick, every NIC sends and receives at most one chunk and every
//!   NVLink port carries at most rho chunks out and rho in.
//!
//! A run's chunks all take the same route one tick apart, so a run holds
//! each port it uses for an interval of ticks: the port check sweeps the
//! intervals' ends and starts in tick order. Linear in runs, demands and
//! ticks; no work per chunk.

use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelaySchedule;

/// Why a relay schedule is not valid; each names the run (its position
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

/// Port kinds, in the order of their index in a port key.
const PORTS: [(&str, bool); 4] = [
    ("NIC out", true),
    ("NIC in", true),
    ("NVLink out", false),
    ("NVLink in", false),
];

/// Calls `f(start, end, port)` for every port a run's hop holds, ticks
/// `start..end`, `port` = `gpu * 4 + kind` (kind: the index in [`PORTS`]).
/// Only for runs that passed the route checks (no tick overflows).
fn each_hold(s: &RelaySchedule, g: u32, mut f: impl FnMut(u64, u64, u64)) {
    for c in &s.runs {
        for hop in c.hops() {
            let (out, inn) = if hop.from / g != hop.to / g {
                (0u64, 1u64)
            } else {
                (2, 3)
            };
            let end = hop.tick + c.count;
            f(hop.tick, end, hop.from as u64 * 4 + out);
            f(hop.tick, end, hop.to as u64 * 4 + inn);
        }
    }
}

/// Checks `s` against `inst` on machine `tt` (module docs).
pub fn validate_relay(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> Result<(), RelayInvalid> {
    tt.check(inst)
        .map_err(|e| RelayInvalid::Machine(e.to_string()))?;
    let g = tt.gpus_per_node;
    let demands = inst.demands();
    let mut holds = 0usize;
    for (at, c) in s.runs.iter().enumerate() {
        let d = c.demand as usize;
        let Some(dem) = demands.get(d) else {
            return Err(RelayInvalid::UnknownDemand {
                at,
                demand: c.demand,
                demands: demands.len(),
            });
        };
        let chunks = inst.chunks(d);
        if c.count == 0 || c.chunk.checked_add(c.count).map_or(true, |e| e > chunks) {
            return Err(RelayInvalid::UnknownChunk {
                at,
                demand: c.demand,
                chunk: c.chunk.saturating_add(c.count.max(1) - 1),
                chunks,
            });
        }
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
            // The run's last chunk takes this hop in tick `tick + count - 1`.
            let end = hop.tick.checked_add(c.count).filter(|&e| e <= s.ticks);
            if end.is_none() {
                return Err(route(format!(
                    "hop {h} of the run's last chunk is in tick {} + {}, past the schedule's {} ticks",
                    hop.tick,
                    c.count - 1,
                    s.ticks
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
            holds += 2;
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
    check_coverage(inst, s)?;
    check_ports(s, g, holds, inst.slots, tt.nvlink_speedup as u64)
}

/// Every demand's runs tile its chunks: sorted by first chunk (runs
/// bucketed by demand), each starts where the one before ends, the first
/// at 0, the last ending at the demand's chunk count. An overlap is a
/// duplicate, a gap or a short end a missing chunk. (Each run was checked
/// to lie inside its demand.)
fn check_coverage(inst: &Instance, s: &RelaySchedule) -> Result<(), RelayInvalid> {
    let demands = inst.demands();
    let mut start = vec![0usize; demands.len() + 1];
    for c in &s.runs {
        start[c.demand as usize + 1] += 1;
    }
    for d in 0..demands.len() {
        start[d + 1] += start[d];
    }
    let mut fill = start.clone();
    let mut by_demand = vec![0usize; s.runs.len()];
    for (at, c) in s.runs.iter().enumerate() {
        by_demand[fill[c.demand as usize]] = at;
        fill[c.demand as usize] += 1;
    }
    for (d, dem) in demands.iter().enumerate() {
        let mine = &mut by_demand[start[d]..start[d + 1]];
        mine.sort_unstable_by_key(|&at| (s.runs[at].chunk, at));
        let mut next = 0u64;
        let mut sent = 0u64;
        for &at in mine.iter() {
            let c = &s.runs[at];
            if c.chunk < next {
                return Err(RelayInvalid::Duplicate {
                    at,
                    demand: c.demand,
                    chunk: c.chunk,
                });
            }
            if c.chunk > next {
                break;
            }
            next = c.chunk + c.count;
            sent += c.count;
        }
        if next != inst.chunks(d) {
            return Err(RelayInvalid::Coverage {
                demand: d,
                src: dem.src,
                dst: dem.dst,
                sent,
                chunks: inst.chunks(d),
            });
        }
    }
    Ok(())
}

/// Counts each port's holds (`holds` of them, [`each_hold`]) tick by tick
/// and refuses any count above its capacity: the holds' ends and starts
/// bucketed by tick (a counting sort, ends first within a tick), then one
/// sweep. Linear in holds and ticks (a schedule with far more ticks than
/// holds is sorted instead).
fn check_ports(
    s: &RelaySchedule,
    g: u32,
    holds: usize,
    slots: u32,
    rho: u64,
) -> Result<(), RelayInvalid> {
    // Events: port * 2 + 1 for a start, port * 2 for an end; ordered by
    // tick, ends before starts.
    let mut count = vec![0u64; slots as usize * 4];
    if s.ticks <= 4 * holds as u64 + 1024 {
        let t = s.ticks as usize;
        let mut start = vec![0usize; t + 2];
        each_hold(s, g, |a, e, _| {
            start[a as usize + 1] += 1;
            start[e as usize + 1] += 1;
        });
        for i in 0..=t {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut events = vec![0u64; holds * 2];
        each_hold(s, g, |_, e, port| {
            events[fill[e as usize]] = port * 2;
            fill[e as usize] += 1;
        });
        each_hold(s, g, |a, _, port| {
            events[fill[a as usize]] = port * 2 + 1;
            fill[a as usize] += 1;
        });
        for tick in 0..=t {
            for &e in &events[start[tick]..start[tick + 1]] {
                sweep(&mut count, tick as u64, e, rho)?;
            }
        }
    } else {
        let mut events: Vec<(u64, u64)> = Vec::with_capacity(holds * 2);
        each_hold(s, g, |a, e, port| {
            events.push((e, port * 2));
            events.push((a, port * 2 + 1));
        });
        events.sort_unstable_by_key(|&(t, e)| (t, e & 1));
        for (tick, e) in events {
            sweep(&mut count, tick, e, rho)?;
        }
    }
    Ok(())
}

/// One event of the sweep: an end frees its port, a start takes it and
/// is refused above the port's capacity.
fn sweep(count: &mut [u64], tick: u64, e: u64, rho: u64) -> Result<(), RelayInvalid> {
    let port = (e >> 1) as usize;
    if e & 1 == 0 {
        count[port] -= 1;
        return Ok(());
    }
    count[port] += 1;
    let (name, is_nic) = PORTS[port % 4];
    let cap = if is_nic { 1 } else { rho };
    if count[port] > cap {
        return Err(RelayInvalid::Port {
            tick,
            gpu: (port / 4) as u32,
            port: name,
            count: count[port],
            cap,
        });
    }
    Ok(())
}
