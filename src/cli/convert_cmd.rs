//! `tickopt convert INPUT --out instance.json`: the normalised instance as
//! copyspace-guard instance JSON v0 (what `copyspace-guard validate` and
//! `audit` take).
//!
//! A command of its own rather than a `gen --json` flag: it converts any
//! input tickopt reads (a hand-written or exported demands CSV, or a JSON to
//! re-normalise with overrides), not only generated families.

use super::common::{check_output_dir, InstanceArgs};
use crate::instance::write_instance_json;
use crate::schedule::writers::write_atomically;
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub instance: InstanceArgs,
    /// Write the instance JSON here ("-" for stdout).
    #[arg(long, short, value_name = "INSTANCE.json")]
    pub out: PathBuf,
    /// Set the instance's "id" (default: the input's own id, if any).
    #[arg(long)]
    pub id: Option<String>,
}

pub fn run(a: ConvertArgs) -> anyhow::Result<u8> {
    check_output_dir(&a.out)?;
    let mut inst = a.instance.load()?;
    if a.id.is_some() {
        inst.id = a.id.clone();
    }
    write_atomically(&a.out, |w| write_instance_json(&inst, w))
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!(
        "{} {} slots, bw {}, {} demands, {} chunks",
        inst.model,
        inst.slots,
        inst.bw,
        inst.demands().len(),
        inst.total_chunks()
    );
    Ok(0)
}
