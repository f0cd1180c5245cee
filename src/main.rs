//! The `tickopt` binary: parse the command line, run, map errors to exit codes.
//!
//! Exit codes: 0 success, 1 bad input, bad usage or error, 2 a check that
//! ran and failed (`validate`: FAIL; `verify`: claim rejected).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match tickopt::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print and succeed; usage errors exit 1
            // (2 is reserved for a check that failed).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    match tickopt::cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tickopt: error: {}", tickopt::cli::error_text(&err));
            ExitCode::from(1)
        }
    }
}

/// Whether the error is stdout closed by the reader (`| head`): not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
