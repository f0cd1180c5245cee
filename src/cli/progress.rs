//! The phase a long command is in (`solve`, `bounds`, `audit`), as a
//! spinner with the elapsed time on stderr: only when stderr is a terminal,
//! so pipes, files and CI logs get nothing.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A spinner naming the current phase; silent when stderr is not a terminal.
pub struct Phases(Option<ProgressBar>);

impl Phases {
    pub fn start(first: &str) -> Phases {
        if !std::io::stderr().is_terminal() {
            return Phases(None);
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {wide_msg}") {
            bar.set_style(style);
        }
        bar.set_message(first.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        Phases(Some(bar))
    }

    /// Moves on to the next phase.
    pub fn phase(&self, msg: impl Into<String>) {
        if let Some(b) = &self.0 {
            b.set_message(msg.into());
        }
    }
}

impl Drop for Phases {
    /// Clears the line, so the command's own output follows cleanly.
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
