#!/usr/bin/env bash
# Runs on a GPU machine (no Rust needed), in the repository root, from
# binaries built without a GPU. See doc/gpu.md ("Device modes and graphs").
#
#   BIN=dir-with-tickopt-and-test-binaries OUT=results-dir scripts/gpu_measure.sh
#
# BIN holds `tickopt` and test binaries named test-* (built with
# `cargo build --release --features cuda` and
# `cargo test --release --features cuda --no-run`; copy
# target/release/deps/exec_cuda-<hash> as test-exec_cuda. test-replay_cli
# runs the tickopt at the absolute path it was built with, so copy it only
# where the checkout sits at that same path).
#
# What it does, in order (about 5-7 minutes on an H100/H200; a soft
# deadline, BUDGET seconds, skips what is left and says so):
#   1. machine.txt: nvidia-smi, driver, torch, where NVRTC was found.
#   2. tests.txt: every test-* with TICKOPT_CUDA_TESTS=1 --include-ignored
#      (the CUDA tests of every mode).
#   3. Instances: instances/gpu/*.json, plus 64- and 256-rank skewed MoE
#      plans made here with `tickopt gen moe` (Zipf 1.0, 7168-byte tokens).
#      Each solved by tickopt (and greedy, for --compare).
#   4. For each instance and scale: `tickopt replay --executor cuda
#      --compare` (host, graph, device-barrier, device-dataflow, greedy,
#      all at once, peak copy) -> replay_<tag>.json, and the CPU's checksum
#      of the same plan -> cpu_<tag>.json.
#   5. The floor: the same plans scaled to (almost) nothing
#      (--scale-bits 2^40: one byte per demand, empty ticks) ->
#      replay_floor_<name>.json.
#   6. The fit per mode (alpha per tick, rate): fit_modes.txt/.json; the
#      host mode's per-tick fit: fit_host.txt.
#   7. PyTorch's copies of the same regions (scripts/torch_copy.py) on
#      instances/gpu at scale 1, if time is left (TORCH=0 skips).
#   8. summary.txt: one screen, printed at the end.
# Raw JSON under $OUT is what doc/gpu/ keeps.
set -u
BIN=${BIN:-target/gpu-bin}
OUT=${OUT:-out/gpu}
WARMUP=${WARMUP:-3}
REPEAT=${REPEAT:-20}
BUDGET=${BUDGET:-420}
TORCH=${TORCH:-1}
# EXECUTOR=cpu: a dry run of the whole script without a GPU (the device
# modes emulated on host threads, graph skipped; small RUNS advised).
EXECUTOR=${EXECUTOR:-cuda}
# name:scale_bits pairs; moe_* are generated below, the others are instances/gpu/NAME.json.
RUNS=${RUNS:-"a2a_n8_m64:1 a2a_n8_m64:32 ring_n16_m64:1 skew_n8_m1000:1 moe_n64:1 moe_n256:1 moe_n256:16"}
FLOORS=${FLOORS:-"skew_n8_m1000 moe_n256"}
mkdir -p "$OUT/inst"
T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
late() { [ "$(elapsed)" -ge "$BUDGET" ]; }
log() { echo "[$(elapsed)s] $*" | tee -a "$OUT/measure.log"; }

# NVRTC for the device modes: PyTorch's wheels ship it; tickopt also
# searches on its own, this makes it explicit (and visible in machine.txt).
if [ -z "${TICKOPT_NVRTC:-}" ]; then
  TICKOPT_NVRTC=$(python3 - <<'EOF' 2>/dev/null
import glob, os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
for d in dirs:
    for sub in ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", "torch/lib"):
        for f in sorted(glob.glob(os.path.join(d, sub, "libnvrtc.so*"))):
            if "builtins" not in f:
                print(f); sys.exit(0)
EOF
)
fi
if [ -n "${TICKOPT_NVRTC:-}" ]; then
  export TICKOPT_NVRTC
  export LD_LIBRARY_PATH="$(dirname "$TICKOPT_NVRTC"):${LD_LIBRARY_PATH:-}"
fi

{
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory,pcie.link.gen.max --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "TICKOPT_NVRTC=${TICKOPT_NVRTC:-<not found by the script>}"
  uname -srm; nproc
  ldd --version 2>&1 | head -1
  echo "== ldd $BIN/tickopt"; ldd "$BIN/tickopt"
} > "$OUT/machine.txt" 2>&1

# Binaries built on another machine's image may not start here (its C and
# C++ libraries older than the ones they were linked against): say so at
# once rather than after every test has timed out.
if ! "$BIN/tickopt" --version >> "$OUT/machine.txt" 2>&1; then
  log "$BIN/tickopt does not start on this machine (machine.txt: ldd and the error); built against GLIBC $(objdump -T "$BIN/tickopt" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1), GLIBCXX $(objdump -T "$BIN/tickopt" 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1)"
  tail -5 "$OUT/machine.txt"
  exit 2
fi

log "tests"
: > "$OUT/tests.txt"
for t in "$BIN"/test-*; do
  [ -x "$t" ] || continue
  echo "== $t" >> "$OUT/tests.txt"
  TICKOPT_CUDA_TESTS=1 timeout 240 "$t" --include-ignored --test-threads=1 >> "$OUT/tests.txt" 2>&1
  echo "== $t exit $?" >> "$OUT/tests.txt"
done
grep -E "^== |test result" "$OUT/tests.txt"

log "instances"
TK="$BIN/tickopt"
for n in 64 256; do
  "$TK" gen moe --n $n --tokens 256 --topk 2 --zipf 1.0 --token-bits 7168B --bw 256KiB \
    --seed 1 -o "$OUT/inst/moe_n$n.csv" >> "$OUT/measure.log" 2>&1
