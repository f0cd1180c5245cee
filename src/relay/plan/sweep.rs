//! Placing every chunk ([`place`]): the NIC layer's ticks swept in
//! windows (`super::hops` places each interval's chunks of a window and
//! their NVLink hops), in one part or, on a long layer, in two halves at
//! once on the thread pool; then the intra-node chunks (`super::hops`).
//!
//! Halves: ticks `0 .. b` and `b + SEAM .. T` are swept at the same time,
//! each with cursors, an NVLink grid and runs of its own (the second
//! half's cursors moved to where the NIC layer has taken each segment by
//! its first tick: an interval sends one chunk a tick, so that is known
//! without sweeping). The grids are then added, and the seam's ticks `b ..
//! b + SEAM` swept last on the sum, continuing the first half (its
//! cursors and open runs), so the seam's hops see both halves'. The
//! halves' own hops meet only where one moved more than `SEAM - 1` ticks
//! from its NIC hop toward the other half (an NVLink port full there);
//! where the sum would then exceed a port's capacity, the second half is
//! dropped and the first goes on through it. A segment's run open at `b +
//! SEAM` is cut in two there.
//! Where the halves are cut depends on the layer only, not on the
//! threads, so the plan is the same on any number of them.

use super::grid::Grid;
use super::hops::{
    close, cursor_rails, hops_ahead, place_ticks, segments, Ahead, Cursor, FirstHops, Order, Span,
    EDGE_PART, TIGHT_EDGE_PART, WINDOW,
};
use super::intra::place_intra;
use super::item::Item;
use super::nic::Interval;
use super::prefetch::prefetch;
use super::pressure::Pressure;
use super::rails::RailLoads;
use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::RelayRun;
use std::ops::Range;

/// Layers of at least this many ticks are swept in halves. Shorter ones
/// cost less than waking another thread for a half: at 64 ranks (362
/// ticks, a sweep of about 0.2 ms) halves made the plan's median 0.62 ->
/// 0.81 ms on this project's 2-core machine; at 256 ranks (1,902 ticks)
/// they save 1-2 ms of 11.
const SPLIT_TICKS: u64 = 1024;

/// Ticks between the halves, swept after both on their sum (at 8, 3 of 28
/// plans at rho 4 in `examples/relay_gap.rs`'s `256:6 1024:1` had the
/// halves overload a port; at 32, none at rho 1-8).
const SEAM: u64 = 32;

/// What every part of a sweep reads: the machine, the pairs' sequences
/// (pair `p`'s at `seq[pair_start[p]..pair_start[p + 1]]`), the rails'
/// loads (which rail each cursor is on), the NIC intervals by start tick,
/// where the layer's edges (`Ahead`) end and start, and the first hops
/// placed before the sweep where a port is tight.
struct Layer<'a> {
    tt: TwoTier,
    seq: &'a [Item],
    pair_start: &'a [usize],
    rails: &'a RailLoads,
    intervals: &'a [Interval],
    first_until: u64,
    last_from: u64,
    early: Option<&'a FirstHops>,
}

impl Layer<'_> {
    /// Where the window starting at NIC tick `window` ends: [`WINDOW`]
    /// ticks on, or sooner at the edge parts' bounds, so that a window
    /// places one kind of hop ahead in the edge parts only. (Where first
    /// hops were placed before the sweep, `FirstHops`, the bounds are
    /// multiples of [`WINDOW`]: its windows are the sweep's.)
    fn window_end(&self, window: u64) -> u64 {
        let end = window + WINDOW;
        if window < self.first_until {
            end.min(self.first_until)
        } else if window < self.last_from {
            end.min(self.last_from)
        } else {
            end
        }
    }
}

/// A swept layer: the NVLink use and the runs written.
struct Part {
    grid: Grid,
    runs: Vec<RelayRun>,
}

