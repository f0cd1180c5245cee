"""Remote copies planned by tickopt, in Megatron-LM's ``RemoteCopyService`` shape.

Megatron-LM (``megatron/core/resharding/nvshmem_copy_service/service.py``)
moves resharded weights with ``register_send(task_id, src_tensor, src_pos,
size, dest_pe)`` and ``register_receive(task_id, dest_tensor, dest_pos,
size, src_pe)``: positions and sizes in bytes from the tensor's first
byte; a receive from rank s pairs with the send of rank s to this rank that
has the same task id. ``schedule()`` plans once (collective), ``run()``
moves the bytes as often as needed, ``clear_requests()`` starts over.
:class:`RemoteCopyService` keeps that shape and plans with tickopt: every
rank gathers every rank's registrations (one ``all_gather_object``), pairs
them, solves the same byte matrix and runs its own ticks through the
runner of ``tickopt.torch`` (:mod:`tickopt._p2p_run`). :class:`RemoteCopy`
is the older, whole-tensor front end: the k-th send from s to d pairs with
the k-th receive of d from s, i.e. task id k of that pair.

Every mistake raises on every rank: a bad registration (rank out of the
group, bytes past the end of the tensor) is kept and reported by
``schedule()``, together with unpaired task ids and sizes that differ, so
no rank waits for a partner that will not come.
"""

from __future__ import annotations

import operator
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.distributed as dist

from . import Solution, _as_int
from ._p2p_run import as_bytes, group_size_rank, plan_units, run_dataflow, run_ticks, runs_dataflow

#: How many problems a refused ``schedule()`` spells out.
_SHOWN = 12


class _Request(NamedTuple):
    """One registration: `peer` is the destination of a send, the source of
    a receive; `label` is the dtype that :class:`RemoteCopy` also pairs on
    (None for byte registrations)."""

    task_id: int
    tensor: "torch.Tensor"
    pos: int
    size: int
    peer: int
    label: Optional[str]


def _request(
    names: Tuple[str, str, str],
    task_id: Any,
    tensor: Any,
    pos: Any,
    size: Any,
    peer: Any,
    world: int,
    receive: bool,
    by_dtype: bool,
) -> _Request:
    """A checked registration; ValueError says which argument is wrong.
    `names` = the tensor's, position's and peer's argument names; `size`
    None means the tensor's bytes from `pos` to its end; `by_dtype` keeps
    the dtype to pair on."""
    t_name, pos_name, peer_name = names
    tid = _as_int(task_id, "task_id")
    if not isinstance(tensor, torch.Tensor):
        raise ValueError(f"{t_name}: expected a torch.Tensor, got {type(tensor).__name__}")
    if receive and not tensor.is_contiguous():
        raise ValueError(f"{t_name} must be contiguous (the bytes land in its storage)")
    nbytes = tensor.numel() * tensor.element_size()
    pos = _as_int(pos, pos_name)
    size = nbytes - pos if size is None else _as_int(size, "size")
    if pos < 0 or size < 0:
        raise ValueError(f"{pos_name} and size must be >= 0, got {pos} and {size}")
    if pos + size > nbytes:
        raise ValueError(
            f"bytes {pos}..{pos + size} are past the end of {t_name} ({nbytes} bytes)"
        )
    peer = _as_int(peer, peer_name)
    if not 0 <= peer < world:
        raise ValueError(f"{peer_name} {peer} is not in the group ({world} ranks)")
    return _Request(tid, tensor, pos, size, peer, str(tensor.dtype) if by_dtype else None)


def _what(size_label: Tuple[int, Optional[str]]) -> str:
    size, label = size_label
    return f"{size} bytes" + (f" of {label}" if label else "")


def _keyed(
    everyone: List[Any], side: int, problems: List[str]
) -> Dict[Tuple[int, int, int], Tuple[int, Optional[str]]]:
    """Every rank's sends (`side` 0) or receives (1) keyed by (source,
    destination, task id); a key registered twice is a problem."""
    out: Dict[Tuple[int, int, int], Tuple[int, Optional[str]]] = {}
    kind = ("send", "receive")[side]
    for me, regs in enumerate(everyone):
        for tid, size, peer, label in regs[side]:
            key = (me, peer, tid) if side == 0 else (peer, me, tid)
            if key in out:
                problems.append(
                    f"rank {me} registers task {tid} twice as a {kind} "
                    f"{'to' if side == 0 else 'from'} rank {peer}"
                )
            else:
                out[key] = (size, label)
    return out


