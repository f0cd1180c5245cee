"""Run by every rank under the testbed (test_testbed.py): reports what the
rank sees (its variables and the link each peer is routed over) as JSON in
$PROBE_DIR/rank{RANK}.json; exits with $PROBE_FAIL_STATUS on rank 1 when
set, or sleeps $PROBE_SLEEP_S first."""

import json
import os
import subprocess
import sys
import time

rank = int(os.environ["RANK"])
time.sleep(float(os.environ.get("PROBE_SLEEP_S", "0")))
topo = json.loads(os.environ["TICKOPT_TESTBED"])
world = int(os.environ["WORLD_SIZE"])
routes, route_opts = {}, {}
for peer in range(world):
    if peer != rank:
        ip = "198.18.%d.%d" % divmod(peer + 1, 256)
        out = subprocess.run(["ip", "route", "get", ip], capture_output=True, text=True).stdout
        routes[peer] = out.split(" dev ")[1].split()[0]
        route_opts[peer] = " ".join(out.split("cache")[1].split()) if "cache" in out else ""
keys = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT",
        "GLOO_SOCKET_IFNAME")
with open(os.path.join(os.environ["PROBE_DIR"], f"rank{rank}.json"), "w") as f:
    json.dump({"env": {k: os.environ.get(k) for k in keys}, "routes": routes, "route_opts": route_opts,
               "topo": topo}, f)
print(f"probe rank {rank} ok", flush=True)
if rank == 1 and os.environ.get("PROBE_FAIL_STATUS"):
    sys.exit(int(os.environ["PROBE_FAIL_STATUS"]))
