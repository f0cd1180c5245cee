//! Uniform ports by grouping colours: with `q` ports on every slot, a
//! one-port schedule's ticks, taken `q` consecutive ticks at a time, are
//! ticks of the `q`-port problem (each slot is in at most one transfer per
//! one-port tick, so in at most `q` per group). From an optimal one-port
//! READ1_WRITE1 schedule (König: `Delta` ticks) this gives `ceil(Delta/q)
//! = max_v ceil(d(v)/q)` ticks, the port-degree bound: optimal, with no
//! port split (whose copy-level graph has `q` times the slots and up to
//! `2q - 1` pieces per demand).
//!
//! Works on run-length schedules: a round of `r` equal ticks becomes at
//! most two rounds (`floor` of the ticks that fill whole groups, the rest
//! joined to its neighbours), so the result has at most twice the rounds.

use crate::schedule::Schedule;

/// Groups `q` consecutive ticks of `rounds` (rounds of ids, repeat first)
/// into one tick: an id sent in `k` of the `q` ticks appears `k` times in
/// the group. The last group may be short. `q >= 1`. Rounds with sorted
/// ids give sorted groups (so `Schedule::push` need not sort them).
pub fn group_ticks(rounds: &[(u64, Vec<u32>)], q: u64) -> Vec<(u64, Vec<u32>)> {
    assert!(q >= 1, "group_ticks needs q >= 1");
    let mut out: Vec<(u64, Vec<u32>)> = Vec::new();
    // The group being filled and how many ticks it holds (< q).
    let mut partial: Vec<u32> = Vec::new();
    let mut held = 0u64;
    for (repeat, ids) in rounds {
        let mut r = *repeat;
        if held > 0 {
            let t = r.min(q - held);
            partial = merge(&partial, &repeated(ids, t));
            held += t;
            r -= t;
            if held == q {
                out.push((1, std::mem::take(&mut partial)));
                held = 0;
            }
        }
        if r >= q {
            out.push((r / q, repeated(ids, q)));
        }
        if r % q > 0 {
            partial = repeated(ids, r % q);
            held = r % q;
        }
    }
    if held > 0 {
        out.push((1, partial));
    }
    out
}

/// Each id of `ids` `k` times in a row (sorted stays sorted).
fn repeated(ids: &[u32], k: u64) -> Vec<u32> {
    let mut v = Vec::with_capacity(ids.len() * k as usize);
    for &id in ids {
        v.extend(std::iter::repeat_n(id, k as usize));
    }
    v
}

/// The two lists merged (sorted when both are).
pub(super) fn merge(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// [`group_ticks`] on a [`Schedule`] of one-port demand indices, the ids
/// mapped through `id_of` first. With `q = 1` every group is one tick:
/// the mapped rounds are returned as they are (a schedule has no round of
/// repeat 0), without the copy `group_ticks` would make of every round
/// (the port halves of issue 53 colour with one port a half).
pub fn group_schedule(schedule: &Schedule, q: u64, id_of: &[u32]) -> Vec<(u64, Vec<u32>)> {
    let rounds: Vec<(u64, Vec<u32>)> = schedule
        .rounds
        .iter()
        .filter(|r| r.repeat > 0)
        .map(|r| {
            (
                r.repeat,
                r.demands.iter().map(|&i| id_of[i as usize]).collect(),
            )
        })
        .collect();
    if q == 1 {
        return rounds;
    }
    group_ticks(&rounds, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands rounds to one id list per tick.
    fn ticks(rounds: &[(u64, Vec<u32>)]) -> Vec<Vec<u32>> {
        rounds
            .iter()
            .flat_map(|(r, ids)| std::iter::repeat_n(ids.clone(), *r as usize))
            .collect()
    }

    #[test]
    fn groups_are_consecutive_ticks_concatenated() {
        let rounds = vec![(5, vec![1, 2]), (1, vec![3]), (4, vec![4])];
        let flat = ticks(&rounds);
        for q in 1..=7u64 {
            let grouped = group_ticks(&rounds, q);
            assert!(grouped.iter().all(|(_, ids)| ids.is_sorted()), "q = {q}");
            let want: Vec<Vec<u32>> = flat
                .chunks(q as usize)
                .map(|c| {
                    let mut v: Vec<u32> = c.concat();
                    v.sort_unstable();
                    v
                })
                .collect();
            let got: Vec<Vec<u32>> = ticks(&grouped)
                .into_iter()
                .map(|mut v| {
                    v.sort_unstable();
                    v
                })
                .collect();
            assert_eq!(got, want, "q = {q}");
            // At most two rounds out per round in, plus the last group.
            assert!(grouped.len() <= 2 * rounds.len() + 1);
        }
    }
}
