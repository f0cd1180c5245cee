//! Aggregates the reports show: status counts, per-family summaries.

use super::super::record::BenchRecord;
use std::collections::BTreeMap;

/// Statuses in display order.
pub const STATUSES: [&str; 5] = [
    "optimal",
    "optimal_exhaustive",
    "within_one",
    "feasible",
    "failed",
];

/// Count of records per status (display order, all statuses present).
pub fn status_counts<'a>(
    records: impl Iterator<Item = &'a BenchRecord>,
) -> Vec<(&'static str, usize)> {
    let mut counts = [0usize; STATUSES.len()];
    for r in records {
        let i = STATUSES.iter().position(|s| *s == r.status).unwrap_or(3);
        counts[i] += 1;
    }
    STATUSES.iter().copied().zip(counts).collect()
}

/// What the per-family tables and charts show.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilySummary {
    pub family: String,
    pub runs: usize,
    pub statuses: Vec<(&'static str, usize)>,
    pub max_gap: u64,
    pub mean_gap_ratio: f64,
    pub known_matched: usize,
    pub known_total: usize,
    pub seconds: f64,
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
            let ratios: Vec<f64> = rs.iter().filter_map(|r| r.gap_ratio).collect();
            FamilySummary {
                runs: rs.len(),
                statuses: status_counts(rs.iter().copied()),
                max_gap: rs.iter().filter_map(|r| r.gap).max().unwrap_or(0),
                mean_gap_ratio: if ratios.is_empty() {
                    1.0
                } else {
                    ratios.iter().sum::<f64>() / ratios.len() as f64
                },
                known_matched: rs
                    .iter()
                    .filter(|r| r.known_check.as_deref() == Some("match"))
                    .count(),
                known_total: rs.iter().filter(|r| r.known_check.is_some()).count(),
                seconds: rs.iter().map(|r| r.seconds).sum(),
                family,
            }
        })
        .collect()
}
