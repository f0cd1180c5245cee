#!/usr/bin/env bash
# The tests CI cannot run, run where what they need is present. Each is
# `#[ignore = "..."]` in the code (cargo test reports it as ignored, with
# that reason; scripts/ignored_tests.py lists them at the end of
# scripts/test.sh), and this script runs them with `--ignored`:
#   - tests/msccl_tools.rs when TICKOPT_MSCCL_TOOLS names a
#     microsoft/msccl-tools checkout (TICKOPT_MSCCL_PYTHON: a Python with
#     lxml, z3-solver and igraph; default python3);
#   - tests/mscclpp_dsl.rs when TICKOPT_MSCCLPP names a microsoft/mscclpp
#     checkout (TICKOPT_MSCCLPP_PYTHON: a Python with sortedcontainers);
#   - tests/exec_cuda.rs and the GPU half of tests/replay_cli.rs, built with
#     --features cuda, when `nvidia-smi -L` lists a GPU (the two-device test
#     only with two or more);
#   - without a GPU, tests/exec_cuda.rs's device_kernels_compile_with_nvrtc
#     when TICKOPT_NVRTC names a libnvrtc.so.13 (e.g. from
#     `pip install nvidia-cuda-nvrtc`: site-packages/nvidia/cu13/lib): NVRTC
#     compiles the device modes' kernels, no GPU needed.
# Neither tool is in the package registries this project installs from, so
# the checkouts are yours to make. Prints what ran and what did not, and
# why; exits non-zero when a test that ran failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
ran=() notrun=() failed=()
attempt() { # label, command...
  local what=$1; shift
  echo "== external: $what" >&2
  if "$@"; then ran+=("$what"); else failed+=("$what"); fi
}

if [ -n "${TICKOPT_MSCCL_TOOLS:-}" ]; then
  attempt "msccl-tools examples" cargo test --release --locked --test msccl_tools -- --ignored
else
  notrun+=("msccl-tools examples (set TICKOPT_MSCCL_TOOLS to a microsoft/msccl-tools checkout)")
fi

if [ -n "${TICKOPT_MSCCLPP:-}" ]; then
  attempt "MSCCL++ compiles the exported DSL" cargo test --release --locked --test mscclpp_dsl -- --ignored
else
  notrun+=("MSCCL++ DSL (set TICKOPT_MSCCLPP to a microsoft/mscclpp checkout)")
fi

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
if [ "$gpus" -ge 1 ]; then
  skip=()
  [ "$gpus" -ge 2 ] || skip=(--skip gpu_spreads_slots_over_several_devices)
  [ "$gpus" -ge 2 ] || notrun+=("CUDA executor on two devices ($gpus GPU here)")
  attempt "CUDA executor ($gpus GPU)" env TICKOPT_CUDA_TESTS=1 \
    cargo test --release --locked --features cuda --test exec_cuda -- --ignored --test-threads=1 "${skip[@]}"
  attempt "replay --executor cuda" env TICKOPT_CUDA_TESTS=1 \
    cargo test --release --locked --features cuda --test replay_cli cuda_executor
else
  notrun+=("CUDA executor (nvidia-smi lists no GPU)")
  if [ -n "${TICKOPT_NVRTC:-}" ]; then
    attempt "NVRTC compiles the device kernels" \
      cargo test --release --locked --features cuda --test exec_cuda device_kernels_compile_with_nvrtc -- --ignored
  else
    notrun+=("NVRTC compile of the device kernels (set TICKOPT_NVRTC to a libnvrtc.so.13)")
  fi
fi

echo "external checks: ${#ran[@]} ran and passed, ${#failed[@]} failed, ${#notrun[@]} not run" >&2
for w in "${notrun[@]}"; do echo "  not run: $w" >&2; done
for w in "${failed[@]}"; do echo "  FAILED: $w" >&2; done
[ ${#failed[@]} = 0 ]
