//! STRICT1 with ports at high multiplicity: a fractional f-colouring by
//! column generation over b-matchings, rounded down, and the small residual
//! settled by the MIP of [`super::fcolour_ilp`] (DESIGN.md §9 and §11).
//!
//! Master LP (HiGHS): minimise `sum_j y_j` subject to `sum_j a_je y_j = m_e`
//! for every pair `e`, `y >= 0`, one column per f-matching `a_j` (chunks of
//! each pair in one tick, at most `ports(v)` per slot). Equality is no
//! loss: f-matchings are closed under taking fewer chunks. Pricing: a
//! maximum-weight f-matching with the row duals as weights, a small HiGHS
//! MIP (pairs integers); a column enters while its weight exceeds 1. The
//! loop stops once the master's value is at most the target `T` (any
//! fractional colouring of value `<= T` is what the rounding needs) or no
//! column enters. The number of pricing rounds does not grow with the
//! multiplicities.
//!
//! Rounding: `floor(y_j)` ticks of each column are kept; the residual
//! multiplicities are small (at most about one tick of chunks per basic
//! column) and the MIP colours them in `T - sum floor(y_j)` ticks. If it
//! cannot, `b` ticks of every column go back into the residual (`b = 1, 2,
//! 4`) and the MIP tries again. A heuristic: failure says nothing about `T`.

use super::fcolour_ilp::{f_colourable, FOutcome};
use highs::{ColProblem, HighsModelStatus, Sense};
use std::time::Instant;

/// Rounds of an f-colouring: `(repeat, [(pair, chunks)])`.
pub(crate) type PairRounds = Vec<(u64, Vec<(u32, u64)>)>;

/// A column enters while its dual weight exceeds `1 + EPS`.
const EPS: f64 = 1e-7;
/// Pricing rounds at most.
const MAX_ROUNDS: usize = 500;

/// An f-colouring of `edges` (pairs `(a, b, chunks)`) in at most `target`
/// ticks as `(repeat, [(pair, chunks)])` rounds, found by column generation
/// from the `start` columns (which must reproduce `edges` exactly with
/// their repeats) and rounding; `None` when it does not reach `target`
/// before `deadline` (`Err(true)`: the deadline stopped it).
pub(crate) fn colgen_f_colouring(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    odd_sets: &[Vec<u32>],
    start: Vec<Vec<(u32, u64)>>,
    target: u64,
    deadline: Instant,
    max_vars: u64,
) -> Result<PairRounds, bool> {
    let mut columns = start;
    let mut y = Vec::new();
    for _ in 0..MAX_ROUNDS {
        if Instant::now() >= deadline {
            return Err(true);
        }
        let (value, ys, duals) = master(edges, &columns).ok_or(false)?;
        y = ys;
        if value <= target as f64 + 1e-9 {
            break;
        }
        let Some(col) = price(ports, edges, &duals, deadline) else {
            break;
        };
        let weight: f64 = col.iter().map(|&(e, k)| duals[e as usize] * k as f64).sum();
        if weight <= 1.0 + EPS || columns.contains(&col) {
            break;
        }
        columns.push(col);
    }
    let total: f64 = y.iter().sum();
    if total > target as f64 + 1e-6 {
        return Err(false);
    }
    for back in [0u64, 1, 2, 4] {
        let keep: Vec<u64> = y
            .iter()
            .map(|&v| ((v + 1e-9).floor() as u64).saturating_sub(back))
            .collect();
        let kept: u64 = keep.iter().sum();
        let mut residual: Vec<i128> = edges.iter().map(|e| e.2 as i128).collect();
        for (col, &k) in columns.iter().zip(&keep) {
            for &(e, c) in col {
                residual[e as usize] -= (k * c) as i128;
            }
        }
        if kept > target || residual.iter().any(|&r| r < 0) {
            continue;
        }
        let res_edges: Vec<(u32, u32, u64)> = edges
            .iter()
            .zip(&residual)
            .map(|(&(a, b, _), &r)| (a, b, r as u64))
            .collect();
        match f_colourable(
            ports,
            &res_edges,
            odd_sets,
            target - kept,
            deadline,
            max_vars,
        ) {
            FOutcome::Feasible(ticks) => {
                let mut rounds: PairRounds = columns
                    .iter()
                    .zip(&keep)
                    .filter(|(_, &k)| k > 0)
                    .map(|(c, &k)| (k, c.clone()))
                    .collect();
                rounds.extend(ticks.into_iter().map(|t| (1, t)));
                return Ok(rounds);
            }
            FOutcome::TimedOut => return Err(true),
            FOutcome::Infeasible | FOutcome::Unknown(_) => {}
        }
    }
    Err(false)
}

/// Solves the master LP: its value, `y` and the row duals.
fn master(
    edges: &[(u32, u32, u64)],
    columns: &[Vec<(u32, u64)>],
) -> Option<(f64, Vec<f64>, Vec<f64>)> {
    std::panic::catch_unwind(|| {
        let mut pb = ColProblem::default();
        let rows: Vec<_> = edges
            .iter()
            .map(|e| pb.add_row(e.2 as f64..=e.2 as f64))
            .collect();
        for col in columns {
            let f: Vec<_> = col
                .iter()
                .map(|&(e, k)| (rows[e as usize], k as f64))
                .collect();
            pb.add_column(1.0, 0.0.., f);
        }
        let mut model = pb.try_optimise(Sense::Minimise).ok()?;
        model.set_option("threads", 1);
        model.set_option("output_flag", false);
        let solved = model.try_solve().ok()?;
        if solved.status() != HighsModelStatus::Optimal {
            return None;
        }
        let sol = solved.get_solution();
        Some((
            solved.objective_value(),
            sol.columns().to_vec(),
            sol.dual_rows().to_vec(),
        ))
    })
    .ok()
    .flatten()
}

/// A maximum-weight f-matching for the weights `duals` (pairs of positive
/// weight only), as `(pair, chunks)`; `None` if HiGHS fails.
fn price(
    ports: &[u32],
    edges: &[(u32, u32, u64)],
    duals: &[f64],
    deadline: Instant,
) -> Option<Vec<(u32, u64)>> {
    let live: Vec<usize> = (0..edges.len()).filter(|&e| duals[e] > 1e-12).collect();
    if live.is_empty() {
        return None;
    }
    std::panic::catch_unwind(|| {
        let mut pb = ColProblem::default();
        let vrows: Vec<_> = ports.iter().map(|&p| pb.add_row(..=p as f64)).collect();
        for &e in &live {
            let (a, b, m) = edges[e];
            let cap = m.min(ports[a as usize].min(ports[b as usize]) as u64);
            pb.add_integer_column(
                duals[e],
                0.0..=cap as f64,
                [(vrows[a as usize], 1.0), (vrows[b as usize], 1.0)],
            );
        }
        let mut model = pb.try_optimise(Sense::Maximise).ok()?;
        model.set_option("threads", 1);
        model.set_option("output_flag", false);
        let secs = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        model.set_option("time_limit", secs.max(0.01));
        let solved = model.try_solve().ok()?;
        if solved.status() != HighsModelStatus::Optimal {
            return None;
        }
        let x = solved.get_solution().columns().to_vec();
        Some(
            live.iter()
                .zip(&x)
                .filter(|(_, &v)| v > 0.5)
                .map(|(&e, &v)| (e as u32, v.round() as u64))
                .collect(),
        )
    })
    .ok()
    .flatten()
}
