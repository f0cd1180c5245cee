//! Schedule writers: copyspace-guard JSON, CSV and compact JSON.
//!
//! Every writer streams from the compact schedule (the expanded formats via
//! [`Expansion`]), so memory is bounded by rounds, not ticks. Files are
//! written to a temporary name in the target directory and renamed at the
//! end, so a failure never leaves a partial file; and a schedule that fails
//! [`validate_compact`](crate::validate::validate_compact) is refused before
//! anything is written.

use super::{Expansion, Schedule};
use crate::instance::Instance;
use crate::validate::validate_compact;
use std::io::{self, Write};
use std::path::Path;

/// Output format of a schedule file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Format {
    /// copyspace-guard schedule JSON v0: `{"version":0,"model":..,"ticks":[[chunk..]..]}`.
    #[serde(rename = "json")]
    Json,
    /// `tick,src_slot,dst_slot,len_bits` with a header row.
    #[serde(rename = "csv")]
    Csv,
    /// tickopt compact JSON: rounds with repeat counts (doc/formats.md).
    #[serde(rename = "compact")]
    Compact,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "compact" => Ok(Format::Compact),
            _ => Err(format!(
                "unknown format {s:?} (expected json, csv or compact)"
            )),
        }
    }
}

/// Tag of the compact format, in its `format` field.
pub const COMPACT_FORMAT_TAG: &str = "tickopt-compact-v1";

/// Writes `schedule` in `format` to `out`.
pub fn write_schedule(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Json => write_json(inst, schedule, out),
        Format::Csv => write_csv(inst, schedule, out),
        Format::Compact => write_compact(inst, schedule, out),
    }
}

fn write_json(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    write!(
        out,
        "{{\"version\":0,\"model\":\"{}\",\"ticks\":[",
        inst.model.as_str()
    )?;
    Expansion::new(inst, schedule).try_for_each(|t, tick| {
        if t > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"\n[")?;
        for (i, c) in tick.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            write!(
                out,
                "{{\"src_slot\":{},\"dst_slot\":{},\"len_bits\":{}}}",
                c.src_slot, c.dst_slot, c.len_bits
            )?;
        }
        out.write_all(b"]")
    })?;
    out.write_all(b"\n]}\n")
}

fn write_csv(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"tick,src_slot,dst_slot,len_bits\n")?;
    Expansion::new(inst, schedule).try_for_each(|t, tick| {
        for c in tick {
            writeln!(out, "{t},{},{},{}", c.src_slot, c.dst_slot, c.len_bits)?;
        }
        Ok(())
    })
}

fn write_compact(inst: &Instance, schedule: &Schedule, out: &mut dyn Write) -> io::Result<()> {
    write!(
        out,
        "{{\"version\":0,\"format\":\"{COMPACT_FORMAT_TAG}\",\"model\":\"{}\",\"slots\":{},\"copy_bw_bits_per_tick\":{},\"ticks\":{},\"rounds\":[",
        inst.model.as_str(),
        inst.slots,
        inst.bw,
        schedule.ticks()
    )?;
    let demands = inst.demands();
    for (ri, r) in schedule.rounds.iter().enumerate() {
        if ri > 0 {
            out.write_all(b",")?;
        }
        write!(out, "\n{{\"repeat\":{},\"pairs\":[", r.repeat)?;
        for (k, &di) in r.demands.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            let d = &demands[di as usize];
            write!(out, "[{},{}]", d.src, d.dst)?;
        }
        out.write_all(b"]}")?;
    }
    out.write_all(b"\n]}\n")
}

/// Error of [`write_schedule_file`].
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("refusing to write an invalid schedule (internal error, please report): {0}")]
    Invalid(String),
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: io::Error },
}

/// Validates, then writes `schedule` to `path` atomically (temporary file
/// in the same directory, then rename). `-` writes to stdout.
pub fn write_schedule_file(
    inst: &Instance,
    schedule: &Schedule,
    format: Format,
    path: &Path,
) -> Result<(), WriteError> {
    let report = validate_compact(inst, schedule);
    if !report.passed() {
        return Err(WriteError::Invalid(report.one_line()));
    }
    if path == Path::new("-") {
        let stdout = io::stdout();
        let mut w = io::BufWriter::new(stdout.lock());
        return write_schedule(inst, schedule, format, &mut w)
            .and_then(|_| w.flush())
            .map_err(|source| WriteError::Io {
                path: "<stdout>".into(),
                source,
            });
    }
    write_atomically(path, |w| write_schedule(inst, schedule, format, w)).map_err(|source| {
        WriteError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

/// Writes a file through `f` into a temporary sibling, fsyncs, renames.
pub fn write_atomically(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tickopt-").suffix(".tmp");
    // Temporary files are private (0600) by default; the result is an
    // ordinary output file (0644 before the umask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let tmp = builder.tempfile_in(dir)?;
    {
        let mut w = io::BufWriter::new(tmp.as_file());
        f(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
