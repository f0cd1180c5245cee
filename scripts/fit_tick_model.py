#!/usr/bin/env python3
"""Fits a per-tick cost model to `tickopt replay` reports (doc/gpu.md).

Model:  tick_us = latency_us + bytes / bandwidth   (least squares on the
median time of every tick of every scheduled run). Prints the fitted
constants, R^2 over ticks, and how well the model predicts each run's
measured total (sum over its ticks), including the all-at-once runs it was
not fitted on. Only runs in the host mode are fitted tick by tick (the
graph and device modes time whole runs; their per-tick entries are
total / ticks).

--by-mode fits every mode (issue 54) on whole runs instead:
total_us = alpha_us * ticks + bytes / rate (least squares without
intercept over the scheduled runs of each mode, all reports together), and
prints alpha (the cost per tick beyond the copies) and rate per mode. No
dependencies.

Usage: fit_tick_model.py REPLAY.json... [--markdown] [--by-mode [--json]]
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


def by_mode(reports, md):
    """Per mode: total_us = alpha * ticks + bytes / rate over whole runs."""
    groups = {}
    for _, rep in reports:
        for run in rep["runs"]:
            if run["label"] == "all_at_once" or not run["verification"]["passed"]:
                continue
            groups.setdefault(run.get("mode", "host"), []).append(run)
    if md:
        print("| mode | runs | alpha (us per tick) | rate (GB/s) | worst error |")
        print("|---|---:|---:|---:|---:|")
    out = {}
    for mode, runs in sorted(groups.items()):
        xs = [(float(r["ticks"]), float(r["bytes"])) for r in runs]
        ys = [r["total"]["median_us"] for r in runs]
        ata = [[sum(x[i] * x[j] for x in xs) for j in range(2)] for i in range(2)]
        aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(2)]
        try:
            alpha, per_byte = solve(ata, aty)
        except ZeroDivisionError:
            alpha, per_byte = float("nan"), float("nan")
        rate = 1e-3 / per_byte if per_byte > 0 else float("inf")
        worst = max(abs(alpha * t + per_byte * b - y) / y for (t, b), y in zip(xs, ys))
        out[mode] = {"runs": len(runs), "alpha_us": alpha, "rate_gbps": rate, "worst_error": worst}
        if md:
            print(f"| {mode} | {len(runs)} | {alpha:.2f} | {rate:.1f} | {worst * 100:.0f}% |")
        else:
            print(f"{mode:16} runs {len(runs):3}  alpha {alpha:9.2f} us/tick  rate {rate:9.1f} GB/s  worst error {worst * 100:5.0f}%")
    return out


def main():
    paths = [p for p in sys.argv[1:] if not p.startswith("--")]
    md = "--markdown" in sys.argv
    reports = [(p, json.load(open(p))) for p in paths]
    if "--by-mode" in sys.argv:
        res = by_mode(reports, md)
        if "--json" in sys.argv:
            print(json.dumps(res, indent=1))
        return
    rows = []
    for p, rep in reports:
        for run in rep["runs"]:
            if run["label"] == "all_at_once" or run["per_tick_truncated"]:
                continue
            if run.get("mode", "host") != "host":
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
