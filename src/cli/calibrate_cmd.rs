//! `tickopt calibrate`.

use crate::cost::calibrate::{fit, samples_of_report};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Executor reports (`tickopt replay --out R.json`); every tick of every
    /// tick-by-tick run is one sample (the all-at-once run is skipped).
    #[arg(required = true, value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Print the fit as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: CalibrateArgs) -> anyhow::Result<u8> {
    let mut samples = Vec::new();
    for path in &a.reports {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let value = crate::instance::json_strict::parse_json_value(&bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        samples.extend(samples_of_report(&value, &path.display().to_string())?);
    }
    let f = fit(&samples).context("cannot fit the cost model")?;
    if a.json {
        let mut v = serde_json::to_value(&f)?;
        v["flags"] = serde_json::Value::String(f.model().flags());
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    outln!(
        "fit over {} ticks: a tick lasts {:.3} us + bytes / {:.3} GB/s{}",
        f.samples,
        f.alpha_us,
        f.rate_gbytes_per_s,
        if f.alpha_clipped {
            " (alpha below 0: the flags use 0)"
        } else {
            ""
        }
    )?;
    outln!(
        "residual: {:.3} us rms ({:.1}% of the mean tick)",
        f.rms_residual_us,
        100.0 * f.relative_residual
    )?;
    outln!("flags: {}", f.model().flags())?;
    Ok(0)
}
