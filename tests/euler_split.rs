//! READ1_WRITE1 by Euler splits (issue 15 item 4): on random instances with
//! few chunks per pair the solve picks the split colouring, meets Delta with
//! status `optimal`, and its schedule validates (compact and expanded);
//! STRICT1 instances whose load greedy meets Delta are proven optimal
//! without the odd-set search.

mod common;
use common::*;
use proptest::prelude::*;
use tickopt::instance::Model;
use tickopt::solve::first_fit;
use tickopt::solve::koenig::{euler_split_schedule, prefers_euler_split};
use tickopt::solve::Status;
use tickopt::validate::{validate_compact, validate_expanded};
use tickopt::{solve_instance, SolveRequest};

/// Random demands on `n` slots (no self-pairs), 1..=`max_chunks` chunks of
/// bandwidth 4 each (the last one ragged).
fn arb_demands(
    max_slots: u32,
    max_chunks: u64,
) -> impl Strategy<Value = (u32, Vec<(u32, u32, u64)>)> {
    (2u32..=max_slots).prop_flat_map(move |n| {
        let pairs =
            proptest::collection::vec((0..n, 1..n, 1..=4 * max_chunks), 1..(2 * n * n) as usize)
                .prop_map(move |raw| {
                    raw.into_iter()
                        .map(|(a, k, bits)| (a, (a + k) % n, bits))
                        .collect::<Vec<_>>()
                });
        (Just(n), pairs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn small_multiplicities_take_the_split_and_are_optimal((n, demands) in arb_demands(9, 3)) {
        let inst = instance(Model::Read1Write1, n, 4, &demands);
        let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
        prop_assert_eq!(sol.status, Status::Optimal);
        prop_assert_eq!(sol.ticks, sol.bounds.degree.ticks);
        // Dense matrices take first fit (planning inside the step), as do
        // dense equal components solved once per class; the others the
        // split where it is preferred.
        let solver = sol.stats.solver.as_str();
        if first_fit::applies(&inst) {
            prop_assert_eq!(solver, "first_fit");
        } else if prefers_euler_split(&inst) {
            prop_assert!(solver == "euler_split" || solver == "first_fit", "{}", solver);
        }
        prop_assert!(validate_expanded(&inst, &sol.schedule).passed());
    }

    #[test]
    fn the_split_meets_delta_at_any_multiplicity((n, demands) in arb_demands(7, 40)) {
        let inst = instance(Model::Read1Write1, n, 4, &demands);
        let s = euler_split_schedule(&inst).unwrap();
        let delta = tickopt::graph::DemandGraph::new(&inst).max_degree().0;
        prop_assert_eq!(s.ticks(), delta);
        prop_assert!(validate_compact(&inst, &s).passed());
        prop_assert!(validate_expanded(&inst, &s).passed());
        prop_assert_eq!(Some(s), euler_split_schedule(&inst));
    }
}

/// Every ordered pair of `k` slots (slot ids spread over `k + 2` slots, so
/// some slots have no demands) with 1..=`max_chunks` chunks of bandwidth 4.
fn arb_all_to_all(max_chunks: u64) -> impl Strategy<Value = (u32, Vec<(u32, u32, u64)>)> {
    (4u32..=10, 0u32..3).prop_flat_map(move |(k, skip)| {
        let n = k + 2;
        let ids: Vec<u32> = (0..n).filter(|&v| v != skip && v != n - 1).collect();
        let pairs: Vec<(u32, u32)> = ids
            .iter()
            .flat_map(|&a| ids.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
            .collect();
        proptest::collection::vec(1..=4 * max_chunks, pairs.len()).prop_map(move |bits| {
            let demands = pairs
                .iter()
                .zip(bits)
                .map(|(&(a, b), c)| (a, b, c))
                .collect();
            (n, demands)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// All-to-all supports, where a 1-factorisation is peeled first (even
    /// and odd active slot counts): READ1_WRITE1 meets Delta, STRICT1 is
    /// valid and its status honest, both model schedules validate tick by
    /// tick.
    #[test]
    fn all_to_all_supports_are_peeled_and_valid((n, demands) in arb_all_to_all(3)) {
        for model in [Model::Read1Write1, Model::Strict1] {
            let inst = instance(model, n, 4, &demands);
            let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
            prop_assert!(validate_expanded(&inst, &sol.schedule).passed());
            prop_assert!(sol.ticks >= sol.bounds.best.ticks);
            if model == Model::Read1Write1 {
                prop_assert_eq!(sol.status, Status::Optimal);
                prop_assert_eq!(sol.ticks, sol.bounds.degree.ticks);
            }
            if sol.status == Status::Optimal {
                prop_assert_eq!(sol.ticks, sol.bounds.best.ticks);
            }
            let greedy = tickopt::solve::greedy::greedy_schedule(&inst);
            prop_assert!(validate_expanded(&inst, &greedy).passed());
        }
    }
}

#[test]
fn moe_all_to_all_takes_first_fit_and_the_split_meets_delta_too() {
    // 64 slots, every ordered pair with 1..=4 chunks: few chunks per pair.
    let demands: Vec<(u32, u32, u64)> = (0..64u32)
        .flat_map(|a| {
            (0..64u32)
                .filter(move |&b| b != a)
                .map(move |b| (a, b, 1 + (a * 7 + b * 3) as u64 % 16))
        })
        .collect();
    let inst = instance(Model::Read1Write1, 64, 4, &demands);
    assert!(prefers_euler_split(&inst) && first_fit::applies(&inst));
    let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
    assert_eq!(sol.stats.solver, "first_fit");
    assert_eq!(sol.status, Status::Optimal);
    assert_eq!(sol.ticks, sol.bounds.degree.ticks);
    let split = euler_split_schedule(&inst).expect("the split applies");
    assert_eq!(split.ticks(), sol.ticks);
    assert!(validate_compact(&inst, &split).passed());
}

#[test]
fn high_multiplicities_keep_the_peeling() {
    let demands: Vec<(u32, u32, u64)> = (0..8u32)
        .flat_map(|a| {
            (0..8u32)
                .filter(move |&b| b != a)
                .map(move |b| (a, b, 1 << 30))
        })
        .collect();
    let inst = instance(Model::Read1Write1, 8, 1, &demands);
    assert!(!prefers_euler_split(&inst));
    let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
    assert_eq!(sol.stats.solver, "koenig");
    assert_eq!(sol.status, Status::Optimal);
}

#[test]
fn strict1_greedy_at_delta_skips_the_odd_set_search() {
    // Slots 0..4 send to slots 4..8, 1..=3 chunks per pair: the undirected
    // multigraph is bipartite, so Delta is reachable, and the greedy meets
    // it; the bound is then complete (ceil Gamma <= chi' <= Delta).
    let demands: Vec<(u32, u32, u64)> = (0..4u32)
        .flat_map(|a| (4..8u32).map(move |b| (a, b, 4 * (1 + (a + b) as u64 % 3))))
        .collect();
    let inst = instance(Model::Strict1, 8, 4, &demands);
    let sol = solve_instance(&inst, &SolveRequest::default()).unwrap();
    assert!(validate_expanded(&inst, &sol.schedule).passed());
    assert_eq!(sol.stats.solver, "greedy");
    assert_eq!(sol.status, Status::Optimal);
    assert_eq!(sol.ticks, sol.bounds.degree.ticks);
    assert!(sol.bounds.complete);
    assert!(sol.bounds.odd_set.is_none());
}
