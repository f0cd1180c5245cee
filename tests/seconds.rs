//! Seconds (doc/design.md §12): the chosen chunk size against brute force
//! over every whole-byte chunk size, the proven bound, and the cost model
//! in instance JSON.

mod common;

use proptest::prelude::*;
use tickopt::bounds::{exact_bounds, simple_bounds};
use tickopt::cost::{solve_seconds, ChunkMode, CostModel, SecondsRequest};
use tickopt::graph::DemandGraph;
use tickopt::instance::{Instance, Model};
use tickopt::SolveRequest;

fn request(cost: CostModel, max_chunk_bits: Option<u64>) -> SecondsRequest {
    SecondsRequest {
        cost,
        auto_chunk: true,
        min_chunk_bits: None,
        max_chunk_bits,
        odd_set_time: None,
    }
}

/// min over c = 1..=max_bytes bytes of (tick bound at c) x (tick time at c),
/// each bound from a fresh instance at that chunk size.
fn brute_min(inst: &Instance, cost: &CostModel, max_bytes: u64, exact: bool) -> f64 {
    (1..=max_bytes)
        .map(|c| {
            let at = inst.with_bw(c * 8).unwrap();
            let g = DemandGraph::new(&at);
            let t = if exact {
                exact_bounds(&at, &g).best.ticks
            } else {
                simple_bounds(&at, &g).degree.ticks
            };
            cost.seconds(t, c * 8)
        })
        .fold(f64::INFINITY, f64::min)
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn demands(
    max_slots: u32,
    bits: std::ops::Range<u64>,
) -> impl Strategy<Value = (u32, Vec<(u32, u32, u64)>)> {
    (3..=max_slots).prop_flat_map(move |n| {
        (
            Just(n),
            prop::collection::vec((0..n, 0..n, bits.clone()), 1..9)
                .prop_map(|v| v.into_iter().filter(|(s, d, _)| s != d).collect::<Vec<_>>()),
        )
    })
}

fn cost_model() -> impl Strategy<Value = CostModel> {
    (0.0f64..60.0, 0.5f64..2000.0).prop_map(|(a, g)| CostModel::new(a, g).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// READ1_WRITE1 is always at the degree bound (König), so the chosen
    /// chunk size is exactly optimal and the bound is tight.
    #[test]
    fn read1_write1_choice_is_the_brute_force_optimum(
        (n, ds) in demands(6, 1..3000), cost in cost_model()
    ) {
        prop_assume!(!ds.is_empty());
        let inst = common::instance(Model::Read1Write1, n, 8, &ds);
        let r = solve_seconds(&inst, &request(cost, None), &SolveRequest::default()).unwrap();
        let max_bytes = inst.demands().iter().map(|d| d.bits).max().unwrap().div_ceil(8);
        let brute = brute_min(&inst, &cost, max_bytes, false);
        prop_assert_eq!(r.seconds.chunk, ChunkMode::Auto);
        prop_assert_eq!(r.instance.bw, r.seconds.chunk_bits);
        // Equal up to float rounding: two chunk sizes with the same exact
        // time may round 1 ulp apart.
        prop_assert!(same(r.seconds.predicted, brute), "{} vs {}", r.seconds.predicted, brute);
        prop_assert!(same(r.seconds.lower_bound, brute), "{} vs {}", r.seconds.lower_bound, brute);
        prop_assert!(r.seconds.bound_complete);
        // The schedule is at the chunk size it claims, and optimal there.
        prop_assert_eq!(r.solution.ticks, r.seconds.bound.ticks);
        prop_assert_eq!(r.seconds.bound.chunk_bits, r.instance.bw);
        prop_assert!(r.seconds.fluid_limit_seconds <= r.seconds.lower_bound * (1.0 + 1e-12));
    }

    /// STRICT1: the bound is valid (at most the predicted time and at most
    /// the brute-force minimum of the exact fractional bound), at least the
    /// degree-bound minimum, and the prediction is within 5% of the
    /// brute-force minimum of (fractional bound x tick time). Demands are
    /// cut into >= 20 chunks so one tick above the bound costs < 5%. (The
    /// degree bound alone is not a target any schedule can meet: a
    /// triangle needs 3/2 of it at every chunk size.)
    #[test]
    fn strict1_bound_is_valid_and_the_choice_close(
        (n, ds) in demands(6, 8000..24000), cost in cost_model()
    ) {
        prop_assume!(!ds.is_empty());
        let inst = common::instance(Model::Strict1, n, 8, &ds);
        let max_bytes = 50; // 8000 bits / (8 x 50) = 20 chunks at least
        let r = solve_seconds(&inst, &request(cost, Some(max_bytes * 8)), &SolveRequest::default()).unwrap();
        let degree = brute_min(&inst, &cost, max_bytes, false);
        let fractional = brute_min(&inst, &cost, max_bytes, true);
        let s = &r.seconds;
        prop_assert!(s.lower_bound <= s.predicted);
        prop_assert!(s.lower_bound <= fractional * (1.0 + 1e-12), "{} > {}", s.lower_bound, fractional);
        prop_assert!(s.lower_bound >= degree * (1.0 - 1e-12), "{} < {}", s.lower_bound, degree);
        prop_assert!(s.predicted <= 1.05 * fractional, "{} vs {}", s.predicted, fractional);
    }
}

/// A triangle: the odd set {0,1,2} joins the bound at every chunk size, so
/// the seconds bound is 3/2 of the degree bound and met by the schedule.
#[test]
fn odd_sets_enter_the_seconds_bound() {
    let inst = common::instance(
        Model::Strict1,
        5,
        8,
        &[(0, 1, 8000), (1, 2, 8000), (2, 0, 8000), (3, 4, 8)],
    );
    let cost = CostModel::new(10.0, 100.0).unwrap();
    let r = solve_seconds(&inst, &request(cost, None), &SolveRequest::default()).unwrap();
    assert_eq!(r.seconds.odd_sets, vec![vec![0, 1, 2]]);
    assert_eq!(r.seconds.lower_bound, r.seconds.predicted);
    assert_eq!(r.seconds.bound.witness.kind(), "odd_set");
    assert!(same(
        r.seconds.lower_bound,
        brute_min(&inst, &cost, 1000, true)
    ));
}
