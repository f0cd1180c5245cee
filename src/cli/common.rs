//! Flags shared by commands that read an instance or write outputs.

use crate::instance::{read_instance_file, Instance, Limits, Model, Overrides};
use crate::schedule::output::{self, OutputFile};
use crate::schedule::WriteError;
use clap::Args;
use std::path::{Path, PathBuf};

/// How to read INPUT (a demands CSV or an instance JSON).
#[derive(Args, Debug, Clone)]
pub struct InstanceArgs {
    /// Demands CSV (src_slot,dst_slot,bits_total; needs --bw) or instance JSON v0.
    pub input: PathBuf,
    #[command(flatten)]
    pub overrides: OverrideArgs,
}

/// Values that complete a CSV or override an instance JSON's own.
#[derive(Args, Debug, Clone, Default)]
pub struct OverrideArgs {
    /// Bits one transfer moves per tick (copy_bw_bits_per_tick). Required for CSV input.
    #[arg(long, value_name = "BITS")]
    pub bw: Option<u64>,
    /// Resource model: STRICT1 (one transfer per slot per tick; CSV default)
    /// or READ1_WRITE1 (one send and one receive per slot per tick).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<Model>,
    /// Number of slots (default for CSV: largest slot id + 1).
    #[arg(long, value_name = "N")]
    pub slots: Option<u32>,
    /// Ports of every slot (NICs, rails, queues; default 1): a slot takes part
    /// in up to K transfers per tick (READ1_WRITE1: K sends and K receives).
    #[arg(long, value_name = "K")]
    pub ports: Option<u32>,
}

impl OverrideArgs {
    pub fn to_overrides(&self) -> Overrides {
        Overrides {
            model: self.model,
            bw: self.bw,
            slots: self.slots,
            ports: self.ports,
        }
    }
}

impl InstanceArgs {
    pub fn load(&self) -> anyhow::Result<Instance> {
        Ok(read_instance_file(
            &self.input,
            &self.overrides.to_overrides(),
            &Limits::default(),
        )?)
    }
}

/// Checks an output path before any work (see
/// [`output`](crate::schedule::output)): its directory exists and is
/// writable, it is not a directory, block device or socket. Nothing is
/// left behind by the check.
pub fn check_output_dir(path: &Path) -> anyhow::Result<()> {
    output::prepare(path)?;
    Ok(())
}

/// Prepares the given outputs (each `None` is skipped) before any work:
/// every path is checked, two that name the same file are refused, and
/// nothing exists under an output name until the command commits it.
pub fn prepare_outputs<const N: usize>(
    paths: [Option<&Path>; N],
) -> anyhow::Result<[Option<OutputFile>; N]> {
    let given: Vec<&Path> = paths.iter().flatten().copied().collect();
    let mut prepared = output::prepare_all(&given)?.into_iter();
    Ok(paths.map(|p| p.and_then(|_| prepared.next())))
}

/// The limit on the size of a written schedule.
#[derive(Args, Debug, Clone)]
pub struct OutputLimitArgs {
    /// Refuse to write an expanded schedule larger than this (bytes; K, M,
    /// G, T suffixes are powers of 1024). Its exact size is computed before
    /// anything is written. Default 4G. --format compact stays small.
    #[arg(long, value_name = "BYTES", default_value = "4G", value_parser = parse_bytes)]
    pub max_output_bytes: u64,
}

/// Parses `123`, `64K`, `512M`, `4G`, `1T` (powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size suffix in {s:?} (use K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a byte count (e.g. 4096, 512M, 4G)"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{s:?} does not fit in 64 bits"))
}

/// Adds to a writer's error how to get past the size limit (`hint`: any
/// other way out the command offers).
pub fn explain_write_error(e: WriteError, hint: &str) -> anyhow::Error {
    match e {
        WriteError::TooLarge { .. } => {
            anyhow::anyhow!(
                "{e}; nothing was written: raise the limit with --max-output-bytes BYTES{hint}"
            )
        }
        other => other.into(),
    }
}
