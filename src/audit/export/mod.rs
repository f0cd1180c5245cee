//! Audit outputs, one file per format behind one small trait (as in
//! `bench::export`): `audit.json` (`json.rs`), `report.md`
//! (`markdown.rs`) and a self-contained `report.html` with inline SVG
//! charts (`html.rs`); the ranking's cells are formatted once
//! (`row.rs`) for every table that shows them. Every writer is a pure function of the [`Audit`];
//! files are written atomically.

mod html;
mod json;
mod markdown;
mod row;

pub use row::{ranking_rows, RankingRow};

use super::Audit;
use crate::schedule::writers::write_atomically;
use std::io::{self, Write};
use std::path::Path;

/// File name of the JSON audit.
pub const AUDIT_JSON: &str = "audit.json";

/// One output format.
pub trait AuditExporter {
    /// File name inside the output directory.
    fn file_name(&self) -> &'static str;
    fn write(&self, audit: &Audit, w: &mut dyn Write) -> io::Result<()>;
}

/// Every output format, in the order they are written.
pub fn exporters() -> Vec<Box<dyn AuditExporter>> {
    vec![
        Box::new(json::Json),
        Box::new(markdown::Markdown),
        Box::new(html::Html),
    ]
}

/// Writes every output format into `dir` (which must exist).
pub fn write_outputs(dir: &Path, audit: &Audit) -> io::Result<()> {
    for e in exporters() {
        let path = dir.join(e.file_name());
        write_atomically(&path, |w| e.write(audit, w)).map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("cannot write {}: {err}", path.display()),
            )
        })?;
    }
    Ok(())
}

/// `value` or `-`.
pub fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

/// A gap for tables: `1`, `<= 1` for an upper estimate, `-` when invalid.
pub fn gap_text(gap: Option<u64>, upper: bool) -> String {
    match gap {
        None => "-".into(),
        Some(g) if upper => format!("<= {g}"),
        Some(g) => g.to_string(),
    }
}

/// A ratio for tables, 4 decimals.
pub fn ratio_text(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.4}")).unwrap_or_else(|| "-".into())
}
