//! Small rails coloured without the engine: a bipartite multigraph with at
//! most [`MAX_SIDE`] vertices a side (a rail of 64 GPUs' nodes has 8) made
//! Delta-regular with dummy multiplicity, then peeled into perfect
//! matchings (Birkhoff, König: a regular bipartite multigraph has one).
//! Each round takes a perfect matching of the cells left, for as many
//! ticks as its smallest cell part (a cell's real multiplicity first, its
//! dummy after), and the matching is repaired, not rebuilt, where a cell
//! runs out, so most pairs stay matched over many rounds (long NIC
//! intervals). The rounds' real edges are the colouring: Delta colours,
//! every edge's multiplicity once, no vertex twice in a round.
//!
//! Vertices are bits of a u64, a matching is repaired by shortest
//! augmenting paths over those bits (as few pairs as can be change
//! partners: each change ends a NIC interval). At 8 nodes a rail's 56
//! edges take about as many rounds of a few dozen instructions each, where
//! building an instance for the engine's König colouring took longer than
//! colouring it.

use crate::relay::model::RelayError;

/// The most vertices a side coloured here.
pub(super) const MAX_SIDE: u32 = 64;

/// No vertex: an unmatched one's mate.
const NONE: usize = usize::MAX;

/// The colour classes of the bipartite multigraph with left vertices
/// `0..left`, right vertices `0..right` (both at most [`MAX_SIDE`]) and
/// `edges` `(l, r, multiplicity)` (distinct pairs, multiplicities > 0), in
/// order, each `(repeat, edge indices)`: the next `repeat` colours are the
/// matching of those edges; Delta colours in all. `Overflow` where a
/// vertex's multiplicities do not sum in a u64.
pub(super) fn peel_colour(
    left: u32,
    right: u32,
    edges: &[(u32, u32, u64)],
) -> Result<Vec<(u64, Vec<u32>)>, RelayError> {
    debug_assert!(left <= MAX_SIDE && right <= MAX_SIDE);
    let s = left.max(right) as usize;
    // Per cell (l, r): its edge and multiplicity left, and dummy left.
    let mut real = vec![(u32::MAX, 0u64); s * s];
    let (mut row, mut col) = (vec![0u64; s], vec![0u64; s]);
    for (e, &(l, r, m)) in edges.iter().enumerate() {
        let (l, r) = (l as usize, r as usize);
        real[l * s + r] = (e as u32, m);
        row[l] = row[l].checked_add(m).ok_or(RelayError::Overflow)?;
        col[r] = col[r].checked_add(m).ok_or(RelayError::Overflow)?;
    }
    let delta = row.iter().chain(&col).copied().max().unwrap_or(0);
    let mut dummy = regular_fill(&row, &col, delta);
    let mut adj = vec![0u64; s];
    for (i, a) in adj.iter_mut().enumerate() {
        for j in 0..s {
            if real[i * s + j].1 + dummy[i * s + j] > 0 {
                *a |= 1 << j;
            }
        }
    }
    let (mut mate_l, mut mate_r) = (vec![NONE; s], vec![NONE; s]);
    let mut rounds = Vec::new();
    let mut left_ticks = delta;
    while left_ticks > 0 {
        for i in 0..s {
            if mate_l[i] == NONE {
                let found = augment(i, &adj, &mut mate_l, &mut mate_r);
                debug_assert!(
                    found,
                    "a regular bipartite multigraph has a perfect matching"
                );
            }
        }
        // The ticks this matching lasts: its smallest cell part in use.
        let part = |i: usize| {
            let c = i * s + mate_l[i];
            if real[c].1 > 0 {
                real[c].1
            } else {
                dummy[c]
            }
        };
        let repeat = (0..s).map(part).min().expect("a vertex");
        let mut class = Vec::new();
        for i in 0..s {
            let j = mate_l[i];
            let c = i * s + j;
            if real[c].1 > 0 {
                class.push(real[c].0);
                real[c].1 -= repeat;
            } else {
                dummy[c] -= repeat;
            }
            if real[c].1 + dummy[c] == 0 {
                adj[i] &= !(1 << j);
                (mate_l[i], mate_r[j]) = (NONE, NONE);
            }
        }
        rounds.push((repeat, class));
        left_ticks -= repeat;
    }
    Ok(rounds)
}

