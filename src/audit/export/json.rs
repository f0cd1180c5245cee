//! `audit.json`: the [`Audit`] as pretty JSON (no timings: byte-identical
//! from run to run).

use super::{Audit, AuditExporter};
use std::io::{self, Write};

pub struct Json;

impl AuditExporter for Json {
    fn file_name(&self) -> &'static str {
        super::AUDIT_JSON
    }
    fn write(&self, audit: &Audit, w: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, audit).map_err(io::Error::other)?;
        w.write_all(b"\n")
    }
}
