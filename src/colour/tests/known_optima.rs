//! Families with known chromatic index.

use super::*;

#[test]
fn odd_complete_graphs() {
    for n in [5u32, 7, 9, 11, 13] {
        for m in [1u64, 2, 7, 1000, 1_000_000] {
            let e = complete(n, m);
            let c = solve_checked(n as usize, &e);
            assert_eq!(c.ticks, n as u64 * m, "K{n} x{m}: {:?}", c.stats);
            assert!(c.exhaustive.is_none());
            assert!(
                c.rounds.len() <= 400,
                "K{n} x{m}: {} rounds",
                c.rounds.len()
            );
        }
    }
}

#[test]
fn even_complete_graphs() {
    for n in [4u32, 6, 8, 10, 12] {
        for m in [1u64, 3, 1000] {
            let e = complete(n, m);
            let c = solve_checked(n as usize, &e);
            assert_eq!(c.ticks, (n as u64 - 1) * m, "K{n} x{m}: {:?}", c.stats);
        }
    }
}

#[test]
fn petersen_needs_four_with_proof() {
    let e = petersen(1);
    assert_eq!(brute_lb(10, &e), 3);
    assert_eq!(brute_chi(10, &e), 4);
    let c = solve_checked(10, &e);
    assert_eq!(c.ticks, 4);
    let proof = c
        .exhaustive
        .expect("Petersen: 3 colours must be proved infeasible");
    assert!(proof.variables > 0 && proof.constraints > 0);
}

#[test]
fn petersen_doubled_is_six() {
    let c = solve_checked(10, &petersen(2));
    assert_eq!(c.ticks, 6);
    assert!(c.exhaustive.is_none());
}

#[test]
fn odd_cycles() {
    for k in [2u64, 3] {
        let n = 2 * k + 1;
        for m in [1u64, 2, 3, 5, 7, 1000, 1_000_000] {
            let want = (2 * m).max((2 * m * n).div_ceil(2 * k));
            let e = cycle(n as u32, m);
            let c = solve_checked(n as usize, &e);
            assert_eq!(c.ticks, want, "C{n} x{m}: {:?}", c.stats);
        }
    }
}

#[test]
fn bipartite_graphs_reach_delta() {
    let mut rng = TestRng(0x1234_5678);
    for case in 0..40 {
        let (l, r) = (2 + rng.below(6) as u32, 2 + rng.below(6) as u32);
        let maxm = if case % 4 == 0 { 1000 } else { 4 };
        let mut e = Vec::new();
        for a in 0..l {
            for b in 0..r {
                if rng.below(100) < 50 {
                    e.push((a, l + b, 1 + rng.below(maxm)));
                }
            }
        }
        if e.is_empty() {
            continue;
        }
        let n = (l + r) as usize;
        let d = delta(n, &e);
        let c = solve_with_lb(n, &e, d.max(brute_ceil_gamma(n, &e)));
        assert_eq!(c.ticks, d, "bipartite case {case}: {e:?} {:?}", c.stats);
    }
}

#[test]
fn empty_and_single_edge() {
    let c = solve_with_lb(3, &[], 0);
    assert_eq!(c.ticks, 0);
    assert!(c.rounds.is_empty());
    let c = solve_with_lb(2, &[(0, 1, 5)], 5);
    assert_eq!(c.ticks, 5);
    assert_eq!(c.rounds.len(), 1);
}

#[test]
fn same_input_same_output() {
    let mut rng = TestRng(99);
    for case in 0..6 {
        let e = if case % 2 == 0 {
            random_graph(&mut rng, 12, 50, 3)
        } else {
            petersen(1000 + 2 * case)
        };
        let a = solve_checked(12, &e);
        let b = solve_checked(12, &e);
        assert_eq!(a.rounds, b.rounds);
        assert_eq!(a.ticks, b.ticks);
    }
}
