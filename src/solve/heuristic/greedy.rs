//! Multiplicity-aware greedy scheduling for both models (a heuristic).
//!
//! Each round picks a matching greedily: slots in decreasing remaining load
//! (ties: lowest id), each matched to its most loaded free partner, so the
//! slots that set the degree bound are served first. The round then repeats
//! while every chosen pair still has chunks, for as many ticks as the slots
//! it serves stay at least as loaded as those it leaves idle, but at least
//! `max(1, load / 128)` ticks. That floor bounds the number of rounds at high
//! multiplicity (about 128 ln(load) per pair exhausted); with loads below 128
//! it is 1 and this is the per-tick greedy with equal ticks merged. On K7 at
//! multiplicity 2*10^6 it takes ~1900 rounds and is 0.1% above optimal.
//!
//! Deterministic. Complexity: O(R * (n + S)) for R rounds and n slots, where
//! S is the partner search of a round: the load order is kept by merging
//! (the slots a round used all lost the same repeat) instead of a sort per
//! round, and each slot finds its partner by bit operations on its row of
//! live partners, the free slots and blocks of the load order (a dense
//! index, O(n / 64) words per search, up to 4096 resources), or else by a
//! scan of its list of live pairs (both find the same partner).
//!
//! On a (near) all-to-all STRICT1 support the complete matchings of a
//! 1-factorisation are peeled off first (module `factor_peel`: they lower
//! every degree alike, so meeting Delta on the rest meets it on the whole),
//! built on a second thread while the greedy schedules the rest; should
//! that miss Delta, the plain greedy runs too and the shorter schedule is
//! kept. At MoE 1024 the peel takes 3998 of 7143 ticks and halves the
//! greedy's time.
//!
//! With a deadline ([`SolveOptions::deadline`], issue 15 item 3) the round
//! loop stops when it passes and the chunks left are finished by
//! `list_schedule_rest`, a list scheduling (Graham's rule: each pair starts
//! as soon as both of its ends are free) that costs O(P log P + output) for
//! P demand parts left, so the result is always a complete, valid schedule,
//! only longer. The solution's details then say `"cut_short": ["greedy"]`.
//! Without a deadline the same happens after a fixed number of
//! partner-search steps (`GREEDY_WORK_BUDGET`, deterministic), so no
//! default solve is unbounded.

use super::factor_peel::PeelPlan;
use super::per_tick_greedy::{per_tick_greedy_fits, per_tick_greedy_until};
use crate::bounds::Bounds;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use crate::solve::{Solution, SolveOptions, Solver};
use std::time::Instant;

/// Work budget of the load greedy's round loop, in partner-search steps
/// (one per loaded resource per round): past it the loop stops and
/// `list_schedule_rest` finishes, as at a deadline, so that no solve is
/// unbounded without `--time-limit` (issue 29). Counted, not timed: the
/// result is the same on every machine. 2^33 steps is about 10-40 s here;
/// every bundled instance and benchmark needs far less (MoE 1024: 1.5e7),
/// and heavier traffic goes to the binary split (`bit_split`) first.
const GREEDY_WORK_BUDGET: u64 = 1 << 33;

/// The greedy solver.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Solver for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    /// The load-priority greedy, or copyspace-guard's per-tick greedy when
    /// that is cheap enough and shorter (ties keep the load-priority one).
    /// Past `opts.deadline` the load-priority greedy finishes by list
    /// scheduling and the per-tick greedy is skipped or dropped; the
    /// details then record `"cut_short": ["greedy"]`.
    fn solve(&self, inst: &Instance, bounds: &Bounds, opts: &SolveOptions) -> Solution {
        let t0 = Instant::now();
        let load = greedy_schedule_until(inst, opts.deadline);
        self.solve_from(inst, bounds, opts, load, t0)
    }
}

