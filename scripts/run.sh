#!/usr/bin/env bash
# The main job: installs what is missing, builds tickopt (release), then
# solves the bundled demo instances under both models and prints the table
# (instance, model, slots, chunks, lower bound, ticks, status, seconds) and
# the path of the HTML report. Extra arguments go to `tickopt bench`
# (e.g. `scripts/run.sh instances/standard` for the standard set).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== building tickopt (release; the first build compiles HiGHS, a few minutes)" >&2
cargo build --release --locked
# The Python package into the project venv (outside the clone; see the script).
scripts/python_setup.sh >/dev/null
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(instances/demo)
out=out/$(basename "${sets[0]}")
exec target/release/tickopt bench "${sets[@]}" --out "$out"
