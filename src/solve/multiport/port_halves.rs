//! Port halves coloured side by side: with the same even number `p` of
//! ports on every slot side (READ1_WRITE1 with even ports; STRICT1 after
//! the Euler orientation, `p = ports / 2`, with ports a multiple of four),
//! the arcs are split into two halves that each have at most `p/2 x T`
//! chunks at every slot side, `T` the port-degree bound. Each half is
//! coloured by König with `p/2` ports in at most `T` ticks, the two on two
//! threads, and tick `t` of the schedule is tick `t` of both halves: at
//! most `p` transfers per slot side, `T` ticks, optimal.
//!
//! *The split.* Arcs go whole to one half where both ends keep room; the
//! rest are halved along Euler circuits. A side `x` with `r(x)` chunks on
//! arcs not yet placed gets at most `ceil(r(x)/2)` of them in each half
//! from the circuits (below), so an arc goes whole to half `h` only while
//! `load_h(x) + m + ceil((r(x) - m)/2) <= cap` at both its ends; the other
//! half's room only grows. Initially `ceil(d/2) <= cap` (as `d <= p x
//! T`), so the invariant holds throughout. The arcs left each send
//! `floor(m/2)` chunks in both halves, and those of odd `m`, a simple
//! bipartite graph on the send and receive sides, are oriented along
//! Euler circuits (module `euler`): send side to
//! receive side goes to the first half, back to the second. Every side
//! enters as often as it leaves (within one), so each half gets
//! `ceil(r/2)` at most. On dense skewed traffic most sides have slack and
//! most arcs stay whole, so the halves together have about as many pairs
//! as the whole (the peeling's cost follows the pairs) and take half the
//! wall time on two cores.
//!
//! Deterministic: the split is sequential in arc order, and
//! `rayon::join` gives the same halves on one thread as on two.

use super::euler::euler_orient;
use super::port_split::ArcCount;
use crate::schedule::Schedule;

/// Fewest arcs for which the halves are taken: below it one König is fast
/// enough (tens of milliseconds) and the bundled instances keep the
/// schedules they had.
pub(super) const MIN_ARCS: usize = 1 << 18;

/// Whether `arcs` arcs with `p` ports on every slot side are coloured in
/// halves: `p` even and at least [`MIN_ARCS`] arcs.
pub(super) fn applies(arcs: usize, p: u32) -> bool {
    p >= 2 && p % 2 == 0 && arcs >= MIN_ARCS
}

/// Splits `arcs` (distinct `(src, dst)`) on `slots` slots, with `p` ports
/// on every slot side, into two halves with at most `p/2 x T` chunks at
/// every side, `T = max ceil(d/p)`: arcs in their order, whole or halved
/// (module docs). Also returns `T`.
pub(super) fn split(slots: usize, arcs: &[ArcCount], p: u32) -> ([Vec<ArcCount>; 2], u64) {
    // Send sides 0..slots, receive sides slots..2 x slots.
    let mut rest = vec![0u64; 2 * slots];
    for a in arcs {
        rest[a.src as usize] += a.count;
        rest[slots + a.dst as usize] += a.count;
    }
    let ticks = rest
        .iter()
        .map(|&d| d.div_ceil(u64::from(p)))
        .max()
        .unwrap_or(0);
    let cap = u64::from(p / 2) * ticks;
    let mut load = [vec![0u64; 2 * slots], vec![0u64; 2 * slots]];
    // Room left at side `x` in half `h` after `m` more chunks there.
    let room = |load: &[u64], rest: &[u64], x: usize, m: u64| {
        cap as i128 - (load[x] + m + (rest[x] - m).div_ceil(2)) as i128
    };
    // Per arc: the half it goes to whole, or None (halved).
    let mut whole: Vec<Option<u8>> = Vec::with_capacity(arcs.len());
    for a in arcs {
        let (x, y, m) = (a.src as usize, slots + a.dst as usize, a.count);
        let best = (0..2)
            .map(|h| {
                let r = room(&load[h], &rest, x, m).min(room(&load[h], &rest, y, m));
                (r, std::cmp::Reverse(h))
            })
            .max()
            .filter(|&(r, _)| r >= 0)
            .map(|(_, std::cmp::Reverse(h))| h);
        if let Some(h) = best {
            load[h][x] += m;
            load[h][y] += m;
            rest[x] -= m;
            rest[y] -= m;
        }
        whole.push(best.map(|h| h as u8));
    }
    // The arcs left with an odd count, oriented along Euler circuits.
    let odd: Vec<(u32, u32)> = arcs
        .iter()
        .zip(&whole)
        .filter(|(a, w)| w.is_none() && a.count % 2 == 1)
        .map(|(a, _)| (a.src, slots as u32 + a.dst))
        .collect();
    let forward = euler_orient(2 * slots, &odd);
    let mut halves = [Vec::new(), Vec::new()];
    let mut k = 0;
    for (a, w) in arcs.iter().zip(&whole) {
        let counts = match w {
            Some(0) => [a.count, 0],
            Some(_) => [0, a.count],
            None => {
                let (half, odd) = (a.count / 2, a.count % 2);
                let first = odd == 1 && forward[k];
                k += odd as usize;
                [
                    half + u64::from(first),
                    half + u64::from(odd == 1 && !first),
                ]
            }
        };
        for (h, count) in counts.into_iter().enumerate() {
            if count > 0 {
                halves[h].push(ArcCount { count, ..*a });
            }
        }
    }
    (halves, ticks)
}

