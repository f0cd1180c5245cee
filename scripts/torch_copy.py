#!/usr/bin/env python3
"""PyTorch baseline for `tickopt replay --executor cuda` (doc/gpu.md).

Moves the same bytes between the same slot regions as tickopt, with
`Tensor.copy_`, and times it with CUDA events:

  all_at_once_default  every demand's region copied on the current stream
  all_at_once_streams  one stream per demand, all started together
  ticks:<name>         a compact schedule replayed tick by tick the way
                       tickopt does it (one stream per copy in a tick, a
                       barrier between ticks)

Usage:
  torch_copy.py REPLAY_REPORT.json [--schedule NAME=COMPACT.json ...]
                [--warmup K] [--repeat R] [--out TORCH.json]

REPLAY_REPORT.json is what `tickopt replay --out` wrote: its `layout` gives
every region's offsets, so the byte ranges are exactly tickopt's. The
schedules must be tickopt compact JSON (`tickopt solve --format compact`).
"""
import argparse
import json
import math
import statistics

import torch


def stats(xs):
    v = sorted(xs)
    n = len(v)
    rank = max(1, min(n, math.ceil(0.95 * n)))
    return {
        "median_us": statistics.median(v),
        "p95_us": v[rank - 1],
        "min_us": v[0],
        "max_us": v[-1],
        "mean_us": sum(v) / n,
        "samples": n,
    }


