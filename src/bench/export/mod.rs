//! Benchmark outputs, one file per format behind one small trait:
//! `results.json` (`json.rs`), `results.csv` (`csv.rs`), `report.md`
//! (`markdown.rs`) and a self-contained `report.html` with inline SVG charts
//! (`html.rs`), each an [`Exporter`]. Every writer is a pure function of [`Results`]; files are
//! written atomically.

mod csv;
mod html;
mod json;
mod markdown;
mod summary;

use super::record::BenchRecord;
use super::BenchError;
use crate::schedule::writers::write_atomically;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::Path;

pub use summary::{
    family_summaries, possible_gap, status_colour, status_counts, FamilySummary, STATUSES,
};

/// File name of the JSON results.
pub const RESULTS_JSON: &str = "results.json";

/// What a results file says about the run as a whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultsHeader {
    pub tickopt_version: String,
    /// Set names, in the order given.
    pub sets: Vec<String>,
    /// Distinct option keys of the records ([`super::BenchOptions::key`]).
    pub options: Vec<String>,
    /// `I/N` for a shard, absent for a whole run or a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Whether copyspace-guard was run beside tickopt.
    pub compare_cg: bool,
    /// Whether the pairwise-exchange baseline was run (`--compare-pairwise`);
    /// absent when not, so results without it read as before the flag.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compare_pairwise: bool,
}

/// A header and the records in canonical order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    #[serde(flatten)]
    pub header: ResultsHeader,
    pub records: Vec<BenchRecord>,
}

/// One output format.
pub trait Exporter {
    /// File name inside the output directory.
    fn file_name(&self) -> &'static str;
    fn write(&self, results: &Results, w: &mut dyn Write) -> io::Result<()>;
}

/// Every output format, in the order they are written.
pub fn exporters() -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(json::Json),
        Box::new(csv::Csv),
        Box::new(markdown::Markdown),
        Box::new(html::Html),
    ]
}

/// Writes every output format into `dir`.
pub fn write_outputs(dir: &Path, results: &Results) -> Result<(), BenchError> {
    for e in exporters() {
        let path = dir.join(e.file_name());
        write_atomically(&path, |w| e.write(results, w)).map_err(|source| BenchError::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(())
}

/// Reads a `results.json`.
pub fn read_results(path: &Path) -> Result<Results, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|source| BenchError::Io {
        path: path.display().to_string(),
        source,
    })?;
    crate::instance::json_strict::parse_json_value(text.as_bytes())
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
        .map_err(|e| BenchError::BadResults {
            path: path.display().to_string(),
            message: format!("not a tickopt results.json: {e}"),
        })
}

/// Formats seconds for tables: 3 significant-ish digits.
pub(crate) fn fmt_seconds(s: f64) -> String {
    if s >= 100.0 {
        format!("{s:.0}")
    } else if s >= 1.0 {
        format!("{s:.2}")
    } else {
        format!("{s:.4}")
    }
}

/// A run's bw and where it came from, e.g. `8192 (csv comment)`; `-` when
/// not known (a failed run, or a journal written before bw was recorded).
pub fn bw_cell(r: &BenchRecord) -> String {
    match (&r.bw, &r.bw_from) {
        (Some(bw), Some(from)) => format!("{bw} ({from})"),
        (Some(bw), None) => bw.to_string(),
        (None, _) => "-".into(),
    }
}

/// Whether any run has predicted seconds (a cost model was given): the
/// reports then show the column.
pub fn has_seconds(records: &[BenchRecord]) -> bool {
    records.iter().any(|r| r.seconds_predicted.is_some())
}

/// A run's predicted seconds and their ratio to the fluid limit, as the
/// reports show them: `0.002517 s (11.50x fluid)`, or `-`.
pub fn predicted_cell(r: &BenchRecord) -> String {
    match (r.seconds_predicted, r.predicted_over_fluid) {
        (Some(s), Some(x)) => format!("{s:.6} s ({x:.2}x fluid)"),
        (Some(s), None) => format!("{s:.6} s"),
        (None, _) => "-".into(),
    }
}

/// `value` or `-`.
pub(crate) fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

/// The pairwise-exchange baseline over the runs where it was computed:
/// how many, and the median, least and greatest of baseline ticks /
/// tickopt's ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairwiseSummary {
    pub runs: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// [`PairwiseSummary`] of `records`; `None` when no run has the ratio.
pub fn pairwise_summary(records: &[BenchRecord]) -> Option<PairwiseSummary> {
    let mut xs: Vec<f64> = records
        .iter()
        .filter_map(|r| r.pairwise_over_ticks)
        .collect();
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let median = if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    };
    Some(PairwiseSummary {
        runs: n,
        median,
        min: xs[0],
        max: xs[n - 1],
    })
}

/// The reports' sentence on the pairwise-exchange baseline; `None` when
/// it was not run (`--compare-pairwise`).
pub(crate) fn pairwise_sentence(results: &Results) -> Option<String> {
    if !results.header.compare_pairwise {
        return None;
    }
    let what = "pairwise exchange (round i, rank r sends to (r+i) mod n) against tickopt";
    Some(match pairwise_summary(&results.records) {
        Some(p) => format!(
            "{what}: the baseline needs {:.2}x tickopt's ticks (median; range {:.2}x to {:.2}x over {} runs); its ticks and the ratio are in the pairwise columns.",
            p.median, p.min, p.max, p.runs
        ),
        None => format!("{what}: no run has the ratio (none finished with ticks to move)."),
    })
}

/// A run's pairwise-exchange columns for the reports: its ticks and
/// baseline / tickopt ticks, e.g. `["90", "1.50x"]`, `-` where absent.
pub(crate) fn pairwise_cells(r: &BenchRecord) -> [String; 2] {
    [
        opt(&r.pairwise_ticks),
        r.pairwise_over_ticks
            .map_or_else(|| "-".into(), |x| format!("{x:.2}x")),
    ]
}
