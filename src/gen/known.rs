//! Optima that are proven without running a solver, for manifests.
//!
//! Each rule is a theorem applied to the generated multigraph itself, so a
//! manifest's `known_optimum` is an independent check on the solvers:
//!
//! - READ1_WRITE1: the chunk multigraph is bipartite (senders x receivers),
//!   so chi' = Delta (König).
//! - STRICT1, bipartite support: König again, chi' = Delta.
//! - STRICT1, complete support on `k` slots, every pair `mu` chunks: a tick
//!   holds at most `floor(k/2)` chunks, and the round-robin 1-factorisation
//!   (k-1 perfect matchings for even k, k near-perfect for odd k) repeated
//!   `mu` times meets it: `(k-1) mu` for even `k`, `k mu` for odd `k`.
//! - STRICT1, one odd cycle of `k` slots carrying `E` chunks (any
//!   multiplicities): `max(Delta, ceil(2E/(k-1)))`, the odd-set bound of the
//!   whole cycle, met by the circular-interval colouring (`colour::structure`).
//! - STRICT1, a snark (Petersen, Blanuša, flower J_k, odd k >= 5) with one
//!   chunk per edge: not 3-edge-colourable by definition, and Vizing gives 4.
//! - STRICT1, Petersen with an even number `2r` of chunks per edge: its six
//!   perfect matchings cover every edge exactly twice, each used `r` times,
//!   gives `3 * 2r` = Delta.
//! - STRICT1, planted (`super::planted`): the colouring the generator built
//!   the instance from is re-checked here (each colour class a matching, its
//!   chunks exactly the instance's, up to the common factor `mult`), so
//!   `chi' <= T * mult`; a planted clique `S` gives `chi' >=
//!   ceil(2E(S)/(|S|-1))`, computed from the instance. When they meet, that
//!   is the optimum.

use super::{Family, Generated};
use crate::instance::Model;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A proven optimum and the rule that proves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownOptimum {
    pub ticks: u64,
    pub reason: String,
}

/// The optimum of `g` under `model`, when one of the rules above proves it.
pub fn known_optimum(family: &Family, g: &Generated, model: Model) -> Option<KnownOptimum> {
    let n = g.slots as usize;
    let chunks = |bits: u64| bits.div_ceil(g.bw);
    let (mut out, mut inn) = (vec![0u64; n], vec![0u64; n]);
    let mut und: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for d in &g.demands {
        let c = chunks(d.bits);
        out[d.src as usize] += c;
        inn[d.dst as usize] += c;
        *und.entry((d.src.min(d.dst), d.src.max(d.dst))).or_insert(0) += c;
    }
    let found = |ticks: u64, reason: &str| {
        Some(KnownOptimum {
            ticks,
            reason: reason.to_string(),
        })
    };
    if model == Model::Read1Write1 {
        let delta = out.iter().chain(inn.iter()).copied().max().unwrap_or(0);
        return found(delta, "König: bipartite senders x receivers, chi' = Delta");
    }
    let delta = (0..n).map(|v| out[v] + inn[v]).max().unwrap_or(0);
    if is_bipartite(n, und.keys()) {
        return found(delta, "König: bipartite support, chi' = Delta");
    }
    let used: Vec<usize> = (0..n).filter(|&v| out[v] + inn[v] > 0).collect();
    let k = used.len() as u64;
    let mus: Vec<u64> = und.values().copied().collect();
    if k >= 3 && und.len() as u64 == k * (k - 1) / 2 && mus.windows(2).all(|w| w[0] == w[1]) {
        let mu = mus[0];
        return if k % 2 == 1 {
            found(k * mu, "complete graph, odd k slots, mu per pair: k*mu")
        } else {
            found(
                (k - 1) * mu,
                "complete graph, even k slots, mu per pair: (k-1)*mu",
            )
        };
    }
    if k >= 3 && k % 2 == 1 && und.len() as u64 == k && is_one_cycle(n, &used, und.keys()) {
        let e: u64 = mus.iter().sum();
        return found(
            delta.max((2 * e).div_ceil(k - 1)),
            "odd cycle: max(Delta, ceil(2E/(k-1))), met by circular intervals",
        );
    }
    if let Some(ticks) = g.planted.as_ref().and_then(|p| planted_optimum(p, &und)) {
        return found(
            ticks,
            "planted colouring (re-checked) meets a planted clique's odd-set bound",
        );
    }
    if family.is_snark() && mus.iter().all(|&m| m == 1) {
        return found(4, "snark: not 3-edge-colourable, Vizing gives 4");
    }
    if *family == Family::Petersen && mus.iter().all(|&m| m == mus[0] && m % 2 == 0) {
        return found(
            3 * mus[0],
            "Petersen, even multiplicity: six perfect matchings cover each edge twice",
        );
    }
    None
}

