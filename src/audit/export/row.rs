//! The ranking row model: one ranked schedule's cells as text, built once
//! from the [`Audit`], so the tables that show the ranking (the terminal
//! table of `tickopt audit`, `report.md` and `report.html`) print the same
//! values and differ only in layout (and HTML escaping).

use super::{gap_text, opt, ratio_text, Audit};
use crate::audit::ScheduleAudit;

/// One row of the ranking, each cell formatted once.
pub struct RankingRow<'a> {
    pub rank: String,
    pub name: String,
    /// `yes` or `no`.
    pub valid: &'static str,
    pub ticks: String,
    /// `1`, `<= 1` for an upper estimate, `-` when invalid.
    pub gap_ticks: String,
    /// 4 decimals, `-` when invalid.
    pub gap_ratio: String,
    /// `-` when invalid.
    pub ticks_saved: String,
    /// Mean utilisation in percent, one decimal: `87.5%`.
    pub utilisation: String,
    /// `yes` or `no`.
    pub passed: &'static str,
    /// Why it did not pass (`; `-separated), empty when it did.
    pub why_not: String,
    /// `PASS`, or `FAIL: ` and why not.
    pub result: String,
    /// The schedule's audit, for what a table shows below its row (first
    /// errors).
    pub audit: &'a ScheduleAudit,
}

impl<'a> RankingRow<'a> {
    pub fn new(r: &'a ScheduleAudit) -> Self {
        let yes_no = |b: bool| if b { "yes" } else { "no" };
        let why_not = r.failures.join("; ");
        RankingRow {
            rank: r.rank.to_string(),
            name: r.name.clone(),
            valid: yes_no(r.valid),
            ticks: r.schedule_ticks.to_string(),
            gap_ticks: gap_text(r.gap_ticks, r.gap_is_upper_estimate),
            gap_ratio: ratio_text(r.gap_ratio),
            ticks_saved: opt(&r.ticks_saved),
            utilisation: format!("{:.1}%", r.utilisation.mean * 100.0),
            passed: yes_no(r.passed),
            result: if r.passed {
                "PASS".to_string()
            } else {
                format!("FAIL: {why_not}")
            },
            why_not,
            audit: r,
        }
    }
}

/// The ranking's rows, best rank first.
pub fn ranking_rows(a: &Audit) -> Vec<RankingRow<'_>> {
    a.ranked().into_iter().map(RankingRow::new).collect()
}
