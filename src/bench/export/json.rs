//! `results.json`: the header and every record (pretty JSON).

use super::{Exporter, Results, RESULTS_JSON};
use std::io::{self, Write};

pub struct Json;

impl Exporter for Json {
    fn file_name(&self) -> &'static str {
        RESULTS_JSON
    }
    fn write(&self, results: &Results, w: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, results).map_err(io::Error::other)?;
        w.write_all(b"\n")
    }
}
