#!/usr/bin/env python3
"""Checks that `tickopt solve --solver greedy` is never longer than
copyspace-guard's greedy on the bundled STRICT1 instances (demo and
standard sets, up to MAX_CHUNKS chunks: copyspace-guard's greedy is
pure Python, one tick at a time).

Usage: python3 scripts/compare_greedy.py TICKOPT_BIN  (run with the Python
of the copyspace-guard venv, so `copyspace_guard` imports). Exit 1 if any
instance is worse.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from copyspace_guard.io import instance_from_csv
from copyspace_guard.solvers import iter_greedy

MAX_CHUNKS = 100_000


def main():
    tickopt = sys.argv[1]
    repo = Path(__file__).resolve().parent.parent
    worse, compared = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "s.json"
        for set_ in ["demo", "standard"]:
            manifest = json.loads((repo / "instances" / set_ / "manifest.json").read_text())
            for e in manifest["instances"]:
                if "STRICT1" not in e["models"]:
                    continue
                path = repo / "instances" / set_ / e["file"]
                inst = instance_from_csv(str(path), bw=e["bw"], model="STRICT1")
                chunks = sum(-(-d["bits_total"] // e["bw"]) for d in inst["demands"])
                if chunks > MAX_CHUNKS:
                    continue
                cg_ticks = sum(1 for _ in iter_greedy(inst))
                subprocess.run([tickopt, "solve", str(path), "--bw", str(e["bw"]), "--solver", "greedy",
                                "--summary", str(summary)], check=True, capture_output=True)
                ours = json.loads(summary.read_text())["ticks"]
                compared += 1
                if ours > cg_ticks:
                    worse.append(f"{set_}/{e['file']}: tickopt greedy {ours} ticks, copyspace-guard greedy {cg_ticks}")
    for w in worse:
        print("FAIL:", w, file=sys.stderr)
    print(f"compare_greedy: {compared} STRICT1 instances, tickopt greedy never longer: {not worse}", file=sys.stderr)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
