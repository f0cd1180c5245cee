//! Flags shared by commands that read an instance.

use crate::instance::{read_instance_file, Instance, Limits, Model, Overrides};
use clap::Args;
use std::path::PathBuf;

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

/// Fails early (before any work) if `path`'s directory does not exist, so
/// a bad output path never costs a solve.
pub fn check_output_dir(path: &std::path::Path) -> anyhow::Result<()> {
    if path == std::path::Path::new("-") {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        anyhow::bail!(
            "cannot write {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}
