//! `tickopt replay`.

use super::common::{check_output_dir, OverrideArgs};
use crate::cost::calibrate::Prediction;
use crate::cost::CostModel;
use crate::exec::{
    new_executor, render_table, ExecError, ExecMode, ExecOptions, ExecutionReport, Executor,
    ExecutorKind, Layout, PeakReport,
};
use crate::instance::Instance;
use crate::interop::load_schedule;
use crate::schedule::writers::write_atomically;
use crate::schedule::Schedule;
use crate::solve::portfolio::{solve_instance, SolveRequest, SolverChoice};
use anyhow::Context;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Instance JSON, or demands CSV with --bw (and --model).
    pub instance: PathBuf,
    /// Schedule to replay: copyspace-guard JSON, CSV or tickopt compact JSON.
    /// It is validated first; a schedule that fails is refused (exit 1).
    pub schedule: PathBuf,
    #[command(flatten)]
    pub overrides: OverrideArgs,
    #[command(flatten)]
    pub limits: super::common::LimitArgs,
    /// cpu: host buffers (the reference); cuda: GPU buffers (needs a build
    /// with the `cuda` feature and an NVIDIA driver).
    #[arg(long, default_value = "cpu", value_name = "EXECUTOR")]
    pub executor: ExecutorKind,
    /// How the executor runs the plan: host (copies issued tick by tick,
    /// a barrier between ticks), graph (the same, captured once as a CUDA
    /// graph), device-barrier (one persistent kernel, a grid barrier per
    /// tick) or device-dataflow (one persistent kernel, each transfer
    /// waiting only for its sender's and receiver's previous transfers).
    /// The cpu executor emulates the device modes on host threads.
    #[arg(long, default_value = "host", value_name = "MODE")]
    pub mode: ExecMode,
    /// CUDA device ordinals, comma-separated (default 0); slot s lives on
    /// the (s mod n)-th listed device.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub devices: Vec<usize>,
    /// Divide bits by F before sizing buffers (a demand of b bits becomes
    /// ceil(b/F/8) bytes), so large instances fit in memory.
    #[arg(long, default_value_t = 1, value_name = "F")]
    pub scale_bits: u64,
    /// Untimed repetitions first.
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub warmup: u32,
    /// Timed repetitions.
    #[arg(long, default_value_t = 5, value_name = "R")]
    pub repeat: u32,
    /// Also run the schedule in every other mode the executor has, the
    /// greedy schedule, every transfer at once (no schedule, one stream per
    /// transfer) and the peak copy, side by side. A mode this machine
    /// cannot run (no NVRTC, graph on the cpu executor) is skipped, saying
    /// why.
    #[arg(long)]
    pub compare: bool,
    /// Also time one copy of the same number of bytes (the copy ceiling).
    #[arg(long)]
    pub peak: bool,
    /// Refuse to allocate more than this many MiB of buffers.
    #[arg(long, default_value_t = 8192, value_name = "MIB")]
    pub max_mib: u64,
    /// Write the JSON report here.
    #[arg(long, value_name = "REPORT.json")]
    pub out: Option<PathBuf>,
    /// The cost model whose prediction is shown beside the measured ticks
    /// (else the instance's "cost"; none: no prediction).
    #[command(flatten)]
    pub cost: super::common::CostArgs,
}

/// How many ticks the prediction table shows on the terminal (the JSON
/// report has every detailed tick).
const PREDICTION_ROWS: usize = 8;

/// One labelled execution in the report.
#[derive(Serialize)]
struct Run {
    label: &'static str,
    #[serde(flatten)]
    report: ExecutionReport,
}

/// A mode `--compare` skipped.
#[derive(Serialize)]
struct Skipped {
    mode: ExecMode,
    why: String,
}

/// The JSON report of `tickopt replay`.
#[derive(Serialize)]
struct ReplayReport<'a> {
    tool: &'static str,
    instance: String,
    schedule: String,
    model: String,
    slots: u32,
    demands: usize,
    bw_bits_per_tick: u64,
    executor: &'static str,
    device: String,
    scale_bits: u64,
    warmup: u32,
    repeat: u32,
    runs: Vec<Run>,
    /// Modes `--compare` could not run here, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
    peak: Option<PeakReport>,
    /// The cost model's prediction for the schedule run, tick by tick.
    #[serde(skip_serializing_if = "Option::is_none")]
    prediction: Option<crate::cost::calibrate::Prediction>,
    /// Where each demand's bytes live (for external tools replaying the same regions).
    layout: &'a Layout,
}

