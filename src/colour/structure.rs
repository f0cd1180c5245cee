//! Exact colourings read off the structure of the support graph, in time
//! linear in the output and independent of the multiplicities.
//!
//! The multigraph is split into connected components; components share no
//! slot, so their colourings are merged round by round and the whole needs
//! `max` over components of their tick counts. Each component is coloured
//! exactly when its support is one of:
//!
//! - **a path or a cycle** (every slot has at most two distinct partners),
//!   any multiplicities. Let `T = max(Delta, ceil(2E / (k - 1)))` for an odd
//!   cycle of `k` slots and `T = Delta` otherwise. Edge `e_j` gets the
//!   cyclic interval `[s_j, s_j + m_j)` of colours mod `T`, with
//!   `s_{j+1} = s_j + m_j + gap_j`. Consecutive intervals are disjoint when
//!   `m_j + gap_j + m_{j+1} <= T`; a cycle closes when the laid length
//!   `E + sum gaps` is a multiple `w T` of `T`. The smallest `w >= E / T`
//!   satisfies `w <= k - E / T` under the choice of `T` (odd `k`:
//!   `E / T <= (k-1)/2`; even `k`: `E <= k Delta / 2`), so the gaps fit.
//!   This is the folklore "circular interval" argument behind the chromatic
//!   index of multicycles. In a path or cycle an odd set other than a whole
//!   odd cycle induces paths and is no denser than `Delta`, so
//!   `T = max(Delta, ceil Gamma)`: the colouring is optimal.
//! - **a complete graph with one multiplicity `m` on every pair**: the
//!   round-robin 1-factorisation of `K_k` (the circle method, Lucas 1883 /
//!   Walecki), each round repeated `m` times: `m (k-1)` ticks for even `k`
//!   (= Delta), `m k` for odd `k` (= ceil Gamma of the whole component).
//!
//! A component of any other shape makes [`colour_by_structure`] return
//! `None`; the LP/ILP engine handles the graph then.

use crate::bounds::checked_sum;
use crate::graph::Adjacency;
use crate::rounds::zip_rounds;
use std::collections::HashMap;

/// Largest complete component coloured by the round-robin (its pair table
/// has `k^2` entries).
const COMPLETE_MAX: usize = 8192;

/// A structural colouring and the bound that proves it optimal.
#[derive(Clone, Debug)]
pub struct StructureColouring {
    /// Rounds `(repeat, edge indices)` as in [`super::Colouring`].
    pub rounds: Vec<(u64, Vec<u32>)>,
    /// Sum of repeats.
    pub ticks: u64,
    /// An odd slot set `S` (sorted) and `E(S)` with `ceil(2E(S)/(|S|-1)) ==
    /// ticks`, when the tick count is set by an odd set rather than by Delta.
    pub odd_set: Option<(Vec<u32>, u64)>,
}

/// Colours `edges` (`(a, b, m)`, distinct pairs, `m >= 1`) exactly when every
/// connected component is a path, a cycle or a uniform complete graph (module
/// docs); `None` otherwise. The result has `max(Delta, ceil Gamma)` ticks.
/// `O(n + E + output)`.
pub fn colour_by_structure(n: usize, edges: &[(u32, u32, u64)]) -> Option<StructureColouring> {
    let n = edges
        .iter()
        .map(|e| e.0.max(e.1) as usize + 1)
        .max()
        .unwrap_or(0)
        .max(n);
    let mut deg = vec![0u64; n];
    let mut support = vec![0u32; n];
    for &(a, b, m) in edges {
        if a == b || m == 0 {
            return None;
        }
        deg[a as usize] = deg[a as usize].checked_add(m)?;
        deg[b as usize] = deg[b as usize].checked_add(m)?;
        support[a as usize] += 1;
        support[b as usize] += 1;
    }
    if !uniform_where_branching(n, edges, &support) {
        return None;
    }
    let comps = components(n, edges);
    let mut parts: Vec<Vec<(u64, Vec<u32>)>> = Vec::with_capacity(comps.len());
    let mut ticks = 0u64;
    let mut odd_set = None;
    // Adjacency (edge indices per slot), built once.
    let inc: Adjacency<u32> = Adjacency::of_edges(n, edges, |_, e, _| e);
    for (verts, comp_edges) in comps {
        let k = verts.len();
        let (rounds, t, odd) = if verts.iter().all(|&v| support[v as usize] <= 2) {
            path_or_cycle(edges, &verts, &comp_edges, &deg, &inc)?
        } else if comp_edges.len() == k * (k - 1) / 2
            && k <= COMPLETE_MAX
            && comp_edges
                .iter()
                .all(|&e| edges[e as usize].2 == edges[comp_edges[0] as usize].2)
        {
            complete_uniform(edges, &verts, &comp_edges)?
        } else {
            return None;
        };
        if t > ticks {
            ticks = t;
            odd_set = odd;
        } else if t == ticks && odd_set.is_none() {
            odd_set = odd;
        }
        parts.push(rounds);
    }
    let delta = deg.iter().copied().max().unwrap_or(0);
    if ticks == delta {
        odd_set = None;
    }
    let rounds = zip_rounds(parts);
    debug_assert_eq!(rounds.iter().map(|r| r.0).sum::<u64>(), ticks);
    Some(StructureColouring {
        rounds,
        ticks,
        odd_set,
    })
}

