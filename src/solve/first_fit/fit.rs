//! Dense skewed traffic (planning inside the step, DESIGN §13) coloured
//! first fit in Delta ticks: each demand, in demand order, takes the
//! earliest ticks free at both of its ends.
//!
//! Each slot side keeps its free ticks as a bitset of `Delta` bits, so a
//! demand costs a word-wise AND of two bitsets from the first word either
//! end still has free (a cursor per side), and a chunk costs two bit
//! clears and one append (lists per tick are laid out at the end, each
//! with its exact capacity). Demands are taken in index
//! order, so every tick's list comes out sorted and the rounds need no
//! sort. On the skewed matrices of MoE dispatch (a few tight hot experts,
//! every other slot with slack) first fit almost always fits in Delta
//! ticks; when a demand finds no common free tick, the partial colouring
//! goes into a [`TickTable`] and the chunks left go in by alternating
//! paths (König: READ1_WRITE1 always fits; STRICT1 may not, and then there
//! is no schedule here and the caller's engines run). Small STRICT1
//! matrices get a second try with the busiest pairs first before that.
//! Large instances with several chunks a demand are first split in two
//! halves of Delta/2 ticks each, coloured side by side on two threads
//! (module `halves`), and coloured whole when a half misses.
//!
//! Time O(demands x words scanned + chunks), memory O(slots x Delta / 64 +
//! chunks); the alternating-path repair is O(slots) per chunk left. The
//! schedule has one round per tick (equal neighbours merged); it is
//! validated by the caller like every other, and the caller proves it
//! optimal by the degree witness (Delta ticks).

use super::halves;
use super::tick_table::MAX_TABLE_SLOTS;
use crate::graph::DemandGraph;
use crate::instance::{Instance, Model};
use crate::rounds::Schedule;

/// Whether first fit is tried on `inst` (right after the structure
/// colourings): one port per slot, at most [`MAX_TABLE_SLOTS`] slots, at
/// least half of all ordered pairs present (the all-to-all matrices of MoE
/// dispatch) and at most [`MAX_CHUNKS`] chunks.
pub fn applies(inst: &Instance) -> bool {
    let n = inst.slots as u64;
    inst.is_single_port()
        && (2..=MAX_TABLE_SLOTS as u64).contains(&n)
        && inst.demands().len() as u64 * 2 >= n * (n - 1)
        && inst.total_chunks() <= MAX_CHUNKS
}

/// Most chunks first fit takes (8 bytes each while it runs, and time per
/// chunk): heavier traffic goes to engines whose cost follows the pairs
/// (merged König, the binary split).
pub const MAX_CHUNKS: u64 = 1 << 24;

/// The first-fit schedule of a one-port instance in exactly Delta ticks
/// (the largest degree of its demand graph `g`), or `None` when first fit and the
/// repair do not fit or the instance is not one this path takes (several
/// ports, more than [`MAX_TABLE_SLOTS`] slots, more than `u32` chunks in a
/// demand).
pub fn first_fit_schedule(inst: &Instance, g: &DemandGraph) -> Option<Schedule> {
    let delta = g.max_degree().0;
    if !inst.is_single_port() || inst.slots > MAX_TABLE_SLOTS || delta > u32::MAX as u64 {
        return None;
    }
    let strict = inst.model == Model::Strict1;
    let demands = inst.demands();
    let arcs = Arcs {
        slots: inst.slots as usize,
        strict,
        ends: |i: usize| (demands[i].src, demands[i].dst),
        counts: inst.chunk_counts(),
    };
    // Large instances in two halves side by side (module
    // `first_fit_halves`), in one piece when the halves do not fit.
    let halves = halves::pays(demands.len(), inst.total_chunks())
        .then(|| fit_in_halves(arcs, delta as usize))
        .flatten();
    let whole = || fit_in_order(arcs, delta as usize, in_order(arcs.counts), u64::MAX);
    let lists = match halves.or_else(whole) {
        Some(lists) => lists,
        // Small STRICT1 matrices (a few ranks) that first fit in demand
        // order misses often fit with the busiest pairs first; the second
        // try costs microseconds there.
        None if strict && demands.len() <= RETRY_MAX_DEMANDS => {
            let order = busiest_first(inst, g).map(|i| (i, arcs.counts[i]));
            fit_in_order(arcs, delta as usize, order, u64::MAX)?
        }
        None => return None,
    };
    let mut schedule = Schedule::new();
    for demands in lists {
        schedule.push(1, demands);
    }
    (schedule.ticks() == delta).then_some(schedule)
}

