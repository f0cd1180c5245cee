//! copyspace-guard's greedy, tick by tick, with equal ticks merged.
//!
//! Each tick orders the pending demands by the remaining chunk degree of
//! their two slots (sends plus receives, both models), highest first, then
//! by `(src, dst)`, then full chunks before last ones, and takes each demand
//! that still fits the model. This is exactly copyspace-guard 0.2.6's
//! `iter_greedy`, so a schedule from [`super::greedy::Greedy`] (which
//! keeps the better of this and the load-priority greedy) is never longer
//! than copyspace-guard's. Its cost grows with the ticks
//! (O(ticks * E log E)), so it only runs below [`PER_TICK_WORK_LIMIT`].

use crate::instance::{Instance, Model};
use crate::schedule::Schedule;
use std::time::Instant;

/// Largest `demands x chunks` for which the per-tick greedy runs (about a
/// second of work).
pub const PER_TICK_WORK_LIMIT: u128 = 50_000_000;

/// Whether [`per_tick_greedy`] is cheap enough for `inst`.
pub fn per_tick_greedy_fits(inst: &Instance) -> bool {
    inst.demands().len() as u128 * inst.total_chunks() as u128 <= PER_TICK_WORK_LIMIT
}

/// The per-tick greedy schedule (see the module docs).
pub fn per_tick_greedy(inst: &Instance) -> Schedule {
    per_tick_greedy_until(inst, None).expect("no deadline, never cut short")
}

/// [`per_tick_greedy`], or `None` when `deadline` passes first (checked
/// every tick; a partial per-tick schedule is of no use to its caller, which
/// already holds a complete one).
pub fn per_tick_greedy_until(inst: &Instance, deadline: Option<Instant>) -> Option<Schedule> {
    let n = inst.slots as usize;
    let demands = inst.demands();
    let bw = inst.bw;
    // Remaining bits per demand; pending demand indices in (src, dst) order.
    let mut rem: Vec<u64> = demands.iter().map(|d| d.bits).collect();
    let mut pending: Vec<u32> = (0..demands.len() as u32).collect();
    let mut deg = vec![0u64; n];
    let mut used_a = vec![0u64; n];
    let mut used_b = vec![0u64; n];
    let mut order: Vec<u32> = Vec::new();
    let mut tick: Vec<u32> = Vec::new();
    let mut schedule = Schedule::new();
    let mut stamp = 0u64;
    while !pending.is_empty() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        stamp += 1;
        deg.iter_mut().for_each(|d| *d = 0);
        for &i in &pending {
            let d = &demands[i as usize];
            let c = rem[i as usize].div_ceil(bw);
            deg[d.src as usize] += c;
            deg[d.dst as usize] += c;
        }
        order.clear();
        order.extend_from_slice(&pending);
        order.sort_by_key(|&i| {
            let d = &demands[i as usize];
            let score = deg[d.src as usize] + deg[d.dst as usize];
            (
                std::cmp::Reverse(score),
                d.src,
                d.dst,
                std::cmp::Reverse(bw.min(rem[i as usize])),
            )
        });
        tick.clear();
        for &i in &order {
            let d = &demands[i as usize];
            let (s, t) = (d.src as usize, d.dst as usize);
            let fits = match inst.model {
                Model::Read1Write1 => used_a[s] != stamp && used_b[t] != stamp,
                Model::Strict1 => used_a[s] != stamp && used_a[t] != stamp,
            };
            if !fits {
                continue;
            }
            match inst.model {
                Model::Read1Write1 => {
                    used_a[s] = stamp;
                    used_b[t] = stamp;
                }
                Model::Strict1 => {
                    used_a[s] = stamp;
                    used_a[t] = stamp;
                }
            }
            tick.push(i);
        }
        for &i in &tick {
            rem[i as usize] -= bw.min(rem[i as usize]);
        }
        schedule.push(1, tick.clone());
        pending.retain(|&i| rem[i as usize] > 0);
    }
    Some(schedule)
}
