//! The structural colouring (paths, cycles, uniform complete components)
//! against brute-force bounds: always valid, always exactly
//! `max(Delta, ceil Gamma)` ticks, with a witness that proves it.

use super::super::check::check_rounds;
use super::super::structure::colour_by_structure;
use super::*;
use proptest::prelude::*;

/// Checks validity, optimality against brute force, and the witness.
fn check_structure(n: usize, edges: &[(u32, u32, u64)]) {
    let s = colour_by_structure(n, edges).expect("structure applies");
    check_rounds(n, edges, &s.rounds).expect("valid rounds");
    assert_eq!(s.ticks, s.rounds.iter().map(|r| r.0).sum::<u64>());
    assert_eq!(s.ticks, brute_lb(n, edges), "not optimal: {edges:?}");
    match &s.odd_set {
        None => assert_eq!(s.ticks, delta(n, edges)),
        Some((set, inside)) => {
            let e: u64 = edges
                .iter()
                .filter(|&&(a, b, _)| set.contains(&a) && set.contains(&b))
                .map(|e| e.2)
                .sum();
            assert_eq!(e, *inside);
            assert!(set.len() % 2 == 1 && set.len() >= 3);
            assert_eq!((2 * e).div_ceil(set.len() as u64 - 1), s.ticks);
        }
    }
}

/// A disjoint union of paths and cycles with random lengths and multiplicities.
fn paths_and_cycles(rng: &mut TestRng, n: usize, max_m: u64) -> Edges {
    let mut edges = Vec::new();
    let mut v = 0u32;
    while (v as usize) + 2 <= n {
        let len = 2 + rng.below((n - v as usize - 1) as u64) as u32;
        let cycle = len >= 3 && rng.below(2) == 0;
        for i in 0..len - 1 {
            edges.push((v + i, v + i + 1, 1 + rng.below(max_m)));
        }
        if cycle {
            edges.push((v, v + len - 1, 1 + rng.below(max_m)));
        }
        v += len;
    }
    edges.sort();
    edges
}

#[test]
fn cycles_and_paths_are_optimal() {
    let mut rng = TestRng(7);
    for _ in 0..400 {
        let n = 2 + rng.below(13) as usize;
        let max_m = [1, 3, 10, 1000][rng.below(4) as usize];
        let edges = paths_and_cycles(&mut rng, n, max_m);
        if edges.is_empty() {
            continue;
        }
        check_structure(n, &edges);
    }
}

#[test]
fn complete_uniform_is_optimal() {
    for k in 2..=12u32 {
        for m in [1, 2, 7] {
            check_structure(k as usize, &complete(k, m));
        }
    }
    // A complete component beside an odd cycle and a path.
    let mut e = complete(6, 3);
    e.extend(cycle(7, 5).into_iter().map(|(a, b, m)| (a + 6, b + 6, m)));
    e.push((13, 14, 4));
    check_structure(15, &e);
}

#[test]
fn counts_past_u64_are_left_to_the_engine_not_wrapped() {
    // Degrees fit (2^63) but the odd set's inside count does not: a 5-cycle
    // of 2^62 (5 x 2^62 > 2^64) and a K5 of 2^61 (10 x 2^61). No witness
    // may state a wrapped count, so structure declines.
    assert!(colour_by_structure(5, &cycle(5, 1 << 62)).is_none());
    assert!(colour_by_structure(5, &complete(5, 1 << 61)).is_none());
    // Degrees past u64 decline too.
    assert!(colour_by_structure(3, &[(0, 1, u64::MAX), (1, 2, 1)]).is_none());
    // Below: 5 x 2^61 fits and is coloured with its witness.
    let m = 1u64 << 61;
    let s = colour_by_structure(5, &cycle(5, m)).expect("fits");
    assert_eq!(s.odd_set, Some(((0..5).collect(), 5 * m)));
}

#[test]
fn large_round_robin_is_a_one_factorisation() {
    for k in [999u32, 1000] {
        let e = complete(k, 2);
        let s = colour_by_structure(k as usize, &e).expect("complete");
        check_rounds(k as usize, &e, &s.rounds).expect("valid");
        let expect = if k % 2 == 0 { 2 * (k - 1) } else { 2 * k } as u64;
        assert_eq!(s.ticks, expect);
    }
}

#[test]
fn other_shapes_are_left_to_the_engine() {
    assert!(colour_by_structure(10, &petersen(1)).is_none());
    // Complete support with two multiplicities.
    let mut e = complete(5, 1);
    e[0].2 = 2;
    assert!(colour_by_structure(5, &e).is_none());
}

proptest! {
    #[test]
    fn prop_odd_rings_any_multiplicity(k in 1u32..40, m in 1u64..=1_000_000, extra in 0u64..3) {
        let k = 2 * k + 1;
        let mut e = cycle(k, m);
        e[0].2 += extra;
        let s = colour_by_structure(k as usize, &e).expect("cycle");
        check_rounds(k as usize, &e, &s.rounds).expect("valid");
        let total: u64 = e.iter().map(|x| x.2).sum();
        let d = delta(k as usize, &e);
        prop_assert_eq!(s.ticks, d.max((2 * total).div_ceil(k as u64 - 1)));
        prop_assert!(s.rounds.len() <= 2 * k as usize + 1);
    }
}
