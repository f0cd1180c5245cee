//! Side-by-side numbers from copyspace-guard (`analyze`, greedy schedule).
//!
//! The instance is written as a demands CSV of the normalised demands (so
//! both tools read the same data whatever the input format), `analyze
//! --summary-only` runs in a temporary directory, and the greedy report's
//! ticks and lower bound are read back from its `summary.json`.

use super::record::CgResult;
use crate::instance::Instance;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `cg analyze` on `inst`; never fails: problems go in `error`.
pub fn run_cg(cg: &Path, inst: &Instance, timeout: Duration) -> CgResult {
    let t0 = Instant::now();
    let mut result = CgResult {
        ticks: None,
        lower_bound: None,
        bounds_complete: None,
        seconds: 0.0,
        error: None,
    };
    match run_inner(cg, inst, timeout) {
        Ok(summary) => {
            let greedy = &summary["reports"]["greedy"];
            result.ticks = greedy["ticks_total"].as_u64();
            result.lower_bound = greedy["lower_bound_ticks"].as_u64();
            result.bounds_complete = greedy["bounds_complete"].as_bool();
            if result.ticks.is_none() {
                result.error = Some("summary.json has no reports.greedy.ticks_total".into());
            }
        }
        Err(e) => result.error = Some(e),
    }
    result.seconds = t0.elapsed().as_secs_f64();
    result
}

fn run_inner(cg: &Path, inst: &Instance, timeout: Duration) -> Result<serde_json::Value, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let csv = dir.path().join("demands.csv");
    {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&csv).map_err(|e| format!("cannot write demands: {e}"))?,
        );
        let mut write = || -> std::io::Result<()> {
            writeln!(f, "src_slot,dst_slot,bits_total")?;
            for d in inst.demands() {
                writeln!(f, "{},{},{}", d.src, d.dst, d.bits)?;
            }
            f.flush()
        };
        write().map_err(|e| format!("cannot write demands: {e}"))?;
    }
    let outdir = dir.path().join("out");
    let stderr_path = dir.path().join("stderr.txt");
    let stderr_file =
        std::fs::File::create(&stderr_path).map_err(|e| format!("temporary file: {e}"))?;
    let mut child = Command::new(cg)
        .arg("analyze")
        .arg("--csv")
        .arg(&csv)
        .arg("--bw")
        .arg(inst.bw.to_string())
        .arg("--model")
        .arg(inst.model.as_str())
        .arg("--slots")
        .arg(inst.slots.to_string())
        .arg("--summary-only")
        .arg("--outdir")
        .arg(&outdir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr_file)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", cg.display()))?;
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if t0.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {:.0} s", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for copyspace-guard: {e}")),
        }
    };
    if !status.success() {
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("copyspace-guard exited with {status}: {last}"));
    }
    let text = std::fs::read_to_string(outdir.join("summary.json"))
        .map_err(|e| format!("cannot read copyspace-guard summary.json: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("invalid copyspace-guard summary.json: {e}"))
}