impl Greedy {
    /// [`Solver::solve`] given the load-priority greedy's result `load`
    /// (from [`greedy_schedule_until`] with `opts.deadline`, started at
    /// `t0`), so that a caller that ran it first does not run it twice.
    pub(crate) fn solve_from(
        &self,
        inst: &Instance,
        bounds: &Bounds,
        opts: &SolveOptions,
        load: (Schedule, bool),
        t0: Instant,
    ) -> Solution {
        let (mut schedule, mut cut) = load;
        let mut name = self.name();
        // Nothing can beat a schedule that meets the lower bound: the
        // per-tick greedy (time grows with the multiplicity) is skipped then.
        if !cut && schedule.ticks() > bounds.best.ticks && per_tick_greedy_fits(inst) {
            match per_tick_greedy_until(inst, opts.deadline) {
                Some(per_tick) if per_tick.ticks() < schedule.ticks() => {
                    schedule = per_tick;
                    name = "greedy_per_tick";
                }
                Some(_) => {}
                None => cut = true,
            }
        }
        let mut sol = Solution::from_schedule(schedule, bounds, name, t0.elapsed().as_secs_f64());
        if cut {
            crate::solve::note_cut_short(&mut sol.stats, "greedy");
        }
        sol
    }
}

const NONE: u32 = u32::MAX;

/// Largest number of resources (slots, or 2 x slots for READ1_WRITE1) for
/// which the dense pair index is kept: `resources^2` item entries of 4
/// bytes (64 MiB) and as many bits. Above [`DENSE_INDEX_ALWAYS`] resources
/// only for supports with at least `resources^2 / 64` pairs (the instance
/// then holds a quarter of that memory or more itself).
const DENSE_INDEX_MAX_RESOURCES: usize = 4096;
/// Up to this many resources the dense pair index is kept for any support
/// (16 MiB).
const DENSE_INDEX_ALWAYS: usize = 2048;

/// Load divisor for the repeat slack (see module docs).
const SLACK_DIVISOR: u64 = 128;

/// Pair index for up to [`DENSE_INDEX_MAX_RESOURCES`] resources, as bits:
/// one row per resource of its live partners (128 bytes per row at 1024
/// resources, so a row is a few cache lines), the resources still free in
/// the round, and the resources of each block of 64 consecutive positions
/// of the load order. A resource's best partner (the first live free one
/// in the load order) is then the most loaded candidate of the first block
/// that has one: O(resources / 64) word operations per search, where a walk
/// along the load order costs a probe per position (the live partners of a
/// loaded slot are mostly the light slots at the end of the order, so the
/// walks were long).
struct DenseIndex {
    stride: usize,
    words: usize,
    /// Item of each pair `(x, y)` at `x * stride + y` (valid while live).
    pair_item: Vec<u32>,
    /// Live partners of each resource, `words` per row.
    live: Vec<u64>,
    /// Resources not matched yet in the round.
    free: Vec<u64>,
    /// Resources at positions `64 b .. 64 b + 64` of the load order, `words`
    /// per block `b`.
    blocks: Vec<u64>,
    /// Position of each resource in the load order of the round.
    pos: Vec<u32>,
    /// Live free partners of the resource being matched, by word: (word,
    /// bits) for the words that have any (scratch).
    candidates: Vec<(u32, u64)>,
}

impl DenseIndex {
    fn new(stride: usize, pairs: impl Iterator<Item = (usize, usize)>) -> Self {
        let words = stride.div_ceil(64);
        let mut index = DenseIndex {
            stride,
            words,
            pair_item: vec![NONE; stride * stride],
            live: vec![0; stride * words],
            free: vec![!0; words],
            blocks: vec![0; stride.div_ceil(64) * words],
            pos: vec![NONE; stride],
            candidates: Vec::with_capacity(words),
        };
        for (k, (x, y)) in pairs.enumerate() {
            index.pair_item[x * stride + y] = k as u32;
            index.pair_item[y * stride + x] = k as u32;
            index.live[x * words + y / 64] |= 1 << (y % 64);
            index.live[y * words + x / 64] |= 1 << (x % 64);
        }
        index
    }

    /// Starts a round: every resource free, blocks from the load order.
    fn begin_round(&mut self, by_load: &[u32]) {
        self.free.fill(!0);
        self.blocks.fill(0);
        for (p, &x) in by_load.iter().enumerate() {
            let x = x as usize;
            self.blocks[(p / 64) * self.words + x / 64] |= 1 << (x % 64);
            self.pos[x] = p as u32;
        }
    }

