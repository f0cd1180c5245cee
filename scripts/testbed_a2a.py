"""Skewed all-to-all on the emulated cluster: torch's ``all_to_all_single``
against tickopt's runner (dataflow, default arguments), the same plan run
tick by tick, and the pairwise order through the dataflow runner.

Run it under the testbed (every rank runs this file):

    python -m tickopt.testbed --nodes 8 --nic-mbit 100 -- \\
        scripts/testbed_a2a.py --workload lognormal --sigma 1.4 --hot-x 5 --steps 15

Every step draws a fresh split matrix (tickopt.workloads, the same on every
rank), fills each rank's input with a pattern of (rank, step), and runs every
method on it, in an order that rotates from step to step so that each method
meets the same minutes of machine noise. A method's time for a step is the
slowest rank's, measured from a barrier; tickopt's includes its split
exchange and planning. Every tickopt output is compared byte for byte with
torch's (a mismatch fails the run). Rank 0 prints one line per method:
median, p10 and p90 seconds per step, the median over the steps of each
step's time over its port bound (the busiest port's bytes over the NIC
rate, TICKOPT_TESTBED's), over torch's time for the same step and over
the cost model's prediction for tickopt's plan run as dataflow
(``Solution.predict_dataflow_seconds``: --alpha-us a message, the payload
share of the rate), and the ranks' CPU time over the wall time of the
host's cores;
``--json PATH`` writes every step's figures.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.distributed as dist

import tickopt
import tickopt.torch as tt
from tickopt import workloads
from tickopt._p2p_run import auto_chunk
from testbed_pool import ratio_interval  # scripts/, beside this file

METHODS = ("torch", "tickopt", "dataflow", "ticks", "pairwise", "relay")


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workload", default="lognormal", choices=sorted(workloads.FAMILIES))
    p.add_argument("--sigma", type=float, default=1.2)
    p.add_argument("--hot-x", type=float, default=4.0)
    p.add_argument("--hot-fraction", type=float, default=1 / 8)
    p.add_argument("--mean-rows", type=float, default=128)
    p.add_argument("--row-bytes", type=int, default=4096)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=1, help="steps run first and not counted")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--methods", default="torch,tickopt,dataflow,ticks",
                   help=f"comma-separated, of {', '.join(METHODS)} (tickopt: tickopt.torch's defaults; "
                        "dataflow, ticks: its runner= forced; pairwise: a fixed pairwise order run as "
                        "dataflow; relay: tickopt with relays through the GPUs of each node, needs "
                        "--gpus-per-node > 1 on the testbed)")
    p.add_argument("--nvlink-speedup", type=int, default=None,
                   help="chunks an NVLink port carries per NIC chunk, for relay (default: the testbed's "
                        "NVLink rate over its NIC rate, at least 1)")
    p.add_argument("--chunk-bytes", type=int, default=None,
                   help="tickopt's chunk in bytes (default: tickopt.torch's, the busiest port over ~64 ticks)")
    p.add_argument("--json", default=None, help="rank 0 writes every step's figures here")
    p.add_argument("--timeout-s", type=float, default=120, help="the process group's timeout")
    p.add_argument("--alpha-us", type=float, default=500.0,
                   help="cost of one message (its handshake) in the prediction, microseconds (default 500)")
    p.add_argument("--payload-share", type=float, default=None,
                   help="share of a link's rate that carries payload, the prediction's rate (default: "
                        "TCP over Ethernet frames of the testbed's MTU, (MTU - 52) / (MTU + 18))")
    a = p.parse_args(argv)
    a.methods = [m for m in a.methods.split(",") if m]
    bad = [m for m in a.methods if m not in METHODS]
    if bad:
        p.error(f"unknown method(s) {bad}; of {', '.join(METHODS)}")
    return a


def fill(n_rows: int, row_bytes: int, rank: int, step: int) -> torch.Tensor:
    k = (rank * 131 + step * 17 + 1) % 251
    return ((torch.arange(n_rows * row_bytes, dtype=torch.int64) * k + rank) % 253).to(torch.uint8).view(
        n_rows, row_bytes
    )


def pairwise_plan(rows, row_bytes: int) -> "tt.Plan":
    """The shift order (round i: r sends to r + i mod n) as a plan, run by the same dataflow runner."""
    units = np.array(rows, dtype=np.int64) * row_bytes
    np.fill_diagonal(units, 0)
    chunk = auto_chunk(units)
    sol = tickopt.solve(units * 8, bw=chunk * 8, model="READ1_WRITE1", solver="pairwise")
    return tt.Plan(sol, [list(map(int, r)) for r in rows], row_bytes, None)


def predict(rows, a, rates) -> float:
    """Seconds tickopt's default plan takes run as dataflow, by the cost
    model (tickopt::cost::dataflow): a.alpha_us per message, each rank's
    NIC at its payload rate (a slow rank's divided; a model, not a bound)."""
    units = np.array(rows, dtype=np.int64) * a.row_bytes
    np.fill_diagonal(units, 0)
    sol = tickopt.solve(units * 8, bw=auto_chunk(units) * 8, model="READ1_WRITE1")
    gbps = [float(r) * 8 * a.payload_share / 1e9 for r in rates]
    return sol.predict_dataflow_seconds(a.alpha_us, max(gbps), rank_gbps=gbps)


def run_method(method, out, inp, rows, rank, world, row_bytes, relays=None, chunk=None):
    ins = [int(x) for x in rows[rank]]
    outs = [int(rows[s][rank]) for s in range(world)]
    if method == "torch":
        dist.all_to_all_single(out, inp, outs, ins)
    elif method == "tickopt":
        tt.all_to_all_single(out, inp, outs, ins, chunk_bytes=chunk)
    elif method == "relay":
        tt.all_to_all_single(out, inp, outs, ins, gpus_per_node=relays[0], nvlink_speedup=relays[1],
                             chunk_bytes=chunk)
    elif method in ("dataflow", "ticks"):
        tt.all_to_all_single(out, inp, outs, ins, runner=method, chunk_bytes=chunk)
    else:
        pairwise_plan(rows, row_bytes).run(out, inp)


def main(argv=None) -> int:
    a = parse(argv)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.timeout_s))
    rank, world = dist.get_rank(), dist.get_world_size()
    topo = json.loads(os.environ.get("TICKOPT_TESTBED", "{}"))
    if a.payload_share is None:
        mtu = int(topo.get("mtu", 1500))
        a.payload_share = (mtu - 52) / (mtu + 18)
    # Each rank's NIC rate in bytes per second (a slow rank's divided).
    rates = np.full(world, topo.get("nic_mbit", 0) * 1e6 / 8)
    if topo.get("slow_rank") is not None:
        rates[topo["slow_rank"]] /= topo.get("slow_factor", 1.0)
    cores = os.cpu_count() or 1
    g = int(topo.get("gpus_per_node", 1))
    rho = a.nvlink_speedup or max(1, int((topo.get("nvlink_mbit") or 0) // max(topo.get("nic_mbit", 1), 1)))
    relays = (g, rho) if g > 1 else None
    if "relay" in a.methods and relays is None:
        raise SystemExit("testbed_a2a: the relay method needs the testbed's --gpus-per-node > 1")
    per_step = []
    for step in range(a.warmup + a.steps):
        rows = workloads.matrix(
            a.workload, world, step, seed=a.seed, mean_rows=a.mean_rows, sigma=a.sigma,
            hot_x=a.hot_x, hot_fraction=a.hot_fraction,
        )
        inp = fill(int(rows[rank].sum()), a.row_bytes, rank, step)
        n_out = int(rows[:, rank].sum())
        order = a.methods[step % len(a.methods):] + a.methods[: step % len(a.methods)]
        outs, wall, cpu = {}, {}, {}
        for m in order:
            out = torch.empty((n_out, a.row_bytes), dtype=torch.uint8)
            dist.barrier()
            c0, t0 = time.process_time(), time.perf_counter()
            run_method(m, out, inp, rows, rank, world, a.row_bytes, relays, a.chunk_bytes)
            wall[m], cpu[m] = time.perf_counter() - t0, time.process_time() - c0
            outs[m] = out
        ref = outs.get("torch")
        bad = [m for m in outs if ref is not None and m != "torch" and not torch.equal(outs[m], ref)]
        figures = torch.tensor(
            [wall[m] for m in a.methods] + [cpu[m] for m in a.methods] + [len(bad)], dtype=torch.float64
        )
        slowest = figures.clone()
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        dist.all_reduce(figures, op=dist.ReduceOp.SUM)
        if slowest[-1] > 0:
            if rank == 0:
                print(f"step {step}: outputs differ from torch's on some rank (methods {bad} here)", file=sys.stderr)
            return 1
        k = len(a.methods)
        nvlink_rate = (topo.get("nvlink_mbit") or 0) * 1e6 / 8
        bound, bounding = (
            workloads.port_bound_seconds(rows, a.row_bytes, rates, g, nvlink_rate) if rates.all() else (float("nan"), -1)
        )
        node_bound = workloads.node_bound_seconds(rows, a.row_bytes, float(rates.min()), g) if g > 1 else None
        if step >= a.warmup and rank == 0:
            predicted = predict(rows, a, rates)
        if step >= a.warmup:
            per_step.append(
                {
                    "step": step,
                    "port_bound_s": bound,
                    "bounding_rank": bounding,
                    "node_bound_s": node_bound,
                    "predicted_s": predicted if rank == 0 else None,
                    "wall_s": dict(zip(a.methods, slowest[:k].tolist())),
                    "cpu_share": {m: figures[k + i].item() / (cores * slowest[i].item()) for i, m in enumerate(a.methods)},
                }
            )
    if rank == 0:
        report(a, world, topo, per_step)
    dist.destroy_process_group()
    return 0


def report(a, world, topo, per_step) -> None:
    print(
        f"{a.workload} (sigma {a.sigma}, hot x{a.hot_x}), {world} ranks, NIC {topo.get('nic_mbit')} Mbit/s "
        f"(TCP {topo.get('congestion', 'host default')}), "
        f"rows of {a.row_bytes} B, mean {a.mean_rows:g} rows a pair, {len(per_step)} steps "
        f"(+{a.warmup} warm-up); outputs byte-equal to torch's"
    )
    if per_step and per_step[0]["node_bound_s"] is not None:
        nb = statistics.median(s["node_bound_s"] / s["port_bound_s"] for s in per_step)
        print(f"two tiers: the port bound counts NIC traffic over NICs and NVLink traffic over NVLink; "
              f"relays' node bound is {nb:.3f} of it (median)")
    counts = collections.Counter(s["bounding_rank"] for s in per_step)
    print("the busiest port (the bound) was rank " + ", ".join(f"{r} ({k} steps)" for r, k in counts.most_common()))
    print(f"{'method':10} {'median s':>9} {'p10 s':>8} {'p90 s':>8} {'/bound':>7} {'/torch':>7} {'/pred':>6} {'cpu':>5}")
    print("(/bound, /torch, /pred: medians over the steps of each step's ratio; pred: tickopt's plan by the cost "
          f"model, {a.alpha_us:g} us a message, {a.payload_share:.3f} of the rate; cpu: the ranks' CPU time over "
          "the host's)")
    summary, vs_torch_steps = {}, {}
    for m in a.methods:
        w = sorted(s["wall_s"][m] for s in per_step)
        rel = statistics.median(s["wall_s"][m] / s["port_bound_s"] for s in per_step)
        med = statistics.median(w)
        p10, p90 = w[int(0.1 * (len(w) - 1))], w[int(round(0.9 * (len(w) - 1)))]
        cpu = statistics.median(s["cpu_share"][m] for s in per_step)
        if "torch" in a.methods:
            vs_torch_steps[m] = [s["wall_s"][m] / s["wall_s"]["torch"] for s in per_step]
        vs_torch = statistics.median(vs_torch_steps[m]) if m in vs_torch_steps else None
        vs = f"{vs_torch:7.3f}" if vs_torch is not None else "      -"
        pred = statistics.median(s["wall_s"][m] / s["predicted_s"] for s in per_step)
        print(f"{m:10} {med:9.3f} {p10:8.3f} {p90:8.3f} {rel:7.3f} {vs} {pred:6.3f} {cpu:5.0%}")
        summary[m] = {"median_s": med, "p10_s": p10, "p90_s": p90, "median_over_bound": rel,
                      "median_over_torch": vs_torch, "median_over_predicted": pred, "cpu_share": cpu}
    for m, ratios in vs_torch_steps.items():
        if m != "torch":
            mean, lo, hi, faster = ratio_interval(ratios)
            print(f"{m} / torch per step: mean {mean:.3f}, 95% bootstrap interval [{lo:.3f}, {hi:.3f}], "
                  f"faster in {faster} of {len(per_step)} steps")
            summary[m]["mean_over_torch"] = mean
            summary[m]["mean_over_torch_interval"] = [lo, hi]
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "world": world, "testbed": topo, "summary": summary, "steps": per_step}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
