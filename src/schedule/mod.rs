//! Schedule files: writers, readers and output paths for the compact
//! form the engine works in.
//!
//! The compact form itself ([`Schedule`], [`Round`], and [`Expansion`]
//! into per-tick chunks) is defined in [`crate::rounds`], below the
//! validator that checks it, and re-exported here; the writers and
//! readers sit above the validator (a schedule is validated before it is
//! written, and as it is read).
//!
//! Submodules: `writers` (copyspace-guard JSON, CSV, compact JSON v1 and
//! v2, with
//! their exact sizes and a size limit), `readers` (the same formats back,
//! streaming where possible), `output` (output paths: checked up front,
//! written atomically, special files in place, temporary files removed on
//! signals).

pub mod output;
pub mod readers;
pub mod writers;

pub use crate::rounds::{Chunk, ClassRounds, Expansion, Round, Schedule};
pub use readers::{read_schedule_file, ScheduleInput};
pub use writers::{
    output_size, write_schedule, write_schedule_file, write_schedule_file_limited,
    write_schedule_to, Format, WriteError, DEFAULT_MAX_OUTPUT_BYTES,
};

use crate::instance::Model;

/// Whether two slots sets conflict under `model` (helper for solvers).
pub fn model_conflicts(model: Model, a: (u32, u32), b: (u32, u32)) -> bool {
    match model {
        Model::Read1Write1 => a.0 == b.0 || a.1 == b.1,
        Model::Strict1 => a.0 == b.0 || a.0 == b.1 || a.1 == b.0 || a.1 == b.1,
    }
}
