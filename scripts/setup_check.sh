#!/usr/bin/env bash
# Tests scripts/setup.sh (with --tests, as scripts/test.sh runs it) from
# the missing state, the way a fresh machine of the project's kind has it
# (libclang-cpp present; libclang, cmake and chromium not):
#   1. removes the packages setup.sh installs (cmake, libclang-dev and the
#      libclang packages it pulls in, chromium, nftables), and only those: it first
#      simulates the removal and refuses if apt would take anything else
#      with them;
#   2. checks that `setup.sh --check` now reports them missing;
#   3. runs setup.sh, checks `setup.sh --check` passes, a libclang that
#      clang-sys accepts (not libclang-cpp) is on disk and chromium renders
#      a page headless;
#   4. rebuilds highs-sys (bindgen + cmake) so the build must find them.
# The `rate` DRAT checker (cargo install, minutes to build) is left in
# place; `setup.sh --check` reports it when missing.
# CI runs it before the test suite (.ci/run). Needs root (or sudo) and apt;
# elsewhere it says why and skips. It changes installed packages: run it on
# a machine you use for tickopt builds, not on a workstation you care about.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup_check: not a Debian system; skipped" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo"; else
    echo "setup_check: needs root or password-less sudo; skipped" >&2
    exit 0
  fi
fi

allowed=(cmake cmake-data libclang-dev chromium nftables)
for p in $(dpkg-query -W -f='${Package}\n' 'libclang-[0-9]*-dev' 'libclang-common-[0-9]*-dev' 'libclang1-[0-9]*' 2>/dev/null); do
  allowed+=("$p")
done
installed=()
for p in "${allowed[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] && installed+=("$p")
done

if [ ${#installed[@]} -gt 0 ]; then
  would=$($SUDO apt-get -s remove "${installed[@]}" 2>/dev/null | awk '/^Remv/ {print $2}')
  for p in $would; do
    ok=0
    for a in "${allowed[@]}"; do [ "$p" = "$a" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "setup_check: removing ${installed[*]} would also remove $p; skipped" >&2
      exit 0
    fi
  done
  echo "setup_check: removing ${installed[*]} (the missing state)" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get remove -y -qq "${installed[@]}" >/dev/null
fi

if scripts/setup.sh --check --tests 2>/dev/null; then
  echo "setup_check: FAIL: setup.sh --check passes with cmake and libclang-dev removed" >&2
  exit 1
fi
echo "setup_check: setup.sh --check reports them missing, as it should" >&2

scripts/setup.sh --tests
scripts/setup.sh --check --tests
lib=$(find /usr/lib \( -name 'libclang.so*' -o -name 'libclang-[0-9]*.so*' \) 2>/dev/null | head -1)
if [ -z "$lib" ]; then
  echo "setup_check: FAIL: setup.sh ran but no libclang (other than libclang-cpp) is installed" >&2
  exit 1
fi
echo "setup_check: libclang at $lib" >&2
page=$(mktemp -d)
echo '<html><body><p id="x">rendered</p></body></html>' > "$page/p.html"
if ! chromium --headless --no-sandbox --disable-gpu --user-data-dir="$page/profile" \
    --dump-dom "file://$page/p.html" 2>/dev/null | grep -q '<p id="x">rendered</p>'; then
  echo "setup_check: FAIL: setup.sh ran but chromium does not render a page headless" >&2
  rm -rf "$page"
  exit 1
fi
rm -rf "$page"
echo "setup_check: $(chromium --version) renders headless" >&2
if ! command -v nft >/dev/null 2>&1; then
  echo "setup_check: FAIL: setup.sh ran but nft (nftables, the testbed's --loss) is missing" >&2
  exit 1
fi
echo "setup_check: $(nft --version) for the testbed" >&2

echo "setup_check: rebuilding highs-sys (bindgen must load libclang, cmake must build HiGHS)" >&2
cargo clean --release -p highs-sys >/dev/null 2>&1 || true
cargo build --release --locked -p highs-sys
echo "setup_check: passed" >&2
