//! `tickopt verify`.

use super::model_source::{model_from_files, note_instance_model, schedule_model, summary_model};
use crate::interop::validate_schedule_file;
use crate::proof::cnf::colourable_cnf;
use crate::proof::ProofBody;
use crate::schedule::writers::write_atomically;
use crate::verify::{verify_claim, Claim, Outcome, VerifyOptions};
use anyhow::Context;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Instance JSON, or demands CSV (bw: --bw or its recorded one; model:
    /// --model, else the schedule's and summary's, else STRICT1).
    pub instance: PathBuf,
    /// The schedule the claim is about (any format tickopt writes).
    pub schedule: PathBuf,
    /// The summary JSON `tickopt solve --summary` wrote.
    pub summary: PathBuf,
    #[command(flatten)]
    pub overrides: super::common::OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// The cost model the summary's seconds must be under (else the
    /// instance's "cost", else the summary's own, reported as such).
    #[command(flatten)]
    pub cost: super::common::CostArgs,
    /// Print the verification as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the summary's proof for standard tools into this
    /// directory (created if needed): for a DRAT proof `colourable.cnf` (DIMACS,
    /// re-derived from the instance) and `refutation.drat`, to check with
    /// `drat-trim colourable.cnf refutation.drat`; for a dual proof
    /// `dual.json`.
    #[arg(long, value_name = "DIR")]
    pub emit_proof: Option<PathBuf>,
    /// Work budget of the proof check, in work units: a clause visit or a
    /// literal touched by the DRAT checker is one unit, a node of the
    /// matching enumeration one, a byte of DRAT text 16 and a literal of
    /// the CNF 64 (both priced before anything is built). A proof that
    /// needs more is refused (exit 2), never half-checked. The default
    /// (1e8) is at most about a second and 100 MB; every proof tickopt
    /// writes fits in it.
    #[arg(long, value_name = "UNITS", default_value_t = crate::proof::DEFAULT_MAX_PROOF_WORK)]
    pub max_proof_work: u64,
}

/// Largest summary file read (the DRAT text inside is capped at 64 MiB).
const MAX_SUMMARY_BYTES: u64 = 80 << 20;

pub fn run(a: VerifyArgs) -> anyhow::Result<u8> {
    let size = std::fs::metadata(&a.summary)
        .with_context(|| format!("cannot read {}", a.summary.display()))?
        .len();
    if size > MAX_SUMMARY_BYTES {
        anyhow::bail!(
            "{}: summary of {size} bytes is over the {MAX_SUMMARY_BYTES}-byte limit",
            a.summary.display()
        );
    }
    let text = std::fs::read_to_string(&a.summary)
        .with_context(|| format!("cannot read {}", a.summary.display()))?;
    let mut overrides = a.overrides.to_overrides();
    if super::relay_cmd::is_relay_summary(&text) {
        if overrides.model.is_none() {
            overrides.model = Some(crate::instance::Model::Read1Write1);
        }
        if overrides.bw.is_none() {
            overrides.bw = super::relay_cmd::summary_bw(&text);
        }
        let inst = super::common::load_instance(&a.instance, &overrides, &a.limits.to_limits())?;
        return super::relay_cmd::verify(&inst, &a.schedule, &text, &a.summary);
    }
    let stated = [
        (
            a.schedule.display().to_string(),
            schedule_model(&a.schedule)?,
        ),
        (a.summary.display().to_string(), summary_model(&text)),
    ];
    model_from_files(&a.instance, &mut overrides, &stated)?;
    // A schedule at a chunk size the solve chose (`--chunk auto`) is checked
    // at that size, which the summary states (and its bound covers).
    if overrides.bw.is_none() {
        if let Some(bw) = auto_chunk_bits(&text) {
            eprintln!("tickopt: bw {bw} bits per tick from {} (the chunk size its solve chose with --chunk auto)", a.summary.display());
            overrides.bw = Some(bw);
        }
    }
    let inst = super::common::load_instance(&a.instance, &overrides, &a.limits.to_limits())?;
    note_instance_model(&a.instance, inst.model, &overrides, &stated);
    let report = validate_schedule_file(&inst, &a.schedule)?;
    // Strict reading (duplicate keys refused, BOM skipped), like every reader.
    let value = crate::instance::json_strict::parse_json_value(text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.summary.display()))?;
    let claim = Claim::from_value(value)
        .with_context(|| format!("{}: not a tickopt summary", a.summary.display()))?;
    if let Some(dir) = &a.emit_proof {
        emit_proof(&inst, &claim, dir)?;
    }
    let opts = VerifyOptions {
        max_proof_work: a.max_proof_work,
        instance_file_name: a
            .instance
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
        cost: a.cost.model(&inst)?,
    };
    let v = verify_claim(&inst, &report, &claim, &opts);
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        for l in &v.lines {
            let tag = match l.outcome {
                Outcome::Checked => "ok   ",
                Outcome::Failed => "FAIL ",
                Outcome::NotChecked => "n/a  ",
            };
            outln!("{tag} {:<9} {}", l.part.as_str(), l.what)?;
        }
        outln!(
            "{}: claim {} {} ticks, status {}",
            if v.holds { "VERIFIED" } else { "REJECTED" },
            claim.model,
            claim.ticks,
            claim.status
        )?;
    }
    Ok(if v.holds { 0 } else { 2 })
}

/// The summary's chunk size when its solve chose it (`"cost": {"chunk":
/// "auto"}`).
fn auto_chunk_bits(text: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    (v.get("cost")?.get("chunk")?.as_str()? == "auto")
        .then(|| v.get("copy_bw_bits_per_tick")?.as_u64())
        .flatten()
}

fn emit_proof(inst: &crate::instance::Instance, claim: &Claim, dir: &Path) -> anyhow::Result<()> {
    let p = claim
        .proof
        .as_ref()
        .context("--emit-proof: the summary carries no proof")?;
    // Created if needed, as audit's and bench's --out-dir are.
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "--emit-proof: cannot create the directory {}",
            dir.display()
        )
    })?;
    let write = |name: &str, body: &str| -> anyhow::Result<()> {
        let path = dir.join(name);
        write_atomically(&path, |w| w.write_all(body.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))
    };
    match &p.body {
        ProofBody::Drat(d) => {
            let cnf = colourable_cnf(inst, p.refutes_ticks)
                .context("--emit-proof: cannot build the CNF")?;
            write("colourable.cnf", &cnf.to_dimacs())?;
            write("refutation.drat", &d.drat)?;
        }
        ProofBody::Dual(_) => write("dual.json", &serde_json::to_string_pretty(p)?)?,
    }
    Ok(())
}
