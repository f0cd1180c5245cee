"""``all_to_all_single``'s dataflow step with its data posted ahead of the
split exchange (doc/design.md §14, doc/performance.md "Executed").

The data of an all-to-all needs only what the caller already knows: what
this rank sends each peer (its input splits) and receives from each (its
output splits). The split exchange is for the rest: checking that the
ranks agree, the group's planner (edits, and the next step's runner). So
on a group whose last step ran as dataflow (everything posted at once:
skewed traffic on one tier, where how TCP shares the links, not the
order of posting, sets the time), every rank posts its receives and its
sends at once, exactly as gloo's own all-to-all does (peers in shift
order: r + 1, r + 2, ...), and exchanges the splits beside the data; once
they are checked it copies its local part and plans while the data is on
the wire.
A step then costs gloo's one round before the first byte moves (the
receiver's "ready" to the sender), not two.

Safe where the splits do not agree. gloo aborts a receiver that gets a
message larger than the receive it posted (``Received data size doesn't
match expected size``), so messages here are pieces of at most
:data:`PIECE` bytes and every receive is posted PIECE bytes long: into the
output where it holds PIECE bytes from the piece's offset on (a valid
step's last piece is shorter and writes only its own bytes); near the
output's end into one staging buffer of at most 2 PIECE bytes, laid out
the same way. Pieces match by number between two
ranks (tag ``MESSAGE_TAG + k``). Where the splits disagree, the sender and
the receiver of a pair count different pieces; every rank knows every
count from the exchanged table, so each fills the receives that wait for
its missing pieces with one-byte pieces and drains the pieces it did not
expect (:func:`settle`), and every rank raises the same ValueError with
nothing left pending. A rank that refused the call (a local error) posts
nothing and settles the same way.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.distributed as dist

from ._p2p_run import MESSAGE_TAG, PLAN_STATS, execute, global_rank, group_size_rank, plan_units
from ._splits import AHEAD, exchange, problem

#: Most bytes one message carries on this path (and every receive's size).
PIECE = 1 << 20

#: A piece to post: ``(peer, its number k between the two ranks, view)``.
Piece = Tuple[int, int, "torch.Tensor"]


def pieces(n_bytes: int) -> int:
    """How many messages carry `n_bytes` (0 for none)."""
    return -(-n_bytes // PIECE)


def offsets(splits: List[int], row_bytes: int) -> List[int]:
    """Byte offset of each peer's part in a buffer laid out by `splits` rows."""
    return [x * row_bytes for x in accumulate(splits[:-1], initial=0)]


