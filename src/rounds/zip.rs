//! Zipping rounds of slot-disjoint parts tick by tick (below the solvers,
//! which merge components' colourings, and [`super::Schedule::flat`],
//! which lays classes out).

/// Merges rounds of slot-disjoint parts tick by tick: the result has
/// as many ticks as the longest part and at most the sum of their rounds.
pub fn zip_rounds(parts: Vec<Vec<(u64, Vec<u32>)>>) -> Vec<(u64, Vec<u32>)> {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    let mut idx = vec![0usize; parts.len()];
    let mut left: Vec<u64> = parts.iter().map(|p| p.first().map_or(0, |r| r.0)).collect();
    let mut out = Vec::new();
    loop {
        let step = left.iter().copied().filter(|&l| l > 0).min();
        let Some(step) = step else { break };
        let mut round = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            if left[p] == 0 {
                continue;
            }
            round.extend_from_slice(&part[idx[p]].1);
            left[p] -= step;
            if left[p] == 0 {
                idx[p] += 1;
                left[p] = part.get(idx[p]).map_or(0, |r| r.0);
            }
        }
        out.push((step, round));
    }
    out
}
