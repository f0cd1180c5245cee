//! The fast path of [`validate_compact`] against the general path, report
//! for report, on small multi-port instances and doctored schedules
//! (indices out of range, a demand several times in a round, slots over
//! their ports, zero and overflowing repeats), and against expanding.

use super::{validate_compact, validate_compact_with, validate_expanded};
use crate::instance::{Demand, Instance, Limits, Model, Ports};
use crate::schedule::{Round, Schedule};
use proptest::prelude::*;

/// A multi-port instance: 2..=5 slots with 1..=3 ports each, some demands
/// with their own bandwidth.
fn instance() -> impl Strategy<Value = Instance> {
    (2u32..=5, any::<bool>()).prop_flat_map(|(n, strict)| {
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|s| (0..n).filter(move |&t| t != s).map(move |t| (s, t)))
            .collect();
        let m = pairs.len();
        (
            proptest::collection::vec(1u32..=3, n as usize),
            proptest::sample::subsequence(pairs, 1..=m),
            proptest::collection::vec((1u64..=400, prop::option::of(50u64..=200)), m),
        )
            .prop_map(move |(ports, pairs, sizes)| {
                let model = if strict {
                    Model::Strict1
                } else {
                    Model::Read1Write1
                };
                let demands = pairs
                    .iter()
                    .zip(&sizes)
                    .map(|(&(src, dst), &(bits, bw))| (Demand { src, dst, bits }, bw));
                Instance::new_multiport(
                    model,
                    n,
                    100,
                    demands,
                    Ports::PerSlot(ports),
                    &Limits::default(),
                )
                .expect("valid instance")
            })
    })
}

/// Rounds of demand indices (one past the last is out of range), repeated
/// and unsorted at times; repeats small, zero, or near `u64::MAX`.
fn schedule(demands: usize) -> impl Strategy<Value = Schedule> {
    let repeat = prop_oneof![
        8 => 1u64..=4,
        1 => Just(0u64),
        1 => Just(1u64 << 63),
        1 => Just(u64::MAX),
    ];
    let round = (
        repeat,
        proptest::collection::vec(0..=demands as u32, 0..=6),
        any::<bool>(),
    )
        .prop_map(|(repeat, mut demands, sorted)| {
            if sorted {
                demands.sort_unstable();
            }
            Round { repeat, demands }
        });
    proptest::collection::vec(round, 0..=8).prop_map(Schedule::from_rounds)
}

fn case() -> impl Strategy<Value = (Instance, Schedule)> {
    instance().prop_flat_map(|inst| {
        let n = inst.demands().len();
        (Just(inst), schedule(n))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn fast_path_reports_as_the_general_path((inst, s) in case()) {
        let fast = validate_compact(&inst, &s);
        prop_assert_eq!(&fast, &validate_compact_with(&inst, &s, false));
        // Expanding gives the same verdict where it is short enough and
        // every round has ticks (a round repeated 0 times is a STRUCT
        // error in the compact form and simply absent once expanded).
        if s.checked_ticks().is_some_and(|t| t <= 64)
            && s.rounds.iter().all(|r| r.repeat > 0)
            && s.rounds.iter().all(|r| r.demands.iter().all(|&d| (d as usize) < inst.demands().len()))
        {
            prop_assert_eq!(fast.passed(), validate_expanded(&inst, &s).passed());
        }
    }
}
