"""Run tickopt plans with ``torch.distributed``.

Every rank derives the same plan itself: the splits are exchanged with one
collective, then each rank solves the same instance locally (tickopt is
deterministic: the same demands give the same schedule byte for byte, on
every rank; the tests check it), so no plan is broadcast. The plan is
executed as tickopt's ticks: per tick, this rank's operations (lowered by
``tickopt::lower::p2p`` through :meth:`tickopt.Solution.p2p`) go out as one
``batch_isend_irecv``; the local part is copied directly. Only torch's own
calls are used (gloo on CPU, NCCL on GPU), no device code.

Buffers are viewed as bytes, so any dtype and trailing shape works and the
result is the bytes torch's ``all_to_all_single`` would deliver. Waits
are bounded by the process group's timeout (``init_process_group(timeout=)``).

torch is imported when this module is (``import tickopt`` alone never
imports it); without PyTorch installed, importing this module raises an
ImportError that says so.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

try:
    import torch
    import torch.distributed as dist
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tickopt.torch needs PyTorch (torch.distributed): pip install torch; "
        "the rest of tickopt works without it"
    ) from e

from . import Solution, solve

__all__ = ["Plan", "plan_all_to_all", "all_to_all_single", "RemoteCopy"]


def _group_size_rank(group: Any) -> Tuple[int, int]:
    return dist.get_world_size(group), dist.get_rank(group)


def _global(group: Any, peer: int) -> int:
    return peer if group is None else dist.get_global_rank(group, peer)


def _bytes(t: "torch.Tensor") -> "torch.Tensor":
    """A flat uint8 view of a contiguous tensor."""
    return t.reshape(-1).view(torch.uint8)


def _row_bytes(t: "torch.Tensor") -> int:
    n = t.element_size()
    for d in t.shape[1:]:
        n *= d
    return n


def _plan_bytes(
    matrix: Sequence[Sequence[int]], model: str, chunk_bytes: Optional[int]
) -> Solution:
    """The plan for a byte matrix (``matrix[s][d]`` bytes from s to d; the
    diagonal is copied locally and not planned). `chunk_bytes` defaults to
    the largest demand: one chunk per demand. The matrix goes to the
    planner as one int64 array (the fast path of :func:`tickopt.solve`,
    DESIGN.md §13), so planning per call stays cheap when splits change
    every step."""
    import numpy as np

    bits = np.array(matrix, dtype=np.int64).reshape(len(matrix), len(matrix)) * 8
    np.fill_diagonal(bits, 0)
    if chunk_bytes is None:
        chunk_bytes = max(int(bits.max()) // 8, 1) if bits.size else 1
    if chunk_bytes <= 0:
        raise ValueError(f"chunk_bytes must be > 0, got {chunk_bytes}")
    return solve(bits, bw=chunk_bytes * 8, model=model)


def _run_ticks(
    program: List[List[Tuple[str, int, int, int]]],
    send: "torch.Tensor",
    recv: "torch.Tensor",
    send_shift: Tuple[int, int],
    recv_shift: Tuple[int, int],
    rank: int,
    group: Any,
) -> None:
    """Executes one rank's program on flat byte buffers. Offsets are in the
    p2p layout (no self part); `*_shift` = (rank, bytes of the self part)
    re-inserts it for buffers that hold one (all_to_all_single's)."""
    for tick in program:
        if not tick:
            continue
        ops = []
        for op, peer, off, n in tick:
            if op == "send":
                o = off + (send_shift[1] if peer > send_shift[0] else 0)
                ops.append(dist.P2POp(dist.isend, send[o : o + n], _global(group, peer), group))
            else:
                o = off + (recv_shift[1] if peer > recv_shift[0] else 0)
                ops.append(dist.P2POp(dist.irecv, recv[o : o + n], _global(group, peer), group))
        for req in dist.batch_isend_irecv(ops):
            req.wait()


class Plan:
    """An all-to-all planned once and run many times (:func:`plan_all_to_all`)."""

    def __init__(
        self,
        solution: Solution,
        rows: List[List[int]],
        row_bytes: int,
        group: Any,
    ) -> None:
        self.solution = solution
        self.group = group
        self.world, self.rank = _group_size_rank(group)
        self.row_bytes = row_bytes
        self.rows = rows
        r = self.rank
        self.input_split_sizes = [rows[r][d] for d in range(self.world)]
        self.output_split_sizes = [rows[s][r] for s in range(self.world)]
        self._program = solution.p2p(r)
        self._in_off = sum(self.input_split_sizes[:r]) * row_bytes
        self._out_off = sum(self.output_split_sizes[:r]) * row_bytes
        self._local = rows[r][r] * row_bytes

    @property
    def ticks(self) -> int:
        return self.solution.ticks

    def _check(self, name: str, t: "torch.Tensor", splits: List[int]) -> None:
        if t.dim() == 0 or t.shape[0] != sum(splits) or _row_bytes(t) != self.row_bytes:
            raise ValueError(
                f"{name} has shape {tuple(t.shape)} and {_row_bytes(t) if t.dim() else 0} "
                f"bytes per row; the plan needs {sum(splits)} rows of {self.row_bytes} bytes"
            )

    def run(self, output: "torch.Tensor", input: "torch.Tensor") -> "torch.Tensor":
        """Runs the plan: `output` receives what ``all_to_all_single`` would put there.

        Shapes are checked against the plan before any communication; a
        rank whose check fails raises at once and the others wait for it
        until the process group's timeout (give every rank the shapes it planned).
        """
        self._check("input", input, self.input_split_sizes)
        self._check("output", output, self.output_split_sizes)
        if output.dtype != input.dtype:
            raise ValueError(f"output dtype {output.dtype} differs from input dtype {input.dtype}")
        src = _bytes(input.contiguous())
        out = output if output.is_contiguous() else torch.empty_like(output, memory_format=torch.contiguous_format)
        dst = _bytes(out)
        if self._local:
            dst[self._out_off : self._out_off + self._local].copy_(
                src[self._in_off : self._in_off + self._local]
            )
        _run_ticks(
            self._program,
            src,
            dst,
            (self.rank, self._local),
            (self.rank, self._local),
            self.rank,
            self.group,
        )
        if out is not output:
            output.copy_(out)
        return output


def _even_splits(rows: int, world: int, name: str) -> List[int]:
    if rows % world:
        raise ValueError(f"{name} has {rows} rows, not divisible by the world size {world}")
    return [rows // world] * world


def plan_all_to_all(
    input_split_sizes: Sequence[int],
    output_split_sizes: Optional[Sequence[int]] = None,
    group: Any = None,
    *,
    model: str = "STRICT1",
    chunk_bytes: Optional[int] = None,
    row_bytes: int = 1,
    device: Any = None,
    _error: Optional[str] = None,
) -> Plan:
    """Plans an all-to-all (collective: every rank of `group` calls it).

    Splits count rows along dim 0 of `row_bytes` bytes each (``element_size()``
    times the trailing numel of the tensors it will run on). One
    ``all_gather`` exchanges every rank's splits; every rank then solves the
    same instance locally. Splits that do not agree between ranks (what r
    sends to p is not what p expects from r) raise ValueError on every rank.
    `device` is where the exchange tensor lives (the NCCL device; default CPU).
    """
    world, rank = _group_size_rank(group)
    ins = [int(x) for x in input_split_sizes]
    outs = None if output_split_sizes is None else [int(x) for x in output_split_sizes]
    bad = None
    if len(ins) != world or (outs is not None and len(outs) != world):
        bad = f"rank {rank}: split sizes need {world} entries"
    elif any(x < 0 for x in ins + (outs or [])):
        bad = f"rank {rank}: split sizes must be >= 0"
    if bad is None and _error is not None:
        bad = f"rank {rank}: {_error}"
    if bad is not None:
        ins, outs = [0] * world, [0] * world
    mine = torch.tensor(
        ins + (outs if outs is not None else [-1] * world) + [int(row_bytes), 0 if bad is None else 1],
        dtype=torch.int64,
        device=device,
    )
    gathered = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(gathered, mine, group=group)
    table = [g.cpu().tolist() for g in gathered]
    if any(t[-1] for t in table):
        ranks = [r for r, t in enumerate(table) if t[-1]]
        raise ValueError(bad or f"ranks {ranks} refused the all-to-all (their error says why)")
    rows = [t[:world] for t in table]
    for r, t in enumerate(table):
        if t[2 * world] != row_bytes:
            raise ValueError(
                f"rank {r} has {t[2 * world]} bytes per row, rank {rank} {row_bytes}: dtype or trailing shape differ"
            )
        if t[world] != -1:
            expect = [rows[s][r] for s in range(world)]
            if t[world : 2 * world] != expect:
                raise ValueError(
                    f"rank {r} expects output splits {t[world:2 * world]} but the senders' input splits give {expect}"
                )
    sol = _plan_bytes(
        [[rows[s][d] * row_bytes for d in range(world)] for s in range(world)],
        model,
        chunk_bytes,
    )
    return Plan(sol, rows, row_bytes, group)


def all_to_all_single(
    output: "torch.Tensor",
    input: "torch.Tensor",
    output_split_sizes: Optional[Sequence[int]] = None,
    input_split_sizes: Optional[Sequence[int]] = None,
    group: Any = None,
    *,
    model: str = "STRICT1",
    chunk_bytes: Optional[int] = None,
) -> "torch.Tensor":
    """``torch.distributed.all_to_all_single``, executed as tickopt's ticks
    (plans, then runs once; use :func:`plan_all_to_all` to run many times)."""
    world, _ = _group_size_rank(group)
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
        if output.dtype != input.dtype or _row_bytes(output) != _row_bytes(input):
            raise ValueError(
                f"output ({output.dtype}, rows of {_row_bytes(output)} bytes) does not match "
                f"input ({input.dtype}, rows of {_row_bytes(input)} bytes)"
            )
    except ValueError as e:
        error = str(e)
        input_split_sizes = output_split_sizes = [0] * world
    plan = plan_all_to_all(
        input_split_sizes,
        output_split_sizes,
        group,
        model=model,
        chunk_bytes=chunk_bytes,
        row_bytes=_row_bytes(input),
        device=input.device if input.device.type != "cpu" else None,
        _error=error,
    )
    return plan.run(output, input)


class RemoteCopy:
    """The remote-copy service: register sends and receives, plan once
    (:meth:`schedule`, collective), run many times (:meth:`run`).

    The k-th ``add_send(d, t)`` of rank s pairs with the k-th
    ``add_recv(s, u)`` of rank d; they must agree in size and dtype, or
    :meth:`schedule` raises ValueError on every rank (every rank sees every
    registration, so none waits for a partner that will not come).
    """

    def __init__(self, group: Any = None, *, model: str = "STRICT1", chunk_bytes: Optional[int] = None):
        self.group = group
        self.model = model
        self.chunk_bytes = chunk_bytes
        self.world, self.rank = _group_size_rank(group)
        self._sends: List[Tuple[int, "torch.Tensor"]] = []
        self._recvs: List[Tuple[int, "torch.Tensor"]] = []
        self.solution: Optional[Solution] = None

    def _peer(self, peer: int, what: str) -> int:
        peer = int(peer)
        if not 0 <= peer < self.world:
            raise ValueError(f"{what}: rank {peer} is not in the group ({self.world} ranks)")
        return peer

    def add_send(self, dst_rank: int, tensor: "torch.Tensor") -> None:
        if self.solution is not None:
            raise RuntimeError("add_send after schedule(): register everything, then schedule once")
        self._sends.append((self._peer(dst_rank, "add_send"), tensor))

    def add_recv(self, src_rank: int, tensor: "torch.Tensor") -> None:
        if self.solution is not None:
            raise RuntimeError("add_recv after schedule(): register everything, then schedule once")
        if not tensor.is_contiguous():
            raise ValueError("add_recv: the receive tensor must be contiguous")
        self._recvs.append((self._peer(src_rank, "add_recv"), tensor))

    def schedule(self) -> Solution:
        """Gathers every rank's registrations (one ``all_gather_object``),
        checks that sends and receives match, and plans once."""
        mine = (
            [(d, t.numel() * t.element_size(), str(t.dtype)) for d, t in self._sends],
            [(s, t.numel() * t.element_size(), str(t.dtype)) for s, t in self._recvs],
        )
        everyone: List[Any] = [None] * self.world
        dist.all_gather_object(everyone, mine, group=self.group)
        n = self.world
        matrix = [[0] * n for _ in range(n)]
        for s in range(n):
            for d in range(n):
                sends = [(b, t) for p, b, t in everyone[s][0] if p == d]
                recvs = [(b, t) for p, b, t in everyone[d][1] if p == s]
                if len(sends) != len(recvs):
                    raise ValueError(
                        f"rank {s} registers {len(sends)} send(s) to rank {d}, "
                        f"rank {d} {len(recvs)} receive(s) from rank {s}"
                    )
                for k, (a, b) in enumerate(zip(sends, recvs)):
                    if a != b:
                        raise ValueError(
                            f"send {k} from rank {s} to rank {d} is {a[0]} bytes of {a[1]}, "
                            f"its receive {b[0]} bytes of {b[1]}"
                        )
                matrix[s][d] = sum(b for b, _ in sends)
        self.solution = _plan_bytes(matrix, self.model, self.chunk_bytes)
        self._program = self.solution.p2p(self.rank)
        send_bytes, recv_bytes = self.solution.buffer_bytes(self.rank)
        dev = (self._sends or self._recvs or [(0, torch.empty(0))])[0][1].device
        self._send_buf = torch.empty(send_bytes, dtype=torch.uint8, device=dev)
        self._recv_buf = torch.empty(recv_bytes, dtype=torch.uint8, device=dev)
        return self.solution

    def run(self) -> None:
        """Copies every registered send into its receive (after :meth:`schedule`)."""
        if self.solution is None:
            raise RuntimeError("run() before schedule()")
        r = self.rank
        # Pack: the p2p send buffer holds the sends by destination, in
        # registration order within a destination; the self part is copied.
        local = [t for d, t in self._sends if d == r]
        local_dst = [t for s, t in self._recvs if s == r]
        off = 0
        for d in range(self.world):
            if d == r:
                continue
            for p, t in self._sends:
                if p == d:
                    n = t.numel() * t.element_size()
                    self._send_buf[off : off + n].copy_(_bytes(t.contiguous()))
                    off += n
        for a, b in zip(local, local_dst):
            b.copy_(a)
        _run_ticks(self._program, self._send_buf, self._recv_buf, (r, 0), (r, 0), r, self.group)
        off = 0
        for s in range(self.world):
            if s == r:
                continue
            for p, t in self._recvs:
                if p == s:
                    n = t.numel() * t.element_size()
                    _bytes(t).copy_(self._recv_buf[off : off + n])
                    off += n
