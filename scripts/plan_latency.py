#!/usr/bin/env python3
"""Plan latency from Python (issue 37, doc/performance.md "Planning inside
the step"): ``tickopt.solve(matrix, bw=..., model=...)`` on skewed MoE
traffic matrices, as a user calls it every step.

Matrices: log-normal sizes (``sigma``; the mean kept at ``k`` chunks), a
1/16 of the ranks hot experts receiving ``hot`` times more, zero diagonal;
chunk = 8192 bits. Each row: the median plan time over ``--repeats`` plans
of fresh matrices (different seeds; three untimed plans first, as in a job
that plans every step, and no plan kept past its figures; the models take
turns on each matrix, so their rows share the same minutes of machine
noise), the plan's ticks, lower bound and
status, the pairwise-exchange baseline's ticks (``solver="pairwise"``) and
the predicted seconds of both under the cost model tick = alpha + chunk /
rate (rate 678 GB/s, doc/gpu.md) at alpha 36.3 us and 2 us, and plan time
over the predicted transfer time.

``--replan``: re-planning (issue 37 item 2) instead. A ``tickopt.Planner``
plans a sequence of matrices, each the one before with a tenth of its
entries changed by up to 20%; each row gives the median time of the
planner's edited plans and of ``tickopt.solve`` from scratch on the same
matrices, and their ratio (every edited plan is checked: validated by the
engine, ``optimal`` at its bound), timed two ways: back to back (the
sequence's edits in a row, then its plans from scratch in a row: each in
its own steady state, as a job runs one of them every step; the sequence
is walked forward, back and forward again, ``3 x --repeats`` plans of
each) and interleaved (each edit right after a plan from scratch has pushed the
planner's kept plan out of the caches).

Usage: scripts/plan_latency.py [--ranks 8,64,256,1024] [--sigma 1.2]
       [--hot 4] [--repeats 9] [--json OUT] [--replan]
Run with the project's venv (scripts/python_setup.sh prints its bin dir).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import tickopt

BW = 8192
RATE_BYTES_PER_S = 678e9


def matrix(n: int, k: int, sigma: float, hot: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sizes = BW * k * rng.lognormal(-sigma * sigma / 2, sigma, size=(n, n))
    hot_cols = rng.choice(n, size=max(1, n // 16), replace=False)
    sizes[:, hot_cols] *= hot
    m = np.maximum(np.rint(sizes), 1).astype(np.int64)
    np.fill_diagonal(m, 0)
    return m


# Untimed plans before each row's timed ones.
WARM_PLANS = 3


def seconds(ticks: int, alpha_us: float) -> float:
    return ticks * (alpha_us * 1e-6 + (BW / 8) / RATE_BYTES_PER_S)


def size_rows(n: int, k: int, models: list, args) -> list:
    """One row per model at ``n`` ranks and ``k``: the models take turns on
    each matrix (the first model alternating), so each row's median spans
    the same minutes of this machine's noise as the others'."""
    times = {model: [] for model in models}
    plans = {model: [] for model in models}
    # Untimed plans first, as a job planning every step is warm: the first
    # plans at a new size grow the allocator's heap (page faults).
    for warm in range(WARM_PLANS):
        for model in models:
            tickopt.solve(matrix(n, k, args.sigma, args.hot, args.repeats + warm), bw=BW, model=model)
    for seed in range(args.repeats):
        m = matrix(n, k, args.sigma, args.hot, seed)
        order = models if seed % 2 == 0 else models[::-1]
        for model in order:
            t = time.perf_counter()
            sol = tickopt.solve(m, bw=BW, model=model)
            times[model].append(time.perf_counter() - t)
            # Only the figures: a job planning every step drops the last
            # plan; keeping every solution alive made each plan take fresh
            # pages (the first 1,024-rank row measured about twice the
            # others).
            plans[model].append((seed, sol.ticks, sol.lower_bound, sol.status))
            del sol
    return [figures(n, model, k, times[model], plans[model], args) for model in models]


def figures(n: int, model: str, k: int, times: list, plans: list, args) -> dict:
    seed, ticks, lower_bound, status = plans[len(plans) // 2]
    m = matrix(n, k, args.sigma, args.hot, seed)
    base = tickopt.solve(m, bw=BW, model=model, solver="pairwise")
    plan_s = statistics.median(times)
    return {
        "ranks": n,
        "model": model,
        "k": k,
        "plan_us_median": round(plan_s * 1e6, 1),
        "plan_us_min": round(min(times) * 1e6, 1),
        "plan_us_max": round(max(times) * 1e6, 1),
        "ticks": ticks,
        "lower_bound": lower_bound,
        "status": status,
        "within_1pct": ticks * 100 <= lower_bound * 101,
        "pairwise_ticks": base.ticks,
        "pairwise_over_plan": round(base.ticks / ticks, 2),
        "predicted_s_alpha36": seconds(ticks, 36.3),
        "pairwise_s_alpha36": seconds(base.ticks, 36.3),
        "predicted_s_alpha2": seconds(ticks, 2.0),
        "pairwise_s_alpha2": seconds(base.ticks, 2.0),
        "plan_over_transfer_alpha2": round(plan_s / seconds(ticks, 2.0), 4),
    }


def changed(m: np.ndarray, rng) -> np.ndarray:
    """`m` with a tenth of its entries scaled by 0.8-1.2 (at least 1)."""
    pick = rng.random(m.shape) < 0.1
    scaled = np.maximum(np.rint(m * rng.uniform(0.8, 1.2, m.shape)), 1)
    out = np.where(pick & (m > 0), scaled, m).astype(np.int64)
    np.fill_diagonal(out, 0)
    return out


def replan_row(n: int, model: str, k: int, args) -> dict:
    rng = np.random.default_rng(1000 + n + k)
    first = matrix(n, k, args.sigma, args.hot, 0)
    seq = [first]
    for _ in range(args.repeats):
        seq.append(changed(seq[-1], rng))

    # Edits that fell back to a plan from scratch (the planner does when
    # an edit cannot reach Delta: a STRICT1 alternating path closing on
    # the sender), timed with the edits as a user would see them.
    fallbacks = [0]

    def edit(planner, m) -> float:
        t = time.perf_counter()
        plan = planner.solve(m)
        took = time.perf_counter() - t
        fallbacks[0] += not planner.last_edited
        assert plan.status == "optimal" and plan.ticks == plan.lower_bound, (n, model, k)
        return took

    def scratch(m) -> float:
        t = time.perf_counter()
        tickopt.solve(m, bw=BW, model=model)
        return time.perf_counter() - t

    # The sequence is walked forward, back and forward again (each step
    # one change), so a drift in the machine's speed reaches both sides.
    walks = [seq[1:], seq[-2::-1], seq[1:]]
    # Back to back: a walk's edits in a row, then its plans from scratch.
    planner = tickopt.Planner(n, bw=BW, model=model)
    planner.solve(first)
    edit_t, scratch_t = [], []
    for walk in walks:
        edit_t += [edit(planner, m) for m in walk]
        scratch_t += [scratch(m) for m in walk]
    # Interleaved: each edit after a plan from scratch.
    planner = tickopt.Planner(n, bw=BW, model=model)
    planner.solve(first)
    inter_edit, inter_scratch = [], []
    for walk in walks:
        for m in walk:
            inter_scratch.append(scratch(m))
            inter_edit.append(edit(planner, m))
    med = statistics.median
    e, s_, ie, is_ = med(edit_t), med(scratch_t), med(inter_edit), med(inter_scratch)
    return {"ranks": n, "model": model, "k": k, "plans": len(edit_t),
            "edited": len(edit_t) + len(inter_edit) - fallbacks[0], "edits": len(edit_t) + len(inter_edit),
            "edit_us_median": round(e * 1e6, 1), "scratch_us_median": round(s_ * 1e6, 1),
            "ratio": round(s_ / e, 2),
            "interleaved_edit_us_median": round(ie * 1e6, 1),
            "interleaved_scratch_us_median": round(is_ * 1e6, 1),
            "interleaved_ratio": round(is_ / ie, 2)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", default="8,64,256,1024")
    p.add_argument("--models", default="READ1_WRITE1,STRICT1")
    p.add_argument("--ks", default="1,4")
    p.add_argument("--sigma", type=float, default=1.2)
    p.add_argument("--hot", type=float, default=4.0)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--json", help="write the rows here as JSON")
    p.add_argument("--replan", action="store_true",
                   help="time re-planning from the previous plan against planning from scratch")
    args = p.parse_args()
    if args.replan:
        return replan_main(args)
    rows = []
    load = os.getloadavg()[0]
    print(f"# tickopt {tickopt.__version__}, sigma {args.sigma}, hot x{args.hot}, "
          f"{args.repeats} plans per row, load average {load:.2f}", file=sys.stderr)
    print("| ranks | model | k | plan (Python, median) | ticks | bound | status | pairwise ticks | x | "
          "predicted s (a=36.3us / 2us) | pairwise s (36.3 / 2) | plan / transfer (2us) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in args.ranks.split(",")]:
        for k in [int(x) for x in args.ks.split(",")]:
            for r in size_rows(n, k, args.models.split(","), args):
                rows.append(r)
                t = r["plan_us_median"]
                shown = f"{t:.0f} us" if t < 10_000 else f"{t / 1000:.1f} ms"
                print(f"| {n} | {r['model']} | {k} | {shown} | {r['ticks']} | {r['lower_bound']} | "
                      f"{r['status']} | {r['pairwise_ticks']} | {r['pairwise_over_plan']} | "
                      f"{r['predicted_s_alpha36'] * 1e3:.2f} / {r['predicted_s_alpha2'] * 1e3:.2f} ms | "
                      f"{r['pairwise_s_alpha36'] * 1e3:.2f} / {r['pairwise_s_alpha2'] * 1e3:.2f} ms | "
                      f"{r['plan_over_transfer_alpha2']} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average": load, "sigma": args.sigma, "hot": args.hot, "rows": rows}, f, indent=1)
    return 0


def replan_main(args) -> int:
    load = os.getloadavg()[0]
    print(f"# tickopt {tickopt.__version__}, re-planning, sigma {args.sigma}, hot x{args.hot}, "
          f"{args.repeats} plans per row, load average {load:.2f}", file=sys.stderr)
    print("| ranks | model | k | plans | edited | back to back: edit / scratch (Python, medians) | x | "
          "interleaved: edit / scratch | x |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for n in [int(x) for x in args.ranks.split(",")]:
        for k in [int(x) for x in args.ks.split(",")]:
            for model in args.models.split(","):
                r = replan_row(n, model, k, args)
                rows.append(r)
                print(f"| {n} | {model} | {k} | {r['plans']} | {r['edited']}/{r['edits']} | "
                      f"{r['edit_us_median'] / 1000:.2f} / {r['scratch_us_median'] / 1000:.2f} ms | "
                      f"{r['ratio']} | {r['interleaved_edit_us_median'] / 1000:.2f} / "
                      f"{r['interleaved_scratch_us_median'] / 1000:.2f} ms | "
                      f"{r['interleaved_ratio']} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_average": load, "replan": True, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