pub fn run(a: ReplayArgs) -> anyhow::Result<u8> {
    if let Some(p) = &a.out {
        check_output_dir(p)?;
    }
    let opts = ExecOptions {
        scale_bits: a.scale_bits,
        warmup: a.warmup,
        repeat: a.repeat,
        max_bytes: a.max_mib.saturating_mul(1 << 20),
        mode: a.mode,
    };
    opts.check()?;
    let inst = super::common::load_instance(
        &a.instance,
        &a.overrides.to_overrides(),
        &a.limits.to_limits(),
    )?;
    let cost = a.cost.model(&inst)?;
    let schedule = load_schedule(&inst, &a.schedule)?;
    let mut exec = new_executor(a.executor, &a.devices)?;
    let layout = Layout::new(&inst, opts.scale_bits, exec.devices())?;

    let (runs, skipped) = replay_runs(exec.as_mut(), &inst, &schedule, &opts, &a)?;
    let peak = if a.peak || a.compare {
        Some(exec.peak_copy(layout.payload_bytes().max(1), &opts)?)
    } else {
        None
    };

    let rows: Vec<(&str, &ExecutionReport)> = runs.iter().map(|r| (r.label, &r.report)).collect();
    println!(
        "{} on {} (scale_bits {}, warmup {}, repeat {})",
        exec.name(),
        exec.device(),
        opts.scale_bits,
        opts.warmup,
        opts.repeat
    );
    print!("{}", render_table(&rows, peak.as_ref()));
    for s in &skipped {
        println!("skipped {}: {}", s.mode, s.why);
    }
    let prediction = cost.map(|c| crate::cost::calibrate::predict(&runs[0].report, &c));
    if let Some(p) = &prediction {
        print_prediction(p, cost.as_ref(), &runs[0].report);
    }
    let passed = runs.iter().all(|r| r.report.verification.passed);
    for r in runs.iter().filter(|r| !r.report.verification.passed) {
        for f in &r.report.verification.faults {
            println!("{}: {f}", r.label);
        }
    }

    if let Some(path) = &a.out {
        let report = ReplayReport {
            tool: concat!("tickopt ", env!("CARGO_PKG_VERSION")),
            instance: a.instance.display().to_string(),
            schedule: a.schedule.display().to_string(),
            model: inst.model.to_string(),
            slots: inst.slots,
            demands: inst.demands().len(),
            bw_bits_per_tick: inst.bw,
            executor: exec.name(),
            device: exec.device(),
            scale_bits: opts.scale_bits,
            warmup: opts.warmup,
            repeat: opts.repeat,
            runs,
            skipped,
            peak,
            prediction,
            layout: &layout,
        };
        let json = serde_json::to_string_pretty(&report)?;
        write_atomically(path, |w| {
            w.write_all(json.as_bytes())?;
            w.write_all(b"\n")
        })
        .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(if passed { 0 } else { 2 })
}

/// Labels of the schedule's runs in the other modes under `--compare`.
fn mode_label(mode: ExecMode) -> &'static str {
    match mode {
        ExecMode::Host => "schedule:host",
        ExecMode::Graph => "schedule:graph",
        ExecMode::DeviceBarrier => "schedule:device-barrier",
        ExecMode::DeviceDataflow => "schedule:device-dataflow",
    }
}

/// The schedule's replay in `opts.mode`; with `--compare` also in every
/// other mode (skipping, with the reason, those this executor or machine
/// cannot run), the greedy schedule's (host mode) and all transfers at
/// once (host mode).
fn replay_runs(
    exec: &mut dyn Executor,
    inst: &Instance,
    schedule: &Schedule,
    opts: &ExecOptions,
    a: &ReplayArgs,
) -> anyhow::Result<(Vec<Run>, Vec<Skipped>)> {
    let mut runs = vec![Run {
        label: "schedule",
        report: exec
            .replay(inst, schedule, opts)
            .with_context(|| format!("cannot replay {}", a.schedule.display()))?,
    }];
    let mut skipped = Vec::new();
    if a.compare {
        for mode in ExecMode::ALL.into_iter().filter(|&m| m != opts.mode) {
            let o = ExecOptions {
                mode,
                ..opts.clone()
            };
            match exec.replay(inst, schedule, &o) {
                Ok(report) => runs.push(Run {
                    label: mode_label(mode),
                    report,
                }),
                Err(ExecError::Unavailable(why)) => skipped.push(Skipped { mode, why }),
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("cannot replay the schedule in the {mode} mode")))
                }
            }
        }
        let host = ExecOptions {
            mode: ExecMode::Host,
            ..opts.clone()
        };
        let greedy = solve_instance(
            inst,
            &SolveRequest {
                solver: SolverChoice::Greedy,
                ..Default::default()
            },
        )?;
        runs.push(Run {
            label: "greedy",
            report: exec
                .replay(inst, &greedy.schedule, &host)
                .context("cannot replay the greedy schedule")?,
        });
        runs.push(Run {
            label: "all_at_once",
            report: exec
                .replay_all_at_once(inst, &host)
                .context("cannot replay all transfers at once")?,
        });
    }
    Ok((runs, skipped))
}

/// The cost model's prediction beside the measured ticks (the first
/// `PREDICTION_ROWS`) and the totals.
fn print_prediction(p: &Prediction, cost: Option<&CostModel>, report: &ExecutionReport) {
    println!(
        "cost model {}: a tick lasts alpha + largest copy / rate",
        cost.map(|c| c.flags()).unwrap_or_default()
    );
    println!(
        "{:>8}  {:>14}  {:>14}  {:>14}",
        "tick", "largest copy B", "predicted us", "measured us"
    );
    for (i, (t, us)) in report
        .per_tick
        .iter()
        .zip(&p.per_tick_us)
        .enumerate()
        .take(PREDICTION_ROWS)
    {
        println!(
            "{i:>8}  {:>14}  {us:>14.2}  {:>14.2}",
            t.max_copy_bytes, t.median_us
        );
    }
    if p.per_tick_us.len() > PREDICTION_ROWS {
        println!(
            "{:>8}  ({} more ticks in the JSON report)",
            "...",
            p.per_tick_us.len() - PREDICTION_ROWS
        );
    }
    println!(
        "{:>8}  {:>14}  {:>14.2}  {:>14.2}  (measured / predicted {:.3})",
        "total", "", p.total_us, p.measured_us, p.measured_over_predicted
    );
}
