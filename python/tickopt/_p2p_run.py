"""The runner under ``tickopt.torch``: plan a matrix, run one rank's part as dataflow.

Both front ends use it: the all-to-all :class:`tickopt.torch.Plan` and the
remote-copy service (:mod:`tickopt._copy_service`). A plan is made in
*units*: bytes, or rows for an all-to-all planned in rows; the lowering
(``tickopt::lower::dataflow`` through :meth:`tickopt.Solution.dataflow`)
then counts offsets in the same units and :func:`run_dataflow` scales
them to bytes. :func:`run_ticks` runs the per-tick lowering (one
``batch_isend_irecv`` per tick), kept as the baseline the dataflow
runner is measured against.

Imported by ``tickopt.torch`` after its check that torch is installed.
"""

from __future__ import annotations

import atexit
import collections
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

if TYPE_CHECKING:
    import numpy as np

from . import Planner, solve

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


#: The default chunk aims at about this many ticks on the busiest port
#: (see :func:`auto_chunk`). Messages stay few however small the chunk
#: (consecutive chunks merge), but each switch of peer at a port is a
#: handshake and a dependency; on the testbed 64 ran a little faster than
#: 1,024 (doc/performance.md, "Executed").
TARGET_TICKS = 64

#: One planner per (group key, ranks, model, relays, chunk): a step whose
#: traffic changed a little is planned by editing the last plan (DESIGN.md
#: §13; relay plans are planned afresh, :class:`tickopt.Planner`).
_PLANNERS: Dict[Tuple[Any, int, str, Optional[Tuple[int, int]], int], Planner] = {}


#: Plans made through the planners (per process), how many of them by
#: editing the one before, and the all-to-all steps run with their data
#: posted ahead of the split exchange (:func:`tickopt.torch.plan_stats`).
PLAN_STATS = {"planned": 0, "edited": 0, "ahead": 0}


def auto_chunk(units: "np.ndarray") -> int:
    """The default chunk, in plan units, for a matrix of units (diagonal
    zero): the busiest port's load over :data:`TARGET_TICKS`, rounded up to
    a power of two (so that steps whose traffic changes a little keep one
    chunk, and one planner). Under the dataflow runner consecutive chunks of
    a pair travel as one message, and a last chunk that is short costs its
    bytes, not a tick (DESIGN.md §14)."""
    return chunk_for_load(max(int(units.sum(axis=1).max(initial=0)), int(units.sum(axis=0).max(initial=0))))


