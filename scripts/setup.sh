#!/usr/bin/env bash
# Installs what building and testing tickopt needs and is missing:
# cmake and libclang-dev (HiGHS is built from source by the highs-sys crate).
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 && ! ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1; then
  need+=(libclang-dev)
fi
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