    /// Marks `x` matched in this round.
    fn take(&mut self, x: usize) {
        self.free[x / 64] &= !(1 << (x % 64));
    }

    /// Marks the pair `(x, y)` exhausted.
    fn remove(&mut self, x: usize, y: usize) {
        self.live[x * self.words + y / 64] &= !(1 << (y % 64));
        self.live[y * self.words + x / 64] &= !(1 << (x % 64));
    }

    /// The item of the live pair `(x, y)`.
    fn item(&self, x: usize, y: usize) -> u32 {
        self.pair_item[x * self.stride + y]
    }

    /// The position in `by_load` of `x`'s first live free partner (the
    /// most loaded; ties: lowest id), `x` being at position `i` of the load
    /// order. Resources before `i` are matched, or found no free partner
    /// (so have no live pair with `x`): the search starts at `i`'s block.
    fn best_partner(&mut self, x: usize, i: usize) -> Option<usize> {
        let w = self.words;
        let row = &self.live[x * w..(x + 1) * w];
        // Candidate words that are not zero, as (word, bits).
        self.candidates.clear();
        for (k, (r, f)) in row.iter().zip(&self.free).enumerate() {
            if r & f != 0 {
                self.candidates.push((k as u32, r & f));
            }
        }
        if self.candidates.is_empty() {
            return None;
        }
        for block in self.blocks[(i / 64) * w..].chunks_exact(w) {
            let mut best = NONE;
            for &(k, c) in &self.candidates {
                let mut bits = c & block[k as usize];
                while bits != 0 {
                    let y = k as usize * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    best = best.min(self.pos[y]);
                }
            }
            if best != NONE {
                return Some(best as usize);
            }
        }
        None
    }
}

/// One schedulable item: an undirected pair (STRICT1) or a demand
/// (READ1_WRITE1), with the demands it feeds, in order: the current one
/// inline (a round reads only the item), the later ones in a shared array.
struct Item {
    a: u32,
    b: u32,
    /// Current demand and its chunks left (0: the item is done).
    demand: u32,
    left: u64,
    /// The later (demand, chunks) parts: `parts[next..end]`.
    next: u32,
    end: u32,
}

impl Item {
    /// An item fed by `parts[from..to]` (not empty; no part without chunks).
    fn new(a: u32, b: u32, parts: &[(u32, u64)], from: usize, to: usize) -> Self {
        let (demand, left) = parts[from];
        Item {
            a,
            b,
            demand,
            left,
            next: (from + 1) as u32,
            end: to as u32,
        }
    }

    /// Sends `r` chunks (at most `left`): moves to the next part when the
    /// current one is done.
    fn send(&mut self, r: u64, parts: &[(u32, u64)]) {
        self.left -= r;
        if self.left == 0 && self.next < self.end {
            (self.demand, self.left) = parts[self.next as usize];
            self.next += 1;
        }
    }

    /// Whether every chunk has been sent.
    fn done(&self) -> bool {
        self.left == 0
    }

    /// The (demand, chunks) parts not sent yet, in order.
    fn parts_left<'a>(&self, parts: &'a [(u32, u64)]) -> impl Iterator<Item = (u32, u64)> + 'a {
        std::iter::once((self.demand, self.left))
            .chain(parts[self.next as usize..self.end as usize].iter().copied())
            .filter(|&(_, c)| c > 0)
    }

    /// Chunks not sent yet.
    fn remaining(&self, parts: &[(u32, u64)]) -> u64 {
        self.parts_left(parts).map(|(_, c)| c).sum()
    }
}

/// Builds a greedy schedule of `inst` under its model.
pub fn greedy_schedule(inst: &Instance) -> Schedule {
    greedy_schedule_until(inst, None).0
}

/// [`greedy_schedule`] that stops its rounds once `deadline` has passed and
/// finishes the chunks left by `list_schedule_rest`. Returns the schedule
/// (always complete and valid) and whether the deadline cut it short.
pub fn greedy_schedule_until(inst: &Instance, deadline: Option<Instant>) -> (Schedule, bool) {
    greedy_schedule_on(inst, None, deadline)
}