/// Each tick's demands of `arcs` coloured in `delta` ticks as two halves
/// on two threads (module `halves`), or `None` when the split
/// or a half does not fit.
fn fit_in_halves<E: Fn(usize) -> (u32, u32) + Copy + Send + Sync>(
    arcs: Arcs<'_, E>,
    delta: usize,
) -> Option<Vec<Vec<u32>>> {
    let caps = [delta.div_ceil(2) as u64, (delta / 2) as u64];
    let [first, second] = halves::split(arcs.slots, arcs.strict, arcs.ends, arcs.counts, caps)?;
    fn order(half: &[(u32, u32)]) -> impl Iterator<Item = (usize, u64)> + Clone + '_ {
        half.iter().map(|&(i, c)| (i as usize, u64::from(c)))
    }
    let (first, second) = rayon::join(
        || fit_in_order(arcs, caps[0] as usize, order(&first), u64::MAX),
        || fit_in_order(arcs, caps[1] as usize, order(&second), u64::MAX),
    );
    let mut lists = first?;
    lists.extend(second?);
    Some(lists)
}

/// Most placements [`fit_in_order`] reserves up front (1 GiB; the callers'
/// chunk limits are below it).
const MAX_RESERVED: u64 = 1 << 27;

/// Most demands for which STRICT1 first fit gets a second order.
const RETRY_MAX_DEMANDS: usize = 4096;

/// What first fit colours: arc `i` goes `ends(i)` = `(src, dst)` with
/// `counts[i]` chunks, on `slots` slots with one side each (STRICT1) or a
/// send and a receive side (READ1_WRITE1). The demands of an instance, or
/// the pieces of a uniform-port grouping (module `first_fit_grouped`).
#[derive(Clone, Copy)]
pub(in crate::solve) struct Arcs<'a, E> {
    pub(in crate::solve) slots: usize,
    pub(in crate::solve) strict: bool,
    pub(in crate::solve) ends: E,
    pub(in crate::solve) counts: &'a [u64],
}

/// Every arc with all its chunks, in index order (what [`fit_in_order`]
/// takes).
pub(in crate::solve) fn in_order(
    counts: &[u64],
) -> impl Iterator<Item = (usize, u64)> + Clone + '_ {
    counts.iter().copied().enumerate()
}

/// The colouring in `delta` ticks by first fit of the chunks `order` gives
/// as `(arc, chunks)` (each arc once; `arcs.counts` or part of them),
/// completed by alternating paths: each tick's arcs, sorted when `order`
/// is ascending (and no path was needed). `None` when the paths do not
/// complete it (STRICT1) or more than `max_left` chunks are left for them
/// (known as soon as the chunks left pass `max_left`: the placing stops
/// there).
pub(in crate::solve) fn fit_in_order<E: Fn(usize) -> (u32, u32)>(
    arcs: Arcs<'_, E>,
    delta: usize,
    order: impl Iterator<Item = (usize, u64)> + Clone,
    max_left: u64,
) -> Option<Vec<Vec<u32>>> {
    // One placement per chunk: reserved at once (grown by doubling, each
    // step a fresh block of zeroed pages at these sizes).
    let chunks = order.clone().fold(0u64, |a, (_, c)| a.saturating_add(c));
    let mut fit = FirstFit::new(arcs.slots, arcs.strict, delta);
    fit.placed.reserve(chunks.min(MAX_RESERVED) as usize);
    let mut rest: Vec<(u32, u32)> = Vec::new();
    let mut left_over = 0u64;
    for (i, chunks) in order {
        let (src, dst) = (arcs.ends)(i);
        let left = fit.place(src as usize, dst as usize, chunks, i as u32);
        if left > 0 {
            rest.push((i as u32, u32::try_from(left).ok()?));
            left_over += left;
            // Over the budget: no need to place the rest to know.
            if left_over > max_left {
                return None;
            }
        }
    }
    let mut lists = Vec::new();
    fit.lay_out(&mut lists);
    if !rest.is_empty() && !repair(&arcs, &mut fit, &mut lists, &rest) {
        return None;
    }
    Some(lists)
}

