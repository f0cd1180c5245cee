//! From an LP solution to an integral colouring (heuristic with an exact
//! sub-step): round down ([`super::rounding`]), colour the small residual
//! multigraph within the remaining budget by Kempe search, then by the
//! assignment ILP; if neither fits, move repeats back from the kept columns
//! into the residual (`release` = 1, 2, 4, ...) and retry, until a deadline.
//! The residual size depends on the LP support, not on the multiplicities.

use super::assign_ilp::{t_colourable, IlpOutcome};
use super::check::check_rounds;
use super::kempe::colour_chunks;
use super::rounding::round_down;
use super::rounds::{classes_to_rounds, degrees, expand_chunks, merge_rounds, ticks};
use super::types::ColourStats;
use std::time::{Duration, Instant};

/// Residual chunk count above which a release level is not tried.
const RESIDUAL_CHUNK_LIMIT: u64 = 200_000;
/// Largest residual ILP (binary variables).
const RESIDUAL_ILP_VARS: u64 = 60_000;

/// Tries to colour `edges` with `lower_bound` ticks from the LP columns `y`.
/// Returns the best rounds found (maybe above the bound), or `None` if rounding is impossible.
#[allow(clippy::too_many_arguments)]
pub fn round_and_repair(
    n: usize,
    edges: &[(u32, u32, u64)],
    columns: &[Vec<u32>],
    y: &[f64],
    lower_bound: u64,
    ilp_time: Duration,
    deadline: Instant,
    moves_per_chunk: u64,
    stats: &mut ColourStats,
) -> Option<Vec<(u64, Vec<u32>)>> {
    let mut best: Option<Vec<(u64, Vec<u32>)>> = None;
    let mut release = 0u64;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return best;
        }
        let ilp_time = ilp_time.min(left);
        let Some(r) = round_down(edges, columns, y, lower_bound, release) else {
            release = next_release(release);
            if release > lower_bound {
                return best;
            }
            continue;
        };
        let chunks: u64 = r.residual.iter().sum();
        if chunks > RESIDUAL_CHUNK_LIMIT {
            return best;
        }
        stats.lp_released = release;
        let (rounds, fits) = colour_residual(
            n,
            edges,
            &r.residual,
            r.budget,
            ilp_time,
            moves_per_chunk,
            stats,
        );
        let mut all = r.kept.clone();
        all.extend(rounds);
        let all = merge_rounds(all);
        if fits {
            return Some(all);
        }
        if best.as_ref().is_none_or(|b| ticks(&all) < ticks(b)) {
            best = Some(all);
        }
        if r.kept.is_empty() {
            return best;
        }
        release = next_release(release);
    }
}

fn next_release(r: u64) -> u64 {
    if r == 0 {
        1
    } else {
        r * 2
    }
}

/// Colours the residual; `fits` when it used at most `budget` ticks.
fn colour_residual(
    n: usize,
    edges: &[(u32, u32, u64)],
    residual: &[u64],
    budget: u64,
    ilp_time: Duration,
    moves_per_chunk: u64,
    stats: &mut ColourStats,
) -> (Vec<(u64, Vec<u32>)>, bool) {
    let (chunks, owner) = expand_chunks(edges, residual);
    if chunks.is_empty() {
        return (Vec::new(), true);
    }
    let maxdeg = degrees(n, edges, residual).into_iter().max().unwrap_or(0);
    let target = budget.max(maxdeg).min(u32::MAX as u64 / 2) as u32;
    let moves = moves_per_chunk * chunks.len() as u64 + 10_000;
    let k = colour_chunks(n, &chunks, target, moves, 0x9e37_79b9_7f4a_7c15);
    stats.kempe_moves += k.moves;
    let kempe_rounds = classes_to_rounds(&k.colour, &owner);
    if k.colours as u64 <= budget {
        return (kempe_rounds, true);
    }
    if maxdeg <= budget {
        stats.residual_ilps += 1;
        let (out, _) = t_colourable(n, edges, residual, budget, ilp_time, RESIDUAL_ILP_VARS);
        if let IlpOutcome::Feasible(r) = out {
            let res_edges: Vec<(u32, u32, u64)> = edges
                .iter()
                .zip(residual)
                .map(|(&(a, b, _), &m)| (a, b, m))
                .collect();
            if check_rounds(n, &res_edges, &r).is_ok_and(|t| t <= budget as u128) {
                return (merge_rounds(r), true);
            }
        }
    }
    (kempe_rounds, false)
}
