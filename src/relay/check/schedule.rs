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
//! ticks; no work per chunk. One pass over the runs checks the routes and
//! counts the buckets; the coverage and port checks then read the runs
//! once each, side by side on two threads for large schedules.

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
    // The buckets the checks after this pass sort by, counted in it: per
    // demand its runs; per tick the holds that start and end there, when
    // the ticks are few enough for a bucket each (and ports fit in u32).
    let dense = s.ticks <= 24 * s.runs.len() as u64 + 1024 && inst.slots <= u32::MAX / 4;
    let buckets = if dense { s.ticks as usize + 2 } else { 0 };
    let (mut starts, mut ends) = (vec![0usize; buckets], vec![0usize; buckets]);
    let mut per_demand = vec![0usize; demands.len()];
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
            if dense {
                starts[hop.tick as usize] += 2;
                ends[hop.tick as usize + c.count as usize] += 2;
            }
        }
        per_demand[d] += 1;
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
    let rho = tt.nvlink_speedup as u64;
    let coverage = || check_coverage(inst, s, per_demand);
    let ports = || {
        if dense {
            check_ports_bucketed(s, g, (starts, ends), holds, inst.slots, rho)
        } else {
            check_ports_sorted(s, g, holds, inst.slots, rho)
        }
    };
    // The two checks read the runs apart: side by side on large schedules
    // (the coverage error first when both fail, as in sequence).
    let (coverage, ports) = if s.runs.len() >= PARALLEL_RUNS {
        rayon::join(coverage, ports)
    } else {
        (coverage(), ports())
    };
    coverage?;
    ports
}

/// Runs from which the coverage and port checks run on two threads.
const PARALLEL_RUNS: usize = 1 << 15;

/// Turns per-bucket counts into bucket ends as they will be once filled:
/// `at[b]` becomes where bucket `b` starts; filling a bucket's entries at
/// `at[b]`, one after the other, leaves it where bucket `b + 1` starts,
/// so afterwards bucket `b` is `at[b - 1]..at[b]` (from 0 for `b` = 0).
fn bucket_starts(at: &mut [usize]) {
    let mut acc = 0usize;
    for x in at.iter_mut() {
        let c = *x;
        *x = acc;
        acc += c;
    }
}

/// Bucket `b` once filled ([`bucket_starts`]).
fn bucket(at: &[usize], b: usize) -> std::ops::Range<usize> {
    (if b == 0 { 0 } else { at[b - 1] })..at[b]
}

/// Every demand's runs tile its chunks: sorted by first chunk (runs
/// bucketed by demand, `per_demand` runs each), each starts where the one
/// before ends, the first at 0, the last ending at the demand's chunk
/// count. An overlap is a duplicate, a gap or a short end a missing chunk.
/// (Each run was checked to lie inside its demand.)
fn check_coverage(
    inst: &Instance,
    s: &RelaySchedule,
    mut at: Vec<usize>,
) -> Result<(), RelayInvalid> {
    let demands = inst.demands();
    bucket_starts(&mut at);
    // (first chunk, position, count): the sort needs no run again.
    let mut by_demand = vec![(0u64, 0usize, 0u64); s.runs.len()];
    for (x, c) in s.runs.iter().enumerate() {
        let slot = &mut at[c.demand as usize];
        by_demand[*slot] = (c.chunk, x, c.count);
        *slot += 1;
    }
    for (d, dem) in demands.iter().enumerate() {
        let mine = &mut by_demand[bucket(&at, d)];
        if mine.len() > 1 {
            mine.sort_unstable();
        }
        let mut next = 0u64;
        let mut sent = 0u64;
        for &(chunk, x, count) in mine.iter() {
            if chunk < next {
                return Err(RelayInvalid::Duplicate {
                    at: x,
                    demand: d as u32,
                    chunk,
                });
            }
            if chunk > next {
                break;
            }
            next = chunk + count;
            sent += count;
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
/// and refuses any count above its capacity: the holds' starts and ends
/// bucketed by tick (`starts` and `ends`: per tick, how many; a counting
/// sort), then one sweep, each tick's ends before its starts. Linear in
/// holds and ticks; ports as u32 (the caller checked they fit).
fn check_ports_bucketed(
    s: &RelaySchedule,
    g: u32,
    (mut starts, mut ends): (Vec<usize>, Vec<usize>),
    holds: usize,
    slots: u32,
    rho: u64,
) -> Result<(), RelayInvalid> {
    bucket_starts(&mut starts);
    bucket_starts(&mut ends);
    let (mut start_ev, mut end_ev) = (vec![0u32; holds], vec![0u32; holds]);
    each_hold(s, g, |a, e, port| {
        start_ev[starts[a as usize]] = port as u32;
        starts[a as usize] += 1;
        end_ev[ends[e as usize]] = port as u32;
        ends[e as usize] += 1;
    });
    let mut count = vec![0u64; slots as usize * 4];
    for tick in 0..starts.len() {
        for &p in &end_ev[bucket(&ends, tick)] {
            count[p as usize] -= 1;
        }
        for &p in &start_ev[bucket(&starts, tick)] {
            sweep(&mut count, tick as u64, p as u64 * 2 + 1, rho)?;
        }
    }
    Ok(())
}

/// [`check_ports_bucketed`] for a schedule with far more ticks than holds:
/// the events sorted instead of bucketed.
fn check_ports_sorted(
    s: &RelaySchedule,
    g: u32,
    holds: usize,
    slots: u32,
    rho: u64,
) -> Result<(), RelayInvalid> {
    // Events: port * 2 + 1 for a start, port * 2 for an end; ordered by
    // tick, ends before starts.
    let mut count = vec![0u64; slots as usize * 4];
    let mut events: Vec<(u64, u64)> = Vec::with_capacity(holds * 2);
    each_hold(s, g, |a, e, port| {
        events.push((e, port * 2));
        events.push((a, port * 2 + 1));
    });
    events.sort_unstable_by_key(|&(t, e)| (t, e & 1));
    for (tick, e) in events {
        sweep(&mut count, tick, e, rho)?;
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
