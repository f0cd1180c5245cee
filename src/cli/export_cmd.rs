//! `tickopt export INSTANCE SCHEDULE --to FORMAT --out FILE`: a validated
//! schedule as a program another runtime runs. The program is re-read by
//! tickopt's own importer and validated against the instance before it is
//! written (an MSCCL++ DSL program, which tickopt does not read, is checked
//! in the tables it is printed from): an export that does not move every
//! byte exactly once is an error, not a file. A relay schedule goes to
//! `tickopt-relay-p2p-v1` only, executed by the reference executor before
//! it is written (`super::relay_use`).

use super::common::{check_output_dir, load_instance, OverrideArgs};
use crate::interop::load_schedule;
use crate::interop::{msccl_xml, mscclpp_dsl, p2p_json};
use crate::schedule::writers::write_atomically;
use anyhow::Context;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Formats `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `tickopt-p2p-v1`: per rank, one list per tick of send/receive
    /// operations with byte offsets (doc/formats.md). A relay schedule:
    /// `tickopt-relay-p2p-v1`, per rank its sends and receives in order
    /// with input, output and staging buffers, executed before it is
    /// written.
    P2pJson,
    /// An MSCCL algorithm XML (msccl-tools' IR layout, with minBytes and
    /// maxBytes set): one chunk = bw bits, dependencies keep the model
    /// (doc/formats.md).
    MscclXml,
    /// A Python program in MSCCL++'s DSL (`python3 FILE > plan.json` where
    /// MSCCL++ is installed): one chunk = bw bits, put + signal/wait per
    /// transfer, lanes as threadblocks (doc/formats.md).
    MscclppDsl,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Instance JSON, or demands CSV (bw: --bw or its recorded one).
    pub instance: PathBuf,
    /// The schedule (any format tickopt reads, or a relay schedule); it must validate.
    pub schedule: PathBuf,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    #[command(flatten)]
    pub relay: super::relay_cmd::RelayArgs,
    /// Format to write.
    #[arg(long, value_enum)]
    pub to: ExportFormat,
    /// Write the program here (atomically; nothing is written on error).
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
}

pub fn run(a: ExportArgs) -> anyhow::Result<u8> {
    check_output_dir(&a.out)?;
    if crate::interop::is_relay_schedule_file(&a.schedule)? {
        let to = a.to.to_possible_value().expect("no format is hidden");
        let input = super::relay_use::RelayInput::new(
            &a.instance,
            &a.schedule,
            &a.overrides,
            &a.limits,
            &a.relay,
        );
        let p2p = a.to == ExportFormat::P2pJson;
        return super::relay_use::export(input, to.get_name(), p2p, &a.out);
    }
    super::relay_use::note_direct(&a.relay, &a.schedule);
    let inst = load_instance(
        &a.instance,
        &a.overrides.to_overrides(),
        &a.limits.to_limits(),
    )?;
    let schedule = load_schedule(&inst, &a.schedule)?;
    let text = match a.to {
        ExportFormat::P2pJson => {
            let program = p2p_json::export(&inst, &schedule)
                .with_context(|| format!("cannot export {}", a.schedule.display()))?;
            let text = program.to_json_text()?;
            // Re-read what will be written, with the importer, and validate.
            let back: p2p_json::P2pProgram = serde_json::from_str(&text)?;
            let imported = p2p_json::import(&back, &a.limits.to_limits())
                .context("the exported program does not re-read")?;
            let report = imported.validate(&inst);
            if !report.passed() || report.ticks_total != schedule.ticks() {
                anyhow::bail!(
                    "the exported program does not validate as the schedule did: {}",
                    report.one_line()
                );
            }
            text
        }
        ExportFormat::MscclXml => {
            // The exporter re-reads its own text and checks it (chunks in
            // place, levels valid) before handing it over.
            let out = msccl_xml::export(&inst, &schedule)
                .with_context(|| format!("cannot export {}", a.schedule.display()))?;
            for note in &out.reread.notes {
                eprintln!("note: {note}");
            }
            if out.reread.ticks < schedule.ticks() {
                eprintln!(
                    "note: run as soon as its dependencies allow, the program takes {} ticks (the schedule {})",
                    out.reread.ticks,
                    schedule.ticks()
                );
            }
            out.text
        }
        ExportFormat::MscclppDsl => mscclpp_dsl::export(&inst, &schedule)
            .with_context(|| format!("cannot export {}", a.schedule.display()))?,
    };
    write_atomically(&a.out, |w| w.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    let checked = match a.to {
        ExportFormat::MscclppDsl => "checked",
        _ => "re-read and validated",
    };
    eprintln!(
        "{}: {} ranks, {} ticks, {checked}",
        a.out.display(),
        inst.slots,
        schedule.ticks()
    );
    Ok(0)
}
