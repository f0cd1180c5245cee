//! Validating a schedule made by editing a valid one (a plan per step,
//! DESIGN.md §13): work in the rounds that changed, not in the schedule.
//!
//! Premise: `prev` is a valid schedule of an instance whose [`Frame`] (slots,
//! model, demand ends, chunk counts) the caller passes; this module builds
//! frames and keeps them up to date, the caller only holds one. Then `next`
//! is a valid schedule of `inst` when
//! - `inst` has the frame's slots, model and demand ends (demand `i` is the
//!   same ordered pair in both) and one port per slot, so a round that is
//!   a valid tick in one is one in the other;
//! - every round of `next` that differs from `prev`'s round at the same
//!   index (or has none there) is *clean* (the fast path's check of
//!   [`super::validate_compact`]: indices name demands, no slot side used
//!   twice); the rounds equal to `prev`'s were valid ticks already;
//! - each demand's chunks — the frame's count (which `prev` sent exactly),
//!   minus what `prev`'s differing rounds sent, plus what `next`'s send —
//!   equal its count in `inst`, which makes its bits exactly `inst`'s
//!   (chunks of a demand carry its bits in order);
//! - the ticks add up without overflow.
//!
//! Equal rounds are found by comparing them (memory speed), so nothing is
//! taken on the caller's word but the premise. Where two differing rounds
//! at one index repeat alike, they are merged as sorted lists (equal
//! demands met cancel), so on sorted rounds only the demands in one and
//! not the other change a count; the counts are compared as slices
//! between the demands that changed. When any condition fails, or the
//! premise cannot be used, the full [`super::validate_compact`] runs and
//! words the errors: the verdict is always the full validator's.

use super::clean::one_port::Sides;
use super::clean::{packed_ends, ENDS_PACK};
use super::{validate_compact, Report, Verdict};
use crate::instance::{Instance, Model};
use crate::rounds::{Round, Schedule};

/// What an edited schedule is checked against: the slots, model, demand
/// ends (packed `src << 16 | dst`) and chunk counts of the instance the
/// previous schedule was validated for (module docs).
#[derive(Clone, Debug)]
pub struct Frame {
    slots: u32,
    model: Model,
    packed: Vec<u32>,
    counts: Vec<u64>,
}

impl Frame {
    /// The frame of `inst`; `None` where edits are not checked this way
    /// (several ports on a slot, slot ids past 16 bits).
    pub fn of(inst: &Instance) -> Option<Frame> {
        (inst.is_single_port() && inst.slots <= ENDS_PACK).then(|| Frame {
            slots: inst.slots,
            model: inst.model,
            packed: inst.demands().iter().map(packed_ends).collect(),
            counts: inst.chunk_counts().to_vec(),
        })
    }

    /// Slots and model of the frame's instance.
    pub fn slots_and_model(&self) -> (u32, Model) {
        (self.slots, self.model)
    }

    /// Chunks of each demand.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Whether `inst` has this frame's slots, model and demand ends, and
    /// one port per slot (its chunk counts may differ).
    pub fn same_ends(&self, inst: &Instance) -> bool {
        inst.slots == self.slots
            && inst.model == self.model
            && inst.is_single_port()
            && inst.demands().len() == self.packed.len()
            && inst
                .demands()
                .chunks(64)
                .zip(self.packed.chunks(64))
                // Branch-free within a block (it vectorises).
                .all(|(ds, es)| {
                    ds.iter()
                        .zip(es)
                        .fold(true, |same, (d, &e)| same & (packed_ends(d) == e))
                })
    }
}

/// Validates `next` for `inst`, given that `prev` is valid for the
/// instance of `frame` (module docs); same verdict as
/// [`validate_compact`]. A passing `next` leaves `frame` as `inst`'s (when
/// `inst` has one; else it is left as it was).
pub fn validate_edited(
    inst: &Instance,
    next: &Schedule,
    prev: &Schedule,
    frame: &mut Frame,
) -> Report {
    match edit_is_valid(inst, next, prev, frame) {
        Some(ticks) => Report {
            status: Verdict::Pass,
            model: inst.model,
            ticks_total: ticks,
            bits_total: inst.total_bits(),
            errors: Vec::new(),
            total_errors: 0,
            error_kinds: Vec::new(),
            first_error_tick: None,
        },
        None => {
            let report = validate_compact(inst, next);
            if report.passed() {
                if let Some(now) = Frame::of(inst) {
                    *frame = now;
                }
            }
            report
        }
    }
}

