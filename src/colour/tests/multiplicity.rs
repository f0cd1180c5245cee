//! Solve effort and schedule size must not grow with multiplicity.

use super::*;
use std::time::Instant;

#[test]
fn rounds_stay_few_at_huge_multiplicity() {
    for (name, n, base) in [
        ("K9", 9usize, complete(9, 1)),
        ("Petersen", 10, petersen(1)),
    ] {
        for m in [1u64, 1000, 1_000_000] {
            let e: Edges = base.iter().map(|&(a, b, _)| (a, b, m)).collect();
            let t = Instant::now();
            let c = solve_checked(n, &e);
            println!(
                "{name} x{m}: ticks {} rounds {} in {:?} via {}",
                c.ticks,
                c.rounds.len(),
                t.elapsed(),
                c.stats.method
            );
            assert!(
                c.rounds.len() <= 300,
                "{name} x{m}: {} rounds",
                c.rounds.len()
            );
            let lb = brute_lb(n, &e);
            assert!(c.ticks <= lb + 1);
            if name == "K9" {
                assert_eq!(c.ticks, 9 * m);
            }
            if name == "Petersen" && m & 1 == 0 {
                assert_eq!(c.ticks, 3 * m, "{name} x{m}: 2-factor pairs give 3m");
            }
        }
    }
}

#[test]
fn lp_route_is_multiplicity_independent() {
    // gcd 1, so no scaling shortcut: rounds and solve effort come from the LP support.
    for m in [1000u64, 1_000_000, 1_000_000_000] {
        let e: Edges = complete(9, m)
            .into_iter()
            .enumerate()
            .map(|(i, (a, b, x))| (a, b, x + (i as u64 % 3)))
            .collect();
        let lb = brute_lb(9, &e);
        let t = Instant::now();
        let c = solve_checked(9, &e);
        println!(
            "K9 x{m}+(0..2): ticks {} (LB {lb}) rounds {} in {:?} via {}",
            c.ticks,
            c.rounds.len(),
            t.elapsed(),
            c.stats.method
        );
        assert_eq!(c.ticks, lb, "{:?}", c.stats);
        assert!(c.rounds.len() <= 300);
    }
}
