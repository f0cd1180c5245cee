#!/usr/bin/env python3
"""Writes the instances measured on a GPU (doc/gpu.md) to instances/gpu/.

Deterministic, no dependencies. Names sort by family and size:
<family>_n<slots>_m<chunks per pair>.json. All READ1_WRITE1 (one send and one
receive per slot per tick), the model whose exact solver (Koenig) differs
from greedy.
"""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "instances", "gpu")


def write(name, slots, bw, demands, notes):
    inst = {
        "version": 0,
        "model": "READ1_WRITE1",
        "slots": slots,
        "copy_bw_bits_per_tick": bw,
        "demands": [{"src_slot": s, "dst_slot": d, "bits_total": b} for s, d, b in demands],
        "id": name,
        "notes": notes,
    }
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(inst, f, indent=1)
        f.write("\n")


os.makedirs(OUT, exist_ok=True)
# MoE-style all-to-all: 8 GPUs, 32 MiB per pair in 512 KiB chunks (64 per pair).
bw = 1 << 22
write("a2a_n8_m64", 8, bw,
      [(a, b, 64 * bw) for a in range(8) for b in range(8) if a != b],
      "all-to-all, 8 slots, 32 MiB per pair, 512 KiB chunks")
# Ring all-gather step: 16 GPUs, 128 MiB to the next one in 2 MiB chunks.
bw = 1 << 24
write("ring_n16_m64", 16, bw,
      [(a, (a + 1) % 16, 64 * bw) for a in range(16)],
      "ring, 16 slots, 128 MiB per pair, 2 MiB chunks")
# High multiplicity, uneven: 8 slots, each sends 1000..3000 chunks of 8 KiB to
# three others; the last chunk of each demand is ragged.
bw = 1 << 16
dem = []
for a in range(8):
    for k, (off, m) in enumerate([(1, 3000), (2, 1000), (5, 2000)]):
        dem.append((a, (a + off) % 8, m * bw - (a * 977 + k * 131) % bw))
write("skew_n8_m1000", 8, bw, dem,
      "three demands per slot of 1000-3000 chunks of 8 KiB, ragged last chunks")
print("wrote", sorted(os.listdir(OUT)))
