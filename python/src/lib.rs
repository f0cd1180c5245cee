//! `tickopt._tickopt`: the compiled half of the Python package.
//!
//! A thin layer over the tickopt library: it turns Python values into an
//! [`Instance`], runs the same engine as `tickopt solve`
//! ([`tickopt::solve_instance`]), and hands results back as plain Python
//! values (JSON text where the library already has a serde form, which
//! `tickopt/__init__.py` decodes). The GIL is released while the engine
//! runs; every library error becomes a Python exception (`ValueError` for
//! bad input, with the CLI's message) and a panic becomes a `RuntimeError`,
//! never a crash of the interpreter.

mod relay;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tickopt::cli::summary::Summary;
use tickopt::graph::DemandGraph;
use tickopt::instance::dense::Cells;
use tickopt::instance::{Demand, InputError, Instance, Limits, Model, Ports};
use tickopt::lower::dataflow::{lower_dataflow_rank, Message};
use tickopt::lower::p2p::{lower_rank, Layout};
use tickopt::schedule::writers::{write_schedule_file, Format, WriteError};
use tickopt::schedule::Expansion;
use tickopt::solve::portfolio::bounds_settled_until;
use tickopt::solve::replan::{PlanError, PlanKind};
use tickopt::solve::Solution;
use tickopt::validate::{validate_expanded, RawChunk, TickValidator};
use tickopt::verify::{verify_claim, Claim, VerifyOptions};
use tickopt::{solve_instance, SolveRequest, SolverChoice};

/// A plan per step allocates and frees its buffers every call: mimalloc
/// keeps the freed pages, where the system allocator gave them back and
/// every plan faulted them in again (python/Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v3's `mi_option_purge_delay` (its include/mimalloc.h, as
/// libmimalloc-sys 0.1.49 builds it): not among the crate's constants.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc v3's default purge delay (ms, its src/options.c): what the
/// option reads when nobody set it, by `MIMALLOC_PURGE_DELAY` or a call.
const MI_DEFAULT_PURGE_DELAY: std::os::raw::c_long = 1000;

/// Keeps the memory plans free for the next plan instead of giving it back
/// to the system after mimalloc's default second: a 1,024-rank plan frees
/// tens of MB of buffers, and the next took fresh zeroed pages again (12
/// plans at 1,024 ranks k=4: 7,296 page faults, 581 with the delay at -1;
/// Python medians 5-10% faster, doc/performance.md "Planning inside the
/// step"). The process keeps its largest plan's footprint. Left alone
/// where the option does not read its default (a user's
/// `MIMALLOC_PURGE_DELAY`, or a mimalloc whose option numbers moved).
fn keep_freed_memory() {
    // SAFETY: option calls of the allocator this module uses, on the
    // thread importing the module, before any plan runs.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == MI_DEFAULT_PURGE_DELAY {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1);
        }
    }
}

/// One demand as Python gives it: `(src, dst, bits, bw or None)`, integers
/// of any size (range checks are ours, with the library's messages).
type PyDemand = (i128, i128, i128, Option<i128>);

/// One rank's program: per tick, `(op, peer, byte_offset, nbytes)`.
type P2pProgram = Vec<Vec<(&'static str, u32, u64, u64)>>;

/// One rank's sends or receives in order: `(peer, byte_offset, nbytes, first_tick)`.
type FlowList = Vec<(u32, u64, u64, u64)>;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Runs `f` without the GIL; a panic comes back as a `RuntimeError`.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!(
                "internal error in tickopt: {what}; please report this with the input"
            )))
        })
}

/// A non-negative integer that fits `T`, or the field's error.
fn to_uint<T: TryFrom<i128>>(v: i128, field: &str, what: &str) -> Result<T, InputError> {
    T::try_from(v).map_err(|_| {
        InputError::field(
            field,
            format!("{what} must be a non-negative integer that fits, got {v}"),
        )
    })
}

