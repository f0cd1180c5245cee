"""Pools several runs of ``scripts/testbed_a2a.py --json F`` by traffic
(workload, sigma, hot factor; one table per traffic) and prints, for each
method against torch, over every step of every run: the median step time,
the median and the mean of the per-step ratios with 95% bootstrap
intervals (steps resampled, seeded), the steps faster than torch's with
the sign test's two-sided p-value, and each run's median step time over
torch's. One run of 20 steps cannot tell
a 0.5% difference from the steps' scatter; several runs pooled can.

    python scripts/testbed_pool.py /tmp/a2a_s7.json /tmp/a2a_s8.json ...

Only the standard library: it runs anywhere the JSON files are.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import statistics
import sys
from typing import Dict, List, Sequence, Tuple


def bootstrap(values: Sequence[float], stat, draws: int = 2000) -> Tuple[float, float]:
    """95% bootstrap interval of `stat` over `values` (seeded: the same
    values give the same interval)."""
    rng = random.Random(0)
    got = sorted(stat(rng.choices(values, k=len(values))) for _ in range(draws))
    return got[int(0.025 * draws)], got[int(0.975 * draws) - 1]


def ratio_interval(ratios: Sequence[float], draws: int = 2000) -> Tuple[float, float, float, int]:
    """The mean of per-step ratios, its 95% bootstrap interval and how many
    ratios are below 1."""
    lo, hi = bootstrap(ratios, statistics.fmean, draws)
    return statistics.fmean(ratios), lo, hi, sum(r < 1 for r in ratios)


def sign_test(faster: int, n: int) -> float:
    """Two-sided p-value of `faster` steps of `n` under "either method is
    faster with probability 1/2" (the exact binomial sign test)."""
    k = max(faster, n - faster)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n)


def traffic_of(run: dict) -> str:
    a = run["args"]
    if a["workload"] == "uniform":
        return "uniform"
    return f"{a['workload']} sigma {a['sigma']:g} hot x{a['hot_x']:g}"


def load(paths: Sequence[str]) -> Dict[str, List[Tuple[str, dict]]]:
    runs: Dict[str, List[Tuple[str, dict]]] = collections.defaultdict(list)
    for p in paths:
        try:
            with open(p) as f:
                run = json.load(f)
            run["steps"], run["args"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"testbed_pool: {p}: not a testbed_a2a.py --json file ({e})")
        if "torch" not in run["args"]["methods"]:
            raise SystemExit(f"testbed_pool: {p}: has no torch steps to compare with")
        runs[traffic_of(run)].append((p, run))
    return runs


def report(traffic: str, runs: List[Tuple[str, dict]]) -> None:
    steps = [s for _, r in runs for s in r["steps"]]
    methods = [m for m in runs[0][1]["args"]["methods"] if all(m in s["wall_s"] for s in steps)]
    print(f"{traffic}: {len(runs)} run(s), {len(steps)} steps")
    print(f"  {'method':10} {'median s':>9} {'/torch median [95%]':>24} {'/torch mean [95%]':>24} {'faster':>9}"
          f" {'sign p':>7}  each run's median step / torch's")
    for m in methods:
        med = statistics.median(s["wall_s"][m] for s in steps)
        if m == "torch":
            print(f"  {m:10} {med:9.3f}")
            continue
        ratios = [s["wall_s"][m] / s["wall_s"]["torch"] for s in steps]
        mlo, mhi = bootstrap(ratios, statistics.median)
        mean, lo, hi, faster = ratio_interval(ratios)
        per_run = [
            statistics.median(s["wall_s"][m] for s in r["steps"]) / statistics.median(s["wall_s"]["torch"] for s in r["steps"])
            for _, r in runs
        ]
        print(f"  {m:10} {med:9.3f} {statistics.median(ratios):7.3f} [{mlo:.3f}, {mhi:.3f}]   "
              f"{mean:7.3f} [{lo:.3f}, {hi:.3f}]   {faster:3d} of {len(ratios):<3d} "
              f"{sign_test(faster, len(ratios)):7.4f}  "
              + " ".join(f"{x:.3f}" for x in per_run))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="+", help="files written by scripts/testbed_a2a.py --json")
    a = p.parse_args(argv)
    for traffic, runs in load(a.json).items():
        report(traffic, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
