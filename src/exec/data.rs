//! The bytes an execution moves: how buffers are filled before a run and
//! checked after it, shared by every executor.
//!
//! Send regions hold a deterministic pattern per demand; receive regions
//! start as the bitwise complement of the pattern they should receive, so
//! every byte a run fails to move differs from its expected value. After
//! the run, every send region must still hold its pattern and every receive
//! region must equal its demand's pattern byte for byte.

use super::plan::Layout;
use rayon::prelude::*;
use serde::Serialize;

/// Word `word` (8 bytes, little-endian) of demand `demand`'s pattern.
fn pattern_word(demand: usize, word: u64) -> u64 {
    // splitmix64 of (demand, word): cheap, deterministic, no short cycles.
    let mut z = (demand as u64)
        .wrapping_mul(0xD1B5_4A32_D192_ED03)
        .wrapping_add(word)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Writes demand `demand`'s pattern (complemented if `invert`) into `out`.
fn fill_pattern(demand: usize, invert: bool, out: &mut [u8]) {
    let mask = if invert { u64::MAX } else { 0 };
    let mut words = out.chunks_exact_mut(8);
    let mut w = 0u64;
    for chunk in &mut words {
        chunk.copy_from_slice(&(pattern_word(demand, w) ^ mask).to_le_bytes());
        w += 1;
    }
    let tail = words.into_remainder();
    let last = (pattern_word(demand, w) ^ mask).to_le_bytes();
    tail.copy_from_slice(&last[..tail.len()]);
}

/// Whether `got` equals demand `demand`'s pattern; else the first bad offset.
fn first_mismatch(demand: usize, got: &[u8]) -> Option<u64> {
    const BLOCK: usize = 1 << 16;
    let mut expect = vec![0u8; BLOCK.min(got.len())];
    for (b, block) in got.chunks(BLOCK).enumerate() {
        // BLOCK is a multiple of 8, so each block starts at a pattern word.
        let e = &mut expect[..block.len()];
        let first_word = (b * BLOCK / 8) as u64;
        let mut words = e.chunks_exact_mut(8);
        let mut w = first_word;
        for chunk in &mut words {
            chunk.copy_from_slice(&pattern_word(demand, w).to_le_bytes());
            w += 1;
        }
        let tail = words.into_remainder();
        let last = pattern_word(demand, w).to_le_bytes();
        tail.copy_from_slice(&last[..tail.len()]);
        if e != block {
            let k = e.iter().zip(block).position(|(a, b)| a != b).unwrap_or(0);
            return Some((b * BLOCK + k) as u64);
        }
    }
    None
}

/// Fills fresh arenas (one per device) for `layout`: patterns in send
/// regions, complemented patterns in receive regions, zeros in padding.
pub fn initial_arenas(layout: &Layout) -> Vec<Vec<u8>> {
    let mut arenas: Vec<Vec<u8>> = layout
        .device_bytes
        .iter()
        .map(|&b| vec![0u8; b as usize])
        .collect();
    for (i, r) in layout.regions.iter().enumerate() {
        let (d, off) = (
            layout.device_of(r.src_slot),
            layout.arena_offset(r.src_slot, r.src_offset) as usize,
        );
        fill_pattern(i, false, &mut arenas[d][off..off + r.bytes as usize]);
        let (d, off) = (
            layout.device_of(r.dst_slot),
            layout.arena_offset(r.dst_slot, r.dst_offset) as usize,
        );
        fill_pattern(i, true, &mut arenas[d][off..off + r.bytes as usize]);
    }
    arenas
}

/// Resets every receive region to its complemented pattern (between
/// repetitions, so the final check sees only the last run's copies).
pub fn reset_receive_regions(layout: &Layout, arenas: &mut [Vec<u8>]) {
    for (i, r) in layout.regions.iter().enumerate() {
        let (d, off) = (
            layout.device_of(r.dst_slot),
            layout.arena_offset(r.dst_slot, r.dst_offset) as usize,
        );
        fill_pattern(i, true, &mut arenas[d][off..off + r.bytes as usize]);
    }
}

/// Outcome of checking the buffers after a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// Every send region holds its pattern and every receive region equals it.
    pub passed: bool,
    /// Receive regions checked (one per demand) and their bytes.
    pub regions: usize,
    pub bytes: u64,
    /// The first faults found (at most 10), e.g. "demand 0->1: receive byte 17 differs".
    pub faults: Vec<String>,
    /// Number of regions with a fault.
    pub bad_regions: usize,
    /// Checksum of all receive regions in demand order (hex, 64-bit): equal
    /// across executors and runs of the same instance and scale.
    pub checksum: String,
}

/// Checks the arenas after a run (parallel over regions).
pub fn verify(layout: &Layout, arenas: &[Vec<u8>]) -> Verification {
    let results: Vec<(Option<String>, u64)> = layout
        .regions
        .par_iter()
        .enumerate()
        .map(|(i, r)| {
            let src = region(layout, arenas, r.src_slot, r.src_offset, r.bytes);
            let dst = region(layout, arenas, r.dst_slot, r.dst_offset, r.bytes);
            let fault = if let Some(k) = first_mismatch(i, dst) {
                Some(format!(
                    "demand {}->{}: receive byte {k} of {} differs from the source",
                    r.src_slot, r.dst_slot, r.bytes
                ))
            } else {
                first_mismatch(i, src).map(|k| {
                    format!(
                        "demand {}->{}: send byte {k} of {} was overwritten",
                        r.src_slot, r.dst_slot, r.bytes
                    )
                })
            };
            (fault, checksum(dst))
        })
        .collect();
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    let mut faults = Vec::new();
    let mut bad = 0;
    for (f, c) in results {
        h = (h ^ c).wrapping_mul(0x0100_0000_01B3).rotate_left(17);
        if let Some(f) = f {
            bad += 1;
            if faults.len() < 10 {
                faults.push(f);
            }
        }
    }
    Verification {
        passed: bad == 0,
        regions: layout.regions.len(),
        bytes: layout.payload_bytes(),
        faults,
        bad_regions: bad,
        checksum: format!("{h:016x}"),
    }
}

fn region<'a>(
    layout: &Layout,
    arenas: &'a [Vec<u8>],
    slot: u32,
    offset: u64,
    bytes: u64,
) -> &'a [u8] {
    let off = layout.arena_offset(slot, offset) as usize;
    &arenas[layout.device_of(slot)][off..off + bytes as usize]
}

/// 64-bit checksum of a byte string (word-wise multiply-xor; not cryptographic).
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ b as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_check_agrees_with_fill_across_block_edges() {
        for len in [0usize, 1, 7, 8, 9, 65_535, 65_536, 65_537, 200_003] {
            let mut v = vec![0u8; len];
            fill_pattern(3, false, &mut v);
            assert_eq!(first_mismatch(3, &v), None, "len {len}");
            if len > 0 {
                let k = len - 1;
                v[k] ^= 1;
                assert_eq!(first_mismatch(3, &v), Some(k as u64));
                fill_pattern(3, true, &mut v);
                assert_eq!(
                    first_mismatch(3, &v),
                    Some(0),
                    "complement differs everywhere"
                );
            }
        }
    }
}
