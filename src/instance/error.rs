//! The one error type of input parsing.

use std::fmt;

/// Bad input: what is wrong and where (file, line, field), as far as known.
///
/// The `Display` form reads `FILE:LINE: field FIELD: message`, leaving out
/// the parts that are unknown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputError {
    /// The file (or `<stdin>`), once known.
    pub file: Option<String>,
    /// 1-based line number, where the format has lines.
    pub line: Option<u64>,
    /// The field, column or JSON path at fault.
    pub field: Option<String>,
    pub message: String,
}

impl InputError {
    pub fn new(message: impl Into<String>) -> Self {
        InputError {
            file: None,
            line: None,
            field: None,
            message: message.into(),
        }
    }
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        InputError {
            field: Some(field.to_string()),
            ..InputError::new(message)
        }
    }
    pub fn at_line(mut self, line: u64) -> Self {
        self.line = Some(line);
        self
    }
    /// Names the file, unless a file is already named.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
            if let Some(line) = self.line {
                write!(f, "{line}:")?;
            }
            f.write_str(" ")?;
        } else if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "field {field}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// 1-based line of byte offset `pos` in `bytes`.
pub(crate) fn line_of(bytes: &[u8], pos: usize) -> u64 {
    1 + bytes[..pos.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
}

/// Checks UTF-8, naming the line of the first invalid byte.
pub(crate) fn require_utf8(bytes: &[u8]) -> Result<&str, InputError> {
    std::str::from_utf8(bytes).map_err(|e| {
        InputError::new(format!("invalid UTF-8 at byte {}", e.valid_up_to()))
            .at_line(line_of(bytes, e.valid_up_to()))
    })
}