/// The tick count of `next` when the edit is plainly valid (and `frame`
/// then `inst`'s), else `None` (and `frame` as it was).
fn edit_is_valid(
    inst: &Instance,
    next: &Schedule,
    prev: &Schedule,
    frame: &mut Frame,
) -> Option<u64> {
    if !frame.same_ends(inst) || !next.classes.is_empty() || !prev.classes.is_empty() {
        return None;
    }
    let ticks = next.checked_ticks()?;
    let mut sides = Sides::new(inst);
    // (demand, chunks) for what the differing rounds took away and added.
    let mut changes: Vec<(u32, i64)> = Vec::new();
    let empty = Round {
        repeat: 0,
        demands: Vec::new(),
    };
    for ri in 0..next.rounds.len().max(prev.rounds.len()) {
        let (old, new) = (
            prev.rounds.get(ri).unwrap_or(&empty),
            next.rounds.get(ri).unwrap_or(&empty),
        );
        if old == new {
            continue;
        }
        if ri < next.rounds.len()
            && (new.repeat == 0 || !sides.is_clean(&frame.packed, ri + 1, &new.demands))
        {
            return None;
        }
        round_changes(old, new, &mut changes)?;
    }
    changes.sort_unstable_by_key(|&(d, _)| d);
    let counts = inst.chunk_counts();
    // Counts between the changed demands are the frame's; each changed
    // one is the frame's plus its changes.
    let mut from = 0;
    let mut i = 0;
    while i < changes.len() {
        let d = changes[i].0 as usize;
        let mut have = i64::try_from(*frame.counts.get(d)?).ok()?;
        while i < changes.len() && changes[i].0 as usize == d {
            have = have.checked_add(changes[i].1)?;
            i += 1;
        }
        if frame.counts[from..d] != counts[from..d] || u64::try_from(have) != Ok(counts[d]) {
            return None;
        }
        from = d + 1;
    }
    if frame.counts[from..] != counts[from..] {
        return None;
    }
    for &(d, _) in &changes {
        frame.counts[d as usize] = counts[d as usize];
    }
    Some(ticks)
}

