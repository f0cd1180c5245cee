"""Relay plans from Python (issue 52): `tickopt.solve(..., gpus_per_node=,
nvlink_speedup=)`, and a pure-Python reference executor of the per-rank
relay programs, checked byte for byte against a direct all-to-all."""

from collections import deque

import numpy as np
import pytest

import tickopt


def traffic(n: int, seed: int, hot: bool = True, zeros: float = 0.2) -> np.ndarray:
    """Log-normal sizes in bits (whole bytes and odd byte counts), some
    zeros, one hot column."""
    rng = np.random.default_rng(seed)
    m = np.rint(rng.lognormal(mean=3.0, sigma=1.2, size=(n, n))).astype(np.int64) * 8 + 8
    m[rng.random((n, n)) < zeros] = 0
    if hot:
        m[:, n // 2] *= 5
    np.fill_diagonal(m, 0)
    return m


def direct_all_to_all(m: np.ndarray, inputs):
    """torch's all_to_all_single on byte arrays: rank r's output is, by
    source, the bytes each source sends r (split sizes from the matrix)."""
    n = m.shape[0]
    nbytes = (m + 7) // 8
    outs = []
    for r in range(n):
        parts = []
        for s in range(n):
            off = int(nbytes[s, :r].sum())
            parts.append(inputs[s][off:off + int(nbytes[s, r])])
        outs.append(bytes().join(bytes(p) for p in parts))
    return outs


def execute(sol, inputs):
    """Runs every rank's relay program in one process: a rank posts its
    operations in list order; a send copies its bytes into the queue of
    (rank, peer) at once (buffered), a receive waits until the queue from
    its peer has a message, takes the oldest and checks its size. Ranks
    take turns; a round in which no rank moves is a deadlock."""
    n = sol.slots
    programs = [sol.relay_program(r) for r in range(n)]
    bufs = []
    for r in range(n):
        inp, out, stage = sol.buffer_bytes(r)
        assert inp == len(inputs[r])
        bufs.append({"input": bytearray(inputs[r]), "output": bytearray(out),
                     "stage": bytearray(stage)})
    queues = {}
    pc = [0] * n
    while any(pc[r] < len(programs[r]) for r in range(n)):
        moved = False
        for r in range(n):
            while pc[r] < len(programs[r]):
                op, peer, buf, off, count = programs[r][pc[r]]
                assert off + count <= len(bufs[r][buf]), (r, pc[r])
                if op == "send":
                    data = bytes(bufs[r][buf][off:off + count])
                    queues.setdefault((r, peer), deque()).append(data)
                else:
                    q = queues.get((peer, r))
                    if not q:
                        break
                    data = q.popleft()
                    assert len(data) == count, (r, pc[r], len(data), count)
                    bufs[r][buf][off:off + count] = data
                pc[r] += 1
                moved = True
        assert moved, f"deadlock at {pc}"
    assert all(not q for q in queues.values()), "a message was never received"
    return [bytes(b["output"]) for b in bufs]


@pytest.mark.parametrize(
    "n,g,rho,seed",
    [(8, 2, 1, 1), (8, 4, 2, 2), (12, 4, 1, 3), (16, 4, 4, 4), (12, 2, 3, 5), (16, 2, 2, 6)],
)
def test_reference_executor_delivers_all_to_all_bytes(n, g, rho, seed):
    m = traffic(n, seed)
    sol = tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=g, nvlink_speedup=rho)
    assert isinstance(sol, tickopt.RelaySolution)
    assert sol.verify()
    rng = np.random.default_rng(100 + seed)
    nbytes = (m + 7) // 8
    inputs = [rng.integers(0, 256, int(nbytes[r].sum()), dtype=np.uint8).tobytes() for r in range(n)]
    assert execute(sol, inputs) == direct_all_to_all(m, inputs)
    # Some chunks really are relayed (the stage is used) on skewed traffic.
    assert sum(sol.buffer_bytes(r)[2] for r in range(n)) > 0