/// Two halves' rounds (ids sorted within each round) laid side by side:
/// tick `t` of the result is tick `t` of both, ids merged in order. The
/// steps (which round of each half, for how many ticks) are laid out first
/// from the repeats alone; the merges, about as many ids as the halves
/// hold (0.3 s on one core at 2,048 x 4), run on the rayon threads; the
/// rounds are pushed in order, so the result does not depend on the
/// thread count.
pub(super) fn side_by_side(halves: [&[(u64, Vec<u32>)]; 2]) -> Schedule {
    use rayon::prelude::*;
    let steps = steps_side_by_side(halves);
    let merged: Vec<Vec<u32>> = steps
        .par_iter()
        .map(|&(_, at)| {
            let ids = |h: usize| at[h].map_or(&[][..], |i| &halves[h][i].1[..]);
            super::port_grouping::merge(ids(0), ids(1))
        })
        .collect();
    let mut schedule = Schedule::new();
    for ((step, _), ids) in steps.into_iter().zip(merged) {
        schedule.push(step, ids);
    }
    schedule
}

/// The steps of [`side_by_side`]: ticks, and the round of each half they
/// come from (`None`: that half has ended).
fn steps_side_by_side(halves: [&[(u64, Vec<u32>)]; 2]) -> Vec<(u64, [Option<usize>; 2])> {
    let mut steps = Vec::new();
    // Per half: the round at the front and its ticks not laid out yet.
    let mut at = [0usize; 2];
    let mut left = halves.map(|h| h.first().map_or(0, |r| r.0));
    loop {
        let Some(step) = left.iter().copied().filter(|&l| l > 0).min() else {
            return steps;
        };
        let from = [0, 1].map(|h| (left[h] > 0).then_some(at[h]));
        steps.push((step, from));
        for h in 0..2 {
            if left[h] > 0 {
                left[h] -= step;
                if left[h] == 0 {
                    at[h] += 1;
                    left[h] = halves[h].get(at[h]).map_or(0, |r| r.0);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::rng::SplitMix64;

    /// Dense random arcs (every ordered pair, 1-40 chunks, a few hot
    /// receivers with four times as many): the halves keep every arc's
    /// chunks, stay within `p/2 x T` at every side, and keep most arcs
    /// whole.
    #[test]
    fn halves_keep_the_chunks_within_the_cap() {
        for (n, p, seed) in [(12, 2, 0), (40, 4, 1), (64, 2, 2), (64, 6, 3)] {
            let mut rng = SplitMix64::new(seed, 1);
            let mut arcs = Vec::new();
            for src in 0..n {
                for dst in (0..n).filter(|&d| d != src) {
                    let hot = if dst % 16 == 0 { 4 } else { 1 };
                    let count = hot * (1 + rng.below(40));
                    let pool = arcs.len() as u32;
                    arcs.push(ArcCount {
                        src,
                        dst,
                        count,
                        pool,
                    });
                }
            }
            let ([a, b], ticks) = split(n as usize, &arcs, p);
            let cap = u64::from(p / 2) * ticks;
            let mut sent = vec![0u64; arcs.len()];
            for half in [&a, &b] {
                let mut side = vec![0u64; 2 * n as usize];
                for x in half {
                    sent[x.pool as usize] += x.count;
                    side[x.src as usize] += x.count;
                    side[(n + x.dst) as usize] += x.count;
                }
                assert!(
                    side.iter().all(|&d| d <= cap),
                    "n={n} p={p}: a side over {cap}"
                );
            }
            assert!(arcs.iter().all(|x| sent[x.pool as usize] == x.count));
            assert!(
                a.len() + b.len() < arcs.len() * 5 / 4,
                "n={n} p={p}: most arcs whole"
            );
        }
    }

    #[test]
    fn side_by_side_lays_tick_t_of_both_halves_together() {
        let a = vec![(3, vec![1, 4]), (1, vec![2])];
        let b = vec![(1, vec![0]), (4, vec![3, 5])];
        let s = side_by_side([&a, &b]);
        let ticks: Vec<(u64, Vec<u32>)> = s
            .rounds
            .iter()
            .map(|r| (r.repeat, r.demands.clone()))
            .collect();
        assert_eq!(
            ticks,
            vec![
                (1, vec![0, 1, 4]),
                (2, vec![1, 3, 4, 5]),
                (1, vec![2, 3, 5]),
                (1, vec![3, 5])
            ]
        );
    }
}
