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
//! step is one look-up, `pair[h]`.

use super::{Splitter, NONE};

/// Half of a single copy before its trail reaches it.
pub(super) const UNUSED: u8 = 0;
/// The first half.
pub(super) const FIRST: u8 = 1;
/// The second half.
pub(super) const SECOND: u8 = 2;

impl Splitter {
    /// Pairs the single copies with right ends `rights` (listed by left
    /// vertex) in order at each right vertex, into `self.pair`.
    pub(super) fn pair_by_right(&mut self, rights: impl Iterator<Item = u32>) {
        self.pair.clear();
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
    }

    /// Walks the trails of `self.pair` (right link, then left link `^ 1`),
    /// alternating halves, into `self.half`.
    pub(super) fn walk_trails(&mut self) {
        let len = self.pair.len();
        self.half.clear();
        self.half.resize(len, UNUSED);
        for start in (0..len as u32).step_by(2) {
            if self.half[start as usize] != UNUSED {
                continue;
            }
            let mut h = start;
            loop {
                self.half[h as usize] = FIRST;
                let t = self.pair[h as usize];
                self.half[t as usize] = SECOND;
                h = t ^ 1;
                if h == start {
                    break;
                }
            }
        }
    }
}
