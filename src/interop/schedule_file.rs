//! Schedule files in every format tickopt reads, the reader picked by the
//! file's first byte: an MSCCL algorithm (XML, `<`) by its dependency
//! levels through [`super::msccl_xml`], everything else (copyspace-guard
//! JSON or CSV, tickopt's compact JSON) through the schedule readers
//! ([`crate::schedule::readers`]). The format readers are leaves; this is
//! the layer that picks one.

use crate::instance::{InputError, Instance};
use crate::schedule::readers::{
    self, io_err, load_schedule_input, validate_schedule_input, ProgramLevels, ScheduleInput,
};
use crate::schedule::Schedule;
use crate::validate::Report;
use std::path::Path;

/// Reads a schedule file of any format: an MSCCL algorithm as its levels,
/// any other file as [`readers::read_schedule_file`] reads it.
pub fn read_schedule_file(path: &Path) -> Result<ScheduleInput, InputError> {
    if readers::sniff(path)? == Some(b'<') {
        return read_levels(path);
    }
    readers::read_schedule_file(path)
}

/// An MSCCL algorithm XML as its dependency levels (the reader and the
/// level semantics are the importer's, one definition).
fn read_levels(path: &Path) -> Result<ScheduleInput, InputError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_err(path, e))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let program = super::msccl_xml::parse(text)
        .and_then(|p| super::msccl_xml::import(&p))
        .map_err(|e| {
            InputError::new(format!("MSCCL XML: {e}")).in_file(path.display().to_string())
        })?;
    Ok(ScheduleInput::Levels(ProgramLevels {
        ticks: program.levels(),
        hops: program.chunk_counts(),
        end_to_end: program.end_to_end_counts(),
    }))
}

/// Validates a schedule file of any format against `inst`. `Err` means
/// the file could not be read; a readable but wrong schedule is a FAIL
/// report.
pub fn validate_schedule_file(inst: &Instance, path: &Path) -> Result<Report, InputError> {
    validate_schedule_input(inst, read_schedule_file(path)?, path)
}

/// Loads a schedule file of any format as a compact [`Schedule`] of
/// `inst`'s demands, reading it once (see [`load_schedule_input`]). A
/// schedule that does not validate is an error.
pub fn load_schedule(inst: &Instance, path: &Path) -> Result<Schedule, InputError> {
    load_schedule_input(inst, read_schedule_file(path)?, path)
}
