//! The blossom matching against a brute-force maximum-weight matching.

use super::super::blossom::{max_weight_matching, UNMATCHED};
use proptest::prelude::*;

/// Best matching weight by recursion on the lowest free vertex.
fn brute(n: usize, w: &[Vec<i64>], free: u32) -> i64 {
    let Some(v) = (0..n).find(|&v| free >> v & 1 == 1) else {
        return 0;
    };
    let rest = free & !(1 << v);
    let mut best = brute(n, w, rest);
    for u in 0..n {
        if rest >> u & 1 == 1 && w[v][u] > 0 {
            best = best.max(w[v][u] + brute(n, w, rest & !(1 << u)));
        }
    }
    best
}

fn check_against_brute(n: usize, edges: &[(usize, usize, i64)]) -> Result<(), TestCaseError> {
    let mut w = vec![vec![0i64; n]; n];
    for &(a, b, x) in edges {
        w[a][b] = w[a][b].max(x);
        w[b][a] = w[a][b];
    }
    let mate = max_weight_matching(n, edges);
    let mut total = 0;
    for v in 0..n {
        if mate[v] != UNMATCHED {
            let u = mate[v];
            prop_assert_eq!(mate[u], v, "mate not symmetric");
            prop_assert!(w[v][u] > 0, "matched along a missing edge");
            if v < u {
                total += w[v][u];
            }
        }
    }
    prop_assert_eq!(total, brute(n, &w, (1u32 << n) - 1));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]
    #[test]
    fn blossom_matches_brute_force(
        n in 2usize..11,
        raw in proptest::collection::vec((0usize..11, 0usize..11, 1i64..40), 0..30),
    ) {
        let mut seen = std::collections::HashSet::new();
        let edges: Vec<(usize, usize, i64)> = raw
            .into_iter()
            .map(|(a, b, w)| (a % n, b % n, w))
            .filter(|&(a, b, _)| a != b && seen.insert((a.min(b), a.max(b))))
            .collect();
        check_against_brute(n, &edges)?;
    }

    /// Equal weights stress the blossom bookkeeping (many ties, many blossoms).
    #[test]
    fn blossom_unit_weights(n in 3usize..12, mask in any::<u64>()) {
        let mut edges = Vec::new();
        let mut bit = 0;
        for a in 0..n {
            for b in a + 1..n {
                if mask >> (bit % 64) & 1 == 1 {
                    edges.push((a, b, 1 + (bit as i64 % 3) / 2));
                }
                bit += 1;
            }
        }
        check_against_brute(n, &edges)?;
    }
}

#[test]
fn blossom_odd_cycle_and_triangle_chain() {
    // A 5-cycle: two edges; a triangle with a heavy pendant.
    check_against_brute(5, &[(0, 1, 5), (1, 2, 5), (2, 3, 5), (3, 4, 5), (4, 0, 5)]).unwrap();
    check_against_brute(5, &[(0, 1, 4), (1, 2, 4), (0, 2, 4), (2, 3, 9), (3, 4, 1)]).unwrap();
}
