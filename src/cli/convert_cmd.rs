//! `tickopt convert INPUT --out instance.json`: the normalised instance as
//! copyspace-guard instance JSON v0 (what `copyspace-guard validate` and
//! `audit` take).
//!
//! A command of its own rather than a `gen --json` flag: it converts any
//! input tickopt reads (a hand-written or exported demands CSV, or a JSON to
//! re-normalise with overrides), not only generated families.

use super::common::{check_output_dir, InstanceArgs};
use crate::instance::instance_to_json;
use crate::schedule::writers::write_atomically;
use anyhow::Context;
use clap::Args;
use std::io::Write;
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
    let text = serde_json::to_string_pretty(&instance_to_json(&inst))?;
    if a.out.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
        out.flush()?;
    } else {
        write_atomically(&a.out, |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    }
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
