//! The compact schedule the engine works in, and its expansion.
//!
//! A [`Schedule`] is a list of [`Round`]s; a round is a set of demand
//! indices (one chunk of each per tick) repeated `repeat` ticks. Memory is
//! bounded by the number of rounds, not ticks. [`Expansion`] turns it into
//! per-tick chunks lazily (every chunk `bw` bits, each demand's last chunk
//! the remainder), which is what the writers stream from.
//!
//! A schedule may also hold [`ClassRounds`] (DESIGN.md §13, issue 39):
//! rounds stored once for a class of equal components, with each member's
//! map from the class's demands to its own. Every class and the plain
//! rounds start at tick 0 and run side by side (members share no slot), so
//! the schedule lasts as long as its longest part. [`Schedule::flat`]
//! lays every class over its members and zips the parts into ordinary
//! rounds, for the consumers that need every transfer spelled out
//! (lowering, executors, the expanded writers); the validator and the
//! compact writer read the classes as they are.
//!
//! Data only: the validator ([`crate::validate`]) checks a schedule, and
//! [`crate::schedule`] (which re-exports these types) writes and reads it.

mod expand;
mod zip;

pub use expand::{Chunk, Expansion};
pub use zip::zip_rounds;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Demands sent together for `repeat` consecutive ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Number of consecutive ticks (>= 1).
    pub repeat: u64,
    /// Indices into [`Instance::demands`](crate::instance::Instance::demands), sorted.
    pub demands: Vec<u32>,
}

/// Rounds stored once for a class of equal components (module docs).
///
/// The class's *pattern* is its demands `0..q`; a round lists pattern
/// indices, and member `m` sends instance demand `members[m][j]` for
/// pattern demand `j`. Member 0 is the representative. What makes this a
/// schedule (each member a relabelling of the representative by a slot
/// map that is one to one, members sharing no slot, equal chunk counts)
/// is the validator's to check ([`crate::validate::validate_compact`]),
/// not this type's.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClassRounds {
    /// Rounds over the pattern's demands, in tick order from tick 0.
    pub rounds: Vec<Round>,
    /// Per member, the instance demand of each pattern demand.
    pub members: Vec<Vec<u32>>,
}

impl ClassRounds {
    /// The class's ticks: the sum of its repeats, or `None` on overflow.
    pub fn checked_ticks(&self) -> Option<u64> {
        sum_repeats(&self.rounds)
    }

    /// The class's rounds with every member's demands in each (the
    /// ordinary rounds it stands for).
    pub fn laid_over(&self) -> Vec<(u64, Vec<u32>)> {
        self.rounds
            .iter()
            .map(|r| {
                let mut demands = Vec::with_capacity(r.demands.len() * self.members.len());
                for map in &self.members {
                    demands.extend(r.demands.iter().filter_map(|&j| map.get(j as usize)));
                }
                (r.repeat, demands)
            })
            .collect()
    }
}

/// A compact schedule: rounds in tick order, and classes' rounds beside
/// them (module docs).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Schedule {
    /// Ordinary rounds, from tick 0.
    pub rounds: Vec<Round>,
    /// Classes of equal components, each from tick 0 beside the rounds
    /// (empty for every schedule but a solve's that asked to keep them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassRounds>,
}

/// The sum of the repeats of `rounds`, or `None` on overflow.
fn sum_repeats(rounds: &[Round]) -> Option<u64> {
    rounds.iter().try_fold(0u64, |a, r| a.checked_add(r.repeat))
}

impl Schedule {
    pub fn new() -> Self {
        Schedule::default()
    }

    /// A schedule of ordinary rounds only.
    pub fn from_rounds(rounds: Vec<Round>) -> Self {
        Schedule {
            rounds,
            classes: Vec::new(),
        }
    }

