#!/usr/bin/env bash
# Runs on a GPU machine (no Rust needed): the CUDA-gated tests, then
# `tickopt replay --executor cuda --compare --peak` and the PyTorch baseline
# on each instance of instances/gpu/. See doc/gpu.md.
#
#   BIN=dir-with-tickopt-and-test-binaries OUT=results-dir scripts/gpu_measure.sh
#
# BIN holds `tickopt` and test binaries named test-* (built with
# `cargo build --release --features cuda` and
# `cargo test --release --features cuda --no-run`).
set -u
BIN=${BIN:-target/gpu-bin}
OUT=${OUT:-out/gpu}
WARMUP=${WARMUP:-3}
REPEAT=${REPEAT:-20}
# name:scale_bits pairs
RUNS=${RUNS:-"a2a_n8_m64:1 a2a_n8_m64:32 ring_n16_m64:1 skew_n8_m1000:1"}
mkdir -p "$OUT"

{
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory,pcie.link.gen.max --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  uname -srm; nproc
} > "$OUT/machine.txt" 2>&1

: > "$OUT/tests.txt"
for t in "$BIN"/test-*; do
  echo "== $t" >> "$OUT/tests.txt"
  TICKOPT_CUDA_TESTS=1 "$t" --include-ignored --test-threads=1 >> "$OUT/tests.txt" 2>&1
  echo "== $t exit $?" >> "$OUT/tests.txt"
done
grep -E "^== |test result" "$OUT/tests.txt"

for run in $RUNS; do
  name=${run%%:*}; scale=${run##*:}
  inst=instances/gpu/$name.json
  tag=${name}_s$scale
  "$BIN/tickopt" solve "$inst" --format compact --out "$OUT/$name.tickopt.json" --summary "$OUT/$name.summary.json"
  "$BIN/tickopt" solve "$inst" --solver greedy --format compact --out "$OUT/$name.greedy.json"
  echo "== replay $tag"
  "$BIN/tickopt" replay "$inst" "$OUT/$name.tickopt.json" --executor cuda --compare --peak \
    --scale-bits "$scale" --warmup "$WARMUP" --repeat "$REPEAT" --out "$OUT/replay_$tag.json" \
    2>&1 | tee "$OUT/replay_$tag.txt"
  echo "== torch $tag"
  python3 scripts/torch_copy.py "$OUT/replay_$tag.json" --instance "$inst" \
    --schedule "tickopt=$OUT/$name.tickopt.json" --schedule "greedy=$OUT/$name.greedy.json" \
    --warmup "$WARMUP" --repeat "$REPEAT" --out "$OUT/torch_$tag.json" 2>&1 | tee "$OUT/torch_$tag.txt"
done