def _pair(everyone: List[Any]) -> Tuple[List[List[int]], List[str]]:
    """Pairs every send with its receive by (source, destination, task id).
    Returns the byte matrix (``[s][d]``: bytes from s to d) and the
    problems (bad registrations, duplicates, unpaired ids, sizes that
    differ), the same on every rank: every rank gathered the same lists."""
    world = len(everyone)
    problems = [e for regs in everyone for e in regs[2]]
    sends = _keyed(everyone, 0, problems)
    recvs = _keyed(everyone, 1, problems)
    matrix = [[0] * world for _ in range(world)]
    for key in sorted(set(sends) | set(recvs)):
        s, d, t = key
        a, b = sends.get(key), recvs.get(key)
        if b is None:
            problems.append(
                f"task {t}: rank {s} sends {_what(a)} to rank {d}, "
                f"which registers no receive of task {t} from rank {s}"
            )
        elif a is None:
            problems.append(
                f"task {t}: rank {d} receives {_what(b)} from rank {s}, "
                f"which registers no send of task {t} to rank {d}"
            )
        elif a != b:
            problems.append(
                f"task {t} from rank {s} to rank {d}: the send is {_what(a)}, the receive {_what(b)}"
            )
        else:
            matrix[s][d] += a[0]
    return matrix, problems