/// [`greedy_schedule_until`] given the instance's demand graph `graph` when
/// the caller has built it (STRICT1 uses its undirected pairs).
pub(crate) fn greedy_schedule_on(
    inst: &Instance,
    graph: Option<&DemandGraph>,
    deadline: Option<Instant>,
) -> (Schedule, bool) {
    let built;
    let graph = match graph {
        Some(g) => g,
        None if inst.model == Model::Strict1 => {
            built = DemandGraph::new(inst);
            &built
        }
        None => return load_greedy(inst, None, Stop::at(deadline), None, None),
    };
    let Some(plan) = PeelPlan::new(inst, graph) else {
        return load_greedy(inst, Some(graph), Stop::at(deadline), None, None);
    };
    let (peeled, cut) = peeled_greedy(inst, graph, &plan, deadline);
    if cut || peeled.ticks() <= graph.max_degree().0 {
        return (peeled, cut);
    }
    // The peel may have spoilt the rest (module docs of factor_peel): the
    // shorter of the two.
    match load_greedy(inst, Some(graph), Stop::at(deadline), None, None) {
        (plain, false) if plain.ticks() < peeled.ticks() => (plain, false),
        _ => (peeled, false),
    }
}

/// The rounds `plan` peels off, then the load greedy on the rest (the two
/// built at once, on two threads).
fn peeled_greedy(
    inst: &Instance,
    graph: &DemandGraph,
    plan: &PeelPlan,
    deadline: Option<Instant>,
) -> (Schedule, bool) {
    let rest = plan.rest(inst, graph);
    let (mut peeled, (rest_schedule, cut)) = rayon::join(
        || plan.rounds(graph),
        || load_greedy(inst, Some(graph), Stop::at(deadline), None, Some(&rest)),
    );
    peeled.extend(rest_schedule);
    (peeled, cut)
}

/// The load-priority greedy; `dense_index` forces the partner search (the
/// dense index or the lists of live pairs) instead of choosing by size.
/// When the load greedy's round loop stops: at `deadline`, or after `work`
/// partner-search steps, whichever comes first.
#[derive(Clone, Copy, Debug)]
struct Stop {
    deadline: Option<Instant>,
    work: u64,
}

impl Stop {
    /// `deadline` and the default work budget.
    fn at(deadline: Option<Instant>) -> Stop {
        Stop {
            deadline,
            work: GREEDY_WORK_BUDGET,
        }
    }
}

