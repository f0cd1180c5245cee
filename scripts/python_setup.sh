#!/usr/bin/env bash
# Makes the project's Python venv (once) and installs the tickopt package
# into it (every run). The venv lives OUTSIDE the clone, at
# ${TICKOPT_VENV:-$HOME/.cache/tickopt/venv}, because torch is several GB and
# CI runs on a fresh clone: it is created and filled only when missing
# (torch's default Linux wheel, numpy, pytest, maturin), never reinstalled.
#
# The package is then built with maturin into the workspace's target/ (so
# the tickopt library and HiGHS are compiled once for the CLI and the
# module) and its wheel installed with --force-reinstall --no-deps: a rerun
# with nothing changed costs a cargo no-op and a pip install of one wheel.
#
# Prints the venv's bin directory on stdout (everything else on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
V=${TICKOPT_VENV:-$HOME/.cache/tickopt/venv}

if [ ! -x "$V/bin/python" ]; then
  echo "== creating the Python venv $V" >&2
  mkdir -p "$(dirname "$V")"
  if ! python3 -m venv "$V" >/dev/null 2>&1; then
    # Debian ships venv (ensurepip) separately.
    rm -rf "$V"
    (apt-get update -qq && apt-get install -y -qq python3-venv) >&2
    python3 -m venv "$V" >&2
  fi
fi
py="$V/bin/python"
missing=()
"$py" -c "import torch" 2>/dev/null || missing+=(torch)
"$py" -c "import numpy" 2>/dev/null || missing+=(numpy)
"$py" -c "import pytest" 2>/dev/null || missing+=(pytest)
[ -x "$V/bin/maturin" ] || missing+=("maturin>=1.5,<2")
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing into $V: ${missing[*]} (torch is a few GB; once)" >&2
  "$py" -m pip install -q --upgrade pip >&2
  "$py" -m pip install -q "${missing[@]}" >&2
fi

echo "== building the tickopt Python package (maturin, release, shared target/)" >&2
wheels=target/wheels
rm -f "$wheels"/tickopt-*.whl
(cd python && CARGO_TARGET_DIR="$PWD/../target" VIRTUAL_ENV="$V" PATH="$V/bin:$PATH" \
  "$V/bin/maturin" build --release --locked --quiet --out "../$wheels" >&2)
"$py" -m pip install -q --force-reinstall --no-deps "$wheels"/tickopt-*.whl >&2
"$py" -c "import tickopt, tickopt.torch" >&2
echo "$V/bin"