/// Demands by decreasing sum of their ends' degrees in `g` (ties by index).
fn busiest_first(inst: &Instance, g: &DemandGraph) -> impl Iterator<Item = usize> + Clone {
    let ends = inst.demands();
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by_key(|&i| {
        let load = g.degree(ends[i].src as usize) + g.degree(ends[i].dst as usize);
        (std::cmp::Reverse(load), i)
    });
    order.into_iter()
}

/// The first-fit state: free ticks per slot side, a cursor per side (the
/// first word with a free tick), and the (demand, tick) of each chunk
/// placed, in placing order (appended: writing into each tick's list as
/// chunks land was a cache miss per chunk).
struct FirstFit {
    words: usize,
    /// Send side of slot `x` at `x * words`; READ1_WRITE1's receive sides
    /// follow at `(n + x) * words` (STRICT1: one side per slot).
    free: Vec<u64>,
    cursor: Vec<u32>,
    receive_offset: usize,
    placed: Vec<(u32, u32)>,
    /// How many of `placed` are in the tick lists ([`FirstFit::lay_out`]).
    laid_out: usize,
    /// Chunks placed per tick.
    per_tick: Vec<u32>,
}

impl FirstFit {
    fn new(n: usize, strict: bool, delta: usize) -> FirstFit {
        let words = delta.div_ceil(64).max(1);
        let sides = if strict { n } else { 2 * n };
        let mut free = vec![u64::MAX; sides * words];
        if delta % 64 != 0 {
            let last = (1u64 << (delta % 64)) - 1;
            for x in 0..sides {
                free[x * words + words - 1] = last;
            }
        }
        if delta == 0 {
            free.iter_mut().for_each(|w| *w = 0);
        }
        FirstFit {
            words,
            free,
            cursor: vec![0; sides],
            receive_offset: if strict { 0 } else { n },
            placed: Vec::new(),
            laid_out: 0,
            per_tick: vec![0; delta],
        }
    }

    /// Puts up to `chunks` chunks of demand `d` (`u -> v`) in the earliest
    /// ticks free at both ends; returns the chunks that found no tick.
    fn place(&mut self, u: usize, v: usize, mut chunks: u64, d: u32) -> u64 {
        let (a, b, w) = (u, self.receive_offset + v, self.words);
        let mut i = self.cursor[a].max(self.cursor[b]) as usize;
        while chunks > 0 && i < w {
            let mut common = self.free[a * w + i] & self.free[b * w + i];
            let mut taken = 0u64;
            while common != 0 && chunks > 0 {
                let bit = common & common.wrapping_neg();
                common ^= bit;
                taken |= bit;
                let t = i * 64 + bit.trailing_zeros() as usize;
                self.placed.push((d, t as u32));
                self.per_tick[t] += 1;
                chunks -= 1;
            }
            self.free[a * w + i] &= !taken;
            self.free[b * w + i] &= !taken;
            if chunks > 0 {
                i += 1;
            }
        }
        for x in [a, b] {
            let mut c = self.cursor[x] as usize;
            while c < w && self.free[x * w + c] == 0 {
                c += 1;
            }
            self.cursor[x] = c as u32;
        }
        chunks
    }

    /// Brings `lists` (each tick's demands) up to date with the chunks
    /// placed: the first time into lists of their exact sizes (placing order
    /// is demand order, so each list comes out sorted), later by appending.
    fn lay_out(&mut self, lists: &mut Vec<Vec<u32>>) {
        if lists.is_empty() {
            *lists = self
                .per_tick
                .iter()
                .map(|&c| Vec::with_capacity(c as usize))
                .collect();
            for &(d, t) in &self.placed {
                lists[t as usize].push(d);
            }
        } else {
            for &(d, t) in &self.placed[self.laid_out..] {
                lists[t as usize].push(d);
            }
        }
        self.laid_out = self.placed.len();
    }

