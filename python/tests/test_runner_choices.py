"""The choices tickopt.torch makes before any communication: the default
chunk of direct and relayed plans, and the runner ``runner="auto"`` picks
(pure functions of the split matrix; no process group needed)."""

import numpy as np
import pytest

pytest.importorskip("torch")

import tickopt  # noqa: E402
from tickopt import workloads  # noqa: E402
from tickopt._p2p_run import TARGET_TICKS, auto_chunk, auto_chunk_relayed, plan_units  # noqa: E402
from tickopt.torch import choose_runner  # noqa: E402


def hot_rank_bytes(step: int, world: int = 8) -> np.ndarray:
    rows = workloads.matrix("hot_rank", world, step, seed=1, mean_rows=128, sigma=1.2, hot_x=6.0)
    units = rows * 4096
    np.fill_diagonal(units, 0)
    return units


def node_nic_share(units: np.ndarray, g: int) -> float:
    """Bytes on the busiest NIC if a node's inter-node bytes spread evenly."""
    node = np.arange(len(units)) // g
    worst = 0.0
    for a in range(node.max() + 1):
        out = units[node == a][:, node != a].sum()
        inn = units[node != a][:, node == a].sum()
        worst = max(worst, out / g, inn / g)
    return worst


@pytest.mark.parametrize("step", [1, 2, 3, 4])
def test_a_relayed_plan_gets_about_target_ticks_at_its_node_bound(step):
    units = hot_rank_bytes(step)
    chunk = auto_chunk_relayed(units, 4, 4)
    assert chunk & (chunk - 1) == 0, chunk  # a power of two
    ticks_at_bound = node_nic_share(units, 4) / chunk
    assert TARGET_TICKS / 2 <= ticks_at_bound <= TARGET_TICKS, (chunk, ticks_at_bound)
    # The direct default would leave the relayed step a quarter of that or less.
    assert auto_chunk(units) >= 4 * chunk
    # plan_units uses it: the relayed plan has at least the ticks its NICs need.
    sol = plan_units(units.tolist(), "READ1_WRITE1", None, relays=(4, 4))
    assert isinstance(sol, tickopt.RelaySolution)
    assert sol.ticks >= ticks_at_bound


def test_nvlink_sets_the_relayed_chunk_where_traffic_stays_in_nodes():
    # Two nodes of 4; every byte stays inside its node: NICs idle.
    units = np.zeros((8, 8), dtype=np.int64)
    for a in (0, 4):
        units[a : a + 4, a : a + 4] = 1 << 20
    np.fill_diagonal(units, 0)
    rho = 2
    chunk = auto_chunk_relayed(units, 4, rho)
    per_port = 3 * (1 << 20) / rho  # a rank's bytes to its 3 peers over rho
    assert TARGET_TICKS / 2 <= per_port / chunk <= TARGET_TICKS


def test_auto_runs_even_splits_tick_by_tick_and_skewed_ones_as_dataflow():
    even = [[0 if s == d else 64 for d in range(8)] for s in range(8)]
    assert choose_runner(even) == "ticks"
    skewed = workloads.matrix("lognormal", 8, 1, seed=1, sigma=1.2, hot_x=4.0).tolist()
    assert choose_runner(skewed) == "dataflow"
    # A slow rank makes even splits unbalanced in time: dataflow.
    assert choose_runner(even, rank_gbps=[1.0] * 7 + [0.25]) == "dataflow"
