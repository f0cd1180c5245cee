//! The relay half of the binding (issue 52): `solve_relay` plans an
//! instance on a two-tier machine (`tickopt::relay`) and returns a
//! `NativeRelaySolution`: the claim (ticks, bound and its name, the
//! certificate), the schedule, and the per-rank relay program a runner
//! executes (doc/python.md, "Relay programs").

use crate::{build_instance, detached, matrix_args, to_uint, value_error, PyDemand};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::OnceLock;
use tickopt::instance::Instance;
use tickopt::relay::check::{check_certificate, validate_relay};
use tickopt::relay::program::{relay_program, RelayProgram};
use tickopt::relay::{plan_relay, RelayError, RelaySolution, TwoTier};

#[pyclass(frozen, module = "tickopt._tickopt")]
pub(crate) struct NativeRelaySolution {
    inst: Instance,
    sol: RelaySolution,
    program: OnceLock<Result<RelayProgram, String>>,
}

impl NativeRelaySolution {
    fn program(&self) -> PyResult<&RelayProgram> {
        self.program
            .get_or_init(|| {
                relay_program(&self.inst, &self.sol.schedule).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.clone()))
    }

    fn rank(&self, rank: i128) -> PyResult<usize> {
        let r: u32 = to_uint(rank, "rank", "rank").map_err(value_error)?;
        if r >= self.inst.slots {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "rank {r} is not a slot of the instance ({} slots)",
                self.inst.slots
            )));
        }
        Ok(r as usize)
    }
}

#[pymethods]
impl NativeRelaySolution {
    #[getter]
    fn ticks(&self) -> u64 {
        self.sol.ticks
    }
    #[getter]
    fn lower_bound(&self) -> u64 {
        self.sol.lower_bound
    }
    /// The bound that binds: "node", "nvlink" or "lp".
    #[getter]
    fn bound(&self) -> &'static str {
        self.sol.binding().as_str()
    }
    #[getter]
    fn node_bound(&self) -> u64 {
        self.sol.node_bound
    }
    #[getter]
    fn nvlink_bound(&self) -> u64 {
        self.sol.nvlink_bound
    }
    #[getter]
    fn lp_bound(&self) -> Option<u64> {
        self.sol.lp_bound
    }
    #[getter]
    fn direct_ticks(&self) -> u64 {
        self.sol.direct_ticks
    }
    #[getter]
    fn slots(&self) -> u32 {
        self.inst.slots
    }
    #[getter]
    fn gpus_per_node(&self) -> u32 {
        self.sol.machine.gpus_per_node
    }
    #[getter]
    fn nvlink_speedup(&self) -> u32 {
        self.sol.machine.nvlink_speedup
    }
    #[getter]
    fn plan_seconds(&self) -> f64 {
        self.sol.plan_seconds
    }
    fn summary_json(&self) -> PyResult<String> {
        let s = self
            .sol
            .summary(self.inst.slots, self.inst.bw, self.inst.total_chunks());
        serde_json::to_string(&s).map_err(value_error)
    }
    fn schedule_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.sol.schedule.to_json()).map_err(value_error)
    }
    /// Re-validates the schedule and recomputes the certificate.
    fn verify(&self) -> bool {
        let tt = self.sol.machine;
        validate_relay(&self.inst, tt, &self.sol.schedule).is_ok()
            && check_certificate(&self.inst, tt, &self.sol.certificate) == Ok(self.sol.lower_bound)
    }
    /// Rank `rank`'s operations: `(op, peer, buffer, offset, bytes)`.
    fn relay_program(
        &self,
        rank: i128,
    ) -> PyResult<Vec<(&'static str, u32, &'static str, u64, u64)>> {
        let r = self.rank(rank)?;
        Ok(self.program()?.ops[r]
            .iter()
            .map(|o| (o.op.as_str(), o.peer, o.buffer.as_str(), o.offset, o.bytes))
            .collect())
    }
    /// Rank `rank`'s input, output and staging buffer sizes in bytes.
    fn buffer_bytes(&self, rank: i128) -> PyResult<(u64, u64, u64)> {
        let r = self.rank(rank)?;
        let p = self.program()?;
        Ok((p.input_bytes[r], p.output_bytes[r], p.stage_bytes[r]))
    }
}

/// Plans `demands` with relays on nodes of `gpus_per_node` GPUs whose
/// NVLink carries `nvlink_speedup` chunks per tick.
#[pyfunction]
#[pyo3(signature = (demands, bw, model, slots, gpus_per_node, nvlink_speedup))]
pub(crate) fn solve_relay(
    py: Python<'_>,
    demands: Vec<PyDemand>,
    bw: i128,
    model: &str,
    slots: Option<i128>,
    gpus_per_node: i128,
    nvlink_speedup: i128,
) -> PyResult<NativeRelaySolution> {
    let inst = build_instance(&demands, bw, model, slots, None).map_err(value_error)?;
    let tt = machine(gpus_per_node, nvlink_speedup)?;
    detached(py, move || plan(inst, tt))
}

/// `solve_relay` for a dense `n x n` matrix of bits as little-endian int64
/// bytes (numpy's, as `solve_matrix` takes it): no list of rows is built,
/// and the bytes are read while the GIL is released.
#[pyfunction]
#[pyo3(signature = (matrix, n, bw, model, gpus_per_node, nvlink_speedup))]
pub(crate) fn solve_relay_matrix(
    py: Python<'_>,
    matrix: &[u8],
    n: i128,
    bw: i128,
    model: &str,
    gpus_per_node: i128,
    nvlink_speedup: i128,
) -> PyResult<NativeRelaySolution> {
    let tt = machine(gpus_per_node, nvlink_speedup)?;
    let (n, bw, model) = matrix_args(n, bw, model)?;
    detached(py, move || {
        let inst = tickopt::instance::dense::instance_from_matrix_le(model, n, bw, matrix)
            .map_err(value_error)?;
        plan(inst, tt)
    })
}

/// The two-tier machine of the arguments (checked).
fn machine(gpus_per_node: i128, nvlink_speedup: i128) -> PyResult<TwoTier> {
    Ok(TwoTier {
        gpus_per_node: to_uint(gpus_per_node, "gpus_per_node", "gpus_per_node")
            .map_err(value_error)?,
        nvlink_speedup: to_uint(nvlink_speedup, "nvlink_speedup", "nvlink_speedup")
            .map_err(value_error)?,
    })
}

/// Plans `inst` on `tt` (solver errors as RuntimeError, bad input as
/// ValueError).
fn plan(inst: Instance, tt: TwoTier) -> PyResult<NativeRelaySolution> {
    let sol = plan_relay(&inst, tt).map_err(|e| match e {
        RelayError::Invalid(_) | RelayError::Lp { .. } => PyRuntimeError::new_err(e.to_string()),
        other => value_error(other),
    })?;
    Ok(NativeRelaySolution {
        inst,
        sol,
        program: OnceLock::new(),
    })
}
