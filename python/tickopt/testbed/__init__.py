"""An emulated cluster on one machine, where the links set the time
(DESIGN.md §14): ``python -m tickopt.testbed --nodes N --gpus-per-node G
--nic-mbit R [--nvlink-mbit R2] -- SCRIPT ARGS...``.

Kernel networking, not a simulator: a network namespace per rank, veth
ports into Linux bridges (a spine switch for the NICs, a switch per node
for NVLink), ``tc`` token buckets shaping each direction to the link rate,
routes choosing the link by destination (with cubic congestion control,
whatever the host's default); real TCP, real queues, real
incast. torch.distributed (gloo) runs unchanged on top with torchrun's
variables. Everything the testbed makes lives in namespaces it made, with
addresses from 198.18.0.0/15 only, and is removed on exit, on error and on
Ctrl-C (namespaces a killed run left behind are removed by the next run).
Needs root (or CAP_NET_ADMIN) and iproute2; imports no torch itself.

Modules: :mod:`.net` (namespaces, links, shaping), :mod:`.launch` (the
ranks' processes), :mod:`.cpu` (host CPU use: links or cores?).

From Python::

    with Testbed(Topology(nodes=4, gpus_per_node=1, nic_mbit=100)) as tb:
        status = tb.run(["my_script.py", "--steps", "5"])
"""

from __future__ import annotations

import random
from typing import List, Optional, Sequence, Tuple

from .cpu import CpuReport, CpuSampler
from .launch import TIMED_OUT, Ranks
from .net import Network, TestbedError, Topology, preflight, remove_stale

__all__ = ["Testbed", "Topology", "TestbedError", "TIMED_OUT"]


class Testbed:
    """One emulated cluster: built on ``__enter__``, removed on ``__exit__``
    (also when the body raises or is interrupted)."""

    def __init__(self, topo: Topology) -> None:
        topo.check()
        self.topo = topo
        self.net = Network(topo)
        self.cpu: Optional[CpuReport] = None
        self._ranks: Optional[Ranks] = None

    def __enter__(self) -> "Testbed":
        preflight(self.topo.congestion)
        remove_stale()
        try:
            self.net.build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> List[str]:
        """Kills the ranks and removes the namespaces; returns what would not go."""
        if self._ranks is not None:
            self._ranks.kill()
        return self.net.remove()

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout_s: Optional[float] = None,
        grace_s: float = 30.0,
        port: Optional[int] = None,
        env: Optional[dict] = None,
        kill: Optional[Tuple[int, float]] = None,
    ) -> int:
        """Runs ``python *argv`` in every rank and returns the exit status
        (0 when every rank succeeded; see :meth:`.launch.Ranks.wait`;
        `kill` = (rank, seconds) kills that rank mid-run).
        Host CPU use over the run is left in :attr:`cpu`."""
        ranks = Ranks(self.net, argv, port or random.randint(20000, 60000), env)
        self._ranks = ranks
        sampler = CpuSampler().start()
        try:
            ranks.start()
            return ranks.wait(timeout_s, grace_s, kill)
        finally:
            ranks.kill()
            self.cpu = sampler.stop()