fn load_greedy(
    inst: &Instance,
    graph: Option<&DemandGraph>,
    stop: Stop,
    dense_index: Option<bool>,
    rest: Option<&[u64]>,
) -> (Schedule, bool) {
    let n = inst.slots as usize;
    let strict = inst.model == Model::Strict1;
    let (parts, mut items) = greedy_items(inst, graph, rest);
    // Resources: STRICT1 uses resource a for any slot a; READ1_WRITE1
    // uses a for senders and n + b for receivers.
    let side_b = |b: u32| if strict { b as usize } else { n + b as usize };
    let (mut load, mut incident) = loads_and_incidence(&items, &parts, 2 * n, side_b);
    let mut alive = vec![true; items.len()];
    let mut schedule = Schedule::new();
    let mut used = vec![0u64; 2 * n];
    let mut stamp = 0u64;
    let mut live = items.len();
    // STRICT1 uses resources 0..n only: a quarter of the index.
    let stride = if strict { n } else { 2 * n };
    let dense_pays = dense_index.unwrap_or(
        stride <= DENSE_INDEX_ALWAYS
            || (stride <= DENSE_INDEX_MAX_RESOURCES && items.len() * 64 >= stride * stride),
    );
    let mut dense = dense_pays
        .then(|| DenseIndex::new(stride, items.iter().map(|it| (it.a as usize, side_b(it.b)))));
    let mut by_load: Vec<u32> = (0..2 * n as u32)
        .filter(|&x| load[x as usize] > 0)
        .collect();
    by_load.sort_unstable_by_key(|&x| load_key(&load, x));
    let (mut moved, mut kept): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    // (item, resource, partner) of the round's pairs.
    let mut chosen: Vec<(u32, u32, u32)> = Vec::new();
    // Default bound on the round loop (issue 29): without it the loop's
    // cost grows with the ticks (one round a tick at worst).
    let mut work = 0u64;
    while live > 0 {
        work = work.saturating_add(by_load.len() as u64);
        if work > stop.work || stop.deadline.is_some_and(|d| Instant::now() >= d) {
            list_schedule_rest(&items, &parts, 2 * n, side_b, &mut schedule);
            return (schedule, true);
        }
        stamp += 1;
        // Most loaded resources first (`by_load` is kept in this order);
        // each takes its most loaded free partner (ties: lowest id), i.e.
        // the first free partner in this order.
        chosen.clear();
        if let Some(index) = &mut dense {
            index.begin_round(&by_load);
        }
        for i in 0..by_load.len() {
            let x = by_load[i] as usize;
            if used[x] == stamp {
                continue;
            }
            // Both searches find the same partner: the dense index in
            // O(resources / 64) word operations, the incident list in
            // O(live pairs of x).
            let best = if let Some(index) = &mut dense {
                // The item is looked up after the round (below): the
                // look-ups miss the cache and overlap there.
                index.best_partner(x, i).map(|p| (NONE, by_load[p]))
            } else {
                incident[x].retain(|&(k, _)| alive[k as usize]);
                incident[x]
                    .iter()
                    .copied()
                    .filter(|&(_, y)| used[y as usize] != stamp)
                    .max_by_key(|&(_, y)| (load[y as usize], std::cmp::Reverse(y)))
            };
            if let Some((k, y)) = best {
                used[x] = stamp;
                used[y as usize] = stamp;
                if let Some(index) = &mut dense {
                    index.take(x);
                    index.take(y as usize);
                }
                chosen.push((k, x as u32, y));
            }
        }
        if let Some(index) = &dense {
            for (k, x, y) in &mut chosen {
                *k = index.item(*x as usize, *y as usize);
            }
        }
        let r = repeat_count(&chosen, &items, &load, &by_load, |v| {
            used[v as usize] == stamp
        });
        let mut round = Vec::with_capacity(chosen.len());
        for &(k, x, y) in &chosen {
            let it = &mut items[k as usize];
            round.push(it.demand);
            it.send(r, &parts);
            if it.done() {
                live -= 1;
                alive[k as usize] = false;
                if let Some(index) = &mut dense {
                    index.remove(x as usize, y as usize);
                }
            }
            load[x as usize] -= r;
            load[y as usize] -= r;
        }
        schedule.push(r, round);
        restore_load_order(
            &mut by_load,
            &load,
            |x| used[x as usize] == stamp,
            &mut moved,
            &mut kept,
        );
    }
    (schedule, false)
}

/// The load greedy's items: one per undirected pair under STRICT1 (its
/// demands' parts in order), one per demand under READ1_WRITE1, with the
/// chunks `rest` leaves when given; items with nothing left are left out.
/// Returns the parts (demand, chunks) the items index into, and the items.
fn greedy_items(
    inst: &Instance,
    graph: Option<&DemandGraph>,
    rest: Option<&[u64]>,
) -> (Vec<(u32, u64)>, Vec<Item>) {
    let strict = inst.model == Model::Strict1;
    let mut parts: Vec<(u32, u64)> = Vec::with_capacity(inst.demands().len());
    let mut items: Vec<Item> = Vec::new();
    if strict {
        let built;
        let graph = match graph {
            Some(g) => g,
            None => {
                built = DemandGraph::new(inst);
                &built
            }
        };
        items.reserve(graph.undirected().len());
        for e in graph.undirected() {
            let from = parts.len();
            match rest {
                None => parts.extend_from_slice(&e.demands),
                Some(left) => parts.extend(
                    e.demands
                        .iter()
                        .map(|&(d, _)| (d, left[d as usize]))
                        .filter(|&(_, c)| c > 0),
                ),
            }
            if parts.len() > from {
                items.push(Item::new(e.a, e.b, &parts, from, parts.len()));
            }
        }
    } else {
        for (i, d) in inst.demands().iter().enumerate() {
            let chunks = rest.map_or_else(|| inst.chunks(i), |left| left[i]);
            if chunks > 0 {
                let from = parts.len();
                parts.push((i as u32, chunks));
                items.push(Item::new(d.src, d.dst, &parts, from, from + 1));
            }
        }
    }
    (parts, items)
}

