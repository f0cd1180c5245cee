//! The NVLink hops around the NIC layer: which GPU pair's chunks each NIC
//! interval carries, and the ticks of their NVLink hops, as runs.
//!
//! Each node pair's demands form one sequence (by source GPU, then
//! destination GPU) that the rails cut into consecutive segments, rail
//! `k`'s segment of `(a,b)` as long as its share of the pair's chunks.
//! With sources of about equal load, rail `k`'s segment is mostly GPU
//! `k`'s own chunks, which need no first hop. A NIC interval of rail `k`
//! for `(a,b)` takes the next chunks of that segment, one per tick: a
//! chunk of `(a,i) -> (b,j)` sent in tick `t` takes its first hop
//! `(a,i) -> (a,k)` in `t-1` and its last hop `(b,k) -> (b,j)` in `t+1`
//! (none when `i = k`, resp. `j = k`) when NVLink has room there, else in
//! the latest earlier (first hop) or earliest later (last hop) tick with
//! room: the plan then grows past `NIC ticks + 2` only when such a move
//! lands outside the NIC layer's ticks. With rho >= G every hop fits (a
//! GPU's NVLink carries at most G - 1 first hops and one last hop per
//! tick, and as many the other way), so the plan is the NIC layer plus
//! two ticks. Intra-node chunks then take the NVLink room left
//! (`super::intra`).
//!
//! The intervals are swept in windows of [`WINDOW`] ticks, in tick order
//! (`super::sweep`, in two halves at once on a long layer): each interval
//! active in a window places its chunks of the window, so
//! the greedy sees the chunks nearly as a tick-by-tick sweep would. In the
//! first eighth of the NIC layer (about a quarter where a port is tight
//! or the layer short) a window places all its first hops before any of
//! its last hops: a GPU's NVLink send side carries both, a last hop can
//! move later at no cost there while a first hop can only move earlier,
//! and before the plan's first tick that lengthens the plan (a source GPU
//! whose chunks several rails send at once from the start); in the last
//! eighth last hops go first, for the same reason at the end.
//!
//! Consecutive chunks of a demand whose hops all move one tick are one
//! run ([`RelayRun`]): work and output grow with intervals and demands,
//! and the only work per chunk is the NVLink count of its hops.

use super::grid::Grid;
use super::item::Item;
use super::nic::Interval;
use super::prefetch::prefetch;
use super::rails::RailLoads;
use crate::instance::Instance;
use crate::relay::model::TwoTier;
use crate::relay::schedule::{Hop, RelayRun};

/// Planning ticks are signed (a first hop may precede the NIC layer);
/// runs store them shifted by this much until the plan's first tick is
/// known (`super::build_schedule` shifts them back).
pub(crate) const BIAS: i64 = 1 << 40;

/// Ticks the placement sweeps at a time: every NIC interval active in a
/// window places its chunks of the window before the next window, so the
/// NVLink greedy sees the chunks nearly in tick order (a NIC interval may
/// last hundreds of ticks) while an interval's state is loaded once a
/// window, not once a tick.
pub(super) const WINDOW: u64 = 128;

/// The first `1 / EDGE_PART` of a long NIC layer places each window's
/// first hops before its last hops, the last `1 / EDGE_PART` its last
/// hops before its first hops ([`Ahead`]); where a port is tight or the
/// layer short, the windows reaching into the first and last `1 /
/// TIGHT_EDGE_PART` (`super::sweep`'s `edge_parts`). Measured on
/// `examples/relay_gap.rs` (hot-column MoE, 64 and 256 ranks, rho 4 and
/// 8): an eighth plans as close to the bound as the quarter's windows
/// (mean plan / bound 1.0039 against 1.0038) and places ahead a third as
/// many hops (64 ranks rho 4: 0.49 -> 0.47 ms); at rho 1-2, where ports
/// are tight, an eighth planned further (1.0804 against 1.0780), and at
/// 16 ranks (layers of 60-390 ticks) the edge parts alone planned some
/// instances 2-23 ticks longer and others 1-17 shorter than windows.
pub(super) const EDGE_PART: u64 = 8;

/// The edge parts where a port is tight or the layer short ([`EDGE_PART`]).
pub(super) const TIGHT_EDGE_PART: u64 = 4;

/// Where a rail's segment of a pair stands: the sequence position of the
/// demand it is in, the next chunk of that demand, and the run it is
/// extending (not yet written: `count` 0 when there is none).
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    pub(super) at: usize,
    pub(super) chunk: u64,
    pub(super) run: Pending,
}

