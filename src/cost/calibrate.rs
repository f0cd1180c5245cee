//! Fitting the cost model to measured ticks (doc/design.md §12).
//!
//! An executor report (`tickopt replay --out R.json`, [`crate::exec`])
//! times every tick; the copies of a tick run side by side, so the model
//! says a tick lasts `alpha + max_copy_bytes / rate`. [`fit`] finds the
//! `alpha` and `rate` that minimise the squared error over all ticks
//! (ordinary least squares on one variable, closed form) and reports the
//! residual, so a user sees how well a straight line explains the device.

use super::model::CostModel;
use serde::Serialize;

/// One measured tick: the largest copy's bytes and the tick's median time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TickSample {
    pub bytes: u64,
    pub micros: f64,
}

/// Why no fit could be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CalibrateError {
    #[error("{0}: not an executor report (expected `runs[].per_tick[]` or `per_tick[]` with max_copy_bytes and median_us)")]
    NotAReport(String),
    #[error("{0} tick(s) measured: at least 2 ticks of different sizes are needed to separate the overhead from the rate")]
    TooFew(usize),
    #[error("every tick moves {0} bytes: ticks of different sizes are needed to separate the overhead from the rate (replay schedules of other chunk sizes too)")]
    OneSize(u64),
    #[error("time does not grow with bytes in these reports (slope {slope_us_per_byte:e} us/byte): no link rate can be fitted")]
    NoRate { slope_us_per_byte: f64 },
}

/// The fitted model and how well it fits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    pub alpha_us: f64,
    /// The rate in GB/s (10^9 bytes per second).
    pub rate_gbytes_per_s: f64,
    pub link_gbps: f64,
    /// Root mean square of the residuals, microseconds.
    pub rms_residual_us: f64,
    /// The same over the mean tick time.
    pub relative_residual: f64,
    /// Ticks fitted.
    pub samples: usize,
    /// Alpha below zero is clipped to zero (the flags take alpha >= 0).
    pub alpha_clipped: bool,
}

impl Fit {
    /// The model the fit gives (alpha clipped at 0).
    pub fn model(&self) -> CostModel {
        CostModel::new(self.alpha_us.max(0.0), self.link_gbps)
            .expect("a fitted rate is positive and finite")
    }
}

/// Least squares fit of `micros = alpha + bytes * slope` over `samples`.
pub fn fit(samples: &[TickSample]) -> Result<Fit, CalibrateError> {
    let n = samples.len();
    if n < 2 {
        return Err(CalibrateError::TooFew(n));
    }
    let first = samples[0].bytes;
    if samples.iter().all(|s| s.bytes == first) {
        return Err(CalibrateError::OneSize(first));
    }
    let nf = n as f64;
    let mx = samples.iter().map(|s| s.bytes as f64).sum::<f64>() / nf;
    let my = samples.iter().map(|s| s.micros).sum::<f64>() / nf;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for s in samples {
        let dx = s.bytes as f64 - mx;
        sxx += dx * dx;
        sxy += dx * (s.micros - my);
    }
    let slope = sxy / sxx;
    if !(slope.is_finite() && slope > 0.0) {
        return Err(CalibrateError::NoRate {
            slope_us_per_byte: slope,
        });
    }
    let alpha = my - slope * mx;
    let sse: f64 = samples
        .iter()
        .map(|s| {
            let r = s.micros - (alpha + slope * s.bytes as f64);
            r * r
        })
        .sum();
    let rms = (sse / nf).sqrt();
    // slope us per byte: bytes per second = 1e6 / slope.
    let rate_bytes = 1e6 / slope;
    Ok(Fit {
        alpha_us: alpha,
        rate_gbytes_per_s: rate_bytes / 1e9,
        link_gbps: rate_bytes * 8.0 / 1e9,
        rms_residual_us: rms,
        relative_residual: if my > 0.0 { rms / my } else { 0.0 },
        samples: n,
        alpha_clipped: alpha < 0.0,
    })
}

