//! Command-line interface: clap definitions and thin command handlers.
//!
//! Handlers convert flags into the library's plain option types, call the
//! library, print and write files. No mathematics here. Exit codes: 0 success
//! (validate: PASS), 1 bad input or error, 2 a check that ran and failed
//! (validate: FAIL; verify: claim rejected; audit: a schedule invalid or
//! outside the gates).

/// `println!` that returns the write error instead of panicking (a closed
/// pipe, as in `tickopt bounds x | head`, must not panic).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

mod audit_cmd;
mod bench_cmd;
mod bounds_cmd;
mod calibrate_cmd;
mod common;
mod convert_cmd;
mod error_text;
mod export_cmd;
mod gen_cmd;
mod import_cmd;
mod model_source;
mod plugin_cmd;
mod progress;
mod relay_cmd;
mod relay_use;
mod replay_cmd;
mod solve_cmd;
pub mod summary;
mod validate_cmd;
mod verify_cmd;

use clap::{Parser, Subcommand};

pub use common::InstanceArgs;
pub use error_text::error_text;
pub use summary::Summary;

/// Exact lower bounds and optimal schedules for data transfers in GPU clusters.
///
/// Demands (src_slot, dst_slot, bits_total) are cut into chunks of --bw bits;
/// each tick moves one chunk per transfer. STRICT1: a slot takes part in at
/// most one transfer per tick. READ1_WRITE1: a slot sends at most once and
/// receives at most once per tick. tickopt finds schedules with few ticks and
/// proves how good they are (see doc/design.md).
#[derive(Parser, Debug)]
#[command(name = "tickopt", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Solve an instance: write a schedule and a summary with its certificate.
    Solve(solve_cmd::SolveArgs),
    /// Print the lower bounds of an instance, each with its witness.
    Bounds(bounds_cmd::BoundsArgs),
    /// How far schedules are from optimal: validity, ticks, gap to the
    /// optimum (or lower bound) from tickopt's own solve, ranked side by
    /// side; reports with --out-dir. Exit 0 if every schedule is valid and
    /// inside the gates, 2 if not, 1 if a file cannot be read.
    Audit(audit_cmd::AuditArgs),
    /// Write the normalised instance as copyspace-guard instance JSON v0
    /// (e.g. from a demands CSV, for `copyspace-guard validate`).
    Convert(convert_cmd::ConvertArgs),
    /// Check a schedule against an instance (copyspace-guard semantics).
    /// Exit 0 on PASS, 2 on FAIL, 1 if a file cannot be read.
    Validate(validate_cmd::ValidateArgs),
    /// Re-check a solve's claim (schedule, bound, witness, status) without
    /// the solvers. Exit 0 if the claim holds, 2 if not, 1 if unreadable.
    Verify(verify_cmd::VerifyArgs),
    /// copyspace-guard solver plugin: instance JSON on stdin, schedule JSON on stdout.
    Plugin(plugin_cmd::PluginArgs),
    /// Generate an instance of a family (ring, alltoall, moe, pipeline, ...) as a demands CSV.
    Gen(gen_cmd::GenArgs),
    /// Benchmark instance sets: bounds and solve per instance and model, with reports.
    /// `tickopt bench merge DIR... --out DIR` merges shard results.
    Bench(bench_cmd::BenchArgs),
    /// Write a validated schedule as a program another runtime runs
    /// (p2p-json: per-rank send/receive lists with byte offsets), re-read
    /// and validated before it is written.
    Export(export_cmd::ExportArgs),
    /// Read traffic or a program from elsewhere (a W x W traffic matrix, a
    /// p2p-json program) as an instance JSON (and its schedule).
    Import(import_cmd::ImportArgs),
    /// Replay a schedule by moving real bytes tick by tick (CPU or CUDA),
    /// check every byte and time each tick. Exit 0 if the data check
    /// passed, 2 if it failed, 1 on bad input or when the executor cannot run.
    Replay(replay_cmd::ReplayArgs),
    /// Fit the link cost model (a tick lasts alpha + bytes / rate) to the
    /// ticks of executor reports by least squares; prints the flags
    /// (--alpha-us, --link-gbps) and the residual.
    Calibrate(calibrate_cmd::CalibrateArgs),
}

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Solve(a) => solve_cmd::run(a),
        Command::Bounds(a) => bounds_cmd::run(a),
        Command::Audit(a) => audit_cmd::run(a),
        Command::Convert(a) => convert_cmd::run(a),
        Command::Validate(a) => validate_cmd::run(a),
        Command::Verify(a) => verify_cmd::run(a),
        Command::Plugin(a) => plugin_cmd::run(a),
        Command::Gen(a) => gen_cmd::run(a),
        Command::Bench(a) => bench_cmd::run(a),
        Command::Replay(a) => replay_cmd::run(a),
        Command::Calibrate(a) => calibrate_cmd::run(a),
        Command::Export(a) => export_cmd::run(a),
        Command::Import(a) => import_cmd::run(a),
    }
}
