#!/usr/bin/env bash
# Interop tests against copyspace-guard (the reference validator):
#  1. every schedule `tickopt solve` writes (JSON and CSV) passes `tickopt
#     verify` with its certificate, and is PASSed by
#     `copyspace-guard validate`, with the same tick count, and tickopt's
#     lower bound is never below copyspace-guard's;
#  2. `copyspace-guard audit --solver-plugin solvers/tickopt_plugin.py`
#     accepts the plugin's schedules;
#  3. `tickopt solve --solver greedy` is never longer than copyspace-guard's
#     greedy on the bundled STRICT1 instances (scripts/compare_greedy.py);
#  4. the plugin shim fails cleanly when the binary is missing.
# Needs target/release/tickopt (scripts/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
SHARED=${TICKOPT_SHARED:-$repo/../shared}
CG=$(CG_VENV=$repo/target/cg-venv "$SHARED/tools/cg.sh")
T=$repo/target/release/tickopt
[ -x "$T" ] || { echo "interop: $T missing; run cargo build --release" >&2; exit 1; }
out=$repo/target/interop
MAX_EXPANDED_CHUNKS=${MAX_EXPANDED_CHUNKS:-200000}
rm -rf "$out"; mkdir -p "$out"
fail=0
check() { # name, condition-description, command...
  local what=$1; shift
  if ! "$@"; then echo "FAIL: $what" >&2; fail=1; fi
}

