"""``python -m tickopt.testbed``: the command line (see the package docs)."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import List, Optional

from . import Testbed, TestbedError, Topology


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m tickopt.testbed",
        description=(
            "Run a torch.distributed program on an emulated cluster whose links set the time: "
            "a network namespace per rank, veths into Linux bridges (a spine switch for NICs, "
            "one switch per node for NVLink), each direction shaped by tc. Every rank runs "
            "`python SCRIPT ARGS` with torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, "
            "MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME); rank 0's output passes through. "
            "Everything is removed on exit, error or Ctrl-C. Needs root and iproute2."
        ),
        epilog="example: python -m tickopt.testbed --nodes 8 --nic-mbit 100 -- "
        "python/examples/testbed_a2a.py --steps 10",
    )
    p.add_argument("--nodes", type=int, required=True, help="nodes (each with --gpus-per-node ranks)")
    p.add_argument("--gpus-per-node", type=int, default=1, help="ranks per node (default 1: no NVLink)")
    p.add_argument("--nic-mbit", type=float, required=True, help="each NIC's rate, Mbit/s each way")
    p.add_argument(
        "--nvlink-mbit", type=float, default=None,
        help="each NVLink port's rate, Mbit/s each way (default: unshaped; needs --gpus-per-node > 1)",
    )
    p.add_argument(
        "--delay-us", type=float, default=None,
        help="one-way delay per link: not built (it needs tc's netem qdisc, which this project's "
        "machines lack); refused",
    )
    p.add_argument("--queue-ms", type=float, default=20.0,
                   help="each link direction's queue, in ms at its rate (default 20)")
    p.add_argument("--mtu", type=int, default=9000,
                   help="frame size of every link in bytes (default 9000, jumbo frames as cluster networks "
                   "run; 1500 costs the host's cores six times as much per byte)")
    p.add_argument("--rto-min-ms", type=float, default=None,
                   help="least TCP retransmission timeout on every rank's routes, ms (default: the kernel's, "
                   "200; data-centre hosts run 1-5: a lost tail then costs milliseconds and steps scatter less)")
    p.add_argument("--congestion", default="cubic",
                   help="TCP congestion control on every rank's routes (default cubic, Linux's default; "
                   "the host's own default is not used: BBR misjudges these shaped links)")
    faults = p.add_argument_group("faults (removed with everything else)")
    faults.add_argument("--loss", type=float, default=0.0, metavar="PCT",
                        help="drop PCT percent of every rank's incoming TCP packets at random (nftables)")
    faults.add_argument("--slow-rank", type=int, default=None, metavar="R",
                        help="rank R's NIC runs at 1/--slow-factor of the rate, both ways")
    faults.add_argument("--slow-factor", type=float, default=2.0, metavar="F", help="default 2")
    faults.add_argument("--kill-rank", type=int, default=None, metavar="R",
                        help="kill rank R's processes (SIGKILL) after --kill-after-s seconds")
    faults.add_argument("--kill-after-s", type=float, default=5.0, metavar="S", help="default 5")
    p.add_argument("--timeout-s", type=float, default=None,
                   help="kill every rank after this many seconds (exit status 124)")
    p.add_argument("--grace-s", type=float, default=30.0,
                   help="after one rank fails, how long the others may take to end (default 30)")
    p.add_argument("script", metavar="SCRIPT",
                   help="the Python program every rank runs (or -m MODULE, as python takes it)")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="its arguments")
    return p


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Optional[List[str]] = None) -> int:
    a = parser().parse_args(argv)
    if a.delay_us is not None:
        print(
            "testbed: --delay-us is not built: a delay needs tc's netem qdisc (sch_netem), which "
            "this project's machines lack; run without it",
            file=sys.stderr,
        )
        return 2
    topo = Topology(
        a.nodes, a.gpus_per_node, a.nic_mbit, a.nvlink_mbit, a.queue_ms,
        slow_rank=a.slow_rank, slow_factor=a.slow_factor if a.slow_rank is not None else 1.0, loss_pct=a.loss,
        mtu=a.mtu, rto_min_ms=a.rto_min_ms, congestion=a.congestion,
    )
    if a.kill_rank is not None and not 0 <= a.kill_rank < topo.ranks:
        print(f"testbed: --kill-rank {a.kill_rank} is not a rank (0..{topo.ranks - 1})", file=sys.stderr)
        return 2
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _interrupt)
    try:
        tb = Testbed(topo)
        start = time.monotonic()
        with tb:
            links = f"NIC {topo.nic_mbit:g} Mbit/s" + (
                f", NVLink {topo.nvlink_mbit:g} Mbit/s" if topo.nvlink_mbit else
                (", NVLink unshaped" if topo.gpus_per_node > 1 else "")
            )
            print(f"testbed: {topo.nodes} node(s) x {topo.gpus_per_node} rank(s), {links}", file=sys.stderr)
            kill = None if a.kill_rank is None else (a.kill_rank, a.kill_after_s)
            status = tb.run([a.script] + a.args, timeout_s=a.timeout_s, grace_s=a.grace_s, kill=kill)
        left = tb.close()
        if tb.cpu is not None:
            print(f"testbed: {time.monotonic() - start:.1f} s; {tb.cpu.line()}", file=sys.stderr)
        if left:
            print(f"testbed: could not remove {', '.join(left)}", file=sys.stderr)
            return status or 1
        return status
    except TestbedError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("testbed: interrupted; everything it made is removed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