/// Dummy multiplicity per cell (row-major, `row.len()` a side) that makes
/// every row and column sum to `delta` (the north-west corner rule over the
/// rows' and columns' shortfalls, which sum alike).
fn regular_fill(row: &[u64], col: &[u64], delta: u64) -> Vec<u64> {
    let s = row.len();
    let mut fill = vec![0u64; s * s];
    let mut short_r: Vec<u64> = row.iter().map(|&d| delta - d).collect();
    let mut short_c: Vec<u64> = col.iter().map(|&d| delta - d).collect();
    let (mut i, mut j) = (0, 0);
    while i < s && j < s {
        let x = short_r[i].min(short_c[j]);
        fill[i * s + j] += x;
        short_r[i] -= x;
        short_c[j] -= x;
        if short_r[i] == 0 {
            i += 1;
        } else {
            j += 1;
        }
    }
    fill
}

/// Matches left vertex `i` by a shortest augmenting path over the cells
/// `adj` (per left vertex, its right neighbours as bits): a breadth-first
/// search from `i`, so as few matched pairs as can be change partners
/// (each change ends a NIC interval); whether one was found.
fn augment(i: usize, adj: &[u64], mate_l: &mut [usize], mate_r: &mut [usize]) -> bool {
    // Per right vertex reached, the left vertex it was reached from; the
    // left vertices in the order reached (each once: a right vertex is
    // entered once and leads to its one mate).
    let mut from = [NONE; MAX_SIDE as usize];
    let mut queue = [0usize; MAX_SIDE as usize];
    let (mut head, mut tail) = (0, 1);
    queue[0] = i;
    let mut seen = 0u64;
    while head < tail {
        let l = queue[head];
        head += 1;
        let mut reach = adj[l] & !seen;
        seen |= reach;
        while reach != 0 {
            let j = reach.trailing_zeros() as usize;
            reach &= reach - 1;
            from[j] = l;
            if mate_r[j] == NONE {
                // Flip the path back to i.
                let mut j = j;
                loop {
                    let l = from[j];
                    let before = mate_l[l];
                    (mate_l[l], mate_r[j]) = (j, l);
                    if l == i {
                        return true;
                    }
                    j = before;
                }
            }
            queue[tail] = mate_r[j];
            tail += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `rounds` colour `edges` properly in Delta colours.
    fn check(left: u32, right: u32, edges: &[(u32, u32, u64)]) -> usize {
        let rounds = peel_colour(left, right, edges).unwrap();
        let mut got = vec![0u64; edges.len()];
        for (repeat, class) in &rounds {
            assert!(*repeat > 0);
            let (mut ls, mut rs) = (0u64, 0u64);
            for &e in class {
                let (l, r, _) = edges[e as usize];
                assert!(ls >> l & 1 == 0 && rs >> r & 1 == 0, "a vertex twice");
                (ls, rs) = (ls | 1 << l, rs | 1 << r);
                got[e as usize] += repeat;
            }
        }
        assert!(got.iter().zip(edges).all(|(&g, e)| g == e.2));
        let (mut row, mut col) = (vec![0u64; left as usize], vec![0u64; right as usize]);
        for &(l, r, m) in edges {
            row[l as usize] += m;
            col[r as usize] += m;
        }
        let delta = row.iter().chain(&col).max().copied().unwrap_or(0);
        assert_eq!(rounds.iter().map(|r| r.0).sum::<u64>(), delta);
        rounds.len()
    }

    #[test]
    fn peeled_rounds_colour_every_edge_in_delta_colours() {
        check(3, 2, &[(0, 0, 5), (1, 1, 2), (2, 0, 1), (2, 1, 4)]);
        check(1, 1, &[(0, 0, 7)]);
        check(2, 2, &[]);
        // Pseudo-random multigraphs up to 64 a side, some sparse.
        let mut x = 0x1234_5678_u64;
        for case in 0..60u64 {
            let (l, r) = (1 + (case * 7) % 64, 1 + (case * 13) % 64);
            let mut edges = Vec::new();
            for a in 0..l as u32 {
                for b in 0..r as u32 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % (1 + case % 5) == 0 {
                        edges.push((a, b, 1 + x % 50));
                    }
                }
            }
            check(l as u32, r as u32, &edges);
        }
    }

    #[test]
    fn a_rail_of_eight_nodes_takes_about_a_round_per_edge() {
        // All pairs of 8 nodes, multiplicities 40-47: far fewer rounds
        // than ticks (the NIC layer is kept as intervals of rounds).
        let edges: Vec<_> = (0..8u32)
            .flat_map(|a| {
                (0..8u32)
                    .filter(move |&b| b != a)
                    .map(move |b| (a, b, 40 + ((a * 3 + b) % 8) as u64))
            })
            .collect();
        let rounds = check(8, 8, &edges);
        assert!(rounds <= 2 * edges.len(), "{rounds} rounds");
    }

    #[test]
    fn multiplicities_past_u64_are_refused() {
        let edges = [(0, 0, u64::MAX), (0, 1, 1)];
        assert!(matches!(
            peel_colour(1, 2, &edges),
            Err(RelayError::Overflow)
        ));
    }
}
