#!/usr/bin/env python3
"""Fits a per-tick cost model to `tickopt replay` reports (doc/gpu.md).

Model:  tick_us = latency_us + bytes / bandwidth   (least squares on the
median time of every tick of every scheduled run). Prints the fitted
constants, R^2 over ticks, and how well the model predicts each run's
measured total (sum over its ticks), including the all-at-once runs it was
not fitted on. No dependencies.

Usage: fit_tick_model.py REPLAY.json... [--markdown]
"""
import json
import sys


def solve(a, b):
    """Gaussian elimination for a small dense system a x = b."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows, cols):
    """OLS of y on the given feature columns (with intercept); returns coef, R^2."""
    xs = [[1.0] + [r[c] for c in cols] for r in rows]
    ys = [r["y"] for r in rows]
    k = len(xs[0])
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    coef = solve(ata, aty)
    mean = sum(ys) / len(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    ss_res = sum((y - sum(c * v for c, v in zip(coef, x))) ** 2 for x, y in zip(xs, ys))
    return coef, 1 - ss_res / ss_tot if ss_tot > 0 else 1.0


def main():
    paths = [p for p in sys.argv[1:] if not p.startswith("--")]
    md = "--markdown" in sys.argv
    reports = [(p, json.load(open(p))) for p in paths]
    rows = []
    for p, rep in reports:
        for run in rep["runs"]:
            if run["label"] == "all_at_once" or run["per_tick_truncated"]:
                continue
            for t in run["per_tick"]:
                rows.append({"y": t["median_us"], "bytes": float(t["bytes"]),
                             "copies": float(t["copies"])})
    (lat, per_byte), r2 = fit(rows, ["bytes"])
    bw = 1e-3 / per_byte if per_byte > 0 else float("inf")  # bytes/us -> GB/s
    print(f"ticks fitted: {len(rows)}")
    print(f"model: tick_us = {lat:.2f} + bytes / ({bw:.1f} GB/s)   R^2 over ticks = {r2:.4f}")
    sep = "|" if md else " "
    if md:
        print("\n| report | run | ticks | measured total | model | error |")
        print("|---|---|---:|---:|---:|---:|")
    for p, rep in reports:
        for run in rep["runs"]:
            ticks = run["per_tick"]
            if run["per_tick_truncated"]:
                continue
            pa = sum(lat + t["bytes"] * per_byte for t in ticks)
            meas = run["total"]["median_us"]
            name = p.rsplit("/", 1)[-1].removeprefix("replay_").removesuffix(".json")
            cells = [name, run["label"], str(run["ticks"]), f"{meas:.0f} us", f"{pa:.0f} us",
                     f"{(pa - meas) / meas * 100:+.1f}%"]
            print(("| " + " | ".join(cells) + " |") if md else sep.join(c.ljust(14) for c in cells))


if __name__ == "__main__":
    main()
