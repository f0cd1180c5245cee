//! Collective-communication patterns: rings, all-to-all, mixture-of-experts
//! dispatch, pipelines, resharding, trees, checkpoint stars.

use super::rng::SplitMix64;
use super::{Builder, Family, TreeDirection};

fn at_least(name: &str, v: u64, min: u64) -> Result<(), String> {
    if v < min {
        Err(format!("{name} must be >= {min}, got {v}"))
    } else {
        Ok(())
    }
}

/// Builds a collective family into `b`.
pub(super) fn build(family: &Family, seed: u64, b: &mut Builder) -> Result<(), String> {
    match *family {
        Family::Ring { n } => {
            at_least("n", n as u64, 2)?;
            b.slots(n as u64)?;
            for i in 0..n {
                b.chunks(i, (i + 1) % n, 1);
            }
        }
        Family::BidirRing { n } => {
            at_least("n", n as u64, 2)?;
            b.slots(n as u64)?;
            for i in 0..n {
                b.chunks(i, (i + 1) % n, 1);
                b.chunks((i + 1) % n, i, 1);
            }
        }
        Family::RingSkip { n, skip } => {
            at_least("n", n as u64, 3)?;
            if skip < 2 || skip >= n {
                return Err(format!("skip must be in 2..n (n={n}), got {skip}"));
            }
            b.slots(n as u64)?;
            for i in 0..n {
                b.chunks(i, (i + 1) % n, 1);
                b.chunks(i, (i + skip) % n, 1);
            }
        }
        Family::Alltoall { n } => {
            at_least("n", n as u64, 2)?;
            b.slots(n as u64)?;
            for i in 0..n {
                for j in 0..n {
                    if i != j {
                        b.chunks(i, j, 1);
                    }
                }
            }
        }
        Family::Moe {
            n,
            experts_per_rank,
            tokens,
            topk,
            zipf,
            token_bits,
        } => moe(n, experts_per_rank, tokens, topk, zipf, token_bits, seed, b)?,
        Family::Pipeline {
            stages,
            microbatches,
        } => {
            at_least("stages", stages as u64, 2)?;
            at_least("microbatches", microbatches, 1)?;
            b.slots(stages as u64)?;
            for s in 0..stages - 1 {
                b.chunks(s, s + 1, microbatches); // activations
                b.chunks(s + 1, s, microbatches); // gradients
            }
        }
        Family::PipelineInterleaved {
            stages,
            microbatches,
            virtual_stages,
        } => pipeline_interleaved(stages, microbatches, virtual_stages, b)?,
        Family::Reshard { from, to, in_place } => reshard(from, to, in_place, b)?,
        Family::Tree {
            n,
            arity,
            direction,
        } => tree(n, arity, direction, b)?,
        Family::Star {
            clients,
            targets,
            jitter,
        } => star(clients, targets, jitter, seed, b)?,
        _ => unreachable!("not a collective family"),
    }
    Ok(())
}

/// Interleaved pipeline: `virtual_stages` layers per stage, in order
/// around the stages (last -> first wraps), activations and gradients.
fn pipeline_interleaved(
    stages: u32,
    microbatches: u64,
    virtual_stages: u32,
    b: &mut Builder,
) -> Result<(), String> {
    at_least("stages", stages as u64, 2)?;
    at_least("microbatches", microbatches, 1)?;
    at_least("virtual_stages", virtual_stages as u64, 2)?;
    b.slots(stages as u64)?;
    let layers = stages as u64 * virtual_stages as u64;
    for j in 0..layers - 1 {
        let (a, c) = ((j % stages as u64) as u32, ((j + 1) % stages as u64) as u32);
        b.chunks(a, c, microbatches);
        b.chunks(c, a, microbatches);
    }
    Ok(())
}

/// Resharding from `from` equal shards to `to` equal shards (on the same
/// slots when `in_place`, else on `to` slots after the sources).
fn reshard(from: u32, to: u32, in_place: bool, b: &mut Builder) -> Result<(), String> {
    at_least("from", from as u64, 1)?;
    at_least("to", to as u64, 1)?;
    let offset = if in_place { 0 } else { from };
    let slots = if in_place {
        from.max(to) as u64
    } else {
        from as u64 + to as u64
    };
    b.slots(slots)?;
    // The tensor has from*to units: source shard i is [i*to, (i+1)*to),
    // destination shard j is [j*from, (j+1)*from); one unit = one chunk.
    let (m, n) = (from as u64, to as u64);
    for i in 0..m {
        let (lo, hi) = (i * n, (i + 1) * n);
        for j in (lo / m)..hi.div_ceil(m).min(n) {
            let overlap = hi.min((j + 1) * m).saturating_sub(lo.max(j * m));
            let dst = j as u32 + offset;
            if overlap > 0 && i as u32 != dst {
                b.chunks(i as u32, dst, overlap);
            }
        }
    }
    Ok(())
}

