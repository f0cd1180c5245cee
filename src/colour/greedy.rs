//! Compact greedy colouring (heuristic): each round is a maximal matching
//! built with priority to the edges whose endpoints have the largest remaining
//! degree, repeated `min m_e` over its edges. Every round exhausts at least one
//! edge, so there are at most |E| rounds whatever the multiplicities:
//! O(|E|^2 log |E|) worst case, independent of multiplicity.
//! Used as the always-valid fallback and as the start columns of the LP.

/// Greedy compact rounds `(repeat, edge ids)` covering every edge exactly `m_e` times.
pub fn greedy_rounds(n: usize, edges: &[(u32, u32, u64)]) -> Vec<(u64, Vec<u32>)> {
    let mut rem: Vec<u64> = edges.iter().map(|e| e.2).collect();
    let mut deg = vec![0u64; n];
    for &(a, b, m) in edges {
        deg[a as usize] += m;
        deg[b as usize] += m;
    }
    let mut alive: Vec<u32> = (0..edges.len() as u32)
        .filter(|&e| rem[e as usize] > 0)
        .collect();
    let mut used = vec![usize::MAX; n];
    let mut rounds = Vec::new();
    while !alive.is_empty() {
        // Key: larger endpoint degree first, then the smaller one, then index.
        alive.sort_by_key(|&e| {
            let (a, b, _) = edges[e as usize];
            let (da, db) = (deg[a as usize], deg[b as usize]);
            (
                std::cmp::Reverse(da.max(db)),
                std::cmp::Reverse(da.min(db)),
                e,
            )
        });
        let r = rounds.len();
        let mut m: Vec<u32> = Vec::new();
        for &e in &alive {
            let (a, b, _) = edges[e as usize];
            if used[a as usize] != r && used[b as usize] != r {
                used[a as usize] = r;
                used[b as usize] = r;
                m.push(e);
            }
        }
        let rep = m.iter().map(|&e| rem[e as usize]).min().unwrap_or(1);
        for &e in &m {
            let (a, b, _) = edges[e as usize];
            rem[e as usize] -= rep;
            deg[a as usize] -= rep;
            deg[b as usize] -= rep;
        }
        m.sort_unstable();
        rounds.push((rep, m));
        alive.retain(|&e| rem[e as usize] > 0);
    }
    rounds
}
