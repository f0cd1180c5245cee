//! Step 1 of the validator (module docs): each run's route, and the
//! counts the later steps sort by, one part of the runs at a time.

use super::coverage::{mark_chunks, DemandOf};
use super::{Nodes, RelayInvalid};
use crate::instance::Instance;
use crate::relay::schedule::{RelayRun, RelaySchedule};

/// What every part reads.
pub(super) struct Context<'a> {
    pub inst: &'a Instance,
    pub s: &'a RelaySchedule,
    pub nodes: Nodes,
    /// The demands with their first bits in the chunk bitmap, and the
    /// chunks in all, when the instance has a bitmap
    /// ([`super::coverage::demand_table`]).
    pub table: Option<(&'a [DemandOf], u64)>,
    /// Whether the ticks get a bucket each.
    pub dense: bool,
}

/// What one part's pass counted.
pub(super) struct Tally {
    /// The part's runs.
    pub runs: std::ops::Range<usize>,
    pub dense: bool,
    /// Hops of the part's runs.
    pub hops: usize,
    /// Per tick, the part's hops that start (`starts`) and end (`ends`,
    /// the tick after their last chunk's) there: `ticks + 2` each when
    /// dense, else empty.
    pub starts: Vec<u32>,
    pub ends: Vec<u32>,
    /// The part's chunks marked in the instance's chunk bitmap (empty
    /// without one), and whether a chunk was marked twice.
    pub bits: Vec<u64>,
    pub clash: bool,
}

/// Checks the routes of runs `part` (module docs) in order, the first bad
/// one reported, and counts the part's hops and chunks ([`Tally`]).
pub(super) fn check_routes(
    ctx: &Context,
    part: std::ops::Range<usize>,
) -> Result<Tally, RelayInvalid> {
    let buckets = if ctx.dense {
        ctx.s.ticks as usize + 2
    } else {
        0
    };
    let words = ctx
        .table
        .map_or(0, |(_, total)| (total as usize).div_ceil(64));
    let mut t = Tally {
        runs: part.clone(),
        dense: ctx.dense,
        hops: 0,
        starts: vec![0; buckets],
        ends: vec![0; buckets],
        bits: vec![0; words],
        clash: false,
    };
    let mut at = part.start;
    for batch in ctx.s.runs[part].chunks(BATCH) {
        for (dem, c) in look_up(ctx, batch).iter().zip(batch) {
            let Some(dem) = dem else {
                return Err(RelayInvalid::UnknownDemand {
                    at,
                    demand: c.demand,
                    demands: ctx.inst.demands().len(),
                });
            };
            check_run(ctx, at, c, dem)?;
            at += 1;
            t.hops += c.hops().len();
            if ctx.dense {
                for hop in c.hops() {
                    // Both below ticks + 2 (checked by check_run).
                    t.starts[hop.tick as usize] += 1;
                    t.ends[(hop.tick + c.count) as usize] += 1;
                }
            }
            if ctx.table.is_some() {
                // Inside the demand's chunks (checked), so below its first
                // bit + chunks.
                t.clash |= mark_chunks(&mut t.bits, dem.first as u64 + c.chunk, c.count);
            }
        }
    }
    Ok(t)
}

/// Runs looked up together: on a large instance each lookup misses the
/// cache, and a batch's misses overlap.
const BATCH: usize = 64;

/// The demands of a batch of runs (`None` for one that does not exist),
/// looked up before any is checked.
#[inline]
fn look_up(ctx: &Context, batch: &[RelayRun]) -> [Option<DemandOf>; BATCH] {
    let mut found = [None; BATCH];
    if let Some((table, _)) = ctx.table {
        for (f, c) in found.iter_mut().zip(batch) {
            *f = table.get(c.demand as usize).copied();
        }
        return found;
    }
    // Without a table the chunk counts (which may not fit in u32) are
    // read from the instance by `check_run`.
    let demands = ctx.inst.demands();
    for (f, c) in found.iter_mut().zip(batch) {
        let d = c.demand as usize;
        *f = demands.get(d).map(|dem| DemandOf {
            src: dem.src,
            dst: dem.dst,
            first: 0,
            chunks: 0,
        });
    }
    found
}

