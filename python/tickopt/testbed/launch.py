"""Running one program in every rank's namespace, torchrun style.

Each rank runs ``python SCRIPT ARGS`` (the interpreter running the testbed)
inside its namespace with torchrun's variables: RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (the node), MASTER_ADDR (rank 0's
NIC address), MASTER_PORT, and GLOO_SOCKET_IFNAME=nic0, so an unchanged
``torch.distributed`` program (``init_process_group("gloo")``) runs.
``TICKOPT_TESTBED`` holds the topology as JSON for programs that want the
link rates (to state a port bound). Rank 0's output passes through; the
others' go to log files whose tails are printed when a rank fails.

Every process starts in a session of its own, so :meth:`Ranks.kill` ends
the program with everything it started.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from typing import IO, List, Optional, Sequence, Tuple

from .net import Network, Topology

#: Exit status when the run's own deadline passed (as `timeout` does).
TIMED_OUT = 124


class Ranks:
    """The ranks' processes of one run."""

    def __init__(self, net: Network, argv: Sequence[str], port: int, extra_env: Optional[dict] = None) -> None:
        self.net = net
        self.argv = list(argv)
        self.port = port
        self.extra_env = dict(extra_env or {})
        self.logdir = tempfile.mkdtemp(prefix="tickopt-testbed-")
        self.procs: List[subprocess.Popen] = []
        self._logs: List[IO] = []

    def env(self, rank: int) -> dict:
        t: Topology = self.net.topo
        node, local = divmod(rank, t.gpus_per_node)
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        env.update(
            RANK=str(rank),
            WORLD_SIZE=str(t.ranks),
            LOCAL_RANK=str(local),
            LOCAL_WORLD_SIZE=str(t.gpus_per_node),
            GROUP_RANK=str(node),
            NODE_RANK=str(node),
            MASTER_ADDR=t.nic_ip(0),
            MASTER_PORT=str(self.port),
            GLOO_SOCKET_IFNAME="nic0",
            TICKOPT_TESTBED=json.dumps(asdict(t)),
        )
        env.update(self.extra_env)
        return env

    def start(self) -> None:
        for r in range(self.net.topo.ranks):
            cmd = ["ip", "netns", "exec", self.net.rank_ns(r), sys.executable] + self.argv
            if r == 0:
                out = None
            else:
                out = open(self.log_path(r), "wb")
                self._logs.append(out)
            self.procs.append(
                subprocess.Popen(
                    cmd, env=self.env(r), stdout=out, stderr=subprocess.STDOUT if out else None,
                    start_new_session=True,
                )
            )

    def log_path(self, rank: int) -> str:
        return os.path.join(self.logdir, f"rank{rank}.log")

    def wait(self, timeout_s: Optional[float], grace_s: float, kill: Optional[Tuple[int, float]] = None) -> int:
        """Waits for every rank. When one fails, the others get `grace_s`
        seconds to end (their process group's timeout should fire) before
        they are killed; past `timeout_s` all are killed. `kill` = (rank,
        seconds): that rank's processes are killed with SIGKILL after that
        long (a fault to test: the others should fail, not hang). Returns
        0, the first failing rank's status, or TIMED_OUT."""
        start = time.monotonic()
        deadline = None if timeout_s is None else start + timeout_s
        failed_at = None
        status = 0
        while True:
            codes = [p.poll() for p in self.procs]
            if all(c is not None for c in codes):
                break
            now = time.monotonic()
            if kill is not None and now - start >= kill[1]:
                _killpg(self.procs[kill[0]])
                print(f"testbed: killed rank {kill[0]} after {kill[1]:g} s, as asked", file=sys.stderr)
                kill = None
            bad = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
            if bad and failed_at is None:
                failed_at = now
                status = bad[0][1]
                print(f"testbed: rank {bad[0][0]} exited with status {bad[0][1]}; "
                      f"waiting up to {grace_s:g} s for the others", file=sys.stderr)
            if failed_at is not None and now - failed_at > grace_s:
                self.kill()
                break
            if deadline is not None and now > deadline:
                print(f"testbed: the program ran past --timeout-s {timeout_s:g}; killing every rank",
                      file=sys.stderr)
                self.kill()
                return TIMED_OUT
            time.sleep(0.05)
        codes = [p.wait() for p in self.procs]
        first = next(((r, c) for r, c in enumerate(codes) if c != 0), None)
        if first is not None:
            self.report_failures(codes)
            status = status or first[1] or 1
            # A rank killed by a signal: the shell's convention, 128 + signal.
            return 128 - status if status < 0 else status
        return 0

    def report_failures(self, codes: Sequence[int]) -> None:
        for r, c in enumerate(codes):
            if c == 0 or r == 0:
                continue
            tail = _tail(self.log_path(r))
            why = f"killed by signal {-c}" if c < 0 else f"status {c}"
            print(f"testbed: rank {r} ({why}), last lines of its output:\n{tail}", file=sys.stderr)

    def kill(self) -> None:
        for p in self.procs:
            _killpg(p)
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for f in self._logs:
            f.close()


def _killpg(p: subprocess.Popen) -> None:
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, "rb") as f:
            text = f.read()[-8192:].decode(errors="replace")
    except OSError:
        return "  (no output)"
    return "\n".join("  " + line for line in text.splitlines()[-lines:]) or "  (no output)"
