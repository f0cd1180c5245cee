#!/usr/bin/env python3
"""copyspace-guard solver plugin that runs tickopt.

Usage (give this file by absolute path: copyspace-guard runs it from its
own working directory):

    copyspace-guard audit --demands d.csv --bw 1024 \
        --solver-plugin "$PWD/solvers/tickopt_plugin.py" --outdir out/

copyspace-guard runs this file with the instance JSON on stdin and reads one
schedule JSON from stdout. This shim only finds the `tickopt` binary and
hands it its own stdin/stdout (streamed, not buffered here); diagnostics go
to stderr.

Large schedules: copyspace-guard refuses plugin output above
--solver-plugin-max-output-bytes (default 8,000,000 bytes). A schedule JSON
takes about 45 bytes per chunk; the 16-slot all-to-all at 1000 chunks per
pair (240,000 chunks, 30,000 ticks) measured 10,830,043 bytes, so pass e.g.
--solver-plugin-max-output-bytes 16000000.

Keeping the proof: copyspace-guard sees only the schedule. Set
$TICKOPT_PLUGIN_SUMMARY to a file path and `tickopt plugin` also writes its
summary there (status, lower bound and witness, as `tickopt solve
--summary` does), for `tickopt verify`; or use `tickopt audit`, which
measures gaps against tickopt's own proven optimum.

The binary is looked up, in order: $TICKOPT_BIN, `tickopt` on $PATH, then
target/release/tickopt in this repository. Extra arguments for
`tickopt plugin` (e.g. "--time-limit 30") can be given in $TICKOPT_PLUGIN_ARGS.
Standard library only.
"""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path


def find_binary():
    env = os.environ.get("TICKOPT_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        sys.stderr.write(f"tickopt_plugin: TICKOPT_BIN={env!r} is not an executable file\n")
        return None
    on_path = shutil.which("tickopt")
    if on_path:
        return on_path
    repo = Path(__file__).resolve().parent.parent
    local = repo / "target" / "release" / "tickopt"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    sys.stderr.write(
        "tickopt_plugin: cannot find the tickopt binary: set TICKOPT_BIN, put tickopt on PATH, "
        f"or build it with `cargo build --release` in {repo}\n"
    )
    return None


def main():
    binary = find_binary()
    if binary is None:
        return 127
    args = [binary, "plugin"] + shlex.split(os.environ.get("TICKOPT_PLUGIN_ARGS", ""))
    # Streams: the child reads this process's stdin and writes its stdout
    # directly (inherited descriptors), so neither the instance nor the
    # schedule is held in Python's memory. tickopt writes stdout only once
    # the schedule has passed its validator.
    sys.stdout.flush()
    try:
        proc = subprocess.run(args, stdin=sys.stdin.fileno(), stdout=sys.stdout.fileno())
    except OSError as e:
        sys.stderr.write(f"tickopt_plugin: cannot run {binary}: {e}\n")
        return 126
    if proc.returncode != 0:
        sys.stderr.write(f"tickopt_plugin: {binary} plugin failed with exit status {proc.returncode}\n")
        return proc.returncode if proc.returncode > 0 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