/// Builds the instance the CLI would build from the same demands (duplicate
/// pairs merged, sorted; `slots` defaults to the largest slot + 1 as for a
/// demands CSV).
fn build_instance(
    demands: &[PyDemand],
    bw: i128,
    model: &str,
    slots: Option<i128>,
    ports: Option<i128>,
) -> Result<Instance, InputError> {
    let model: Model = model
        .parse()
        .map_err(|e: tickopt::instance::UnknownModel| InputError::field("model", e.to_string()))?;
    if bw <= 0 {
        return Err(InputError::field(
            "copy_bw_bits_per_tick",
            "bandwidth per tick must be > 0",
        ));
    }
    let bw: u64 = to_uint(bw, "copy_bw_bits_per_tick", "bw")?;
    let mut raw = Vec::with_capacity(demands.len());
    let mut max_slot: i128 = -1;
    for (i, &(src, dst, bits, dbw)) in demands.iter().enumerate() {
        if bits <= 0 {
            return Err(InputError::field(
                &format!("demands[{i}].bits_total"),
                format!("bits_total must be > 0 for {src}->{dst}, got {bits}"),
            ));
        }
        let field = format!("demands[{i}]");
        let src: u32 = to_uint(src, &field, "src_slot")?;
        let dst: u32 = to_uint(dst, &field, "dst_slot")?;
        let bits: u64 = to_uint(bits, &format!("demands[{i}].bits_total"), "bits_total")?;
        let dbw: Option<u64> = match dbw {
            Some(b) if b <= 0 => {
                return Err(InputError::field(
                    &format!("demands[{i}].copy_bw_bits_per_tick"),
                    format!("bandwidth per tick must be > 0 for {src}->{dst}"),
                ))
            }
            Some(b) => Some(to_uint(
                b,
                &format!("demands[{i}].copy_bw_bits_per_tick"),
                "bw",
            )?),
            None => None,
        };
        max_slot = max_slot.max(src.max(dst) as i128);
        raw.push((Demand { src, dst, bits }, dbw));
    }
    let slots: u32 = match slots {
        Some(s) => to_uint(s, "slots", "slots")?,
        None => to_uint(max_slot + 1, "slots", "slots")?,
    };
    let ports = match ports {
        None => Ports::default(),
        Some(p) => Ports::Uniform(to_uint(p, "ports", "ports")?),
    };
    Instance::new_multiport(model, slots, bw, raw, ports, &Limits::default())
}

fn solver_choice(solver: &str) -> PyResult<SolverChoice> {
    solver.parse().map_err(value_error)
}

fn time_limit(seconds: Option<f64>) -> PyResult<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(PyValueError::new_err(format!(
            "time_limit must be a positive number of seconds, got {s}"
        ))),
    }
}

/// A solved instance: the library's [`Solution`] with its instance.
#[pyclass(frozen, module = "tickopt._tickopt")]
struct NativeSolution {
    /// Shared with a planner that keeps it for its next edit.
    inst: Arc<Instance>,
    sol: Solution,
    /// Seconds under a cost model, when one was given (doc/design.md §12).
    seconds: Option<tickopt::cost::Seconds>,
}

impl NativeSolution {
    fn summary(&self) -> Summary {
        let s = Summary::new(&self.inst, None, &self.sol.bounds, &self.sol);
        match &self.seconds {
            Some(sec) => s.with_seconds(sec.clone()),
            None => s,
        }
    }
}

#[pymethods]
impl NativeSolution {
    #[getter]
    fn ticks(&self) -> u64 {
        self.sol.ticks
    }

    #[getter]
    fn lower_bound(&self) -> u64 {
        self.sol.lower_bound.ticks
    }

