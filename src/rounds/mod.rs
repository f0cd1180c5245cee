//! The compact schedule the engine works in, and its expansion.
//!
//! A [`Schedule`] is a list of [`Round`]s; a round is a set of demand
//! indices (one chunk of each per tick) repeated `repeat` ticks. Memory is
//! bounded by the number of rounds, not ticks. [`Expansion`] turns it into
//! per-tick chunks lazily (every chunk `bw` bits, each demand's last chunk
//! the remainder), which is what the writers stream from.
//!
//! Data only: the validator ([`crate::validate`]) checks a schedule, and
//! [`crate::schedule`] (which re-exports these types) writes and reads it.

mod expand;

pub use expand::{Chunk, Expansion};

use serde::{Deserialize, Serialize};

/// Demands sent together for `repeat` consecutive ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Number of consecutive ticks (>= 1).
    pub repeat: u64,
    /// Indices into [`Instance::demands`](crate::instance::Instance::demands), sorted.
    pub demands: Vec<u32>,
}

/// A compact schedule: rounds in tick order.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Schedule {
    pub rounds: Vec<Round>,
}

impl Schedule {
    pub fn new() -> Self {
        Schedule::default()
    }

    /// Appends a round, merging it into the last one when the demand sets
    /// are equal (unless the merged repeat would overflow u64: then it stays
    /// a round of its own). Empty rounds and zero repeats are ignored.
    /// `demands` need not be sorted.
    pub fn push(&mut self, repeat: u64, mut demands: Vec<u32>) {
        if repeat == 0 || demands.is_empty() {
            return;
        }
        if demands.windows(2).any(|w| w[0] > w[1]) {
            demands.sort_unstable();
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

    /// Total ticks, or `None` when the sum of repeats overflows u64.
    pub fn checked_ticks(&self) -> Option<u64> {
        self.rounds
            .iter()
            .try_fold(0u64, |a, r| a.checked_add(r.repeat))
    }

    /// Number of rounds.
    pub fn len(&self) -> usize {
        self.rounds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rounds.is_empty()
    }
}
