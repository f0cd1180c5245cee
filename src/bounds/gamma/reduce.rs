//! Blocks and chains: the graph each odd-cut test runs on, made small
//! without changing the answer (module docs of `super`, *Blocks and
//! chains*).
//!
//! A searched component is split into its blocks (2-connected pieces;
//! bridges dropped), and in each block every maximal run of vertices with
//! exactly two neighbours in the block (a *chain*) becomes one vertex that
//! stands for all of them. A ring with chords is a cycle of long chains:
//! 20,001 slots and 100 chords leave about 200 vertices.

use super::NONE;
use crate::graph::Adjacency;

/// A graph the odd-cut test runs on: a searched component as it is
/// ([`Part::whole`]), or one of its blocks with its chains contracted
/// ([`blocks`]). Vertex `x` stands for the component vertices
/// [`Part::members`]`(x)`; `degree_sum[x]` is the sum of their degrees in
/// the graph the part comes from (the block), so that `x`'s slack to the
/// odd-cut vertex `t` is `lambda * |members(x)| - degree_sum[x] >= 0`
/// (each degree is at most `lambda`), and the multiplicity inside a chain
/// is accounted for in it.
pub(super) struct Part {
    /// `members[start[x]..start[x + 1]]` are vertex `x`'s.
    start: Vec<usize>,
    members: Vec<u32>,
    pub(super) degree_sum: Vec<u128>,
    /// Edges between the part's vertices `(a, b, multiplicity)`, `a != b`.
    pub(super) edges: Vec<(u32, u32, u128)>,
}

impl Part {
    /// The component itself: vertex `x` is component vertex `x`, with
    /// degree `deg[x]` over `edges`.
    pub(super) fn whole(deg: Vec<u128>, edges: Vec<(u32, u32, u128)>) -> Part {
        let k = deg.len();
        Part {
            start: (0..=k).collect(),
            members: (0..k as u32).collect(),
            degree_sum: deg,
            edges,
        }
    }

    /// Number of vertices.
    pub(super) fn len(&self) -> usize {
        self.degree_sum.len()
    }

    /// The component vertices `x` stands for.
    pub(super) fn members(&self, x: usize) -> &[u32] {
        &self.members[self.start[x]..self.start[x + 1]]
    }

    /// How many component vertices `x` stands for.
    pub(super) fn weight(&self, x: usize) -> u128 {
        (self.start[x + 1] - self.start[x]) as u128
    }
}

/// The blocks with at least 3 vertices of the simple graph on `0..k` with
/// `edges` (`(a, b, multiplicity)`, `a != b`, no pair twice), each with its
/// chains contracted: a vertex with three or more neighbours in the block
/// stays on its own, a maximal chain of vertices with two neighbours in the
/// block becomes one vertex joined to the chain's two ends, and a block
/// that is a cycle becomes a single vertex. Vertices are numbered by their
/// smallest member, and edges between kept vertices come in the order of
/// `edges` (then the chains' end edges), so that a 2-connected component
/// without chains gives back exactly [`Part::whole`]. `O(k + m log m)`.
pub(super) fn blocks(k: usize, edges: &[(u32, u32, u128)]) -> Vec<Part> {
    let mut scratch = Scratch {
        nbrs: vec![0; k],
        wdeg: vec![0; k],
        at: vec![NONE; k],
    };
    biconnected(k, edges)
        .into_iter()
        // A block of 3 or more vertices has 3 or more edges; a bridge has 1.
        .filter(|block| block.len() >= 3)
        .map(|block| contract(edges, &block, &mut scratch))
        .collect()
}

/// Per-vertex scratch of [`contract`], indexed by component vertex and left
/// as found (zero, zero, `NONE`).
struct Scratch {
    nbrs: Vec<u32>,
    wdeg: Vec<u128>,
    at: Vec<u32>,
}