class RemoteCopyService:
    """Megatron-LM's remote-copy service over tickopt's plans.

    Register with :meth:`register_send` / :meth:`register_receive`, plan
    once with :meth:`schedule` (collective: every rank of `group` calls
    it), then :meth:`run` as often as needed; :meth:`clear_requests` starts
    over. `chunk_bytes` is the bandwidth per tick (default: the busiest
    port's bytes over about 64 ticks, :func:`tickopt._p2p_run.auto_chunk`);
    `model` as in :func:`tickopt.solve` (default READ1_WRITE1: full-duplex
    ports). The plan runs as dataflow, like :mod:`tickopt.torch`'s.
    """

    def __init__(self, group: Any = None, *, model: str = "READ1_WRITE1", chunk_bytes: Optional[int] = None):
        self.group = group
        self.model = model
        self.chunk_bytes = chunk_bytes
        self.world, self.rank = group_size_rank(group)
        self.clear_requests()

    @property
    def my_pe(self) -> int:
        """This rank in `group` (Megatron's name)."""
        return self.rank

    @property
    def n_pes(self) -> int:
        """The ranks in `group` (Megatron's name)."""
        return self.world

    def register_send(
        self, task_id: int, src_tensor: "torch.Tensor", src_pos: int, size: int, dest_pe: int
    ) -> None:
        """Sends bytes ``src_pos .. src_pos + size`` of `src_tensor` to rank
        `dest_pe`, where the receive with the same `task_id` from this rank
        takes them. A non-contiguous tensor is read in its logical
        (row-major) order, as ``.contiguous()`` would give it."""
        names = ("src_tensor", "src_pos", "dest_pe")
        self._register("register_send", names, False, task_id, src_tensor, src_pos, size, dest_pe)

    def register_receive(
        self, task_id: int, dest_tensor: "torch.Tensor", dest_pos: int, size: int, src_pe: int
    ) -> None:
        """Receives `size` bytes from rank `src_pe` (its send with the same
        `task_id` to this rank) into bytes ``dest_pos ..`` of `dest_tensor`
        (contiguous)."""
        names = ("dest_tensor", "dest_pos", "src_pe")
        self._register("register_receive", names, True, task_id, dest_tensor, dest_pos, size, src_pe)

    #: Whether a send and its receive must also agree in dtype (RemoteCopy).
    _by_dtype = False

    # The arguments are the caller's, one for one, after its name.
    def _register(
        self,
        call: str,
        names: Tuple[str, str, str],
        receive: bool,
        task_id: Any,
        tensor: Any,
        pos: Any,
        size: Any,
        peer: Any,
    ) -> None:
        if self.solution is not None:
            raise RuntimeError(
                f"{call} after schedule(): register everything, then schedule once "
                "(clear_requests() starts over)"
            )
        try:
            req = _request(names, task_id, tensor, pos, size, peer, self.world, receive, self._by_dtype)
        except ValueError as e:
            # Reported by schedule() on every rank (none is left waiting).
            self._errors.append(f"rank {self.rank}: {call}(task_id={task_id!r}): {e}")
            return
        (self._recvs if receive else self._sends).append(req)

    def schedule(self) -> Solution:
        """Gathers every rank's registrations (one ``all_gather_object``),
        pairs sends with receives by (source, destination, task id), and
        plans the byte matrix once. Bad registrations, unpaired task ids and
        pairs whose sizes differ raise ValueError on every rank, with the
        same message."""
        mine = (
            [(q.task_id, q.size, q.peer, q.label) for q in self._sends],
            [(q.task_id, q.size, q.peer, q.label) for q in self._recvs],
            list(self._errors),
        )
        everyone: List[Any] = [None] * self.world
        dist.all_gather_object(everyone, mine, group=self.group)
        matrix, problems = _pair(everyone)
        if problems:
            more = f"; and {len(problems) - _SHOWN} more" if len(problems) > _SHOWN else ""
            raise ValueError(
                f"{type(self).__name__}.schedule: {len(problems)} problem(s), on every rank: "
                + "; ".join(problems[:_SHOWN])
                + more
            )
        solution = plan_units(matrix, self.model, self.chunk_bytes)
        self._lay_out(solution)
        self.solution = solution
        return solution

    def _lay_out(self, solution: Solution) -> None:
        """Where each registration sits in this rank's p2p buffers: sends by
        destination, receives by source (the lowering's order), task ids
        ascending within a pair, so both ends agree."""
        r = self.rank
        self._dataflow = runs_dataflow(self.group)
        self._program = solution.dataflow(r) if self._dataflow else solution.p2p(r)
        self._pack, self._unpack = [], []
        ends = [0, 0]
        for side, regs, out in ((0, self._sends, self._pack), (1, self._recvs, self._unpack)):
            for q in sorted(regs, key=lambda q: (q.peer, q.task_id)):
                if q.peer != r:
                    out.append((ends[side], q))
                    ends[side] += q.size
        if tuple(ends) != tuple(solution.buffer_bytes(r)):
            raise RuntimeError(
                f"internal error in tickopt.torch: buffers of {ends} bytes, "
                f"the plan's {solution.buffer_bytes(r)}; please report this"
            )
        recv_local = {q.task_id: q for q in self._recvs if q.peer == r}
        self._local = [(q, recv_local[q.task_id]) for q in self._sends if q.peer == r]
        tensors = [q.tensor for q in self._sends + self._recvs]
        device = tensors[0].device if tensors else torch.device("cpu")
        self._send_buf = torch.empty(ends[0], dtype=torch.uint8, device=device)
        self._recv_buf = torch.empty(ends[1], dtype=torch.uint8, device=device)

    def run(self) -> None:
        """Moves every registered send into its receive, per the plan (after
        :meth:`schedule`; call it on every rank). What goes to other ranks
        is packed before any byte is written; every wait is bounded by the
        process group's timeout."""
        if self.solution is None:
            raise RuntimeError("run() before schedule()")
        views: Dict[int, "torch.Tensor"] = {}

        def read(t: "torch.Tensor") -> "torch.Tensor":
            if id(t) not in views:
                views[id(t)] = as_bytes(t if t.is_contiguous() else t.contiguous())
            return views[id(t)]

        for off, q in self._pack:
            self._send_buf[off : off + q.size].copy_(read(q.tensor)[q.pos : q.pos + q.size])
        for a, b in self._local:
            as_bytes(b.tensor)[b.pos : b.pos + b.size].copy_(read(a.tensor)[a.pos : a.pos + a.size])
        shift = (self.rank, 0)
        run = run_dataflow if self._dataflow else run_ticks
        run(self._program, self._send_buf, self._recv_buf, shift, shift, self.group)
        for off, q in self._unpack:
            as_bytes(q.tensor)[q.pos : q.pos + q.size].copy_(self._recv_buf[off : off + q.size])

    def clear_requests(self) -> None:
        """Drops every registration and the plan: register anew, then schedule again."""
        self._sends: List[_Request] = []
        self._recvs: List[_Request] = []
        self._errors: List[str] = []
        self.solution: Optional[Solution] = None


class RemoteCopy(RemoteCopyService):
    """Whole tensors, paired by order: the k-th ``add_send(d, t)`` of rank s
    pairs with the k-th ``add_recv(s, u)`` of rank d (task k of that pair;
    errors name it so). They must agree in size and dtype, or
    :meth:`schedule` raises ValueError on every rank. Plans and runs as
    :class:`RemoteCopyService`.
    """

    _by_dtype = True

    def clear_requests(self) -> None:
        super().clear_requests()
        self._count: Dict[Tuple[str, Any], int] = {}

    def _nth(self, kind: str, peer: Any) -> int:
        try:
            key = (kind, operator.index(peer))
        except TypeError:
            key = (kind, repr(peer))
        k = self._count.get(key, 0)
        self._count[key] = k + 1
        return k

    def add_send(self, dst_rank: int, tensor: "torch.Tensor") -> None:
        k = self._nth("send", dst_rank)
        self._register("add_send", ("tensor", "pos", "dst_rank"), False, k, tensor, 0, None, dst_rank)

    def add_recv(self, src_rank: int, tensor: "torch.Tensor") -> None:
        k = self._nth("recv", src_rank)
        self._register("add_recv", ("tensor", "pos", "src_rank"), True, k, tensor, 0, None, src_rank)
