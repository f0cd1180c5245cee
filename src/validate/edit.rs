//! Validating a schedule made by editing a valid one (a plan per step,
//! DESIGN.md §13): work in the rounds that changed, not in the schedule.
//!
//! Premise: `prev` is a valid schedule of `prev_inst` (the caller validated
//! it). Then `next` is a valid schedule of `inst` when
//! - both instances have the same slots, model, ports and demand ends
//!   (demand `i` is the same ordered pair in both), so a round that is a
//!   valid tick in one is one in the other;
//! - every round of `next` that differs from `prev`'s round at the same
//!   index (or has none there) is *clean* (the fast path's check of
//!   [`super::validate_compact`]: indices name demands, no slot side used
//!   twice); the rounds equal to `prev`'s were valid ticks already;
//! - each demand's chunks — its count in `prev_inst` (which `prev` sent
//!   exactly), minus what `prev`'s differing rounds sent, plus what
//!   `next`'s send — equal its count in `inst`, which makes its bits
//!   exactly `inst`'s (chunks of a demand carry its bits in order);
//! - the ticks add up without overflow.
//!
//! Equal rounds are found by comparing them (memory speed), so nothing is
//! taken on the caller's word but the premise. When any condition fails,
//! or the premise cannot be used, the full [`super::validate_compact`]
//! runs and words the errors: the verdict is always the full validator's.

use super::clean::one_port::Sides;
use super::clean::Ends;
use super::{validate_compact, Report, Verdict};
use crate::instance::Instance;
use crate::rounds::{Round, Schedule};

/// Validates `next` for `inst`, given that `prev` is valid for
/// `prev_inst` (module docs); same verdict as [`validate_compact`].
pub fn validate_edited(
    inst: &Instance,
    next: &Schedule,
    prev_inst: &Instance,
    prev: &Schedule,
) -> Report {
    match edit_is_valid(inst, next, prev_inst, prev) {
        Some(ticks) => Report {
            status: Verdict::Pass,
            model: inst.model,
            ticks_total: ticks,
            bits_total: inst.demands().iter().map(|d| d.bits as u128).sum(),
            errors: Vec::new(),
            total_errors: 0,
            error_kinds: Vec::new(),
            first_error_tick: None,
        },
        None => validate_compact(inst, next),
    }
}

/// The tick count of `next` when the edit is plainly valid, else `None`.
fn edit_is_valid(
    inst: &Instance,
    next: &Schedule,
    prev_inst: &Instance,
    prev: &Schedule,
) -> Option<u64> {
    let same_frame = inst.slots == prev_inst.slots
        && inst.model == prev_inst.model
        && inst.is_single_port()
        && prev_inst.is_single_port()
        && inst.demands().len() == prev_inst.demands().len()
        && inst
            .demands()
            .iter()
            .zip(prev_inst.demands())
            .all(|(a, b)| (a.src, a.dst) == (b.src, b.dst));
    if !same_frame {
        return None;
    }
    let ticks = next.checked_ticks()?;
    let Ends::Packed(ends) = Ends::new(inst) else {
        return None;
    };
    let mut sides = Sides::new(inst);
    // Chunks per demand, signed while rounds come and go (counts past
    // i64 take the full path).
    let mut sent: Vec<i64> = prev_inst
        .chunk_counts()
        .iter()
        .map(|&c| i64::try_from(c).ok())
        .collect::<Option<_>>()?;
    let repeat = |r: &Round| i64::try_from(r.repeat).ok();
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
        let (old_repeat, new_repeat) = (repeat(old)?, repeat(new)?);
        for &d in &old.demands {
            let s = sent.get_mut(d as usize)?;
            *s = s.checked_sub(old_repeat)?;
        }
        if ri < next.rounds.len() {
            if new.repeat == 0 || !sides.is_clean(&ends, ri + 1, &new.demands) {
                return None;
            }
            for &d in &new.demands {
                let s = &mut sent[d as usize];
                *s = s.checked_add(new_repeat)?;
            }
        }
    }
    let covered = sent
        .iter()
        .zip(inst.chunk_counts())
        .all(|(&s, &c)| u64::try_from(s) == Ok(c));
    covered.then_some(ticks)
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
        let cases: [(&[&[u32]], bool); 6] = [
            (&[&[0, 1, 2], &[0, 1]], true),
            (&[&[0, 1, 2], &[0], &[1]], true),
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
            assert_eq!(validate_edited(&inst, &next, &prev_inst, &prev), full);
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
        assert_eq!(edit_is_valid(&moved, &next, &prev_inst, &prev), None);
        assert!(!validate_edited(&moved, &next, &prev_inst, &prev).passed());
    }
}