/// Each resource's load (the chunks its items have left) and its items,
/// each with its other end (kept beside the item so the partner scan does
/// not touch the items themselves). `side_b` maps an item's second slot to
/// its resource.
fn loads_and_incidence(
    items: &[Item],
    parts: &[(u32, u64)],
    resources: usize,
    side_b: impl Fn(u32) -> usize,
) -> (Vec<u64>, Vec<Vec<(u32, u32)>>) {
    let mut load = vec![0u64; resources];
    for it in items {
        let remaining = it.remaining(parts);
        load[it.a as usize] += remaining;
        load[side_b(it.b)] += remaining;
    }
    let mut incident: Vec<Vec<(u32, u32)>> = vec![Vec::new(); resources];
    for (k, it) in items.iter().enumerate() {
        let (x, y) = (it.a as usize, side_b(it.b));
        incident[x].push((k as u32, y as u32));
        incident[y].push((k as u32, x as u32));
    }
    (load, incident)
}

/// The order of the load greedy's resource list: most loaded first, ties
/// by lowest id.
fn load_key(load: &[u64], x: u32) -> (std::cmp::Reverse<u64>, u32) {
    (std::cmp::Reverse(load[x as usize]), x)
}

/// How many ticks the round `chosen` (item, resource, partner) repeats:
/// no more than any chosen item has left in its current part, and no more
/// than the load gap between the least loaded resource it covers and the
/// most loaded one it leaves idle (at least `max load / SLACK_DIVISOR`, at
/// least 1). `by_load` is sorted by load; `in_round` says which resources
/// the round uses.
fn repeat_count(
    chosen: &[(u32, u32, u32)],
    items: &[Item],
    load: &[u64],
    by_load: &[u32],
    in_round: impl Fn(u32) -> bool,
) -> u64 {
    let mut r = u64::MAX;
    let mut min_covered = u64::MAX;
    for &(k, x, y) in chosen {
        r = r.min(items[k as usize].left);
        min_covered = min_covered.min(load[x as usize]).min(load[y as usize]);
    }
    // Resources outside `by_load` have no load; it is sorted by load.
    let max_idle = by_load
        .iter()
        .find(|&&v| !in_round(v))
        .map_or(0, |&v| load[v as usize]);
    let max_load = by_load.first().map_or(0, |&v| load[v as usize]);
    let slack = (max_load / SLACK_DIVISOR).max(1);
    let allowed = min_covered.saturating_sub(max_idle).max(slack);
    r.min(allowed)
}

/// Puts `by_load` back in `load_key` order after a round, dropping the
/// resources with no load left. The resources the round used (`in_round`)
/// lost the same repeat count each, so they keep their order among
/// themselves, and the others kept their loads: merging the two runs
/// restores the order in O(n) instead of a sort. `moved` and `kept` are
/// scratch buffers.
fn restore_load_order(
    by_load: &mut Vec<u32>,
    load: &[u64],
    in_round: impl Fn(u32) -> bool,
    moved: &mut Vec<u32>,
    kept: &mut Vec<u32>,
) {
    moved.clear();
    kept.clear();
    for &x in by_load.iter() {
        if load[x as usize] == 0 {
            continue;
        }
        if in_round(x) {
            moved.push(x);
        } else {
            kept.push(x);
        }
    }
    by_load.clear();
    let (mut i, mut j) = (0, 0);
    while i < moved.len() && j < kept.len() {
        if load_key(load, moved[i]) < load_key(load, kept[j]) {
            by_load.push(moved[i]);
            i += 1;
        } else {
            by_load.push(kept[j]);
            j += 1;
        }
    }
    by_load.extend_from_slice(&moved[i..]);
    by_load.extend_from_slice(&kept[j..]);
}

