//! What an execution returns: per-tick times, totals, bytes, bandwidth and
//! the data check, plus a plain-text table of several reports. Rendering
//! lives here, apart from the executors, which never print.

use super::data::Verification;
use super::plan::{Plan, PlanKind};
use super::ExecMode;
use serde::Serialize;

/// Per-tick detail is kept for at most this many ticks (the summary
/// statistics always cover every tick).
pub const MAX_TICK_DETAIL: usize = 200_000;

/// Order statistics of a sample, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub median_us: f64,
    pub p95_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    pub mean_us: f64,
    pub samples: usize,
}

impl Stats {
    /// Statistics of `xs` (microseconds); p95 is the nearest-rank percentile.
    pub fn of(xs: &[f64]) -> Stats {
        if xs.is_empty() {
            return Stats::default();
        }
        let mut v = xs.to_vec();
        v.sort_unstable_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
        Stats {
            median_us: median,
            p95_us: v[rank - 1],
            min_us: v[0],
            max_us: v[n - 1],
            mean_us: v.iter().sum::<f64>() / n as f64,
            samples: n,
        }
    }
}

/// One tick of the plan: what it moves and how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TickStat {
    pub copies: u32,
    pub bytes: u64,
    /// The largest single copy of the tick.
    pub max_copy_bytes: u64,
    /// Median and p95 of this tick over the repetitions.
    pub median_us: f64,
    pub p95_us: f64,
}

/// The result of executing one plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExecutionReport {
    /// Executor name ("cpu", "cuda").
    pub executor: String,
    /// What ran the copies (CPU threads, GPU name and driver).
    pub device: String,
    /// How time was taken (host clock or device events).
    pub timer: String,
    /// How the plan ran (host, graph, device-barrier, device-dataflow).
    pub mode: ExecMode,
    pub kind: PlanKind,
    /// Instance bits per byte-eighth moved (1 = unscaled).
    pub scale_bits: u64,
    pub devices: u32,
    pub ticks: u64,
    pub copies: u64,
    /// Bytes one repetition moves.
    pub bytes: u64,
    pub warmup: u32,
    pub repeat: u32,
    /// Over every tick of every timed repetition.
    pub tick: Stats,
    /// Whole plan, one sample per timed repetition.
    pub total: Stats,
    /// `bytes / total.median` in GB/s (10^9 bytes per second).
    pub effective_gbps: f64,
    /// `total.median / ticks`: the whole plan's cost per tick, copies
    /// included (the only per-tick figure of the graph and device modes,
    /// which have no tick boundaries to time).
    pub us_per_tick: f64,
    /// Per-tick detail (first [`MAX_TICK_DETAIL`] ticks). In the graph and
    /// device modes every tick's time is `total / ticks` of its repetition.
    pub per_tick: Vec<TickStat>,
    pub per_tick_truncated: bool,
    /// The data check after the last repetition.
    pub verification: Verification,
}

/// Collects timings while a plan runs, then builds the report.
pub(crate) struct Timings {
    ticks: usize,
    /// Row-major: repetition x tick, microseconds.
    tick_us: Vec<f64>,
    total_us: Vec<f64>,
}

impl Timings {
    pub(crate) fn new(plan: &Plan, repeat: u32) -> Timings {
        let ticks = plan.ticks().len();
        Timings {
            ticks,
            tick_us: Vec::with_capacity(ticks * repeat as usize),
            total_us: Vec::with_capacity(repeat as usize),
        }
    }

    /// Adds one timed repetition: the time of each tick and of the whole plan.
    pub(crate) fn push(&mut self, ticks_us: &[f64], total_us: f64) {
        debug_assert_eq!(ticks_us.len(), self.ticks);
        self.tick_us.extend_from_slice(ticks_us);
        self.total_us.push(total_us);
    }

