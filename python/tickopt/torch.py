"""Run tickopt plans with ``torch.distributed``.

Every rank derives the same plan itself: the splits are exchanged with one
collective, then each rank solves the same instance locally (tickopt is
deterministic: the same demands give the same schedule byte for byte, on
every rank; the tests check it), so no plan is broadcast. Each process keeps
one :class:`tickopt.Planner` per group, so a step whose traffic changed a
little is planned by editing the last plan. The plan runs as dataflow
(DESIGN.md §14): this rank's sends and receives (lowered by
``tickopt::lower::dataflow`` through :meth:`tickopt.Solution.dataflow`) are
all posted at once, no transfer waiting for a tick boundary or another
transfer; consecutive chunks of one pair go as one message, and the local
part is copied while the network works. On a group whose last step ran as
dataflow, :func:`all_to_all_single` posts its data at once and exchanges
the splits beside it (:mod:`tickopt._ahead`: a round saved; the splits are
still checked and the step planned, while the data is on the wire).
``runner="ticks"`` runs the plan
tick by tick instead (one ``batch_isend_irecv`` per tick): on balanced
traffic, where every port carries about as much as the busiest, that keeps
each receiver to one sender at a time and beats everything-at-once, which
meets incast at every port together (:func:`choose_runner`, the default
``runner="auto"``, picks by the matrix); it is also how plans run on
backends other than gloo. The model defaults to READ1_WRITE1 (a port sends
one transfer and receives one at a time: full-duplex links) and the chunk
to :func:`tickopt._p2p_run.auto_chunk` (the busiest port's load over about
64 ticks; for a relayed plan its node bound's load over about 64 ticks,
:func:`tickopt._p2p_run.auto_chunk_relayed`). Only torch's own calls are used (gloo on CPU, NCCL on GPU), no
device code.

Buffers are viewed as bytes, so any dtype and trailing shape works and the
result is the bytes torch's ``all_to_all_single`` would deliver. An
all-to-all is planned in rows (splits count rows; the plan runs on rows of
any size, the same on every rank) or, given ``row_bytes``, in bytes. Waits
are bounded by the process group's timeout (``init_process_group(timeout=)``).

:class:`RemoteCopyService` is Megatron-LM's remote-copy shape (task ids,
byte positions and sizes) over the same runner; :class:`RemoteCopy` pairs
whole tensors by order.

torch is imported when this module is (``import tickopt`` alone never
imports it); without PyTorch installed, importing this module raises an
ImportError that says so.
"""

from __future__ import annotations

import atexit
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

try:
    import torch
    import torch.distributed as dist
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tickopt.torch needs PyTorch (torch.distributed): pip install torch; "
        "the rest of tickopt works without it"
    ) from e

from . import RelaySolution, Solution
from ._copy_service import RemoteCopy, RemoteCopyService
from ._ahead import all_to_all_ahead, settle
from ._p2p_run import (
    PLAN_STATS,
    as_bytes,
    gather_small,
    group_size_rank,
    plan_units,
    row_bytes_of,
    run_dataflow,
    run_relay,
    run_ticks,
    runs_dataflow,
)
from ._splits import arguments_key, exchange, problem

RUNNERS = ("auto", "dataflow", "ticks")

#: Per group: whether its last :func:`all_to_all_single` ran as dataflow,
#: so that the next one posts its data ahead of the split exchange
#: (:mod:`tickopt._ahead`). Every rank sets it from the same exchanged
#: matrix; any error clears it.
_AHEAD: Dict[Any, bool] = {}
# Dropped before the interpreter tears down, as the control groups are: a
# gloo group held past ``destroy_process_group`` aborts the process as it goes.
atexit.register(_AHEAD.clear)

#: ``runner="auto"`` runs tick by tick where no port carries more than this
#: times the ports' mean load (both directions), as dataflow otherwise.
#: Measured on the testbed (8 ranks x 100 Mbit/s, TCP cubic,
#: doc/performance.md "Executed"): on even splits (ratio 1.0) the
#: tick-by-tick runner took 0.82x torch's time and dataflow 0.94x; with
#: log-normal splits of sigma 0.15, 0.3 and 0.5 (no hot ranks) dataflow was
#: at torch's speed (0.99-1.01x) and tick by tick 1.08-1.12x slower.
BALANCED = 1.1


