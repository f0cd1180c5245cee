"""tickopt: optimal, proven data-transfer schedules, from Python.

The planner you import: :func:`solve` runs the same engine as
``tickopt solve`` (the Rust library, called directly: no subprocess, no
temporary files) and returns a :class:`Solution`. ``tickopt.torch`` runs
the plans with ``torch.distributed`` (imported lazily: this module works
without torch).

Demands are an iterable of ``(src, dst, bits)`` tuples (a 4-tuple adds a
per-demand bandwidth in bits per tick), or a square matrix given as nested
lists or a 2-D array, entry ``[i][j]`` = bits from i to j (diagonal zero,
zero entries are no demand). Tuples are demands; lists and arrays are
matrix rows.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _tickopt
from ._relay import RelaySolution, solve_relay, solve_relay_matrix

__all__ = [
    "Solution", "RelaySolution", "Schedule", "Planner", "solve", "bounds", "validate", "demands_from", "__version__",
]
__version__: str = _tickopt.__version__

Demand = Tuple[int, int, int, Optional[int]]


def _as_int(value: Any, where: str) -> int:
    """An exact integer (numpy integers included), or ValueError naming `where`."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected an integer, got {value!r}")
    try:
        import operator

        return operator.index(value)
    except TypeError:
        raise ValueError(f"{where}: expected an integer, got {value!r}") from None


def _is_matrix(demands: Any) -> bool:
    ndim = getattr(demands, "ndim", None)
    if ndim is not None:
        if ndim != 2:
            raise ValueError(f"demand matrix must be 2-D, got {ndim} dimension(s)")
        return True
    return False


def demands_from(demands: Any) -> Tuple[List[Demand], Optional[int]]:
    """Normalises `demands` to ``(src, dst, bits, bw or None)`` tuples and,
    for a matrix, its size (the number of slots)."""
    if _is_matrix(demands):
        rows = demands.tolist()
    else:
        rows = list(demands)
        if not rows or not all(isinstance(r, list) or hasattr(r, "tolist") for r in rows):
            return [_demand_tuple(d, i) for i, d in enumerate(rows)], None
        rows = [r.tolist() if hasattr(r, "tolist") else r for r in rows]
    n = len(rows)
    out: List[Demand] = []
    for i, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(
                f"demand matrix is not square: row {i} has {len(row)} entries, expected {n}"
            )
        for j, v in enumerate(row):
            bits = _as_int(v, f"matrix[{i}][{j}]")
            if bits < 0:
                raise ValueError(f"matrix[{i}][{j}]: bits must be >= 0, got {bits}")
            if i == j and bits != 0:
                raise ValueError(
                    f"matrix[{i}][{i}]: src_slot equals dst_slot ({i}); the diagonal must be 0"
                )
            if bits:
                out.append((i, j, bits, None))
    return out, n


def _demand_tuple(d: Any, i: int) -> Demand:
    if not isinstance(d, tuple) or len(d) not in (3, 4):
        raise ValueError(
            f"demands[{i}]: expected a (src, dst, bits) or (src, dst, bits, bw) tuple, got {d!r}"
        )
    src = _as_int(d[0], f"demands[{i}].src_slot")
    dst = _as_int(d[1], f"demands[{i}].dst_slot")
    bits = _as_int(d[2], f"demands[{i}].bits_total")
    bw = _as_int(d[3], f"demands[{i}].copy_bw_bits_per_tick") if len(d) == 4 else None
    return (src, dst, bits, bw)


