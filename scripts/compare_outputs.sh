#!/usr/bin/env bash
# Compare two tickopt binaries (main's release build and a branch's, for a
# change that must not change behaviour) on the bundled instances: every
# output file and every stdout/stderr, byte for byte, once wall-clock
# timings are taken out (scripts/compare_dirs.py says what it ignores).
# Usage: scripts/compare_outputs.sh BEFORE AFTER WORKDIR [SECTION...]
# Sections: solve bounds bench verify gen interop audit (default: all; the
# whole run takes about 20 minutes a binary on 2 busy cores).
# REUSE_BEFORE=DIR takes the before side from an earlier run's DIR/before.
set -uo pipefail
before=$(realpath "$1") after=$(realpath -m "$2") work=$3
shift 3
sections=${*:-solve bounds bench verify gen interop audit}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
work=$(realpath "$work")

instances() { find "$repo/instances" -type f \( -name '*.csv' -o -name '*.json' \) ! -name manifest.json | sort; }

run() { # NAME CMD... : stdout, stderr and exit status into NAME.{out,err,rc}
  local name=$1
  shift
  timeout 600 "$@" >"$name.out" 2>"$name.err"
  echo $? >"$name.rc"
}

run_all() { # BIN DIR
  local bin=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
  for s in $sections; do
    case $s in
    solve)
      for f in $(instances); do
        n=$(basename "$(dirname "$f")")_$(basename "$f")
        for m in STRICT1 READ1_WRITE1; do
          run "solve.$n.$m.compact" "$bin" solve "$f" --model "$m" --format compact -o "solve.$n.$m.compact.sched" --summary "solve.$n.$m.summary.json"
          run "solve.$n.$m.default" "$bin" solve "$f" --model "$m" -o "solve.$n.$m.default.sched" --max-output-bytes 32MiB
        done
      done
      ;;
    bounds)
      for f in $(instances); do
        n=$(basename "$(dirname "$f")")_$(basename "$f")
        for m in STRICT1 READ1_WRITE1; do
          run "bounds.$n.$m.text" "$bin" bounds "$f" --model "$m"
          run "bounds.$n.$m.json" "$bin" bounds "$f" --model "$m" --json
          # The seconds bound over every chunk size: small sets only (it
          # takes minutes on the 20,000-slot cluster instances).
          case $f in */cluster/* | */scale/*) continue ;; esac
          run "bounds.$n.$m.cost" "$bin" bounds "$f" --model "$m" --json --alpha-us 5 --link-gbps 100
        done
      done
      ;;
    verify)
      # Claims with a cost model (check_seconds) and with auto chunks; then
      # verify each, and verify doctored summaries (refusals).
      for f in $(find "$repo/instances/standard" "$repo/instances/demo" "$repo/instances/multiport" -type f ! -name manifest.json | sort); do
        n=$(basename "$(dirname "$f")")_$(basename "$f")
        for m in STRICT1 READ1_WRITE1; do
          run "verify.$n.$m.solve" "$bin" solve "$f" --model "$m" --format compact -o "verify.$n.$m.sched" --summary "verify.$n.$m.summary.json" --alpha-us 5 --link-gbps 100 --chunk auto
          run "verify.$n.$m.check" "$bin" verify "$f" "verify.$n.$m.sched" "verify.$n.$m.summary.json" --model "$m" --json
          run "verify.$n.$m.text" "$bin" verify "$f" "verify.$n.$m.sched" "verify.$n.$m.summary.json" --model "$m"
          if [ -s "verify.$n.$m.summary.json" ]; then
            for edit in '.ticks += 1' '.lower_bound += 1' '.status = "optimal_exhaustive"' '.witness.slot = 1' '.witness = null' '.seconds_predicted = 1' '.chunk.bits += 8' '.cost.alpha_us = 7' 'del(.bounds)' '.gap = 3' '.copy_bw_bits_per_tick += 1' '.bounds.best.ticks += 1' '.witness.kind = "odd_set"'; do
              k=$(echo "$edit" | md5sum | cut -c1-8)
              jq "$edit" "verify.$n.$m.summary.json" >"verify.$n.$m.bad$k.json" 2>/dev/null || continue
              run "verify.$n.$m.bad$k" "$bin" verify "$f" "verify.$n.$m.sched" "verify.$n.$m.bad$k.json" --model "$m" --json
            done
          fi
        done
      done
      ;;
    bench)
      run bench.demo "$bin" bench "$repo/instances/demo" --out bench_demo -j 2
      run bench.standard "$bin" bench "$repo/instances/standard" --out bench_standard -j 2
      run bench.multiport "$bin" bench "$repo/instances/multiport" --out bench_multiport -j 2
      run bench.reshard "$bin" bench "$repo/instances/reshard" --out bench_reshard -j 2 --alpha-us 5 --link-gbps 100
      ;;
    gen)
      for fam in $("$bin" gen --help | sed -n '/^Commands:/,/^Options:/p' | awk 'NR>1 && /^  [a-z]/ {print $1}' | grep -v '^help$'); do
        run "gen.$fam.help" "$bin" gen "$fam" --help
        run "gen.$fam.default" "$bin" gen "$fam" -o "gen.$fam.default.csv"
      done
      ;;
    interop)
      for f in $(find "$repo/instances/standard" "$repo/instances/demo" "$repo/instances/gpu" -type f ! -name manifest.json | sort); do
        n=$(basename "$(dirname "$f")")_$(basename "$f")
        for m in STRICT1 READ1_WRITE1; do
          "$bin" solve "$f" --model "$m" -o "interop.$n.$m.json" --max-output-bytes 8MiB >/dev/null 2>&1 || continue
          for fmt in p2p-json msccl-xml; do
            # MSCCL's re-read takes minutes on 10^5 chunks (84,060 chunks:
            # over 5 min): schedules over 1 MB (about 2*10^4 chunks) only
            # as p2p-json.
            [ $fmt = msccl-xml ] && [ "$(stat -c %s "interop.$n.$m.json")" -gt 1000000 ] && continue
            run "interop.$n.$m.$fmt.export" "$bin" export "$f" "interop.$n.$m.json" --model "$m" --to "$fmt" -o "interop.$n.$m.$fmt"
            [ -s "interop.$n.$m.$fmt" ] || continue
            bw=()
            [ $fmt = msccl-xml ] && bw=(--bw 1024 --model "$m" --serialize)
            run "interop.$n.$m.$fmt.import" "$bin" import "interop.$n.$m.$fmt" --from "$fmt" "${bw[@]}" -o "interop.$n.$m.$fmt.instance.json" --schedule-out "interop.$n.$m.$fmt.sched.json"
            [ $fmt = msccl-xml ] && run "interop.$n.$m.$fmt.e2e" "$bin" import "interop.$n.$m.$fmt" --from "$fmt" "${bw[@]}" --demands end-to-end -o "interop.$n.$m.$fmt.e2e.json"
          done
        done
      done
      ;;
    audit)
      for f in $(find "$repo/instances/standard" "$repo/instances/demo" "$repo/instances/multiport" -type f ! -name manifest.json | sort); do
        n=$(basename "$(dirname "$f")")_$(basename "$f")
        for m in STRICT1 READ1_WRITE1; do
          "$bin" solve "$f" --model "$m" --solver greedy -o "audit.$n.$m.greedy.json" --max-output-bytes 8MiB >/dev/null 2>&1 || continue
          "$bin" solve "$f" --model "$m" --solver pairwise -o "audit.$n.$m.pairwise.json" --max-output-bytes 8MiB >/dev/null 2>&1
          jq 'del(.ticks[0])' "audit.$n.$m.greedy.json" >"audit.$n.$m.short.json"
          scheds=$(ls "audit.$n.$m".*.json)
          run "audit.$n.$m" "$bin" audit "$f" $scheds --model "$m" --out-dir "audit.$n.$m.reports" --max-gap-ticks 0
          run "audit.$n.$m.json" "$bin" audit "$f" $scheds --model "$m" --json --max-gap 0.5
        done
      done
      ;;
    esac
  done
}

# REUSE_BEFORE=DIR: take the before side from an earlier run's DIR/before
# (same sections, same before binary) instead of running it again.
for side in before after; do
  bin=$before
  [ $side = after ] && bin=$after
  if [ $side = before ] && [ -n "${REUSE_BEFORE:-}" ]; then
    rm -rf "$work/before" && cp -a "$REUSE_BEFORE/before" "$work/before"
    continue
  fi
  # The after binary may still be building: wait for it.
  while [ ! -x "$bin" ]; do sleep 10; done
  (run_all "$bin" "$work/$side")
done
# Equal up to wall-clock timings and the order parallel runs finish in.
python3 "$repo/scripts/compare_dirs.py" "$work/before" "$work/after" 5