    #[getter]
    fn status(&self) -> &'static str {
        self.sol.status.as_str()
    }

    #[getter]
    fn slots(&self) -> u32 {
        self.inst.slots
    }

    /// The schedule's chunk size in bits (chosen with `chunk="auto"`).
    #[getter]
    fn chunk_bits(&self) -> u64 {
        self.inst.bw
    }

    /// Ticks x tick time under the cost model (None without one).
    #[getter]
    fn seconds_predicted(&self) -> Option<f64> {
        self.seconds.as_ref().map(|s| s.predicted)
    }

    /// Proven: no chunk size of the range does better (None without a cost model).
    #[getter]
    fn seconds_lower_bound(&self) -> Option<f64> {
        self.seconds.as_ref().map(|s| s.lower_bound)
    }

    #[getter]
    fn model(&self) -> &'static str {
        self.inst.model.as_str()
    }

    /// Ports per slot (the same for every slot: the Python API gives one number).
    #[getter]
    fn ports(&self) -> Option<u32> {
        self.inst.ports().uniform()
    }

    /// The lower bounds of this instance under its own model, chunk size
    /// and ports, as JSON text (what `tickopt bounds --json` prints).
    #[pyo3(signature = (time_limit=None))]
    fn bounds(&self, py: Python<'_>, time_limit: Option<f64>) -> PyResult<String> {
        let limit = self::time_limit(time_limit)?;
        let inst = Arc::clone(&self.inst);
        detached(py, move || bounds_json(&inst, limit))
    }

    /// The witness of the lower bound, as JSON text.
    fn witness_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.sol.lower_bound.witness).map_err(value_error)
    }

    /// The `--summary` JSON of `tickopt solve` (no `instance` field: there is no file).
    fn summary_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.summary()).map_err(value_error)
    }

    /// The merged demands the instance holds, `(src, dst, bits)` sorted by pair.
    fn demands(&self) -> Vec<(u32, u32, u64)> {
        self.inst
            .demands()
            .iter()
            .map(|d| (d.src, d.dst, d.bits))
            .collect()
    }

    /// Every tick's chunks `(src, dst, len_bits)`.
    fn schedule(&self, py: Python<'_>) -> PyResult<Vec<Vec<(u32, u32, u64)>>> {
        detached(py, || {
            let mut ticks = Vec::new();
            let mut e = Expansion::new(&self.inst, &self.sol.schedule);
            while let Some(tick) = e.next_tick() {
                ticks.push(
                    tick.iter()
                        .map(|c| (c.src_slot, c.dst_slot, c.len_bits))
                        .collect(),
                );
            }
            Ok(ticks)
        })
    }

    /// Writes the schedule as `tickopt solve --out PATH --format FORMAT` does.
    fn write(&self, py: Python<'_>, path: PathBuf, format: &str) -> PyResult<()> {
        let format: Format = format.parse().map_err(PyValueError::new_err)?;
        detached(py, || {
            write_schedule_file(&self.inst, &self.sol.schedule, format, &path).map_err(
                |e| match e {
                    // Where the file cannot go (no directory, no permission, I/O).
                    WriteError::Io { .. } | WriteError::Output(_) => {
                        PyOSError::new_err(e.to_string())
                    }
                    WriteError::Invalid(_) => PyRuntimeError::new_err(e.to_string()),
                    WriteError::TooLarge { .. } => value_error(e),
                },
            )
        })
    }

    /// The checks of `tickopt verify` on this schedule and claim.
    fn verify(&self, py: Python<'_>) -> PyResult<bool> {
        detached(py, || {
            let report = validate_expanded(&self.inst, &self.sol.schedule);
            // The claim as `tickopt verify` reads it: from the summary JSON.
            let value = serde_json::to_value(self.summary()).map_err(value_error)?;
            let claim = Claim::from_value(value).map_err(value_error)?;
            let opts = VerifyOptions::default();
            Ok(report.passed() && verify_claim(&self.inst, &report, &claim, &opts).holds)
        })
    }

    /// Rank `rank`'s operations per tick, lowered by `tickopt::lower::p2p`:
    /// `(op, peer, byte_offset, nbytes)`.
    fn p2p(&self, py: Python<'_>, rank: i128) -> PyResult<P2pProgram> {
        let rank: u32 = to_uint(rank, "rank", "rank").map_err(value_error)?;
        detached(py, || {
            let layout = Layout::new(&self.inst).map_err(value_error)?;
            let program =
                lower_rank(&self.inst, &self.sol.schedule, &layout, rank).map_err(value_error)?;
            Ok(program
                .into_iter()
                .map(|tick| {
                    tick.into_iter()
                        .map(|o| (o.op.as_str(), o.peer, o.offset, o.bytes))
                        .collect()
                })
                .collect())
        })
    }

    /// Rank `rank`'s sends and receives, each in tick order, merged into
    /// messages (`tickopt::lower::dataflow`): two lists of
    /// `(peer, byte_offset, nbytes, first_tick)`.
    fn dataflow(&self, py: Python<'_>, rank: i128) -> PyResult<(FlowList, FlowList)> {
        let rank: u32 = to_uint(rank, "rank", "rank").map_err(value_error)?;
        detached(py, || {
            let layout = Layout::new(&self.inst).map_err(value_error)?;
            let flow = lower_dataflow_rank(&self.inst, &self.sol.schedule, &layout, rank)
                .map_err(value_error)?;
            let list = |ms: Vec<Message>| {
                ms.into_iter()
                    .map(|m| (m.peer, m.offset, m.bytes, m.first_tick))
                    .collect()
            };
            Ok((list(flow.sends), list(flow.recvs)))
        })
    }

    /// Predicted seconds of running the plan as dataflow
    /// (`tickopt::cost::dataflow`): `alpha_us` per message, `link_gbps`,
    /// or each rank's own rate (`rank_gbps`, one per slot, Gbit/s).
    #[pyo3(signature = (alpha_us, link_gbps, rank_gbps=None))]
    fn predict_dataflow_seconds(
        &self,
        py: Python<'_>,
        alpha_us: f64,
        link_gbps: f64,
        rank_gbps: Option<Vec<f64>>,
    ) -> PyResult<f64> {
        let cost = tickopt::cost::CostModel::new(alpha_us, link_gbps).map_err(value_error)?;
        if let Some(rates) = &rank_gbps {
            if rates.len() != self.inst.slots as usize {
                return Err(PyValueError::new_err(format!(
                    "rank_gbps has {} rates; the plan has {} ranks",
                    rates.len(),
                    self.inst.slots
                )));
            }
            if let Some((r, bad)) = rates
                .iter()
                .enumerate()
                .find(|(_, x)| !(x.is_finite() && **x > 0.0))
            {
                return Err(PyValueError::new_err(format!(
                    "rank_gbps[{r}] = {bad}: rates must be finite and above 0 Gbit/s"
                )));
            }
        }
        detached(py, || {
            let layout = Layout::new(&self.inst).map_err(value_error)?;
            let flows =
                tickopt::lower::dataflow::lower_dataflow(&self.inst, &self.sol.schedule, &layout)
                    .map_err(value_error)?;
            Ok(tickopt::cost::dataflow::predict_seconds(
                &flows,
                &cost,
                rank_gbps.as_deref(),
            ))
        })
    }

    /// Sizes in bytes of rank `rank`'s send and receive buffers (p2p layout).
    fn buffer_bytes(&self, rank: i128) -> PyResult<(u64, u64)> {
        let rank: u32 = to_uint(rank, "rank", "rank").map_err(value_error)?;
        if rank >= self.inst.slots {
            return Err(PyValueError::new_err(format!(
                "rank {rank} is not a slot of the instance ({} slots)",
                self.inst.slots
            )));
        }
        let layout = Layout::new(&self.inst).map_err(value_error)?;
        Ok((
            layout.send_buffer_bytes(rank),
            layout.recv_buffer_bytes(rank),
        ))
    }
}

