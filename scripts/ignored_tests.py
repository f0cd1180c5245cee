#!/usr/bin/env python3
"""Lists the tests `cargo test` ignored, and why, from its output.

Usage: scripts/ignored_tests.py LOG...   (the output of one or more
`cargo test` runs; scripts/test.sh keeps them in target/test-logs/).

Prints how many distinct tests were ignored and, for each reason (the
`#[ignore = "..."]` text cargo prints after "ignored,"), how many and which.
A test ignored in several runs (with and without --features cuda) counts
once. Exits 1 when a test was ignored without a reason (a bare
`#[ignore]`): every test that does not run says why and where it does
(scripts/external_checks.sh).
"""

import re
import sys
from collections import defaultdict

RUNNING = re.compile(r"^\s*Running (?:unittests )?(\S+)")
DOCTESTS = re.compile(r"^\s*Doc-tests (\S+)")
IGNORED = re.compile(r"^test (.+?) \.\.\. ignored(?:, (.*))?$")


def ignored(lines):
    """(binary, test name, reason or None) for each ignored test line."""
    binary = "?"
    for line in lines:
        line = line.rstrip("\n")
        m = RUNNING.match(line) or DOCTESTS.match(line)
        if m:
            binary = m.group(1)
            continue
        m = IGNORED.match(line)
        if m:
            yield binary, m.group(1), m.group(2)


def main(paths):
    seen = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for binary, name, reason in ignored(f):
                seen[(binary, name)] = reason
    by_reason = defaultdict(list)
    for (binary, name), reason in sorted(seen.items()):
        by_reason[reason].append(f"{binary}: {name}")
    print(f"ignored: {len(seen)} test(s)")
    for reason in sorted(by_reason, key=lambda r: (r is None, r or "")):
        tests = by_reason[reason]
        print(f"  {len(tests)} ignored: {reason or 'NO REASON GIVEN'}")
        for t in tests:
            print(f"    {t}")
    if None in by_reason:
        print("ignored_tests: a test is ignored without a reason: write #[ignore = \"why\"]", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
