//! Executors: replay a schedule by moving real bytes, tick by tick, and
//! measure what each tick costs.
//!
//! This module owns the execution model (doc/gpu.md): every slot is a
//! buffer with a send region per outgoing demand and a receive region per
//! incoming demand ([`plan::Layout`]); a transfer copies its chunk's byte
//! range from the sender's send region to the receiver's receive region; all
//! copies of a tick may run concurrently and tick `t+1` starts only when
//! tick `t` has finished. A schedule becomes a checked [`Plan`] first (every
//! byte of every demand moved exactly once, no races within a tick, the
//! model respected), so executors never run a wrong schedule; after the run
//! the buffers are compared with the expected patterns ([`data`]).
//!
//! Executors: [`CpuExecutor`] (host buffers, rayon within a tick; the
//! reference) and [`CudaExecutor`] (device buffers, one stream per
//! concurrent copy, CUDA events around every tick; only with the cargo
//! feature `cuda`, else its constructor says so). Executors do not print.
//!
//! Modes ([`ExecMode`], doc/gpu.md): `host` is the tick-by-tick replay
//! above; `graph` is the same copies captured once as a CUDA graph;
//! `device-barrier` and `device-dataflow` run the plan's dataflow arrays
//! ([`flow`]) in one persistent kernel, with a grid barrier per tick or
//! with each transfer waiting only for its own two ports. The CPU executor
//! runs the device modes as [`flow::emulate`] (host threads, the kernel's
//! algorithm), to check the algorithm, not to time hardware.

pub mod cpu;
mod cuda;
pub mod data;
pub mod flow;
pub mod plan;
pub mod report;

pub use cpu::CpuExecutor;
pub use cuda::CudaExecutor;
pub use data::Verification;
pub use plan::{Layout, Plan, PlanError, PlanKind, Transfer};
pub use report::{render_table, ExecutionReport, PeakReport, Stats, TickStat};

use crate::instance::Instance;
use crate::schedule::Schedule;

/// How to execute, independent of any command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// A demand of `b` bits occupies `ceil(b / scale_bits / 8)` bytes (>= 1).
    pub scale_bits: u64,
    /// Untimed repetitions before the timed ones.
    pub warmup: u32,
    /// Timed repetitions (>= 1).
    pub repeat: u32,
    /// Largest total buffer size, in bytes, an executor may allocate
    /// (host-side copies of the buffers included).
    pub max_bytes: u64,
    /// How the executor runs the plan.
    pub mode: ExecMode,
}

/// How an executor runs a plan (see the module docs and doc/gpu.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExecMode {
    /// Copies issued from the host tick by tick, a barrier between ticks.
    #[default]
    Host,
    /// The host replay captured once as a CUDA graph, launched per repetition.
    Graph,
    /// One persistent kernel, a grid-wide barrier after every tick.
    DeviceBarrier,
    /// One persistent kernel, each transfer waiting only for its sender's
    /// previous send and its receiver's previous receive.
    DeviceDataflow,
}

impl ExecMode {
    /// Every mode, in the order `--compare` runs them.
    pub const ALL: [ExecMode; 4] = [
        ExecMode::Host,
        ExecMode::Graph,
        ExecMode::DeviceBarrier,
        ExecMode::DeviceDataflow,
    ];

    /// The mode's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            ExecMode::Host => "host",
            ExecMode::Graph => "graph",
            ExecMode::DeviceBarrier => "device-barrier",
            ExecMode::DeviceDataflow => "device-dataflow",
        }
    }
}

impl std::fmt::Display for ExecMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ExecMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ExecMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown mode {s:?} (expected host, graph, device-barrier or device-dataflow)"
                )
            })
    }
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            scale_bits: 1,
            warmup: 1,
            repeat: 5,
            max_bytes: 8 << 30,
            mode: ExecMode::Host,
        }
    }
}

impl ExecOptions {
    /// Refuses options no run can use.
    pub fn check(&self) -> Result<(), ExecError> {
        if self.scale_bits == 0 {
            return Err(ExecError::Options("scale_bits must be >= 1".into()));
        }
        if self.repeat == 0 {
            return Err(ExecError::Options("repeat must be >= 1".into()));
        }
        Ok(())
    }