    /// Adds one timed repetition that has only a total: each tick gets
    /// `total / ticks` (the graph and device modes).
    pub(crate) fn push_total(&mut self, total_us: f64) {
        let each = total_us / self.ticks.max(1) as f64;
        self.tick_us.extend(std::iter::repeat_n(each, self.ticks));
        self.total_us.push(total_us);
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn report(
        self,
        plan: &Plan,
        executor: &str,
        device: String,
        timer: &str,
        mode: ExecMode,
        warmup: u32,
        verification: Verification,
    ) -> ExecutionReport {
        let reps = self.total_us.len();
        let detail = self.ticks.min(MAX_TICK_DETAIL);
        let mut per_tick = Vec::with_capacity(detail);
        let mut col = Vec::with_capacity(reps);
        for (t, tick) in plan.ticks().iter().take(detail).enumerate() {
            col.clear();
            col.extend((0..reps).map(|r| self.tick_us[r * self.ticks + t]));
            let s = Stats::of(&col);
            per_tick.push(TickStat {
                copies: tick.len() as u32,
                bytes: tick.iter().map(|c| c.len).sum(),
                max_copy_bytes: tick.iter().map(|c| c.len).max().unwrap_or(0),
                median_us: s.median_us,
                p95_us: s.p95_us,
            });
        }
        let total = Stats::of(&self.total_us);
        let bytes = plan.bytes();
        ExecutionReport {
            executor: executor.to_string(),
            device,
            timer: timer.to_string(),
            mode,
            kind: plan.kind(),
            scale_bits: plan.layout().scale_bits,
            devices: plan.layout().devices,
            ticks: self.ticks as u64,
            copies: plan.copies() as u64,
            bytes,
            warmup,
            repeat: reps as u32,
            tick: Stats::of(&self.tick_us),
            total,
            effective_gbps: gbps(bytes, total.median_us),
            us_per_tick: total.median_us / self.ticks.max(1) as f64,
            per_tick,
            per_tick_truncated: detail < self.ticks,
            verification,
        }
    }
}

/// Bytes per microsecond as GB/s (10^9 bytes per second); 0 if no time.
pub fn gbps(bytes: u64, us: f64) -> f64 {
    if us > 0.0 {
        bytes as f64 / us / 1e3
    } else {
        0.0
    }
}

/// One large copy of `bytes` bytes, timed: the device's copy ceiling.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeakReport {
    pub executor: String,
    pub device: String,
    pub bytes: u64,
    pub warmup: u32,
    pub copy: Stats,
    /// `bytes / copy.median` in GB/s.
    pub gbps: f64,
}

impl PeakReport {
    /// The report of `samples` (microseconds per copy of `bytes`).
    pub fn from_samples(
        executor: String,
        device: String,
        bytes: u64,
        warmup: u32,
        samples: &[f64],
    ) -> PeakReport {
        let copy = Stats::of(samples);
        PeakReport {
            executor,
            device,
            bytes,
            warmup,
            copy,
            gbps: gbps(bytes, copy.median_us),
        }
    }
}

fn fmt_us(us: f64) -> String {
    if us >= 1e6 {
        format!("{:.3} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{:.3} ms", us / 1e3)
    } else {
        format!("{us:.1} us")
    }
}

/// A plain-text table of labelled reports: ticks, copies, bytes, median and
/// p95 tick time, median total, effective GB/s and the data check.
pub fn render_table(rows: &[(&str, &ExecutionReport)], peak: Option<&PeakReport>) -> String {
    let head = [
        "run", "mode", "ticks", "copies", "bytes", "tick med", "tick p95", "total", "us/tick",
        "GB/s", "data",
    ];
    let mut cells: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for (label, r) in rows {
        cells.push(vec![
            label.to_string(),
            r.mode.to_string(),
            r.ticks.to_string(),
            r.copies.to_string(),
            r.bytes.to_string(),
            fmt_us(r.tick.median_us),
            fmt_us(r.tick.p95_us),
            fmt_us(r.total.median_us),
            format!("{:.2}", r.us_per_tick),
            format!("{:.2}", r.effective_gbps),
            if r.verification.passed { "ok" } else { "FAIL" }.to_string(),
        ]);
    }
    if let Some(p) = peak {
        cells.push(vec![
            "peak copy".into(),
            "-".into(),
            "1".into(),
            "1".into(),
            p.bytes.to_string(),
            fmt_us(p.copy.median_us),
            fmt_us(p.copy.p95_us),
            fmt_us(p.copy.median_us),
            "-".into(),
            format!("{:.2}", p.gbps),
            "-".into(),
        ]);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|c| cells.iter().map(|row| row[c].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_median_and_nearest_rank_p95() {
        let xs: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Stats::of(&xs);
        assert_eq!(
            (s.median_us, s.p95_us, s.min_us, s.max_us),
            (50.5, 95.0, 1.0, 100.0)
        );
        assert_eq!(Stats::of(&[3.0]).p95_us, 3.0);
        assert_eq!(Stats::of(&[]).samples, 0);
    }
}