def port_seconds(rows: Sequence[Sequence[int]], rank_gbps: Optional[Sequence[float]] = None) -> List[float]:
    """Each rank's port time: the larger of what it sends and what it
    receives (the diagonal, copied locally, not counted) over its rate,
    `rank_gbps[r]` Gbit/s (seconds per unit of the matrix per Gbit/s
    without rates: every rank at 1)."""
    import numpy as np

    m = np.asarray(rows, dtype=np.float64)
    local = np.diagonal(m)
    load = np.maximum(m.sum(axis=1) - local, m.sum(axis=0) - local)
    rates = np.ones(len(m)) if rank_gbps is None else np.asarray(rank_gbps, dtype=np.float64)
    return (load * 8 / (rates * 1e9)).tolist()


def choose_runner(rows: Sequence[Sequence[int]], rank_gbps: Optional[Sequence[float]] = None) -> str:
    """The runner ``runner="auto"`` uses for a matrix of rows: ``"ticks"``
    for balanced traffic (no port's time over :data:`BALANCED` times the
    mean, at the ranks' rates where given: a tick waits for its slowest
    transfer), ``"dataflow"`` otherwise."""
    return runner_for_times(port_seconds(rows, rank_gbps))


def runner_for_times(times: Sequence[float]) -> str:
    """:func:`choose_runner` for the ports' times already computed."""
    if max(times, default=0) == 0:
        return "dataflow"
    return "ticks" if max(times) * len(times) <= BALANCED * sum(times) else "dataflow"

__all__ = ["Plan", "plan_all_to_all", "all_to_all_single", "plan_stats", "RemoteCopyService", "RemoteCopy"]


def plan_stats() -> Dict[str, int]:
    """This process's plans made through the groups' planners (``planned``),
    how many of them were made by editing the plan before (``edited``: a
    step whose traffic changed a little should count in both), and the
    :func:`all_to_all_single` steps that posted their data ahead of the
    split exchange (``ahead``: a group's steps after one run as dataflow)."""
    return dict(PLAN_STATS)