impl Cursor {
    /// Moves `chunks` chunks on along the sequence `seq`.
    pub(super) fn skip(&mut self, seq: &[Item], chunks: u64) {
        let mut left = chunks;
        while left > 0 {
            let take = (seq[self.at].chunks - self.chunk).min(left);
            left -= take;
            self.chunk += take;
            if self.chunk == seq[self.at].chunks {
                self.at += 1;
                self.chunk = 0;
            }
        }
    }
}

/// A run being extended: its first chunk, count, and its first chunk's
/// hops (the NIC hop's tick, the first and last hop's ticks relative to
/// it, 0 when the hop is not taken).
#[derive(Clone, Copy, Default)]
pub(super) struct Pending {
    chunk: u64,
    pub(super) count: u64,
    nic: i64,
    first: i64,
    last: i64,
}

/// Each node pair's inter-node demands in the order the rails take them
/// (`seq`, pair `p`'s at `seq[pair_start[p]..pair_start[p + 1]]`) and
/// where each rail's segment of each pair starts (`cursors`): all the
/// placement needs besides the NIC layer, so it is made beside it.
pub(crate) struct Order {
    pub(super) seq: Vec<Item>,
    pub(super) pair_start: Vec<usize>,
    pub(super) cursors: Vec<Cursor>,
}

/// The [`Order`] of `inst`'s inter-node demands on the rails `rails`
/// (`pairs` as `super::node_pairs` made them; each pair's chunks on the
/// rails `routes` give, or as `super::align::by_rails` orders them where
/// NVLink is slow or a port tight, `pressure`).
pub(crate) fn order(
    inst: &Instance,
    tt: TwoTier,
    pairs: &[(u32, u32, u64)],
    rails: &RailLoads,
    routes: Option<&super::align::Routes>,
    pressure: Option<&super::pressure::Pressure>,
) -> Order {
    let (mut seq, mut pair_start) = sequences(inst, tt, pairs);
    // Aligned where routes were chosen, where NVLink carries under half of
    // G chunks a tick, or where a GPU's NVLink port is tight (at rho 4 of
    // G 8 the source order planned closer to the bound otherwise:
    // doc/performance.md "Relays where NVLink binds").
    let tight = pressure.is_some_and(|p| p.any_tight());
    if let Some(p) =
        pressure.filter(|_| routes.is_some() || 2 * tt.nvlink_speedup < tt.gpus_per_node || tight)
    {
        (seq, pair_start) =
            super::align::by_rails(&seq, &pair_start, rails, routes, &p.per_gpu, p.limit);
    } else if routes.is_some() {
        (seq, pair_start) = super::align::by_rails(&seq, &pair_start, rails, routes, &[], u64::MAX);
    }
    let cursors = segments(&seq, &pair_start, rails, None);
    Order {
        seq,
        pair_start,
        cursors,
    }
}

/// Which NVLink hops of a window are placed before the others: a GPU's
/// NVLink send side carries first hops (its own chunks to other NICs) and
/// last hops (chunks its NIC received), its receiving side likewise. A
/// first hop can only move earlier, a last hop only later; in the middle
/// of the plan either costs nothing, but a first hop moved before the NIC
/// layer's start or a last hop after its end lengthens the plan. So near
/// the start first hops take their ticks first, near the end last hops.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ahead {
    First,
    Last,
}

/// Ticks `ticks` of interval `iv` (a part of it) and, where they were
/// placed already ([`hops_ahead`]), which hops and their ticks relative to
/// their NIC hops', tick by tick.
pub(super) struct Span<'a> {
    pub(super) iv: &'a Interval,
    pub(super) ticks: std::ops::Range<u64>,
    pub(super) given: Option<(Ahead, &'a [i64])>,
}

/// How many of `v`'s values, from the first, equal the first.
fn same_prefix(v: &[i64]) -> usize {
    v.iter().take_while(|&&x| x == v[0]).count()
}

