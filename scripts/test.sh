#!/usr/bin/env bash
# The whole test suite: unit, property and integration tests (release mode,
# since the LP/ILP solvers are heavy), then interop tests against
# copyspace-guard (validate and audit --solver-plugin).
# Installs what is missing first (scripts/setup.sh, copyspace-guard venv).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

echo "== module graph: no circles, no imports against the layers (doc/design.md §6)" >&2
python3 scripts/module_graph.py

echo "== long functions: at most 5 over 120 lines (scripts/long_functions.py)" >&2
python3 scripts/long_functions.py

echo "== cargo test (release)" >&2
cargo build --release --locked
cargo test --release --locked

echo "== cargo test --features cuda (must build and pass without CUDA; GPU tests run with TICKOPT_CUDA_TESTS=1)" >&2
cargo build --release --locked --features cuda
cargo test --release --locked --features cuda --test exec_cuda --test replay_cli

echo "== interop with copyspace-guard" >&2
scripts/interop.sh

echo "== Python package (tickopt, tickopt.torch; multi-process gloo tests)" >&2
venv_bin=$(scripts/python_setup.sh)
"$venv_bin/pytest" -q python/tests
echo "== all tests passed" >&2
