//! Each phase on its own: LP value, Kempe search, rounding, assignment ILP.

use super::super::assign_ilp::{t_colourable, IlpOutcome};
use super::super::check::check_rounds;
use super::super::colgen::fractional_colouring;
use super::super::greedy::greedy_rounds;
use super::super::kempe::colour_chunks;
use super::super::rounding::round_down;
use super::super::rounds::{classes_to_rounds, expand_chunks, ticks};
use super::*;
use proptest::prelude::*;
use std::time::Duration;

/// max(Delta, Gamma) with Gamma fractional, by enumeration.
fn brute_fractional(n: usize, e: &[(u32, u32, u64)]) -> f64 {
    let mut best = delta(n, e) as f64;
    for s in 0u32..(1 << n) {
        let k = s.count_ones() as u64;
        if k >= 3 && k & 1 == 1 {
            let x: u64 = e
                .iter()
                .filter(|&&(a, b, _)| s >> a & 1 == 1 && s >> b & 1 == 1)
                .map(|e| e.2)
                .sum();
            best = best.max(2.0 * x as f64 / (k - 1) as f64);
        }
    }
    best
}

fn start_columns(n: usize, e: &[(u32, u32, u64)]) -> Vec<Vec<u32>> {
    greedy_rounds(n, e).into_iter().map(|r| r.1).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    /// Column generation run to optimality equals max(Delta, Gamma) (Edmonds/Seymour).
    #[test]
    fn lp_value_is_max_delta_gamma(
        n in 3usize..=10,
        raw in proptest::collection::vec((0u32..10, 0u32..10, 1u64..50), 3..30),
    ) {
        let mut seen = std::collections::HashSet::new();
        let e: Edges = raw.into_iter()
            .map(|(a, b, m)| ((a % n as u32).min(b % n as u32), (a % n as u32).max(b % n as u32), m))
            .filter(|&(a, b, _)| a != b && seen.insert((a, b)))
            .collect();
        // Every pair may be a self-loop, leaving nothing to colour.
        prop_assume!(!e.is_empty());
        let lp = fractional_colouring(n, &e, &start_columns(n, &e), 0.0, 10_000, Duration::from_secs(60)).expect("LP solves");
        prop_assert!(lp.optimal);
        let want = brute_fractional(n, &e);
        prop_assert!((lp.value - want).abs() < 1e-6 * want.max(1.0), "LP {} vs {}", lp.value, want);
        // Rounding keeps exact coverage and matchings, and budget + kept = ceil(LP).
        for release in [0u64, 1, 3] {
            if let Some(r) = round_down(&e, &lp.columns, &lp.y, want.ceil() as u64, release) {
                let kept_edges: Edges =
                    e.iter().zip(&r.residual).map(|(&(a, b, m), &res)| (a, b, m - res)).collect();
                prop_assert!(check_rounds(n, &kept_edges, &r.kept).is_ok());
                prop_assert_eq!(r.budget + ticks(&r.kept), want.ceil() as u64);
            }
        }
    }

    /// Kempe output is always a proper colouring of every chunk.
    #[test]
    fn kempe_is_always_valid(
        n in 2usize..=12,
        raw in proptest::collection::vec((0u32..12, 0u32..12, 1u64..6), 1..40),
        slack in 0u32..2,
    ) {
        let mut seen = std::collections::HashSet::new();
        let e: Edges = raw.into_iter()
            .map(|(a, b, m)| ((a % n as u32).min(b % n as u32), (a % n as u32).max(b % n as u32), m))
            .filter(|&(a, b, _)| a != b && seen.insert((a, b)))
            .collect();
        let mult: Vec<u64> = e.iter().map(|x| x.2).collect();
        let (chunks, owner) = expand_chunks(&e, &mult);
        let d = delta(n, &e) as u32;
        let k = colour_chunks(n, &chunks, d + slack, 2_000, 7);
        prop_assert!(check_rounds(n, &e, &classes_to_rounds(&k.colour, &owner)).is_ok());
        prop_assert!(k.colours >= d);
    }
}

#[test]
fn kempe_one_factorises_even_complete_graphs() {
    for n in [4u32, 8, 16, 32, 64] {
        let e = complete(n, 1);
        let (chunks, _) = expand_chunks(&e, &vec![1; e.len()]);
        let k = colour_chunks(n as usize, &chunks, n - 1, 100 * chunks.len() as u64, 11);
        assert_eq!(k.colours, n - 1, "K{n}");
    }
}

#[test]
fn kempe_reports_failure_above_target() {
    // Petersen has no 3-edge-colouring: the search must report more than 3 colours.
    let e = petersen(1);
    let (chunks, owner) = expand_chunks(&e, &[1; 15]);
    let k = colour_chunks(10, &chunks, 3, 10_000, 3);
    assert!(k.colours >= 4);
    assert!(check_rounds(10, &e, &classes_to_rounds(&k.colour, &owner)).is_ok());
}

#[test]
fn assignment_ilp_decides_petersen() {
    let e = petersen(1);
    let m = [1u64; 15];
    let t = Duration::from_secs(20);
    assert!(matches!(
        t_colourable(10, &e, &m, 3, t, 10_000).0,
        IlpOutcome::Infeasible
    ));
    match t_colourable(10, &e, &m, 4, t, 10_000).0 {
        IlpOutcome::Feasible(r) => assert!(check_rounds(10, &e, &r).is_ok_and(|x| x <= 4)),
        other => panic!("4 colours must be feasible: {other:?}"),
    }
    // K5 x2 needs 10 (Gamma) although Delta is 8.
    let k5 = complete(5, 2);
    assert!(matches!(
        t_colourable(5, &k5, &[2; 10], 9, t, 10_000).0,
        IlpOutcome::Infeasible
    ));
    assert!(matches!(
        t_colourable(5, &k5, &[2; 10], 10, t, 10_000).0,
        IlpOutcome::Feasible(_)
    ));
}
