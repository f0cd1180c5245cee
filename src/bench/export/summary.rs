//! Aggregates the reports show: status counts, per-family summaries, and
//! the one colour each status has in every report.

use super::super::record::{BenchRecord, RunStatus};
use crate::solve::Status;
use std::collections::BTreeMap;

/// Statuses in display order.
pub const STATUSES: [RunStatus; 5] = RunStatus::ALL;

/// The colour of a status in every chart and table (HTML hex). Proven
/// statuses are greens, `within_one` yellow, `feasible` orange, `failed`
/// red; the terminal uses the nearest ANSI colours.
pub fn status_colour(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Solved(Status::Optimal) => "#2e7d32",
        RunStatus::Solved(Status::OptimalExhaustive) => "#00897b",
        RunStatus::Solved(Status::WithinOne) => "#f9a825",
        RunStatus::Solved(Status::Feasible) => "#ef6c00",
        RunStatus::Failed => "#c62828",
    }
}

/// Count of records per status (display order, all statuses present).
pub fn status_counts<'a>(
    records: impl Iterator<Item = &'a BenchRecord>,
) -> Vec<(RunStatus, usize)> {
    let mut counts = [0usize; STATUSES.len()];
    for r in records {
        let i = STATUSES
            .iter()
            .position(|s| *s == r.status)
            .expect("STATUSES lists every RunStatus");
        counts[i] += 1;
    }
    STATUSES.iter().copied().zip(counts).collect()
}

/// Ticks a run may still be above the optimum: zero when its status proves
/// the optimum, else its gap to the lower bound (an upper estimate).
pub fn possible_gap(r: &BenchRecord) -> Option<u64> {
    if r.status.proves_optimum() {
        Some(0)
    } else {
        r.gap_ticks
    }
}

/// What the per-family tables and charts show.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilySummary {
    pub family: String,
    pub runs: usize,
    pub statuses: Vec<(RunStatus, usize)>,
    /// Largest ticks - lower bound over the family's runs.
    pub max_gap: u64,
    /// Mean of ticks / lower bound over the runs that have one (`None`
    /// when every run failed: no mean of nothing).
    pub mean_ticks_over_bound: Option<f64>,
    /// Largest [`possible_gap`] (zero when every run is proven optimal).
    pub max_possible_gap: u64,
    /// Mean of 1 + possible gap / lower bound (`None` as above).
    pub mean_possible_ticks_over_bound: Option<f64>,
    pub known_matched: usize,
    pub known_total: usize,
    /// Sum of the runs' seconds.
    pub seconds_sum: f64,
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Per-family summaries, sorted by family name.
pub fn family_summaries(records: &[BenchRecord]) -> Vec<FamilySummary> {
    let mut by: BTreeMap<String, Vec<&BenchRecord>> = BTreeMap::new();
    for r in records {
        let f = if r.family.is_empty() {
            "(unknown)"
        } else {
            &r.family
        };
        by.entry(f.to_string()).or_default().push(r);
    }
    by.into_iter()
        .map(|(family, rs)| {
            let ratios: Vec<f64> = rs.iter().filter_map(|r| r.ticks_over_bound).collect();
            let possible: Vec<f64> = rs
                .iter()
                .filter_map(|r| match (possible_gap(r), r.lower_bound) {
                    (Some(g), Some(lb)) if lb > 0 => Some(1.0 + g as f64 / lb as f64),
                    (Some(_), Some(_)) => Some(1.0),
                    _ => None,
                })
                .collect();
            FamilySummary {
                runs: rs.len(),
                statuses: status_counts(rs.iter().copied()),
                max_gap: rs.iter().filter_map(|r| r.gap_ticks).max().unwrap_or(0),
                mean_ticks_over_bound: mean(&ratios),
                max_possible_gap: rs
                    .iter()
                    .copied()
                    .filter_map(possible_gap)
                    .max()
                    .unwrap_or(0),
                mean_possible_ticks_over_bound: mean(&possible),
                known_matched: rs
                    .iter()
                    .filter(|r| r.known_check.as_deref() == Some("match"))
                    .count(),
                known_total: rs.iter().filter(|r| r.known_check.is_some()).count(),
                seconds_sum: rs.iter().map(|r| r.seconds).sum(),
                family,
            }
        })
        .collect()
}
