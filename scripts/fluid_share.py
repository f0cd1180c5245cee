"""How long an all-to-all takes when every transfer starts at once and the
links share fairly (max-min fair rates, recomputed whenever a transfer
finishes: the fluid model of TCP flows all posted together, torch's
``all_to_all_single`` on gloo), over its port bound (the busiest port's
bytes), for the testbed's workloads (tickopt.workloads, the same matrices
as scripts/testbed_a2a.py with the same seed). A ratio of 1 means no plan
can make that step faster on one tier: all-at-once already keeps the
busiest port busy to the end.

    python scripts/fluid_share.py --sigma 1.2 --hot-x 4 --seeds 6 7 8 9 --steps 20

Ports are full duplex, one per rank, all at one rate; the diagonal (local
copies) is left out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Dict, List, Tuple

import numpy as np

from tickopt import workloads

Flow = Tuple[int, int]


def max_min_rates(flows: List[Flow], world: int) -> Dict[Flow, float]:
    """Max-min fair rates (each port 1, both directions) by progressive
    filling: raise every unfrozen flow together until a port fills, freeze
    the flows through it, repeat."""
    out_cap, in_cap = np.ones(world), np.ones(world)
    rate = dict.fromkeys(flows, 0.0)
    live = set(flows)
    while live:
        out_n, in_n = np.zeros(world), np.zeros(world)
        for s, d in live:
            out_n[s] += 1
            in_n[d] += 1
        share = min(min(out_cap[s] / out_n[s], in_cap[d] / in_n[d]) for s, d in live)
        full_out = {s for s, _ in live if out_cap[s] / out_n[s] - share < 1e-12}
        full_in = {d for _, d in live if in_cap[d] / in_n[d] - share < 1e-12}
        for s, d in live:
            rate[(s, d)] += share
            out_cap[s] -= share
            in_cap[d] -= share
        live = {(s, d) for s, d in live if s not in full_out and d not in full_in}
    return rate


def all_at_once_time(m: np.ndarray) -> float:
    """Time for every transfer of `m` started at once, in port-time units."""
    left = {(s, d): float(m[s, d]) for s, d in zip(*np.nonzero(m)) if s != d}
    t = 0.0
    while left:
        rate = max_min_rates(list(left), len(m))
        dt = min(left[f] / rate[f] for f in left)
        t += dt
        left = {f: v - rate[f] * dt for f, v in left.items() if v - rate[f] * dt > 1e-9 * max(v, 1.0)}
    return t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", default="lognormal", choices=sorted(workloads.FAMILIES))
    p.add_argument("--world", type=int, default=8)
    p.add_argument("--sigma", type=float, default=1.2)
    p.add_argument("--hot-x", type=float, default=4.0)
    p.add_argument("--hot-fraction", type=float, default=1 / 8)
    p.add_argument("--mean-rows", type=float, default=128)
    p.add_argument("--seeds", type=int, nargs="+", default=[1])
    p.add_argument("--steps", type=int, default=20, help="steps per seed (testbed_a2a's, after its warm-up step 0)")
    a = p.parse_args(argv)
    ratios = []
    for seed in a.seeds:
        for step in range(1, a.steps + 1):
            m = np.array(
                workloads.matrix(a.workload, a.world, step, seed=seed, mean_rows=a.mean_rows, sigma=a.sigma,
                                 hot_x=a.hot_x, hot_fraction=a.hot_fraction),
                dtype=np.float64,
            )
            np.fill_diagonal(m, 0)
            bound = max(m.sum(axis=0).max(), m.sum(axis=1).max())
            if bound > 0:
                ratios.append(all_at_once_time(m) / bound)
    ratios.sort()
    at_bound = sum(r < 1 + 1e-6 for r in ratios)
    traffic = a.workload if a.workload == "uniform" else f"{a.workload} sigma {a.sigma:g} hot x{a.hot_x:g}"
    print(f"{traffic}, {a.world} ranks, {len(ratios)} matrices: "
          f"all at once, max-min fair / port bound: median {statistics.median(ratios):.4f}, "
          f"p90 {ratios[int(0.9 * (len(ratios) - 1))]:.4f}, max {ratios[-1]:.4f}; at the bound in {at_bound}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