inputs=(tests/data/*.json)
if [ -f instances/demo/manifest.json ]; then
  # Bundled demo instances: the manifest lists files with bw and models.
  while IFS= read -r line; do inputs+=("$line"); done < <(python3 - <<'PY'
import json
m = json.load(open("instances/demo/manifest.json"))
for e in m.get("instances", []):
    for model in e.get("models", ["STRICT1"]):
        print(f"instances/demo/{e['file']}|{e['bw']}|{model}")
PY
)
fi

n=0
for spec in "${inputs[@]}"; do
  IFS='|' read -r file bw model <<<"$spec"
  name=$(basename "$file"); name=${name%.*}${model:+_$model}
  args=()
  [ -n "${bw:-}" ] && args+=(--bw "$bw")
  [ -n "${model:-}" ] && args+=(--model "$model")
  # The instance JSON copyspace-guard sees: tickopt's own normalisation.
  "$T" solve "$file" "${args[@]}" --format compact --out "$out/$name.compact.json" --summary "$out/$name.summary.json" 2>/dev/null
  check "$name: tickopt verify (compact schedule)" "$T" verify "$file" "$out/$name.compact.json" "$out/$name.summary.json" "${args[@]}" >/dev/null
  chunks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["chunks"])' "$out/$name.summary.json")
  if [ "$chunks" -gt "$MAX_EXPANDED_CHUNKS" ]; then
    # copyspace-guard reads expanded schedules only (one JSON object per
    # chunk): above this size it takes minutes and gigabytes, so such
    # instances are checked by tickopt's own validator and verify only.
    echo "interop: $name: $chunks chunks, above $MAX_EXPANDED_CHUNKS: copyspace-guard skipped (compact schedule verified)" >&2
    continue
  fi
  "$T" solve "$file" "${args[@]}" --out "$out/$name.sched.json" --summary "$out/$name.summary.json" 2>/dev/null
  "$T" solve "$file" "${args[@]}" --out "$out/$name.sched.csv" 2>/dev/null
  python3 - "$file" "$out/$name.inst.json" "${bw:-}" "${model:-}" <<'PY'
import csv, json, sys
src, dst, bw, model = sys.argv[1:5]
if src.endswith(".json"):
    inst = json.load(open(src))
    if bw: inst["copy_bw_bits_per_tick"] = int(bw)
    if model: inst["model"] = model
else:
    rows = [r for r in csv.reader(open(src)) if r and not r[0].startswith("#") and r[0].strip().isdigit()]
    dem = [{"src_slot": int(a), "dst_slot": int(b), "bits_total": int(c)} for a, b, c, *_ in rows]
    n = max(max(d["src_slot"], d["dst_slot"]) for d in dem) + 1
    inst = {"version": 0, "model": model or "STRICT1", "slots": n, "copy_bw_bits_per_tick": int(bw), "demands": dem}
json.dump(inst, open(dst, "w"))
PY
  check "$name: tickopt verify (certificate)" "$T" verify "$file" "$out/$name.sched.json" "$out/$name.summary.json" "${args[@]}" >/dev/null
  check "$name: tickopt verify (CSV schedule)" "$T" verify "$file" "$out/$name.sched.csv" "$out/$name.summary.json" "${args[@]}" >/dev/null
  check "$name: copyspace-guard validate (JSON)" "$CG/copyspace-guard" validate "$out/$name.inst.json" "$out/$name.sched.json" --report "$out/$name.cg.json" >/dev/null
  "$CG/copyspace-guard" schedule-csv-to-json --csv "$out/$name.sched.csv" --out "$out/$name.fromcsv.json" \
    --model "$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["model"])' "$out/$name.inst.json")" >/dev/null
  check "$name: copyspace-guard validate (CSV)" "$CG/copyspace-guard" validate "$out/$name.inst.json" "$out/$name.fromcsv.json" >/dev/null
  check "$name: ticks and bounds agree" python3 - "$out/$name.summary.json" "$out/$name.cg.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
ok = r["status"] == "PASS" and r["ticks_total"] == s["ticks"] and s["lower_bound"] >= r["lower_bound_ticks"]
if s["model"] == "READ1_WRITE1":
    ok = ok and s["status"] == "optimal" and s["ticks"] == r["degree_lower_bound"]
if not ok:
    print(f"tickopt ticks={s['ticks']} lb={s['lower_bound']} status={s['status']}; "
          f"copyspace-guard status={r['status']} ticks={r['ticks_total']} lb={r['lower_bound_ticks']}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
  n=$((n+1))
done
echo "interop: $n instances validated by copyspace-guard" >&2

# audit --solver-plugin, through the shim, on demands CSVs.
for name in a2a_n16_r1w1 petersen_m1_strict1 random_n64_strict1; do
  python3 - "tests/data/$name.json" "$out/$name.demands.csv" <<'PY'
import json, sys
inst = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    f.write("src_slot,dst_slot,bits_total\n")
    for d in inst["demands"]:
        f.write(f"{d['src_slot']},{d['dst_slot']},{d['bits_total']}\n")
print(inst["copy_bw_bits_per_tick"], inst["model"], inst["slots"], file=open(sys.argv[2] + ".args", "w"))
PY
  read -r bw model slots < "$out/$name.demands.csv.args"
  check "$name: audit --solver-plugin" env TICKOPT_BIN="$T" "$CG/copyspace-guard" audit --demands "$out/$name.demands.csv" \
    --bw "$bw" --model "$model" --slots "$slots" --solver-plugin solvers/tickopt_plugin.py --outdir "$out/audit_$name" >/dev/null
  check "$name: audit report PASS" python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["status"]=="PASS" else 1)' "$out/audit_$name/report_customer_current.json"
done
echo "interop: audit --solver-plugin accepted the plugin's schedules" >&2

# tickopt's greedy is never longer than copyspace-guard's on the bundled sets.
check "greedy vs copyspace-guard greedy" "$CG/python" scripts/compare_greedy.py "$T"

# The shim with no binary: clean failure, nothing on stdout.
if env TICKOPT_BIN=/nonexistent/tickopt python3 solvers/tickopt_plugin.py < tests/data/k5_m3_strict1.json > "$out/shim.out" 2> "$out/shim.err"; then
  echo "FAIL: shim succeeded without a binary" >&2; fail=1
fi
check "shim: no stdout without binary" test ! -s "$out/shim.out"
check "shim: explains the missing binary" grep -q "TICKOPT_BIN" "$out/shim.err"

[ $fail = 0 ] && echo "interop: all checks passed" >&2
exit $fail
