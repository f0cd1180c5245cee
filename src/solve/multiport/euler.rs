//! Euler orientation: the edges of a simple graph directed along Euler
//! circuits, so that every vertex enters as often as it leaves, within
//! one. What Hakimi–Kariv's orientation of STRICT1's odd edges (module
//! `solver`) and the split of arcs into port halves (module
//! `port_halves`) both take.

/// Orients the edges of odd multiplicity along Euler circuits: returns, per
/// edge, whether its odd chunk goes `a -> b` (`true`) or `b -> a`.
/// Hierholzer on the simple graph of odd edges plus a dummy vertex joined to
/// every vertex of odd degree.
pub(super) fn euler_orient(slots: usize, odd_edges: &[(u32, u32)]) -> Vec<bool> {
    let dummy = slots;
    let mut ends: Vec<(usize, usize)> = odd_edges
        .iter()
        .map(|&(a, b)| (a as usize, b as usize))
        .collect();
    let real = ends.len();
    let mut deg = vec![0usize; slots + 1];
    for &(a, b) in &ends {
        deg[a] += 1;
        deg[b] += 1;
    }
    for (v, &k) in deg.iter().enumerate().take(slots) {
        if k % 2 == 1 {
            ends.push((v, dummy));
        }
    }
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); slots + 1];
    for (e, &(a, b)) in ends.iter().enumerate() {
        adj[a].push(e);
        adj[b].push(e);
    }
    let mut used = vec![false; ends.len()];
    let mut forward = vec![true; ends.len()];
    let mut next = vec![0usize; slots + 1];
    for start in 0..=slots {
        // Walk closed trails from `start` until its edges are used up; the
        // direction of traversal is the orientation (every vertex on a
        // closed trail is entered as often as it is left).
        loop {
            while next[start] < adj[start].len() && used[adj[start][next[start]]] {
                next[start] += 1;
            }
            if next[start] == adj[start].len() {
                break;
            }
            let mut v = start;
            loop {
                while next[v] < adj[v].len() && used[adj[v][next[v]]] {
                    next[v] += 1;
                }
                let Some(&e) = adj[v].get(next[v]) else {
                    break;
                };
                used[e] = true;
                let (a, b) = ends[e];
                forward[e] = a == v;
                v = if a == v { b } else { a };
            }
        }
    }
    forward.truncate(real);
    forward
}