def chunk_for_load(load: float) -> int:
    """`load` (units on the port that bounds the plan) over
    :data:`TARGET_TICKS`, rounded up to a power of two (at least 1)."""
    want = max(-(-max(int(load), 1) // TARGET_TICKS), 1)
    return 1 << (want - 1).bit_length()


def auto_chunk_relayed(units: "np.ndarray", gpus_per_node: int, nvlink_speedup: int) -> int:
    """The default chunk of a relayed plan (issue 52), in plan units: the
    relays' own bound over :data:`TARGET_TICKS`, rounded up to a power of
    two. That bound is the busiest node's NIC share (its inter-node bytes
    out or in over its G NICs) or the busiest rank's NVLink share (its
    bytes to and from its node over `nvlink_speedup`), whichever is
    larger: a third of the busiest direct port on hot-rank traffic, so
    :func:`auto_chunk` would leave a relayed step ~20 ticks, and each
    NIC's bytes then vary by whole chunks (measured on the two-tier
    testbed: 1.33-1.45x the node bound at 1 MiB chunks, ~5% less time at
    256 KiB, doc/performance.md "Relays on the two-tier testbed")."""
    import numpy as np

    from .workloads import node_nic_load

    node = np.arange(len(units)) // gpus_per_node
    local = units * (node[:, None] == node[None, :])
    nvlink = max(float(local.sum(axis=1).max(initial=0)), float(local.sum(axis=0).max(initial=0))) / max(
        nvlink_speedup, 1
    )
    return chunk_for_load(max(node_nic_load(units, gpus_per_node), nvlink))


def plan_units(
    matrix: Sequence[Sequence[int]],
    model: str,
    chunk: Optional[int],
    key: Any = None,
    relays: Optional[Tuple[int, int]] = None,
) -> Any:
    """The plan for a matrix of units (``matrix[s][d]`` units from s to d;
    the diagonal is copied locally and not planned). `chunk` (units per
    tick) defaults to :func:`auto_chunk`. With a `key` (one per process
    group) the plan comes from that key's :class:`tickopt.Planner`, which
    re-plans by edits when the chunk stays; without one, from
    :func:`tickopt.solve`. Either way the matrix goes to the planner as one
    int64 array (DESIGN.md §13). `relays` = (GPUs per node, NVLink
    speedup) plans with relays through GPUs of each node and returns a
    :class:`tickopt.RelaySolution` (issue 52; the key's planner plans
    those afresh every step)."""
    import numpy as np

    units = np.array(matrix, dtype=np.int64).reshape(len(matrix), len(matrix))
    np.fill_diagonal(units, 0)
    if chunk is None:
        relayed = relays is not None and None not in relays
        chunk = auto_chunk_relayed(units, relays[0], relays[1]) if relayed else auto_chunk(units)
    if chunk <= 0:
        raise ValueError(f"chunk size must be > 0, got {chunk}")
    bits = units * 8
    g, rho = (None, None) if relays is None else relays
    if key is None:
        return solve(bits, bw=chunk * 8, model=model, gpus_per_node=g, nvlink_speedup=rho)
    n = len(units)
    slot = (key, n, model, relays, chunk)
    planner = _PLANNERS.get(slot)
    if planner is None:
        # One planner per group, ranks, model and machine: a new chunk replaces it.
        for old in [k for k in _PLANNERS if k[:4] == slot[:4]]:
            del _PLANNERS[old]
        planner = Planner(n, bw=chunk * 8, model=model, gpus_per_node=g, nvlink_speedup=rho)
        _PLANNERS[slot] = planner
    PLAN_STATS["planned"] += 1
    solution = planner.solve(bits)
    PLAN_STATS["edited"] += int(planner.last_edited)
    return solution


#: One rank's flow: its sends and its receives in order, each message
#: ``(peer, offset, count, first_tick)`` in plan units (:meth:`Solution.dataflow`).
Flow = Tuple[List[Tuple[int, int, int, int]], List[Tuple[int, int, int, int]]]


#: Tag of the split exchange (:func:`gather_small`) on the control group.
SPLITS_TAG = 0x7E3

#: Tags of plan messages: the k-th message from one rank to another travels
#: with tag ``MESSAGE_TAG + k`` (both ends count it in plan order), so that
#: a message posted late (a relay's forward) still meets its own receive.
MESSAGE_TAG = 0x10000

#: Most threads a rank forwards relayed chunks on (:func:`execute`).
FORWARD_THREADS = 64

#: Per data group, the gloo group its control messages travel on.
_CONTROL: Dict[Any, Any] = {}
# Dropped before the interpreter tears down: a gloo group that outlives
# ``destroy_process_group`` until then aborts the process as it goes.
atexit.register(_CONTROL.clear)


def control_group(group: Any) -> Any:
    """A second gloo group over `group`'s ranks for the split exchange
    (made once, collectively, by `group`'s ranks alone). gloo keeps one TCP
    connection per pair and group, and a few integers queued behind
    megabytes of a step still in flight would arrive only after them: on
    connections of their own, they overtake the data."""
    key = group if group is not None else dist.group.WORLD
    cg = _CONTROL.get(key)
    if cg is None:
        ranks = None if group is None else dist.get_process_group_ranks(group)
        cg = _CONTROL[key] = dist.new_group(ranks=ranks, backend="gloo", use_local_synchronization=True)
    return cg


def runs_dataflow(group: Any) -> bool:
    """Whether :func:`run_dataflow` runs on `group`'s backend: gloo, whose
    point-to-point operations may be posted in any number and order and
    match by tag. Other backends (NCCL pairs operations by the order of
    ``batch_isend_irecv`` calls) run tick by tick."""
    return dist.get_backend(group) == "gloo"


def gather_small(mine: "torch.Tensor", group: Any) -> List["torch.Tensor"]:
    """Every rank's `mine` (a few integers), in rank order of `group`: on
    gloo by one direct message to every peer on :func:`control_group`'s
    connections (one round, where gloo's ``all_gather`` passes the data
    around a ring), elsewhere by ``all_gather``. A failed wait on gloo
    raises :class:`PeerError` naming the peer."""
    world, rank = group_size_rank(group)
    out = [torch.empty_like(mine) for _ in range(world)]
    if not runs_dataflow(group):
        dist.all_gather(out, mine, group=group)
        return out
    cg = control_group(group)
    out[rank].copy_(mine)
    works = []
    for p in range(world):
        if p != rank:
            works.append((p, dist.irecv(out[p], global_rank(group, p), group=cg, tag=SPLITS_TAG)))
            works.append((p, dist.isend(mine, global_rank(group, p), group=cg, tag=SPLITS_TAG)))
    for p, w in works:
        try:
            w.wait()
        except RuntimeError as e:
            raise PeerError(p, e) from e
    return out


class PeerError(RuntimeError):
    """A wait with one peer failed: `peer` (group rank) is the rank lost, or
    the one whose message did not come within the group's timeout."""

    def __init__(self, peer: int, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.peer = peer


def byte_range(off: int, n: int, peer: int, shift: Tuple[int, int], scale: int) -> Tuple[int, int]:
    """(byte offset, bytes) of a p2p-layout operation with `peer` in a
    buffer that holds the self part: `shift` = (this rank, the self
    part's bytes), inserted before the parts of higher ranks."""
    o = off * scale + (shift[1] if peer > shift[0] else 0)
    return o, n * scale


#: One rank's relay program (:meth:`tickopt.RelaySolution.relay_program`):
#: ``(op, peer, buffer, offset, count)``, buffer ``input``/``output``/``stage``.
RelayProgram = List[Tuple[str, int, str, int, int]]


#: One operation as :func:`execute` takes it: ``(op, peer, bytes, stage)``,
#: op ``"send"``/``"recv"``, `bytes` a view of the buffer, `stage` the
#: staging offset of a chunk in transit (None for input and output).
Operation = Tuple[str, int, "torch.Tensor", Optional[int]]


def run_dataflow(
    flow: Flow,
    send: "torch.Tensor",
    recv: "torch.Tensor",
    send_shift: Tuple[int, int],
    recv_shift: Tuple[int, int],
    group: Any,
    scale: int = 1,
    local: Optional[Callable[[], None]] = None,
) -> None:
    """Executes one rank's flow of a direct plan (:meth:`Solution.dataflow`:
    its sends and receives in the plan's order) as dataflow
    (:func:`execute`). Offsets and counts are in plan units, `scale` bytes
    each, in the p2p layout (no self part); `*_shift` = (rank, bytes of the
    self part) re-inserts it for buffers that hold one."""
    sends, recvs = flow
    ops: List[Operation] = []
    for op, msgs, buf, shift in (("recv", recvs, recv, recv_shift), ("send", sends, send, send_shift)):
        for peer, off, n, _ in msgs:
            o, n = byte_range(off, n, peer, shift, scale)
            ops.append((op, peer, buf[o : o + n], None))
    execute(ops, group, local)


def run_relay(
    program: RelayProgram,
    send: "torch.Tensor",
    recv: "torch.Tensor",
    stage: "torch.Tensor",
    send_shift: Tuple[int, int],
    recv_shift: Tuple[int, int],
    group: Any,
    scale: int = 1,
    local: Optional[Callable[[], None]] = None,
) -> None:
    """Executes one rank's relay program (issue 52) as dataflow
    (:func:`execute`): chunks in transit wait in `stage`. Offsets count
    plan units, `scale` bytes each, in the p2p layout of the input and
    output (no self part); `*_shift` = (the self part's offset, its bytes)
    re-inserts it."""
    buffers = {"input": (send, send_shift), "output": (recv, recv_shift), "stage": (stage, (0, 0))}
    ops: List[Operation] = []
    for op, peer, buf, off, n in program:
        t, (self_at, self_bytes) = buffers[buf]
        o, n = off * scale, n * scale
        if buf != "stage" and o >= self_at:
            o += self_bytes
        ops.append((op, peer, t[o : o + n], o if buf == "stage" else None))
    execute(ops, group, local)


def execute(
    ops: Sequence[Operation],
    group: Any,
    local: Optional[Callable[[], None]] = None,
    posted: Sequence[Tuple[str, int, Any]] = (),
) -> None:
    """Runs one rank's operations as dataflow (DESIGN.md §14): every
    receive is posted at once (into the output, or into the staging buffer
    for a chunk in transit), so is every send of the rank's own input, and
    each forward (a send from the staging buffer) is posted as soon as the
    receive that brings its chunk has completed. No transfer waits for a
    tick, a barrier or a handshake: the plan decides the routes and how
    much each port carries, the links the pace (TCP shares a link among the
    messages on it; measured on the testbed, holding messages back to keep
    the plan's order at each port cost more in idle links than it saved,
    doc/performance.md "Executed"). A rank's NIC and NVLink work side by
    side, and a chunk moves on as soon as it arrived.

    Messages match by their number between the two ranks
    (:data:`MESSAGE_TAG`), both ends counting in program order (the k-th
    send from r to p is the k-th receive at p from r). A receive waits
    only for its send, and a forward only for a receive whose send comes
    earlier in the plan: it cannot deadlock. `local` (the self part's
    copy) runs while the network works. Waits are bounded by the process
    group's timeout; an error names this rank and the peer it waited for.
    `posted`: operations already posted (``(doing, peer, work)``, e.g.
    ``("receiving from", 3, work)``), waited for with the rest."""
    me = dist.get_rank()
    sent: Dict[int, int] = collections.Counter()
    received: Dict[int, int] = collections.Counter()
    waits, forwards = list(posted), []
    arrivals: Dict[int, Tuple[int, Any]] = {}  # stage offset -> (sender, the receive that fills it)
    doing, peer = "posting to", None
    try:
        for op, peer, view, stage in ops:
            to = global_rank(group, peer)
            if op == "recv":
                work = dist.irecv(view, to, group=group, tag=MESSAGE_TAG + received[peer])
                received[peer] += 1
                if stage is None:
                    waits.append(("receiving from", peer, work))
                else:
                    arrivals[stage] = (peer, work)
                continue
            tag = MESSAGE_TAG + sent[peer]
            sent[peer] += 1
            if stage is None:
                waits.append(("sending to", peer, dist.isend(view, to, group=group, tag=tag)))
            else:
                forwards.append((peer, to, view, tag, stage))
        for dest, to, view, tag, stage in forwards:
            if stage not in arrivals:
                raise RuntimeError(f"the relay program forwards stage bytes at {stage} that no receive fills")

        def forward(item):
            # gloo completes a receive once: each is waited for once, here.
            dest, to, view, tag, stage = item
            source, arrival = arrivals[stage]
            try:
                arrival.wait()
            except Exception as e:
                return ("receiving (to forward) from", source, e)
            return ("sending to", dest, dist.isend(view, to, group=group, tag=tag))

        # Each forward goes as soon as its own chunk arrived, whatever the
        # order of the others' (a thread each, blocked in gloo without the GIL).
        pool = ThreadPoolExecutor(max_workers=min(len(forwards), FORWARD_THREADS)) if forwards else None
        try:
            posted = pool.map(forward, forwards) if pool is not None else []  # all submitted now
            if local is not None:
                local()
            for doing, peer, work in posted:
                if isinstance(work, Exception):
                    raise work
                waits.append((doing, peer, work))
        finally:
            if pool is not None:
                pool.shutdown()
        for doing, peer, work in waits:
            work.wait()
    except Exception as e:
        raise RuntimeError(f"tickopt.torch: rank {me} stopped while {doing} rank {peer}: {e}") from e


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
            buf, shift, post = (send, send_shift, dist.isend) if op == "send" else (recv, recv_shift, dist.irecv)
            o, n = byte_range(off, n, peer, shift, scale)
            ops.append(dist.P2POp(post, buf[o : o + n], global_rank(group, peer), group))
        for req in dist.batch_isend_irecv(ops):
            req.wait()