/// Appends what replacing round `old` by `new` changes in each demand's
/// chunks; `None` when a repeat does not fit an `i64`.
fn round_changes(old: &Round, new: &Round, changes: &mut Vec<(u32, i64)>) -> Option<()> {
    let (old_repeat, new_repeat) = (
        i64::try_from(old.repeat).ok()?,
        i64::try_from(new.repeat).ok()?,
    );
    if old_repeat == new_repeat {
        // A merge as of sorted lists: each equal pair it meets is one
        // chunk taken out and one put in (they cancel), everything else is
        // counted with its sign, so the net counts are right in any order;
        // on sorted rounds only the demands in one and not the other are
        // listed.
        let (a, b) = (&old.demands, &new.demands);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            if x == y {
                i += 1;
                j += 1;
            } else if x < y {
                changes.push((x, -old_repeat));
                i += 1;
            } else {
                changes.push((y, new_repeat));
                j += 1;
            }
        }
        changes.extend(a[i..].iter().map(|&x| (x, -old_repeat)));
        changes.extend(b[j..].iter().map(|&y| (y, new_repeat)));
    } else {
        changes.extend(old.demands.iter().map(|&d| (d, -old_repeat)));
        changes.extend(new.demands.iter().map(|&d| (d, new_repeat)));
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::{Demand, Limits, Model};

    fn instance(bits: &[u64]) -> Instance {
        let ends = [(0, 1), (1, 2), (2, 0)];
        let demands: Vec<Demand> = ends
            .iter()
            .zip(bits)
            .map(|(&(src, dst), &bits)| Demand { src, dst, bits })
            .collect();
        Instance::new(Model::Read1Write1, 3, 8, demands, &Limits::default()).unwrap()
    }

    fn schedule(rounds: &[&[u32]]) -> Schedule {
        Schedule::from_rounds(
            rounds
                .iter()
                .map(|d| Round {
                    repeat: 1,
                    demands: d.to_vec(),
                })
                .collect(),
        )
    }

    #[test]
    fn edits_are_judged_like_the_full_validator() {
        let prev_inst = instance(&[16, 8, 8]);
        let prev = schedule(&[&[0, 1, 2], &[0]]);
        assert!(validate_compact(&prev_inst, &prev).passed());
        let inst = instance(&[16, 16, 8]);
        let cases: [(&[&[u32]], bool); 7] = [
            (&[&[0, 1, 2], &[0, 1]], true),
            (&[&[0, 1, 2], &[0], &[1]], true),
            // Unsorted rounds count every demand in them.
            (&[&[2, 1, 0], &[1, 0]], true),
            // Under-covered, over-covered, a slot twice, a bad index.
            (&[&[0, 1, 2], &[0]], false),
            (&[&[0, 1, 2], &[0, 1], &[1]], false),
            (&[&[0, 1, 2], &[0, 1, 1]], false),
            (&[&[0, 1, 2], &[0, 1], &[7]], false),
        ];
        for (rounds, valid) in cases {
            let next = schedule(rounds);
            let full = validate_compact(&inst, &next);
            assert_eq!(full.passed(), valid, "{rounds:?}");
            let mut frame = Frame::of(&prev_inst).unwrap();
            assert_eq!(validate_edited(&inst, &next, &prev, &mut frame), full);
            if valid {
                assert_eq!(frame.counts(), inst.chunk_counts());
            }
        }
    }

    #[test]
    fn round_changes_are_what_each_demand_gains_or_loses() {
        let round = |repeat, demands: &[u32]| Round {
            repeat,
            demands: demands.to_vec(),
        };
        let net = |old: &Round, new: &Round| {
            let mut changes = Vec::new();
            round_changes(old, new, &mut changes).unwrap();
            let mut by_demand = std::collections::BTreeMap::new();
            for (d, c) in changes {
                *by_demand.entry(d).or_insert(0i64) += c;
            }
            by_demand.retain(|_, c| *c != 0);
            by_demand.into_iter().collect::<Vec<_>>()
        };
        // Sorted, same repeat: only the differences, tails included.
        let (old, new) = (round(1, &[1, 3, 5, 9]), round(1, &[0, 3, 6, 9, 11]));
        let mut changes = Vec::new();
        round_changes(&old, &new, &mut changes).unwrap();
        changes.sort_unstable();
        assert_eq!(changes, [(0, 1), (1, -1), (5, -1), (6, 1), (11, 1)]);
        // Other repeats or unsorted rounds: the same net counts.
        assert_eq!(
            net(&round(2, &[1, 3]), &round(3, &[3, 4])),
            [(1, -2), (3, 1), (4, 3)]
        );
        assert_eq!(
            net(&round(1, &[3, 1]), &round(1, &[1, 4])),
            [(3, -1), (4, 1)]
        );
    }

    #[test]
    fn round_changes_net_counts_hold_in_any_order() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..300 {
            let mut lists = [Vec::new(), Vec::new()];
            for l in &mut lists {
                *l = (0..next(8)).map(|_| next(12) as u32).collect();
                if next(2) == 0 {
                    l.sort_unstable();
                }
            }
            let [old, new] = lists;
            let mut changes = Vec::new();
            let round = |demands: &Vec<u32>| Round {
                repeat: 3,
                demands: demands.clone(),
            };
            round_changes(&round(&old), &round(&new), &mut changes).unwrap();
            for d in 0..12u32 {
                let count = |l: &Vec<u32>| l.iter().filter(|&&e| e == d).count() as i64;
                let net: i64 = changes.iter().filter(|c| c.0 == d).map(|c| c.1).sum();
                assert_eq!(net, 3 * (count(&new) - count(&old)), "{old:?} -> {new:?}");
            }
        }
    }

    #[test]
    fn other_demand_ends_fall_back_to_the_full_check() {
        let prev_inst = instance(&[16, 8, 8]);
        let prev = schedule(&[&[0, 1, 2], &[0]]);
        let moved = Instance::new(
            Model::Read1Write1,
            3,
            8,
            vec![
                Demand {
                    src: 0,
                    dst: 2,
                    bits: 16,
                },
                Demand {
                    src: 1,
                    dst: 2,
                    bits: 8,
                },
                Demand {
                    src: 2,
                    dst: 0,
                    bits: 8,
                },
            ],
            &Limits::default(),
        )
        .unwrap();
        // Valid for prev_inst's ends, not for these (slot 2 receives twice).
        let next = schedule(&[&[0, 1, 2], &[0]]);
        let mut frame = Frame::of(&prev_inst).unwrap();
        assert_eq!(edit_is_valid(&moved, &next, &prev, &mut frame), None);
        assert!(!validate_edited(&moved, &next, &prev, &mut frame).passed());
        assert!(frame.same_ends(&prev_inst), "a failed edit keeps the frame");
    }
}
