//! Random multigraphs against brute-force references.

use super::*;
use proptest::prelude::*;

fn graph(n: usize, raw: Vec<(u32, u32, u64)>, max_chunks: u64) -> Edges {
    let mut seen = std::collections::HashSet::new();
    let mut chunks = 0;
    let mut e = Vec::new();
    for (a, b, m) in raw {
        let (a, b) = (a % n as u32, b % n as u32);
        if a == b || !seen.insert((a.min(b), a.max(b))) {
            continue;
        }
        let m = m.min(max_chunks - chunks);
        if m == 0 {
            break;
        }
        chunks += m;
        e.push((a.min(b), a.max(b), m));
    }
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(250))]
    /// Tiny graphs: exact chromatic index by exhaustive search.
    #[test]
    fn small_graphs_match_brute_force(
        n in 2usize..=8,
        raw in proptest::collection::vec((0u32..8, 0u32..8, 1u64..4), 1..14),
    ) {
        let e = graph(n, raw, 12);
        let lb = brute_lb(n, &e);
        let chi = brute_chi(n, &e);
        prop_assert!(chi == lb || chi == lb + 1, "Goldberg-Seymour violated by brute force?");
        let c = solve_with_lb(n, &e, lb);
        prop_assert!(c.ticks >= chi);
        prop_assert!(c.ticks <= chi + 1);
        if c.ticks == lb + 1 && c.exhaustive.is_some() {
            prop_assert_eq!(chi, lb + 1, "false infeasibility proof");
        }
        // Small enough for the exact phase: the answer must be optimal.
        prop_assert_eq!(c.ticks, chi, "{:?} stats {:?}", e, c.stats);
        prop_assert_eq!(c.exhaustive.is_some(), chi == lb + 1);
    }

    /// Larger graphs: never above the Goldberg-Seymour bound max(Delta + 1, ceil Gamma).
    #[test]
    fn larger_graphs_within_goldberg_seymour(
        n in 5usize..=12,
        raw in proptest::collection::vec((0u32..12, 0u32..12, 1u64..30), 5..50),
        scale in prop_oneof![Just(1u64), Just(1000u64)],
    ) {
        // The offset keeps the gcd at 1, so the LP route (not gcd scaling) is exercised.
        let e: Edges = graph(n, raw, 10_000)
            .into_iter()
            .map(|(a, b, m)| (a, b, m * scale + if scale > 1 { ((a + 3 * b) % 5) as u64 } else { 0 }))
            .collect();
        let d = delta(n, &e);
        let g = brute_ceil_gamma(n, &e);
        let c = solve_with_lb(n, &e, d.max(g));
        prop_assert!(c.ticks <= (d + 1).max(g), "ticks {} Delta {} ceilGamma {} {:?}", c.ticks, d, g, c.stats);
        prop_assert!(c.rounds.len() <= 2000);
    }
}

#[test]
fn random_sparse_graphs_reach_bound() {
    // Medium random graphs where LB is known by brute force (n = 12).
    let mut rng = TestRng(0xdead_beef);
    let mut at_lb = 0;
    for _ in 0..30 {
        let e = random_graph(&mut rng, 12, 40, 3);
        if e.is_empty() {
            continue;
        }
        let lb = brute_lb(12, &e);
        let c = solve_with_lb(12, &e, lb);
        assert!(c.ticks <= lb + 1, "{e:?}: {} vs lb {lb}", c.ticks);
        at_lb += (c.ticks == lb) as u32;
    }
    assert!(at_lb >= 20, "only {at_lb} of 30 reached LB");
}
