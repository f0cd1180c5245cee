//! `tickopt plugin`: copyspace-guard's `--solver-plugin` protocol.
//!
//! Reads one instance JSON from stdin, writes one schedule JSON to stdout
//! and nothing else there; diagnostics go to stderr.

use crate::instance::{read_instance_bytes, Limits, Overrides};
use crate::schedule::{write_schedule, Format};
use crate::{solve_instance, SolveRequest, SolverChoice};
use clap::Args;
use std::io::{Read, Write};

#[derive(Args, Debug)]
pub struct PluginArgs {
    /// Time limit in seconds for exact searches.
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
}

pub fn run(a: PluginArgs) -> anyhow::Result<u8> {
    let request = SolveRequest {
        solver: SolverChoice::Auto,
        time_limit: super::solve_cmd::time_limit(a.time_limit)?,
    };
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    let inst = read_instance_bytes(&bytes, "<stdin>", &Overrides::default(), &Limits::default())?;
    let sol = solve_instance(&inst, &request)?;
    // Render fully before writing, so a failure never leaves half a document on stdout.
    let mut buf = Vec::new();
    write_schedule(&inst, &sol.schedule, Format::Json, &mut buf)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&buf)?;
    out.flush()?;
    eprintln!(
        "tickopt plugin: {} {} slots: {} ticks, lower bound {}, status {}",
        inst.model, inst.slots, sol.ticks, sol.lower_bound.ticks, sol.status
    );
    Ok(0)
}
