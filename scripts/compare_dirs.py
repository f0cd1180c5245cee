#!/usr/bin/env python3
"""Compare two output trees of scripts/compare_outputs.sh, file by file.

Usage: scripts/compare_dirs.py BEFORE_DIR AFTER_DIR [SHOW]

Equal means byte-identical once what legitimately varies between runs is
taken out: wall-clock timings (JSON keys `seconds`, `timings`, `*_s`,
`*_seconds`; "0.03 s" and seconds columns in text, CSV and reports; the
time-against-size chart of report.html), the binary's name in usage
lines, and the order in which parallel bench runs finish (progress lines,
journal.jsonl). JSON is compared as data (key order and layout aside).
Prints the counts and the first differing files (SHOW of them as diffs);
exit status 1 when any file differs or exists on one side only.
"""
import json, os, re, sys, csv, io
A, B = sys.argv[1], sys.argv[2]
KEY = re.compile(r"^(seconds|timings|bounds_seconds|solve_seconds|cg_seconds|validate_seconds|elapsed.*)$|_s$")
def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items() if not KEY.search(k)}
    if isinstance(v, list):
        return [walk(x) for x in v]
    return v
def js(text):
    try:
        return ("json", walk(json.loads(text)))
    except Exception:
        pass
    try:
        dec, i, out = json.JSONDecoder(), 0, []
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text):
                break
            v, i = dec.raw_decode(text, i)
            out.append(walk(v))
        # a journal is written in completion order (parallel runs)
        return ("jsonl", sorted(out, key=lambda v: json.dumps(v, sort_keys=True)))
    except Exception:
        return None
T1 = re.compile(r"[0-9]+(\.[0-9]+)?(e-?[0-9]+)? ?(s|ms|µs|us)\b")
def text(t):
    t = re.sub(r"tickopt-(before|after[0-9]*)", "tickopt", t)
    t = re.sub(r" [0-9]+\.[0-9]+$", " T", t, flags=re.M)
    t = re.sub(r"\| [0-9]+\.([0-9]{4}|[0-9]{2}) \|", "| T |", t)
    t = re.sub(r"\| [0-9]+\.([0-9]{4}|[0-9]{2}) \|", "| T |", t)
    t = re.sub(r"<td>[0-9]+\.([0-9]{4}|[0-9]{2})</td>", "<td>T</td>", t)
    # the time chart's points sit where their seconds put them
    t = re.sub(r"<h2>Time against size.*?</svg>", "<h2>Time against size T</svg>", t, flags=re.S)
    # bench progress lines come in completion order (parallel runs)
    if re.search(r"^\[[0-9]+/[0-9]+\] ", t, flags=re.M):
        t = "\n".join(sorted(re.sub(r"^\[[0-9]+/", "[k/", l) for l in t.splitlines()))
    t = T1.sub(lambda m: "T " + m.group(3), t)
    t = re.sub(r"\| [0-9]+\.[0-9]{4} \|$", "| T |", t, flags=re.M)
    t = re.sub(r"(seconds[^|]*: )[0-9.]+", r"\1T", t)
    t = re.sub(r">[0-9]+\.[0-9]{4}<", ">T<", t)
    return t
def csvn(t):
    rows = list(csv.reader(io.StringIO(t)))
    if not rows: return rows
    drop = [i for i, h in enumerate(rows[0]) if h in ("seconds", "bounds_seconds", "cg_seconds")]
    return [[("" if i in drop else c) for i, c in enumerate(r)] for r in rows]
def norm(path, rel):
    data = open(path, "rb").read()
    name = os.path.basename(rel)
    if name.endswith((".json", ".jsonl")):
        try:
            r = js(data.decode())
            if r is not None: return r
        except UnicodeDecodeError: pass
        return data
    if name.endswith(".csv") and rel.startswith("bench_"):
        return csvn(data.decode())
    if name.endswith((".err", ".out", ".md", ".html")):
        return text(data.decode(errors="replace"))
    return data
def files(root):
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out
fa, fb = files(A), files(B)
only = sorted(fa ^ fb)
diffs = []
for rel in sorted(fa & fb):
    if norm(os.path.join(A, rel), rel) != norm(os.path.join(B, rel), rel):
        diffs.append(rel)
print(f"{len(fa & fb)} files compared, {len(diffs)} differ, {len(only)} on one side only")
for x in diffs[:30]: print("DIFF", x)
if len(sys.argv) > 3:
    import difflib
    for x in diffs[:int(sys.argv[3])]:
        a, b = norm(os.path.join(A, x), x), norm(os.path.join(B, x), x)
        if isinstance(a, str):
            print("\n".join(list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm=""))[:12]))
        else:
            print(x, repr(a)[:300]); print(x, repr(b)[:300])
for x in only[:30]: print("ONLY", x, "(before)" if x in fa else "(after)")
sys.exit(1 if diffs or only else 0)
