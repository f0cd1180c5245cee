//! The tick table a [`super::replan::Planner`] keeps between plans: per
//! tick, each slot's send and receive partner, the free ticks of each slot
//! side as bitsets, and the ticks of each ordered pair. Edits (take a chunk
//! out, put one in, empty the ticks past a new length) keep all three in
//! step; a chunk goes into a tick free at both ends (a word-wise AND of
//! the two bitsets) or, when there is none, into one freed by swapping the
//! two colours of an alternating path (König's argument; STRICT1's
//! conflict graph is not bipartite, so there a path that closes on the
//! other end is refused and [`TickTable::insert`] may fail).
//!
//! The table is an edge colouring of the demand multigraph with `ticks`
//! colours; READ1_WRITE1 colours the bipartite graph of send and receive
//! sides, STRICT1 the graph on slots. It proves nothing itself: the
//! schedule it emits is validated like every other.

use crate::rounds::{Round, Schedule};
use smallvec::SmallVec;

/// Largest slot count of a table (partners are stored as `u16`).
pub const MAX_TABLE_SLOTS: u32 = 2048;

/// Slot sides: what a slot does in a tick.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Send,
    Receive,
}

/// An edge colouring of the demand multigraph of `n` slots in `ticks`
/// colours (module docs).
#[derive(Clone)]
pub struct TickTable {
    n: usize,
    /// STRICT1: a slot sends or receives in a tick, not both.
    strict: bool,
    ticks: usize,
    /// `out[t * n + u] = v + 1` when `u` sends to `v` in tick `t`, else 0.
    out: Vec<u16>,
    /// `inp[t * n + v] = u + 1` when `v` receives from `u` in tick `t`.
    inp: Vec<u16>,
    /// Bitset words per slot side (room for `words * 64` ticks).
    words: usize,
    /// Bit `t` of row `u`: the send side of `u` is free in tick `t`
    /// (STRICT1: `u` is free; both sides use this set).
    free_send: Vec<u64>,
    /// Bit `t` of row `v`: the receive side of `v` is free (READ1_WRITE1).
    free_receive: Vec<u64>,
    /// Ticks of the ordered pair `u * n + v`, in no order (inline up to
    /// four: most pairs of a skewed matrix, one cache line less per edit),
    /// and their number (a dense array: the pass over all pairs reads only
    /// it).
    at: Vec<SmallVec<[u32; 4]>>,
    count: Vec<u32>,
    /// Ticks changed since [`TickTable::take_dirty`] (flag, bitset and
    /// list).
    dirty: Vec<bool>,
    dirty_bits: Vec<u64>,
    dirty_list: Vec<u32>,
    /// Chunks put in (+1) and taken out (-1) since the last schedule was
    /// emitted, as (tick, pair `u * n + v`, sign): [`TickTable::patch`]
    /// applies them to the rounds it was given.
    log: Vec<(u32, u32, i32)>,
}

impl TickTable {
    /// An empty table of `ticks` ticks.
    pub fn new(n: usize, strict: bool, ticks: usize) -> TickTable {
        let words = ticks.div_ceil(64).max(1);
        let mut table = TickTable {
            n,
            strict,
            ticks: 0,
            out: Vec::new(),
            inp: Vec::new(),
            words,
            free_send: vec![0; n * words],
            free_receive: if strict {
                Vec::new()
            } else {
                vec![0; n * words]
            },
            at: vec![SmallVec::new(); n * n],
            count: vec![0; n * n],
            dirty: Vec::new(),
            dirty_bits: vec![0; words],
            dirty_list: Vec::new(),
            log: Vec::new(),
        };
        table.resize(ticks);
        table
    }

    /// The table of a valid schedule of an instance whose demand `i` goes
    /// `ends[i] = (src, dst)`.
    pub fn from_schedule(
        n: usize,
        strict: bool,
        schedule: &Schedule,
        ends: &[(u32, u32)],
    ) -> TickTable {
        let ticks = schedule.ticks() as usize;
        let mut table = TickTable::new(n, strict, ticks);
        let mut t = 0usize;
        for round in &schedule.rounds {
            for tick in t..t + round.repeat as usize {
                for &d in &round.demands {
                    let (u, v) = ends[d as usize];
                    table.place(u as usize, v as usize, tick);
                }
            }
            t += round.repeat as usize;
        }
        table.log.clear();
        table
    }

