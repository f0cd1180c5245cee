//! Larger random instances with LB = ceil(LP optimum) (the LP value is
//! max(Delta, Gamma), checked against brute force in `components`).
//! Asserts Goldberg-Seymour's bound; prints how often LB is reached.

use super::super::colgen::fractional_colouring;
use super::super::greedy::greedy_rounds;
use super::*;
use std::time::{Duration, Instant};

fn lp_lb(n: usize, e: &[(u32, u32, u64)]) -> (u64, u64) {
    let start: Vec<Vec<u32>> = greedy_rounds(n, e).into_iter().map(|r| r.1).collect();
    let lp =
        fractional_colouring(n, e, &start, 0.0, 100_000, Duration::from_secs(600)).expect("LP");
    assert!(lp.optimal);
    let d = delta(n, e);
    let g = (lp.value - 1e-9 * lp.value.max(1.0)).ceil() as u64;
    (d.max(g), d)
}

/// Union of `k` random Hamiltonian cycles, each with its own multiplicity in 1..=maxm
/// (near-regular: Gamma close to Delta on odd n, the hard regime).
fn ham_union(rng: &mut TestRng, n: u32, k: u32, maxm: u64) -> Edges {
    let mut w = std::collections::BTreeMap::new();
    for _ in 0..k {
        let mut perm: Vec<u32> = (0..n).collect();
        for i in (1..n as usize).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let m = 1 + rng.below(maxm);
        for i in 0..n as usize {
            let (a, b) = (perm[i], perm[(i + 1) % n as usize]);
            *w.entry((a.min(b), a.max(b))).or_insert(0) += m;
        }
    }
    w.into_iter().map(|((a, b), m)| (a, b, m)).collect()
}

fn family(seed: u64, n: u32, p: u64, maxm: u64) -> (usize, usize, usize, f64) {
    let mut rng = TestRng(seed);
    let (mut at_lb, mut plus1, mut worse) = (0, 0, 0);
    let mut worst_s: f64 = 0.0;
    for _ in 0..12 {
        let e = if p >= 1000 {
            ham_union(&mut rng, n, (p - 1000) as u32, maxm)
        } else {
            random_graph(&mut rng, n, p, maxm)
        };
        if e.is_empty() {
            continue;
        }
        let (lb, d) = lp_lb(n as usize, &e);
        let t = Instant::now();
        let c = solve_with_lb(n as usize, &e, lb);
        worst_s = worst_s.max(t.elapsed().as_secs_f64());
        assert!(
            c.ticks <= (d + 1).max(lb),
            "n{n} p{p} m{maxm}: ticks {} LB {lb} Delta {d} {:?}",
            c.ticks,
            c.stats
        );
        match c.ticks - lb {
            0 => at_lb += 1,
            1 => plus1 += 1,
            _ => worse += 1,
        }
    }
    (at_lb, plus1, worse, worst_s)
}

#[test]
fn random_families_reach_lb_mostly() {
    let mut total_lb = 0;
    let mut total = 0;
    for (n, p, maxm) in [
        (15u32, 60u64, 3u64),
        (25, 30, 5),
        (40, 20, 1000),
        (21, 90, 1),
        (31, 50, 2),
        (60, 10, 1_000_000),
        (9, 100, 1000),
        (15, 100, 3),
        (11, 1002, 1),
        (13, 1003, 1),
        (21, 1003, 5),
        (15, 1004, 1000),
        (41, 1003, 1_000_000),
    ] {
        let (a, b, w, s) = family(0x51ed_2701 ^ (n as u64 * 131 + p), n, p, maxm);
        println!("n={n} p={p} m<={maxm}: at LB {a}, LB+1 {b}, worse {w}, slowest {s:.3}s");
        total_lb += a;
        total += a + b + w;
    }
    assert!(
        total_lb * 10 >= total * 9,
        "LB reached on only {total_lb}/{total}"
    );
}
