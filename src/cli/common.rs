//! Flags shared by commands that read an instance or write outputs.

use crate::instance::{
    read_instance_recorded, recorded_bw, InputError, Instance, Limits, Model, Overrides,
    ReadInstance, BW_COMMENT_KEY,
};
use crate::schedule::output::{self, OutputFile};
use crate::schedule::WriteError;
use crate::units::{parse_bits, parse_bytes, PlainUnit};
use clap::Args;
use std::path::{Path, PathBuf};

/// How to read INPUT (a demands CSV or an instance JSON).
#[derive(Args, Debug, Clone)]
pub struct InstanceArgs {
    /// Demands CSV (src_slot,dst_slot,bits_total; --bw or its recorded bw) or instance JSON v0.
    pub input: PathBuf,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Size limits on every instance read, checked while reading so memory
/// stays bounded whatever the file says.
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Refuse an instance with more slots than this (its slot count, or a
    /// CSV's largest slot id + 1). Checked before the per-slot tables are
    /// allocated, so memory stays bounded whatever the file claims; raise
    /// it for a larger instance.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_slots)]
    pub max_slots: u32,
    /// Refuse an instance with more demand rows than this (counted before
    /// duplicates merge). Checked while reading, so memory stays bounded
    /// before the whole file is held; raise it for a larger instance.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_demands)]
    pub max_demands: u64,
}

impl LimitArgs {
    pub fn to_limits(&self) -> Limits {
        Limits {
            max_slots: self.max_slots,
            max_demands: self.max_demands,
        }
    }
}

/// Values that complete a CSV or override an instance JSON's own.
#[derive(Args, Debug, Clone, Default)]
pub struct OverrideArgs {
    /// Bits one transfer moves per tick (copy_bw_bits_per_tick). For a CSV
    /// the default is its `# copy_bw_bits_per_tick=N` comment line (written
    /// by gen); without one --bw is required. Units: a plain integer is bits; K, M, G (x1000 bits),
    /// Ki, Mi, Gi (x1024 bits), KB, MB, GB, KiB, MiB, GiB (bytes).
    #[arg(long, value_name = "BITS", value_parser = parse_bits_arg, allow_negative_numbers = true)]
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
        load_instance(
            &self.input,
            &self.overrides.to_overrides(),
            &self.limits.to_limits(),
        )
    }
}

/// Reads an instance file with the command-line overrides and says on
/// stderr where a CSV's bandwidth came from when the file recorded one
/// (`# copy_bw_bits_per_tick=N`): taken from it, or replaced by `--bw`. A
/// default the user did not type is never silent.
pub fn load_instance(
    path: &Path,
    overrides: &Overrides,
    limits: &Limits,
) -> anyhow::Result<Instance> {
    Ok(load_instance_recorded(path, overrides, limits)?.instance)
}

/// [`load_instance`], with the two-tier machine the file records (the
/// relay commands' default: `super::relay_cmd::RelayArgs::machine`).
pub fn load_instance_recorded(
    path: &Path,
    overrides: &Overrides,
    limits: &Limits,
) -> anyhow::Result<ReadInstance> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::new(format!("cannot read: {e}")).in_file(&name))?;
    let mut warnings = Vec::new();
    let inst = read_instance_recorded(&bytes, &name, overrides, limits, &mut warnings)?;
    for w in &warnings {
        eprintln!("tickopt: warning: {name}: {w}");
    }
    if let Ok(Some((recorded, line))) = recorded_bw(&bytes) {
        match overrides.bw {
            None => eprintln!(
                "tickopt: bw {recorded} bits per tick from {name} line {line} ({BW_COMMENT_KEY})"
            ),
            Some(flag) if flag != recorded => eprintln!(
                "tickopt: --bw {flag} replaces the {BW_COMMENT_KEY}={recorded} recorded in {name} line {line}"
            ),
            Some(_) => {}
        }
    }
    Ok(inst)
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
    /// Refuse to write an expanded schedule larger than this many bytes.
    /// Units: 4096 (bytes), 512MiB, 4GiB, 1GB; a bare K, M, G or T means
    /// KiB, MiB, GiB or TiB as before (4G = 4GiB). Its exact size is
    /// computed before anything is written.
    #[arg(long, value_name = "BYTES", default_value = "4GiB", value_parser = parse_output_bytes, allow_negative_numbers = true)]
    pub max_output_bytes: u64,
}