    /// Chunks of `u -> v` in the table.
    pub fn chunks(&self, u: usize, v: usize) -> usize {
        self.count[u * self.n + v] as usize
    }

    /// Takes one chunk of `u -> v` out (the pair must have one): from its
    /// latest tick already changed in this edit, else its latest tick
    /// (changes kept to few ticks: fewer rounds to emit and check again).
    pub fn remove(&mut self, u: usize, v: usize) {
        let ticks = &self.at[u * self.n + v];
        let key = |t: &&u32| (self.dirty[**t as usize], **t);
        let tick = *ticks.iter().max_by_key(key).expect("the pair has a chunk");
        self.unplace(u, v, tick as usize);
    }

    /// Sets the length to `ticks`: new ticks are empty; chunks in ticks
    /// past the new length are taken out and returned as (sender,
    /// receiver), one per chunk (the caller puts them back).
    pub fn resize(&mut self, ticks: usize) -> Vec<(usize, usize)> {
        let n = self.n;
        let mut evicted = Vec::new();
        for t in ticks..self.ticks {
            for u in 0..n {
                let v = self.out[t * n + u];
                if v != 0 {
                    self.unplace(u, v as usize - 1, t);
                    evicted.push((u, v as usize - 1));
                }
            }
        }
        if ticks > self.words * 64 {
            self.widen(ticks.div_ceil(64) + ticks.div_ceil(512));
        }
        let (from, to) = (self.ticks.min(ticks), self.ticks.max(ticks));
        let free = ticks > self.ticks;
        for t in from..to {
            for x in 0..n {
                set_bit(&mut self.free_send[x * self.words..], t, free);
                if !self.strict {
                    set_bit(&mut self.free_receive[x * self.words..], t, free);
                }
            }
        }
        self.out.resize(ticks * n, 0);
        self.inp.resize(ticks * n, 0);
        self.dirty.resize(ticks, false);
        self.dirty_bits.resize(self.words, 0);
        for t in ticks..self.words * 64 {
            self.dirty_bits[t / 64] &= !(1 << (t % 64));
        }
        for t in from..ticks {
            self.touch(t);
        }
        self.ticks = ticks;
        evicted
    }

    /// The ticks changed since the last call, ascending (only those below
    /// the current length).
    pub fn take_dirty(&mut self) -> Vec<u32> {
        let mut list = std::mem::take(&mut self.dirty_list);
        list.retain(|&t| (t as usize) < self.ticks);
        list.sort_unstable();
        list.dedup();
        self.dirty.iter_mut().for_each(|d| *d = false);
        self.dirty_bits.iter_mut().for_each(|d| *d = 0);
        list
    }

    fn touch(&mut self, t: usize) {
        if let Some(d) = self.dirty.get_mut(t) {
            if !*d {
                *d = true;
                self.dirty_bits[t / 64] |= 1 << (t % 64);
                self.dirty_list.push(t as u32);
            }
        }
    }

    /// Puts one chunk of `u -> v` in a tick; `false` (table unchanged but
    /// for swapped colours) when STRICT1 finds no tick for it. Both ends
    /// must have a free tick (degree below the length).
    pub fn insert(&mut self, u: usize, v: usize) -> bool {
        if let Some(t) = self.common_free(u, v) {
            self.place(u, v, t);
            return true;
        }
        if self.strict {
            self.insert_by_strict1_path(u, v)
        } else {
            self.insert_by_bipartite_path(u, v)
        }
    }

    /// The schedule of the table: one round per tick (repeat 1, equal
    /// neighbours not merged, so round `t` is tick `t`), demand `index[u *
    /// n + v]` for each chunk of `u -> v`.
    pub fn schedule(&mut self, index: &[u32]) -> Schedule {
        self.log.clear();
        let rounds = (0..self.ticks)
            .map(|t| {
                let mut demands = Vec::new();
                self.tick_demands(t, index, &mut demands);
                Round { repeat: 1, demands }
            })
            .collect();
        Schedule::from_rounds(rounds)
    }

