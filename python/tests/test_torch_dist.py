"""tickopt.torch on gloo (CPU) with 4 and 8 ranks: byte-exact equality with
torch's all_to_all_single (skewed log-normal splits with zeros and a hot
rank, 1-D to 3-D tensors, several dtypes, both models), plan reuse and
determinism, plans in rows run on rows of several sizes, RemoteCopy and
RemoteCopyService (task ids, byte positions and sizes) round trips, and
mismatch errors raised on every rank with one message.

One set of processes per world size runs every scenario (dist_worker.py);
the waits are bounded twice: the process group's timeout inside, and a
deadline here after which the processes are killed and the test fails.
"""

import json
import os
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.multiprocessing as mp  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import dist_worker  # noqa: E402



def free_port() -> int:
    """A port nothing listens on now (two test runs side by side do not collide)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

DEADLINE_S = 300
SCENARIOS = [name for name, _ in dist_worker.scenarios(0, 4)]


@pytest.fixture(scope="module", params=[4, 8])
def results(request, tmp_path_factory):
    world = request.param
    outdir = str(tmp_path_factory.mktemp(f"world{world}"))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ctx = mp.start_processes(dist_worker.worker, args=(world, free_port(), outdir),
                             nprocs=world, join=False, start_method="spawn")
    import time

    end = time.monotonic() + DEADLINE_S
    crash = None
    try:
        while not ctx.join(timeout=max(1.0, end - time.monotonic())):
            if time.monotonic() >= end:
                crash = f"{world} ranks did not finish within {DEADLINE_S} s"
                break
    except Exception as e:  # a rank died or raised outside a scenario
        crash = f"a rank failed: {e}"
    finally:
        for p in ctx.processes:
            if p.is_alive():
                p.kill()
    out = []
    for r in range(world):
        path = os.path.join(outdir, f"rank{r}.json")
        out.append(json.load(open(path)) if os.path.exists(path) else {})
    return world, out, crash


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario_on_every_rank(results, scenario):
    world, per_rank, crash = results
    failures = {r: res.get(scenario, f"not run ({crash})") for r, res in enumerate(per_rank)
                if res.get(scenario) != "ok"}
    assert not failures, f"{world} ranks, {scenario}:\n" + "\n".join(
        f"rank {r}: {msg}" for r, msg in failures.items())
