//! Rounding a fractional colouring down (exact bookkeeping, heuristic choice).
//!
//! Keeps `floor(y_M) - release` repeats of every column (at least 0), trims
//! edges that would be covered more than `m_e` times (splitting a round when
//! only part of its repeats must lose the edge, so every round stays a
//! matching), and returns the residual multiplicities with the tick budget
//! `T = lower_bound - kept ticks` left for them. O(columns * n + E).

/// Kept rounds, residual multiplicities and budget.
#[derive(Clone, Debug)]
pub struct Rounded {
    /// Rounds kept from the LP columns (each a matching, repeats >= 1).
    pub kept: Vec<(u64, Vec<u32>)>,
    /// Multiplicity of each edge still to colour.
    pub residual: Vec<u64>,
    /// Ticks left for the residual under the lower bound (may be 0).
    pub budget: u64,
}

/// Rounds `y` down; `None` if the kept ticks already exceed `lower_bound`.
pub fn round_down(
    edges: &[(u32, u32, u64)],
    columns: &[Vec<u32>],
    y: &[f64],
    lower_bound: u64,
    release: u64,
) -> Option<Rounded> {
    let mut kept: Vec<(u64, Vec<u32>)> = Vec::new();
    for (m, &v) in columns.iter().zip(y) {
        let f = if v.is_finite() && v > 0.0 {
            (v + 1e-6).floor() as u64
        } else {
            0
        };
        let k = f.saturating_sub(release);
        if k > 0 && !m.is_empty() {
            kept.push((k, m.clone()));
        }
    }
    let mut cov = vec![0u64; edges.len()];
    for (k, m) in &kept {
        for &e in m {
            cov[e as usize] += k;
        }
    }
    for e in 0..edges.len() {
        let mut surplus = cov[e].saturating_sub(edges[e].2);
        let mut i = 0;
        while surplus > 0 && i < kept.len() {
            if let Some(p) = kept[i].1.iter().position(|&x| x as usize == e) {
                let rep = kept[i].0;
                if rep <= surplus {
                    kept[i].1.remove(p);
                    surplus -= rep;
                } else {
                    let mut without = kept[i].1.clone();
                    without.remove(p);
                    kept[i].0 = rep - surplus;
                    kept.push((surplus, without));
                    surplus = 0;
                }
            }
            i += 1;
        }
        cov[e] = cov[e].min(edges[e].2);
    }
    kept.retain(|r| r.0 > 0 && !r.1.is_empty());
    let used: u64 = kept.iter().map(|r| r.0).sum();
    let budget = lower_bound.checked_sub(used)?;
    let residual = edges.iter().zip(&cov).map(|(e, &c)| e.2 - c).collect();
    Some(Rounded {
        kept,
        residual,
        budget,
    })
}