def scaled_bytes(bits, scale):
    return -(-bits // (scale * 8))


def plan_ticks(sched, layout, scale, bw, demand_bits):
    """Per tick: list of (src_abs, dst_abs, len), as tickopt's Plan builds them."""
    index = {(r["src_slot"], r["dst_slot"]): i for i, r in enumerate(layout["regions"])}
    sent = [0] * len(layout["regions"])
    base = layout["slot_base"]
    ticks = []
    for rnd in sched["rounds"]:
        pairs = [index[(a, b)] for a, b in rnd["pairs"]]
        for _ in range(rnd["repeat"]):
            tick = []
            for i in pairs:
                r = layout["regions"][i]
                k = sent[i]
                sent[i] += 1
                b0 = k * bw
                b1 = min(b0 + bw, demand_bits[i])
                s, e = scaled_bytes(b0, scale), scaled_bytes(b1, scale)
                if e > s:
                    tick.append((base[r["src_slot"]] + r["src_offset"] + s,
                                 base[r["dst_slot"]] + r["dst_offset"] + s, e - s))
            ticks.append(tick)
    return ticks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--instance", help="instance JSON (default: the report's)")
    ap.add_argument("--schedule", action="append", default=[], metavar="NAME=COMPACT.json")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--tiny-copies", type=int, default=2000,
                    help="back-to-back 256-byte copies timed for the per-copy launch cost")
    ap.add_argument("--out")
    a = ap.parse_args()

    rep = json.load(open(a.report))
    layout = rep["layout"]
    scale = layout["scale_bits"]
    if layout["devices"] != 1:
        raise SystemExit("torch_copy.py handles one device")
    inst = json.load(open(a.instance or rep["instance"]))
    bits = {(d["src_slot"], d["dst_slot"]): 0 for d in inst["demands"]}
    for d in inst["demands"]:
        bits[(d["src_slot"], d["dst_slot"])] += d["bits_total"]
    demand_bits = [bits[(r["src_slot"], r["dst_slot"])] for r in layout["regions"]]

    dev = torch.device("cuda:0")
    arena = torch.empty(layout["device_bytes"][0], dtype=torch.uint8, device=dev)
    arena.random_(0, 256)
    base = layout["slot_base"]
    regions = [(base[r["src_slot"]] + r["src_offset"], base[r["dst_slot"]] + r["dst_offset"], r["bytes"])
               for r in layout["regions"] if r["bytes"] > 0]
    views = [(arena[s:s + n], arena[d:d + n]) for s, d, n in regions]
    total_bytes = sum(n for _, _, n in regions)
    out = {
        "tool": "torch %s, CUDA %s" % (torch.__version__, torch.version.cuda),
        "device": torch.cuda.get_device_name(0),
        "report": a.report,
        "scale_bits": scale,
        "bytes": total_bytes,
        "warmup": a.warmup,
        "repeat": a.repeat,
        "runs": {},
    }
    main_stream = torch.cuda.current_stream()

    def timed(fn):
        samples = []
        for r in range(a.warmup + a.repeat):
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            if r >= a.warmup:
                samples.append(start.elapsed_time(end) * 1e3)
        return samples

    def default_stream():
        for src, dst in views:
            dst.copy_(src)

    streams = [torch.cuda.Stream() for _ in views]

    def per_stream():
        ev = torch.cuda.Event()
        ev.record()
        done = []
        for (src, dst), s in zip(views, streams):
            s.wait_event(ev)
            with torch.cuda.stream(s):
                dst.copy_(src)
                e = torch.cuda.Event()
                e.record()
            done.append(e)
        for e in done:
            main_stream.wait_event(e)

    for name, fn in [("all_at_once_default", default_stream), ("all_at_once_streams", per_stream)]:
        s = stats(timed(fn))
        out["runs"][name] = {"ticks": 1, "copies": len(views), "total": s,
                             "effective_gbps": total_bytes / s["median_us"] / 1e3}
        # Check the bytes really moved.
        for src, dst in views:
            if not torch.equal(src, dst):
                raise SystemExit(f"{name}: a region differs after the copy")

    for spec in a.schedule:
        name, path = spec.split("=", 1)
        sched = json.load(open(path))
        ticks = plan_ticks(sched, layout, scale, inst["copy_bw_bits_per_tick"], demand_bits)
        tviews = [[(arena[s:s + n], arena[d:d + n]) for s, d, n in t] for t in ticks]
        width = max((len(t) for t in tviews), default=1)
        lanes = [main_stream] + [torch.cuda.Stream() for _ in range(max(0, width - 1))]
        marks = [torch.cuda.Event(enable_timing=True) for _ in range(len(tviews) + 1)]
        dones = [torch.cuda.Event() for _ in lanes]
        per_tick = [[] for _ in tviews]
        totals = []
        for r in range(a.warmup + a.repeat):
            torch.cuda.synchronize()
            for t, tick in enumerate(tviews):
                marks[t].record(main_stream)
                for j, (src, dst) in enumerate(tick):
                    if j == 0:
                        dst.copy_(src)
                        continue
                    s = lanes[j]
                    s.wait_event(marks[t])
                    with torch.cuda.stream(s):
                        dst.copy_(src)
                    dones[j].record(s)
                    main_stream.wait_event(dones[j])
            marks[-1].record(main_stream)
            marks[-1].synchronize()
            if r >= a.warmup:
                for t in range(len(tviews)):
                    per_tick[t].append(marks[t].elapsed_time(marks[t + 1]) * 1e3)
                totals.append(marks[0].elapsed_time(marks[-1]) * 1e3)
        flat = [x for xs in per_tick for x in xs]
        s = stats(totals)
        out["runs"]["ticks:" + name] = {
            "ticks": len(tviews),
            "copies": sum(len(t) for t in tviews),
            "tick": stats(flat),
            "total": s,
            "effective_gbps": total_bytes / s["median_us"] / 1e3,
            "per_tick_median_us": [statistics.median(xs) for xs in per_tick[:20000]],
        }

    # Per-copy launch cost: many tiny copies back to back on one stream.
    src, dst = arena[:256], arena[256:512]
    n = a.tiny_copies

    def tiny():
        for _ in range(n):
            dst.copy_(src)

    s = stats(timed(tiny))
    out["tiny_copy_us"] = s["median_us"] / n
    out["tiny_copies"] = n

    text = json.dumps(out, indent=1)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    for name, r in out["runs"].items():
        tick = r.get("tick", {}).get("median_us")
        print(f"{name:28s} ticks {r['ticks']:6d}  total {r['total']['median_us']:12.1f} us  "
              f"{r['effective_gbps']:8.2f} GB/s" + (f"  tick med {tick:.2f} us" if tick else ""))
    print(f"tiny copy_ (256 B, back to back): {out['tiny_copy_us']:.2f} us each")


if __name__ == "__main__":
    main()
