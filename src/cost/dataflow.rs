//! Seconds of a dataflow run (doc/design.md §14): what a plan takes when
//! each transfer waits only for its own two ends, not for a tick.
//!
//! The run is simulated message by message on the lowering's lists
//! ([`crate::lower::dataflow`]): a message starts when its sender's
//! previous send and its receiver's previous receive are done, and lasts
//! `alpha + bytes / rate` (alpha here is the cost of one *message*, a
//! handshake, not of a tick). Messages are visited in order of their first
//! tick, which is an order in which every message comes after the ones it
//! waits for (each rank's lists follow the ticks). O(messages log
//! messages). The prediction is a model, not a bound: links here carry one
//! message at a time at the full rate, in the plan's order. The Python
//! runner posts every message at once and lets TCP share each link
//! (doc/design.md §14); where the plan's order packs the busiest port
//! tightly the two agree (measured on the testbed: the runner at 1.01-1.04x
//! this prediction on skewed traffic, doc/performance.md "Executed").

use crate::instance::CostModel;
use crate::lower::dataflow::RankFlow;

/// Predicted seconds of running `flows` (every rank's, `flows[r]` for
/// rank r) as dataflow under `cost` (alpha per message). With
/// `rank_gbps`, rank r's link runs at `rank_gbps[r]` Gbit/s instead of the
/// cost model's rate, and a message at the slower of its two ends' rates
/// (a slow rank's port: issue 56).
pub fn predict_seconds(flows: &[RankFlow], cost: &CostModel, rank_gbps: Option<&[f64]>) -> f64 {
    let n = flows.len();
    // (first tick, sender, index in the sender's list, receiver, bytes)
    let mut order: Vec<(u64, u32, u32, u32, u64)> = Vec::new();
    for (s, f) in flows.iter().enumerate() {
        for (k, m) in f.sends.iter().enumerate() {
            order.push((m.first_tick, s as u32, k as u32, m.peer, m.bytes));
        }
    }
    order.sort_unstable();
    let mut send_free = vec![0.0f64; n];
    let mut recv_free = vec![0.0f64; n];
    for &(_, s, _, d, bytes) in &order {
        let (s, d) = (s as usize, d as usize);
        let start = send_free[s].max(recv_free[d]);
        let bits = bytes as u128 * 8;
        let moving = match rank_gbps {
            Some(rates) => bits as f64 / (rates[s].min(rates[d]) * 1e9),
            None => cost.transfer_seconds(bits),
        };
        let end = start + cost.alpha_seconds() + moving;
        send_free[s] = end;
        recv_free[d] = end;
    }
    send_free
        .iter()
        .chain(&recv_free)
        .fold(0.0f64, |a, &b| a.max(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::dataflow::Message;

    fn msg(peer: u32, bytes: u64, first_tick: u64) -> Message {
        Message {
            peer,
            offset: 0,
            bytes,
            first_tick,
            demand: 0,
        }
    }

    #[test]
    fn a_transfer_waits_for_both_of_its_ends_only() {
        // 0 -> 1 (1000 B, tick 0), 2 -> 3 (500 B, tick 0), then 0 -> 3
        // (250 B, tick 1): it waits for 0's send (1 ms) and 3's receive
        // (0.5 ms), so it starts at 1 ms and ends at 1.25 ms (+ alpha each).
        let mut flows = vec![RankFlow::default(); 4];
        flows[0].sends = vec![msg(1, 1000, 0), msg(3, 250, 1)];
        flows[2].sends = vec![msg(3, 500, 0)];
        let rate = CostModel::new(0.0, 8e-3).unwrap(); // 8 Mbit/s: 1 B per us
        assert!((predict_seconds(&flows, &rate, None) - 1.25e-3).abs() < 1e-12);
        let with_alpha = CostModel::new(10.0, 8e-3).unwrap();
        assert!((predict_seconds(&flows, &with_alpha, None) - 1.27e-3).abs() < 1e-12);
        assert_eq!(predict_seconds(&[], &rate, None), 0.0);
    }

    #[test]
    fn a_slow_rank_slows_the_messages_at_its_port() {
        // As above, rank 3 at half the rate: 2 -> 3 takes 1 ms, 0 -> 3
        // starts when both 0's send (1 ms) and 3's receive (1 ms) are done
        // and takes 0.5 ms; rank 0's own first message is unaffected.
        let mut flows = vec![RankFlow::default(); 4];
        flows[0].sends = vec![msg(1, 1000, 0), msg(3, 250, 1)];
        flows[2].sends = vec![msg(3, 500, 0)];
        let rate = CostModel::new(0.0, 8e-3).unwrap();
        let rates = [8e-3, 8e-3, 8e-3, 4e-3];
        assert!((predict_seconds(&flows, &rate, Some(&rates)) - 1.5e-3).abs() < 1e-12);
    }
}
