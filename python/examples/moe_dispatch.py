"""MoE token dispatch on 8 ranks with gloo (CPU): tickopt's runner vs
torch.distributed.all_to_all_single. doc/python.md's table comes from it:

    $VENV/bin/python python/examples/moe_dispatch.py [--ranks 8] [--tokens 4096] [--hidden 512] [--iters 20]

Each rank holds `tokens` tokens of `hidden` bf16 values and hosts one
expert; every token goes to its top-2 experts, drawn with Zipf-like skew
(expert 1 is hot). The dispatch is an all-to-all with skewed splits. Both
runners move the same bytes; the output is checked byte for byte. Times are
per dispatch (median over `iters`, the slowest rank), the plan made once.
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


def routing(world, tokens, seed=0):
    """counts[s][d]: tokens rank s sends to expert (rank) d, top-2 with skew."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, world + 1) ** 1.2
    weights = np.roll(weights, 1)  # expert 1 is the hot one
    weights /= weights.sum()
    counts = np.zeros((world, world), dtype=np.int64)
    for s in range(world):
        for _ in range(tokens):
            a, b = rng.choice(world, size=2, replace=False, p=weights)
            counts[s, a] += 1
            counts[s, b] += 1
    return counts.tolist()


def timed(fn, iters):
    times = []
    for _ in range(iters):
        dist.barrier()
        t0 = time.perf_counter()
        fn()
        dt = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
        dist.all_reduce(dt, op=dist.ReduceOp.MAX)
        times.append(dt.item())
    return statistics.median(times)


def rank_main(rank, world, args):
    import tickopt.torch as tt

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=120))
    counts = routing(world, args.tokens)
    ins = counts[rank]
    outs = [counts[s][rank] for s in range(world)]
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(sum(ins), args.hidden, generator=g).to(torch.bfloat16)
    want = torch.empty(sum(outs), args.hidden, dtype=torch.bfloat16)
    got = torch.empty_like(want)
    rows = []
    for model, chunk in [("STRICT1", None), ("READ1_WRITE1", None), ("STRICT1", args.chunk), ("READ1_WRITE1", args.chunk)]:
        t0 = time.perf_counter()
        plan = tt.plan_all_to_all(ins, outs, model=model, chunk_bytes=chunk, row_bytes=2 * args.hidden)
        plan_s = time.perf_counter() - t0
        t_torch = timed(lambda: dist.all_to_all_single(want, x, outs, ins), args.iters)
        t_tick = timed(lambda: plan.run(got, x), args.iters)
        same = torch.equal(got.view(torch.uint8), want.view(torch.uint8))
        rows.append((model, chunk, plan.solution.ticks, plan.solution.lower_bound, plan.solution.status,
                     plan_s, t_tick, t_torch, same))
    if rank == 0:
        total = sum(map(sum, counts)) * 2 * args.hidden
        off = total - sum(counts[i][i] for i in range(world)) * 2 * args.hidden
        print(f"{world} ranks, {args.tokens} tokens x {args.hidden} bf16 per rank, top-2, "
              f"{off / 2**20:.1f} MiB off-rank, hot expert 1 receives "
              f"{sum(counts[s][1] for s in range(world)) * 2 * args.hidden / 2**20:.1f} MiB")
        print("| model | chunk | ticks | bound | status | plan s | tickopt ms | torch a2a ms | same bytes |")
        print("|---|---|---|---|---|---|---|---|---|")
        for m, c, t, lb, st, ps, a, b, same in rows:
            chunk = "one per demand" if c is None else f"{c // 1024} KiB"
            print(f"| {m} | {chunk} | {t} | {lb} | {st} | {ps:.3f} | {a * 1e3:.1f} | {b * 1e3:.1f} | {same} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--tokens", type=int, default=4096)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--chunk", type=int, default=256 * 1024)
    p.add_argument("--port", type=int, default=29651)
    a = p.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    mp.start_processes(rank_main, args=(a.ranks, a), nprocs=a.ranks, start_method="spawn")