class Plan:
    """An all-to-all planned once and run many times (:func:`plan_all_to_all`).

    ``row_bytes`` is None for a plan in rows: it runs on tensors whose rows
    have the same size on every rank, checked collectively by each
    :meth:`run`. Otherwise the plan is in bytes, for rows of exactly
    ``row_bytes`` bytes, and :meth:`run` checks shapes locally.
    """

    def __init__(
        self,
        solution: Solution,
        rows: List[List[int]],
        row_bytes: Optional[int],
        group: Any,
        runner: str = "auto",
        rank_gbps: Optional[Sequence[float]] = None,
    ) -> None:
        if runner not in RUNNERS:
            raise ValueError(f"runner must be one of {', '.join(RUNNERS)}, got {runner!r}")
        self.solution = solution
        self.rank_gbps = None if rank_gbps is None else [float(x) for x in rank_gbps]
        times = port_seconds(rows, self.rank_gbps)
        # The dataflow runner posts everything at once, which gloo matches
        # by tag; other backends run tick by tick. A relay plan runs its
        # relay program (as dataflow too).
        if isinstance(solution, RelaySolution):
            self.runner = "relay"
        else:
            if runner == "auto":
                runner = runner_for_times(times)
            self.runner = runner if runs_dataflow(group) else "ticks"
        self.group = group
        self.world, self.rank = group_size_rank(group)
        self.row_bytes = row_bytes
        self.rows = rows
        r = self.rank
        self.input_split_sizes = [rows[r][d] for d in range(self.world)]
        self.output_split_sizes = [rows[s][r] for s in range(self.world)]
        if self.runner == "relay":
            self._program = solution.relay_program(r)
            self._stage = solution.buffer_bytes(r)[2]
        else:
            self._program = solution.dataflow(r) if self.runner == "dataflow" else solution.p2p(r)
        # Offsets in the plan's units: rows for a plan in rows, else bytes.
        unit = 1 if row_bytes is None else row_bytes
        self._in_off = sum(self.input_split_sizes[:r]) * unit
        self._out_off = sum(self.output_split_sizes[:r]) * unit
        self._local = rows[r][r] * unit
        #: The rank whose port bounds the step: the most bytes for its rate.
        self.bounding_rank = max(range(self.world), key=lambda q: (times[q], -q))
        #: The port bound in seconds (every port at its rate, ``rank_gbps``):
        #: no run is faster; None for a plan in rows or without rates.
        self.bound_seconds = (
            times[self.bounding_rank] * row_bytes if self.rank_gbps is not None and row_bytes is not None else None
        )

    @property
    def ticks(self) -> int:
        return self.solution.ticks

    def _check(self, name: str, t: "torch.Tensor", splits: List[int]) -> None:
        if t.dim() == 0 or t.shape[0] != sum(splits) or row_bytes_of(t) != self.row_bytes:
            raise ValueError(
                f"{name} has shape {tuple(t.shape)} and {row_bytes_of(t) if t.dim() else 0} "
                f"bytes per row; the plan needs {sum(splits)} rows of {self.row_bytes} bytes"
            )

    def _agree_on_rows(self, output: "torch.Tensor", input: "torch.Tensor") -> int:
        """For a plan in rows: every rank's row counts, row sizes and dtype
        agreement, exchanged as five integers from every rank, so
        that every rank raises the same ValueError on any mismatch (none is
        left waiting in a tick). Returns the bytes per row."""
        mine = torch.tensor(
            [
                input.shape[0] if input.dim() else -1,
                row_bytes_of(input),
                output.shape[0] if output.dim() else -1,
                row_bytes_of(output),
                int(output.dtype != input.dtype),
            ],
            dtype=torch.int64,
            device=input.device if input.device.type != "cpu" else None,
        )
        table = [g.cpu().tolist() for g in gather_small(mine, self.group)]
        problems = _row_problems(table, self.rows)
        if problems:
            raise ValueError("the plan in rows cannot run (on every rank): " + "; ".join(problems))
        return table[0][1]

    def run(self, output: "torch.Tensor", input: "torch.Tensor") -> "torch.Tensor":
        """Runs the plan: `output` receives what ``all_to_all_single`` would put there.

        A plan in rows first checks, collectively, that every rank's tensors
        have the planned rows and one row size (a few integers from every rank);
        a mismatch raises ValueError on every rank. A plan in bytes checks
        shapes locally before any communication: a rank whose check fails
        raises at once and the others wait for it until the process group's
        timeout (give every rank the shapes it planned).
        """
        if self.row_bytes is None:
            scale = self._agree_on_rows(output, input)
        else:
            self._check("input", input, self.input_split_sizes)
            self._check("output", output, self.output_split_sizes)
            if output.dtype != input.dtype:
                raise ValueError(f"output dtype {output.dtype} differs from input dtype {input.dtype}")
            scale = 1
        src = as_bytes(input.contiguous())
        out = output if output.is_contiguous() else torch.empty_like(output, memory_format=torch.contiguous_format)
        dst = as_bytes(out)
        local, i0, o0 = self._local * scale, self._in_off * scale, self._out_off * scale

        def copy_local() -> None:
            if local:
                dst[o0 : o0 + local].copy_(src[i0 : i0 + local])

        shift = (self.rank, local)
        if self.runner == "relay":
            stage = torch.empty(self._stage * scale, dtype=torch.uint8, device=dst.device)
            run_relay(self._program, src, dst, stage, (i0, local), (o0, local), self.group, scale, local=copy_local)
        elif self.runner == "dataflow":
            run_dataflow(self._program, src, dst, shift, shift, self.group, scale, local=copy_local)
        else:
            copy_local()
            run_ticks(self._program, src, dst, shift, shift, self.group, scale)
        if out is not output:
            output.copy_(out)
        return output