/// Every chunk of `inst` placed: the inter-node ones on the NIC intervals
/// (`rails` and `intervals` as `super::nic` made them, the NIC layer
/// `nic_ticks` long, the demands in the order `order`), the intra-node
/// ones after. Runs in the order they were closed, ticks shifted by
/// [`BIAS`]; and the first and last tick of any hop (unshifted), `None`
/// where there is none.
pub(crate) fn place(
    inst: &Instance,
    tt: TwoTier,
    order: Order,
    rails: &RailLoads,
    intervals: &[Interval],
    nic_ticks: u64,
    pressure: Option<&Pressure>,
) -> (Vec<RelayRun>, Option<(i64, i64)>) {
    let Order {
        seq,
        pair_start,
        cursors,
    } = order;
    let tight = pressure.is_some_and(|p| p.any_tight());
    let n = inst.slots as usize;
    // About a run per demand and one more each time an interval of a
    // segment ends inside a demand (measured: 64 ranks 6,287 runs of 4,032
    // demands and 826 intervals; 1,024 ranks 1.25 M of 1.05 M demands):
    // room for both, so the runs are never copied to grow.
    let d = inst.demands().len();
    let capacity = (d * 3 / 2).max(d + 3 * intervals.len());
    let (first_until, last_from) = edge_parts(tt, nic_ticks, tight);
    let mut layer = Layer {
        tt,
        seq: &seq,
        pair_start: &pair_start,
        rails,
        intervals,
        first_until,
        last_from,
        early: None,
    };
    let Part { mut grid, mut runs } = if tight {
        // Where a port is tight, the first hops of every window before the
        // last quarter's are placed before any last hop (`FirstHops`).
        let mut grid = Grid::new(n, nic_ticks as usize, tt.nvlink_speedup);
        let mut moved = cursors.clone();
        let last_quarter = nic_ticks - nic_ticks / TIGHT_EDGE_PART;
        let early = FirstHops::place(tt, &seq, &mut moved, &mut grid, intervals, last_quarter);
        layer.early = Some(&early);
        in_one(&layer, cursors, grid, capacity, nic_ticks)
    } else {
        in_parts(&layer, cursors, n, capacity, nic_ticks)
    };
    // Every hop is a NIC hop of an interval or an NVLink hop on the grid.
    let nic = intervals
        .iter()
        .map(|iv| iv.start + iv.len)
        .max()
        .map(|end| (0, end as i64 - 1));
    let so_far = span(nic, grid.used()).unwrap_or((0, -1));
    let tight_gpus: Vec<u32> = match pressure {
        Some(p) if tight => (0..inst.slots).filter(|&g| p.tight(g)).collect(),
        _ => Vec::new(),
    };
    place_intra(inst, tt, &mut grid, &mut runs, so_far, &tight_gpus);
    (runs, span(nic, grid.used()))
}

/// Where the windows that place first hops ahead end and those that
/// place last hops ahead start ([`Ahead`]), on a NIC layer of `nic_ticks`
/// ticks. With rho >= G every hop fits one tick from its NIC hop whatever
/// the order (module docs): none. On a long layer without a tight port,
/// the first and last `1 / EDGE_PART`; else the windows of [`WINDOW`]
/// ticks that reach into the first and last `1 / TIGHT_EDGE_PART` (a
/// short layer's first window may be the whole layer: its first hops go
/// first throughout, which plans closer to the bound at 16 ranks, rho
/// 1-2, than the edge parts alone).
fn edge_parts(tt: TwoTier, nic_ticks: u64, tight: bool) -> (u64, u64) {
    if tt.nvlink_speedup >= tt.gpus_per_node {
        return (0, u64::MAX);
    }
    if !tight && nic_ticks >= 2 * WINDOW {
        let edge = nic_ticks / EDGE_PART;
        return (edge, nic_ticks - edge);
    }
    let edge = nic_ticks / TIGHT_EDGE_PART;
    (
        edge.next_multiple_of(WINDOW),
        (nic_ticks - edge) / WINDOW * WINDOW,
    )
}

/// The ticks from the first of `a` and `b` to the last.
fn span(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some((x.0.min(y.0), x.1.max(y.1))),
        (x, y) => x.or(y),
    }
}

