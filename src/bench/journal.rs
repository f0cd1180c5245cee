//! The journal: one JSON record per line, appended and fsynced as each run
//! finishes, so an interrupted benchmark loses nothing it completed.

use super::record::BenchRecord;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

/// File name of the journal inside the output directory.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// Reads every complete record of a journal. Lines that do not parse (a
/// line cut short by an interrupt) are skipped; a missing file is empty.
pub fn read_journal(path: &Path) -> io::Result<Vec<BenchRecord>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        if let Ok(r) = serde_json::from_str::<BenchRecord>(&line) {
            out.push(r);
        }
    }
    Ok(out)
}

/// An open journal that appends records durably.
pub struct Journal {
    file: File,
}

impl Journal {
    /// Starts a journal at `path` holding exactly `records` (replacing any
    /// previous file, which drops lines cut short by an interrupt).
    pub fn create(path: &Path, records: &[BenchRecord]) -> io::Result<Journal> {
        crate::schedule::writers::write_atomically(path, |w| {
            for r in records {
                write_line(w, r)?;
            }
            Ok(())
        })?;
        let file = OpenOptions::new().append(true).open(path)?;
        Ok(Journal { file })
    }

    /// Appends one record and fsyncs it.
    pub fn append(&mut self, record: &BenchRecord) -> io::Result<()> {
        let mut buf = Vec::new();
        write_line(&mut buf, record)?;
        self.file.write_all(&buf)?;
        self.file.sync_data()
    }
}

fn write_line(w: &mut dyn Write, r: &BenchRecord) -> io::Result<()> {
    serde_json::to_writer(&mut *w, r).map_err(io::Error::other)?;
    w.write_all(b"\n")
}