    /// The first `k` free ticks of slot side `x`.
    fn free_ticks(&self, x: usize, k: usize) -> Vec<usize> {
        let w = self.words;
        let mut ticks = Vec::with_capacity(k);
        for (i, &word) in self.free[x * w..(x + 1) * w].iter().enumerate() {
            let mut word = word;
            while word != 0 && ticks.len() < k {
                ticks.push(i * 64 + word.trailing_zeros() as usize);
                word &= word - 1;
            }
        }
        ticks
    }

    /// Marks tick `t` used at slot sides `a` and `b`.
    fn take(&mut self, a: usize, b: usize, t: usize) {
        for x in [a, b] {
            self.free[x * self.words + t / 64] &= !(1 << (t % 64));
        }
    }

    /// Marks tick `t` free at slot sides `a` and `b` (cursors move back).
    fn release(&mut self, a: usize, b: usize, t: usize) {
        for x in [a, b] {
            self.free[x * self.words + t / 64] |= 1 << (t % 64);
            self.cursor[x] = self.cursor[x].min((t / 64) as u32);
        }
    }
}

/// Completes the first-fit colouring `lists` (each tick's demands) with the
/// `(demand, chunks)` left over, by alternating paths on the two ticks
/// involved (König's argument; module docs); `false` when STRICT1 finds no
/// path that does not close on the demand's other end.
fn repair<E: Fn(usize) -> (u32, u32)>(
    arcs: &Arcs<'_, E>,
    fit: &mut FirstFit,
    lists: &mut Vec<Vec<u32>>,
    rest: &[(u32, u32)],
) -> bool {
    let ends: Vec<(u32, u32)> = (0..arcs.counts.len()).map(&arcs.ends).collect();
    let mut path = Paths::new(arcs.slots);
    for &(d, left) in rest {
        for _ in 0..left {
            if fit.place(
                ends[d as usize].0 as usize,
                ends[d as usize].1 as usize,
                1,
                d,
            ) == 0
            {
                continue;
            }
            if !path.insert(fit, lists, &ends, d) {
                return false;
            }
        }
    }
    fit.lay_out(lists);
    true
}

/// The alternating-path search over two ticks: per slot side, the demand
/// it takes part in during each (rebuilt from the ticks' lists per path).
struct Paths {
    n: usize,
    /// `[tick a, tick b]` x (send sides, then receive sides): demand + 1.
    at: [Vec<u32>; 2],
    path: Vec<(u32, usize)>,
}

impl Paths {
    fn new(n: usize) -> Paths {
        Paths {
            n,
            at: [vec![0; 2 * n], vec![0; 2 * n]],
            path: Vec::new(),
        }
    }

    /// Puts one chunk of `d` into a tick freed by swapping the two ticks
    /// of an alternating path.
    fn insert(
        &mut self,
        fit: &mut FirstFit,
        lists: &mut Vec<Vec<u32>>,
        ends: &[(u32, u32)],
        d: u32,
    ) -> bool {
        fit.lay_out(lists);
        let (u, v) = ends[d as usize];
        let (u, v) = (u as usize, v as usize);
        const TRIES: usize = 4;
        let free_u = fit.free_ticks(u, TRIES);
        let free_v = fit.free_ticks(fit.receive_offset + v, TRIES);
        for &a in &free_u {
            for &b in &free_v {
                if self.search(fit, lists, ends, (u, v), [a, b]) {
                    self.swap(fit, lists, ends, [a, b]);
                    fit.take(u, fit.receive_offset + v, a);
                    lists[a].push(d);
                    return true;
                }
            }
        }
        false
    }