def _matrix_bytes(matrix: Any) -> Optional[Tuple[bytes, int]]:
    """A 2-D integer array (numpy, or anything ``numpy.asarray`` takes: a
    CPU torch tensor) as ``n * n`` little-endian int64 bytes and ``n``;
    None for other inputs (nested lists, tuples), which take the general
    path. The planner's fast input: no Python object per entry."""
    if getattr(matrix, "ndim", None) != 2:
        return None
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy-like input without numpy
        return None
    a = np.asarray(matrix)
    if a.shape[0] != a.shape[1]:
        raise ValueError(
            f"demand matrix is not square: {a.shape[0]} rows of {a.shape[1]} entries"
        )
    if a.dtype.kind not in "iu":
        raise ValueError(f"demand matrix entries must be integers (bits), got dtype {a.dtype}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError("demand matrix entries must fit in int64")
    return np.ascontiguousarray(a, dtype="<i8").tobytes(), int(a.shape[0])


def _frame(demands: Any, bw: Any, slots: Any, ports: Any):
    rows, n = demands_from(demands)
    if slots is None:
        slots = n
    return (
        rows,
        _as_int(bw, "bw"),
        None if slots is None else _as_int(slots, "slots"),
        None if ports is None else _as_int(ports, "ports"),
    )


class Schedule(list):
    """A solution's ticks: a list with one list per tick of ``(src, dst,
    len_bits)``, that carries what it was solved under (``model``, ``bw``
    the chunk size in bits, ``slots``, ``ports``), so that :func:`validate`
    checks it under them unless told otherwise. Compares equal to a plain
    list of the same ticks."""

    __slots__ = ("model", "bw", "slots", "ports")

    def __init__(
        self,
        ticks: Iterable[List[Tuple[int, int, int]]],
        *,
        model: str,
        bw: int,
        slots: int,
        ports: Optional[int],
    ) -> None:
        super().__init__(ticks)
        self.model, self.bw, self.slots, self.ports = model, bw, slots, ports

    def __repr__(self) -> str:
        return (
            f"Schedule({len(self)} ticks, model={self.model!r}, bw={self.bw}, "
            f"slots={self.slots}, ports={self.ports})"
        )


class Solution:
    """A solved instance: the library's ``Solution`` and its instance.

    ``ticks``, ``lower_bound``, ``status`` (``optimal``,
    ``optimal_exhaustive``, ``within_one``, ``feasible``: the CLI's names)
    and ``witness`` are the claim; ``schedule`` the ticks themselves.
    """

    __slots__ = ("_native", "_schedule")

    def __init__(self, native: "_tickopt.NativeSolution") -> None:
        self._native = native
        self._schedule: Optional[Schedule] = None

    @property
    def ticks(self) -> int:
        return self._native.ticks

    @property
    def lower_bound(self) -> int:
        return self._native.lower_bound

    @property
    def status(self) -> str:
        return self._native.status

    @property
    def model(self) -> str:
        return self._native.model

    @property
    def slots(self) -> int:
        return self._native.slots

    @property
    def ports(self) -> Optional[int]:
        """Ports per slot (1 unless solved with ``ports=``)."""
        return self._native.ports

    @property
    def chunk_bits(self) -> int:
        """The schedule's chunk size in bits (chosen with ``chunk="auto"``)."""
        return self._native.chunk_bits

    @property
    def seconds_predicted(self) -> Optional[float]:
        """Ticks x tick time under the cost model; None without one."""
        return self._native.seconds_predicted

    @property
    def seconds_lower_bound(self) -> Optional[float]:
        """Proven: no chunk size in the range does better; None without a cost model."""
        return self._native.seconds_lower_bound

    @property
    def witness(self) -> Dict[str, Any]:
        return json.loads(self._native.witness_json())

    @property
    def demands(self) -> List[Tuple[int, int, int]]:
        """The merged demands, sorted by (src, dst): the order of the p2p layout."""
        return self._native.demands()

    @property
    def schedule(self) -> Schedule:
        """One list per tick of ``(src, dst, len_bits)``; ``len == ticks``.
        A :class:`Schedule`: it carries this solution's model, chunk size,
        slots and ports, which :func:`validate` uses by default."""
        if self._schedule is None:
            self._schedule = Schedule(
                self._native.schedule(),
                model=self.model,
                bw=self.chunk_bits,
                slots=self.slots,
                ports=self.ports,
            )
        return self._schedule

    def bounds(self, time_limit: Optional[float] = None) -> Dict[str, Any]:
        """The lower bounds of this solution's instance under its own model,
        chunk size and ports: what ``tickopt bounds --json`` prints."""
        tl = None if time_limit is None else float(time_limit)
        return json.loads(self._native.bounds(tl))

    def summary(self) -> Dict[str, Any]:
        """The ``--summary`` JSON of ``tickopt solve``, as a dict."""
        return json.loads(self._native.summary_json())

    def write(self, path: "os.PathLike[str] | str", format: str = "json") -> None:
        """Writes the schedule (``json``, ``csv`` or ``compact``) atomically."""
        self._native.write(os.fspath(path), format)

    def verify(self) -> bool:
        """True when the checks of ``tickopt verify`` pass."""
        return self._native.verify()

    def p2p(self, rank: int) -> List[List[Tuple[str, int, int, int]]]:
        """Rank `rank`'s operations, one list per tick, each
        ``(op, peer, byte_offset, nbytes)`` (``tickopt::lower::p2p``)."""
        return self._native.p2p(_as_int(rank, "rank"))

    def dataflow(self, rank: int) -> Tuple[List[Tuple[int, int, int, int]], List[Tuple[int, int, int, int]]]:
        """Rank `rank`'s sends and its receives, each in tick order, as
        messages ``(peer, byte_offset, nbytes, first_tick)``
        (``tickopt::lower::dataflow``): consecutive chunks of a demand are
        one message when both its ends do nothing between them. Each
        transfer needs only its own two ends (no tick boundary); the k-th
        send from r to p is the k-th receive at p from r, so a runner may
        post them all at once, matched by that number (``tickopt.torch``
        does)."""
        return self._native.dataflow(_as_int(rank, "rank"))

    def predict_dataflow_seconds(
        self, alpha_us: float, link_gbps: float, rank_gbps: Optional[Sequence[float]] = None
    ) -> float:
        """Seconds the plan takes run as dataflow (:meth:`dataflow`), each
        message costing `alpha_us` microseconds plus its bytes over
        `link_gbps` gigabits per second, one message per link at a time in
        the plan's order (``tickopt::cost::dataflow``: a model, not a
        bound). `rank_gbps` (one rate per rank, Gbit/s) puts each rank's
        link at its own rate, a message at the slower of its ends'."""
        rates = None if rank_gbps is None else [float(x) for x in rank_gbps]
        return self._native.predict_dataflow_seconds(float(alpha_us), float(link_gbps), rates)

    def buffer_bytes(self, rank: int) -> Tuple[int, int]:
        """Sizes of rank `rank`'s send and receive buffers in the p2p layout."""
        return self._native.buffer_bytes(_as_int(rank, "rank"))

    def __repr__(self) -> str:
        return (
            f"Solution(model={self.model!r}, slots={self.slots}, ticks={self.ticks}, "
            f"lower_bound={self.lower_bound}, status={self.status!r})"
        )


def solve(
    demands: Any,
    *,
    bw: Optional[int] = None,
    model: str = "STRICT1",
    slots: Optional[int] = None,
    ports: Optional[int] = None,
    time_limit: Optional[float] = None,
    solver: str = "auto",
    alpha_us: Optional[float] = None,
    link_gbps: Optional[float] = None,
    chunk: Optional[str] = None,
    min_chunk: Optional[int] = None,
    max_chunk: Optional[int] = None,
    gpus_per_node: Optional[int] = None,
    nvlink_speedup: Optional[int] = None,
) -> "Solution | RelaySolution":
    """Optimal schedule for `demands` (see the module docs), as ``tickopt solve``.

    `slots` defaults to the matrix size, else the largest slot + 1.
    With a cost model (`alpha_us`: per-tick overhead in microseconds,
    `link_gbps`: link rate in gigabits per second) the solution carries
    ``seconds_predicted`` and ``seconds_lower_bound``; ``chunk="auto"``
    chooses the chunk size (whole bytes between `min_chunk` and `max_chunk`
    bits) that minimises predicted seconds, and then `bw` may be left out.
    With `gpus_per_node` and `nvlink_speedup` (nodes of that many GPUs
    whose NVLink carries that many chunks per tick each way) chunks may be
    relayed through GPUs of their nodes, and the result is a
    :class:`RelaySolution` (READ1_WRITE1 only; STRICT1 is refused).
    Raises ValueError for bad input, with the CLI's message.
    """
    if gpus_per_node is not None or nvlink_speedup is not None:
        if bw is None:
            raise ValueError("bw is required (bits per chunk) for a relay plan")
        if (ports, alpha_us, link_gbps, chunk, min_chunk, max_chunk) != (None,) * 6:
            raise ValueError("relay plans take no ports, cost model or chunk choice yet")
        dense = _matrix_bytes(demands) if slots is None else None
        if dense is not None:
            # The dense matrix straight to the planner (no list of rows).
            return solve_relay_matrix(dense, _as_int(bw, "bw"), str(model), gpus_per_node, nvlink_speedup)
        rows, rbw, rslots, _ = _frame(demands, bw, slots, None)
        return solve_relay(rows, rbw, str(model), rslots, gpus_per_node, nvlink_speedup)
    if bw is None:
        if chunk != "auto":
            raise ValueError("bw is required (bits per chunk), unless chunk=\"auto\" chooses it")
        bw = 8
    plain = (slots, ports, alpha_us, link_gbps, chunk, min_chunk, max_chunk) == (None,) * 7
    dense = _matrix_bytes(demands) if plain else None
    if dense is not None:
        tl = None if time_limit is None else float(time_limit)
        return Solution(
            _tickopt.solve_matrix(dense[0], dense[1], _as_int(bw, "bw"), str(model), str(solver), tl)
        )
    rows, bw, slots, ports = _frame(demands, bw, slots, ports)
    tl = None if time_limit is None else float(time_limit)
    return Solution(
        _tickopt.solve(
            rows,
            bw,
            str(model),
            slots,
            ports,
            tl,
            str(solver),
            None if alpha_us is None else float(alpha_us),
            None if link_gbps is None else float(link_gbps),
            None if chunk is None else str(chunk),
            None if min_chunk is None else _as_int(min_chunk, "min_chunk"),
            None if max_chunk is None else _as_int(max_chunk, "max_chunk"),
        )
    )


class Planner:
    """Plans for traffic matrices of a fixed rank count, one per step
    (DESIGN.md §13): ``Planner(64, bw=8192, model="READ1_WRITE1").solve(m)``.

    `solve` takes an ``n x n`` integer matrix of bits (numpy array, CPU
    torch tensor or nested lists) and returns a :class:`Solution` with the
    same guarantees as :func:`solve`: READ1_WRITE1 at Delta (König), STRICT1
    optimal when its status says so. The planner remembers its last plan
    and plans the next matrix by editing it (chunks that went away come
    out, new ones go into free ticks or ticks freed by alternating paths);
    the edited schedule is validated like every other, and when an edit
    cannot reach the degree bound the plan is made from scratch.
    ``last_edited`` says which happened; ``reset()`` forgets the last plan.
    The GIL is released while it plans.

    With `gpus_per_node` and `nvlink_speedup` (as :func:`solve` takes
    them: nodes of that many GPUs, NVLink carrying that many chunks per
    tick each way) `solve` returns a :class:`RelaySolution`, planned
    afresh every step (no edits of relay plans yet: ``last_edited`` stays
    False). The machine is checked when the planner is made (an empty
    matrix planned on it), so a planner that cannot plan says why before
    its first step: READ1_WRITE1 only, `gpus_per_node` dividing `ranks`.
    """

    __slots__ = ("ranks", "bw", "model", "solver", "gpus_per_node", "nvlink_speedup", "_native")

    def __init__(
        self,
        ranks: int,
        *,
        bw: int,
        model: str = "STRICT1",
        solver: str = "auto",
        gpus_per_node: Optional[int] = None,
        nvlink_speedup: Optional[int] = None,
    ) -> None:
        self.ranks = _as_int(ranks, "ranks")
        if self.ranks <= 0:
            raise ValueError(f"ranks must be > 0, got {self.ranks}")
        self.bw = _as_int(bw, "bw")
        self.model = str(model)
        self.solver = str(solver)
        self.gpus_per_node, self.nvlink_speedup = gpus_per_node, nvlink_speedup
        if gpus_per_node is None and nvlink_speedup is None:
            self._native = _tickopt.NativePlanner(self.ranks, self.bw, self.model, self.solver, None)
            return
        if self.solver != "auto":
            raise ValueError(f"relay plans have one planner: solver must be 'auto', got {self.solver!r}")
        self._native = None
        self._solve_relays((bytes(8 * self.ranks * self.ranks), self.ranks))

    def _solve_relays(self, dense: Tuple[bytes, int]) -> RelaySolution:
        return solve_relay_matrix(dense, self.bw, self.model, self.gpus_per_node, self.nvlink_speedup)

    @property
    def last_edited(self) -> bool:
        """Whether the last plan was made by editing the one before."""
        return False if self._native is None else self._native.last_edited

    def reset(self) -> None:
        """Forgets the last plan: the next one is made from scratch."""
        if self._native is not None:
            self._native.reset()

    def solve(self, matrix: Any) -> "Solution | RelaySolution":
        dense = _matrix_bytes(matrix)
        if dense is None:
            rows, n = demands_from(matrix)
            if n is None:
                raise ValueError("Planner.solve takes an n x n matrix (array or nested lists)")
            data = bytearray()
            import struct

            m = [[0] * n for _ in range(n)]
            for s_, d_, b_, _ in rows:
                m[s_][d_] = b_
            for row in m:
                data += struct.pack(f"<{n}q", *row)
            dense = (bytes(data), n)
        if dense[1] != self.ranks:
            raise ValueError(f"matrix is {dense[1]} x {dense[1]}; this planner plans {self.ranks} ranks")
        if self._native is None:
            return self._solve_relays(dense)
        return Solution(self._native.solve(dense[0]))

    def __repr__(self) -> str:
        relays = (
            ""
            if self._native is not None
            else f", gpus_per_node={self.gpus_per_node}, nvlink_speedup={self.nvlink_speedup}"
        )
        return f"Planner(ranks={self.ranks}, bw={self.bw}, model={self.model!r}, solver={self.solver!r}{relays})"


def bounds(
    demands: Any,
    *,
    bw: int,
    model: str = "STRICT1",
    slots: Optional[int] = None,
    ports: Optional[int] = None,
    time_limit: Optional[float] = None,
) -> Dict[str, Any]:
    """The lower bounds ``tickopt bounds --json`` prints, each with its witness."""
    rows, bw, slots, ports = _frame(demands, bw, slots, ports)
    tl = None if time_limit is None else float(time_limit)
    return json.loads(_tickopt.bounds(rows, bw, str(model), slots, ports, tl))


def validate(
    demands: Any,
    schedule: Iterable[Sequence[Tuple[int, int, int]]],
    *,
    bw: Optional[int] = None,
    model: Optional[str] = None,
    slots: Optional[int] = None,
    ports: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """The validator's errors for `schedule` (ticks of ``(src, dst, len_bits)``); empty when valid.

    A :class:`Schedule` (``Solution.schedule``) is checked under the model,
    chunk size, slots and ports it was solved under; each argument given
    overrides its own (passing another model is explicit). A plain list of
    ticks is checked under `model` (default ``STRICT1``) and needs `bw`.
    """
    if isinstance(schedule, Schedule):
        model = schedule.model if model is None else model
        bw = schedule.bw if bw is None else bw
        slots = schedule.slots if slots is None else slots
        ports = schedule.ports if ports is None else ports
    if bw is None:
        raise ValueError("bw is required (bits per chunk) for a schedule that is not a Solution's")
    model = "STRICT1" if model is None else model
    rows, bw, slots, ports = _frame(demands, bw, slots, ports)
    ticks = []
    for t, tick in enumerate(schedule):
        chunks = []
        for k, c in enumerate(tick):
            if len(c) != 3:
                raise ValueError(f"schedule[{t}][{k}]: expected (src, dst, len_bits), got {c!r}")
            chunks.append(tuple(_as_int(x, f"schedule[{t}][{k}]") for x in c))
        ticks.append(chunks)
    return json.loads(_tickopt.validate(rows, ticks, bw, str(model), slots, ports))
