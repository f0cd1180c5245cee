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
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

if TYPE_CHECKING:
    import numpy as np

from . import Planner, Solution, solve

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

#: One planner per (group key, ranks, model, chunk): a step whose traffic
#: changed a little is planned by editing the last plan (DESIGN.md §13).
_PLANNERS: Dict[Tuple[Any, int, str, int], Planner] = {}


#: Plans made through the planners (per process), and how many of them by
#: editing the one before (:func:`tickopt.torch.plan_stats`).
PLAN_STATS = {"planned": 0, "edited": 0}


def auto_chunk(units: "np.ndarray") -> int:
    """The default chunk, in plan units, for a matrix of units (diagonal
    zero): the busiest port's load over :data:`TARGET_TICKS`, rounded up to
    a power of two (so that steps whose traffic changes a little keep one
    chunk, and one planner). Under the dataflow runner consecutive chunks of
    a pair travel as one message, and a last chunk that is short costs its
    bytes, not a tick (DESIGN.md §14)."""
    busiest = max(int(units.sum(axis=1).max(initial=0)), int(units.sum(axis=0).max(initial=0)), 1)
    want = max(-(-busiest // TARGET_TICKS), 1)
    return 1 << (want - 1).bit_length()


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
    :class:`tickopt.RelaySolution` (issue 52; no planner keeps those yet)."""
    import numpy as np

    units = np.array(matrix, dtype=np.int64).reshape(len(matrix), len(matrix))
    np.fill_diagonal(units, 0)
    if chunk is None:
        chunk = auto_chunk(units)
    if chunk <= 0:
        raise ValueError(f"chunk size must be > 0, got {chunk}")
    bits = units * 8
    if relays is not None:
        return solve(bits, bw=chunk * 8, model=model, gpus_per_node=relays[0], nvlink_speedup=relays[1])
    if key is None:
        return solve(bits, bw=chunk * 8, model=model)
    n = len(units)
    slot = (key, n, model, chunk)
    PLAN_STATS["planned"] += 1
    planner = _PLANNERS.get(slot)
    if planner is None:
        # One planner per group, ranks and model: a new chunk replaces it.
        for old in [k for k in _PLANNERS if k[:3] == slot[:3]]:
            del _PLANNERS[old]
        planner = _PLANNERS[slot] = Planner(n, bw=chunk * 8, model=model)
    solution = planner.solve(bits)
    PLAN_STATS["edited"] += int(planner.last_edited)
    return solution


#: One rank's flow: its sends and its receives in order, each message
#: ``(peer, offset, count, first_tick)`` in plan units (:meth:`Solution.dataflow`).
Flow = Tuple[List[Tuple[int, int, int, int]], List[Tuple[int, int, int, int]]]


#: Tags of the runner's control messages: a receiver's "clear to send",
#: its "received", and the split exchange (:func:`gather_small`).
CTS_TAG, ACK_TAG, SPLITS_TAG = 0x7E1, 0x7E2, 0x7E3

#: A message of more than twice this goes as a body and a tail of this
#: many bytes; its handshakes overlap the tail (:func:`run_dataflow`).
TAIL_BYTES = 64 * 1024

#: Messages each port of the dataflow runner has under way: a receiver
#: clears this many ahead, a sender has this many not yet received. 1 keeps
#: the plan's order exactly; 2 (measured on the testbed: no faster) lets
#: the next message start while the current one ends.
WINDOW = 1

#: Per data group, the gloo group its control messages travel on.
_CONTROL: Dict[Any, Any] = {}
# Dropped before the interpreter tears down: a gloo group that outlives
# ``destroy_process_group`` until then aborts the process as it goes.
atexit.register(_CONTROL.clear)


def control_group(group: Any) -> Any:
    """A second gloo group over `group`'s ranks for the runner's control
    messages (made once, collectively, by `group`'s ranks alone). gloo
    keeps one TCP connection per pair and group, and a note queued behind
    megabytes of data on it would arrive only after them: on connections
    of their own, the notes overtake the data."""
    key = group if group is not None else dist.group.WORLD
    cg = _CONTROL.get(key)
    if cg is None:
        ranks = None if group is None else dist.get_process_group_ranks(group)
        cg = _CONTROL[key] = dist.new_group(ranks=ranks, backend="gloo", use_local_synchronization=True)
    return cg


def uses_handshakes(group: Any) -> bool:
    """Whether :func:`run_dataflow` runs on `group`'s backend: gloo (sends
    complete into socket buffers). Other backends run tick by tick."""
    return dist.get_backend(group) == "gloo"


def gather_small(mine: "torch.Tensor", group: Any) -> List["torch.Tensor"]:
    """Every rank's `mine` (a few integers), in rank order of `group`: on
    gloo by one direct message to every peer on :func:`control_group`'s
    connections (one round, where gloo's ``all_gather`` passes the data
    around a ring), elsewhere by ``all_gather``."""
    world, rank = group_size_rank(group)
    out = [torch.empty_like(mine) for _ in range(world)]
    if not uses_handshakes(group):
        dist.all_gather(out, mine, group=group)
        return out
    cg = control_group(group)
    out[rank].copy_(mine)
    works = []
    for p in range(world):
        if p != rank:
            works.append(dist.irecv(out[p], global_rank(group, p), group=cg, tag=SPLITS_TAG))
            works.append(dist.isend(mine, global_rank(group, p), group=cg, tag=SPLITS_TAG))
    for w in works:
        w.wait()
    return out


def byte_range(off: int, n: int, peer: int, shift: Tuple[int, int], scale: int) -> Tuple[int, int]:
    """(byte offset, bytes) of a p2p-layout operation with `peer` in a
    buffer that holds the self part: `shift` = (this rank, the self
    part's bytes), inserted before the parts of higher ranks."""
    o = off * scale + (shift[1] if peer > shift[0] else 0)
    return o, n * scale


def split_tail(n: int) -> int:
    """Bytes of a message of `n` bytes that travel as its tail (0: none).
    Both ends compute it from the size alone, so they agree."""
    return TAIL_BYTES if n > 2 * TAIL_BYTES else 0


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
    """Executes one rank's flow on flat byte buffers as dataflow
    (DESIGN.md §14): each transfer waits only for its own sender's and
    receiver's earlier transfers in the plan's order, never for a tick
    boundary (the lists follow the plan's ticks, so the order is acyclic
    and cannot deadlock). `local` (the self part's copy) runs while the
    network works.

    Runtimes complete a send as soon as its bytes sit in socket buffers
    (gloo's TCP buffers hold megabytes), so a sender that moved on at
    once would share its link among several messages, and a receiver
    would take bytes from senders it is not yet receiving from: the plan's
    order would be lost and the busiest port slowed. So each message comes
    with a small handshake: the receiver sends "clear to send" when it is
    ready for it, the sender sends once the receiver cleared it and its
    own earlier message was received (the receiver's "received" note).
    Each link then carries one message at a time, in the plan's order
    (:data:`WINDOW` messages at a time in general). So
    that the handshakes cost no idle time, a message of more than
    2 x :data:`TAIL_BYTES` goes as a body and a tail: the receiver notes
    "received" and clears its next message as soon as the body is in, and
    the next message starts while the tail is still on the wire. The notes
    travel on :func:`control_group`'s connections, so none waits behind
    data. The lists are short (chunks of a pair merge, see
    ``tickopt::lower::dataflow``): a few notes per message.

    Offsets and counts are in plan units, `scale` bytes each, in the p2p
    layout (no self part); `*_shift` = (rank, bytes of the self part)
    re-inserts it for buffers that hold one. Every wait is bounded by the
    process group's timeout; an error on either side is raised here after
    both sides stopped."""
    sends, recvs = flow

    def views(msgs, buf, shift):
        out = []
        for peer, off, n, _ in msgs:
            o, n = byte_range(off, n, peer, shift, scale)
            cut = n - split_tail(n)
            out.append((global_rank(group, peer), buf[o : o + cut], buf[o + cut : o + n]))
        return out

    outgoing = views(sends, send, send_shift)
    incoming = views(recvs, recv, recv_shift)
    errors: List[BaseException] = []
    device = send.device if send.numel() else recv.device
    notes_group = control_group(group)
    me = dist.get_rank()

    def failed(e: BaseException, doing: str, peer: Optional[int]) -> BaseException:
        if not isinstance(e, Exception) or peer is None:
            return e
        err = RuntimeError(f"tickopt.torch: rank {me} stopped while {doing} rank {peer}: {e}")
        err.__cause__ = e
        return err

    def send_all() -> None:
        peer = None
        try:
            note = torch.empty(1, dtype=torch.uint8, device=device)
            tails, unacked = [], collections.deque()
            for peer, body, tail in outgoing:
                dist.irecv(note, peer, group=notes_group, tag=CTS_TAG).wait()
                works = [dist.isend(body, peer, group=group)]
                if tail.numel():
                    works.append(dist.isend(tail, peer, group=group))
                works[0].wait()
                tails.extend((peer, w) for w in works[1:])
                unacked.append(peer)
                if len(unacked) >= WINDOW:
                    peer = unacked.popleft()
                    dist.irecv(note, peer, group=notes_group, tag=ACK_TAG).wait()
            while unacked:
                peer = unacked.popleft()
                dist.irecv(note, peer, group=notes_group, tag=ACK_TAG).wait()
            for peer, w in tails:
                w.wait()
        except BaseException as e:  # raised in the caller once both sides stopped
            errors.append(failed(e, "sending to", peer))

    def receive_all() -> None:
        notes = []
        peer = None
        try:
            note = torch.zeros(1, dtype=torch.uint8, device=device)
            for nxt, _, _ in incoming[:WINDOW]:
                notes.append((nxt, dist.isend(note, nxt, group=notes_group, tag=CTS_TAG)))
            for k, (peer, body, tail) in enumerate(incoming):
                # Posted in the order sent: receives of one peer match in order.
                first = dist.irecv(body, peer, group=group)
                rest = dist.irecv(tail, peer, group=group) if tail.numel() else None
                first.wait()
                notes.append((peer, dist.isend(note, peer, group=notes_group, tag=ACK_TAG)))
                if k + WINDOW < len(incoming):
                    nxt = incoming[k + WINDOW][0]
                    notes.append((nxt, dist.isend(note, nxt, group=notes_group, tag=CTS_TAG)))
                if rest is not None:
                    rest.wait()
            for peer, w in notes:
                w.wait()
        except BaseException as e:
            errors.append(failed(e, "receiving from", peer))

    sender = threading.Thread(target=send_all, name="tickopt-send", daemon=True)
    sender.start()
    try:
        if local is not None:
            local()
        receive_all()
    finally:
        sender.join()
    if errors:
        raise errors[0]


#: One rank's relay program (:meth:`tickopt.RelaySolution.relay_program`):
#: ``(op, peer, buffer, offset, count)``, buffer ``input``/``output``/``stage``.
RelayProgram = List[Tuple[str, int, str, int, int]]


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
    """Executes one rank's relay program (issue 52): its operations in
    order, a send posted without waiting (gloo buffers it), a receive waited
    for before the next operation, so a chunk in transit is forwarded from
    the staging buffer only after it arrived there. Every rank following its
    list this way cannot deadlock (the planner's order: each receive's send
    comes earlier in its sender's list). Offsets count plan units, `scale`
    bytes each, in the p2p layout of the input and output (no self part);
    `*_shift` = (the self part's offset, its bytes) re-inserts it. Waits
    are bounded by the process group's timeout; an error names this rank
    and the peer it was at."""
    me = dist.get_rank()
    buffers = {"input": (send, send_shift), "output": (recv, recv_shift), "stage": (stage, (0, 0))}
    sends = []
    peer = None
    try:
        if local is not None:
            local()
        for op, peer, buf, off, n in program:
            t, (self_at, self_bytes) = buffers[buf]
            o, n = off * scale, n * scale
            if buf != "stage" and o >= self_at:
                o += self_bytes
            view = t[o : o + n]
            if op == "send":
                sends.append((peer, dist.isend(view, global_rank(group, peer), group=group)))
            else:
                dist.irecv(view, global_rank(group, peer), group=group).wait()
        for peer, w in sends:
            w.wait()
    except Exception as e:
        raise RuntimeError(f"tickopt.torch: rank {me} stopped at a relay step with rank {peer}: {e}") from e


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