/// One block (`block`: ids into `edges`, ascending) with its chains
/// contracted (see [`blocks`]).
fn contract(edges: &[(u32, u32, u128)], block: &[u32], s: &mut Scratch) -> Part {
    let mut verts: Vec<u32> = Vec::new();
    for &e in block {
        let (a, b, m) = edges[e as usize];
        for v in [a, b] {
            let v = v as usize;
            if s.nbrs[v] == 0 {
                verts.push(v as u32);
            }
            s.nbrs[v] += 1;
            s.wdeg[v] += m;
        }
    }
    verts.sort_unstable();
    for (i, &v) in verts.iter().enumerate() {
        s.at[v as usize] = i as u32;
    }
    let bl = verts.len();
    let branch: Vec<bool> = verts.iter().map(|&v| s.nbrs[v as usize] >= 3).collect();
    let wdeg: Vec<u128> = verts.iter().map(|&v| s.wdeg[v as usize]).collect();
    // The block's adjacency in positions of `verts`.
    let local: Vec<(u32, u32, u128)> = (block.iter())
        .map(|&e| {
            let (a, b, m) = edges[e as usize];
            (s.at[a as usize], s.at[b as usize], m)
        })
        .collect();
    let adj = Adjacency::of_edges(bl, &local, |other, _, m| (other, m));
    for &v in &verts {
        let v = v as usize;
        (s.nbrs[v], s.wdeg[v], s.at[v]) = (0, 0, NONE);
    }

    let mut part = Part {
        start: vec![0],
        members: Vec::with_capacity(bl),
        degree_sum: Vec::new(),
        edges: Vec::new(),
    };
    if !branch.contains(&true) {
        // A cycle: its only 2-connected part of 3 or more vertices is itself.
        part.members = verts;
        part.start.push(bl);
        part.degree_sum.push(wdeg.iter().sum());
        return part;
    }
    // Reduced ids in order of smallest member; a chain gets its id when
    // its smallest vertex comes up. Chain end edges are linked afterwards
    // (an end may get its id later).
    let mut id = vec![NONE; bl];
    let mut ends: Vec<(u32, u32, u128)> = Vec::new(); // (chain id, end position, m)
    let mut chain: Vec<u32> = Vec::new();
    for i in 0..bl {
        if id[i] != NONE {
            continue;
        }
        let x = part.len() as u32;
        id[i] = x;
        if branch[i] {
            part.members.push(verts[i]);
            part.degree_sum.push(wdeg[i]);
        } else {
            chain.clear();
            chain.push(i as u32);
            // Walk both ways to the branch vertices at the chain's ends.
            for &(first, m_first) in adj.row(i) {
                let (mut prev, mut cur, mut m) = (i as u32, first, m_first);
                let mut steps = 0;
                while !branch[cur as usize] && steps <= bl {
                    chain.push(cur);
                    let c = cur as usize;
                    let &(next, m_next) = (adj.row(c).iter())
                        .find(|&&(y, _)| y != prev)
                        .expect("a chain vertex has two neighbours in the block");
                    (prev, cur, m) = (cur, next, m_next);
                    steps += 1;
                }
                debug_assert!(branch[cur as usize], "a chain ends at branch vertices");
                ends.push((x, cur, m));
            }
            let mut sum = 0u128;
            for &c in &chain {
                id[c as usize] = x;
                sum += wdeg[c as usize];
                part.members.push(verts[c as usize]);
            }
            part.degree_sum.push(sum);
        }
        part.start.push(part.members.len());
    }
    part.edges = local
        .into_iter()
        .filter(|&(a, b, _)| branch[a as usize] && branch[b as usize])
        .map(|(a, b, m)| (id[a as usize], id[b as usize], m))
        .collect();
    part.edges
        .extend(ends.into_iter().map(|(x, end, m)| (x, id[end as usize], m)));
    part
}

