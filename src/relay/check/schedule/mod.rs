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
//! each port its hops use for an interval of ticks. Linear in runs,
//! demands and ticks, with no work per chunk beyond a bit each:
//!
//! 1. `routes`: one pass over the runs checks each route, counts the hops
//!    that start and end in each tick (when the ticks are few enough for a
//!    bucket each: at most 24 per run, plus 1,024) and marks each run's
//!    chunks in a bitmap of all the instance's chunks, noting a chunk
//!    marked twice. The bitmap is kept where the chunks are few enough (64
//!    per run and demand, plus 2^16, and below 2^32); a table of the
//!    demands built first (16 bytes each: ends, chunks, first bit) makes
//!    a run's lookup one memory access, and runs are looked up 64 at a
//!    time so that on a large instance their cache misses overlap.
//! 2. `coverage`: the bitmap marked once throughout is a tiling. Where it
//!    is not, or there is no bitmap, the runs are sorted per demand (a
//!    counting sort by demand, then each demand's by first chunk) and the
//!    first demand in error reported.
//! 3. `ports`: each hop bucketed by its start and end ticks (a counting
//!    sort; its two ports packed in a u32, or a u64 past 16,384 GPUs),
//!    then one sweep over the ticks counting each port's holds, each
//!    tick's ends before its starts, starts in run order; or, where the
//!    ticks are too many for a bucket each, every hold's start and end
//!    sorted. A small schedule in one part (`GRID_CELLS` ports x ticks,
//!    fewer than 2^16 hops) is counted on a grid instead: +1 at each
//!    hold's start and -1 at its end per (tick, port), the ticks summed
//!    in order against the capacities, with no sort; where that sees an
//!    overload the schedule is checked again with buckets, which name the
//!    first (the grid only says there is one).
//!
//! Large schedules (`PARALLEL_RUNS` runs and more) are cut into parts, as
//! many as rayon has threads (at most `MAX_PARTS`): each part of the runs
//! is checked and counted (step 1) and bucketed (step 3) on its own
//! thread, with buckets and a bitmap of its own; the bitmaps are merged
//! (a chunk in two is marked twice), and the sweep is cut at ticks into as
//! many parts with about as many starts each, each starting from the holds
//! that cross its first tick (counted while bucketing). The parts'
//! findings are taken in order, so the verdict and the error do not
//! depend on the parts: the first bad run in run order, then the coverage
//! error, then the first overload in tick order (in run order within its
//! tick). Small schedules stay on the calling thread (rayon's start-up
//! costs tens of microseconds). Where bitmap and buckets are kept, the
//! memory is about 16 bytes per demand, 8 per hop (16 past 16,384 GPUs),
//! 8 per tick and part and a bit per chunk and part, besides the runs.

mod coverage;
mod ports;
mod routes;

use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelaySchedule;
use rayon::prelude::*;

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

/// Which GPUs share a node: a shift where the nodes' size is a power of
/// two, else a division.
#[derive(Clone, Copy)]
struct Nodes {
    g: u32,
    shift: Option<u32>,
}

impl Nodes {
    fn new(g: u32) -> Nodes {
        let shift = g.is_power_of_two().then(|| g.trailing_zeros());
        Nodes { g, shift }
    }

    /// Whether GPUs `a` and `b` are in different nodes.
    #[inline]
    fn apart(self, a: u32, b: u32) -> bool {
        match self.shift {
            Some(k) => a >> k != b >> k,
            None => a / self.g != b / self.g,
        }
    }
}

/// Runs from which a schedule is checked in parts on rayon's threads.
const PARALLEL_RUNS: usize = 1 << 15;

/// Most parts a schedule is cut into (each has its own buckets and bitmap).
const MAX_PARTS: usize = 8;

/// Ports x (ticks + 1) up to which a schedule checked in one part counts
/// its ports on a grid (2 bytes a cell: 512 KiB; 64 GPUs and 500 ticks
/// take 128,000 cells).
const GRID_CELLS: u64 = 1 << 18;

/// Checks `s` against `inst` on machine `tt` (module docs).
pub fn validate_relay(inst: &Instance, tt: TwoTier, s: &RelaySchedule) -> Result<(), RelayInvalid> {
    validate_in_parts(inst, tt, s, parts_for(s.runs.len(), PARALLEL_RUNS))
}

