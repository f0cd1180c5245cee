//! Validating a compact schedule with classes (DESIGN.md §13; issue 39)
//! without laying them out: time and memory linear in the compact form
//! (its rounds and maps) plus the instance, never in the expanded rounds.
//!
//! A class's rounds are stored once over its *pattern* (demands `0..q`),
//! and member `m` sends instance demand `members[m][j]` for pattern demand
//! `j` ([`ClassRounds`]). The plain rounds and every class run side by
//! side from tick 0. The checks, each a sufficient condition that the
//! laid-out schedule is valid:
//!
//! 1. **Maps.** Every member maps all `q` pattern demands; member 0 (the
//!    representative) maps no two to the same demand. Reading each
//!    member's demand against member 0's gives a map of slots (member 0's
//!    slot -> the member's); it must be a function (the same slot always
//!    maps to the same slot), one to one (two slots never map to one),
//!    keep the ports, and map every demand to one with the same chunk
//!    count. So a member is member 0 relabelled, and a valid tick of
//!    member 0 maps to a valid tick of the member.
//! 2. **Disjoint.** No slot is in two members (of one class or of two), nor
//!    in a member and a plain round: the parts never meet in a tick.
//! 3. **Rounds.** The plain rounds, and every class's rounds read as
//!    member 0's demands, are valid ticks (the checks of
//!    [`super::validate_compact`], fast path included), each part from
//!    tick 0.
//! 4. **Coverage.** Each member sends its demands as often as member 0
//!    sends the matching ones; with the plain rounds' chunks, every demand
//!    must be sent exactly its chunk count.
//!
//! Under 1-3, the laid-out schedule ([`crate::rounds::Schedule::flat`])
//! is valid exactly when the coverage of 4 holds, and it has the ticks of
//! the longest part. A schedule whose members meet (2) is refused even if
//! their ticks happened not to collide: the format promises disjoint
//! parts, and only that keeps the check linear.
//!
//! This is the validator's own code: it shares nothing with the grouping
//! into classes that the solver does ([`crate::solve`]'s `classes`), so
//! `verify` re-checks a classed claim independently (DESIGN.md §10).

use super::{
    check_rounds, clean_rounds, count_coverage, ErrorKind, Report, TickValidator, ValidationError,
};
use crate::instance::Instance;
use crate::rounds::{ClassRounds, Round, Schedule};

/// No owner yet (slots) / no stamp yet.
const NONE: u32 = u32::MAX;

/// Validates `schedule`, which has classes (module docs). `fast`: the
/// fast path of the rounds' check ([`super::validate_compact_with`]).
pub(super) fn validate_with_classes(inst: &Instance, schedule: &Schedule, fast: bool) -> Report {
    let mut v = TickValidator::new(inst);
    check_maps(&mut v, inst, schedule);
    // The parts' rounds over instance demands: the plain rounds, then each
    // class's read as member 0's demands.
    let mut parts: Vec<Vec<Round>> = vec![schedule.rounds.clone()];
    for (c, class) in schedule.classes.iter().enumerate() {
        parts.push(representative_rounds(&mut v, c, class));
    }
    let all: Vec<Round> = parts.iter().flatten().cloned().collect();
    let (clean, mut sent) = if fast {
        clean_rounds(inst, &all)
    } else {
        (vec![false; all.len()], vec![0; inst.demands().len()])
    };
    let mut ticks = 0u64;
    let mut first = 0usize;
    for (p, rounds) in parts.iter().enumerate() {
        let clean = &clean[first..first + rounds.len()];
        first += rounds.len();
        let part_ticks = if p == 0 {
            let name = |ri: usize| format!("round {ri}");
            check_rounds(&mut v, rounds, clean, &mut sent, &name, false)
        } else {
            // The per-tick rule's messages name member 0's slots: say so.
            let name = |ri: usize| format!("class {} round {ri} (member 0's slots)", p - 1);
            check_rounds(&mut v, rounds, clean, &mut sent, &name, true)
        };
        ticks = ticks.max(part_ticks);
    }
    spread_to_members(&mut v, &schedule.classes, &mut sent);
    count_coverage(&mut v, &sent);
    v.ticks = ticks;
    v.finish()
}

/// A STRUCT error about the class schedule.
fn refuse(v: &mut TickValidator, msg: String) {
    v.add(ValidationError::new(ErrorKind::Struct, msg));
}

/// Class `c`'s rounds as member 0's demands; a pattern index past the
/// pattern (or member 0 missing) is an error and left out.
fn representative_rounds(v: &mut TickValidator, c: usize, class: &ClassRounds) -> Vec<Round> {
    let empty = Vec::new();
    let rep = class.members.first().unwrap_or(&empty);
    let mut out = Vec::with_capacity(class.rounds.len());
    for (ri, r) in class.rounds.iter().enumerate() {
        let mut demands = Vec::with_capacity(r.demands.len());
        for &j in &r.demands {
            match rep.get(j as usize) {
                Some(&i) => demands.push(i),
                None => refuse(
                    v,
                    format!(
                        "class {c} round {ri}: pattern demand {j} out of range (the class has {} demands)",
                        rep.len()
                    ),
                ),
            }
        }
        demands.sort_unstable();
        out.push(Round {
            repeat: r.repeat,
            demands,
        });
    }
    out
}

