//! The Euler partition behind every split: the single copies of a regular
//! multigraph of even degree, listed by left vertex, are paired as
//! neighbours `(2i, 2i + 1)` at their left vertex and in order at their
//! right vertex (every such degree is even). Both pairings together chain
//! the copies into closed trails that alternate a left and a right link;
//! walking each trail and alternating halves puts the two copies of every
//! pair in different halves, so each vertex gives as many copies to one
//! half as to the other (Gabow 1976; bipartite trails have even length).
//!
//! Listing by left vertex makes the left link implicit (`h ^ 1`): a trail
//! step is one look-up, `pair[h]`. The halves are kept in the same array
//! (the top bit of `pair[h]` marks the copies of the first half), so a step
//! touches one cache line: the walks are latency-bound at the top levels,
//! where the array is far larger than the caches.

use super::{Splitter, NONE};

/// Top bit of a `pair` entry: the copy is in the first half. Positions are
/// below 2^31 (the callers' bound), so it is free.
const FIRST_HALF: u32 = 1 << 31;

impl Splitter {
    /// Pairs the single copies with right ends `rights` (listed by left
    /// vertex) in order at each right vertex, into `self.pair`.
    pub(super) fn pair_by_right(&mut self, rights: impl Iterator<Item = u32>) {
        self.pair.clear();
        self.pair.reserve(rights.size_hint().0);
        for (h, r) in rights.enumerate() {
            let h = h as u32;
            let pend = &mut self.pend_r[r as usize];
            if *pend == NONE {
                *pend = h;
                self.pair.push(NONE);
            } else {
                self.pair.push(*pend);
                self.pair[*pend as usize] = h;
                *pend = NONE;
            }
        }
        debug_assert!(self.pend_r.iter().all(|&p| p == NONE));
        debug_assert!(self.pair.len() < FIRST_HALF as usize);
    }

    /// Walks the trails of `self.pair` (right link, then left link `^ 1`),
    /// alternating halves: a copy reached by its left link (or a trail's
    /// start) goes to the first half, its right partner to the second, so
    /// the two copies of every left pair `(2i, 2i + 1)` are in different
    /// halves and exactly one of them is marked. Read with [`Self::second_half`].
    pub(super) fn walk_trails(&mut self) {
        let pair = &mut self.pair;
        for start in (0..pair.len()).step_by(2) {
            if (pair[start] | pair[start + 1]) & FIRST_HALF != 0 {
                continue;
            }
            let mut h = start;
            loop {
                let t = pair[h];
                pair[h] = t | FIRST_HALF;
                h = (t ^ 1) as usize;
                if h == start {
                    break;
                }
            }
        }
    }

    /// Whether the single copy `h` went to the second half (after
    /// [`Self::walk_trails`]).
    pub(super) fn second_half(&self, h: usize) -> bool {
        self.pair[h] & FIRST_HALF == 0
    }
}
