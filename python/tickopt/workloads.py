"""MoE traffic as it really shifts from step to step: split matrices for
the runner, the testbed and ``bench`` (numpy only; no torch).

Every generator returns a ``world x world`` int64 matrix of *rows*
(``m[s][d]`` rows from rank s to rank d, diagonal included: the local
part), the same on every rank for the same arguments (each step draws from
its own seeded generator), with mean `mean_rows` per pair before the hot
factors. Families (:data:`FAMILIES`):

- ``uniform``: every pair `mean_rows`.
- ``lognormal``: log-normal entries (`sigma`), a fresh draw per step, and
  ``hot_fraction`` of the destinations (fixed per seed) x `hot_x`.
- ``hot_expert``: log-normal, one destination (an expert's rank) x `hot_x`.
- ``hot_rank``: log-normal, one rank's row and column x `hot_x` (it both
  sends and receives more).
- ``rotating``: ``hot_rank`` whose hot rank moves every step (step mod world).
- ``burst``: log-normal, and every `burst_every`-th step x `burst_x` (one
  step far heavier than the others).
"""

from __future__ import annotations

from typing import Callable, Dict

try:
    import numpy as np
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("tickopt.workloads needs numpy: pip install numpy (or tickopt[torch])") from e

__all__ = ["FAMILIES", "matrix", "port_bound_bytes", "port_bound_seconds", "node_bound_seconds", "node_nic_load"]


def _lognormal(world: int, rng: np.random.Generator, mean_rows: float, sigma: float) -> np.ndarray:
    # A log-normal with this mu has mean `mean_rows`.
    mu = np.log(max(mean_rows, 1e-9)) - sigma * sigma / 2
    return rng.lognormal(mean=mu, sigma=sigma, size=(world, world))


def _uniform(world, step, rng, a):
    return np.full((world, world), float(a["mean_rows"]))


def _lognormal_hot_columns(world, step, rng, a):
    m = _lognormal(world, rng, a["mean_rows"], a["sigma"])
    hot = max(1, int(round(world * a["hot_fraction"])))
    cols = np.random.default_rng(a["seed"]).permutation(world)[:hot]
    m[:, cols] *= a["hot_x"]
    return m


def _hot_expert(world, step, rng, a):
    m = _lognormal(world, rng, a["mean_rows"], a["sigma"])
    m[:, a["seed"] % world] *= a["hot_x"]
    return m


def _hot_rank_at(world, rng, a, hot):
    m = _lognormal(world, rng, a["mean_rows"], a["sigma"])
    m[hot, :] *= a["hot_x"]
    m[:, hot] *= a["hot_x"]
    m[hot, hot] /= a["hot_x"]
    return m


def _hot_rank(world, step, rng, a):
    return _hot_rank_at(world, rng, a, a["seed"] % world)


def _rotating(world, step, rng, a):
    return _hot_rank_at(world, rng, a, (a["seed"] + step) % world)


def _burst(world, step, rng, a):
    m = _lognormal(world, rng, a["mean_rows"], a["sigma"])
    if a["burst_every"] > 0 and step % a["burst_every"] == a["burst_every"] - 1:
        m *= a["burst_x"]
    return m


FAMILIES: Dict[str, Callable] = {
    "uniform": _uniform,
    "lognormal": _lognormal_hot_columns,
    "hot_expert": _hot_expert,
    "hot_rank": _hot_rank,
    "rotating": _rotating,
    "burst": _burst,
}


def matrix(
    family: str,
    world: int,
    step: int = 0,
    *,
    seed: int = 0,
    mean_rows: float = 128,
    sigma: float = 1.2,
    hot_x: float = 4.0,
    hot_fraction: float = 1 / 8,
    burst_every: int = 5,
    burst_x: float = 4.0,
) -> np.ndarray:
    """The rows matrix of `family` at `step` (module docs); ValueError for
    an unknown family or arguments out of range."""
    if family not in FAMILIES:
        raise ValueError(f"unknown workload {family!r}; one of {', '.join(FAMILIES)}")
    if world < 1:
        raise ValueError(f"world must be >= 1, got {world}")
    if mean_rows < 0 or sigma < 0 or hot_x <= 0 or burst_x <= 0 or not 0 <= hot_fraction <= 1:
        raise ValueError(
            "need mean_rows >= 0, sigma >= 0, hot_x > 0, burst_x > 0 and 0 <= hot_fraction <= 1"
        )
    args = dict(seed=seed, mean_rows=mean_rows, sigma=sigma, hot_x=hot_x, hot_fraction=hot_fraction,
                burst_every=burst_every, burst_x=burst_x)
    rng = np.random.default_rng([seed, step])
    m = FAMILIES[family](world, step, rng, args)
    return np.rint(m).astype(np.int64)


def port_bound_bytes(rows: np.ndarray, row_bytes: int) -> int:
    """Bytes through the busiest port (a rank's sends or its receives, the
    local part left out): over the link rate, the time no schedule beats."""
    m = np.array(rows, dtype=np.int64)
    np.fill_diagonal(m, 0)
    return int(max(m.sum(axis=1).max(initial=0), m.sum(axis=0).max(initial=0))) * row_bytes


def port_bound_seconds(
    rows: np.ndarray, row_bytes: int, rates: "np.ndarray", gpus_per_node: int = 1, nvlink_rate: float = 0.0
) -> "tuple[float, int]":
    """The port bound of direct plans with a rate per rank (bytes per
    second each way, a slow rank's lower): the largest of each rank's sends
    and receives over its rate, and the rank that attains it. With nodes of
    `gpus_per_node` ranks, traffic within a node goes over NVLink ports of
    `nvlink_rate` (0: free) and only the rest over the NICs."""
    m = np.array(rows, dtype=np.int64)
    np.fill_diagonal(m, 0)
    node = np.arange(len(m)) // max(gpus_per_node, 1)
    same = node[:, None] == node[None, :]
    nic = np.where(same, 0, m) if gpus_per_node > 1 else m
    per_rank = np.maximum(nic.sum(axis=1), nic.sum(axis=0)) * row_bytes / np.asarray(rates, dtype=np.float64)
    if gpus_per_node > 1 and nvlink_rate > 0:
        nv = np.where(same, m, 0)
        per_rank = np.maximum(per_rank, np.maximum(nv.sum(axis=1), nv.sum(axis=0)) * row_bytes / nvlink_rate)
    r = int(np.argmax(per_rank))
    return float(per_rank[r]), r


def node_nic_load(rows: np.ndarray, gpus_per_node: int) -> float:
    """What the busiest node's NICs carry each, in the matrix's units, if its
    bytes out (or in) spread evenly over its `gpus_per_node` NICs: every
    unit that leaves or enters a node crosses one of them, whatever the
    route (the relays' node bound, issue 52)."""
    m = np.array(rows, dtype=np.int64)
    g = max(gpus_per_node, 1)
    k = len(m) // g
    per_node = m[: k * g, : k * g].reshape(k, g, k, g).sum(axis=(1, 3))
    np.fill_diagonal(per_node, 0)
    busiest = max(int(per_node.sum(axis=1).max(initial=0)), int(per_node.sum(axis=0).max(initial=0)))
    return busiest / g


def node_bound_seconds(rows: np.ndarray, row_bytes: int, nic_rate: float, gpus_per_node: int) -> float:
    """The node bound of relayed plans (issue 52): the busiest node's bytes
    out or in over its NICs' rate (:func:`node_nic_load`)."""
    return node_nic_load(rows, gpus_per_node) * row_bytes / nic_rate