/// Checks 1 and 2 of the module docs for every class and member.
/// O(slots + demands + the members' maps).
fn check_maps(v: &mut TickValidator, inst: &Instance, schedule: &Schedule) {
    let n = inst.slots as usize;
    let demands = inst.demands();
    // Per slot: the part that has it (0: the plain rounds; then members
    // numbered across classes), and which of member 0's slots maps to it.
    let mut owner = vec![NONE; n];
    let mut preimage = vec![NONE; n];
    // Per member (numbered as `owner`): its class and index, for messages.
    let mut who: Vec<(usize, usize)> = vec![(usize::MAX, 0)];
    for r in &schedule.rounds {
        for &i in &r.demands {
            if let Some(d) = demands.get(i as usize) {
                owner[d.src as usize] = 0;
                owner[d.dst as usize] = 0;
            }
        }
    }
    // Per slot of member 0: its image under the member being checked,
    // stamped with that member's number (never cleared).
    let mut image = vec![0u32; n];
    let mut stamp = vec![NONE; n];
    // Per demand: the class whose member 0 maps a pattern demand to it.
    let mut rep_used = vec![NONE; demands.len()];
    for (c, class) in schedule.classes.iter().enumerate() {
        let Some(rep) = class.members.first() else {
            refuse(v, format!("class {c} has no members"));
            continue;
        };
        let q = rep.len();
        for (j, &i) in rep.iter().enumerate() {
            match rep_used.get_mut(i as usize) {
                None => refuse(
                    v,
                    format!("class {c} member 0: pattern demand {j} maps to demand index {i}, out of range"),
                ),
                Some(u) if *u == c as u32 => refuse(
                    v,
                    format!("class {c} member 0: two pattern demands map to the same demand {i}"),
                ),
                Some(u) => *u = c as u32,
            }
        }
        for (m, map) in class.members.iter().enumerate() {
            let id = who.len() as u32;
            who.push((c, m));
            if map.len() != q {
                refuse(
                    v,
                    format!(
                        "class {c} member {m} maps {} demands; the class has {q}",
                        map.len()
                    ),
                );
                continue;
            }
            let mut ends = |v: &mut TickValidator, r: u32, s: u32| {
                let (r, s) = (r as usize, s as usize);
                if stamp[r] == id {
                    if image[r] != s as u32 {
                        refuse(v, format!(
                            "class {c} member {m}: its slot map is not a function: member 0's slot {r} maps to slots {} and {s}",
                            image[r]
                        ));
                    }
                    return;
                }
                stamp[r] = id;
                image[r] = s as u32;
                if inst.port(r) != inst.port(s) {
                    refuse(v, format!(
                        "class {c} member {m}: slot {s} has {} ports where member 0's slot {r} has {}",
                        inst.port(s),
                        inst.port(r)
                    ));
                }
                if owner[s] == NONE {
                    owner[s] = id;
                    preimage[s] = r as u32;
                } else if owner[s] == id {
                    refuse(v, format!(
                        "class {c} member {m}: its slot map is not one to one: member 0's slots {} and {r} both map to slot {s}",
                        preimage[s]
                    ));
                } else {
                    let other = match who[owner[s] as usize] {
                        (usize::MAX, _) => "a plain round".to_string(),
                        (c2, m2) => format!("class {c2} member {m2}"),
                    };
                    refuse(v, format!(
                        "class {c} member {m} shares slot {s} with {other}: the parts of a schedule with classes must not share slots"
                    ));
                }
            };
            for (j, (&i0, &i)) in rep.iter().zip(map).enumerate() {
                let (Some(d0), Some(d)) = (demands.get(i0 as usize), demands.get(i as usize))
                else {
                    // (Member 0's own indices were checked above.)
                    if m > 0 && demands.get(i as usize).is_none() {
                        refuse(v, format!(
                            "class {c} member {m}: pattern demand {j} maps to demand index {i}, out of range"
                        ));
                    }
                    continue;
                };
                let (c0, ci) = (inst.chunks(i0 as usize), inst.chunks(i as usize));
                if c0 != ci {
                    refuse(v, format!(
                        "class {c} member {m}: demand {}->{} has {ci} chunks where member 0's matching demand {}->{} has {c0}",
                        d.src, d.dst, d0.src, d0.dst
                    ));
                }
                ends(v, d0.src, d.src);
                ends(v, d0.dst, d.dst);
            }
        }
    }
}

/// Check 4's first half: each member `m >= 1` sends demand `members[m][j]`
/// as often as member 0 sends `members[0][j]` (counted in `sent` by the
/// rounds' check). Checked sums (an overflow is reported, never wrapped).
fn spread_to_members(v: &mut TickValidator, classes: &[ClassRounds], sent: &mut [u64]) {
    for class in classes {
        let Some((rep, rest)) = class.members.split_first() else {
            continue;
        };
        let counts: Vec<Option<u64>> = rep.iter().map(|&i| sent.get(i as usize).copied()).collect();
        for map in rest.iter().filter(|map| map.len() == rep.len()) {
            for (&i, &count) in map.iter().zip(&counts) {
                let (Some(count), Some(slot)) = (count, sent.get_mut(i as usize)) else {
                    continue;
                };
                match slot.checked_add(count) {
                    Some(s) => *slot = s,
                    None => {
                        v.overflow(&format!("chunks sent of demand {i}"));
                        return;
                    }
                }
            }
        }
    }
}