/// `tickopt solve` on demands given as values.
// The arguments are the Python keyword signature, one for one.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (demands, bw, model, slots, ports, time_limit, solver, alpha_us=None, link_gbps=None, chunk=None, min_chunk=None, max_chunk=None))]
fn solve(
    py: Python<'_>,
    demands: Vec<PyDemand>,
    bw: i128,
    model: &str,
    slots: Option<i128>,
    ports: Option<i128>,
    time_limit: Option<f64>,
    solver: &str,
    alpha_us: Option<f64>,
    link_gbps: Option<f64>,
    chunk: Option<&str>,
    min_chunk: Option<i128>,
    max_chunk: Option<i128>,
) -> PyResult<NativeSolution> {
    // As `tickopt solve` keeps them for the compact form: equal
    // components' rounds once per class (what `write(.., "compact")`
    // stores as format v2); ticks, p2p and the expanded writers lay them
    // out (`Schedule::flat`).
    let request = SolveRequest {
        solver: solver_choice(solver)?,
        time_limit: self::time_limit(time_limit)?,
        keep_classes: true,
    };
    let inst = build_instance(&demands, bw, model, slots, ports).map_err(value_error)?;
    let auto_chunk = match chunk {
        None | Some("given") => false,
        Some("auto") => true,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "chunk must be \"auto\" or \"given\", got {other:?}"
            )))
        }
    };
    let cost = match (alpha_us, link_gbps) {
        (Some(a), Some(g)) => Some(tickopt::cost::CostModel::new(a, g).map_err(value_error)?),
        (None, None) => None,
        _ => {
            return Err(PyValueError::new_err(
                "alpha_us and link_gbps go together: give both (a tick lasts alpha + chunk_bits / rate)",
            ))
        }
    };
    let chunk_bits = |v: Option<i128>, name: &str| -> PyResult<Option<u64>> {
        v.map(|b| to_uint(b, name, name).map_err(value_error))
            .transpose()
    };
    let (min_chunk, max_chunk) = (
        chunk_bits(min_chunk, "min_chunk")?,
        chunk_bits(max_chunk, "max_chunk")?,
    );
    let Some(cost) = cost else {
        if auto_chunk || min_chunk.is_some() || max_chunk.is_some() {
            return Err(PyValueError::new_err(
                "chunk=\"auto\", min_chunk and max_chunk need a cost model: alpha_us and link_gbps",
            ));
        }
        return detached(py, move || {
            let sol = solve_instance(&inst, &request)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            Ok(NativeSolution {
                inst: Arc::new(inst),
                sol,
                seconds: None,
            })
        });
    };
    let req = tickopt::cost::SecondsRequest {
        cost,
        auto_chunk,
        min_chunk_bits: min_chunk,
        max_chunk_bits: max_chunk,
        odd_set_time: request.time_limit,
    };
    detached(py, move || {
        let r = tickopt::cost::solve_seconds(&inst, &req, &request).map_err(|e| match e {
            tickopt::cost::SecondsError::Engine(e) => PyRuntimeError::new_err(e.to_string()),
            other => value_error(other),
        })?;
        Ok(NativeSolution {
            inst: Arc::new(r.instance),
            sol: r.solution,
            seconds: Some(r.seconds),
        })
    })
}

