#!/usr/bin/env bash
# The main job: installs what is missing, builds tickopt (release), then
# solves the bundled demo instances under both models and prints the table
# (instance, model, slots, chunks, lower bound, ticks, status, seconds) and
# the path of the HTML report. Extra arguments go to `tickopt bench`
# (e.g. `scripts/run.sh instances/standard` for the standard set).
#
# The Python package's venv (torch, a few GB, once: scripts/python_setup.sh)
# is made after the table: the main job needs none of it (on a bare
# machine the table came after 11m40s, 7m46s of them the build, while the
# venv was made before it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== building tickopt (release; the first build compiles HiGHS, a few minutes)" >&2
cargo build --release --locked
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(instances/demo)
out=out/$(basename "${sets[0]}")
status=0
target/release/tickopt bench "${sets[@]}" --out "$out" || status=$?
echo "== the table is above; now the Python package (scripts/python_setup.sh; torch is a few GB, once)" >&2
scripts/python_setup.sh >/dev/null
exit "$status"
