//! `tickopt verify`.

use crate::instance::{read_instance_file, Limits};
use crate::schedule::validate_schedule_file;
use crate::verify::{verify_claim, Claim};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Instance JSON, or demands CSV with --bw (and --model).
    pub instance: PathBuf,
    /// The schedule the claim is about (any format tickopt writes).
    pub schedule: PathBuf,
    /// The summary JSON `tickopt solve --summary` wrote.
    pub summary: PathBuf,
    #[command(flatten)]
    pub overrides: super::common::OverrideArgs,
    /// Print the verification as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: VerifyArgs) -> anyhow::Result<u8> {
    let inst = read_instance_file(&a.instance, &a.overrides.to_overrides(), &Limits::default())?;
    let report = validate_schedule_file(&inst, &a.schedule)?;
    let text = std::fs::read_to_string(&a.summary)
        .with_context(|| format!("cannot read {}", a.summary.display()))?;
    let claim: Claim = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a tickopt summary", a.summary.display()))?;
    let v = verify_claim(&inst, &report, &claim);
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        for c in &v.checks {
            outln!("ok    {c}")?;
        }
        for f in &v.failures {
            outln!("FAIL  {f}")?;
        }
        outln!(
            "{}: claim {} {} ticks, status {}",
            if v.holds { "VERIFIED" } else { "REJECTED" },
            claim.model,
            claim.ticks,
            claim.status
        )?;
    }
    Ok(if v.holds { 0 } else { 2 })
}