/// The units a size flag takes, for its --help.
pub const SIZE_UNITS_HELP: &str =
    "a plain integer is bits; K, M, G (x1000 bits), Ki, Mi, Gi (x1024 bits), \
     KB, MB, GB, KiB, MiB, GiB (bytes)";

/// clap value parser for a size in bits that must be at least 1 (`--bw`,
/// `gen --bw`, `--token-bits`): the one size syntax of
/// [`units`](crate::units), plain integers in bits (copyspace-guard
/// compatible).
pub fn parse_bits_arg(s: &str) -> Result<u64, String> {
    let bits = parse_bits(s, PlainUnit::Bits).map_err(|e| e.to_string())?;
    if bits == 0 {
        return Err(format!(
            "{s:?} is zero: a size must be at least 1 bit ({SIZE_UNITS_HELP})"
        ));
    }
    Ok(bits)
}

/// clap value parser for `--max-output-bytes`: a byte count in the one size
/// syntax (plain integers in bytes), at least 1 byte. A bare `K`, `M`, `G`
/// or `T` suffix keeps its old meaning (KiB .. TiB, powers of 1024 bytes),
/// so `--max-output-bytes 4G` in existing scripts still means 4 GiB and not
/// the 4 gigabits the bandwidth flags would read.
pub fn parse_output_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let legacy = t
        .strip_suffix(['K', 'k', 'M', 'G', 'T'])
        .filter(|num| !num.is_empty() && num.chars().all(|c| c.is_ascii_digit() || c == '_'));
    let text = match legacy {
        Some(num) => format!("{num}{}iB", t[num.len()..].to_ascii_uppercase()),
        None => t.to_string(),
    };
    let bytes = parse_bytes(&text, PlainUnit::Bytes).map_err(|e| e.to_string())?;
    if bytes == 0 {
        return Err(format!(
            "{s:?} is zero: the output budget must be at least 1 byte (4096, 512MiB, 4GiB)"
        ));
    }
    Ok(bytes)
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

/// The link cost model on the command line (doc/design.md §12).
#[derive(Args, Debug, Clone, Default)]
pub struct CostArgs {
    /// Per-tick overhead of the link cost model, in microseconds: a tick
    /// lasts alpha + chunk_bits / rate. With --link-gbps (both or neither);
    /// replaces an instance JSON's "cost" object. `tickopt calibrate`
    /// prints the values a device measured.
    #[arg(long, value_name = "MICROSECONDS", allow_negative_numbers = true)]
    pub alpha_us: Option<f64>,
    /// Link rate of the cost model, in gigabits (10^9 bits) per second
    /// (678 GB/s is 5424). With --alpha-us.
    #[arg(long, value_name = "GBPS", allow_negative_numbers = true)]
    pub link_gbps: Option<f64>,
}

impl CostArgs {
    /// The flags' model, else the instance's `"cost"`, else none.
    pub fn model(&self, inst: &Instance) -> anyhow::Result<Option<crate::cost::CostModel>> {
        Ok(self.flags_model()?.or(inst.cost))
    }

    /// The flags' model alone (none without the flags).
    pub fn flags_model(&self) -> anyhow::Result<Option<crate::cost::CostModel>> {
        match (self.alpha_us, self.link_gbps) {
            (Some(a), Some(g)) => Ok(Some(
                crate::cost::CostModel::new(a, g).map_err(|e| anyhow::anyhow!("--alpha-us/--link-gbps: {e}"))?,
            )),
            (None, None) => Ok(None),
            _ => anyhow::bail!(
                "--alpha-us and --link-gbps go together: give both (a tick lasts alpha + chunk_bits / rate)"
            ),
        }
    }
}

/// clap value parser for a chunk size (`--min-chunk`, `--max-chunk`): the
/// one size syntax, plain integers in bits, whole bytes only.
pub fn parse_chunk_arg(s: &str) -> Result<u64, String> {
    let bits = parse_bits_arg(s)?;
    if bits % 8 != 0 {
        return Err(format!(
            "{s:?} is {bits} bits, not a whole number of bytes (chunk sizes are whole bytes: 64B, 4KiB, 8192)"
        ));
    }
    Ok(bits)
}
