#!/usr/bin/env python3
"""Functions in src/ longer than 120 lines (as rustfmt lays them out).

Usage: scripts/long_functions.py [REPO_ROOT] [--all]

Reads every src/**/*.rs of the library crate, formats it with rustfmt
(stdin to stdout, the crate's edition; the text as it is when rustfmt is
missing, with a note), and counts each `fn` from the line of its `fn`
keyword to the line of its closing brace. Test code is left out: files of
`#[cfg(test)] mod x;`, items under `#[cfg(test)]` (modules, functions) and
`#[test]` functions; tests/ is not read. A nested fn counts on its own and
inside its parent.

Prints every function over the limit, longest first, as
`file:line  lines  name` (with --all, every function). Exit status 1 when
more than MAX_OVER functions are over LIMIT (a budget for the few long
functions that read best whole), 0 otherwise. Python 3, standard library
only (rustfmt from the Rust toolchain).
"""

import os
import re
import shutil
import subprocess
import sys

LIMIT = 120  # lines per function (doc/design.md: functions that do one step)
MAX_OVER = 5  # how many may exceed it before the check fails

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_graph import match_brace, strip  # noqa: E402  (same lexer)

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
FN = re.compile(r"\bfn\s+(%s)" % IDENT)
CFG_TEST = re.compile(r"#\[cfg\(test\)\]")
TEST_ATTR = re.compile(r"#\[(?:[a-z_]+::)*test\]")
MOD_DECL = re.compile(r"\bmod\s+(%s)\s*;" % IDENT)


def edition(root):
    try:
        with open(os.path.join(root, "Cargo.toml")) as f:
            m = re.search(r'^edition\s*=\s*"(\d+)"', f.read(), re.M)
            return m.group(1) if m else "2021"
    except OSError:
        return "2021"


def formatted(path, ed, rustfmt):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not rustfmt:
        return text
    r = subprocess.run(
        [rustfmt, "--edition", ed, "--emit", "stdout"],
        input=text,
        capture_output=True,
        text=True,
    )
    # rustfmt on stdin prints the formatted text; on a syntax error it
    # prints nothing useful, and the file is counted as written.
    return r.stdout if r.returncode == 0 and r.stdout.strip() else text


def attrs_before(code, i):
    """The attributes right before offset i: the same line's text before it
    and the lines above that start with `#[` (or are blank)."""
    start = code.rfind("\n", 0, i) + 1
    lines = [code[start:i]]
    while start > 0:
        prev_start = code.rfind("\n", 0, start - 1) + 1
        prev = code[prev_start : start - 1].strip()
        if prev and not prev.startswith("#["):
            break
        lines.append(prev)
        start = prev_start
    return "\n".join(reversed(lines))


def test_files(root, files, code_of):
    """Files declared as `#[cfg(test)] mod x;` (and everything under them)."""
    out = set()
    for rel in files:
        code = code_of[rel]
        for m in MOD_DECL.finditer(code):
            if not CFG_TEST.search(attrs_before(code, m.start())):
                continue
            d = os.path.dirname(rel)
            base = os.path.basename(rel)
            if base not in ("mod.rs", "lib.rs", "main.rs"):
                d = os.path.join(d, base[:-3])
            for cand in (os.path.join(d, m.group(1) + ".rs"), os.path.join(d, m.group(1))):
                if os.path.exists(os.path.join(root, cand)):
                    out.add(cand)
    expanded = set()
    for rel in files:
        for t in out:
            if rel == t or rel.startswith(t.rstrip("/") + "/") or (
                t.endswith(".rs") and rel.startswith(t[:-3] + "/")
            ):
                expanded.add(rel)
    return expanded


def item_body(code, k):
    """From offset k, the item's block as (open brace, end), or None when a
    `;` at depth 0 comes first (a declaration without a body)."""
    depth = 0
    while k < len(code):
        c = code[k]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return None
        elif c == "{" and depth == 0:
            return k, match_brace(code, k)
        k += 1
    return None


def test_spans(code):
    """(start, end) offsets of items under #[cfg(test)] or #[test]."""
    spans = []
    for m in list(CFG_TEST.finditer(code)) + list(TEST_ATTR.finditer(code)):
        body = item_body(code, m.end())
        if body:
            spans.append((m.start(), body[1]))
        else:  # `#[cfg(test)] mod x;` or a declaration: up to its `;`
            spans.append((m.start(), code.find(";", m.end()) + 1))
    return spans


def functions(code):
    """(name, start offset, end offset) of every fn with a body."""
    out = []
    for m in FN.finditer(code):
        body = item_body(code, m.end())
        if body:
            out.append((m.group(1), m.start(), body[1]))
    return out


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    show_all = "--all" in argv
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    src = os.path.join(root, "src")
    rustfmt = shutil.which("rustfmt")
    if not rustfmt:
        print("long_functions: rustfmt not found, counting the files as written", file=sys.stderr)
    ed = edition(root)
    files = sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, _, fs in os.walk(src)
        for f in fs
        if f.endswith(".rs")
    )
    code_of = {rel: strip(formatted(os.path.join(root, rel), ed, rustfmt)) for rel in files}
    skip = test_files(root, files, code_of)
    rows = []
    for rel in files:
        if rel in skip:
            continue
        code = code_of[rel]
        spans = test_spans(code)
        for name, start, end in functions(code):
            if any(a <= start < b for a, b in spans):
                continue
            first = code.count("\n", 0, start) + 1
            lines = code.count("\n", start, end) + 1
            rows.append((lines, rel, first, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    over = [r for r in rows if r[0] > LIMIT]
    for lines, rel, first, name in rows if show_all else over:
        print(f"{rel}:{first}  {lines:4d}  {name}")
    sys.stdout.flush()
    print(
        f"long_functions: {len(over)} function(s) over {LIMIT} lines "
        f"(at most {MAX_OVER} allowed), {len(rows)} counted",
        file=sys.stderr,
    )
    return 1 if len(over) > MAX_OVER else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