    /// [`TickTable::schedule`] from the schedule it gave before, whose
    /// rounds are the table's ticks then: the chunks put in and taken out
    /// since are applied to their rounds (each round keeps its order, the
    /// chunks put in go in order among them). A round that lacks a chunk
    /// taken out (not the schedule it gave) is emitted from the table.
    pub fn patch(&mut self, mut schedule: Schedule, index: &[u32]) -> Schedule {
        schedule.rounds.truncate(self.ticks);
        schedule.rounds.resize_with(self.ticks, || Round {
            repeat: 1,
            demands: Vec::new(),
        });
        let mut log = std::mem::take(&mut self.log);
        log.retain(|&(t, _, _)| (t as usize) < self.ticks);
        log.sort_unstable();
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < log.len() {
            let t = log[i].0;
            removed.clear();
            added.clear();
            while i < log.len() && log[i].0 == t {
                let (pair, mut net) = (log[i].1, 0);
                while i < log.len() && (log[i].0, log[i].1) == (t, pair) {
                    net += log[i].2;
                    i += 1;
                }
                match net {
                    1 => added.push(index[pair as usize]),
                    -1 => removed.push(index[pair as usize]),
                    _ => {}
                }
            }
            let round = &mut schedule.rounds[t as usize].demands;
            if !apply_changes(round, &mut removed, &mut added) {
                self.tick_demands(t as usize, index, round);
            }
        }
        self.log = log;
        self.log.clear();
        schedule
    }

    /// The demands sent in tick `t`, sorted, into `demands`.
    fn tick_demands(&self, t: usize, index: &[u32], demands: &mut Vec<u32>) {
        let n = self.n;
        demands.clear();
        for (u, &v) in self.out[t * n..(t + 1) * n].iter().enumerate() {
            if v != 0 {
                demands.push(index[u * n + v as usize - 1]);
            }
        }
        if demands.windows(2).any(|w| w[0] > w[1]) {
            demands.sort_unstable();
        }
    }

    /// READ1_WRITE1: `a` free at `u`'s send side, `b` at `v`'s receive
    /// side; the a/b path from `v` alternates receive and send sides and
    /// enters send sides by `a` edges, so it never reaches `u` (no `a`
    /// edge there). Swapping it frees `a` at `v`.
    fn insert_by_bipartite_path(&mut self, u: usize, v: usize) -> bool {
        let (Some(a), Some(b)) = (
            self.first_free(Side::Send, u),
            self.first_free(Side::Receive, v),
        ) else {
            return false;
        };
        let n = self.n;
        let mut path = Vec::new();
        let mut receiver = v;
        loop {
            if path.len() > 2 * n {
                return false; // a path is simple: unreachable
            }
            let sender = self.inp[a * n + receiver];
            if sender == 0 {
                break;
            }
            let sender = sender as usize - 1;
            path.push((sender, receiver, a, b));
            let next = self.out[b * n + sender];
            if next == 0 {
                break;
            }
            receiver = next as usize - 1;
            path.push((sender, receiver, b, a));
        }
        self.swap_path(&path);
        self.place(u, v, a);
        true
    }

    /// STRICT1: for `a` free at `u` and `b` free at `v`, the a/b path
    /// from `v`; unless it ends at `u`, swapping it frees `a` at `v`. Up to
    /// sixteen free ticks at each end are tried (with four, about one edit
    /// in 160 of a 256-rank k=4 walk found none and planned from scratch).
    fn insert_by_strict1_path(&mut self, u: usize, v: usize) -> bool {
        const TRIES: usize = 16;
        let free_u: Vec<usize> = self.free_ticks(Side::Send, u).take(TRIES).collect();
        let free_v: Vec<usize> = self.free_ticks(Side::Send, v).take(TRIES).collect();
        for &a in &free_u {
            for &b in &free_v {
                if let Some(path) = self.strict1_path(v, a, b, u) {
                    self.swap_path(&path);
                    self.place(u, v, a);
                    return true;
                }
            }
        }
        false
    }

