//! The intra-node chunks, placed after the NIC layer's (`super::sweep`):
//! each takes one NVLink hop, from its source GPU to its destination, in
//! the room the relayed chunks' hops left, as early as there is room.
//!
//! Where a GPU's NVLink port is tight (`super::pressure`), its intra-node
//! chunks go first, tick by tick over the plan's ticks: in each tick with
//! room at the tight GPU, the node's GPU with room at its own end whose
//! chunks have the least slack (free ticks ahead less chunks left) sends
//! the next. Demand by demand, the sources taken in order could leave the
//! tight port idle in a tick where only an earlier-placed source had room,
//! and its last chunks then land past the NIC layer (64 ranks, sigma 1.6,
//! seed 8 of `scripts/relay_gap.py`: 14 ticks past it).

use super::grid::Grid;
use super::hops::BIAS;
use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::{Hop, RelayRun};

/// Intra-node chunks, each at the earliest tick from the plan's first
/// with room on its NVLink hop, ticks `span` the plan's so far; those of
/// the GPUs in `tight` first ([`fill_tight`]). Within the span a demand's
/// next chunks take that tick and as many after it as have room, one run
/// (a chunk a tick: the plan is no longer for it, and a demand is a run
/// or a few, not one per chunk); past the span's end, where the plan
/// grows, each chunk takes the earliest tick with room, so that a port's
/// chunks stack up to its capacity per tick. A cursor per GPU side (the
/// first tick whose port is not yet full from the intra-node chunks'
/// point of view) spares rescanning full ticks.
pub(super) fn place_intra(
    inst: &Instance,
    tt: TwoTier,
    grid: &mut Grid,
    runs: &mut Vec<RelayRun>,
    (start, end): (i64, i64),
    tight: &[u32],
) {
    // Per demand placed by the tight fill, the chunks it placed.
    let mut placed: Vec<(usize, u64)> = Vec::new();
    for &g in tight {
        for into in [true, false] {
            fill_tight(inst, tt, grid, runs, (start, end), (g, into), &mut placed);
        }
    }
    placed.sort_unstable();
    let n = inst.slots as usize;
    let (mut from_out, mut from_in) = (vec![start; n], vec![start; n]);
    // The demands are sorted by source, then destination: a source's
    // intra-node demands are one block, found by search (not a pass over
    // every demand: at 1,024 ranks 1 in 128 is intra-node).
    let demands = inst.demands();
    let blocks = (0..inst.slots).map(|src| {
        let first = tt.rank(tt.node(src), 0);
        let at = |dst: u32| demands.partition_point(|x| (x.src, x.dst) < (src, dst));
        at(first)..at(first + tt.gpus_per_node)
    });
    for d in blocks.flatten() {
        let dem = demands[d];
        let (s, t) = (dem.src as usize, dem.dst as usize);
        let chunks = inst.chunks(d);
        let mut c = placed
            .binary_search_by_key(&d, |p| p.0)
            .map_or(0, |i| placed[i].1);
        let mut open = usize::MAX;
        while c < chunks {
            let at = grid.earliest_fit(from_out[s].max(from_in[t]), dem.src, dem.dst);
            let within = if at <= end {
                let most = (chunks - c).min((end - at + 1) as u64) as usize;
                grid.fit_prefix(at, most, dem.src, dem.dst)
            } else {
                0
            };
            let count = if within > 0 {
                grid.take_prefix(at, within, dem.src, dem.dst);
                within as u64
            } else {
                grid.take(at, dem.src, dem.dst);
                1
            };
            while !grid.out_free(from_out[s], dem.src) {
                from_out[s] += 1;
            }
            while !grid.in_free(from_in[t], dem.dst) {
                from_in[t] += 1;
            }
            let hop = Hop {
                tick: (at + BIAS) as u64,
                from: dem.src,
                to: dem.dst,
            };
            open = extend(runs, open, d as u32, c, count, hop);
            c += count;
        }
    }
}