def _row_problems(table: List[List[int]], rows: List[List[int]]) -> List[str]:
    """What keeps a plan in rows from running, the same text on every rank:
    `table[r]` = rank r's (input rows, input row bytes, output rows, output
    row bytes, dtypes differ)."""
    world = len(table)
    problems = []
    for r, (n_in, _, n_out, _, dtype_differs) in enumerate(table):
        for name, n, need in (
            ("input", n_in, sum(rows[r])),
            ("output", n_out, sum(rows[s][r] for s in range(world))),
        ):
            if n != need:
                got = "no dimension" if n < 0 else f"{n} rows"
                problems.append(f"rank {r}: {name} has {got}, the plan needs {need}")
        if dtype_differs:
            problems.append(f"rank {r}: output and input differ in dtype")
    sizes = {t[1] for t in table} | {t[3] for t in table}
    if len(sizes) > 1:
        each = ", ".join(f"rank {r} {t[1]}/{t[3]}" for r, t in enumerate(table))
        problems.append(
            f"rows differ in size (bytes per input/output row: {each}); a plan in rows "
            "runs on rows of one size on every rank (dtype or trailing shape differ)"
        )
    return problems


def _even_splits(rows: int, world: int, name: str) -> List[int]:
    if rows % world:
        raise ValueError(f"{name} has {rows} rows, not divisible by the world size {world}")
    return [rows // world] * world


def _chunk_units(
    row_bytes: Optional[int], chunk_bytes: Optional[int], chunk_rows: Optional[int]
) -> Optional[int]:
    """The chunk in plan units (rows for a plan in rows, else bytes); None:
    one chunk per demand. Raises ValueError for arguments that do not fit."""
    if row_bytes is not None and row_bytes < 0:
        raise ValueError(f"row_bytes must be >= 0, got {row_bytes}")
    if chunk_bytes is not None and chunk_rows is not None:
        raise ValueError("give chunk_bytes or chunk_rows, not both")
    if chunk_bytes is not None and row_bytes is None:
        raise ValueError(
            "chunk_bytes needs row_bytes= (a plan in bytes); a plan in rows chunks in rows: chunk_rows="
        )
    chunk = chunk_bytes if chunk_rows is None else chunk_rows * (row_bytes or 1)
    if chunk is not None and chunk <= 0:
        raise ValueError(f"the chunk must be > 0, got {chunk_bytes if chunk_rows is None else chunk_rows}")
    return chunk


class _Checked(NamedTuple):
    """One rank's all-to-all arguments as they go into the split exchange."""

    ins: List[int]
    outs: Optional[List[int]]
    rank_gbps: Optional[Sequence[float]]
    chunk: Optional[int]  # in plan units; None: auto
    bad: Optional[str]  # this rank's refusal, or None


def _check_arguments(
    world: int,
    rank: int,
    input_split_sizes: Sequence[int],
    output_split_sizes: Optional[Sequence[int]],
    row_bytes: Optional[int],
    chunk_bytes: Optional[int],
    chunk_rows: Optional[int],
    rank_gbps: Optional[Sequence[float]],
    error: Optional[str],
) -> _Checked:
    """This rank's arguments checked; where it refuses (`bad`, with any
    local `error`), its splits are zeros and its rates None, so that it
    still takes part in the exchange and every rank raises."""
    ins = [int(x) for x in input_split_sizes]
    outs = None if output_split_sizes is None else [int(x) for x in output_split_sizes]
    bad, chunk = None, None
    try:
        chunk = _chunk_units(row_bytes, chunk_bytes, chunk_rows)
    except ValueError as e:
        bad = f"rank {rank}: {e}"
    if len(ins) != world or (outs is not None and len(outs) != world):
        bad = f"rank {rank}: split sizes need {world} entries"
    elif any(x < 0 for x in ins + (outs or [])):
        bad = f"rank {rank}: split sizes must be >= 0"
    if bad is None and rank_gbps is not None:
        try:
            ok = len(rank_gbps) == world and all(float(x) > 0 for x in rank_gbps)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            bad = f"rank {rank}: rank_gbps needs {world} rates in Gbit/s above 0, got {rank_gbps!r}"
    if bad is None and error is not None:
        bad = f"rank {rank}: {error}"
    if bad is not None:
        return _Checked([0] * world, [0] * world, None, chunk, bad)
    return _Checked(ins, outs, rank_gbps, chunk, None)


def plan_all_to_all(
    input_split_sizes: Sequence[int],
    output_split_sizes: Optional[Sequence[int]] = None,
    group: Any = None,
    *,
    model: str = "READ1_WRITE1",
    chunk_bytes: Optional[int] = None,
    row_bytes: Optional[int] = None,
    chunk_rows: Optional[int] = None,
    device: Any = None,
    runner: str = "auto",
    gpus_per_node: Optional[int] = None,
    nvlink_speedup: Optional[int] = None,
    rank_gbps: Optional[Sequence[float]] = None,
    _error: Optional[str] = None,
) -> Plan:
    """Plans an all-to-all (collective: every rank of `group` calls it).

    Splits count rows along dim 0. Without `row_bytes` the plan is made in
    rows (chunks of `chunk_rows` rows) and runs on tensors of any row size,
    the same on every rank (``Plan.run`` checks it collectively). With
    `row_bytes` (``element_size()`` times the trailing numel) it is made in
    bytes: `chunk_bytes` may cut rows, and runs take rows of exactly that
    size. The chunk defaults to the busiest port's load over about 64
    ticks, rounded up to a power of two (:func:`tickopt._p2p_run.auto_chunk`;
    relayed, the busiest NIC's share of its node's traffic or NVLink port's
    over about 64 ticks, :func:`tickopt._p2p_run.auto_chunk_relayed`).
    The model defaults to READ1_WRITE1 (full-duplex ports). `runner` is
    ``"dataflow"`` (every transfer posted at once), ``"ticks"`` (one
    ``batch_isend_irecv`` per tick) or ``"auto"`` (default: ticks on
    balanced traffic, dataflow otherwise; :func:`choose_runner`).
    Plans come from one :class:`tickopt.Planner` per group, so a step whose
    traffic changed a little is planned by editing the last plan. With
    `gpus_per_node` and `nvlink_speedup` (ranks in nodes of that many GPUs,
    group rank r on node r // gpus_per_node, NVLink carrying that many
    chunks per tick each way) chunks may be relayed through GPUs of their
    nodes (:class:`tickopt.RelaySolution`, issue 52); the plan runs its
    relay program, forwarding chunks in transit from a staging buffer.
    `rank_gbps` (each rank's link rate in Gbit/s, both ways; the same on
    every rank) tells the plan which ports are slow: ``runner="auto"``
    weighs each port's bytes by its rate, and the plan's
    ``bounding_rank`` and ``bound_seconds`` name the port that bounds the
    step and its time (relayed plans assume equal NICs).
    One exchange (a message from every rank to every rank; ``all_gather``
    off gloo) shares every rank's splits and arguments; every rank then
    solves the same instance locally. Splits that do not agree
    between ranks (what r sends to p is not what p expects from r), or
    ranks that differ in row size, chunk or model, raise ValueError on
    every rank. `device` is where the exchange tensor lives (the NCCL
    device; default CPU).
    """
    world, rank = group_size_rank(group)
    ins, outs, rank_gbps, chunk, bad = _check_arguments(
        world, rank, input_split_sizes, output_split_sizes, row_bytes, chunk_bytes, chunk_rows, rank_gbps, _error
    )
    table = exchange(
        ins, outs, row_bytes, chunk, arguments_key(model, runner, gpus_per_node, nvlink_speedup, rank_gbps),
        False, bad is not None, group, device,
    )
    why = problem(table, bad)
    if why is not None:
        settle(table, group)
        raise ValueError(why)
    rows = [t[:world] for t in table]
    unit = 1 if row_bytes is None else row_bytes
    relays = None if gpus_per_node is None and nvlink_speedup is None else (gpus_per_node, nvlink_speedup)
    sol = plan_units(
        [[rows[s][d] * unit for d in range(world)] for s in range(world)], model, chunk, key=("a2a", group),
        relays=relays,
    )
    return Plan(sol, rows, row_bytes, group, runner, rank_gbps)


def all_to_all_single(
    output: "torch.Tensor",
    input: "torch.Tensor",
    output_split_sizes: Optional[Sequence[int]] = None,
    input_split_sizes: Optional[Sequence[int]] = None,
    group: Any = None,
    *,
    model: str = "READ1_WRITE1",
    chunk_bytes: Optional[int] = None,
    runner: str = "auto",
    gpus_per_node: Optional[int] = None,
    nvlink_speedup: Optional[int] = None,
    rank_gbps: Optional[Sequence[float]] = None,
) -> "torch.Tensor":
    """``torch.distributed.all_to_all_single``, executed as a tickopt plan
    (plans, through the group's planner, then runs once as dataflow; see the
    module docs; :func:`plan_all_to_all` plans once to run many times)."""
    world, _ = group_size_rank(group)
    # A local mistake travels with the splits, so every rank raises (none
    # waits in a tick for a rank that gave up).
    error = None
    try:
        if input.dim() == 0 or output.dim() == 0:
            raise ValueError("input and output need at least one dimension")
        if input_split_sizes is None:
            input_split_sizes = _even_splits(input.shape[0], world, "input")
        if output_split_sizes is None:
            output_split_sizes = _even_splits(output.shape[0], world, "output")
        for name, t, splits in (("input", input, input_split_sizes), ("output", output, output_split_sizes)):
            if len(splits) == world and t.shape[0] != sum(int(x) for x in splits):
                raise ValueError(f"{name} has {t.shape[0]} rows but its splits sum to {sum(splits)}")
        if output.dtype != input.dtype or row_bytes_of(output) != row_bytes_of(input):
            raise ValueError(
                f"output ({output.dtype}, rows of {row_bytes_of(output)} bytes) does not match "
                f"input ({input.dtype}, rows of {row_bytes_of(input)} bytes)"
            )
    except ValueError as e:
        error = str(e)
        input_split_sizes = output_split_sizes = [0] * world
    key = group if group is not None else dist.group.WORLD
    # (Any other runner, relays or an unknown one, takes the planned path,
    # which refuses an unknown runner on every rank with one message.)
    ahead = _AHEAD.get(key, False) and runner in ("auto", "dataflow") and gpus_per_node is None and nvlink_speedup is None
    try:
        if ahead:
            ran = _all_to_all_ahead(
                output, input, input_split_sizes, output_split_sizes, group, model, chunk_bytes, runner,
                rank_gbps, error,
            )
        else:
            plan = plan_all_to_all(
                input_split_sizes,
                output_split_sizes,
                group,
                model=model,
                chunk_bytes=chunk_bytes,
                row_bytes=row_bytes_of(input),
                runner=runner,
                gpus_per_node=gpus_per_node,
                nvlink_speedup=nvlink_speedup,
                rank_gbps=rank_gbps,
                device=input.device if input.device.type != "cpu" else None,
                _error=error,
            )
            plan.run(output, input)
            ran = plan.runner
    except BaseException:
        _AHEAD.pop(key, None)
        raise
    _AHEAD[key] = ran == "dataflow"
    return output


def _all_to_all_ahead(
    output: "torch.Tensor",
    input: "torch.Tensor",
    input_split_sizes: Sequence[int],
    output_split_sizes: Sequence[int],
    group: Any,
    model: str,
    chunk_bytes: Optional[int],
    runner: str,
    rank_gbps: Optional[Sequence[float]],
    error: Optional[str],
) -> str:
    """One step of :func:`all_to_all_single` with its data posted ahead of
    the split exchange (:mod:`tickopt._ahead`); returns the runner the
    step's matrix calls for (the next step's path)."""
    world, rank = group_size_rank(group)
    row_bytes = row_bytes_of(input)
    ins, outs, rank_gbps, chunk, bad = _check_arguments(
        world, rank, input_split_sizes, output_split_sizes, row_bytes, chunk_bytes, None, rank_gbps, error
    )
    src = as_bytes(input.contiguous())
    out = output if output.is_contiguous() else torch.empty_like(output, memory_format=torch.contiguous_format)
    rows = all_to_all_ahead(
        as_bytes(out), src, ins, outs, row_bytes, chunk,
        arguments_key(model, runner, None, None, rank_gbps), bad, model, group,
        device=input.device if input.device.type != "cpu" else None,
    )
    if out is not output:
        output.copy_(out)
    return runner if runner == "dataflow" else runner_for_times(port_seconds(rows, rank_gbps))