    /// The a/b path of the STRICT1 conflict graph from `start` (which has
    /// an `a` edge and no `b` edge) as (sender, receiver, colour, swapped
    /// colour); `None` when it ends at `avoid`.
    fn strict1_path(
        &self,
        start: usize,
        a: usize,
        b: usize,
        avoid: usize,
    ) -> Option<Vec<(usize, usize, usize, usize)>> {
        let n = self.n;
        let mut path = Vec::new();
        let (mut x, mut c, mut other) = (start, a, b);
        while path.len() <= n {
            let (sender, receiver) = match (self.out[c * n + x], self.inp[c * n + x]) {
                (0, 0) => break,
                (p, 0) => (x, p as usize - 1),
                (_, p) => (p as usize - 1, x),
            };
            let next = if sender == x { receiver } else { sender };
            path.push((sender, receiver, c, other));
            x = next;
            std::mem::swap(&mut c, &mut other);
        }
        (x != avoid && path.len() <= n).then_some(path)
    }

    /// Moves every (sender, receiver, from, to) edge of a path from tick
    /// `from` to tick `to` (all taken out first: the ticks trade places).
    fn swap_path(&mut self, path: &[(usize, usize, usize, usize)]) {
        for &(s, r, from, _) in path {
            self.unplace(s, r, from);
        }
        for &(s, r, _, to) in path {
            self.place(s, r, to);
        }
    }

    fn place(&mut self, u: usize, v: usize, t: usize) {
        let n = self.n;
        debug_assert!(self.out[t * n + u] == 0 && self.inp[t * n + v] == 0);
        self.out[t * n + u] = v as u16 + 1;
        self.inp[t * n + v] = u as u16 + 1;
        self.mark(Side::Send, u, t, false);
        self.mark(Side::Receive, v, t, false);
        self.at[u * n + v].push(t as u32);
        self.count[u * n + v] += 1;
        self.touch(t);
        self.log.push((t as u32, (u * n + v) as u32, 1));
    }

    fn unplace(&mut self, u: usize, v: usize, t: usize) {
        let n = self.n;
        self.out[t * n + u] = 0;
        self.inp[t * n + v] = 0;
        self.mark(Side::Send, u, t, true);
        self.mark(Side::Receive, v, t, true);
        let ticks = &mut self.at[u * n + v];
        let i = ticks
            .iter()
            .position(|&x| x as usize == t)
            .expect("the chunk is in the table");
        ticks.swap_remove(i);
        self.count[u * n + v] -= 1;
        self.touch(t);
        self.log.push((t as u32, (u * n + v) as u32, -1));
    }

    fn bits(&self, side: Side, x: usize) -> &[u64] {
        let set = match side {
            Side::Receive if !self.strict => &self.free_receive,
            _ => &self.free_send,
        };
        &set[x * self.words..(x + 1) * self.words]
    }

    fn mark(&mut self, side: Side, x: usize, t: usize, free: bool) {
        let words = self.words;
        let set = match side {
            Side::Receive if !self.strict => &mut self.free_receive,
            _ => &mut self.free_send,
        };
        set_bit(&mut set[x * words..], t, free);
    }

    /// A tick free at both ends: the first one already changed in this
    /// edit, else the first one.
    fn common_free(&self, u: usize, v: usize) -> Option<usize> {
        let (a, b) = (self.bits(Side::Send, u), self.bits(Side::Receive, v));
        let first = |mask: &dyn Fn(usize) -> u64| {
            (0..self.words)
                .find(|&w| a[w] & b[w] & mask(w) != 0)
                .map(|w| w * 64 + (a[w] & b[w] & mask(w)).trailing_zeros() as usize)
        };
        first(&|w| self.dirty_bits[w]).or_else(|| first(&|_| u64::MAX))
    }

    fn first_free(&self, side: Side, x: usize) -> Option<usize> {
        self.free_ticks(side, x).next()
    }

    fn free_ticks(&self, side: Side, x: usize) -> impl Iterator<Item = usize> + '_ {
        self.bits(side, x)
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| BitIter(word).map(move |b| w * 64 + b))
    }

    /// Re-lays the bitsets with `words` words per slot side.
    fn widen(&mut self, words: usize) {
        let relay = |set: &Vec<u64>, old: usize| {
            let mut wide = vec![0u64; set.len() / old.max(1) * words];
            for (x, row) in set.chunks(old).enumerate() {
                wide[x * words..x * words + old].copy_from_slice(row);
            }
            wide
        };
        self.free_send = relay(&self.free_send, self.words);
        if !self.strict {
            self.free_receive = relay(&self.free_receive, self.words);
        }
        self.words = words;
    }
}

