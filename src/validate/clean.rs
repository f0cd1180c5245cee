//! The fast path of [`validate_compact`](super::validate_compact): which
//! rounds of a compact schedule are plainly valid ticks, and the chunks
//! they send per demand, on all threads.
//!
//! A round is *clean* when its repeat is non-zero, every index names a
//! demand, and no slot takes part in more transfers than its ports allow
//! under the model (STRICT1: `ports(v)` in all; READ1_WRITE1: `ports(v)`
//! sends and `ports(v)` receives). That is exactly the condition under
//! which [`TickValidator::push_tick`](super::TickValidator::push_tick)
//! finds no error on the round's first tick with unit lengths (the
//! instance guarantees `src != dst`, slots in range and every bandwidth
//! `>= 1`), so a clean round needs no further check and only its coverage
//! counts; every other round takes the general path, which words the
//! errors. The check is O(entries) over flat arrays: a per-slot stamp (the
//! round that last used the slot) and count, never cleared, and a 4-byte
//! table of demand ends.
//!
//! With several ports a demand may be in one round several times, so its
//! chunk count may pass the tick count; when the ticks times the largest
//! port count could pass `u64`, no round is clean and the general path
//! counts (and reports the overflow) as before.

use crate::instance::{Demand, Instance, Model};
use crate::rounds::Round;
use rayon::prelude::*;

pub(super) mod one_port;

/// Which rounds are clean (among those before the tick count overflows)
/// and the chunks they send per demand. Sums commute, so the result does
/// not depend on the threads.
pub(super) fn clean_rounds(inst: &Instance, rounds: &[Round]) -> (Vec<bool>, Vec<u64>) {
    let demands = inst.demands().len();
    let mut counted = rounds.len();
    let mut ticks: u64 = 0;
    for (ri, round) in rounds.iter().enumerate() {
        match ticks.checked_add(round.repeat) {
            Some(t) => ticks = t,
            None => {
                counted = ri;
                break;
            }
        }
    }
    let ports: Vec<u32> = (0..inst.slots as usize).map(|v| inst.port(v)).collect();
    let most_ports = ports.iter().copied().max().unwrap_or(1);
    if ticks.checked_mul(u64::from(most_ports)).is_none() {
        return (vec![false; rounds.len()], vec![0; demands]);
    }
    let ends = Ends::new(inst);
    let entries: usize = rounds[..counted].iter().map(|r| r.demands.len()).sum();
    if let (1, Ends::Packed(packed), true) = (most_ports, &ends, ticks <= u64::from(u32::MAX)) {
        return one_port::clean_rounds(inst, packed, rounds, counted, entries);
    }
    let mut clean = vec![false; rounds.len()];
    if entries < SEQUENTIAL_ENTRIES {
        // Small schedules (a plan per step at a few ranks): handing work to
        // the thread pool costs more than the check.
        let mut fast = CleanRound::new(inst.model, &ports);
        let mut sent = vec![0u64; demands];
        for (ri, (is_clean, round)) in clean[..counted].iter_mut().zip(rounds).enumerate() {
            *is_clean = round.repeat > 0 && fast.is_clean(&ends, ri, &round.demands);
            if *is_clean {
                for &di in &round.demands {
                    sent[di as usize] += round.repeat;
                }
            }
        }
        return (clean, sent);
    }
    clean[..counted]
        .par_iter_mut()
        .zip(&rounds[..counted])
        .enumerate()
        .with_min_len(16)
        .for_each_init(
            || CleanRound::new(inst.model, &ports),
            |fast, (ri, (is_clean, round))| {
                *is_clean = round.repeat > 0 && fast.is_clean(&ends, ri, &round.demands);
            },
        );
    // Chunks per demand, by ranges of demands on the threads (plain adds:
    // an atomic add per chunk would serialise the cache misses; skipping
    // to each range's part of a sorted round by binary search was slower,
    // the searches miss the caches).
    let ranges = rayon::current_num_threads().clamp(1, SENT_RANGES_MAX);
    let width = demands.div_ceil(ranges).max(1);
    let mut sent = vec![0u64; demands];
    sent.par_chunks_mut(width)
        .enumerate()
        .for_each(|(k, part)| {
            let from = k * width;
            for (round, _) in rounds[..counted].iter().zip(&clean).filter(|(_, &c)| c) {
                for &di in &round.demands {
                    if let Some(s) = (di as usize)
                        .checked_sub(from)
                        .and_then(|i| part.get_mut(i))
                    {
                        *s += round.repeat;
                    }
                }
            }
        });
    (clean, sent)
}

