//! `tickopt plugin`: copyspace-guard's `--solver-plugin` protocol.
//!
//! Reads one instance JSON from stdin, writes one schedule JSON to stdout
//! and nothing else there; diagnostics go to stderr. The schedule streams
//! from the compact rounds as `solve --out -` does (memory bounded by
//! rounds, not ticks), after it has been validated and its exact size
//! checked against `--max-output-bytes`: a refusal writes nothing to
//! stdout and exits 1.
//!
//! With [`SUMMARY_ENV`] set to a path, the plugin also writes the summary
//! `solve --summary` writes (ticks, lower bound, status, witness), so a
//! copyspace-guard audit keeps tickopt's proof beside its own report.

use super::common::{explain_write_error, prepare_outputs, OutputLimitArgs};
use super::summary::Summary;
use crate::instance::{read_instance_bytes, Overrides};
use crate::schedule::writers::check_schedule_output;
use crate::schedule::{write_schedule, Format};
use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};
use anyhow::Context;
use clap::Args;
use std::io::Read;
use std::path::PathBuf;

/// Environment variable naming the file the plugin writes its summary to.
pub const SUMMARY_ENV: &str = "TICKOPT_PLUGIN_SUMMARY";

#[derive(Args, Debug)]
pub struct PluginArgs {
    /// Time limit in seconds for exact searches.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
    #[command(flatten)]
    pub limit: OutputLimitArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
}

pub fn run(a: PluginArgs) -> anyhow::Result<u8> {
    let request = SolveRequest {
        solver: SolverChoice::Auto,
        time_limit: super::solve_cmd::time_limit(a.time_limit)?,
        keep_classes: false,
    };
    let summary_path = std::env::var_os(SUMMARY_ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let [summary_file, stdout] =
        prepare_outputs([summary_path.as_deref(), Some(std::path::Path::new("-"))])
            .with_context(|| format!("{SUMMARY_ENV} names an output tickopt cannot write"))?;
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    let inst = read_instance_bytes(
        &bytes,
        "<stdin>",
        &Overrides::default(),
        &a.limits.to_limits(),
    )?;
    drop(bytes);
    let sol = solve_instance(&inst, &request)?;
    check_schedule_output(&inst, &sol.schedule, Format::Json, a.limit.max_output_bytes)
        .map_err(|e| explain_write_error(e, " (e.g. in TICKOPT_PLUGIN_ARGS for the shim)"))?;
    let mut summary_file = summary_file;
    if let Some(file) = &mut summary_file {
        let summary = Summary::new(&inst, Some("<stdin>".into()), &sol.bounds, &sol);
        let json = serde_json::to_string_pretty(&summary)?;
        file.write(|w| {
            w.write_all(json.as_bytes())?;
            w.write_all(b"\n")
        })
        .with_context(|| format!("cannot write {}", file.shown()))?;
    }
    let mut stdout = stdout.context("stdout is always prepared")?;
    stdout.write(|w| write_schedule(&inst, &sol.schedule, Format::Json, w))?;
    if let Some(file) = summary_file {
        let shown = file.shown().to_string();
        file.commit()
            .with_context(|| format!("cannot write {shown}"))?;
    }
    eprintln!(
        "tickopt plugin: {} {} slots: {} ticks, lower bound {}, status {}",
        inst.model, inst.slots, sol.ticks, sol.lower_bound.ticks, sol.status
    );
    Ok(0)
}