/// `solve` on a traffic matrix given as `n * n` little-endian int64
/// (numpy's bytes): the planner's path (DESIGN.md §13), no demand list in
/// between. The bytes are read while the GIL is released.
#[pyfunction]
#[pyo3(signature = (matrix, n, bw, model, solver, time_limit))]
fn solve_matrix(
    py: Python<'_>,
    matrix: &[u8],
    n: i128,
    bw: i128,
    model: &str,
    solver: &str,
    time_limit: Option<f64>,
) -> PyResult<NativeSolution> {
    let frame = MatrixFrame::new(n, bw, model, solver, time_limit)?;
    detached(py, move || {
        let inst = frame.instance(matrix)?;
        // Classes kept as in `solve` (the planner's replans need ordinary
        // rounds, so its frame does not keep them).
        let request = SolveRequest {
            keep_classes: true,
            ..frame.request.clone()
        };
        let sol = solve_instance(&inst, &request).map_err(engine_error)?;
        Ok(NativeSolution {
            inst: Arc::new(inst),
            sol,
            seconds: None,
        })
    })
}

fn engine_error(e: tickopt::EngineError) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// The checked arguments of a matrix plan.
#[derive(Clone)]
struct MatrixFrame {
    n: u32,
    bw: u64,
    model: Model,
    request: SolveRequest,
}

impl MatrixFrame {
    fn new(
        n: i128,
        bw: i128,
        model: &str,
        solver: &str,
        time_limit: Option<f64>,
    ) -> PyResult<MatrixFrame> {
        let request = SolveRequest {
            solver: solver_choice(solver)?,
            time_limit: self::time_limit(time_limit)?,
            keep_classes: false,
        };
        let (n, bw, model) = matrix_args(n, bw, model)?;
        Ok(MatrixFrame {
            n,
            bw,
            model,
            request,
        })
    }

    fn instance(&self, matrix: &[u8]) -> PyResult<Instance> {
        tickopt::instance::dense::instance_from_matrix_le(self.model, self.n, self.bw, matrix)
            .map_err(value_error)
    }
}

/// The checked rank count, chunk bits and model of a dense-matrix call.
pub(crate) fn matrix_args(n: i128, bw: i128, model: &str) -> PyResult<(u32, u64, Model)> {
    let model: Model = model
        .parse()
        .map_err(|e: tickopt::instance::UnknownModel| value_error(e))?;
    let n: u32 = to_uint(n, "slots", "n").map_err(value_error)?;
    if bw <= 0 {
        return Err(value_error(
            "copy_bw_bits_per_tick: bandwidth per tick must be > 0",
        ));
    }
    let bw: u64 = to_uint(bw, "copy_bw_bits_per_tick", "bw").map_err(value_error)?;
    Ok((n, bw, model))
}

/// A planner for matrices of a fixed rank count that plans each from the
/// previous plan (`tickopt::solve::replan::Planner`, DESIGN.md §13).
#[pyclass(module = "tickopt._tickopt")]
struct NativePlanner {
    frame: MatrixFrame,
    planner: std::sync::Mutex<tickopt::solve::replan::Planner>,
    edited: std::sync::atomic::AtomicBool,
}