/// `round` without the demands `removed` and with those `added` (both
/// sorted here), in `round`'s order with each added demand before the
/// first larger one; `false` (and `round` as it was) when a removed demand
/// is not in it.
fn apply_changes(round: &mut Vec<u32>, removed: &mut [u32], added: &mut [u32]) -> bool {
    removed.sort_unstable();
    added.sort_unstable();
    let mut out = Vec::with_capacity(round.len() + added.len());
    let (mut r, mut a) = (0, 0);
    for &d in round.iter() {
        if removed.get(r) == Some(&d) {
            r += 1;
            continue;
        }
        while a < added.len() && added[a] < d {
            out.push(added[a]);
            a += 1;
        }
        out.push(d);
    }
    if r < removed.len() {
        return false;
    }
    out.extend_from_slice(&added[a..]);
    *round = out;
    true
}

fn set_bit(row: &mut [u64], t: usize, on: bool) {
    if on {
        row[t / 64] |= 1 << (t % 64);
    } else {
        row[t / 64] &= !(1 << (t % 64));
    }
}

/// The set bits of a word, lowest first.
struct BitIter(u64);

impl Iterator for BitIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let b = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            b
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ordered pair of `n` slots once, as a table's pair index.
    fn all_pairs(n: usize) -> (Vec<(u32, u32)>, Vec<u32>) {
        let mut ends = Vec::new();
        let mut index = vec![u32::MAX; n * n];
        for u in 0..n {
            for v in (0..n).filter(|&v| v != u) {
                index[u * n + v] = ends.len() as u32;
                ends.push((u as u32, v as u32));
            }
        }
        (ends, index)
    }

    #[test]
    fn a_patched_schedule_is_the_table_emitted_again() {
        for strict in [false, true] {
            let n = 6;
            let (ends, index) = all_pairs(n);
            let mut table = TickTable::new(n, strict, 0);
            let delta = if strict { 2 * (n - 1) } else { n - 1 };
            table.resize(delta + 1);
            for &(u, v) in &ends {
                assert!(table.insert(u as usize, v as usize));
            }
            table.take_dirty();
            let mut kept = table.schedule(&index);
            // Edits: chunks out, in again elsewhere, a longer table, and
            // chunks of other pairs.
            for step in 0..5usize {
                for (i, &(u, v)) in ends.iter().enumerate() {
                    if (i + step) % 3 == 0 && table.chunks(u as usize, v as usize) > 0 {
                        table.remove(u as usize, v as usize);
                    }
                }
                let evicted = table.resize(delta + 1 + step);
                for (u, v) in evicted {
                    assert!(table.insert(u, v));
                }
                for (i, &(u, v)) in ends.iter().enumerate() {
                    if (i + step) % 4 == 0 && (i + step) % 3 != 0 {
                        table.insert(u as usize, v as usize);
                    }
                }
                table.take_dirty();
                let patched = table.patch(kept.clone(), &index);
                let emitted = table.clone().schedule(&index);
                let sorted = |s: &Schedule| -> Vec<Vec<u32>> {
                    s.rounds
                        .iter()
                        .map(|r| {
                            let mut d = r.demands.clone();
                            d.sort_unstable();
                            d
                        })
                        .collect()
                };
                assert_eq!(
                    sorted(&patched),
                    sorted(&emitted),
                    "strict={strict} step={step}"
                );
                kept = patched;
            }
        }
    }

    #[test]
    fn changes_apply_in_order_and_a_missing_chunk_is_refused() {
        let mut round = vec![2, 5, 9];
        assert!(apply_changes(&mut round, &mut [5], &mut [11, 0, 6]));
        assert_eq!(round, [0, 2, 6, 9, 11]);
        assert!(!apply_changes(&mut round, &mut [7], &mut [1]));
        assert_eq!(round, [0, 2, 6, 9, 11]);
    }
}