    /// Refuses a plan whose buffers exceed [`ExecOptions::max_bytes`].
    pub fn check_size(&self, plan: &Plan) -> Result<(), ExecError> {
        let total = plan.layout().total_bytes();
        if total > self.max_bytes {
            return Err(PlanError::TooLarge(format!(
                "the slot buffers need {total} bytes, over the limit of {}",
                self.max_bytes
            ))
            .into());
        }
        Ok(())
    }
}

/// Why an execution could not run. A run that finished with bad data is not
/// an error: its report says `verification.passed == false`.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Flow(#[from] flow::FlowError),
    #[error("invalid execution options: {0}")]
    Options(String),
    /// The executor cannot run on this machine or build (no driver, no
    /// device, feature not compiled in).
    #[error("{0}")]
    Unavailable(String),
    /// The device reported an error while running.
    #[error("CUDA error in {op}: {msg}")]
    Device { op: String, msg: String },
}

/// Runs checked plans and reports what they cost.
pub trait Executor {
    /// Short name ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// What runs the copies, for reports (e.g. the GPU name and driver).
    fn device(&self) -> String;

    /// Number of devices the layout spreads slots over (slot `s` on device
    /// `s % devices`).
    fn devices(&self) -> u32;

    /// Executes `plan` `opts.warmup + opts.repeat` times, timing the last
    /// `repeat` runs tick by tick, then checks every region's bytes.
    fn execute(&mut self, plan: &Plan, opts: &ExecOptions) -> Result<ExecutionReport, ExecError>;

    /// Times one copy of `bytes` contiguous bytes (the executor's copy
    /// ceiling), `opts.warmup` untimed then `opts.repeat` timed.
    fn peak_copy(&mut self, bytes: u64, opts: &ExecOptions) -> Result<PeakReport, ExecError>;

    /// Builds the checked plan of `schedule` (scaled by `opts.scale_bits`)
    /// and executes it. A schedule that does not move every byte exactly
    /// once, or that breaks the model, is an error before anything runs.
    fn replay(
        &mut self,
        inst: &Instance,
        schedule: &Schedule,
        opts: &ExecOptions,
    ) -> Result<ExecutionReport, ExecError> {
        opts.check()?;
        let plan = Plan::from_schedule(inst, schedule, opts.scale_bits, self.devices())?;
        self.execute(&plan, opts)
    }

    /// Executes every demand at once, as one copy each and without ticks:
    /// the baseline without a schedule.
    fn replay_all_at_once(
        &mut self,
        inst: &Instance,
        opts: &ExecOptions,
    ) -> Result<ExecutionReport, ExecError> {
        opts.check()?;
        let plan = Plan::all_at_once(inst, opts.scale_bits, self.devices())?;
        self.execute(&plan, opts)
    }
}

/// Which executor to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutorKind {
    #[default]
    Cpu,
    Cuda,
}

impl std::str::FromStr for ExecutorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(ExecutorKind::Cpu),
            "cuda" => Ok(ExecutorKind::Cuda),
            _ => Err(format!("unknown executor {s:?} (expected cpu or cuda)")),
        }
    }
}

/// Creates an executor. `devices` are CUDA device ordinals (empty: device
/// 0); the CPU executor takes none. Without a usable CUDA driver, or in a
/// build without the `cuda` feature, `Cuda` is [`ExecError::Unavailable`].
pub fn new_executor(kind: ExecutorKind, devices: &[usize]) -> Result<Box<dyn Executor>, ExecError> {
    match kind {
        ExecutorKind::Cpu => {
            if devices.len() > 1 {
                return Err(ExecError::Options(
                    "the cpu executor has one device; --devices is for cuda".into(),
                ));
            }
            Ok(Box::new(CpuExecutor::new()))
        }
        ExecutorKind::Cuda => Ok(Box::new(CudaExecutor::new(devices)?)),
    }
}
