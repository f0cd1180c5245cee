//! `tickopt validate`: a direct schedule by the validator, a relay
//! schedule (`"kind": "relay_schedule"`) by the relay checker on the
//! machine the flags or the demands CSV give (`super::relay_use`).

use super::model_source::{input_model, model_from_files, note_instance_model};
use crate::interop::read_schedule_file;
use crate::schedule::readers::validate_schedule_input;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Instance JSON, or demands CSV (bw: --bw or its recorded one; model:
    /// --model, else the schedule's, else STRICT1).
    pub instance: PathBuf,
    /// Schedule: copyspace-guard JSON, CSV (tick,src_slot,dst_slot,len_bits), tickopt compact JSON,
    /// or a relay schedule (checked on the machine --gpus-per-node and --nvlink-speedup give).
    pub schedule: PathBuf,
    #[command(flatten)]
    pub overrides: super::common::OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    #[command(flatten)]
    pub relay: super::relay_cmd::RelayArgs,
    /// Print the full report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ValidateArgs) -> anyhow::Result<u8> {
    if crate::interop::is_relay_schedule_file(&a.schedule)? {
        let input = super::relay_use::RelayInput::new(
            &a.instance,
            &a.schedule,
            &a.overrides,
            &a.limits,
            &a.relay,
        );
        return super::relay_use::validate(input, a.json);
    }
    super::relay_use::note_direct(&a.relay, &a.schedule);
    let mut overrides = a.overrides.to_overrides();
    // Read once: its model (for a CSV instance) and then its validation.
    let input = read_schedule_file(&a.schedule)?;
    let stated = [(
        a.schedule.display().to_string(),
        input_model(&input, &a.schedule)?,
    )];
    model_from_files(&a.instance, &mut overrides, &stated)?;
    let inst = super::common::load_instance(&a.instance, &overrides, &a.limits.to_limits())?;
    note_instance_model(&a.instance, inst.model, &overrides, &stated);
    let report = validate_schedule_input(&inst, input, &a.schedule)?;
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
