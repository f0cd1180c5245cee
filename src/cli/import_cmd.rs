//! `tickopt import FILE --from FORMAT --out INSTANCE.json [--schedule-out
//! SCHEDULE.json]`: traffic and programs from elsewhere as a tickopt
//! instance (and, where the format carries one, the schedule it runs,
//! validated, as copyspace-guard schedule JSON), ready for `solve`,
//! `validate` and `audit`.

use super::common::{check_output_dir, LimitArgs};
use crate::instance::{write_instance_json, Instance, Limits, Model};
use crate::interop::{check_program_size, levels_report, matrix, msccl_xml, p2p_json};
use crate::schedule::writers::write_atomically;
use crate::units::PlainUnit;
use crate::validate::RawChunk;
use anyhow::Context;
use clap::{Args, ValueEnum};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// Formats `import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    /// A W x W traffic matrix: entry [i][j] = size from i to j (needs --bw).
    Matrix,
    /// A `tickopt-p2p-v1` program (instance and schedule).
    P2pJson,
    /// An MSCCL algorithm XML using s, r, rcs, cpy and nop steps (needs
    /// --bw: bits per chunk): its transfers and dependency levels.
    MscclXml,
}

/// Which instance an MSCCL program stands for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DemandsArg {
    /// Every transfer a demand of its pair (a relay once per hop): the
    /// instance the program's ticks are a schedule of.
    #[default]
    Hops,
    /// The collective the program implements: every chunk from the gpu
    /// where it starts to each gpu whose output buffer ends up holding it.
    EndToEnd,
}

impl From<DemandsArg> for msccl_xml::Demands {
    fn from(d: DemandsArg) -> Self {
        match d {
            DemandsArg::Hops => msccl_xml::Demands::Hops,
            DemandsArg::EndToEnd => msccl_xml::Demands::EndToEnd,
        }
    }
}

/// The unit of a matrix's plain numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Unit {
    Bits,
    Bytes,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The file to import.
    pub file: PathBuf,
    /// Its format.
    #[arg(long, value_enum)]
    pub from: ImportFormat,
    /// Write the instance JSON here.
    #[arg(long, short, value_name = "INSTANCE.json")]
    pub out: PathBuf,
    /// Also write the program's schedule here (copyspace-guard JSON;
    /// p2p-json and msccl-xml).
    #[arg(long, value_name = "SCHEDULE.json")]
    pub schedule_out: Option<PathBuf>,
    /// Bits per transfer per tick, for a matrix; bits per chunk for an
    /// MSCCL program (sizes: a plain integer is
    /// bits; K, M, G x1000 bits, Ki, Mi, Gi x1024 bits, KB..GiB bytes).
    #[arg(long, value_name = "BITS", value_parser = super::common::parse_bits_arg)]
    pub bw: Option<u64>,
    /// Resource model for a matrix or an MSCCL program (default STRICT1).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<Model>,
    /// Unit of a matrix's plain numbers (suffixed sizes say their own).
    #[arg(long, value_enum, default_value = "bits")]
    pub unit: Unit,
    /// Ports of every slot for an MSCCL program's instance (default 1).
    #[arg(long, value_name = "K")]
    pub ports: Option<u32>,
    /// MSCCL program: split every dependency level whose transfers
    /// conflict under the model into conflict-free ticks (first fit), so
    /// the schedule validates; without it a conflicting program's schedule
    /// is refused with its conflicts named.
    #[arg(long)]
    pub serialize: bool,
    /// MSCCL program: the instance of its hops (default), or of the
    /// collective it implements (`end-to-end`: where every chunk starts and
    /// where it ends up), for `audit` to rank a relaying program against.
    #[arg(long, value_enum, value_name = "KIND")]
    pub demands: Option<DemandsArg>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Ticks of a program's schedule, one chunk per entry.
type Ticks = Vec<Vec<RawChunk>>;

pub fn run(a: ImportArgs) -> anyhow::Result<u8> {
    check_output_dir(&a.out)?;
    if let Some(p) = &a.schedule_out {
        check_output_dir(p)?;
    }
    if a.from != ImportFormat::MscclXml && (a.ports.is_some() || a.serialize || a.demands.is_some())
    {
        anyhow::bail!("--ports, --serialize and --demands are for --from msccl-xml");
    }
    let name = a.file.display().to_string();
    let limits = a.limits.to_limits();
    let (inst, ticks) = match a.from {
        ImportFormat::Matrix => (import_matrix(&a, &name, &limits)?, None),
        ImportFormat::P2pJson => import_p2p(&a, &name, &limits)?,
        ImportFormat::MscclXml => import_msccl(&a, &name, &limits)?,
    };
    write_atomically(&a.out, |w| write_instance_json(&inst, w))
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    if let (Some(path), Some(ticks)) = (&a.schedule_out, &ticks) {
        write_schedule(path, &inst, ticks)?;
    }
    eprintln!(
        "{} {} slots, bw {}, {} demands{}, {} chunks{}",
        inst.model,
        inst.slots,
        inst.bw,
        inst.demands().len(),
        if a.demands == Some(DemandsArg::EndToEnd) {
            " (end to end)"
        } else {
            ""
        },
        inst.total_chunks(),
        ticks.map_or(String::new(), |t| format!(
            "; schedule of {} ticks, validated",
            t.len()
        ))
    );
    Ok(0)
}

/// Opens the file to import, buffered: matrices and p2p-json programs are
/// read as they are parsed, never held whole.
fn open(a: &ImportArgs, name: &str) -> anyhow::Result<BufReader<File>> {
    let file = File::open(&a.file).with_context(|| format!("cannot read {name}"))?;
    Ok(BufReader::with_capacity(1 << 16, file))
}