#[pymethods]
impl NativePlanner {
    #[new]
    #[pyo3(signature = (n, bw, model, solver, time_limit))]
    fn new(
        n: i128,
        bw: i128,
        model: &str,
        solver: &str,
        time_limit: Option<f64>,
    ) -> PyResult<NativePlanner> {
        let frame = MatrixFrame::new(n, bw, model, solver, time_limit)?;
        let planner = tickopt::solve::replan::Planner::new(frame.request.clone());
        Ok(NativePlanner {
            frame,
            planner: std::sync::Mutex::new(planner),
            edited: Default::default(),
        })
    }

    /// Plans `matrix` (`n * n` little-endian int64), from the previous plan
    /// when it can; the GIL is released.
    fn solve(&self, py: Python<'_>, matrix: &[u8]) -> PyResult<NativeSolution> {
        use std::sync::atomic::Ordering;
        detached(py, || {
            let mut planner = self
                .planner
                .lock()
                .map_err(|_| PyRuntimeError::new_err("the planner failed in another thread"))?;
            let f = &self.frame;
            let (inst, sol, kind) = planner
                .plan_matrix(f.model, f.n, f.bw, Cells::LeBytes(matrix))
                .map_err(|e| match e {
                    PlanError::Input(e) => value_error(e),
                    PlanError::Engine(e) => engine_error(e),
                })?;
            self.edited
                .store(kind == PlanKind::Edited, Ordering::Relaxed);
            Ok(NativeSolution {
                inst,
                sol,
                seconds: None,
            })
        })
    }

    /// Whether the last plan was made by editing the previous one.
    #[getter]
    fn last_edited(&self) -> bool {
        self.edited.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Forgets the previous plan.
    fn reset(&self) {
        if let Ok(mut p) = self.planner.lock() {
            p.reset();
        }
    }
}

/// The bounds `tickopt bounds --json` prints, as JSON text.
#[pyfunction]
#[pyo3(signature = (demands, bw, model, slots, ports, time_limit))]
fn bounds(
    py: Python<'_>,
    demands: Vec<PyDemand>,
    bw: i128,
    model: &str,
    slots: Option<i128>,
    ports: Option<i128>,
    time_limit: Option<f64>,
) -> PyResult<String> {
    let limit = self::time_limit(time_limit)?;
    let inst = build_instance(&demands, bw, model, slots, ports).map_err(value_error)?;
    detached(py, move || bounds_json(&inst, limit))
}

/// The bounds of `inst` (settled within `limit`) as JSON text.
fn bounds_json(inst: &Instance, limit: Option<Duration>) -> PyResult<String> {
    let g = DemandGraph::new(inst);
    let (b, _) = bounds_settled_until(inst, &g, limit.map(|l| Instant::now() + l));
    serde_json::to_string(&b).map_err(value_error)
}

/// The validator's errors (JSON text of a list; empty when valid) for a
/// schedule given as ticks of `(src, dst, len_bits)`.
#[pyfunction]
#[pyo3(signature = (demands, schedule, bw, model, slots, ports))]
fn validate(
    py: Python<'_>,
    demands: Vec<PyDemand>,
    schedule: Vec<Vec<(i128, i128, i128)>>,
    bw: i128,
    model: &str,
    slots: Option<i128>,
    ports: Option<i128>,
) -> PyResult<String> {
    let inst = build_instance(&demands, bw, model, slots, ports).map_err(value_error)?;
    detached(py, move || {
        let mut v = TickValidator::new(&inst);
        let mut raw = Vec::new();
        for tick in &schedule {
            raw.clear();
            raw.extend(
                tick.iter()
                    .map(|&(src, dst, len)| RawChunk::Chunk { src, dst, len }),
            );
            v.push_tick(&raw);
        }
        serde_json::to_string(&v.finish().errors).map_err(value_error)
    })
}

#[pymodule]
fn _tickopt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    keep_freed_memory();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<NativeSolution>()?;
    m.add_class::<NativePlanner>()?;
    m.add_class::<relay::NativeRelaySolution>()?;
    m.add_function(wrap_pyfunction!(relay::solve_relay, m)?)?;
    m.add_function(wrap_pyfunction!(relay::solve_relay_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(bounds, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    Ok(())
}
