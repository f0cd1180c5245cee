//! Fractional edge colouring by column generation on HiGHS (exact LP up to
//! floating-point tolerance).
//!
//! Master: minimise `sum_M y_M` s.t. `sum_{M contains e} y_M >= m_e`, `y >= 0`,
//! one column per matching `M`. Pricing: a maximum-weight matching
//! ([`super::blossom`], O(n^3)) with the row duals as weights, scaled to
//! integers; the column enters while its (unscaled) dual weight exceeds 1.
//! The optimum is `max(Delta, Gamma)` (Edmonds' matching polytope). The loop
//! also stops as soon as the master value is `<= stop_at` (the integer lower
//! bound), since any such fractional colouring already rounds to a budget of
//! `stop_at` ticks. Entering columns are extended to maximal matchings.
//! The number of pricing rounds does not depend on multiplicities.

use super::blossom::{max_weight_matching, UNMATCHED};
use highs::{ColProblem, HighsModelStatus, Model, Row, Sense};

/// Dual-to-integer scale for the pricing oracle.
const SCALE: f64 = (1u64 << 24) as f64;
/// A column prices out when its dual weight exceeds `1 + EPS`.
const EPS: f64 = 1e-7;

/// Output of [`fractional_colouring`].
#[derive(Clone, Debug)]
pub struct LpColouring {
    /// Matchings (edge ids, sorted), one per master column.
    pub columns: Vec<Vec<u32>>,
    /// Master solution, one value per column.
    pub y: Vec<f64>,
    /// Master objective.
    pub value: f64,
    /// True when the last pricing found no improving column.
    pub optimal: bool,
    /// Pricing rounds.
    pub pricing_rounds: u64,
    /// Simplex iterations summed over master solves.
    pub iterations: u64,
}

/// Runs column generation from the `start` matchings (which must cover every edge).
/// Returns `None` if HiGHS fails; never panics.
pub fn fractional_colouring(
    n: usize,
    edges: &[(u32, u32, u64)],
    start: &[Vec<u32>],
    stop_at: f64,
    max_rounds: u64,
) -> Option<LpColouring> {
    std::panic::catch_unwind(|| run(n, edges, start, stop_at, max_rounds))
        .ok()
        .flatten()
}

fn run(
    n: usize,
    edges: &[(u32, u32, u64)],
    start: &[Vec<u32>],
    stop_at: f64,
    max_rounds: u64,
) -> Option<LpColouring> {
    let mut pb = ColProblem::default();
    let rows: Vec<Row> = edges.iter().map(|e| pb.add_row(e.2 as f64..)).collect();
    let mut columns: Vec<Vec<u32>> = Vec::new();
    for m in start {
        pb.add_column(1.0, 0.0.., m.iter().map(|&e| (rows[e as usize], 1.0)));
        columns.push(m.clone());
    }
    let mut model = pb.try_optimise(Sense::Minimise).ok()?;
    model.set_option("presolve", "off");
    model.set_option("threads", 1);
    // Added columns keep the basis primal feasible: primal simplex warm-starts.
    model.set_option("simplex_strategy", 4);
    let (mut pricing_rounds, mut iterations) = (0u64, 0u64);
    loop {
        let solved = model.try_solve().ok()?;
        if solved.status() != HighsModelStatus::Optimal {
            return None;
        }
        iterations += solved.simplex_iteration_count().max(0) as u64;
        let sol = solved.get_solution();
        let value = solved.objective_value();
        let done = |optimal: bool, pricing_rounds: u64| LpColouring {
            columns: columns.clone(),
            y: sol.columns().to_vec(),
            value,
            optimal,
            pricing_rounds,
            iterations,
        };
        if value <= stop_at + 1e-6 || pricing_rounds >= max_rounds {
            return Some(done(false, pricing_rounds));
        }
        let duals: Vec<f64> = sol.dual_rows().iter().map(|&d| d.max(0.0)).collect();
        let Some(col) = price(n, edges, &duals) else {
            return Some(done(true, pricing_rounds + 1));
        };
        pricing_rounds += 1;
        model = Model::from(solved);
        model
            .try_add_column(1.0, 0.0.., col.iter().map(|&e| (rows[e as usize], 1.0)))
            .ok()?;
        columns.push(col);
    }
}

/// Maximum dual-weight matching, extended to a maximal one; `None` if its weight is `<= 1 + EPS`.
fn price(n: usize, edges: &[(u32, u32, u64)], duals: &[f64]) -> Option<Vec<u32>> {
    let mut idx = Vec::new();
    let mut wedges = Vec::new();
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        let w = (duals[e] * SCALE).round() as i64;
        if w > 0 {
            idx.push(e as u32);
            wedges.push((a as usize, b as usize, w));
        }
    }
    let mate = max_weight_matching(n, &wedges);
    let mut used = vec![false; n];
    let mut col = Vec::new();
    let mut weight = 0.0;
    for (k, &(a, b, _)) in wedges.iter().enumerate() {
        if mate[a] == b && mate[a] != UNMATCHED {
            col.push(idx[k]);
            weight += duals[idx[k] as usize];
            used[a] = true;
            used[b] = true;
        }
    }
    if weight <= 1.0 + EPS {
        return None;
    }
    for (e, &(a, b, _)) in edges.iter().enumerate() {
        if !used[a as usize] && !used[b as usize] {
            used[a as usize] = true;
            used[b as usize] = true;
            col.push(e as u32);
        }
    }
    col.sort_unstable();
    Some(col)
}
