"""Relay plans (issue 52): :func:`tickopt.solve` with ``gpus_per_node`` and
``nvlink_speedup`` returns a :class:`RelaySolution`.

On nodes of G GPUs (rank r is GPU ``r % G`` of node ``r // G``) whose
NVLink port carries ``nvlink_speedup`` chunks per tick each way, a chunk
may go through a GPU of its own node to another NIC, and through a GPU of
the destination node. The plan pays the node's average NIC load instead of
the busiest GPU's. ``relay_program(rank)`` is what a runner executes
(doc/python.md, "Relay programs").
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from . import _tickopt

RelayOp = Tuple[str, int, str, int, int]


class RelaySolution:
    """A relay plan and its proof.

    ``ticks`` and ``lower_bound`` are the claim; ``bound`` names the bound
    that binds (``node``, ``nvlink`` or ``lp``); ``certificate`` holds the
    port weights that prove it (``verify()`` recomputes them without a
    solver); ``direct_ticks`` is the best schedule without relays.
    """

    __slots__ = ("_native",)

    def __init__(self, native: "_tickopt.NativeRelaySolution") -> None:
        self._native = native

    @property
    def ticks(self) -> int:
        return self._native.ticks

    @property
    def lower_bound(self) -> int:
        return self._native.lower_bound

    @property
    def bound(self) -> str:
        """The bound that binds: ``node``, ``nvlink`` or ``lp``."""
        return self._native.bound

    @property
    def status(self) -> str:
        return "optimal" if self.ticks == self.lower_bound else "feasible"

    @property
    def node_bound(self) -> int:
        return self._native.node_bound

    @property
    def nvlink_bound(self) -> int:
        return self._native.nvlink_bound

    @property
    def lp_bound(self) -> Optional[int]:
        """The LP's bound, when some node's LP could beat the other bounds."""
        return self._native.lp_bound

    @property
    def direct_ticks(self) -> int:
        """Ticks of the best direct (unrelayed) READ1_WRITE1 schedule."""
        return self._native.direct_ticks

    @property
    def slots(self) -> int:
        return self._native.slots

    @property
    def gpus_per_node(self) -> int:
        return self._native.gpus_per_node

    @property
    def nvlink_speedup(self) -> int:
        return self._native.nvlink_speedup

    @property
    def plan_seconds(self) -> float:
        return self._native.plan_seconds

    @property
    def certificate(self) -> Dict[str, Any]:
        return self.summary()["certificate"]

    def summary(self) -> Dict[str, Any]:
        """The relay summary (what ``tickopt solve --gpus-per-node`` writes)."""
        return json.loads(self._native.summary_json())

    def schedule(self) -> Dict[str, Any]:
        """The relay schedule: every chunk's hops ``[tick, from, to]``."""
        return json.loads(self._native.schedule_json())

    def verify(self) -> bool:
        """Re-validates the schedule and recomputes the certificate."""
        return self._native.verify()

    def relay_program(self, rank: int) -> List[RelayOp]:
        """Rank `rank`'s operations in order: ``(op, peer, buffer, offset,
        nbytes)`` with op ``send``/``recv`` and buffer ``input``/``output``/
        ``stage`` (doc/python.md, "Relay programs")."""
        return self._native.relay_program(rank)

    def buffer_bytes(self, rank: int) -> Tuple[int, int, int]:
        """Rank `rank`'s input, output and staging buffer sizes in bytes."""
        return self._native.buffer_bytes(rank)

    def __repr__(self) -> str:
        return (
            f"RelaySolution(ticks={self.ticks}, lower_bound={self.lower_bound}, "
            f"bound={self.bound!r}, direct_ticks={self.direct_ticks})"
        )


def solve_relay(rows: List[Any], bw: int, model: str, slots: Optional[int],
                gpus_per_node: Any, nvlink_speedup: Any) -> RelaySolution:
    """Plans normalised demand rows with relays (see :func:`tickopt.solve`)."""
    if gpus_per_node is None or nvlink_speedup is None:
        raise ValueError("gpus_per_node and nvlink_speedup go together: give both")
    return RelaySolution(
        _tickopt.solve_relay(rows, bw, model, slots, int(gpus_per_node), int(nvlink_speedup))
    )


def solve_relay_matrix(dense: Tuple[bytes, int], bw: int, model: str, gpus_per_node: Any,
                       nvlink_speedup: Any) -> RelaySolution:
    """Plans a dense matrix (``(int64 bytes, n)``, from ``_matrix_bytes``)
    with relays, without a list of rows (see :func:`tickopt.solve`)."""
    if gpus_per_node is None or nvlink_speedup is None:
        raise ValueError("gpus_per_node and nvlink_speedup go together: give both")
    return RelaySolution(
        _tickopt.solve_relay_matrix(dense[0], dense[1], bw, model, int(gpus_per_node), int(nvlink_speedup))
    )