/// Appends to `schedule` the chunks `items` have left, by list scheduling:
/// items in order, each part (demand, chunks) placed as one interval that
/// starts when both of its resources are free, then the timeline cut into
/// rounds at every interval end. Each resource holds one interval at a time,
/// so every round is a matching (STRICT1) or sends and receives at most once
/// per slot (READ1_WRITE1). Graham's list scheduling; O(P log P + output)
/// for P parts, at most 2P rounds.
fn list_schedule_rest(
    items: &[Item],
    parts: &[(u32, u64)],
    resources: usize,
    side_b: impl Fn(u32) -> usize,
    schedule: &mut Schedule,
) {
    // Intervals (start, end, demand); `free[x]` is when resource x is free.
    let mut free = vec![0u64; resources];
    let mut intervals: Vec<(u64, u64, u32)> = Vec::new();
    for it in items.iter().filter(|it| !it.done()) {
        let (x, y) = (it.a as usize, side_b(it.b));
        let mut t = free[x].max(free[y]);
        for (demand, chunks) in it.parts_left(parts) {
            intervals.push((t, t + chunks, demand));
            t += chunks;
        }
        free[x] = t;
        free[y] = t;
    }
    // Sweep: events sorted by time; ends before starts at equal times.
    let mut events: Vec<(u64, bool, u32)> = Vec::with_capacity(2 * intervals.len());
    for (k, &(s, e, _)) in intervals.iter().enumerate() {
        events.push((s, true, k as u32));
        events.push((e, false, k as u32));
    }
    events.sort_unstable();
    let mut active: Vec<u32> = Vec::new();
    let mut pos = vec![NONE; intervals.len()];
    let mut i = 0;
    while i < events.len() {
        let t = events[i].0;
        while i < events.len() && events[i].0 == t {
            let k = events[i].2;
            if events[i].1 {
                pos[k as usize] = active.len() as u32;
                active.push(k);
            } else {
                let p = pos[k as usize] as usize;
                active.swap_remove(p);
                if let Some(&moved) = active.get(p) {
                    pos[moved as usize] = p as u32;
                }
            }
            i += 1;
        }
        if let (Some(next), false) = (events.get(i), active.is_empty()) {
            let round = active.iter().map(|&k| intervals[k as usize].2).collect();
            schedule.push(next.0 - t, round);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{greedy_schedule_on, load_greedy, peeled_greedy, PeelPlan, Stop};
    use crate::gen::{generate, Family, GenSpec};
    use crate::graph::DemandGraph;
    use crate::instance::{Instance, Limits, Model};
    use crate::validate::validate_compact;

    fn instance(family: Family, model: Model, seed: u64) -> Instance {
        let spec = GenSpec {
            family,
            mult: 1,
            bw: 1024,
            seed,
        };
        let g = generate(&spec).expect("valid parameters");
        Instance::new(model, g.slots, 1024, g.demands, &Limits::default()).expect("valid")
    }

    /// The dense index (bit rows and load-order blocks) and the scan of
    /// live pairs pick the same partner every time: the schedules are
    /// equal, valid, and on these near-regular supports meet Delta.
    #[test]
    fn dense_index_and_pair_lists_give_the_same_schedule() {
        let families = [
            Family::Random {
                n: 150,
                p: 0.3,
                max_chunks: 6,
            },
            Family::Random {
                n: 97,
                p: 0.9,
                max_chunks: 3,
            },
            Family::Moe {
                n: 64,
                experts_per_rank: 1,
                tokens: 512,
                topk: 2,
                zipf: 0.0,
                token_bits: 12000,
            },
        ];
        for (f, family) in families.into_iter().enumerate() {
            for model in [Model::Strict1, Model::Read1Write1] {
                let inst = instance(family.clone(), model, f as u64);
                let (dense, _) = load_greedy(&inst, None, Stop::at(None), Some(true), None);
                let (lists, _) = load_greedy(&inst, None, Stop::at(None), Some(false), None);
                assert_eq!(dense, lists, "family {f} {model:?}");
                assert!(validate_compact(&inst, &dense).passed());
                let delta = DemandGraph::new(&inst).max_degree().0;
                assert_eq!(dense.ticks(), delta, "family {f} {model:?}");
            }
        }
    }

    /// All-to-all supports (even and odd slot counts, uniform and skewed
    /// MoE) are peeled, and the peel plus the greedy on the rest is valid
    /// and meets Delta.
    #[test]
    fn a_peeled_all_to_all_meets_delta() {
        for (n, zipf, tokens) in [
            (64, 0.0, 512),
            (63, 0.0, 512),
            (64, 0.8, 4096),
            (9, 0.5, 64),
        ] {
            let family = Family::Moe {
                n,
                experts_per_rank: 1,
                tokens,
                topk: 2,
                zipf,
                token_bits: 12000,
            };
            let inst = instance(family, Model::Strict1, n as u64);
            let g = DemandGraph::new(&inst);
            let plan = PeelPlan::new(&inst, &g)
                .unwrap_or_else(|| panic!("n {n} zipf {zipf}: not all-to-all"));
            let (peeled, cut) = peeled_greedy(&inst, &g, &plan, None);
            assert!(!cut);
            assert!(
                validate_compact(&inst, &peeled).passed(),
                "n {n} zipf {zipf}"
            );
            assert_eq!(peeled.ticks(), g.max_degree().0, "n {n} zipf {zipf}");
            assert_eq!(greedy_schedule_on(&inst, Some(&g), None).0, peeled);
        }
    }

    /// The work budget stops the round loop as a deadline does: the rest is
    /// list-scheduled, the schedule is complete and valid, and `cut` says
    /// so; the same budget gives the same schedule every time (counted, not
    /// timed). A budget the loop never reaches changes nothing.
    #[test]
    fn the_work_budget_ends_the_round_loop_deterministically() {
        for model in [Model::Strict1, Model::Read1Write1] {
            let spec = GenSpec {
                family: Family::Random {
                    n: 30,
                    p: 0.5,
                    max_chunks: 40,
                },
                mult: 1,
                bw: 1024,
                seed: 3,
            };
            let gen = generate(&spec).unwrap();
            let inst =
                Instance::new(model, gen.slots, 1024, gen.demands, &Limits::default()).unwrap();
            let small = Stop {
                deadline: None,
                work: 200,
            };
            let (cut_sched, cut) = load_greedy(&inst, None, small, None, None);
            assert!(cut, "{model:?}: a budget of 200 steps must stop the loop");
            let report = validate_compact(&inst, &cut_sched);
            assert!(report.passed(), "{model:?}: {}", report.one_line());
            assert_eq!(load_greedy(&inst, None, small, None, None).0, cut_sched);
            let (full, cut) = load_greedy(&inst, None, Stop::at(None), None, None);
            assert!(!cut);
            assert!(validate_compact(&inst, &full).passed());
            assert_ne!(full, cut_sched);
        }
    }

    /// A peel below Delta's reach (K4 with a heavy triangle: ceil Gamma =
    /// 3a > Delta = 2a + 1) keeps the shorter of the peeled and the plain
    /// schedule; a sparse support (30 % of the pairs) is not peeled.
    #[test]
    fn the_greedy_keeps_the_shorter_of_peeled_and_plain() {
        let a = 5u64;
        let pairs = [
            (0, 1, a),
            (0, 2, a),
            (1, 2, a),
            (0, 3, 1),
            (1, 3, 1),
            (2, 3, 1),
        ];
        let demands: Vec<_> = pairs
            .iter()
            .map(|&(s, d, c)| crate::instance::Demand {
                src: s,
                dst: d,
                bits: c * 1024,
            })
            .collect();
        let inst =
            Instance::new(Model::Strict1, 4, 1024, demands, &Limits::default()).expect("valid");
        let g = DemandGraph::new(&inst);
        let plan = PeelPlan::new(&inst, &g).expect("K4 is all-to-all");
        let (peeled, _) = peeled_greedy(&inst, &g, &plan, None);
        let (plain, _) = load_greedy(&inst, Some(&g), Stop::at(None), None, None);
        let (chosen, cut) = greedy_schedule_on(&inst, Some(&g), None);
        assert!(!cut);
        assert!(validate_compact(&inst, &chosen).passed());
        assert_eq!(chosen.ticks(), peeled.ticks().min(plain.ticks()));
        assert!(chosen.ticks() >= 3 * a);

        let sparse = instance(
            Family::Random {
                n: 40,
                p: 0.3,
                max_chunks: 3,
            },
            Model::Strict1,
            1,
        );
        assert!(PeelPlan::new(&sparse, &DemandGraph::new(&sparse)).is_none());
    }
}
