"""tickopt.workloads (the testbed's and the runner tests' traffic) and the
dataflow lowering and prediction seen from Python."""

import numpy as np
import pytest

import tickopt
from tickopt import workloads


@pytest.mark.parametrize("family", sorted(workloads.FAMILIES))
def test_families_are_deterministic_and_sized(family):
    a = workloads.matrix(family, 8, 3, seed=5, mean_rows=100)
    b = workloads.matrix(family, 8, 3, seed=5, mean_rows=100)
    assert a.dtype == np.int64 and a.shape == (8, 8) and (a >= 0).all()
    assert np.array_equal(a, b)
    if family != "uniform":
        assert not np.array_equal(a, workloads.matrix(family, 8, 4, seed=5, mean_rows=100))


def test_hot_spots_are_where_the_family_says():
    w = 16
    hot = workloads.matrix("hot_rank", w, 0, seed=3, mean_rows=200, sigma=0.1, hot_x=6)
    rows, cols = hot.sum(axis=1), hot.sum(axis=0)
    assert rows.argmax() == cols.argmax() == 3 and rows.max() > 3 * np.median(rows)
    for step in range(3):
        r = workloads.matrix("rotating", w, step, seed=3, mean_rows=200, sigma=0.1, hot_x=6)
        assert r.sum(axis=1).argmax() == (3 + step) % w
    expert = workloads.matrix("hot_expert", w, 0, seed=3, mean_rows=200, sigma=0.1, hot_x=6)
    assert expert.sum(axis=0).argmax() == 3 and expert.sum(axis=1).std() < expert.sum(axis=0).std()
    burst = [workloads.matrix("burst", w, s, seed=3, mean_rows=200, sigma=0.1, burst_every=5, burst_x=4).sum()
             for s in range(5)]
    assert burst[4] > 3 * max(burst[:4])
    u = workloads.matrix("uniform", 4, 0, mean_rows=7)
    assert (u == 7).all()


def test_bounds_of_a_known_matrix():
    m = np.array([[9, 1, 2], [3, 9, 4], [5, 6, 9]])  # diagonal left out
    assert workloads.port_bound_bytes(m, 10) == 110  # rank 2 sends 5 + 6
    s, r = workloads.port_bound_seconds(m, 10, np.array([10.0, 10.0, 1.0]))
    assert (s, r) == (110.0, 2)  # rank 2 at a tenth of the rate: 110 bytes at 1 B/s
    # Nodes of 2: ranks 0 and 1 share NVLink (free here); rank 2 is alone.
    s, _ = workloads.port_bound_seconds(m, 10, np.full(3, 10.0), gpus_per_node=2)
    assert s == 11.0  # rank 2 over its NIC: 110 bytes at 10 B/s
    m4 = np.array([[0, 1, 2, 3], [1, 0, 4, 5], [6, 7, 0, 1], [8, 9, 1, 0]])
    # Node 0 = {0, 1} sends 2+3+4+5 = 14 rows out and gets 6+7+8+9 = 30 in.
    assert workloads.node_bound_seconds(m4, 1, 1.0, 2) == 15.0
    with pytest.raises(ValueError, match="unknown workload"):
        workloads.matrix("zipf", 4)


def test_dataflow_lists_and_prediction():
    m = workloads.matrix("lognormal", 8, 1, seed=2, mean_rows=64) * 4096
    np.fill_diagonal(m, 0)
    sol = tickopt.solve(m * 8, bw=65536 * 8, model="READ1_WRITE1")
    total_sent = 0
    for r in range(8):
        sends, recvs = sol.dataflow(r)
        assert sum(x[2] for x in sends) == m[r].sum() and sum(x[2] for x in recvs) == m[:, r].sum()
        assert [x[3] for x in sends] == sorted(x[3] for x in sends)  # tick order
        assert len(sends) < sol.ticks  # consecutive chunks merged
        total_sent += len(sends)
    assert total_sent == sum(len(sol.dataflow(r)[1]) for r in range(8))  # each message both ends
    rate_gbps = 0.1
    fluid = workloads.port_bound_bytes(m // 4096, 4096) * 8 / (rate_gbps * 1e9)
    p0 = sol.predict_dataflow_seconds(0.0, rate_gbps)
    assert fluid <= p0 + 1e-12 and p0 <= sol.ticks * 65536 * 8 / (rate_gbps * 1e9) + 1e-12
    assert sol.predict_dataflow_seconds(1000.0, rate_gbps) > p0
    with pytest.raises(ValueError):
        sol.predict_dataflow_seconds(-1.0, rate_gbps)
    # Per-rank rates: all equal is the plain prediction; the busiest rank at
    # a quarter of the rate takes at least 4x its bytes' time.
    assert sol.predict_dataflow_seconds(0.0, rate_gbps, rank_gbps=[rate_gbps] * 8) == p0
    busiest = int(np.argmax(np.maximum(m.sum(axis=0), m.sum(axis=1))))
    slow = [rate_gbps] * 8
    slow[busiest] = rate_gbps / 4
    load = max(m[busiest].sum(), m[:, busiest].sum()) * 8
    assert sol.predict_dataflow_seconds(0.0, rate_gbps, rank_gbps=slow) >= load / (rate_gbps / 4 * 1e9) - 1e-12
    for bad in ([rate_gbps] * 7, [0.0] * 8):
        with pytest.raises(ValueError, match="rank_gbps"):
            sol.predict_dataflow_seconds(0.0, rate_gbps, rank_gbps=bad)
