//! Step 2 of the validator (module docs): every chunk in exactly one run.

use super::RelayInvalid;
use crate::instance::Instance;
use crate::relay::schedule::RelaySchedule;

/// A demand as the route checks and the chunk bitmap read it (16 bytes:
/// one lookup per run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DemandOf {
    pub src: u32,
    pub dst: u32,
    /// Its first chunk's bit in the bitmap (0 without one).
    pub first: u32,
    pub chunks: u32,
}

/// The instance's demands with where each one's chunks start in a bitmap
/// of all its chunks (demand by demand, a bit per chunk), and the chunks
/// in all. `None` where the chunks are many against the runs and demands
/// (the bitmap would outweigh them; 64 bits per run and demand, plus
/// 2^16) or do not fit in u32.
pub(super) fn demand_table(inst: &Instance, runs: usize) -> Option<(Vec<DemandOf>, u64)> {
    let counts = inst.chunk_counts();
    let most = (64 * (runs as u64 + counts.len() as u64) + (1 << 16)).min(u32::MAX as u64);
    let mut table = Vec::with_capacity(counts.len());
    let mut acc = 0u64;
    for (dem, &chunks) in inst.demands().iter().zip(counts) {
        table.push(DemandOf {
            src: dem.src,
            dst: dem.dst,
            first: acc as u32,
            chunks: chunks as u32,
        });
        acc += chunks;
        if acc > most {
            return None;
        }
    }
    Some((table, acc))
}

/// Marks bits `from .. from + len` of `bits`; whether any was marked already.
pub(super) fn mark_chunks(bits: &mut [u64], from: u64, len: u64) -> bool {
    let end = from + len;
    let (mut w, mut lo) = ((from / 64) as usize, from % 64);
    let mut clash = 0u64;
    loop {
        let stop = end.min((w as u64 + 1) * 64);
        let n = stop - (w as u64 * 64 + lo);
        let mask = if n == 64 { !0 } else { ((1u64 << n) - 1) << lo };
        clash |= bits[w] & mask;
        bits[w] |= mask;
        if stop == end {
            return clash != 0;
        }
        w += 1;
        lo = 0;
    }
}

/// Whether the parts' bitmaps (each with whether a chunk was marked twice
/// in it) mark each of the `total` chunks exactly once between them.
pub(super) fn bitmaps_tile<'a>(
    total: u64,
    mut parts: impl Iterator<Item = (&'a [u64], bool)>,
) -> bool {
    let Some((first, clash)) = parts.next() else {
        return false;
    };
    if clash {
        return false;
    }
    let mut all = first.to_vec();
    for (bits, clash) in parts {
        let mut both = 0u64;
        for (a, &b) in all.iter_mut().zip(bits) {
            both |= *a & b;
            *a |= b;
        }
        if clash || both != 0 {
            return false;
        }
    }
    let full = (total / 64) as usize;
    let rest = total % 64;
    all[..full].iter().all(|&w| w == !0) && (rest == 0 || all[full] == (1u64 << rest) - 1)
}

/// Every demand's runs tile its chunks: sorted by first chunk (runs
/// bucketed by demand), each starts where the one before ends, the first
/// at 0, the last ending at the demand's chunk count. An overlap is a
/// duplicate, a gap or a short end a missing chunk; the first demand in
/// error reported. (Each run was checked to lie inside its demand.)
pub(super) fn check_coverage_sorted(
    inst: &Instance,
    s: &RelaySchedule,
) -> Result<(), RelayInvalid> {
    let demands = inst.demands();
    // Bucket starts: `at[d]` where demand d's runs go; filled, where the
    // next demand's start.
    let mut at = vec![0usize; demands.len()];
    for c in &s.runs {
        at[c.demand as usize] += 1;
    }
    let mut acc = 0usize;
    for x in at.iter_mut() {
        (*x, acc) = (acc, acc + *x);
    }
    // (first chunk, position, count): the sort needs no run again.
    let mut by_demand = vec![(0u64, 0usize, 0u64); s.runs.len()];
    for (x, c) in s.runs.iter().enumerate() {
        let slot = &mut at[c.demand as usize];
        by_demand[*slot] = (c.chunk, x, c.count);
        *slot += 1;
    }
    for (d, dem) in demands.iter().enumerate() {
        let mine = &mut by_demand[if d == 0 { 0 } else { at[d - 1] }..at[d]];
        mine.sort_unstable();
        let mut next = 0u64;
        let mut sent = 0u64;
        for &(chunk, x, count) in mine.iter() {
            if chunk < next {
                return Err(RelayInvalid::Duplicate {
                    at: x,
                    demand: d as u32,
                    chunk,
                });
            }
            if chunk > next {
                break;
            }
            next = chunk + count;
            sent += count;
        }
        if next != inst.chunks(d) {
            return Err(RelayInvalid::Coverage {
                demand: d,
                src: dem.src,
                dst: dem.dst,
                sent,
                chunks: inst.chunks(d),
            });
        }
    }
    Ok(())
}
