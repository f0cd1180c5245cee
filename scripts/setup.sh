#!/usr/bin/env bash
# Installs what building and testing tickopt needs and is missing:
# cmake and libclang-dev (HiGHS is built from source by the highs-sys crate,
# whose bindgen loads libclang at build time) and python3 for the interop
# tests; with `--tests` (scripts/test.sh) also what the test suite runs:
# chromium (Debian's package: tests/audit_html.rs renders the audit page
# headless and measures it), iproute2 and nftables (the emulated cluster,
# python -m tickopt.testbed: namespaces and tc; its --loss drops packets
# with nft) and `rate`, a DRAT proof checker from crates.io
# (`cargo install rate --locked`, about 2 minutes; tests/drat_external.rs
# checks tickopt's refutations with it). Safe to run repeatedly; does
# nothing when everything is present.
#
# How "present" is decided: on Debian and its derivatives by package status
# (dpkg-query), never by globbing for files — /usr/lib/llvm-*/lib/libclang*
# also matches libclang-cpp.so.N, which bindgen cannot use (that mistake
# made a fresh machine skip libclang-dev and fail the build after minutes).
# Elsewhere, by looking for the file names clang-sys itself loads
# (libclang.so, libclang-N.so, libclang.so.N, libclang-N.so.N; never
# libclang-cpp), in LIBCLANG_PATH, `llvm-config --libdir` and the usual
# library directories.
#
# `scripts/setup.sh --check [--tests]` only reports (exit 0 when nothing is
# missing, 1 otherwise); scripts/setup_check.sh uses it to test this script
# from the missing state.
set -euo pipefail

check_only=0 tests=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --tests) tests=1 ;;
    *) echo "setup: unknown argument $arg (--check, --tests)" >&2; exit 1 ;;
  esac
done

have_dpkg() { command -v dpkg-query >/dev/null 2>&1; }

deb_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# The libclang shared objects clang-sys accepts, in the directories it searches.
libclang_file() {
  local dirs=()
  [ -n "${LIBCLANG_PATH:-}" ] && dirs+=("$LIBCLANG_PATH")
  if command -v llvm-config >/dev/null 2>&1; then
    dirs+=("$(llvm-config --libdir 2>/dev/null || true)")
  fi
  dirs+=(/usr/lib/llvm-*/lib /usr/local/lib /usr/lib /usr/lib64 /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu)
  local d f base
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    for f in "$d"/libclang*.so*; do
      [ -e "$f" ] || continue
      base=$(basename "$f")
      case "$base" in
        libclang-cpp*) continue ;;
        libclang.so | libclang.so.* | libclang-[0-9]*.so | libclang-[0-9]*.so.*) echo "$f"; return 0 ;;
      esac
    done
  done
  return 1
}

# The DRAT checker's crate and version (tests/drat_external.rs runs it).
RATE_VERSION=0.3.0
rate_bin() {
  if command -v rate >/dev/null 2>&1; then command -v rate; return 0; fi
  local b="${CARGO_HOME:-$HOME/.cargo}/bin/rate"
  [ -x "$b" ] && echo "$b"
}

need=()
if have_dpkg; then
  deb_installed cmake || need+=(cmake)
  if [ -n "${LIBCLANG_PATH:-}" ] && libclang_file >/dev/null; then
    : # the user pointed bindgen at a libclang of their own
  else
    deb_installed libclang-dev || need+=(libclang-dev)
  fi
  command -v python3 >/dev/null 2>&1 || need+=(python3)
  [ $tests = 0 ] || deb_installed chromium || need+=(chromium)
  [ $tests = 0 ] || deb_installed nftables || need+=(nftables)
  [ $tests = 0 ] || command -v tc >/dev/null 2>&1 || need+=(iproute2)
else
  command -v cmake >/dev/null 2>&1 || need+=(cmake)
  libclang_file >/dev/null || need+=(libclang-dev)
  command -v python3 >/dev/null 2>&1 || need+=(python3)
  if [ $tests = 1 ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    need+=(chromium)
  fi
  [ $tests = 0 ] || command -v nft >/dev/null 2>&1 || need+=(nftables)
  [ $tests = 0 ] || command -v tc >/dev/null 2>&1 || need+=(iproute2)
fi
need_rate=0
[ $tests = 0 ] || rate_bin >/dev/null || need_rate=1

if [ $check_only = 1 ]; then
  missing=("${need[@]}")
  [ $need_rate = 1 ] && missing+=("rate (crates.io)")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: missing ${missing[*]}" >&2
    exit 1
  fi
  found="cmake $(cmake --version | head -1 | awk '{print $3}'), libclang $(libclang_file || echo '(not found)')"
  if [ $tests = 1 ]; then
    found="$found, $( (chromium --version || chromium-browser --version) 2>/dev/null), rate at $(rate_bin)"
  fi
  echo "setup: $found" >&2
  exit 0
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  if ! have_dpkg; then
    echo "setup: not a Debian system: install ${need[*]} with your package manager (or set LIBCLANG_PATH)" >&2
    exit 1
  fi
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  log=$(mktemp)
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: apt-get failed (output above)" >&2
    exit 1
  fi
  rm -f "$log"
  if ! libclang_file >/dev/null; then
    echo "setup: libclang-dev is installed but no libclang shared object was found; set LIBCLANG_PATH" >&2
    exit 1
  fi
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
if [ $need_rate = 1 ]; then
  echo "setup: installing rate $RATE_VERSION (DRAT checker) with cargo install" >&2
  log=$(mktemp)
  # Its own target dir: a CARGO_TARGET_DIR set for tickopt stays clean.
  build=$(mktemp -d)
  if ! CARGO_TARGET_DIR=$build cargo install rate --version "$RATE_VERSION" --locked >"$log" 2>&1; then
    cat "$log" >&2
    rm -rf "$log" "$build"
    echo "setup: cargo install rate failed (output above)" >&2
    exit 1
  fi
  rm -rf "$log" "$build"
  rate_bin >/dev/null || { echo "setup: rate installed but not found in PATH or ${CARGO_HOME:-$HOME/.cargo}/bin" >&2; exit 1; }
fi
