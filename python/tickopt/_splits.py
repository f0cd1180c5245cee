"""The split exchange under ``tickopt.torch``'s all-to-all: every rank's
splits and planning arguments to every rank in one round
(:func:`tickopt._p2p_run.gather_small`), and what in them keeps the step
from running, worded the same on every rank so that every rank raises
the same ValueError and none is left waiting for a partner.

One rank's row of the table: its input splits (world entries), its output
splits (world entries; -1s where not given), then the tail: bytes per row
(-1: a plan in rows), the chunk (0: auto), a crc of the other planning
arguments (model, runner, relays, rates), whether the rank posted its
data ahead of the exchange (:data:`AHEAD`, all_to_all_single's
dataflow steps, doc/design.md §14) and whether it refused the call.

Ranks that posted ahead have messages in flight when the exchange
reveals a step that cannot run; :func:`tickopt._ahead.settle` completes
them on every rank before it raises, so the group stays usable.
"""

from __future__ import annotations

import zlib
from typing import Any, List, Optional, Sequence

import torch

from ._p2p_run import PeerError, gather_small, group_size_rank

#: Index, in a row of the table, of the rank's "posted ahead" flag.
AHEAD = -2

#: Index of its "refused" flag (a local error travels with the splits).
REFUSED = -1


def rates_key(rank_gbps: Optional[Sequence[float]]) -> str:
    """`rank_gbps` as text that ranks compare (None: no rates)."""
    return "-" if rank_gbps is None else ",".join(repr(float(x)) for x in rank_gbps)


def arguments_key(model: str, runner: str, gpus_per_node: Any, nvlink_speedup: Any, rank_gbps: Any) -> int:
    """The planning arguments every rank must agree on, as one integer."""
    return zlib.crc32(f"{model}/{runner}/{gpus_per_node}/{nvlink_speedup}/{rates_key(rank_gbps)}".encode())


def exchange(
    ins: List[int],
    outs: Optional[List[int]],
    row_bytes: Optional[int],
    chunk: Optional[int],
    arguments: int,
    ahead: bool,
    refused: bool,
    group: Any,
    device: Any = None,
) -> List[List[int]]:
    """Every rank's row of the table (module docs), in rank order."""
    world, rank = group_size_rank(group)
    tail = [-1 if row_bytes is None else int(row_bytes), int(chunk or 0), arguments, int(ahead), int(refused)]
    mine = torch.tensor(ins + (outs if outs is not None else [-1] * world) + tail, dtype=torch.int64, device=device)
    try:
        gathered = gather_small(mine, group)
    except RuntimeError as e:
        who = f"rank {e.peer}" if isinstance(e, PeerError) else "the group"
        raise RuntimeError(
            f"tickopt.torch: rank {rank} could not exchange the splits with {who} "
            f"(a rank lost, or the group's timeout): {e}"
        ) from e
    return [g.cpu().tolist() for g in gathered]


def problem(table: List[List[int]], local: Optional[str]) -> Optional[str]:
    """Why the step cannot run, the same text on every rank (except where
    ranks refused: each that did gives its own error, `local`, the others
    name them), or None."""
    world = len(table)
    refused = [r for r, t in enumerate(table) if t[REFUSED]]
    if refused:
        return local or f"ranks {refused} refused the all-to-all (their error says why)"
    differ = disagreements(table, world)
    if differ:
        return "ranks planned with different arguments: " + "; ".join(differ)
    ahead = [r for r, t in enumerate(table) if t[AHEAD]]
    if ahead and len(ahead) < world:
        return (
            f"ranks {ahead} posted their data ahead of the split exchange and the others did not: "
            "their last all-to-all on this group ended differently"
        )
    rows = [t[:world] for t in table]
    for r, t in enumerate(table):
        if t[world] != -1:
            expect = [rows[s][r] for s in range(world)]
            if t[world : 2 * world] != expect:
                return f"rank {r} expects output splits {t[world:2 * world]} but the senders' input splits give {expect}"
    return None


def disagreements(table: List[List[int]], world: int) -> List[str]:
    """Planning arguments that differ from rank 0's (the same text on every
    rank); ranks that planned differently would deadlock in the ticks."""
    out = []
    rb0, ch0, model0 = table[0][2 * world : 2 * world + 3]

    def rows_of(rb: int) -> str:
        return "plans in rows" if rb < 0 else f"has {rb} bytes per row"

    for r, t in enumerate(table[1:], start=1):
        rb, ch, model = t[2 * world : 2 * world + 3]
        if rb != rb0:
            out.append(f"rank {r} {rows_of(rb)}, rank 0 {rows_of(rb0)}: dtype or trailing shape differ")
        if ch != ch0:
            out.append(f"rank {r} chunks by {ch or 'auto'}, rank 0 by {ch0 or 'auto'}")
        if model != model0:
            out.append(f"rank {r} plans another model, runner, relay set-up or rank_gbps than rank 0")
    return out

