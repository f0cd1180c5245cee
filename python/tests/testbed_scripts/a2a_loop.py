"""Run by every rank under the testbed (test_testbed.py): skewed all-to-alls
(A2A_WORKLOAD=uniform: even splits) with tickopt.torch (plan_all_to_all
and Plan.run; A2A_METHOD=single: all_to_all_single, whose steps after a
dataflow one post their data ahead of the split exchange; torch's own
with A2A_METHOD=torch) for A2A_STEPS steps, each output compared with torch's
own (unless A2A_CHECK=0); with A2A_RATES=1 the plans are told every rank's
NIC rate (the testbed's, a slow rank's divided). Writes
$PROBE_DIR/rank{RANK}.json with the steps done, the last plan's runner and
bounding rank, and on an error its message and the time it was raised
(time.time(), so the test can compare it with the kill)."""

import datetime
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist

import tickopt.torch as tt
from tickopt import workloads

rank = int(os.environ["RANK"])
out = {"steps": 0}
path = os.path.join(os.environ["PROBE_DIR"], f"rank{rank}.json")
timeout = float(os.environ.get("A2A_TIMEOUT_S", "10"))
check = os.environ.get("A2A_CHECK", "1") == "1"
method = os.environ.get("A2A_METHOD", "tickopt")
family = os.environ.get("A2A_WORKLOAD", "lognormal")
rates = None
if os.environ.get("A2A_RATES") == "1":
    topo = json.loads(os.environ["TICKOPT_TESTBED"])
    rates = [topo["nic_mbit"] / 1000] * topo["nodes"] * topo["gpus_per_node"]
    if topo.get("slow_rank") is not None:
        rates[topo["slow_rank"]] /= topo["slow_factor"]
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    world = dist.get_world_size()
    for step in range(int(os.environ.get("A2A_STEPS", "5"))):
        rows = workloads.matrix(family, world, step, seed=3, mean_rows=16, sigma=1.4, hot_x=5)
        n_in, n_out = int(rows[rank].sum()), int(rows[:, rank].sum())
        inp = torch.from_numpy(np.random.default_rng([rank, step]).integers(0, 255, (n_in, 1024), dtype=np.uint8))
        ins, outs = [int(x) for x in rows[rank]], [int(rows[s][rank]) for s in range(world)]
        got = torch.empty((n_out, 1024), dtype=torch.uint8)
        if method == "torch":
            dist.all_to_all_single(got, inp, outs, ins)
        elif method == "single":
            tt.all_to_all_single(got, inp, outs, ins, rank_gbps=rates)
            out["ahead"] = tt.plan_stats()["ahead"]
        else:
            plan = tt.plan_all_to_all(ins, outs, row_bytes=1024, rank_gbps=rates)
            plan.run(got, inp)
            out.update(runner=plan.runner, bounding_rank=plan.bounding_rank)
        if check:
            want = torch.empty_like(got)
            dist.all_to_all_single(want, inp, outs, ins)
            if not torch.equal(got, want):
                raise AssertionError(f"step {step}: output differs from torch's")
        out["steps"] = step + 1
        with open(path, "w") as f:
            json.dump(out, f)
    dist.destroy_process_group()
except Exception as e:
    out.update(error=str(e).splitlines()[0], at=time.time())
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"rank {rank}: {out['error']}", flush=True)
    sys.exit(1)