/// The blocks (biconnected components) of the simple graph on `0..k` with
/// `edges`, each as its edge ids in ascending order. Iterative Hopcroft–
/// Tarjan (no recursion: components of a million slots are fine), `O(k +
/// m)` plus the sorting.
fn biconnected(k: usize, edges: &[(u32, u32, u128)]) -> Vec<Vec<u32>> {
    let adj = Adjacency::of_edges(k, edges, |other, e, _| (other, e));
    let mut disc = vec![NONE; k];
    let mut low = vec![0u32; k];
    let mut time = 0u32;
    let mut open: Vec<u32> = Vec::new(); // edges of blocks not yet closed
    let mut stack: Vec<(u32, u32, usize)> = Vec::new(); // (vertex, tree edge in, next arc)
    let mut out = Vec::new();
    for root in 0..k {
        if disc[root] != NONE {
            continue;
        }
        (disc[root], low[root]) = (time, time);
        time += 1;
        stack.push((root as u32, NONE, adj.positions(root).start));
        while let Some(top) = stack.last_mut() {
            let (v, via, next) = *top;
            let v = v as usize;
            if next < adj.positions(v).end {
                top.2 += 1;
                let (u, e) = *adj.at(next);
                let u = u as usize;
                if e == via {
                    continue;
                }
                if disc[u] == NONE {
                    open.push(e);
                    (disc[u], low[u]) = (time, time);
                    time += 1;
                    stack.push((u as u32, e, adj.positions(u).start));
                } else if disc[u] < disc[v] {
                    // A back edge to an ancestor (seen once, from below).
                    open.push(e);
                    low[v] = low[v].min(disc[u]);
                }
                continue;
            }
            stack.pop();
            if let Some(&(p, _, _)) = stack.last() {
                let p = p as usize;
                low[p] = low[p].min(low[v]);
                if low[v] >= disc[p] {
                    // p separates v's subtree: its open edges form a block.
                    let mut block = Vec::new();
                    while let Some(e) = open.pop() {
                        block.push(e);
                        if e == via {
                            break;
                        }
                    }
                    block.sort_unstable();
                    out.push(block);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(c: &mut [usize], mut x: usize) -> usize {
        while c[x] != x {
            c[x] = c[c[x]];
            x = c[x];
        }
        x
    }

    /// Brute force: two edges share a block iff no vertex separates them,
    /// i.e. iff for every vertex `v` (and for none) they are joined by a
    /// sequence of edges, each sharing an end other than `v` with the next.
    fn same_block_brute(k: usize, edges: &[(u32, u32, u128)], e: usize, f: usize) -> bool {
        (0..=k as u32).all(|cut| {
            let mut comp: Vec<usize> = (0..edges.len()).collect();
            for i in 0..edges.len() {
                for j in i + 1..edges.len() {
                    let (a, b, _) = edges[i];
                    let (c, d, _) = edges[j];
                    if [a, b].iter().any(|&x| x != cut && (x == c || x == d)) {
                        let (ri, rj) = (find(&mut comp, i), find(&mut comp, j));
                        comp[ri] = rj;
                    }
                }
            }
            find(&mut comp, e) == find(&mut comp, f)
        })
    }

    fn rng(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn blocks_match_brute_force() {
        let mut seed = 7u64;
        for _ in 0..400 {
            let k = 2 + (rng(&mut seed) % 9) as usize;
            let mut edges: Vec<(u32, u32, u128)> = Vec::new();
            for _ in 0..rng(&mut seed) % (2 * k as u64 + 1) {
                let a = (rng(&mut seed) % k as u64) as u32;
                let b = (rng(&mut seed) % k as u64) as u32;
                let (a, b) = (a.min(b), a.max(b));
                if a != b && !edges.iter().any(|&(x, y, _)| (x, y) == (a, b)) {
                    edges.push((a, b, 1));
                }
            }
            let blocks = biconnected(k, &edges);
            let mut which = vec![usize::MAX; edges.len()];
            for (i, b) in blocks.iter().enumerate() {
                assert!(b.windows(2).all(|w| w[0] < w[1]));
                for &e in b {
                    assert_eq!(which[e as usize], usize::MAX, "edge in two blocks");
                    which[e as usize] = i;
                }
            }
            assert!(
                which.iter().all(|&w| w != usize::MAX),
                "every edge in a block"
            );
            for e in 0..edges.len() {
                for f in 0..edges.len() {
                    assert_eq!(
                        which[e] == which[f],
                        same_block_brute(k, &edges, e, f),
                        "edges {e} {f} of {edges:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_ring_with_two_chords_is_four_vertices_and_four_chains() {
        // Ring 0..12, chords 0-6 and 3-9: branch vertices 0, 3, 6, 9.
        let mut edges: Vec<(u32, u32, u128)> = (0..12)
            .map(|i| (i.min((i + 1) % 12), i.max((i + 1) % 12), 5))
            .collect();
        edges.push((0, 6, 1));
        edges.push((3, 9, 1));
        let parts = blocks(12, &edges);
        assert_eq!(parts.len(), 1);
        let p = &parts[0];
        assert_eq!(p.len(), 8);
        let total: u128 = (0..p.len()).map(|x| p.weight(x)).sum();
        assert_eq!(total, 12);
        // Chain 1-2 has degree sum 4 * 5.
        let x = (0..p.len()).find(|&x| p.members(x).contains(&1)).unwrap();
        let mut m = p.members(x).to_vec();
        m.sort_unstable();
        assert_eq!(m, vec![1, 2]);
        assert_eq!(p.degree_sum[x], 20);
        // Two chords plus two end edges per chain.
        assert_eq!(p.edges.len(), 2 + 8);
        // A cycle alone is one vertex; a tree has no block to search.
        let cycle: Vec<(u32, u32, u128)> = vec![(0, 1, 1), (1, 2, 2), (0, 2, 3)];
        let parts = blocks(3, &cycle);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].len(), 1);
        assert_eq!(parts[0].degree_sum[0], 12);
        assert!(blocks(4, &[(0, 1, 1), (1, 2, 1), (1, 3, 1)]).is_empty());
    }
}