/// The layer swept (`nic_ticks` long, for `n` GPUs, the segments starting
/// at `start`, no first hops placed before: `place` sweeps a tight layer
/// in one part), in halves where it is long enough; runs written with
/// room for `capacity`.
fn in_parts(layer: &Layer, start: Vec<Cursor>, n: usize, capacity: usize, nic_ticks: u64) -> Part {
    debug_assert!(layer.early.is_none());
    if nic_ticks >= SPLIT_TICKS {
        return in_halves(layer, start, n, capacity, nic_ticks).0;
    }
    let grid = Grid::new(n, nic_ticks as usize, layer.tt.nvlink_speedup);
    in_one(layer, start, grid, capacity, nic_ticks)
}

/// The layer swept in one part on `grid`.
fn in_one(
    layer: &Layer,
    mut cursors: Vec<Cursor>,
    mut grid: Grid,
    capacity: usize,
    nic_ticks: u64,
) -> Part {
    let mut runs = Vec::with_capacity(capacity);
    sweep(layer, &mut cursors, &mut grid, &mut runs, 0..nic_ticks);
    close_open(layer, &cursors, &mut runs);
    Part { grid, runs }
}

/// The layer swept in two halves and a seam (module docs), and whether
/// the second half was kept: where the halves' hops overload a port, the
/// first half goes on through the second instead.
fn in_halves(
    layer: &Layer,
    start: Vec<Cursor>,
    n: usize,
    capacity: usize,
    nic_ticks: u64,
) -> (Part, bool) {
    let rho = layer.tt.nvlink_speedup;
    let b = nic_ticks / 2;
    let second = b + SEAM..nic_ticks;
    let ((mut cursors, mut grid, mut runs), (grid2, runs2)) = rayon::join(
        move || {
            let mut cursors = start;
            let mut grid = Grid::new(n, nic_ticks as usize, rho);
            let mut runs = Vec::with_capacity(capacity);
            sweep(layer, &mut cursors, &mut grid, &mut runs, 0..b);
            (cursors, grid, runs)
        },
        || {
            let mut cursors = cursors_at(layer, second.start);
            let mut grid = Grid::over(n, second.start as i64..second.end as i64, rho);
            let mut runs = Vec::with_capacity(capacity / 2 + layer.intervals.len());
            sweep(layer, &mut cursors, &mut grid, &mut runs, second.clone());
            close_open(layer, &cursors, &mut runs);
            (grid, runs)
        },
    );
    if !grid.absorb(&grid2) {
        sweep(layer, &mut cursors, &mut grid, &mut runs, b..nic_ticks);
        close_open(layer, &cursors, &mut runs);
        return (Part { grid, runs }, false);
    }
    sweep(layer, &mut cursors, &mut grid, &mut runs, b..second.start);
    close_open(layer, &cursors, &mut runs);
    runs.extend_from_slice(&runs2);
    (Part { grid, runs }, true)
}

/// The segments' cursors at NIC tick `tick`: each past the chunks its
/// intervals send before it.
fn cursors_at(layer: &Layer, tick: u64) -> Vec<Cursor> {
    let mut sent = vec![0u64; layer.rails.iter().map(Vec::len).sum()];
    for iv in layer.intervals.iter().take_while(|iv| iv.start < tick) {
        sent[iv.cursor as usize] += (iv.start + iv.len).min(tick) - iv.start;
    }
    segments(layer.seq, layer.pair_start, layer.rails, Some(&sent))
}

/// Closes the runs the segments' cursors still hold open (a segment whose
/// last demand continues on another rail, or a part's end).
fn close_open(layer: &Layer, cursors: &[Cursor], runs: &mut Vec<RelayRun>) {
    let tt = layer.tt;
    for (cur, rail) in cursors.iter().zip(cursor_rails(layer.rails)) {
        if cur.run.count > 0 {
            let item = layer.seq[cur.at];
            let (a, b) = (tt.node(item.src), tt.node(item.dst));
            close(runs, &item, cur.run, tt.rank(a, rail), tt.rank(b, rail));
        }
    }
}

