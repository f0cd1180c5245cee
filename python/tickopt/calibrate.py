"""``python -m tickopt.calibrate``: measures what one message costs on the
process group in use (alpha: the fixed part; the rate: bytes per second),
for the cost model (DESIGN.md §12, §14) and ``tickopt calibrate``.

Run it as any torch.distributed program, on every rank (under torchrun, or
the testbed, which takes ``-m MODULE`` in place of a script)::

    python -m tickopt.testbed --nodes 2 --nic-mbit 100 -- -m tickopt.calibrate --out calib.json
    tickopt calibrate calib.json      # alpha and rate, and the flags to pass

Ranks pair up (0 with 1, 2 with 3, ...; an odd last rank idles); in each
pair the even rank sends the odd one `--reps` messages of each size in a
row, the way the dataflow runner does (one send outstanding: the next is
posted when the last completed), and the odd rank receives them; a message
costs the run's time over its count. Pairs run at the same time on
disjoint links. Rank 0 writes the medians as an executor report (``per_tick``
entries of ``max_copy_bytes`` and ``median_us``), which ``tickopt
calibrate`` fits, and prints its own least-squares fit.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from typing import List, Sequence, Tuple

import torch
import torch.distributed as dist

DEFAULT_SIZES = (4096, 65536, 262144, 1048576, 4194304)


def fit(points: Sequence[Tuple[int, float]]) -> Tuple[float, float]:
    """Least squares ``us = alpha + bytes * slope``: (alpha_us, bytes per second)."""
    n = len(points)
    mx = sum(b for b, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((b - mx) ** 2 for b, _ in points)
    if sxx == 0:
        raise ValueError("messages of at least two sizes are needed to fit a rate")
    slope = sum((b - mx) * (t - my) for b, t in points) / sxx
    if slope <= 0:
        raise ValueError("time does not grow with bytes: no rate can be fitted")
    return my - slope * mx, 1e6 / slope


def measure(size: int, reps: int, rounds: int) -> List[float]:
    """This pair's microseconds per message, one figure per round."""
    rank, world = dist.get_rank(), dist.get_world_size()
    peer = rank ^ 1
    idle = peer >= world
    buf = torch.zeros(size, dtype=torch.uint8)
    out = []
    for _ in range(rounds):
        dist.barrier()
        t0 = time.perf_counter()
        if not idle:
            for _ in range(reps):
                (dist.isend if rank % 2 == 0 else dist.irecv)(buf, peer).wait()
        # The receiver's clock: its last message is in.
        out.append((time.perf_counter() - t0) * 1e6 / reps)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tickopt.calibrate", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="message sizes in bytes")
    p.add_argument("--reps", type=int, default=8, help="messages of each size in a row (default 8)")
    p.add_argument("--rounds", type=int, default=5, help="rounds per size; the median counts (default 5)")
    p.add_argument("--out", default=None, help="rank 0 writes the report (tickopt calibrate's input) here")
    a = p.parse_args(argv)
    sizes = [int(x) for x in a.sizes.split(",") if x]
    if len(set(sizes)) < 2 or min(sizes) <= 0:
        p.error("--sizes needs at least two different sizes > 0")
    if not dist.is_initialized():
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
    if dist.get_world_size() < 2:
        p.error("needs at least 2 ranks")
    medians = []
    for size in sizes:
        mine = statistics.median(measure(size, a.reps, a.rounds))
        # The pair's figure is the receiver's (odd rank 1 for pair 0).
        t = torch.tensor([mine if dist.get_rank() == 1 else 0.0], dtype=torch.float64)
        dist.all_reduce(t)
        medians.append((size, t.item()))
    if dist.get_rank() == 0:
        alpha_us, rate = fit(medians)
        report = {
            "source": "tickopt.calibrate",
            "group": {"backend": dist.get_backend(), "world": dist.get_world_size()},
            "per_tick": [{"max_copy_bytes": b, "median_us": t} for b, t in medians],
        }
        for b, t in medians:
            print(f"{b:>10} B  {t:12.1f} us per message  ({b / t:.3f} MB/s)")
        print(f"fit: a message costs {alpha_us:.1f} us + bytes / {rate / 1e6:.3f} MB/s "
              f"({rate * 8 / 1e9:.4f} Gbit/s)")
        if a.out:
            with open(a.out, "w") as f:
                json.dump(report, f, indent=1)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
