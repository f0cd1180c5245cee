"""Per-call overhead of tickopt.torch.all_to_all_single when the splits
change on every call (issue 37 item 4; doc/performance.md "Planning inside
the step"), against torch's own all_to_all_single on gloo (CPU):

    $VENV/bin/python python/examples/per_step_overhead.py [--ranks 4] [--iters 30]

Every call draws new skewed splits (log-normal row counts, one hot
destination x4), so every tickopt call exchanges the splits, plans through
the matrix fast path and runs the ticks; torch's call just runs. Times are
per call (median over `iters`, the slowest rank). Also reported: the plan
alone (tickopt.solve on the same byte matrix, in process) and the output
checked byte for byte against torch's.
"""

import argparse
import datetime
import os
import statistics
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def splits(world, step, rows):
    rng = np.random.default_rng(1000 + step)
    m = rng.lognormal(-0.5, 1.0, size=(world, world)) * rows
    m[:, step % world] *= 4
    return np.maximum(np.rint(m), 1).astype(np.int64)


def slowest(seconds):
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def rank_main(rank, world, args):
    import tickopt
    import tickopt.torch as tt

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=120))
    row_bytes = 4 * args.hidden
    t_torch, t_tick, t_plan, same = [], [], [], True
    for step in range(args.iters):
        m = splits(world, step, args.rows)
        ins = m[rank].tolist()
        outs = m[:, rank].tolist()
        x = torch.randn(sum(ins), args.hidden)
        want = torch.empty(sum(outs), args.hidden)
        got = torch.empty_like(want)
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_to_all_single(want, x, outs, ins)
        t_torch.append(slowest(time.perf_counter() - t0))
        dist.barrier()
        t0 = time.perf_counter()
        tt.all_to_all_single(got, x, outs, ins, model=args.model)
        t_tick.append(slowest(time.perf_counter() - t0))
        same = same and torch.equal(got, want)
        bits = m * row_bytes * 8
        np.fill_diagonal(bits, 0)
        t0 = time.perf_counter()
        tickopt.solve(bits, bw=int(bits.max()), model=args.model)
        t_plan.append(time.perf_counter() - t0)
    if rank == 0:
        a, b, p = (statistics.median(v) * 1e3 for v in (t_tick, t_torch, t_plan))
        print(f"| {world} | {args.model} | {args.rows} x {row_bytes} B | {b:.2f} | {a:.2f} | "
              f"{a - b:+.2f} | {p:.3f} | {same} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--rows", type=int, default=256, help="mean rows per (src, dst)")
    p.add_argument("--hidden", type=int, default=256, help="float32 values per row")
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--model", default="READ1_WRITE1")
    p.add_argument("--port", type=int, default=29661)
    a = p.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    mp.start_processes(rank_main, args=(a.ranks, a), nprocs=a.ranks, start_method="spawn")