/// A tree in heap order (root 0) of `arity`: parent to child, child to
/// parent, or both, by `direction`.
fn tree(n: u32, arity: u32, direction: TreeDirection, b: &mut Builder) -> Result<(), String> {
    at_least("n", n as u64, 2)?;
    at_least("arity", arity as u64, 1)?;
    b.slots(n as u64)?;
    for child in 1..n {
        let parent = (child - 1) / arity;
        if direction != TreeDirection::Reduce {
            b.chunks(parent, child, 1);
        }
        if direction != TreeDirection::Broadcast {
            b.chunks(child, parent, 1);
        }
    }
    Ok(())
}

/// Checkpoint: client i writes 1 + up to `jitter` chunks to target
/// `i mod targets`.
fn star(clients: u32, targets: u32, jitter: u64, seed: u64, b: &mut Builder) -> Result<(), String> {
    at_least("clients", clients as u64, 1)?;
    at_least("targets", targets as u64, 1)?;
    b.slots(clients as u64 + targets as u64)?;
    let mut rng = SplitMix64::new(seed, 1);
    for i in 0..clients {
        let chunks = 1 + rng.below(jitter.saturating_add(1));
        b.chunks(i, clients + i % targets, chunks);
    }
    Ok(())
}

/// Mixture-of-experts dispatch with Zipf-skewed expert popularity.
#[allow(clippy::too_many_arguments)]
fn moe(
    n: u32,
    experts_per_rank: u32,
    tokens: u64,
    topk: u32,
    zipf: f64,
    token_bits: u64,
    seed: u64,
    b: &mut Builder,
) -> Result<(), String> {
    at_least("n", n as u64, 2)?;
    at_least("experts_per_rank", experts_per_rank as u64, 1)?;
    at_least("tokens", tokens, 1)?;
    at_least("topk", topk as u64, 1)?;
    at_least("token_bits", token_bits, 1)?;
    if !(zipf.is_finite() && zipf >= 0.0) {
        return Err(format!("zipf must be a finite number >= 0, got {zipf}"));
    }
    let experts = n as u64 * experts_per_rank as u64;
    if topk as u64 > experts {
        return Err(format!("topk={topk} exceeds the {experts} experts"));
    }
    if (n as u64)
        .saturating_mul(tokens)
        .saturating_mul(topk as u64)
        > 1 << 32
    {
        return Err("n * tokens * topk exceeds 2^32 routing decisions".into());
    }
    b.slots(n as u64)?;
    // Popularity rank r (0 = hottest) has weight 1/(r+1)^zipf; which expert
    // holds which rank is a seeded permutation, so hot experts are spread.
    let mut order: Vec<u64> = (0..experts).collect();
    let mut rng = SplitMix64::new(seed, 2);
    rng.shuffle(&mut order);
    let mut cdf = Vec::with_capacity(experts as usize);
    let mut total = 0.0f64;
    for r in 0..experts {
        total += 1.0 / ((r + 1) as f64).powf(zipf);
        cdf.push(total);
    }
    let mut counts = vec![0u64; (n as usize) * (n as usize)];
    let mut chosen: Vec<u64> = Vec::with_capacity(topk as usize);
    for src in 0..n as u64 {
        for _ in 0..tokens {
            chosen.clear();
            while chosen.len() < topk as usize {
                let x = rng.unit() * total;
                let r = cdf.partition_point(|&c| c <= x).min(experts as usize - 1);
                let e = order[r];
                if !chosen.contains(&e) {
                    chosen.push(e);
                }
            }
            for &e in &chosen {
                let dst = e / experts_per_rank as u64;
                if dst != src {
                    counts[(src * n as u64 + dst) as usize] += 1;
                }
            }
        }
    }
    for src in 0..n {
        for dst in 0..n {
            let c = counts[src as usize * n as usize + dst as usize];
            if c > 0 {
                let bits = c
                    .checked_mul(token_bits)
                    .ok_or("tokens * token_bits overflows u64")?;
                b.bits(src, dst, bits);
            }
        }
    }
    Ok(())
}
