//! The `tickopt` binary: parse the command line, run, map errors to exit codes.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = tickopt::cli::Cli::parse();
    match tickopt::cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("tickopt: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