/// The tick samples of one report (a `tickopt replay --out` report, whose
/// tick-by-tick runs are read and whose `all_at_once` run is skipped: it
/// is no tick schedule, as are runs in a mode other than `host`, whose
/// ticks are not timed one by one; or one executor report). `name` is for
/// errors.
pub fn samples_of_report(
    v: &serde_json::Value,
    name: &str,
) -> Result<Vec<TickSample>, CalibrateError> {
    let bad = || CalibrateError::NotAReport(name.to_string());
    let runs: Vec<&serde_json::Value> = match v.get("runs").and_then(|r| r.as_array()) {
        Some(runs) => runs
            .iter()
            .filter(|r| r.get("label").and_then(|l| l.as_str()) != Some("all_at_once"))
            .filter(|r| r.get("mode").and_then(|m| m.as_str()).unwrap_or("host") == "host")
            .collect(),
        None => vec![v],
    };
    let mut out = Vec::new();
    for run in runs {
        let ticks = run
            .get("per_tick")
            .and_then(|t| t.as_array())
            .ok_or_else(bad)?;
        for t in ticks {
            let bytes = t
                .get("max_copy_bytes")
                .and_then(|b| b.as_u64())
                .ok_or_else(bad)?;
            let micros = t
                .get("median_us")
                .and_then(|m| m.as_f64())
                .ok_or_else(bad)?;
            out.push(TickSample { bytes, micros });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks from a known model with a small deterministic wobble.
    fn synthetic(alpha_us: f64, gbytes: f64, sizes: &[u64]) -> Vec<TickSample> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let wobble = 1.0 + 0.002 * ((i * 7919 % 13) as f64 - 6.0) / 6.0;
                TickSample {
                    bytes: b,
                    micros: (alpha_us + b as f64 / (gbytes * 1e3)) * wobble,
                }
            })
            .collect()
    }

    #[test]
    fn recovers_known_values_within_one_percent() {
        for (alpha, rate) in [(36.3, 678.0), (5.0, 20.0), (0.8, 3.5)] {
            // Copies from 0 to 4 x the bytes the link moves in alpha.
            let step = alpha * rate * 1e3 / 50.0;
            let sizes: Vec<u64> = (0..200).map(|i| 64 + (i as f64 * step) as u64).collect();
            let f = fit(&synthetic(alpha, rate, &sizes)).unwrap();
            assert!((f.alpha_us / alpha - 1.0).abs() < 0.01, "{f:?}");
            assert!((f.rate_gbytes_per_s / rate - 1.0).abs() < 0.01, "{f:?}");
            assert!((f.link_gbps - 8.0 * f.rate_gbytes_per_s).abs() < 1e-9);
            assert!(f.relative_residual < 0.01);
        }
    }

    #[test]
    fn degenerate_samples_are_refused() {
        let one = [TickSample {
            bytes: 8,
            micros: 1.0,
        }];
        assert_eq!(fit(&one), Err(CalibrateError::TooFew(1)));
        let same = [one[0], one[0]];
        assert_eq!(fit(&same), Err(CalibrateError::OneSize(8)));
        let falling = [
            TickSample {
                bytes: 8,
                micros: 2.0,
            },
            TickSample {
                bytes: 16,
                micros: 1.0,
            },
        ];
        assert!(matches!(fit(&falling), Err(CalibrateError::NoRate { .. })));
    }
}

/// The model's prediction for a measured run, tick by tick.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Prediction {
    pub alpha_us: f64,
    pub link_gbps: f64,
    /// `alpha + max_copy_bytes / rate` per tick (the ticks the report details).
    pub per_tick_us: Vec<f64>,
    /// Their sum.
    pub total_us: f64,
    /// The measured median of each of those ticks, summed.
    pub measured_us: f64,
    /// `measured_us / total_us`.
    pub measured_over_predicted: f64,
}

/// What `cost` predicts for the ticks of `report`.
pub fn predict(report: &crate::exec::ExecutionReport, cost: &CostModel) -> Prediction {
    let per_tick_us: Vec<f64> = report
        .per_tick
        .iter()
        .map(|t| cost.tick_seconds(t.max_copy_bytes.saturating_mul(8)) * 1e6)
        .collect();
    let total_us = per_tick_us.iter().sum::<f64>();
    let measured_us = report.per_tick.iter().map(|t| t.median_us).sum::<f64>();
    Prediction {
        alpha_us: cost.alpha_us,
        link_gbps: cost.link_gbps,
        per_tick_us,
        total_us,
        measured_us,
        measured_over_predicted: if total_us > 0.0 {
            measured_us / total_us
        } else {
            0.0
        },
    }
}