/// A traffic matrix, read row by row into the instance's demands.
fn import_matrix(a: &ImportArgs, name: &str, limits: &Limits) -> anyhow::Result<Instance> {
    if a.schedule_out.is_some() {
        anyhow::bail!("--schedule-out: a traffic matrix carries no schedule");
    }
    let bw =
        a.bw.context("--bw is required for a matrix (bits per transfer per tick)")?;
    let plain = match a.unit {
        Unit::Bits => PlainUnit::Bits,
        Unit::Bytes => PlainUnit::Bytes,
    };
    let model = a.model.unwrap_or(Model::Strict1);
    matrix::matrix_instance(open(a, name)?, plain, model, bw, limits)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))
}

/// A p2p-json program: its instance and, validated, its schedule.
fn import_p2p(
    a: &ImportArgs,
    name: &str,
    limits: &Limits,
) -> anyhow::Result<(Instance, Option<Ticks>)> {
    if a.bw.is_some() || a.model.is_some() {
        anyhow::bail!("--bw and --model: a p2p-json program states its own");
    }
    let program: p2p_json::P2pProgram =
        serde_json::from_reader(open(a, name)?).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let imported =
        p2p_json::import(&program, limits).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    drop(program);
    let report = imported.validate(&imported.instance);
    if !report.passed() {
        anyhow::bail!(
            "{name}: the program's schedule does not validate: {}",
            report.one_line()
        );
    }
    Ok((imported.instance, Some(imported.ticks)))
}

/// An MSCCL program: the instance of `--demands`, and its levels (or, with
/// `--serialize`, conflict-free ticks) when they validate. The levels are
/// judged against the hops instance: they are a schedule of it, and of the
/// end-to-end instance only when the program relays nothing. Its size is
/// checked against `limits` before the importer follows its chunks.
fn import_msccl(
    a: &ImportArgs,
    name: &str,
    limits: &Limits,
) -> anyhow::Result<(Instance, Option<Ticks>)> {
    let bw =
        a.bw.context("--bw is required for an MSCCL program (bits per chunk)")?;
    let at = |e: crate::interop::InteropError| anyhow::anyhow!("{name}: {e}");
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("cannot read {name}"))?;
    let program = msccl_xml::parse(&text).map_err(at)?;
    drop(text);
    check_program_size(&program, limits).map_err(at)?;
    let imported = msccl_xml::import(&program).map_err(at)?;
    for note in &imported.notes {
        eprintln!("{name}: note: {note}");
    }
    let model = a.model.unwrap_or(Model::Strict1);
    let demands = msccl_xml::Demands::from(a.demands.unwrap_or_default());
    let hops = imported
        .instance(msccl_xml::Demands::Hops, model, bw, a.ports, limits)
        .map_err(at)?;
    let relays = imported.chunk_counts() != imported.end_to_end_counts();
    let inst = match demands {
        msccl_xml::Demands::EndToEnd => {
            if relays && a.schedule_out.is_some() {
                anyhow::bail!("{name}: --schedule-out: the program relays chunks, so its ticks are a schedule of its hops (--demands hops), not of the collective; `tickopt audit INSTANCE {name}` ranks the program against the end-to-end instance (nothing written)");
            }
            imported
                .instance(demands, model, bw, a.ports, limits)
                .map_err(at)?
        }
        msccl_xml::Demands::Hops => hops.clone(),
    };
    let levels = if a.serialize {
        imported.serialized(&hops)
    } else {
        imported.levels()
    };
    let report = levels_report(&hops, &levels);
    if !report.passed() {
        let what = format!(
            "{name}: as written, the program's {} dependency levels do not validate under {model}: {}",
            imported.ticks,
            report.one_line()
        );
        if a.schedule_out.is_some() {
            anyhow::bail!(
                "{what}; --serialize splits conflicting levels into ticks (nothing written)"
            );
        }
        eprintln!("{what} (--serialize splits them; `tickopt audit` ranks the program as written)");
    }
    let ticks = levels
        .iter()
        .map(|t| {
            t.iter()
                .map(|&(src, dst)| RawChunk::Chunk {
                    src: src as i128,
                    dst: dst as i128,
                    len: bw as i128,
                })
                .collect()
        })
        .collect::<Ticks>();
    // A relaying program's ticks are no schedule of its collective.
    let schedule = report.passed() && !(relays && demands == msccl_xml::Demands::EndToEnd);
    Ok((inst, schedule.then_some(ticks)))
}

/// Writes ticks as copyspace-guard schedule JSON (atomically), one tick
/// per line.
fn write_schedule(path: &Path, inst: &Instance, ticks: &Ticks) -> anyhow::Result<()> {
    write_atomically(path, |w| {
        write!(
            w,
            "{{\"version\":0,\"model\":\"{}\",\"ticks\":[",
            inst.model
        )?;
        for (t, tick) in ticks.iter().enumerate() {
            w.write_all(if t == 0 { b"\n[" } else { b",\n[" })?;
            for (k, c) in tick.iter().enumerate() {
                if let RawChunk::Chunk { src, dst, len } = c {
                    if k > 0 {
                        w.write_all(b",")?;
                    }
                    write!(
                        w,
                        "{{\"src_slot\":{src},\"dst_slot\":{dst},\"len_bits\":{len}}}"
                    )?;
                }
            }
            w.write_all(b"]")?;
        }
        w.write_all(b"\n]}\n")
    })
    .with_context(|| format!("cannot write {}", path.display()))
}