done
inst_args() {  # instance path and the flags a CSV needs
  case $1 in
    moe_*) echo "$OUT/inst/$1.csv --model READ1_WRITE1 --bw 256KiB" ;;
    *) echo "instances/gpu/$1.json" ;;
  esac
}
for name in $(for r in $RUNS; do echo "${r%%:*}"; done | sort -u); do
  # shellcheck disable=SC2046
  "$TK" solve $(inst_args "$name") --format compact --out "$OUT/inst/$name.tickopt.json" \
    --summary "$OUT/inst/$name.summary.json" 2>&1 | tee -a "$OUT/measure.log"
done

replay() {  # tag name scale warmup repeat extra...
  local tag=$1 name=$2 scale=$3 w=$4 r=$5; shift 5
  # shellcheck disable=SC2046
  "$TK" replay $(inst_args "$name") "$OUT/inst/$name.tickopt.json" --executor "$EXECUTOR" --compare \
    --scale-bits "$scale" --warmup "$w" --repeat "$r" --max-mib 16384 --out "$OUT/replay_$tag.json" "$@" \
    > "$OUT/replay_$tag.txt" 2>&1
  echo "exit $?" >> "$OUT/replay_$tag.txt"
  # shellcheck disable=SC2046
  "$TK" replay $(inst_args "$name") "$OUT/inst/$name.tickopt.json" --executor cpu \
    --scale-bits "$scale" --warmup 0 --repeat 1 --max-mib 16384 --out "$OUT/cpu_$tag.json" \
    > /dev/null 2>&1
}

for run in $RUNS; do
  name=${run%%:*}; scale=${run##*:}; tag=${name}_s$scale
  if late; then log "SKIPPED replay $tag (past ${BUDGET}s)"; continue; fi
  w=$WARMUP; r=$REPEAT
  case $name in moe_n256) w=2; r=8 ;; esac
  log "replay $tag"
  replay "$tag" "$name" "$scale" "$w" "$r"
  grep -E "^(run|schedule|greedy|all_at_once|peak|skipped)|error|exit" "$OUT/replay_$tag.txt"
done

for name in $FLOORS; do
  if late; then log "SKIPPED floor $name (past ${BUDGET}s)"; continue; fi
  log "floor $name (empty ticks)"
  replay "floor_$name" "$name" 1099511627776 2 10
  grep -E "^(run|schedule|skipped)|error|exit" "$OUT/replay_floor_$name.txt"
done

log "fit"
python3 scripts/fit_tick_model.py "$OUT"/replay_*.json --by-mode > "$OUT/fit_modes.txt" 2>&1
python3 scripts/fit_tick_model.py "$OUT"/replay_*.json --by-mode --json > "$OUT/fit_modes.json" 2>&1
python3 scripts/fit_tick_model.py $(ls "$OUT"/replay_*.json | grep -v floor) --markdown > "$OUT/fit_host.txt" 2>&1
cat "$OUT/fit_modes.txt"

if [ "$TORCH" = 1 ]; then
  for run in $RUNS; do
    name=${run%%:*}; scale=${run##*:}; tag=${name}_s$scale
    case $name in moe_*) continue ;; esac
    [ "$scale" = 1 ] || continue
    if late; then log "SKIPPED torch $tag (past ${BUDGET}s)"; continue; fi
    log "torch $tag"
    python3 scripts/torch_copy.py "$OUT/replay_$tag.json" --instance "instances/gpu/$name.json" \
      --schedule "tickopt=$OUT/inst/$name.tickopt.json" \
      --warmup 2 --repeat 5 --out "$OUT/torch_$tag.json" > "$OUT/torch_$tag.txt" 2>&1
  done
fi

python3 - "$OUT" <<'EOF' | tee "$OUT/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
print(f"{'plan':22} {'mode':16} {'ticks':>6} {'total':>10} {'us/tick':>8} {'over/tick':>9} {'GB/s':>8} data  cpu")
for p in sorted(glob.glob(os.path.join(out, "replay_*.json"))):
    tag = os.path.basename(p)[7:-5]
    rep = json.load(open(p))
    peak = (rep.get("peak") or {}).get("gbps") or 0
    cpu_p = os.path.join(out, f"cpu_{tag}.json")
    cpu = json.load(open(cpu_p))["runs"][0]["verification"]["checksum"] if os.path.exists(cpu_p) else None
    for r in rep["runs"]:
        if r["label"] not in ("schedule", "all_at_once") and not r["label"].startswith("schedule:"):
            continue
        t, us = r["ticks"], r["total"]["median_us"]
        # cost per tick beyond moving the bytes at the copy peak
        over = (us - r["bytes"] / (peak * 1e3)) / t if peak else float("nan")
        same = "-" if cpu is None else ("same" if r["verification"]["checksum"] == cpu else "DIFF")
        mode = r["mode"] if r["label"] != "all_at_once" else "all-at-once"
        ok = "ok" if r["verification"]["passed"] else "FAIL"
        print(f"{tag:22} {mode:16} {t:6} {us / 1e3:8.3f}ms {us / t:8.2f} {over:9.2f} {r['effective_gbps']:8.1f} {ok:5} {same}")
    for s in rep.get("skipped", []):
        print(f"{tag:22} {s['mode']:16} skipped: {s['why'][:80]}")
fit = os.path.join(out, "fit_modes.txt")
if os.path.exists(fit):
    print("fit per mode (total = alpha * ticks + bytes / rate):")
    print(open(fit).read().rstrip())
tests = open(os.path.join(out, "tests.txt")).read().splitlines() if os.path.exists(os.path.join(out, "tests.txt")) else []
print("tests:", "; ".join(l for l in tests if "test result" in l or " exit " in l)[:400])
EOF
log "done in $(elapsed)s"
