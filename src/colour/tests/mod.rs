//! Tests of the colouring module: brute-force references (chromatic index,
//! Gamma, max-weight matching) and the instance families with known optima.

mod blossom_tests;
mod components;
mod known_optima;
mod multiplicity;
mod random_tests;
mod stress;
mod structure;

use super::{check, colour_strict1, ColourInput, Colouring};
use std::time::Duration;

pub type Edges = Vec<(u32, u32, u64)>;

/// Weighted degree maximum.
pub fn delta(n: usize, edges: &[(u32, u32, u64)]) -> u64 {
    let mut d = vec![0u64; n];
    for &(a, b, m) in edges {
        d[a as usize] += m;
        d[b as usize] += m;
    }
    d.into_iter().max().unwrap_or(0)
}

/// ceil(Gamma) by enumerating all odd vertex sets (n <= ~16); 0 when n < 3.
pub fn brute_ceil_gamma(n: usize, edges: &[(u32, u32, u64)]) -> u64 {
    let mut best = 0u64;
    for s in 0u32..(1u32 << n) {
        let k = s.count_ones() as u64;
        if k < 3 || k & 1 == 0 {
            continue;
        }
        let e: u64 = edges
            .iter()
            .filter(|&&(a, b, _)| s >> a & 1 == 1 && s >> b & 1 == 1)
            .map(|e| e.2)
            .sum();
        best = best.max((2 * e).div_ceil(k - 1));
    }
    best
}

/// LB = max(Delta, ceil Gamma) by brute force.
pub fn brute_lb(n: usize, edges: &[(u32, u32, u64)]) -> u64 {
    delta(n, edges).max(brute_ceil_gamma(n, edges))
}

/// Exact chromatic index by backtracking over chunks (tiny instances only).
pub fn brute_chi(n: usize, edges: &[(u32, u32, u64)]) -> u64 {
    let chunks: Vec<(usize, usize)> = edges
        .iter()
        .flat_map(|&(a, b, m)| (0..m).map(move |_| (a as usize, b as usize)))
        .collect();
    if chunks.is_empty() {
        return 0;
    }
    let mut k = delta(n, edges) as usize;
    loop {
        let mut used = vec![vec![false; k]; n];
        if bt(&chunks, 0, k, 0, &mut used) {
            return k as u64;
        }
        k += 1;
    }
}

fn bt(chunks: &[(usize, usize)], i: usize, k: usize, maxc: usize, used: &mut [Vec<bool>]) -> bool {
    if i == chunks.len() {
        return true;
    }
    let (a, b) = chunks[i];
    // Colours are interchangeable: a new colour is always the next unused one.
    for c in 0..k.min(maxc + 1) {
        if !used[a][c] && !used[b][c] {
            used[a][c] = true;
            used[b][c] = true;
            if bt(chunks, i + 1, k, maxc.max(c + 1), used) {
                return true;
            }
            used[a][c] = false;
            used[b][c] = false;
        }
    }
    false
}

/// Runs the solver with the brute-force LB (n <= 16) and checks the result.
pub fn solve_checked(n: usize, edges: &[(u32, u32, u64)]) -> Colouring {
    solve_with_lb(n, edges, brute_lb(n, edges))
}

/// Runs the solver with a given LB and checks the result.
pub fn solve_with_lb(n: usize, edges: &[(u32, u32, u64)], lb: u64) -> Colouring {
    let input = ColourInput {
        n,
        edges,
        lower_bound: lb,
        delta: delta(n, edges),
        time_limit: Some(Duration::from_secs(20)),
    };
    let c = colour_strict1(&input);
    if let Err(e) = check(&input, &c) {
        panic!("invalid colouring: {e}");
    }
    c
}

pub fn complete(n: u32, m: u64) -> Edges {
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b, m)))
        .collect()
}

pub fn cycle(n: u32, m: u64) -> Edges {
    let mut e: Edges = (0..n)
        .map(|i| (i.min((i + 1) % n), i.max((i + 1) % n), m))
        .collect();
    e.sort();
    e
}

pub fn petersen(m: u64) -> Edges {
    let mut e = Vec::new();
    for i in 0..5u32 {
        e.push((i, (i + 1) % 5, m)); // outer cycle
        e.push((i, i + 5, m)); // spokes
        e.push((5 + i, 5 + (i + 2) % 5, m)); // inner pentagram
    }
    let mut e: Edges = e
        .into_iter()
        .map(|(a, b, m)| (a.min(b), a.max(b), m))
        .collect();
    e.sort();
    e
}

/// Deterministic xorshift for test instance generation.
pub struct TestRng(pub u64);
impl TestRng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, k: u64) -> u64 {
        self.next() % k
    }
}

/// Random simple multigraph: each pair present with probability p_num/100, multiplicity 1..=maxm.
pub fn random_graph(rng: &mut TestRng, n: u32, p_num: u64, maxm: u64) -> Edges {
    let mut e = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if rng.below(100) < p_num {
                e.push((a, b, 1 + rng.below(maxm)));
            }
        }
    }
    e
}

/// A partial start with clashing or out-of-palette colours is repaired, not
/// trusted: the result is a proper colouring of every chunk.
#[test]
fn kempe_from_a_bad_start_is_still_proper() {
    use super::kempe::colour_chunks_from;
    // K4 with one chunk per pair, 3 colours; the start clashes at slot 0.
    let chunks = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let start = [0, 0, 7, u32::MAX, 1, 2];
    let k = colour_chunks_from(4, &chunks, 3, &start, 10_000, 1);
    assert_eq!(k.colours, 3);
    for (i, &(a, b)) in chunks.iter().enumerate() {
        for (j, &(c, d)) in chunks.iter().enumerate().skip(i + 1) {
            let share = a == c || a == d || b == c || b == d;
            assert!(!share || k.colour[i] != k.colour[j], "{i} {j}");
        }
    }
}