/// Entries below which [`clean_rounds`] stays on the calling thread.
pub(super) const SEQUENTIAL_ENTRIES: usize = 1 << 16;

/// Most demand ranges [`clean_rounds`] counts on (each scans every clean
/// round).
const SENT_RANGES_MAX: usize = 8;

/// The (src, dst) of each demand, packed in 4 bytes when slot ids fit in
/// 16 bits: the fast check looks one up per entry of a round, at random,
/// and a quarter of the demands' size keeps more of them in the caches.
pub(super) enum Ends<'a> {
    Packed(Vec<u32>),
    Demands(&'a [Demand]),
}

/// Demand `d`'s ends packed as `src << 16 | dst` (slot ids below 2^16:
/// [`ENDS_PACK`]), as [`one_port::Sides`] reads them.
pub(super) fn packed_ends(d: &Demand) -> u32 {
    d.src << 16 | d.dst
}

/// Slot counts whose ids [`packed_ends`] holds.
pub(super) const ENDS_PACK: u32 = 1 << 16;

impl<'a> Ends<'a> {
    pub(super) fn new(inst: &'a Instance) -> Self {
        if inst.slots <= ENDS_PACK {
            Ends::Packed(inst.demands().iter().map(packed_ends).collect())
        } else {
            Ends::Demands(inst.demands())
        }
    }

    fn get(&self, i: usize) -> Option<(u32, u32)> {
        match self {
            Ends::Packed(p) => p.get(i).map(|&e| (e >> 16, e & 0xffff)),
            Ends::Demands(d) => d.get(i).map(|d| (d.src, d.dst)),
        }
    }
}

/// One slot side's use in the round stamped `stamp`: `count` transfers.
#[derive(Clone, Copy, Default)]
struct Use {
    stamp: usize,
    count: u32,
}

/// The fast check, one per thread: per-slot uses, stamped by round.
struct CleanRound<'p> {
    model: Model,
    /// Ports of each slot.
    ports: &'p [u32],
    /// Sends of each slot (STRICT1: all its transfers).
    src: Vec<Use>,
    /// Receives of each slot (READ1_WRITE1).
    dst: Vec<Use>,
    /// The round's demand ends, gathered before they are checked.
    ends: Vec<(u32, u32)>,
}

impl<'p> CleanRound<'p> {
    fn new(model: Model, ports: &'p [u32]) -> Self {
        CleanRound {
            model,
            ports,
            src: vec![Use::default(); ports.len()],
            dst: vec![Use::default(); ports.len()],
            ends: Vec::new(),
        }
    }

    /// Whether round `ri` with `demands` is certainly a valid tick: every
    /// index names a demand, and no slot side is used more often than its
    /// ports allow. O(entries): stamps are never cleared.
    fn is_clean(&mut self, ends: &Ends, ri: usize, demands: &[u32]) -> bool {
        // The look-ups first, in a loop of loads only: their cache misses
        // overlap (interleaved with the checks, they did not).
        self.ends.clear();
        for &di in demands {
            match ends.get(di as usize) {
                Some(e) => self.ends.push(e),
                None => return false,
            }
        }
        let stamp = ri + 1;
        let n = self.ports.len();
        for &(s, t) in &self.ends {
            let (s, t) = (s as usize, t as usize);
            if s == t || s >= n || t >= n {
                return false;
            }
            let dst = match self.model {
                Model::Read1Write1 => &mut self.dst,
                Model::Strict1 => &mut self.src,
            };
            if !take(&mut dst[t], self.ports[t], stamp)
                || !take(&mut self.src[s], self.ports[s], stamp)
            {
                return false;
            }
        }
        true
    }
}

/// Counts one more transfer on a slot side with `ports` in round `stamp`;
/// false when its ports are already taken.
fn take(u: &mut Use, ports: u32, stamp: usize) -> bool {
    if u.stamp != stamp {
        *u = Use { stamp, count: 0 };
    }
    if u.count >= ports {
        return false;
    }
    u.count += 1;
    true
}
