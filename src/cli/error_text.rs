//! The one line `tickopt: error: ...` prints for a failed command: the
//! error and its causes joined by ": ", each said once.
//!
//! Many error types (thiserror's with a `source` field, `io::Error`
//! wrappers) already write their cause into their own message, and
//! anyhow's alternate format appends every cause again, which printed
//! "Not a directory (os error 20): Not a directory (os error 20)". A cause
//! whose text the line already holds is left out.

/// `err` and each cause not already written, joined by ": ".
pub fn error_text(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::error_text;
    use anyhow::Context;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot write {path}: {source}")]
    struct Wrapped {
        path: String,
        source: std::io::Error,
    }

    fn not_a_dir() -> std::io::Error {
        std::io::Error::other("Not a directory (os error 20)")
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let e = anyhow::Error::new(Wrapped {
            path: "/dev/null/x".into(),
            source: not_a_dir(),
        });
        assert_eq!(
            format!("{e:#}"),
            "cannot write /dev/null/x: Not a directory (os error 20): Not a directory (os error 20)"
        );
        assert_eq!(
            error_text(&e),
            "cannot write /dev/null/x: Not a directory (os error 20)"
        );
    }

    #[test]
    fn causes_not_in_the_message_are_all_kept_in_order() {
        let e = Err::<(), _>(not_a_dir())
            .context("cannot write out/report.json")
            .context("bench")
            .unwrap_err();
        assert_eq!(
            error_text(&e),
            "bench: cannot write out/report.json: Not a directory (os error 20)"
        );
    }
}