def all_to_all_ahead(
    out: "torch.Tensor",
    src: "torch.Tensor",
    ins: List[int],
    outs: List[int],
    row_bytes: int,
    chunk: Optional[int],
    arguments: int,
    bad: Optional[str],
    model: str,
    group: Any,
    device: Any = None,
) -> List[List[int]]:
    """Runs one all-to-all step on flat byte buffers `out` and `src` (rows
    of `row_bytes` bytes; `ins`, `outs` this rank's splits, zeros where it
    refused with `bad`) and returns the exchanged matrix of rows. Raises
    ValueError on every rank where the step cannot run (after settling
    every piece), RuntimeError naming the peer on a lost rank or the
    group's timeout."""
    world, rank = group_size_rank(group)
    recv_at, send_at = offsets(outs, row_bytes), offsets(ins, row_bytes)
    peers = [(rank + i) % world for i in range(1, world)]
    posted, staged = [], []
    # Pieces that start within PIECE bytes of the output's end are received
    # into one staging buffer, laid out as that end of the output plus PIECE.
    tail_at, tail = max(out.numel() - PIECE, 0), None
    recvs, sends = [], []
    for p in peers:
        n = outs[p] * row_bytes
        for k in range(pieces(n)):
            o = recv_at[p] + k * PIECE
            if o + PIECE <= out.numel():
                view = out[o : o + PIECE]
            else:
                if tail is None:
                    tail = torch.empty(out.numel() - tail_at + PIECE, dtype=torch.uint8, device=out.device)
                view = tail[o - tail_at : o - tail_at + PIECE]
                staged.append((o, min(PIECE, n - k * PIECE)))
            recvs.append((p, k, view))
    for p in peers:
        n = ins[p] * row_bytes
        for k in range(pieces(n)):
            o = send_at[p] + k * PIECE
            sends.append((p, k, src[o : o + min(PIECE, n - k * PIECE)]))
    post(recvs, sends, group, posted)
    table = exchange(ins, outs, row_bytes, chunk, arguments, True, bad is not None, group, device)
    why = problem(table, bad)
    if why is not None:
        settle(table, group, posted)
        raise ValueError(why)
    # Checked: this rank's own part has one size at both ends.
    local = ins[rank] * row_bytes
    if local:
        out[recv_at[rank] : recv_at[rank] + local].copy_(src[send_at[rank] : send_at[rank] + local])
    rows = [t[:world] for t in table]
    # The group's planner sees every step (edits; the next step's runner
    # comes from the same rows), while the data is on the wire.
    plan_units(np.array(rows, dtype=np.int64) * row_bytes, model, chunk, key=("a2a", group))
    execute([], group, posted=posted)
    for o, n in staged:
        out[o : o + n].copy_(tail[o - tail_at : o - tail_at + n])
    PLAN_STATS["ahead"] += 1
    return rows


def post(recvs: Sequence[Piece], sends: Sequence[Piece], group: Any, posted: List[Tuple[str, int, Any]]) -> None:
    """Posts the receives, then the sends, of pieces ``(peer, k, view)``
    (tag ``MESSAGE_TAG + k``), appending ``(doing, peer, work)`` to
    `posted`. A peer already lost raises RuntimeError naming this rank and
    the peer (gloo refuses the post at once)."""
    for doing, ops, call in (("receiving from", recvs, dist.irecv), ("sending to", sends, dist.isend)):
        for p, k, view in ops:
            try:
                posted.append((doing, p, call(view, global_rank(group, p), group=group, tag=MESSAGE_TAG + k)))
            except RuntimeError as e:
                raise RuntimeError(f"tickopt.torch: rank {dist.get_rank()} stopped while {doing} rank {p}: {e}") from e


def _posted(table: List[List[int]], sender: int, receiver: int) -> Tuple[int, int]:
    """(pieces `sender` posted to `receiver`, receives `receiver` posted
    from `sender`), from the exchanged table: a rank that did not post
    ahead (flag 0) posted none, a rank that refused posted zero splits."""
    world = len(table)
    s, r = table[sender], table[receiver]
    sent = pieces(s[receiver] * max(s[2 * world], 0)) if s[AHEAD] else 0
    expected = pieces(r[world + sender] * max(r[2 * world], 0)) if r[AHEAD] and r[world + sender] > 0 else 0
    return sent, expected


def settle(table: List[List[int]], group: Any, posted: Sequence[Tuple[str, int, Any]] = ()) -> None:
    """Leaves nothing pending after a step that cannot run: for each pair,
    the receives a receiver posted beyond the pieces its sender posted get
    one-byte pieces from the sender, and the pieces a sender posted beyond
    the receives get drained by the receiver; then waits for those and for
    `posted` (this rank's own). Every rank calls it with the same table."""
    world, rank = group_size_rank(group)
    scratch = torch.empty(PIECE, dtype=torch.uint8)
    fills, drains = [], []
    for p in range(world):
        if p == rank:
            continue
        sent, expected = _posted(table, rank, p)
        fills += [(p, k, scratch[:1]) for k in range(sent, expected)]
        sent, expected = _posted(table, p, rank)
        drains += [(p, k, scratch) for k in range(expected, sent)]
    works = list(posted)
    post(drains, fills, group, works)
    execute([], group, posted=works)

