//! Conversions between chunk colourings and compact rounds, and small
//! multigraph helpers (degrees, chunk expansion). All O(chunks + E).

use std::collections::HashMap;

/// Expands edges with multiplicities `mult` into chunks; returns `(chunks, edge of chunk)`.
pub fn expand_chunks(edges: &[(u32, u32, u64)], mult: &[u64]) -> (Vec<(u32, u32)>, Vec<u32>) {
    let mut chunks = Vec::new();
    let mut owner = Vec::new();
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        for _ in 0..mult[e] {
            chunks.push((a, b));
            owner.push(e as u32);
        }
    }
    (chunks, owner)
}

/// Weighted degrees under multiplicities `mult`.
pub fn degrees(n: usize, edges: &[(u32, u32, u64)], mult: &[u64]) -> Vec<u64> {
    let mut d = vec![0u64; n];
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        d[a as usize] += mult[e];
        d[b as usize] += mult[e];
    }
    d
}

/// Colour classes of a chunk colouring as rounds; identical classes are merged
/// into one round with a repeat count (first appearance order).
pub fn classes_to_rounds(colour: &[u32], owner: &[u32]) -> Vec<(u64, Vec<u32>)> {
    let k = colour.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut classes: Vec<Vec<u32>> = vec![Vec::new(); k];
    for (x, &c) in colour.iter().enumerate() {
        classes[c as usize].push(owner[x]);
    }
    merge_rounds(
        classes
            .into_iter()
            .filter(|c| !c.is_empty())
            .map(|c| (1, c)),
    )
}

/// Sorts each round's edges and merges identical rounds (repeats added), keeping first-appearance order.
pub fn merge_rounds(rounds: impl IntoIterator<Item = (u64, Vec<u32>)>) -> Vec<(u64, Vec<u32>)> {
    let mut out: Vec<(u64, Vec<u32>)> = Vec::new();
    let mut index: HashMap<Vec<u32>, usize> = HashMap::new();
    for (rep, mut m) in rounds {
        if rep == 0 || m.is_empty() {
            continue;
        }
        m.sort_unstable();
        match index.get(&m) {
            Some(&i) => out[i].0 += rep,
            None => {
                index.insert(m.clone(), out.len());
                out.push((rep, m));
            }
        }
    }
    out
}

/// Sum of repeats.
pub fn ticks(rounds: &[(u64, Vec<u32>)]) -> u64 {
    rounds.iter().map(|r| r.0).sum()
}
