//! The even split of each node pair's chunks over the G rails (NIC `k` of
//! the source node sends to NIC `k` of the destination node).
//!
//! Pair `(a,b)` with `c` chunks gives every rail `floor(c/G)`; the `c mod
//! G` chunks left over form a bipartite multigraph of source and
//! destination nodes, coloured *equitably* with G colours (colour = rail):
//! each node's leftover edges are cut into groups of G (a vertex copy per
//! group), so every copy has degree at most G, and a König colouring of
//! the copies in G colours gives each node every colour `floor(R/G)` or
//! `ceil(R/G)` times (R its leftover chunks). So each NIC sends
//! `sum_b floor(c_ab/G) + ceil(R_a/G) = ceil(out(a)/G)` chunks at most:
//! exactly the node bound, and likewise on the receiving side.

use super::colour::colour_bipartite;
use crate::relay::model::RelayError;

/// Per rail `k`, the node pairs it carries as `(pair, chunks)` (an index
/// into the pairs given, chunks > 0), in pair order.
pub(crate) type RailLoads = Vec<Vec<(u32, u64)>>;

/// Rail loads from dense shares (`share[p * g + k]`: pair `p`'s chunks on
/// rail `k`, `pairs` of them).
pub(crate) fn from_dense(share: &[u64], g: usize, pairs: usize) -> RailLoads {
    (0..g)
        .map(|k| {
            (0..pairs)
                .filter(|&p| share[p * g + k] > 0)
                .map(|p| (p as u32, share[p * g + k]))
                .collect()
        })
        .collect()
}

/// Splits `pairs` (`(a, b, chunks)`, distinct pairs, `a != b`) over `g`
/// rails. O(pairs x g) plus the König colouring of the leftovers.
pub(crate) fn split_rails(
    nodes: u32,
    g: u32,
    pairs: &[(u32, u32, u64)],
) -> Result<RailLoads, RelayError> {
    let gu = g as u64;
    // Per rail, chunks per pair (dense: pairs x g).
    let mut per_rail: Vec<Vec<u64>> = vec![pairs.iter().map(|p| p.2 / gu).collect(); g as usize];
    // The leftover chunks as edges between vertex copies (`left_fill`,
    // `right_fill`: leftovers counted so far per node; a copy holds G).
    let mut left_fill = vec![0u64; nodes as usize];
    let mut right_fill = vec![0u64; nodes as usize];
    // Per leftover chunk: (pair, left group, right group).
    let mut units: Vec<(usize, u64, u64)> = Vec::new();
    for (p, &(a, b, c)) in pairs.iter().enumerate() {
        for _ in 0..c % gu {
            units.push((p, left_fill[a as usize] / gu, right_fill[b as usize] / gu));
            left_fill[a as usize] += 1;
            right_fill[b as usize] += 1;
        }
    }
    // Copy ids: node a's groups are numbered after those of nodes < a.
    let prefix = |fill: &[u64]| {
        let mut acc = 0u64;
        fill.iter()
            .map(|&f| {
                let start = acc;
                acc += f.div_ceil(gu);
                start
            })
            .collect::<Vec<u64>>()
    };
    let (lp, rp) = (prefix(&left_fill), prefix(&right_fill));
    // A pair's leftovers are consecutive and its copies only move on, and
    // the copies name the pair: equal copies are one edge exactly when
    // they follow one another.
    let mut edges: Vec<(u32, u32, u64)> = Vec::new();
    let mut edge_pair: Vec<usize> = Vec::new();
    for &(p, lg, rg) in &units {
        let (a, b, _) = pairs[p];
        let key = ((lp[a as usize] + lg) as u32, (rp[b as usize] + rg) as u32);
        match edges.last_mut() {
            Some(e) if (e.0, e.1) == key => e.2 += 1,
            _ => {
                edges.push((key.0, key.1, 1));
                edge_pair.push(p);
            }
        }
    }
    let copies =
        |p: &[u64], f: &[u64]| p.last().map_or(0, |&s| s + f.last().unwrap().div_ceil(gu)) as u32;
    let classes = colour_bipartite(copies(&lp, &left_fill), copies(&rp, &right_fill), &edges)?;
    let mut colour = 0u64;
    for (repeat, class) in classes {
        for _ in 0..repeat {
            for &e in &class {
                per_rail[(colour % gu) as usize][edge_pair[e as usize]] += 1;
            }
            colour += 1;
        }
    }
    Ok(per_rail
        .into_iter()
        .map(|counts| {
            counts
                .into_iter()
                .enumerate()
                .filter(|&(_, c)| c > 0)
                .map(|(p, c)| (p as u32, c))
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nic_carries_at_most_the_node_bound_and_all_chunks_are_kept() {
        let g = 4u32;
        let nodes = 5u32;
        let mut pairs = Vec::new();
        let mut x = 7u64;
        for a in 0..nodes {
            for b in 0..nodes {
                if a != b {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    pairs.push((a, b, (x >> 33) % 23));
                }
            }
        }
        pairs.retain(|p| p.2 > 0);
        let rails = split_rails(nodes, g, &pairs).unwrap();
        let mut total = std::collections::BTreeMap::new();
        for rail in &rails {
            let (mut out, mut inn) = (vec![0u64; nodes as usize], vec![0u64; nodes as usize]);
            for &(p, c) in rail {
                let (a, b, _) = pairs[p as usize];
                out[a as usize] += c;
                inn[b as usize] += c;
                *total.entry((a, b)).or_insert(0) += c;
            }
            for v in 0..nodes as usize {
                let node_out: u64 = pairs
                    .iter()
                    .filter(|p| p.0 as usize == v)
                    .map(|p| p.2)
                    .sum();
                let node_in: u64 = pairs
                    .iter()
                    .filter(|p| p.1 as usize == v)
                    .map(|p| p.2)
                    .sum();
                assert!(out[v] <= node_out.div_ceil(g as u64), "node {v} out");
                assert!(inn[v] <= node_in.div_ceil(g as u64), "node {v} in");
            }
        }
        for &(a, b, c) in &pairs {
            assert_eq!(total[&(a, b)], c);
        }
    }
}
