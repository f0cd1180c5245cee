//! [`clean_rounds`](super::clean_rounds) when every slot has one port and
//! slot ids fit in 16 bits (the planner's matrices, DESIGN §13): a round
//! is clean when no slot side appears in it twice, so a stamp per slot
//! side (the round that last used it) is the whole check, and a clean
//! round's chunks are counted in the same pass while its demands are still
//! in the cache. Long schedules are cut into consecutive parts of about
//! equal entries, one per thread, each with its own stamps and counts; the
//! counts add up at the end (sums commute: the result does not depend on
//! the threads). A part keeps each demand's packed ends and its count side
//! by side, so an entry reads one place in memory, not two (counts are
//! `u32` there: the caller comes here only when the ticks fit `u32`).

use super::{Round, SEQUENTIAL_ENTRIES};
use crate::instance::{Instance, Model};
use rayon::prelude::*;

/// Which of the first `counted` rounds are clean and the chunks they send
/// per demand; `packed` holds each demand's ends as `src << 16 | dst`.
pub(super) fn clean_rounds(
    inst: &Instance,
    packed: &[u32],
    rounds: &[Round],
    counted: usize,
    entries: usize,
) -> (Vec<bool>, Vec<u64>) {
    let threads = rayon::current_num_threads();
    // A part's counts cost a pass over all demands: parts only pay when
    // the entries outnumber the demands times the parts.
    let parts = if entries < SEQUENTIAL_ENTRIES || packed.len().saturating_mul(threads) > entries {
        1
    } else {
        threads
    };
    let (mut clean, sent) = clean_rounds_in_parts(inst, packed, &rounds[..counted], entries, parts);
    clean.resize(rounds.len(), false);
    (clean, sent)
}

/// [`clean_rounds`] of all `rounds` (`entries` in all) cut into `parts`.
fn clean_rounds_in_parts(
    inst: &Instance,
    packed: &[u32],
    rounds: &[Round],
    entries: usize,
    parts: usize,
) -> (Vec<bool>, Vec<u64>) {
    let sides = Sides::new(inst);
    if parts == 1 {
        // On the calling thread: waking the pool costs more than a small
        // schedule's check.
        return sides.check(packed, rounds, 0..rounds.len());
    }
    let cuts = cuts(rounds, entries, parts);
    let results: Vec<(Vec<bool>, Vec<u64>)> = cuts
        .par_windows(2)
        .map(|w| sides.clone().check(packed, rounds, w[0]..w[1]))
        .collect();
    let mut results = results.into_iter();
    let (mut clean, mut sent) = results.next().expect("cuts give one part at least");
    for (part_clean, part_sent) in results {
        clean.extend(part_clean);
        sent.iter_mut().zip(part_sent).for_each(|(s, p)| *s += p);
    }
    (clean, sent)
}

/// A demand's packed ends and the chunks the clean rounds of a part send
/// it.
#[derive(Clone, Copy)]
struct Cell {
    ends: u32,
    sent: u32,
}

/// Round indices cutting `rounds` into `parts` runs of about equal entries
/// (first 0, last `rounds.len()`).
fn cuts(rounds: &[Round], entries: usize, parts: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut seen = 0usize;
    for (ri, round) in rounds.iter().enumerate() {
        seen += round.demands.len();
        if cuts.len() < parts && seen * parts >= entries * cuts.len() {
            cuts.push(ri + 1);
        }
    }
    cuts.push(rounds.len());
    cuts.dedup();
    if cuts.len() == 1 {
        cuts.push(0);
    }
    cuts
}

/// Per slot side, the last round (index + 1) that used it; READ1_WRITE1's
/// receive sides follow the send sides at `receive_offset`, STRICT1's
/// transfers use one side per slot.
#[derive(Clone)]
pub(in crate::validate) struct Sides {
    stamp: Vec<usize>,
    receive_offset: usize,
}

impl Sides {
    pub(in crate::validate) fn new(inst: &Instance) -> Sides {
        let n = inst.slots as usize;
        let (sides, receive_offset) = match inst.model {
            Model::Strict1 => (n, 0),
            Model::Read1Write1 => (2 * n, n),
        };
        Sides {
            stamp: vec![0; sides],
            receive_offset,
        }
    }