def test_relay_solution_claim_fields():
    m = traffic(32, 7, zeros=0.0)
    sol = tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=8, nvlink_speedup=8)
    assert sol.lower_bound <= sol.ticks <= sol.lower_bound + 2
    assert sol.bound in ("node", "nvlink", "lp")
    assert sol.ticks < sol.direct_ticks
    summary = sol.summary()
    assert summary["ticks"] == sol.ticks and summary["bound"] == sol.bound
    assert summary["certificate"]["bound"] == sol.lower_bound
    assert summary["gpus_per_node"] == 8 and summary["nvlink_speedup"] == 8
    hops = sol.schedule()["chunks"]
    assert all(1 <= len(c["hops"]) <= 3 for c in hops)


def test_bad_relay_requests_are_refused_clearly():
    m = traffic(8, 1)
    with pytest.raises(ValueError, match="STRICT1"):
        tickopt.solve(m, bw=64, model="STRICT1", gpus_per_node=4, nvlink_speedup=4)
    with pytest.raises(ValueError, match="gpus_per_node must divide"):
        tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=3, nvlink_speedup=4)
    with pytest.raises(ValueError, match="go together"):
        tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=4)
    sol = tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=1)
    with pytest.raises(ValueError, match="not a slot"):
        sol.relay_program(8)
    with pytest.raises(ValueError, match="whole number of bytes"):
        tickopt.solve(m, bw=60, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=1).relay_program(0)


def test_a_dense_matrix_and_its_rows_plan_alike():
    """A numpy matrix goes to the relay planner as int64 bytes (no list of
    rows); the plan is the one the nested lists give."""
    m = traffic(16, 8)
    dense = tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=2)
    rows = tickopt.solve(m.tolist(), bw=64, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=2)
    assert dense.schedule() == rows.schedule() and dense.summary()["ticks"] == rows.summary()["ticks"]
    assert [dense.relay_program(r) for r in range(16)] == [rows.relay_program(r) for r in range(16)]
    with pytest.raises(ValueError, match="not square"):
        tickopt.solve(np.zeros((4, 5), dtype=np.int64), bw=64, model="READ1_WRITE1", gpus_per_node=2,
                      nvlink_speedup=1)


def test_a_planner_with_relays_plans_what_solve_plans_every_step():
    """`Planner(..., gpus_per_node=, nvlink_speedup=)` returns the relay plan
    `solve` makes for each step's matrix (planned afresh: never edited), and
    refuses a machine it cannot plan on when it is made."""
    planner = tickopt.Planner(16, bw=64, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=2)
    for seed in (11, 12, 12):
        m = traffic(16, seed)
        sol = planner.solve(m)
        want = tickopt.solve(m, bw=64, model="READ1_WRITE1", gpus_per_node=4, nvlink_speedup=2)
        assert isinstance(sol, tickopt.RelaySolution) and sol.verify()
        assert sol.schedule() == want.schedule() and sol.ticks == want.ticks
        assert not planner.last_edited
    assert "gpus_per_node=4, nvlink_speedup=2" in repr(planner)
    with pytest.raises(ValueError, match="STRICT1"):
        tickopt.Planner(16, bw=64, gpus_per_node=4, nvlink_speedup=2)
    with pytest.raises(ValueError, match="gpus_per_node must divide"):
        tickopt.Planner(16, bw=64, model="READ1_WRITE1", gpus_per_node=3, nvlink_speedup=2)
    with pytest.raises(ValueError, match="go together"):
        tickopt.Planner(16, bw=64, model="READ1_WRITE1", nvlink_speedup=2)
    with pytest.raises(ValueError, match="solver must be 'auto'"):
        tickopt.Planner(16, bw=64, model="READ1_WRITE1", solver="pairwise", gpus_per_node=4, nvlink_speedup=2)
    with pytest.raises(ValueError, match="this planner plans 16 ranks"):
        planner.solve(traffic(8, 1))