    /// The path from `v`'s side that uses `a` (free at `u`), alternating
    /// ticks `a` and `b` (free at `v`), into `self.path` as (demand, tick it
    /// leaves); `false` when it ends at `u` (STRICT1 only: under
    /// READ1_WRITE1 it enters send sides by `a` and `u` has none).
    fn search(
        &mut self,
        fit: &FirstFit,
        lists: &[Vec<u32>],
        ends: &[(u32, u32)],
        (u, v): (usize, usize),
        ticks: [usize; 2],
    ) -> bool {
        let (n, off) = (self.n, fit.receive_offset);
        for (side, &t) in ticks.iter().enumerate() {
            self.at[side].iter_mut().for_each(|x| *x = 0);
            for &e in &lists[t] {
                let (s, r) = ends[e as usize];
                self.at[side][s as usize] = e + 1;
                self.at[side][off + r as usize] = e + 1;
            }
        }
        self.path.clear();
        // Side index of the current vertex, and which tick's edge to follow.
        let (mut x, mut which) = (off + v, 0usize);
        while self.path.len() <= 2 * n {
            let e = self.at[which][x];
            if e == 0 {
                break;
            }
            let (s, r) = ends[e as usize - 1];
            self.path.push((e - 1, ticks[which]));
            let (s, r) = (s as usize, off + r as usize);
            x = if x == s { r } else { s };
            which ^= 1;
        }
        self.path.len() <= 2 * n && x != u
    }