/// Whether every slot with three neighbours or more sees one multiplicity
/// on all its pairs: a component with such a slot is taken only as a
/// uniform complete graph, so when this fails nothing is (the O(E) test
/// that spares dense skewed matrices the components and adjacency).
fn uniform_where_branching(n: usize, edges: &[(u32, u32, u64)], support: &[u32]) -> bool {
    let mut seen = vec![0u64; n];
    edges.iter().all(|&(a, b, m)| {
        [a, b].into_iter().all(|x| {
            let x = x as usize;
            if support[x] <= 2 {
                return true;
            }
            if seen[x] == 0 {
                seen[x] = m;
            }
            seen[x] == m
        })
    })
}

/// Connected components with at least one edge: `(sorted slots, edge indices)`.
fn components(n: usize, edges: &[(u32, u32, u64)]) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for &(a, b, _) in edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let mut id = vec![u32::MAX; n];
    let mut out: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    let mut touched = vec![false; n];
    for &(a, b, _) in edges {
        touched[a as usize] = true;
        touched[b as usize] = true;
    }
    for v in 0..n as u32 {
        if !touched[v as usize] {
            continue;
        }
        let r = find(&mut parent, v) as usize;
        if id[r] == u32::MAX {
            id[r] = out.len() as u32;
            out.push((Vec::new(), Vec::new()));
        }
        out[id[r] as usize].0.push(v);
    }
    for (e, &(a, _, _)) in edges.iter().enumerate() {
        let r = find(&mut parent, a) as usize;
        out[id[r] as usize].1.push(e as u32);
    }
    out
}

type Part = (Vec<(u64, Vec<u32>)>, u64, Option<(Vec<u32>, u64)>);