/// Places the chunks interval `span.iv` sends in ticks `span.ticks`: the
/// next chunks of its segment (`cur`), their NVLink hops on `grid` (those
/// `span.given` gives as given), the runs they close on `runs`.
#[inline]
pub(super) fn place_ticks(
    tt: TwoTier,
    seq: &[Item],
    cur: &mut Cursor,
    grid: &mut Grid,
    runs: &mut Vec<RelayRun>,
    span: Span,
) {
    let Span { iv, ticks, given } = span;
    let firsts = given.and_then(|(k, v)| (k == Ahead::First).then_some(v));
    let lasts = given.and_then(|(k, v)| (k == Ahead::Last).then_some(v));
    let k = iv.rail;
    let (sender, receiver) = (tt.rank(iv.a, k), tt.rank(iv.b, k));
    let mut item = seq[cur.at];
    let (mut relay_first, mut relay_last) = (item.src_local != k, item.dst_local != k);
    let (from, end) = (ticks.start, ticks.end);
    let mut t = from;
    while t < end {
        let ti = t as i64;
        let x = (t - from) as usize;
        // The chunks of this demand left in these ticks: as many as have
        // room for both hops one tick away (or as given) go in one step.
        let len = ((item.chunks - cur.chunk).min(end - t)) as usize;
        let (first, fit_first) = match firsts {
            Some(f) => (f[x], same_prefix(&f[x..x + len])),
            None if relay_first => (-1, grid.fit_prefix(ti - 1, len, item.src, sender)),
            None => (0, len),
        };
        let (last, fit) = match lasts {
            _ if fit_first == 0 => (0, 0),
            Some(l) => (l[x], same_prefix(&l[x..x + fit_first])),
            None if relay_last => (1, grid.fit_prefix(ti + 1, fit_first, receiver, item.dst)),
            None => (0, fit_first),
        };
        let (count, first, last) = if fit > 0 {
            if relay_first && firsts.is_none() {
                grid.take_prefix(ti - 1, fit, item.src, sender);
            }
            if relay_last && lasts.is_none() {
                grid.take_prefix(ti + 1, fit, receiver, item.dst);
            }
            (fit as u64, first, last)
        } else {
            // One chunk whose hop has no room one tick away: the latest
            // earlier (first hop) or earliest later (last hop) tick.
            let mut first = 0i64;
            if let Some(f) = firsts {
                first = f[x];
            } else if relay_first {
                let at = grid.latest_fit(ti - 1, item.src, sender);
                grid.take(at, item.src, sender);
                first = at - ti;
            }
            let mut last = 0i64;
            if let Some(l) = lasts {
                last = l[x];
            } else if relay_last {
                let at = grid.earliest_fit(ti + 1, receiver, item.dst);
                grid.take(at, receiver, item.dst);
                last = at - ti;
            }
            (1, first, last)
        };
        let p = &mut cur.run;
        if p.count > 0 && p.nic + p.count as i64 == ti && p.first == first && p.last == last {
            p.count += count;
        } else {
            close(runs, &item, *p, sender, receiver);
            *p = Pending {
                chunk: cur.chunk,
                count,
                nic: ti,
                first,
                last,
            };
        }
        cur.chunk += count;
        t += count;
        if cur.chunk == item.chunks {
            close(runs, &item, cur.run, sender, receiver);
            cur.run.count = 0;
            cur.at += 1;
            cur.chunk = 0;
            if t < end {
                item = seq[cur.at];
                relay_first = item.src_local != k;
                relay_last = item.dst_local != k;
                prefetch_after(seq, cur.at);
            }
        }
    }
}

/// The first hops of every window before `until`, placed before any last
/// hop: where a GPU's NVLink port is tight, last hops that wait for room
/// book its ticks far ahead of the sweep, and a later chunk's first hop,
/// which can only move earlier, then lands hundreds of ticks before its
/// NIC hop or before the plan's start. Placed first, first hops take
/// their ticks one before their NIC hops and the last hops fill around
/// them (the last quarter keeps [`Ahead::Last`]: there a late last hop
/// lengthens the plan).
pub(super) struct FirstHops {
    /// Windows starting before this tick are given their first hops.
    pub(super) until: u64,
    /// Per NIC tick of every interval, its chunk's first hop's tick
    /// relative to it (0: none); interval `x`'s from `at[x]`.
    ticks: Vec<i64>,
    at: Vec<usize>,
}