    /// Which rounds of `range` are clean, and their chunks per demand (the
    /// rounds' ticks fit `u32`).
    fn check(
        mut self,
        packed: &[u32],
        rounds: &[Round],
        range: std::ops::Range<usize>,
    ) -> (Vec<bool>, Vec<u64>) {
        let mut clean = vec![false; range.len()];
        let mut cells: Vec<Cell> = packed.iter().map(|&ends| Cell { ends, sent: 0 }).collect();
        for (is_clean, ri) in clean.iter_mut().zip(range) {
            let round = &rounds[ri];
            let ends = |di: usize| cells.get(di).map(|c| c.ends);
            *is_clean = round.repeat > 0 && self.is_clean_by(ends, ri + 1, &round.demands);
            if *is_clean {
                // Within u32: the clean rounds' repeats add up to at most
                // the ticks.
                let repeat = round.repeat as u32;
                for &di in &round.demands {
                    cells[di as usize].sent += repeat;
                }
            }
        }
        (clean, cells.iter().map(|c| u64::from(c.sent)).collect())
    }

    /// Whether every index names a demand and no slot side is used twice
    /// (`stamp`: one number per round, never 0, never used again).
    pub(in crate::validate) fn is_clean(
        &mut self,
        packed: &[u32],
        stamp: usize,
        demands: &[u32],
    ) -> bool {
        self.is_clean_by(|di| packed.get(di).copied(), stamp, demands)
    }

    /// [`Sides::is_clean`] with each demand's packed ends from `ends`
    /// (`None`: no such demand).
    fn is_clean_by(
        &mut self,
        ends: impl Fn(usize) -> Option<u32>,
        stamp: usize,
        demands: &[u32],
    ) -> bool {
        for &di in demands {
            let Some(e) = ends(di as usize) else {
                return false;
            };
            let (s, t) = (
                (e >> 16) as usize,
                self.receive_offset + (e & 0xffff) as usize,
            );
            if s == t || self.stamp[s] == stamp || self.stamp[t] == stamp {
                return false;
            }
            self.stamp[s] = stamp;
            self.stamp[t] = stamp;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::skew::test_instance;

    /// Rounds taking, in index order, each demand with chunks left whose
    /// slots are still free in the round (valid ticks under STRICT1).
    fn greedy_rounds(inst: &Instance) -> Vec<Round> {
        let mut left: Vec<u64> = inst.chunk_counts().to_vec();
        let mut rounds = Vec::new();
        while left.iter().any(|&c| c > 0) {
            let mut busy = vec![false; inst.slots as usize];
            let mut demands = Vec::new();
            for (i, d) in inst.demands().iter().enumerate() {
                let (s, t) = (d.src as usize, d.dst as usize);
                if left[i] > 0 && !busy[s] && !busy[t] {
                    (busy[s], busy[t], left[i]) = (true, true, left[i] - 1);
                    demands.push(i as u32);
                }
            }
            rounds.push(Round { repeat: 1, demands });
        }
        rounds
    }

    /// Cut into parts, the check finds the same clean rounds and counts as
    /// in one pass, on a valid schedule and on one with conflicting rounds.
    #[test]
    fn parts_agree_with_one_pass() {
        for model in [Model::Read1Write1, Model::Strict1] {
            let inst = test_instance(model, 24, 2, 7);
            let mut rounds = greedy_rounds(&inst);
            // Doctor every third round: a demand twice, an index out of range.
            for (i, r) in rounds.iter_mut().enumerate() {
                match i % 3 {
                    1 => r.demands.push(r.demands[0]),
                    2 => r.demands.push(inst.demands().len() as u32),
                    _ => {}
                }
            }
            let packed: Vec<u32> = inst.demands().iter().map(|d| d.src << 16 | d.dst).collect();
            let entries = rounds.iter().map(|r| r.demands.len()).sum();
            let one = clean_rounds_in_parts(&inst, &packed, &rounds, entries, 1);
            assert!(one.0.iter().any(|&c| c) && one.0.iter().any(|&c| !c));
            // The counts are the clean rounds' demands, counted plainly.
            let mut sent = vec![0u64; packed.len()];
            for (r, _) in rounds.iter().zip(&one.0).filter(|(_, &c)| c) {
                r.demands.iter().for_each(|&d| sent[d as usize] += r.repeat);
            }
            assert_eq!(one.1, sent);
            for parts in [2, 3, 7] {
                assert_eq!(
                    clean_rounds_in_parts(&inst, &packed, &rounds, entries, parts),
                    one
                );
            }
        }
    }
}