/// One intra-node demand into (or out of) a tight GPU, being filled.
struct Fill {
    demand: usize,
    src: u32,
    dst: u32,
    /// Its next chunk, the chunks left, the run it extends.
    next: u64,
    left: u64,
    open: usize,
    /// Per tick of the span from the first, the ticks from there on where
    /// the other end had room before the fill.
    ahead: Vec<u32>,
}

/// The intra-node chunks into GPU `g` (`into`), or out of it, placed tick
/// by tick over `span` (module docs): in each tick, while `g`'s side has
/// room, the demand whose other end has room and whose slack (ticks with
/// room ahead less chunks left) is least sends a chunk (ties: the one
/// that sent last, for longer runs; then the first). Chunks that find no
/// tick are left to [`place_intra`]'s pass; `placed` records per demand
/// how many were placed, from its first chunk.
fn fill_tight(
    inst: &Instance,
    tt: TwoTier,
    grid: &mut Grid,
    runs: &mut Vec<RelayRun>,
    (start, end): (i64, i64),
    (g, into): (u32, bool),
    placed: &mut Vec<(usize, u64)>,
) {
    if end < start {
        return;
    }
    let len = (end - start + 1) as usize;
    let node = tt.node(g);
    let mut fills = Vec::new();
    for o in (tt.rank(node, 0)..tt.rank(node + 1, 0)).filter(|&o| o != g) {
        let (src, dst) = if into { (o, g) } else { (g, o) };
        let Some(demand) = inst.demand_index(src, dst) else {
            continue;
        };
        let done = placed.iter().find(|p| p.0 == demand).map_or(0, |p| p.1);
        let left = inst.chunks(demand) - done;
        if left == 0 {
            continue;
        }
        let mut ahead = vec![0u32; len + 1];
        for i in (0..len).rev() {
            let t = start + i as i64;
            let free = if into {
                grid.out_free(t, o)
            } else {
                grid.in_free(t, o)
            };
            ahead[i] = ahead[i + 1] + free as u32;
        }
        fills.push(Fill {
            demand,
            src,
            dst,
            next: done,
            left,
            open: usize::MAX,
            ahead,
        });
    }
    let mut last = usize::MAX;
    for i in 0..len {
        let t = start + i as i64;
        loop {
            let room = if into {
                grid.in_free(t, g)
            } else {
                grid.out_free(t, g)
            };
            if !room {
                break;
            }
            let slack = |f: &Fill| f.ahead[i] as i64 - f.left as i64;
            let best = fills
                .iter()
                .enumerate()
                .filter(|(_, f)| f.left > 0 && grid.fits(t, f.src, f.dst))
                .min_by_key(|&(k, f)| (slack(f), k != last, k))
                .map(|(k, _)| k);
            let Some(k) = best else {
                break;
            };
            let f = &mut fills[k];
            grid.take(t, f.src, f.dst);
            let hop = Hop {
                tick: (t + BIAS) as u64,
                from: f.src,
                to: f.dst,
            };
            f.open = extend(runs, f.open, f.demand as u32, f.next, 1, hop);
            (f.next, f.left) = (f.next + 1, f.left - 1);
            last = k;
        }
    }
    for f in fills {
        match placed.iter_mut().find(|p| p.0 == f.demand) {
            Some(p) => p.1 = f.next,
            None => placed.push((f.demand, f.next)),
        }
    }
}

