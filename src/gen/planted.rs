//! Planted odd cliques in a sparse random graph, with a planted colouring.
//!
//! The instance is built *from* a colouring with `T = k * mu` colours, so
//! its STRICT1 optimum is known without any solver:
//!
//! - `cliques` disjoint copies of `K_k` (`k` odd) on slots `0..k`, `k..2k`,
//!   ..., every pair carrying `mu` chunks, coloured by the round-robin
//!   1-factorisation of `K_k` repeated `mu` times (round `r` of copy `j` is
//!   colour `j * k + r`; slot `r` of the clique sits out round `r`). Each
//!   clique is an odd set with `2E(S)/(|S|-1) = mu * k = T`: a lower bound.
//! - sparse random edges: a random slot pair (not inside one clique, both
//!   below their degree cap) is joined by one chunk when some colour is free
//!   at both ends, and takes it. Clique slots are capped at `mu - 1` such
//!   edges and the others at `min(degree, T - 1)`, so `Delta <= T - 1`: the
//!   degree bound alone cannot prove the optimum, the odd set must.
//!
//! The colouring is kept in [`Planted`] and re-checked by
//! [`super::known::known_optimum`] (every colour class a matching, the
//! chunks exactly the instance's), so the manifest's optimum `T` is an
//! independent check on the solvers.

use super::rng::SplitMix64;
use super::Builder;

/// The colouring the instance was built from: one `(a, b, colour)` per
/// chunk at `mult = 1` (the generator's `--mult` repeats each colour class).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planted {
    /// Colours used: `k * mu`.
    pub colours: u64,
    /// Slots of each planted clique.
    pub cliques: Vec<Vec<u32>>,
    /// One entry per chunk (at `mult = 1`).
    pub chunks: Vec<(u32, u32, u32)>,
}

/// Largest palette (`k * mu`): the builder keeps a bitset of `T` bits per slot.
pub const MAX_PLANTED_COLOURS: u64 = 4096;

/// Parameters of the planted family.
#[derive(Clone, Copy, Debug)]
pub struct PlantedParams {
    pub n: u32,
    pub k: u32,
    pub cliques: u32,
    pub mu: u64,
    pub degree: u32,
}

/// Builds the instance into `b` and returns its planted colouring.
pub(super) fn build(p: PlantedParams, seed: u64, b: &mut Builder) -> Result<Planted, String> {
    let PlantedParams {
        n,
        k,
        cliques,
        mu,
        degree,
    } = p;
    if k < 3 || k % 2 == 0 {
        return Err(format!("k must be odd and >= 3, got {k}"));
    }
    if cliques == 0 {
        return Err("cliques must be >= 1".into());
    }
    if mu == 0 {
        return Err("clique_mult must be >= 1".into());
    }
    if (cliques as u64) * (k as u64) > n as u64 {
        return Err(format!(
            "{cliques} cliques of {k} slots do not fit in n = {n} slots"
        ));
    }
    let t = (k as u64)
        .checked_mul(mu)
        .filter(|&t| t <= MAX_PLANTED_COLOURS)
        .ok_or_else(|| format!("k * clique_mult must be <= {MAX_PLANTED_COLOURS}"))?;
    b.slots(n as u64)?;
    let words = (t as usize).div_ceil(64);
    let mut used = vec![0u64; n as usize * words];
    let mut chunks: Vec<(u32, u32, u32)> = Vec::new();
    let take = |used: &mut [u64], v: u32, c: u32| {
        used[v as usize * words + c as usize / 64] |= 1 << (c % 64);
    };
    let mut clique_sets = Vec::with_capacity(cliques as usize);
    for j in 0..cliques {
        let base = j * k;
        clique_sets.push((base..base + k).collect());
        for rep in 0..mu {
            for r in 0..k {
                let colour = (rep * k as u64 + r as u64) as u32;
                for i in 1..=(k - 1) / 2 {
                    let (x, y) = (base + (r + i) % k, base + (r + k - i) % k);
                    take(&mut used, x, colour);
                    take(&mut used, y, colour);
                    chunks.push((x.min(y), x.max(y), colour));
                    b.chunks(x.min(y), x.max(y), 1);
                }
            }
        }
    }
    let planted_slots = cliques * k;
    let clique_of = |v: u32| (v < planted_slots).then_some(v / k);
    let cap = |v: u32| -> u32 {
        if v < planted_slots {
            (mu - 1).min(u32::MAX as u64) as u32
        } else {
            degree.min((t - 1) as u32)
        }
    };
    let mut base_deg = vec![0u32; n as usize];
    let mut rng = SplitMix64::new(seed, 11);
    let target = n as u64 * degree as u64 / 2;
    let mut added = 0u64;
    let mut attempts = 0u64;
    while added < target && attempts < 8 * target + 64 {
        attempts += 1;
        let u = rng.below(n as u64) as u32;
        let v = rng.below(n as u64) as u32;
        if u == v
            || base_deg[u as usize] >= cap(u)
            || base_deg[v as usize] >= cap(v)
            || (clique_of(u).is_some() && clique_of(u) == clique_of(v))
        {
            continue;
        }
        let start = rng.below(t) as usize;
        let free = (0..t as usize)
            .map(|i| (start + i) % t as usize)
            .find(|&c| {
                let bit = 1u64 << (c % 64);
                (used[u as usize * words + c / 64] | used[v as usize * words + c / 64]) & bit == 0
            });
        let Some(c) = free else { continue };
        take(&mut used, u, c as u32);
        take(&mut used, v, c as u32);
        base_deg[u as usize] += 1;
        base_deg[v as usize] += 1;
        chunks.push((u.min(v), u.max(v), c as u32));
        if rng.next_u64() & 1 == 0 {
            b.chunks(u, v, 1);
        } else {
            b.chunks(v, u, 1);
        }
        added += 1;
    }
    Ok(Planted {
        colours: t,
        cliques: clique_sets,
        chunks,
    })
}