/// Parts for `runs` runs: one below `min_runs`, else one per rayon thread
/// (at most [`MAX_PARTS`]).
fn parts_for(runs: usize, min_runs: usize) -> usize {
    if runs < min_runs {
        1
    } else {
        rayon::current_num_threads().clamp(1, MAX_PARTS)
    }
}

/// `f(i, item)` for each item in order, on rayon's threads when more than one.
fn each<I: Send, T: Send>(items: Vec<I>, f: impl Fn(usize, I) -> T + Sync + Send) -> Vec<T> {
    if items.len() == 1 {
        items.into_iter().map(|x| f(0, x)).collect()
    } else {
        items
            .into_par_iter()
            .enumerate()
            .map(|(i, x)| f(i, x))
            .collect()
    }
}

/// [`validate_relay`] with the runs cut into `parts` parts (module docs);
/// the result does not depend on `parts`.
fn validate_in_parts(
    inst: &Instance,
    tt: TwoTier,
    s: &RelaySchedule,
    parts: usize,
) -> Result<(), RelayInvalid> {
    validate_with(inst, tt, s, parts, true)
}

/// [`validate_in_parts`], the ports counted on a grid where `grid` allows
/// it and the schedule is small (module docs, step 3).
fn validate_with(
    inst: &Instance,
    tt: TwoTier,
    s: &RelaySchedule,
    parts: usize,
    grid: bool,
) -> Result<(), RelayInvalid> {
    tt.check(inst)
        .map_err(|e| RelayInvalid::Machine(e.to_string()))?;
    let parts = parts.clamp(1, s.runs.len().max(1));
    // A bucket per tick where the ticks are few against the runs (and
    // ports and hops fit in u32); a grid of ports and ticks instead where
    // it is small and every count fits in 16 bits.
    let runs = s.runs.len() as u64;
    let dense =
        s.ticks <= 24 * runs + 1024 && inst.slots <= u32::MAX / 4 && 3 * runs <= u32::MAX as u64;
    let cells = (s.ticks + 1).saturating_mul(4 * inst.slots as u64);
    let grid = grid && dense && parts == 1 && cells <= GRID_CELLS && 3 * runs <= u16::MAX as u64;
    let table = coverage::demand_table(inst, s.runs.len());
    let ctx = routes::Context {
        inst,
        s,
        nodes: Nodes::new(tt.gpus_per_node),
        table: table.as_ref().map(|(t, total)| (&t[..], *total)),
        dense: dense && !grid,
    };
    let len = s.runs.len();
    let ranges = (0..parts)
        .map(|i| len * i / parts..len * (i + 1) / parts)
        .collect();
    let tallies = each(ranges, |_, part| routes::check_routes(&ctx, part))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let (nodes, rho) = (ctx.nodes, tt.nvlink_speedup);
    let hops = tallies.iter().map(|t| t.hops).sum::<usize>();
    // On the grid an overload is only seen, not named: the buckets name
    // it (the routes and coverage pass again on the way).
    let ports = |tallies| {
        if !grid {
            check_ports(s, nodes, tallies, hops, inst.slots, rho)
        } else if ports::fit_on_grid(s, nodes, inst.slots, rho) {
            Ok(())
        } else {
            validate_with(inst, tt, s, parts, false)
        }
    };
    if let Some((_, total)) = table {
        // The bitmap's verdict; where it saw an overlap or a gap, sorting
        // finds the demand to report.
        if !coverage::bitmaps_tile(total, tallies.iter().map(|t| (&t.bits[..], t.clash))) {
            coverage::check_coverage_sorted(inst, s)?;
        }
        return ports(tallies);
    }
    // No bitmap: the coverage check by sorting on its own thread beside
    // the port check on large schedules (the coverage error first when
    // both fail, as in sequence).
    let coverage = || coverage::check_coverage_sorted(inst, s);
    let ports = || ports(tallies);
    let (coverage, ports) = if parts > 1 {
        rayon::join(coverage, ports)
    } else {
        (coverage(), ports())
    };
    coverage?;
    ports
}

/// The port check (step 3): bucketed where the tallies counted ticks, else sorted.
fn check_ports(
    s: &RelaySchedule,
    nodes: Nodes,
    tallies: Vec<routes::Tally>,
    hops: usize,
    slots: u32,
    rho: u32,
) -> Result<(), RelayInvalid> {
    if !tallies[0].dense {
        ports::check_ports_sorted(s, nodes, hops, slots, rho as u64)
    } else {
        ports::check_ports_bucketed(s, nodes, tallies, slots, rho)
    }
}

#[cfg(test)]
mod tests;