/// Sweeps NIC ticks `ticks` in windows of [`WINDOW`] ticks: each interval
/// active in a window places its chunks of the window (the window's first
/// or last hops first near the layer's edges, [`Ahead`]), from the
/// segments' `cursors`, on `grid`, closing runs onto `runs`.
fn sweep(
    layer: &Layer,
    cursors: &mut [Cursor],
    grid: &mut Grid,
    runs: &mut Vec<RelayRun>,
    ticks: Range<u64>,
) {
    let Layer {
        tt,
        seq,
        intervals,
        first_until,
        last_from,
        early,
        ..
    } = *layer;
    let early_until = early.map_or(0, |e| e.until);
    // The intervals active in the window, each with its next tick: those
    // under way at the first tick, then each as the windows reach it.
    let mut next = intervals.partition_point(|iv| iv.start < ticks.start);
    let mut active: Vec<(usize, u64)> = (0..next)
        .filter(|&x| intervals[x].start + intervals[x].len > ticks.start)
        .map(|x| (x, ticks.start))
        .collect();
    // In the windows that place one kind of NVLink hop first ([`Ahead`]):
    // per active interval, where its hops' ticks start in `ahead`, and its
    // cursor's position before they were placed.
    let (mut ahead, mut from_at, mut saved) = (Vec::new(), Vec::new(), Vec::new());
    let mut window = ticks.start;
    while window < ticks.end && (next < intervals.len() || !active.is_empty()) {
        let end = layer.window_end(window).min(ticks.end);
        while next < intervals.len() && intervals[next].start < end {
            active.push((next, intervals[next].start));
            next += 1;
        }
        let kind = if window < early_until {
            None
        } else if window < first_until {
            Some(Ahead::First)
        } else if window >= last_from {
            Some(Ahead::Last)
        } else {
            None
        };
        if let Some(kind) = kind {
            ahead.clear();
            from_at.clear();
            saved.clear();
            for (i, &(x, from)) in active.iter().enumerate() {
                prefetch_next(layer, cursors, &active, i);
                let iv = &intervals[x];
                let to = (iv.start + iv.len).min(end);
                from_at.push(ahead.len());
                let cur = &mut cursors[iv.cursor as usize];
                saved.push((iv.cursor as usize, cur.at, cur.chunk));
                hops_ahead(tt, seq, cur, grid, (iv, from..to), kind, &mut ahead);
            }
            // An interval's cursor as it was (an earlier interval of the
            // same segment in this window saved it first: restored last).
            for &(c, at, chunk) in saved.iter().rev() {
                (cursors[c].at, cursors[c].chunk) = (at, chunk);
            }
        }
        let mut kept = 0;
        for i in 0..active.len() {
            prefetch_next(layer, cursors, &active, i);
            let (x, from) = active[i];
            let iv = &intervals[x];
            let to = (iv.start + iv.len).min(end);
            let cur = &mut cursors[iv.cursor as usize];
            let given = match early {
                Some(e) if window < e.until => Some((Ahead::First, e.of(x, iv, from..to))),
                _ => kind.map(|k| (k, &ahead[from_at[i]..from_at[i] + (to - from) as usize])),
            };
            let span = Span {
                iv,
                ticks: from..to,
                given,
            };
            place_ticks(tt, seq, cur, grid, runs, span);
            if to < iv.start + iv.len {
                active[kept] = (x, to);
                kept += 1;
            }
        }
        active.truncate(kept);
        window = end;
    }
}

