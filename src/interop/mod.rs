//! Programs other runtimes run, and traffic others publish: export and
//! import (doc/formats.md, "Export and import").
//!
//! - [`p2p_json`]: every rank's send/receive operations per tick with byte
//!   offsets (`tickopt-p2p-v1`), the lowering of [`crate::lower::p2p`]
//!   written out; what the Python runner and an NCCL group-call loop follow.
//!   Its importer re-derives the schedule from the operations alone
//!   (pairing, byte coverage), so an export is re-read before it is written.
//! - [`msccl_xml`]: MSCCL algorithm XML out (the same lowering, in
//!   chunks, with dependencies that keep the tick's resource model) and in
//!   (transfers, dependency levels, where each chunk lands).
//! - [`mscclpp_dsl`]: a Python program in MSCCL++'s DSL (the same
//!   lowering, in chunks: put + signal/wait per transfer, lanes as
//!   threadblocks), which MSCCL++ turns into its execution-plan JSON.
//! - [`relay_p2p`]: a relay schedule's per-rank programs with the
//!   forwarding steps (`tickopt-relay-p2p-v1`), and the reference executor
//!   that runs one on byte arrays before an export is written;
//!   [`is_relay_schedule_file`] and [`read_relay_schedule_file`] tell a
//!   relay schedule file from a direct one and read it.
//! - [`matrix`]: a W x W traffic matrix (entry `[i][j]` = size from i to j)
//!   in, as an instance.
//! - [`read_schedule_file`], [`validate_schedule_file`], [`load_schedule`]:
//!   schedule files of any format, the reader picked by the first byte (an
//!   MSCCL algorithm here, the others by [`crate::schedule::readers`]).
//!
//! Nothing here solves: export takes a schedule that has passed the
//! validator, import yields an instance and (where the format carries
//! one) an expanded schedule for the validator to judge.

mod limits;
pub mod matrix;
pub mod msccl_xml;
pub mod mscclpp_dsl;
pub mod p2p_json;
mod relay_file;
pub mod relay_p2p;
mod schedule_file;

pub use relay_file::{is_relay_schedule_file, read_relay_schedule_file};
pub use schedule_file::{load_schedule, read_schedule_file, validate_schedule_file};

pub use limits::check_program_size;

use crate::instance::Instance;
use crate::schedule::readers::{validate_rounds, CompactFile};
use crate::validate::Report;

/// The validator's report on ticks given as pairs (one per chunk), under
/// `inst`'s model and standard chunking: how imported programs are judged.
pub fn levels_report(inst: &Instance, ticks: &[Vec<(u64, u64)>]) -> Report {
    let c = CompactFile {
        model: inst.model,
        rounds: ticks.iter().map(|t| (1, t.clone())).collect(),
        classes: Vec::new(),
    };
    validate_rounds(inst, &c, false).0
}

/// Why a file cannot be exported or imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InteropError {
    #[error(transparent)]
    Lower(#[from] crate::lower::p2p::LowerError),
    #[error(transparent)]
    Input(#[from] crate::instance::InputError),
    #[error(transparent)]
    RelayProgram(#[from] crate::relay::program::ProgramError),
    /// The file is readable but not a program of its format; the message
    /// names the rank, tick and operation (or line and column).
    #[error("{0}")]
    Invalid(String),
}
