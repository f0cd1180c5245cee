//! `tickopt validate`.

use super::model_source::{model_from_files, schedule_model};
use crate::schedule::validate_schedule_file;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Instance JSON, or demands CSV (bw: --bw or its recorded one; model:
    /// --model, else the schedule's, else STRICT1).
    pub instance: PathBuf,
    /// Schedule: copyspace-guard JSON, CSV (tick,src_slot,dst_slot,len_bits) or tickopt compact JSON.
    pub schedule: PathBuf,
    #[command(flatten)]
    pub overrides: super::common::OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// Print the full report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ValidateArgs) -> anyhow::Result<u8> {
    let mut overrides = a.overrides.to_overrides();
    let stated = schedule_model(&a.schedule)?;
    model_from_files(
        &a.instance,
        &mut overrides,
        &[(a.schedule.display().to_string(), stated)],
    )?;
    let inst = super::common::load_instance(&a.instance, &overrides, &a.limits.to_limits())?;
    let report = validate_schedule_file(&inst, &a.schedule)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!("{}", report.one_line())?;
        for e in report.errors.iter().take(10) {
            outln!("  {}", serde_json::to_string(e)?)?;
        }
        if report.total_errors > 10 {
            outln!("  ... {} more", report.total_errors - 10)?;
        }
    }
    Ok(if report.passed() { 0 } else { 2 })
}