/// The checks of run `at` of demand `dem`, errors in the order they are
/// reported: its chunks, its ends, each hop's GPUs, ticks and chaining,
/// the route's shape.
#[inline]
fn check_run(ctx: &Context, at: usize, c: &RelayRun, dem: &DemandOf) -> Result<(), RelayInvalid> {
    let chunks = match ctx.table {
        Some(_) => dem.chunks as u64,
        None => ctx.inst.chunks(c.demand as usize),
    };
    if c.count == 0 || c.chunk.checked_add(c.count).is_none_or(|e| e > chunks) {
        return Err(RelayInvalid::UnknownChunk {
            at,
            demand: c.demand,
            chunk: c.chunk.saturating_add(c.count.max(1) - 1),
            chunks,
        });
    }
    let (nodes, hops, slots, ticks) = (ctx.nodes, c.hops(), ctx.inst.slots, ctx.s.ticks);
    let (first, last) = (hops[0], hops[hops.len() - 1]);
    if first.from != dem.src || last.to != dem.dst {
        return Err(route(
            at,
            format!(
                "the route runs {} -> {}, the demand {} -> {}",
                first.from, last.to, dem.src, dem.dst
            ),
        ));
    }
    // Hop kinds as bits, the first hop's lowest: 1 for a NIC hop.
    let mut nics = 0u32;
    for (h, hop) in hops.iter().enumerate() {
        if hop.from >= slots || hop.to >= slots || hop.from == hop.to {
            return Err(route(
                at,
                format!(
                    "hop {h} ({} -> {}) is not between two GPUs",
                    hop.from, hop.to
                ),
            ));
        }
        // The run's last chunk takes this hop in tick `tick + count - 1`.
        if hop.tick.checked_add(c.count).is_none_or(|e| e > ticks) {
            return Err(route(
                at,
                format!(
                "hop {h} of the run's last chunk is in tick {} + {}, past the schedule's {} ticks",
                hop.tick,
                c.count - 1,
                ticks
            ),
            ));
        }
        if h > 0 && (hops[h - 1].to != hop.from || hops[h - 1].tick >= hop.tick) {
            let p = hops[h - 1];
            return Err(route(
                at,
                format!(
                    "hop {h} ({} -> {} in tick {}) does not follow hop {} ({} -> {} in tick {})",
                    hop.from,
                    hop.to,
                    hop.tick,
                    h - 1,
                    p.from,
                    p.to,
                    p.tick
                ),
            ));
        }
        nics |= (nodes.apart(hop.from, hop.to) as u32) << h;
    }
    let inter = nodes.apart(dem.src, dem.dst);
    // Inter-node: N, VN, NV or VNV; intra-node: V.
    let ok = match (inter, hops.len()) {
        (false, n) => n == 1 && nics == 0,
        (true, 1) => nics == 0b1,
        (true, 2) => nics == 0b10 || nics == 0b01,
        (true, _) => nics == 0b010,
    };
    if !ok {
        return Err(route(at, shape_error(hops.len(), nics, inter)));
    }
    Ok(())
}

#[cold]
fn route(at: usize, what: String) -> RelayInvalid {
    RelayInvalid::Route { at, what }
}

/// The wrong-shape message: the hops' kinds as letters.
#[cold]
fn shape_error(len: usize, nics: u32, inter: bool) -> String {
    let shape: String = (0..len)
        .map(|h| if nics >> h & 1 == 1 { 'N' } else { 'V' })
        .collect();
    format!(
        "hops {shape:?} (V NVLink, N NIC) are not a route of the model for an {} demand",
        if inter { "inter-node" } else { "intra-node" }
    )
}
