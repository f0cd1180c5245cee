//! The fast path of [`validate_compact`] against the general path, report
//! for report, on small multi-port instances and doctored schedules
//! (indices out of range, a demand several times in a round, slots over
//! their ports, zero and overflowing repeats), and against expanding.

use super::{validate_compact, validate_compact_with, validate_expanded};
use crate::instance::{Demand, Instance, Limits, Model, Ports};
use crate::schedule::{ClassRounds, Round, Schedule};
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
            // One port everywhere half of the time (the one-port fast path).
            prop_oneof![
                Just(vec![1u32; n as usize]),
                proptest::collection::vec(1u32..=3, n as usize),
            ],
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

/// Copies of a random multigraph on 3-4 slots at slot offsets `k * n`
/// (copy `k`'s demand `j` is the instance's `k * q + j`), as classes of
/// one or two: rounds over the pattern, members the copies. Plain rounds
/// take the last copy when asked.
fn classed_case() -> impl Strategy<Value = (Instance, Schedule)> {
    let part = (3u32..=4, any::<bool>()).prop_flat_map(|(n, strict)| {
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|s| (0..n).filter(move |&t| t != s).map(move |t| (s, t)))
            .collect();
        let m = pairs.len();
        (
            Just((n, strict)),
            proptest::sample::subsequence(pairs, 1..=m),
            proptest::collection::vec(1u64..=6, m),
        )
    });
    (part, 2u32..=5, any::<bool>()).prop_flat_map(|(((n, strict), pairs, bits), copies, plain)| {
        let q = pairs.len();
        let demands = (0..copies).flat_map(|k| {
            let (pairs, bits) = (pairs.clone(), bits.clone());
            (0..q).map(move |j| Demand {
                src: k * n + pairs[j].0,
                dst: k * n + pairs[j].1,
                bits: bits[j],
            })
        });
        let model = if strict {
            Model::Strict1
        } else {
            Model::Read1Write1
        };
        let inst = Instance::new(model, copies * n, 2, demands, &Limits::default()).unwrap();
        let round = (1u64..=3, proptest::collection::vec(0..q as u32, 0..=3))
            .prop_map(|(repeat, demands)| Round { repeat, demands });
        // Random rounds (mostly failing coverage), or each pattern demand
        // alone for its chunks, in a random order (valid).
        let serial: Vec<Round> = (0..q)
            .map(|j| Round {
                repeat: inst.chunks(j),
                demands: vec![j as u32],
            })
            .collect();
        let rounds = prop_oneof![
            proptest::collection::vec(round, 0..=8),
            Just(serial).prop_shuffle(),
        ];
        (
            Just(inst),
            rounds.clone(),
            rounds,
            Just((q as u32, copies, plain)),
        )
            .prop_map(|(inst, a, b, (q, copies, plain))| {
                let member = |k: u32| (0..q).map(|j| k * q + j).collect::<Vec<u32>>();
                let in_classes = if plain { copies - 1 } else { copies };
                let split = in_classes / 2;
                let mut s = Schedule::new();
                s.classes.push(ClassRounds {
                    rounds: a.clone(),
                    members: (0..split.max(1)).map(member).collect(),
                });
                if in_classes > split.max(1) {
                    s.classes.push(ClassRounds {
                        rounds: b,
                        members: (split.max(1)..in_classes).map(member).collect(),
                    });
                }
                if plain {
                    for r in &a {
                        s.push(
                            r.repeat,
                            r.demands.iter().map(|&j| (copies - 1) * q + j).collect(),
                        );
                    }
                }
                (inst, s)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Classes kept (members that are true relabellings, slot-disjoint)
    /// validate as their layout does: the same verdict, and when it
    /// passes the same ticks and bits; the fast path reports as the
    /// general one.
    #[test]
    fn classes_validate_as_their_layout((inst, s) in classed_case()) {
        let kept = validate_compact(&inst, &s);
        prop_assert_eq!(&kept, &validate_compact_with(&inst, &s, false));
        let laid_out = validate_expanded(&inst, &s.flat());
        prop_assert_eq!(kept.passed(), laid_out.passed(), "{} / {}", kept.one_line(), laid_out.one_line());
        if kept.passed() {
            prop_assert_eq!(kept.ticks_total, laid_out.ticks_total);
            prop_assert_eq!(kept.bits_total, laid_out.bits_total);
            prop_assert_eq!(kept.ticks_total, s.ticks());
        }
    }
}

/// Doctored classes in memory, each refused with a STRUCT error saying
/// what is wrong: a pattern index past the pattern, a member with too few
/// demands, member 0 naming one demand twice, and an empty class.
#[test]
fn malformed_classes_are_struct_errors() {
    let demands = [(0, 1, 2), (1, 2, 2), (3, 4, 2), (4, 5, 2)].map(|(src, dst, bits)| Demand {
        src,
        dst,
        bits,
    });
    let inst = Instance::new(Model::Strict1, 6, 1, demands, &Limits::default()).unwrap();
    let class = |rounds: &[(u64, &[u32])], members: &[&[u32]]| {
        let mut s = Schedule::new();
        s.classes.push(ClassRounds {
            rounds: rounds
                .iter()
                .map(|&(repeat, d)| Round {
                    repeat,
                    demands: d.to_vec(),
                })
                .collect(),
            members: members.iter().map(|m| m.to_vec()).collect(),
        });
        s
    };
    let good = class(&[(2, &[0]), (2, &[1])], &[&[0, 1], &[2, 3]]);
    assert!(validate_compact(&inst, &good).passed());
    for (s, want) in [
        (
            class(&[(2, &[0]), (2, &[2])], &[&[0, 1], &[2, 3]]),
            "class 0 round 1: pattern demand 2 out of range (the class has 2 demands)",
        ),
        (
            class(&[(2, &[0]), (2, &[1])], &[&[0, 1], &[2]]),
            "class 0 member 1 maps 1 demands; the class has 2",
        ),
        (
            class(&[(4, &[0])], &[&[0, 0], &[2, 3]]),
            "class 0 member 0: two pattern demands map to the same demand 0",
        ),
        (class(&[(2, &[0])], &[]), "class 0 has no members"),
    ] {
        let r = validate_compact(&inst, &s);
        assert!(!r.passed());
        assert_eq!(r.errors[0].kind, super::ErrorKind::Struct, "{want}");
        assert_eq!(r.errors[0].msg, want);
    }
}

/// The classed cases are not all refusals: many pass, so the property's
/// "same ticks and bits" half is exercised.
#[test]
fn classed_cases_pass_often() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let passed = (0..400)
        .filter(|_| {
            let (inst, s) = classed_case().new_tree(&mut runner).unwrap().current();
            validate_compact(&inst, &s).passed()
        })
        .count();
    assert!(passed >= 100, "{passed} of 400");
}