/// Adds chunks `chunk .. chunk + count` of demand `d` with `hop` (the
/// first's; intra-node: one hop) to the run `open` when they continue it
/// (next chunk, next tick), else as a new run; returns the run they went
/// to.
fn extend(
    runs: &mut Vec<RelayRun>,
    open: usize,
    d: u32,
    chunk: u64,
    count: u64,
    hop: Hop,
) -> usize {
    if let Some(r) = runs.get_mut(open) {
        let h = r.hops()[0];
        if r.demand == d
            && r.chunk + r.count == chunk
            && h.tick + r.count == hop.tick
            && (h.from, h.to) == (hop.from, hop.to)
        {
            r.count += count;
            return open;
        }
    }
    runs.push(RelayRun::new(d, chunk, count, &[hop]).expect("one hop"));
    runs.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    /// Intra-node demands 0 -> 1 (10 chunks) and 2 -> 1 (6) on nodes of 4,
    /// rho 2, GPU 1's NVLink receive side full in tick 3.
    fn intra(span: (i64, i64)) -> Vec<(u32, u64, u64, u64)> {
        let demands = [(0u32, 1u32, 10u64), (2, 1, 6)].map(|(src, dst, c)| Demand {
            src,
            dst,
            bits: 64 * c,
        });
        let inst = Instance::new(Model::Read1Write1, 8, 64, demands, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: 4,
            nvlink_speedup: 2,
        };
        let mut grid = Grid::new(8, 20, 2);
        grid.take(3, 3, 1);
        grid.take(3, 3, 1);
        let mut runs = Vec::new();
        place_intra(&inst, tt, &mut grid, &mut runs, span, &[]);
        let mut got: Vec<_> = runs
            .iter()
            .map(|r| (r.demand, r.chunk, r.count, r.hops()[0].tick - BIAS as u64))
            .collect();
        got.sort_unstable();
        got
    }

    #[test]
    fn intra_node_chunks_run_one_a_tick_within_the_span_and_stack_past_it() {
        // Within ticks 0 ..= 19: a run from the earliest tick with room
        // until a full tick (GPU 1 receives at most rho = 2 a tick, tick 3
        // full), the next from the earliest again.
        assert_eq!(
            intra((0, 19)),
            vec![(0, 0, 3, 0), (0, 3, 3, 0), (0, 6, 4, 4), (1, 0, 6, 4)]
        );
        // A span ending at tick 1: past it each chunk takes the earliest
        // tick with room, two a tick; a chunk one tick after a run's last
        // continues it.
        assert_eq!(
            intra((0, 1)),
            vec![
                (0, 0, 2, 0),
                (0, 2, 3, 0),
                (0, 5, 1, 2),
                (0, 6, 1, 4),
                (0, 7, 2, 4),
                (0, 9, 1, 5),
                (1, 0, 1, 6),
                (1, 1, 2, 6),
                (1, 3, 2, 7),
                (1, 5, 1, 8),
            ]
        );
    }

    #[test]
    fn a_tight_gpus_chunks_fill_its_ticks_from_the_sender_with_least_slack() {
        // Nodes of 4, rho 1: GPUs 0 and 1 send 2 chunks each to GPU 3 in
        // ticks 0 ..= 3; GPU 1's NVLink sends are taken in ticks 2 and 3.
        // Demand by demand, 0 -> 3 takes ticks 0 and 1 and 1 -> 3 lands
        // past the span; GPU 3's chunks tick by tick, GPU 1 (no slack)
        // sends in 0 and 1, GPU 0 in 2 and 3.
        let demands = [(0u32, 3u32), (1, 3)].map(|(src, dst)| Demand {
            src,
            dst,
            bits: 64 * 2,
        });
        let inst = Instance::new(Model::Read1Write1, 8, 64, demands, &Limits::default()).unwrap();
        let tt = TwoTier {
            gpus_per_node: 4,
            nvlink_speedup: 1,
        };
        let last_tick = |tight: &[u32]| {
            let mut grid = Grid::new(8, 8, 1);
            grid.take(2, 1, 2);
            grid.take(3, 1, 2);
            let mut runs = Vec::new();
            place_intra(&inst, tt, &mut grid, &mut runs, (0, 3), tight);
            let mut chunks: Vec<_> = runs.iter().flat_map(|r| r.chunks()).collect();
            chunks.sort_unstable_by_key(|c| (c.1[0].from, c.0));
            assert_eq!(chunks.len(), 4);
            chunks
                .iter()
                .map(|c| c.1[0].tick - BIAS as u64)
                .max()
                .unwrap()
        };
        assert!(last_tick(&[]) > 3, "demand by demand: past the span");
        assert_eq!(last_tick(&[3]), 3);
    }
}