impl FirstHops {
    /// Sweeps the windows ending by `last_from` as the placement does,
    /// taking only the first hops on `grid` (`cursors` move past them).
    pub(super) fn place(
        tt: TwoTier,
        seq: &[Item],
        cursors: &mut [Cursor],
        grid: &mut Grid,
        intervals: &[Interval],
        last_from: u64,
    ) -> FirstHops {
        let mut at = Vec::with_capacity(intervals.len());
        let mut total = 0usize;
        for iv in intervals {
            at.push(total);
            total += iv.len as usize;
        }
        let mut ticks = vec![0i64; total];
        let mut part = Vec::new();
        let mut active: Vec<(usize, u64)> = Vec::new();
        let (mut next, mut window) = (0usize, 0u64);
        while (next < intervals.len() || !active.is_empty()) && window + WINDOW <= last_from {
            let end = window + WINDOW;
            while next < intervals.len() && intervals[next].start < end {
                active.push((next, intervals[next].start));
                next += 1;
            }
            active.retain_mut(|(x, from)| {
                let iv = &intervals[*x];
                let to = (iv.start + iv.len).min(end);
                part.clear();
                let cur = &mut cursors[iv.cursor as usize];
                hops_ahead(tt, seq, cur, grid, (iv, *from..to), Ahead::First, &mut part);
                let o = at[*x] + (*from - iv.start) as usize;
                ticks[o..o + part.len()].copy_from_slice(&part);
                *from = to;
                to < iv.start + iv.len
            });
            window = end;
        }
        FirstHops {
            until: last_from / WINDOW * WINDOW,
            ticks,
            at,
        }
    }

    /// The first hops of interval `x` (`iv`) in ticks `ticks`.
    pub(super) fn of(&self, x: usize, iv: &Interval, ticks: std::ops::Range<u64>) -> &[i64] {
        let o = self.at[x] + (ticks.start - iv.start) as usize;
        &self.ticks[o..o + (ticks.end - ticks.start) as usize]
    }
}

/// The first (or last, `kind`) hops of the chunks interval `iv` sends in
/// ticks `ticks` (the next of its segment, from `cur`, which moves past
/// them; its run is left alone), taken on `grid`: their ticks relative to
/// their NIC hops' (0: none) appended to `out`.
pub(super) fn hops_ahead(
    tt: TwoTier,
    seq: &[Item],
    cur: &mut Cursor,
    grid: &mut Grid,
    (iv, ticks): (&Interval, std::ops::Range<u64>),
    kind: Ahead,
    out: &mut Vec<i64>,
) {
    let k = iv.rail;
    let (sender, receiver) = (tt.rank(iv.a, k), tt.rank(iv.b, k));
    let mut item = seq[cur.at];
    let end = ticks.end;
    let mut t = ticks.start;
    while t < end {
        let ti = t as i64;
        let len = ((item.chunks - cur.chunk).min(end - t)) as usize;
        // The hop's ends and its tick one away from the NIC hop's.
        let (relay, from, to, step) = match kind {
            Ahead::First => (item.src_local != k, item.src, sender, -1),
            Ahead::Last => (item.dst_local != k, receiver, item.dst, 1),
        };
        let count = if !relay {
            out.extend(std::iter::repeat_n(0, len));
            len
        } else {
            // As many as have room one tick away go in one step, else one
            // chunk at the nearest tick with room (earlier for a first
            // hop, later for a last).
            let fit = grid.fit_prefix(ti + step, len, from, to);
            if fit > 0 {
                grid.take_prefix(ti + step, fit, from, to);
                out.extend(std::iter::repeat_n(step, fit));
                fit
            } else {
                let at = match kind {
                    Ahead::First => grid.latest_fit(ti - 1, from, to),
                    Ahead::Last => grid.earliest_fit(ti + 1, from, to),
                };
                grid.take(at, from, to);
                out.push(at - ti);
                1
            }
        } as u64;
        cur.chunk += count;
        t += count;
        if cur.chunk == item.chunks {
            cur.at += 1;
            cur.chunk = 0;
            if t < end {
                item = seq[cur.at];
                prefetch_after(seq, cur.at);
            }
        }
    }
}

/// Asks for the demand two after `at` in the sequence (its segment's
/// next lines, scattered among other segments').
#[inline]
fn prefetch_after(seq: &[Item], at: usize) {
    if let Some(later) = seq.get(at + 2) {
        prefetch(later);
    }
}

/// The rail of each cursor, in cursor order.
pub(super) fn cursor_rails(rails: &RailLoads) -> impl Iterator<Item = u32> + '_ {
    rails
        .iter()
        .enumerate()
        .flat_map(|(k, r)| std::iter::repeat_n(k as u32, r.len()))
}

/// Writes the pending run `p` of `item` (sent from NIC `sender` to NIC
/// `receiver`) as a [`RelayRun`]; nothing when it is empty.
pub(super) fn close(runs: &mut Vec<RelayRun>, item: &Item, p: Pending, sender: u32, receiver: u32) {
    if p.count == 0 {
        return;
    }
    let tick = |dt: i64| (p.nic + dt + BIAS) as u64;
    let mut hops = [Hop::default(); 3];
    let mut len = 0;
    if item.src != sender {
        hops[len] = Hop {
            tick: tick(p.first),
            from: item.src,
            to: sender,
        };
        len += 1;
    }
    hops[len] = Hop {
        tick: tick(0),
        from: sender,
        to: receiver,
    };
    len += 1;
    if item.dst != receiver {
        hops[len] = Hop {
            tick: tick(p.last),
            from: receiver,
            to: item.dst,
        };
        len += 1;
    }
    runs.push(
        RelayRun::first_of(item.demand, item.first + p.chunk, p.count, hops, len)
            .expect("one to three hops"),
    );
}