/// `T * mult` when `p`'s colouring is a proper colouring of exactly the
/// chunks in `und` (each pair's count `mult` times the recorded one) and a
/// planted clique's odd-set bound equals it; `None` otherwise.
fn planted_optimum(p: &super::planted::Planted, und: &BTreeMap<(u32, u32), u64>) -> Option<u64> {
    let mut recorded: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut holder = std::collections::HashSet::new();
    for &(a, b, c) in &p.chunks {
        if a == b || u64::from(c) >= p.colours || !holder.insert((a, c)) || !holder.insert((b, c)) {
            return None;
        }
        *recorded.entry((a.min(b), a.max(b))).or_insert(0) += 1;
    }
    let (&first, &rec0) = recorded.iter().next()?;
    let mult = und.get(&first)? / rec0;
    if recorded.len() != und.len()
        || recorded
            .iter()
            .any(|(pair, &r)| und.get(pair).copied() != r.checked_mul(mult))
    {
        return None;
    }
    let upper = p.colours.checked_mul(mult)?;
    let lower = p
        .cliques
        .iter()
        .filter(|s| s.len() >= 3 && s.len() % 2 == 1)
        .map(|s| {
            let inside: u64 = s
                .iter()
                .enumerate()
                .flat_map(|(i, &a)| s[i + 1..].iter().map(move |&b| (a.min(b), a.max(b))))
                .map(|pair| und.get(&pair).copied().unwrap_or(0))
                .sum();
            (2 * inside).div_ceil(s.len() as u64 - 1)
        })
        .max()?;
    (lower == upper).then_some(upper)
}

/// Whether the simple graph on `used` with these edges is one cycle: every
/// slot has two partners and a walk from one slot reaches them all.
fn is_one_cycle<'a>(n: usize, used: &[usize], edges: impl Iterator<Item = &'a (u32, u32)>) -> bool {
    let mut adj = vec![Vec::new(); n];
    for &(u, v) in edges {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    if used.is_empty() || used.iter().any(|&v| adj[v].len() != 2) {
        return false;
    }
    let (start, mut prev, mut at, mut steps) = (used[0], usize::MAX, used[0], 0);
    loop {
        let next = if adj[at][0] != prev {
            adj[at][0]
        } else {
            adj[at][1]
        };
        (prev, at) = (at, next);
        steps += 1;
        if at == start {
            return steps == used.len();
        }
    }
}

/// Whether the simple graph with these edges is bipartite (BFS 2-colouring).
fn is_bipartite<'a>(n: usize, edges: impl Iterator<Item = &'a (u32, u32)>) -> bool {
    let mut adj = vec![Vec::new(); n];
    for &(u, v) in edges {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    let mut side = vec![u8::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    for s in 0..n {
        if side[s] != u8::MAX {
            continue;
        }
        side[s] = 0;
        queue.push_back(s);
        while let Some(u) = queue.pop_front() {
            for &v in &adj[u] {
                if side[v] == u8::MAX {
                    side[v] = 1 - side[u];
                    queue.push_back(v);
                } else if side[v] == side[u] {
                    return false;
                }
            }
        }
    }
    true
}
