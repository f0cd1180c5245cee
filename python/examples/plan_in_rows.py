"""What a plan in rows costs per run, against a plan in bytes (gloo, CPU).
doc/python.md ("Plans in rows or in bytes") quotes it:

    $VENV/bin/python python/examples/plan_in_rows.py [--ranks 4] [--width 256] [--iters 40]

Every rank plans the same skewed all-to-all twice, once in rows (no
`row_bytes`: each run checks row sizes with one small all_gather) and once
in bytes (`row_bytes` given: the check is local), runs each `iters` times on
float32 rows of `width` values, checks both against torch's
all_to_all_single and prints the median time per run (slowest rank) and
that of the 5-integer all_gather alone.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from moe_dispatch import timed  # beside this file: median of iters, slowest rank


def rank_main(rank, world, args):
    import tickopt.torch as tt

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=120))
    rows = [[64 + 16 * ((s * 3 + d) % 5) for d in range(world)] for s in range(world)]
    outs = [rows[s][rank] for s in range(world)]
    inp = torch.randn(sum(rows[rank]), args.width)
    want = torch.empty(sum(outs), args.width)
    dist.all_to_all_single(want, inp, outs, rows[rank])
    got = torch.empty_like(want)
    plans = {
        "bytes": tt.plan_all_to_all(rows[rank], outs, row_bytes=4 * args.width),
        "rows": tt.plan_all_to_all(rows[rank], outs),
    }
    res = {}
    for name, plan in plans.items():
        got.zero_()
        plan.run(got, inp)
        assert torch.equal(got, want), f"the plan in {name} differs from torch's"
        res[name] = timed(lambda: plan.run(got, inp), args.iters)
    mine = torch.zeros(5, dtype=torch.int64)
    table = [torch.empty_like(mine) for _ in range(world)]
    res["all_gather of 5 integers"] = timed(lambda: dist.all_gather(table, mine), args.iters)
    if rank == 0:
        print(f"{world} ranks, rows of {4 * args.width} bytes, median of {args.iters} runs, slowest rank:")
        for name, s in res.items():
            print(f"  {name}: {s * 1e3:.2f} ms")
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--port", type=int, default=29655)
    args = p.parse_args()
    mp.start_processes(rank_main, args=(args.ranks, args), nprocs=args.ranks, start_method="spawn")


if __name__ == "__main__":
    main()
