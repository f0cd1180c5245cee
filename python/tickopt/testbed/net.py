"""The emulated cluster's network: namespaces, veths, bridges, ``tc``.

One network namespace per rank, one for the spine switch, one per node
with more than one GPU (its NVLink switch). Each rank has a NIC (``nic0``,
a veth into the spine bridge) and, with G > 1, an NVLink port (``nvl0``,
a veth into its node's bridge). Both ends of every veth are shaped with a
token bucket (``tc ... tbf``): the rank's end limits what it sends, the
switch's end what it receives, so each direction has the link's rate.
Addresses come only from 198.18.0.0/15 (the benchmarking range): NICs in
198.18.0.0/16, NVLink ports in 198.19.<node>.0/24. Traffic to a rank of
the same node is routed over ``nvl0`` by a host route to that rank's NIC
address (every rank is reached at one address, its NIC's, which is what
gloo advertises), so a program sees one address per rank and the kernel
picks the link.

Every name starts with the run's prefix ``tkb<pid>-``; :func:`remove`
deletes a run's namespaces (their veths go with them), and
:func:`remove_stale` those of runs whose process is gone. Nothing is made
outside the namespaces this module creates.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import List, Optional, Sequence

NIC_NET = ipaddress.IPv4Network("198.18.0.0/16")
NVLINK_NET = ipaddress.IPv4Network("198.19.0.0/16")
PREFIX_RE = re.compile(r"^tkb(\d+)-")


class TestbedError(RuntimeError):
    """The testbed cannot be built here (what is missing is in the message)."""


@dataclass(frozen=True)
class Topology:
    """N nodes of G ranks; NIC and NVLink rates in Mbit/s (each direction)."""

    nodes: int
    gpus_per_node: int
    nic_mbit: float
    nvlink_mbit: Optional[float] = None
    #: Token-bucket queue per link direction, in milliseconds at its rate
    #: (a switch port's buffer): packets beyond it are dropped.
    queue_ms: float = 20.0
    #: Faults (issue 56): one rank whose NIC runs at 1/slow_factor of the
    #: rate (both directions), and a share of every rank's incoming TCP
    #: packets dropped (nftables), in percent.
    slow_rank: Optional[int] = None
    slow_factor: float = 1.0
    loss_pct: float = 0.0
    #: Frame payload of every link, in bytes: 9,000 (jumbo frames, as
    #: cluster networks run) costs the host's cores a sixth of 1,500's per
    #: byte, so that the links, not the cores, set the time.
    mtu: int = 9000
    #: The least TCP retransmission timeout on every rank's routes, in ms
    #: (None: the kernel's, 200 ms). Data-centre hosts lower it (e.g. 5
    #: ms): a lost tail then costs milliseconds, not a fifth of a second,
    #: and steps scatter less.
    rto_min_ms: Optional[float] = None
    #: TCP congestion control on every rank's routes (``ip route ...
    #: congctl``). cubic, Linux's default, is what torch.distributed meets
    #: on most clusters; the host's own default may differ (BBR, which on
    #: these shaped sub-millisecond links keeps a flow at the share it had
    #: under incast for most of a second after the others finished).
    congestion: str = "cubic"

    @property
    def ranks(self) -> int:
        return self.nodes * self.gpus_per_node

    def nic_rate(self, rank: int) -> float:
        """Rank `rank`'s NIC rate in Mbit/s (the slow rank's is divided)."""
        return self.nic_mbit / (self.slow_factor if rank == self.slow_rank else 1.0)

    def nic_ip(self, rank: int) -> str:
        return str(NIC_NET.network_address + rank + 1)

    def nvlink_ip(self, rank: int) -> str:
        node, local = divmod(rank, self.gpus_per_node)
        return str(NVLINK_NET.network_address + (node << 8) + local + 1)

    def check(self) -> None:
        if self.nodes < 1 or self.gpus_per_node < 1:
            raise TestbedError(f"--nodes and --gpus-per-node must be >= 1, got {self.nodes} and {self.gpus_per_node}")
        if self.ranks < 2:
            raise TestbedError("the testbed needs at least 2 ranks (--nodes x --gpus-per-node)")
        if self.ranks > 4000:
            raise TestbedError(f"{self.ranks} ranks: at most 4,000 (one namespace and process each)")
        if self.nodes > 255 or self.gpus_per_node > 250:
            raise TestbedError("at most 255 nodes of at most 250 GPUs (one /24 of NVLink addresses per node)")
        for name, rate in (("--nic-mbit", self.nic_mbit), ("--nvlink-mbit", self.nvlink_mbit)):
            if rate is not None and not (rate > 0 and rate < 1e6):
                raise TestbedError(f"{name} must be a rate in Mbit/s above 0 and below 1e6, got {rate}")
        if self.nvlink_mbit is not None and self.gpus_per_node == 1:
            raise TestbedError("--nvlink-mbit needs --gpus-per-node > 1 (NVLink joins the GPUs of a node)")
        if not self.queue_ms > 0:
            raise TestbedError(f"the queue must be > 0 ms, got {self.queue_ms}")
        if self.slow_rank is not None and not 0 <= self.slow_rank < self.ranks:
            raise TestbedError(f"--slow-rank {self.slow_rank} is not a rank (0..{self.ranks - 1})")
        if not self.slow_factor >= 1:
            raise TestbedError(f"--slow-factor must be >= 1, got {self.slow_factor}")
        if not 576 <= self.mtu <= 65000:
            raise TestbedError(f"--mtu must be 576..65000 bytes, got {self.mtu}")
        if self.rto_min_ms is not None and not 1 <= self.rto_min_ms <= 200:
            raise TestbedError(f"--rto-min-ms must be 1..200 ms, got {self.rto_min_ms}")
        if not re.fullmatch(r"[a-z0-9_]{1,15}", self.congestion):
            raise TestbedError(f"--congestion must name a TCP congestion control (e.g. cubic), got {self.congestion!r}")
        if not 0 <= self.loss_pct < 100:
            raise TestbedError(f"--loss must be a percentage in [0, 100), got {self.loss_pct}")


def preflight(congestion: Optional[str] = None) -> None:
    """Refuses clearly when the testbed cannot work here (with `congestion`:
    when this kernel lacks that TCP congestion control)."""
    missing = [t for t in ("ip", "tc") if shutil.which(t) is None]
    if missing:
        raise TestbedError(
            f"{' and '.join(missing)} not found: the testbed needs iproute2 "
            "(Debian: apt-get install iproute2)"
        )
    if os.geteuid() != 0:
        raise TestbedError(
            "the testbed makes network namespaces, veths and tc queues: run it as root "
            "(or with CAP_NET_ADMIN and CAP_SYS_ADMIN)"
        )
    if congestion is not None:
        try:
            with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
                offered = f.read().split()
        except OSError:
            return  # the route will say so
        if congestion not in offered:
            raise TestbedError(f"--congestion {congestion}: this kernel offers {', '.join(offered)}")


def sh(args: Sequence[str], ns: Optional[str] = None) -> str:
    """Runs one command (in namespace `ns`), raising TestbedError with its stderr."""
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise TestbedError(f"`{' '.join(cmd)}` failed: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def batch(ns: str, lines: List[str]) -> None:
    """Runs many ``ip`` commands in namespace `ns` in one process (``ip -n NS -batch``)."""
    if not lines:
        return
    p = subprocess.run(["ip", "-n", ns, "-batch", "-"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise TestbedError(f"ip -n {ns} -batch failed: {p.stderr.strip()}")


def drop_share(ns: str, pct: float) -> None:
    """Drops `pct` percent of the TCP packets namespace `ns` receives, at
    random (an nftables rule in a table of the namespace's own)."""
    if shutil.which("nft") is None:
        raise TestbedError("--loss needs nftables (Debian: apt-get install nftables; scripts/setup.sh installs it)")
    per_million = int(round(pct * 10_000))
    rules = (
        "add table inet tkb\n"
        "add chain inet tkb in { type filter hook input priority 0; policy accept; }\n"
        f"add rule inet tkb in meta l4proto tcp numgen random mod 1000000 < {per_million} drop\n"
    )
    p = subprocess.run(["ip", "netns", "exec", ns, "nft", "-f", "-"], input=rules, capture_output=True, text=True)
    if p.returncode != 0:
        raise TestbedError(f"nft in {ns} failed: {p.stderr.strip()}")


def shape(ns: str, dev: str, mbit: float, queue_ms: float, mtu: int) -> None:
    """A token bucket on `dev`'s egress: `mbit` Mbit/s, a queue of `queue_ms`,
    frames of `mtu` bytes."""
    rate_bytes = mbit * 1e6 / 8
    # The bucket holds a few full-size frames (larger GSO packets are cut
    # into frames, so the link never runs faster than its rate for more
    # than a burst) and about a millisecond at the rate.
    burst = max(int(rate_bytes / 1000), 4 * (mtu + 14))
    sh(
        ["tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{mbit}mbit",
         "burst", str(burst), "latency", f"{queue_ms}ms"],
        ns,
    )


class Network:
    """Builds and removes one run's namespaces (see the module docs)."""

    def __init__(self, topo: Topology, prefix: Optional[str] = None) -> None:
        self.topo = topo
        self.prefix = prefix or f"tkb{os.getpid()}-"
        self.made: List[str] = []

    def rank_ns(self, rank: int) -> str:
        return f"{self.prefix}r{rank}"

    @property
    def spine_ns(self) -> str:
        return f"{self.prefix}sw"

    def node_ns(self, node: int) -> str:
        return f"{self.prefix}n{node}"

    def _add_ns(self, names: List[str]) -> None:
        for name in names:
            sh(["ip", "netns", "add", name])
            self.made.append(name)

    def build(self) -> None:
        t = self.topo
        g = t.gpus_per_node
        nvlink = g > 1
        ranks = [self.rank_ns(r) for r in range(t.ranks)]
        nodes = [self.node_ns(a) for a in range(t.nodes)] if nvlink else []
        self._add_ns([self.spine_ns] + nodes + ranks)
        for ns in ranks:
            # Replies come back over the link they were routed on; no
            # reverse-path filter between a rank's two ports (set before
            # the ports exist, so they inherit it).
            sh(["sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"], ns)
        switches = [self.spine_ns] + nodes
        for sw in switches:
            batch(sw, ["link add br0 type bridge", "link set br0 up"])
        ports = {sw: [] for sw in switches}
        # Every route a rank has carries the congestion control (and the
        # least retransmission timeout, if set).
        route_opts = f" congctl {t.congestion}" + ("" if t.rto_min_ms is None else f" rto_min {t.rto_min_ms:g}ms")
        for r in range(t.ranks):
            cmds = [
                "link set lo up",
                f"link add nic0 mtu {t.mtu} type veth peer name p{r} mtu {t.mtu} netns {self.spine_ns}",
                f"addr add {t.nic_ip(r)}/{NIC_NET.prefixlen} dev nic0",
                "link set nic0 up",
            ]
            # The address's own route, replaced with the options on it.
            cmds.append(f"route replace {NIC_NET} dev nic0 proto kernel scope link src {t.nic_ip(r)}{route_opts}")
            ports[self.spine_ns].append(f"p{r}")
            if nvlink:
                node, local = divmod(r, g)
                cmds += [
                    f"link add nvl0 mtu {t.mtu} type veth peer name p{local} mtu {t.mtu} netns {nodes[node]}",
                    f"addr add {t.nvlink_ip(r)}/24 dev nvl0",
                    "link set nvl0 up",
                ]
                ports[nodes[node]].append(f"p{local}")
                for peer in range(node * g, node * g + g):
                    if peer != r:
                        cmds.append(f"route add {t.nic_ip(peer)}/32 dev nvl0 src {t.nic_ip(r)}{route_opts}")
            batch(ranks[r], cmds)
        for sw, names in ports.items():
            batch(sw, [c for port in names for c in (f"link set {port} master br0", f"link set {port} up")])
        for r in range(t.ranks):
            ns = ranks[r]
            shape(ns, "nic0", t.nic_rate(r), t.queue_ms, t.mtu)
            shape(self.spine_ns, f"p{r}", t.nic_rate(r), t.queue_ms, t.mtu)
            if t.loss_pct > 0:
                drop_share(ns, t.loss_pct)
            if nvlink and t.nvlink_mbit is not None:
                node, local = divmod(r, g)
                shape(ns, "nvl0", t.nvlink_mbit, t.queue_ms, t.mtu)
                shape(nodes[node], f"p{local}", t.nvlink_mbit, t.queue_ms, t.mtu)

    def remove(self) -> List[str]:
        """Deletes every namespace this run made; returns those that would not go."""
        self.made = remove_namespaces(self.made[::-1])
        return list(self.made)


def remove_namespaces(names: Sequence[str]) -> List[str]:
    left = []
    for name in names:
        p = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True)
        if p.returncode != 0 and name in list_namespaces():
            left.append(name)
    return left


def list_namespaces() -> List[str]:
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def pids_in(ns: str) -> List[int]:
    p = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(x) for x in p.stdout.split() if x.isdigit()]


def remove_stale() -> List[str]:
    """Deletes the namespaces of testbed runs whose process is gone (a run
    killed with SIGKILL cannot clean up after itself); returns their names."""
    stale = []
    for name in list_namespaces():
        m = PREFIX_RE.match(name)
        if m and not _alive(int(m.group(1))):
            stale.append(name)
    for name in stale:
        for pid in pids_in(name):
            _kill(pid)
    remove_namespaces(stale)
    return stale


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