    /// This schedule with its classes laid over their members and zipped
    /// with the rounds into ordinary rounds (borrowed when it has no
    /// classes). O(the expanded rounds' entries): for consumers that need
    /// every transfer; checking and writing the compact form do not.
    pub fn flat(&self) -> Cow<'_, Schedule> {
        if self.classes.is_empty() {
            return Cow::Borrowed(self);
        }
        let mut parts = Vec::with_capacity(self.classes.len() + 1);
        parts.push(
            self.rounds
                .iter()
                .map(|r| (r.repeat, r.demands.clone()))
                .collect(),
        );
        parts.extend(self.classes.iter().map(ClassRounds::laid_over));
        // (A round repeated 0 times, which the validator refuses, would
        // end its part early in the zip: left out.)
        for part in &mut parts {
            part.retain(|r: &(u64, Vec<u32>)| r.0 > 0);
        }
        let mut flat = Schedule::new();
        for (repeat, demands) in zip_rounds(parts) {
            if demands.is_empty() {
                // Empty ticks are ticks: kept, where `push` drops them.
                flat.rounds.push(Round { repeat, demands });
            } else {
                flat.push(repeat, demands);
            }
        }
        Cow::Owned(flat)
    }

    /// Appends a round, merging it into the last one when the demand sets
    /// are equal (unless the merged repeat would overflow u64: then it stays
    /// a round of its own). Empty rounds and zero repeats are ignored.
    /// `demands` need not be sorted.
    pub fn push(&mut self, repeat: u64, mut demands: Vec<u32>) {
        if repeat == 0 || demands.is_empty() {
            return;
        }
        // Without an early exit, so that the compiler compares many
        // neighbours at once (most lists come sorted and are read whole).
        if demands
            .windows(2)
            .fold(false, |unsorted, w| unsorted | (w[0] > w[1]))
        {
            sort_ids(&mut demands);
        }
        if let Some(last) = self.rounds.last_mut() {
            if last.demands == demands {
                if let Some(r) = last.repeat.checked_add(repeat) {
                    last.repeat = r;
                    return;
                }
            }
        }
        self.rounds.push(Round { repeat, demands });
    }

    /// Appends every round of `other`.
    pub fn extend(&mut self, other: Schedule) {
        for r in other.rounds {
            self.push(r.repeat, r.demands);
        }
    }

    /// Total ticks: the sum of repeats, saturating at `u64::MAX`. Exact for
    /// every schedule that passes [`validate_compact`](crate::validate::validate_compact)
    /// (which refuses a sum that overflows); see [`Schedule::checked_ticks`].
    pub fn ticks(&self) -> u64 {
        self.checked_ticks().unwrap_or(u64::MAX)
    }

    /// Total ticks, or `None` when a sum of repeats overflows u64: the
    /// rounds' and every class's run side by side from tick 0, so the
    /// longest of them.
    pub fn checked_ticks(&self) -> Option<u64> {
        let mut ticks = sum_repeats(&self.rounds)?;
        for class in &self.classes {
            ticks = ticks.max(class.checked_ticks()?);
        }
        Some(ticks)
    }

    /// Number of rounds stored: the ordinary ones and every class's.
    pub fn len(&self) -> usize {
        self.rounds.len() + self.classes.iter().map(|c| c.rounds.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Lists at least this long are sorted by [`sort_ids`]'s radix passes.
const RADIX_MIN_IDS: usize = 256;

/// Sorts a round's ids, as `sort_unstable` does: long lists (a round of
/// thousands of transfers, mapped from pools in slot order) by a radix
/// sort, one stable counting pass per byte the largest id needs, which
/// does not branch on the ids; short ones by `sort_unstable`.
fn sort_ids(ids: &mut Vec<u32>) {
    if ids.len() < RADIX_MIN_IDS {
        ids.sort_unstable();
        return;
    }
    let top = ids.iter().copied().max().unwrap_or(0);
    let mut from = std::mem::take(ids);
    let mut to = vec![0u32; from.len()];
    let mut shift = 0;
    while shift < 32 && (shift == 0 || top >> shift != 0) {
        let mut start = [0usize; 257];
        for &id in &from {
            start[((id >> shift) & 0xff) as usize + 1] += 1;
        }
        for b in 0..256 {
            start[b + 1] += start[b];
        }
        for &id in &from {
            let at = &mut start[((id >> shift) & 0xff) as usize];
            to[*at] = id;
            *at += 1;
        }
        std::mem::swap(&mut from, &mut to);
        shift += 8;
    }
    *ids = from;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::rng::SplitMix64;

    /// The radix passes sort as `sort_unstable` does, whatever the length
    /// and the largest id (one byte to four, repeats included).
    #[test]
    fn sort_ids_sorts_as_sort_unstable() {
        let mut rng = SplitMix64::new(7, 1);
        for len in [0, 1, 2, 255, 256, 257, 1000, 4096] {
            for top in [1u64, 255, 256, 70_000, 4_194_304, u64::from(u32::MAX) + 1] {
                let mut ids: Vec<u32> = (0..len).map(|_| rng.below(top) as u32).collect();
                let mut want = ids.clone();
                want.sort_unstable();
                sort_ids(&mut ids);
                assert_eq!(ids, want, "len {len}, ids below {top}");
            }
        }
    }
}