/// The segments' state is scattered: asks for the cursor of the active
/// interval 4 places after `i` and the next two demands of the one 2
/// places after it, so that their cache misses overlap the work before
/// them.
#[inline]
fn prefetch_next(layer: &Layer, cursors: &[Cursor], active: &[(usize, u64)], i: usize) {
    if let Some(&(x, _)) = active.get(i + 4) {
        prefetch(&cursors[layer.intervals[x].cursor as usize]);
    }
    if let Some(&(x, _)) = active.get(i + 2) {
        let at = cursors[layer.intervals[x].cursor as usize].at;
        for item in layer.seq.iter().skip(at).take(2) {
            prefetch(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_hot_columns;
    use crate::instance::Model;
    use crate::relay::plan::hops::{sequences, BIAS};
    use crate::relay::plan::{nic::nic_intervals, node_pairs, rails::split_rails};

    /// Every chunk's NIC hop `(demand, chunk, tick, from, to)`, sorted.
    fn nic_hops(runs: &[RelayRun], g: u32) -> Vec<(u32, u64, u64, u32, u32)> {
        let mut out = Vec::new();
        for r in runs {
            for (chunk, hops, len) in r.chunks() {
                let nic = hops[..len]
                    .iter()
                    .find(|h| h.from / g != h.to / g)
                    .expect("an inter-node chunk has a NIC hop");
                out.push((r.demand, chunk, nic.tick, nic.from, nic.to));
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn edge_parts_are_eighths_of_a_long_layer_and_whole_windows_else() {
        let tt = |rho| TwoTier {
            gpus_per_node: 8,
            nvlink_speedup: rho,
        };
        assert_eq!(edge_parts(tt(8), 400, false), (0, u64::MAX));
        assert_eq!(edge_parts(tt(8), 400, true), (0, u64::MAX));
        assert_eq!(edge_parts(tt(4), 400, false), (50, 350));
        // Tight, or under two windows: the windows reaching into the
        // quarters (a short layer's first window is all of it).
        assert_eq!(edge_parts(tt(4), 400, true), (128, 256));
        assert_eq!(edge_parts(tt(2), 200, false), (128, 128));
        assert_eq!(edge_parts(tt(2), 100, false), (128, 0));
    }

    #[test]
    fn halves_send_every_chunk_on_the_nic_tick_one_sweep_does() {
        let inst = test_hot_columns(Model::Read1Write1, 256, 4, (1.2, 4), 3);
        for rho in [2u32, 4, 8] {
            let tt = TwoTier {
                gpus_per_node: 8,
                nvlink_speedup: rho,
            };
            let pairs = node_pairs(&inst, tt).unwrap();
            let nodes = tt.nodes(inst.slots);
            let rails = split_rails(nodes, 8, &pairs).unwrap();
            let (intervals, nic_ticks) = nic_intervals(nodes, &pairs, &rails, false).unwrap();
            assert!(nic_ticks >= SPLIT_TICKS, "{nic_ticks} ticks: not split");
            let (seq, starts) = sequences(&inst, tt, &pairs);
            let start = segments(&seq, &starts, &rails, None);
            let layer = Layer {
                tt,
                seq: &seq,
                pair_start: &starts,
                rails: &rails,
                intervals: &intervals,
                first_until: nic_ticks / 4,
                last_from: nic_ticks - nic_ticks / 4,
                early: None,
            };
            let (halves, kept) = in_halves(&layer, start.clone(), 256, 0, nic_ticks);
            assert!(kept || rho < 4, "rho {rho}: the halves overload a port");
            let grid = Grid::new(256, nic_ticks as usize, rho);
            let one = in_one(&layer, start, grid, 0, nic_ticks);
            let (a, b) = (nic_hops(&halves.runs, 8), nic_hops(&one.runs, 8));
            assert_eq!(a.len() as u64, seq.iter().map(|i| i.chunks).sum::<u64>());
            assert!(a == b, "rho {rho}: the halves moved a chunk's NIC hop");
            // The seam cuts at most one run per segment.
            assert!(
                halves.runs.len()
                    <= one.runs.len() + layer.rails.iter().map(Vec::len).sum::<usize>()
            );
            // Within every port's capacity, and the grid's span is the hops'.
            let (lo, hi) = halves.grid.used().expect("NVLink hops");
            let mut use_out = std::collections::HashMap::new();
            let mut use_in = std::collections::HashMap::new();
            let (mut first, mut last) = (i64::MAX, i64::MIN);
            for r in &halves.runs {
                for (_, hops, len) in r.chunks() {
                    for h in hops[..len].iter().filter(|h| h.from / 8 == h.to / 8) {
                        let t = h.tick as i64 - BIAS;
                        (first, last) = (first.min(t), last.max(t));
                        *use_out.entry((h.from, t)).or_insert(0u32) += 1;
                        *use_in.entry((h.to, t)).or_insert(0u32) += 1;
                    }
                }
            }
            assert_eq!((lo, hi), (first, last), "rho {rho}");
            assert!(use_out.values().chain(use_in.values()).all(|&c| c <= rho));
        }
    }
}