/// Each node pair's inter-node demands in sequence order, `(demand,
/// chunks)`, pair `p`'s at `seq[pair_start[p]..pair_start[p + 1]]`. The
/// instance's demands are sorted by source, then destination, so each
/// pair's come in sequence order already.
pub(super) fn sequences(
    inst: &Instance,
    tt: TwoTier,
    pairs: &[(u32, u32, u64)],
) -> (Vec<Item>, Vec<usize>) {
    let nodes = tt.nodes(inst.slots) as usize;
    // Pairs of source node a are pairs[first[a]..first[a + 1]], by b.
    let mut first = vec![0usize; nodes + 1];
    for &(a, _, _) in pairs {
        first[a as usize + 1] += 1;
    }
    for a in 0..nodes {
        first[a + 1] += first[a];
    }
    let pair_of = |a: u32, b: u32| -> usize {
        let mine = &pairs[first[a as usize]..first[a as usize + 1]];
        first[a as usize]
            + mine
                .binary_search_by_key(&b, |p| p.1)
                .expect("every inter-node demand's pair is listed")
    };
    let mut count = vec![0usize; pairs.len() + 1];
    let mut pair_of_demand = Vec::with_capacity(inst.demands().len());
    // Consecutive demands mostly share their pair: remember the last.
    let mut last = (u32::MAX, u32::MAX, 0usize);
    for dem in inst.demands() {
        let (a, b) = (tt.node(dem.src), tt.node(dem.dst));
        if a == b {
            pair_of_demand.push(usize::MAX);
            continue;
        }
        if (a, b) != (last.0, last.1) {
            last = (a, b, pair_of(a, b));
        }
        count[last.2 + 1] += 1;
        pair_of_demand.push(last.2);
    }
    for p in 0..pairs.len() {
        count[p + 1] += count[p];
    }
    let pair_start = count.clone();
    let mut seq = vec![Item::default(); count[pairs.len()]];
    for (d, &p) in pair_of_demand.iter().enumerate() {
        if p != usize::MAX {
            let dem = inst.demands()[d];
            seq[count[p]] = Item {
                demand: d as u32,
                src: dem.src,
                dst: dem.dst,
                src_local: dem.src % tt.gpus_per_node,
                dst_local: dem.dst % tt.gpus_per_node,
                first: 0,
                chunks: inst.chunks(d),
            };
            count[p] += 1;
        }
    }
    (seq, pair_start)
}

/// Where each rail's segment of each pair starts (rails in order cut the
/// pair's sequence), or `sent[x]` chunks into it for cursor `x`, indexed
/// by rail, then the rail's entry. The pairs are walked one after the
/// other (the sequence in memory order), each pair's rails in rail order.
pub(super) fn segments(
    seq: &[Item],
    pair_start: &[usize],
    rails: &RailLoads,
    sent: Option<&[u64]>,
) -> Vec<Cursor> {
    let pairs = pair_start.len() - 1;
    // Per pair, its rails' (cursor, chunks), in rail order.
    let mut first = vec![0usize; pairs + 1];
    for rail in rails {
        for &(p, _) in rail {
            first[p as usize + 1] += 1;
        }
    }
    for p in 0..pairs {
        first[p + 1] += first[p];
    }
    let total = first[pairs];
    let mut fill = first.clone();
    let mut of_pair = vec![(0usize, 0u64); total];
    for (x, &(p, c)) in rails.iter().flatten().enumerate() {
        of_pair[fill[p as usize]] = (x, c);
        fill[p as usize] += 1;
    }
    let empty = Cursor {
        at: 0,
        chunk: 0,
        run: Pending::default(),
    };
    let mut out = vec![empty; total];
    for p in 0..pairs {
        let mut at = Cursor {
            at: pair_start[p],
            ..empty
        };
        for &(x, c) in &of_pair[first[p]..first[p + 1]] {
            let into = sent.map_or(0, |s| s[x]);
            at.skip(seq, into);
            out[x] = at;
            at.skip(seq, c - into);
        }
    }
    out
}