    /// Moves every demand of the path to the other tick.
    fn swap(
        &mut self,
        fit: &mut FirstFit,
        lists: &mut [Vec<u32>],
        ends: &[(u32, u32)],
        ticks: [usize; 2],
    ) {
        let off = fit.receive_offset;
        for &(e, from) in &self.path {
            let i = lists[from]
                .iter()
                .position(|&x| x == e)
                .expect("on the path");
            lists[from].swap_remove(i);
            let (s, r) = ends[e as usize];
            fit.release(s as usize, off + r as usize, from);
        }
        for &(e, from) in &self.path {
            let to = if from == ticks[0] { ticks[1] } else { ticks[0] };
            let (s, r) = ends[e as usize];
            fit.take(s as usize, off + r as usize, to);
            lists[to].push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_instance;
    use crate::instance::{Demand, Limits};
    use crate::validate::validate_compact;

    #[test]
    fn skewed_matrices_fit_in_delta_ticks_under_both_models() {
        for model in [Model::Read1Write1, Model::Strict1] {
            for (n, k, seed) in [(8, 1, 0), (40, 1, 1), (64, 4, 2), (100, 2, 3), (128, 1, 4)] {
                let inst = test_instance(model, n, k, seed);
                let g = DemandGraph::new(&inst);
                let delta = g.max_degree().0;
                let s = first_fit_schedule(&inst, &g).expect("fits");
                assert!(validate_compact(&inst, &s).passed(), "{model} n={n}");
                assert_eq!(s.ticks(), delta, "{model} n={n}");
            }
        }
    }

    /// A READ1_WRITE1 instance first fit cannot finish alone: `2 -> 3`
    /// and `0 -> 1` take tick 0, `2 -> 4` then takes tick 1, and `0 -> 4`
    /// finds slot 0 free only in tick 1 and slot 4 only in tick 0; the
    /// repair's alternating path moves `2 -> 4` and `2 -> 3`.
    #[test]
    fn the_repair_completes_what_first_fit_leaves() {
        let demands =
            [(2, 3), (0, 1), (2, 4), (0, 4)].map(|(src, dst)| Demand { src, dst, bits: 1 });
        let inst = Instance::new(Model::Read1Write1, 5, 1, demands, &Limits::default()).unwrap();
        let mut fit = FirstFit::new(5, false, 2);
        let left: Vec<u64> = inst
            .demands()
            .iter()
            .enumerate()
            .map(|(i, d)| fit.place(d.src as usize, d.dst as usize, 1, i as u32))
            .collect();
        assert!(left.iter().any(|&l| l > 0), "first fit alone finishes");
        let g = DemandGraph::new(&inst);
        assert_eq!(g.max_degree().0, 2);
        let s = first_fit_schedule(&inst, &g).expect("repaired");
        assert!(validate_compact(&inst, &s).passed());
        assert_eq!(s.ticks(), 2);
    }

    proptest::proptest! {
        /// Random dense multigraphs (every pair, 0-6 chunks each way):
        /// READ1_WRITE1 always fits in Delta (first fit, then König's
        /// paths); STRICT1's schedule, when there is one, is valid in Delta.
        #[test]
        fn random_matrices_fit_or_refuse_cleanly(
            n in 3u32..9,
            cells in proptest::collection::vec(0u64..7, 64),
        ) {
            let demands = crate::gen::skew::test_matrix_demands(n, &cells);
            proptest::prop_assume!(!demands.is_empty());
            for model in [Model::Read1Write1, Model::Strict1] {
                let inst = Instance::new(model, n, 1, demands.clone(), &Limits::default()).unwrap();
                let g = DemandGraph::new(&inst);
                let delta = g.max_degree().0;
                match first_fit_schedule(&inst, &g) {
                    Some(s) => {
                        proptest::prop_assert!(validate_compact(&inst, &s).passed());
                        proptest::prop_assert_eq!(s.ticks(), delta);
                    }
                    None => proptest::prop_assert_eq!(model, Model::Strict1),
                }
            }
        }
    }

    /// Some 8-rank STRICT1 matrices miss Delta in demand order and fit
    /// with the busiest pairs first.
    #[test]
    fn small_strict1_matrices_get_a_second_order() {
        let retried = (0..200)
            .map(|seed| test_instance(Model::Strict1, 8, 4, seed))
            .filter(|inst| {
                let g = DemandGraph::new(inst);
                let delta = g.max_degree().0;
                let demands = inst.demands();
                let arcs = Arcs {
                    slots: inst.slots as usize,
                    strict: true,
                    ends: |i: usize| (demands[i].src, demands[i].dst),
                    counts: inst.chunk_counts(),
                };
                let first = fit_in_order(arcs, delta as usize, in_order(arcs.counts), u64::MAX);
                first.is_none()
                    && first_fit_schedule(inst, &g).is_some_and(|s| {
                        assert!(validate_compact(inst, &s).passed());
                        s.ticks() == delta
                    })
            })
            .count();
        assert!(retried > 0, "no matrix needed the second order");
    }

    /// Large skewed matrices (past `halves::pays`) are coloured
    /// in two halves that fill Delta ticks, every tick used, and the
    /// schedule is valid.
    #[test]
    fn halves_fill_delta_ticks() {
        for model in [Model::Read1Write1, Model::Strict1] {
            let inst = test_instance(model, 96, 8, 5);
            assert!(halves::pays(inst.demands().len(), inst.total_chunks()));
            let g = DemandGraph::new(&inst);
            let delta = g.max_degree().0;
            let demands = inst.demands();
            let arcs = Arcs {
                slots: inst.slots as usize,
                strict: model == Model::Strict1,
                ends: |i: usize| (demands[i].src, demands[i].dst),
                counts: inst.chunk_counts(),
            };
            let lists = fit_in_halves(arcs, delta as usize).expect("the halves fit");
            assert_eq!(lists.len() as u64, delta, "{model}");
            assert!(
                lists.iter().all(|l| !l.is_empty()),
                "{model}: every tick used"
            );
            let s = first_fit_schedule(&inst, &g).expect("fits");
            assert!(validate_compact(&inst, &s).passed(), "{model}");
            assert_eq!(s.ticks(), delta, "{model}");
        }
    }

    #[test]
    fn strict1_without_a_delta_colouring_gives_none() {
        // A triangle of single chunks: Delta 2, but three ticks are needed.
        let demands = [(0, 1), (1, 2), (2, 0)].map(|(src, dst)| Demand { src, dst, bits: 1 });
        let inst = Instance::new(Model::Strict1, 3, 1, demands, &Limits::default()).unwrap();
        let g = DemandGraph::new(&inst);
        assert_eq!(g.max_degree().0, 2);
        assert!(first_fit_schedule(&inst, &g).is_none());
    }
}
