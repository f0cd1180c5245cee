"""The runner under ``tickopt.torch``: plan a byte matrix, run one rank's ticks.

Both front ends use it: the all-to-all :class:`tickopt.torch.Plan` and the
remote-copy service (:mod:`tickopt._copy_service`). A plan is made in
*units*: bytes, or rows for an all-to-all planned in rows; the lowering
(``tickopt::lower::p2p`` through :meth:`tickopt.Solution.p2p`) then counts
offsets in the same units and :func:`run_ticks` scales them to bytes.

Imported by ``tickopt.torch`` after its check that torch is installed.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from . import Solution, solve

#: One rank's program: per tick, ``(op, peer, offset, count)`` in plan units.
Program = List[List[Tuple[str, int, int, int]]]


def group_size_rank(group: Any) -> Tuple[int, int]:
    return dist.get_world_size(group), dist.get_rank(group)


def global_rank(group: Any, peer: int) -> int:
    return peer if group is None else dist.get_global_rank(group, peer)


def as_bytes(t: "torch.Tensor") -> "torch.Tensor":
    """A flat uint8 view of a contiguous tensor."""
    return t.reshape(-1).view(torch.uint8)


def row_bytes_of(t: "torch.Tensor") -> int:
    """Bytes per row along dim 0: ``element_size()`` times the trailing numel."""
    n = t.element_size()
    for d in t.shape[1:]:
        n *= d
    return n


def plan_units(matrix: Sequence[Sequence[int]], model: str, chunk: Optional[int]) -> Solution:
    """The plan for a matrix of units (``matrix[s][d]`` units from s to d;
    the diagonal is copied locally and not planned). `chunk` (units per
    tick) defaults to the largest demand: one chunk per demand. The matrix
    goes to the planner as one int64 array (the fast path of
    :func:`tickopt.solve`, DESIGN.md §13), so planning per call stays cheap
    when splits change every step."""
    import numpy as np

    bits = np.array(matrix, dtype=np.int64).reshape(len(matrix), len(matrix)) * 8
    np.fill_diagonal(bits, 0)
    if chunk is None:
        chunk = max(int(bits.max()) // 8, 1) if bits.size else 1
    if chunk <= 0:
        raise ValueError(f"chunk size must be > 0, got {chunk}")
    return solve(bits, bw=chunk * 8, model=model)


def run_ticks(
    program: Program,
    send: "torch.Tensor",
    recv: "torch.Tensor",
    send_shift: Tuple[int, int],
    recv_shift: Tuple[int, int],
    group: Any,
    scale: int = 1,
) -> None:
    """Executes one rank's program on flat byte buffers, one
    ``batch_isend_irecv`` per tick (idle ticks skipped). Offsets and counts
    are in plan units, `scale` bytes each, in the p2p layout (no self
    part); `*_shift` = (rank, bytes of the self part) re-inserts it for
    buffers that hold one (all_to_all_single's). Every wait is bounded by
    the process group's timeout."""
    for tick in program:
        if not tick:
            continue
        ops = []
        for op, peer, off, n in tick:
            o, n = off * scale, n * scale
            if op == "send":
                o += send_shift[1] if peer > send_shift[0] else 0
                ops.append(dist.P2POp(dist.isend, send[o : o + n], global_rank(group, peer), group))
            else:
                o += recv_shift[1] if peer > recv_shift[0] else 0
                ops.append(dist.P2POp(dist.irecv, recv[o : o + n], global_rank(group, peer), group))
        for req in dist.batch_isend_irecv(ops):
            req.wait()