/// Circular-interval colouring of a path or cycle component (module docs).
fn path_or_cycle(
    edges: &[(u32, u32, u64)],
    verts: &[u32],
    comp_edges: &[u32],
    deg: &[u64],
    inc: &Adjacency<u32>,
) -> Option<Part> {
    let k = verts.len();
    let is_cycle = comp_edges.len() == k;
    // Walk the component: from an end of the path, or from any slot of a cycle.
    let first = if is_cycle {
        verts[0]
    } else {
        *verts.iter().find(|&&v| inc.len_of(v as usize) == 1)?
    };
    let mut order: Vec<u32> = Vec::with_capacity(comp_edges.len());
    let (mut v, mut prev) = (first, u32::MAX);
    while order.len() < comp_edges.len() {
        let next = inc.row(v as usize).iter().copied().find(|&e| e != prev)?;
        order.push(next);
        let (a, b, _) = edges[next as usize];
        v = if a == v { b } else { a };
        prev = next;
    }
    let m: Vec<u64> = order.iter().map(|&e| edges[e as usize].2).collect();
    // The odd cycle's inside count: checked (DESIGN.md §10); a cycle whose
    // chunks pass `u64` is not coloured here.
    let total = checked_sum(m.iter().copied())?;
    let delta = verts.iter().map(|&v| deg[v as usize]).max().unwrap_or(0);
    let odd_cycle = is_cycle && k % 2 == 1;
    let gamma = if odd_cycle {
        (2 * total as u128).div_ceil(k as u128 - 1) as u64
    } else {
        0
    };
    let t = delta.max(gamma);
    let odd = (odd_cycle && gamma > delta).then(|| (verts.to_vec(), total));
    let len = m.len();
    let mut gaps = vec![0u64; len];
    if is_cycle {
        // ceil(total / t) * t - total, without the product (it can pass
        // u64 when the total is near it).
        let mut left = (t - total % t) % t;
        for j in 0..len {
            let room = t - m[j] - m[(j + 1) % len];
            let g = room.min(left);
            gaps[j] = g;
            left -= g;
        }
        if left > 0 {
            debug_assert!(false, "circular intervals: gaps do not fit");
            return None;
        }
    }
    // Interval starts mod t.
    let mut s = Vec::with_capacity(len);
    let mut pos = 0u64;
    for j in 0..len {
        s.push(pos);
        pos = (pos + m[j] + gaps[j]) % t;
    }
    let mut cuts: Vec<u64> = Vec::with_capacity(2 * len + 1);
    cuts.push(0);
    for j in 0..len {
        cuts.push(s[j]);
        cuts.push((s[j] + m[j]) % t);
    }
    cuts.sort_unstable();
    cuts.dedup();
    let segs = cuts.len();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); segs];
    for j in 0..len {
        let mut i = cuts.binary_search(&s[j]).ok()?;
        let mut covered = 0u64;
        while covered < m[j] {
            members[i].push(order[j]);
            let end = if i + 1 < segs { cuts[i + 1] } else { t };
            covered += end - cuts[i];
            i = (i + 1) % segs;
        }
        debug_assert_eq!(covered, m[j]);
    }
    let rounds = (0..segs)
        .map(|i| {
            let end = if i + 1 < segs { cuts[i + 1] } else { t };
            (end - cuts[i], std::mem::take(&mut members[i]))
        })
        .filter(|r| !r.1.is_empty())
        .collect::<Vec<_>>();
    // Trailing empty segments still count as ticks of this component only
    // if used; the tick count is the span actually used, at most t.
    let used: u64 = rounds.iter().map(|r| r.0).sum();
    Some((rounds, used.min(t), odd.filter(|_| used == t)))
}

/// Round-robin 1-factorisation of a uniform complete component (module
/// docs); `None` when its tick or inside count passes `u64`.
fn complete_uniform(edges: &[(u32, u32, u64)], verts: &[u32], comp_edges: &[u32]) -> Option<Part> {
    let k = verts.len();
    let m = edges[comp_edges[0] as usize].2;
    let local: HashMap<u32, usize> = verts.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut pair = vec![u32::MAX; k * k];
    for &e in comp_edges {
        let (a, b, _) = edges[e as usize];
        let (i, j) = (local[&a], local[&b]);
        pair[i * k + j] = e;
        pair[j * k + i] = e;
    }
    // Even order: k itself; odd order: one dummy slot whose pairs are dropped.
    let big = if k % 2 == 0 { k } else { k + 1 };
    let fixed = big - 1;
    let mut rounds = Vec::with_capacity(fixed);
    for r in 0..fixed {
        let mut round = Vec::with_capacity(big / 2);
        let mut push = |i: usize, j: usize| {
            if i < k && j < k {
                round.push(pair[i * k + j]);
            }
        };
        push(fixed, r);
        for i in 1..big / 2 {
            push((r + i) % fixed, (r + fixed - i) % fixed);
        }
        rounds.push((m, round));
    }
    // Checked (DESIGN.md §10): the odd set's inside count is a witness.
    let ticks = m.checked_mul(fixed as u64)?;
    let total = m.checked_mul(comp_edges.len() as u64)?;
    let odd = (k % 2 == 1 && k >= 3).then(|| (verts.to_vec(), total));
    Some((rounds, ticks, odd))
}
