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
            if name == "Petersen" && m % 2 == 0 {
                assert_eq!(c.ticks, 3 * m, "{name} x{m}: 2-factor pairs give 3m");
            }
        }
    }
}
