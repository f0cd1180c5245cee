#!/usr/bin/env python3
"""The import graph of src/: file-level circles and imports that climb.

Usage: scripts/module_graph.py [REPO_ROOT]   (default: this script's repo)

Reads every src/**/*.rs of the library crate from src/lib.rs down its
`mod` declarations (main.rs, the binary, and the python/ crate sit on top
and are not read), follows `use crate::...`, `use super::...`,
`use self::...`, paths into a declared child module and inline
`crate::x::y` / `super::x` paths, through re-exports, to the file that
defines the item (`crate::schedule::Schedule` is src/rounds/mod.rs), and
prints

  (a) file-level import circles (files that import each other, directly or
      through other files), and
  (b) imports that violate the layer order of doc/design.md ("Layers"):
      a module imports only from its own layer or below, top-level modules
      of one layer import each other in one direction only, and nothing
      imports the crate root (`crate::solve_instance`: name the defining
      module); inside a module with folders of its own (`solve`), a file
      imports only from its own folder's layer or below (SUB_LAYERS).

Test code (`#[cfg(test)]` items and the files of `#[cfg(test)] mod x;`) is
left out: tests may check a lower layer against a higher one. Comments,
doc links and string literals are not imports.

A module owns its children: its uses of them (declaring, re-exporting,
dispatching) are not edges; a child's use of its parent (`super::X`
defined in mod.rs) is. So a circle is one among files that are not each
other's ancestors: siblings, cousins, other modules.

Exit status: 0 when clean (allowlisted entries are printed, not counted),
1 on a circle or a violation. Python 3, standard library only.
"""

import os
import re
import sys

# Bottom to top; one inner list is one layer. doc/design.md says the same.
LAYERS = [
    ["units", "instance", "rounds", "html_text"],
    ["graph", "proof", "validate", "schedule"],
    ["bounds"],
    ["colour", "solve", "lower", "exec", "relay"],
    ["interop", "cost", "audit", "bench", "verify", "gen"],
    ["cli"],
]
# Within a layer, modules may import each other in one direction only (no
# circle among them); these pairs fix the direction where it is written
# down: (lower, upper), the lower may not import the upper.
SAME_LAYER_ORDER = [
    ("validate", "schedule"),  # schedule's writers and readers validate
]
LAYER_OF = {m: i for i, layer in enumerate(LAYERS) for m in layer}
# Inside a top-level module: its files and folders, bottom to top, as
# paths under src/<module>/ (a folder ends in "/"; the longest matching
# path decides). doc/design.md and each folder's mod.rs say the same.
SUB_LAYERS = {
    "solve": [
        ["mod.rs", "solution.rs", "status.rs", "proofs.rs"],  # the core
        ["heuristic/"],
        ["one_port/"],
        ["first_fit/"],
        ["multiport/"],
        ["structure/"],
        ["portfolio.rs"],
        ["first_fit/replan.rs"],  # falls back to the whole portfolio
    ],
}


def sub_layer(fname):
    """(module, index, path) of a file's place in SUB_LAYERS, or None."""
    parts = fname.split("/")
    if len(parts) < 3 or parts[0] != "src" or parts[1] not in SUB_LAYERS:
        return None
    rest = "/".join(parts[2:])
    best = None
    for i, layer in enumerate(SUB_LAYERS[parts[1]]):
        for path in layer:
            hit = rest == path or (path.endswith("/") and rest.startswith(path))
            if hit and (best is None or len(path) > len(best[2])):
                best = (parts[1], i, path)
    return best

# Known problems left for later, each with why: ("circle", file, ...) for
# a circle through exactly those files, (from_file, to_file) for an import.
# Keep this short; an entry is a debt, not a rule.
ALLOWLIST = {
}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
RAW = re.compile(r'r(#*)"')
WORD = re.compile(r"[A-Za-z0-9_]")
CHAR = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'")


def strip(text):
    """Blank comments, string and char literals; keep newlines and offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and RAW.match(text, i) and not (i and WORD.match(text, i - 1)):
            m = RAW.match(text, i)
            close = '"' + m.group(1)
            j = text.find(close, i + len(m.group(0)))
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # char literal ('a', '\n', '\u{..}') or a lifetime ('a)
            m = CHAR.match(text, i)
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def match_brace(text, i):
    """Index just past the brace block opening at text[i] == '{'."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def split_top(s):
    """Split a use-tree list on top-level commas."""
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur)
    return parts


def expand_tree(tree):
    """`a::{b, c::{d, e as f}, self}` -> [(['a','b'], 'b'), ...] (path, bound name)."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def go(prefix, t):
        if t.startswith("{") and t.endswith("}"):
            for part in split_top(t[1:-1]):
                go(prefix, part)
            return
        m = re.match(r"^((?:%s::)*)(.*)$" % IDENT, t)
        head = [s for s in m.group(1).split("::") if s]
        rest = m.group(2)
        if rest.startswith("{"):
            go(prefix + head, rest)
            return
        m2 = re.match(r"^(%s|\*)(?:as(%s))?$" % (IDENT, IDENT), rest)
        if not m2:
            return
        leaf, alias = m2.group(1), m2.group(2)
        path = prefix + head + [leaf]
        if leaf == "self":
            path = prefix + head
            name = alias or (path[-1] if path else None)
        elif leaf == "*":
            name = "*"
        else:
            name = alias or leaf
        out.append((path, name))

    go([], tree)
    return out


class Crate:
    def __init__(self, root):
        self.root = root
        self.src = os.path.join(root, "src")
        self.files = {}  # module path tuple -> file (relative)
        self.file_mod = {}  # file -> module path tuple
        self.children = {}  # module path tuple -> set of child names
        self.test_mods = set()  # module paths that are test-only
        self.names = {}  # module path -> {name: (abs path list, is_pub, file, line, is_test)}
        self.globs = {}  # module path -> [(abs path, is_pub)]
        self.refs = []  # (file, line, module path, abs path, is_test, kind)
        self.text = {}
        self.load(("crate",), "src/lib.rs", False)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def child_file(self, mod, fname, name):
        """The file of `mod name;` declared in fname (module path mod)."""
        d = os.path.dirname(fname)
        base = os.path.basename(fname)
        if base not in ("lib.rs", "mod.rs"):
            d = os.path.join(d, base[:-3])
        for cand in (os.path.join(d, name + ".rs"), os.path.join(d, name, "mod.rs")):
            if os.path.exists(os.path.join(self.root, cand)):
                return cand
        return None

    def load(self, mod, fname, is_test):
        self.files[mod] = fname
        self.file_mod[fname] = mod
        if is_test:
            self.test_mods.add(mod)
        with open(os.path.join(self.root, fname), encoding="utf-8") as f:
            raw = f.read()
        text = strip(raw)
        self.text[fname] = text
        self.scan(mod, fname, text, 0, len(text), is_test)

    def line_of(self, fname, pos):
        return self.text[fname].count("\n", 0, pos) + 1

    def scan(self, mod, fname, text, start, end, is_test):
        """Scan text[start:end], the body of module `mod`, defined in fname."""
        self.children.setdefault(mod, set())
        self.names.setdefault(mod, {})
        self.globs.setdefault(mod, [])
        item_re = re.compile(
            r"(#\[cfg\(test\)\]\s*)?((?:#\[[^\]]*\]\s*)*)(pub(?:\([^)]*\))?\s+)?"
            r"(mod\s+(%s)\s*([;{])|use\s+([^;]+);)" % IDENT
        )
        # Walk items at this module's top level; skip nested blocks except
        # inline modules (scanned recursively) and function bodies (scanned
        # for inline paths only).
        skip_until = []  # (from, to) ranges of inline module bodies
        for m in item_re.finditer(text, start, end):
            if any(a <= m.start() < b for a, b in skip_until):
                continue
            test = is_test or bool(m.group(1)) or "cfg(test)" in (m.group(2) or "")
            is_pub = bool(m.group(3))
            if m.group(5):
                name = m.group(5)
                self.children[mod].add(name)
                sub = mod + (name,)
                if m.group(6) == ";":
                    cf = self.child_file(mod, fname, name)
                    if cf:
                        self.load(sub, cf, test)
                else:
                    b = match_brace(text, m.end() - 1)
                    skip_until.append((m.end() - 1, b))
                    self.files.setdefault(sub, fname)
                    if test:
                        self.test_mods.add(sub)
                    self.scan(sub, fname, text, m.end(), b - 1, test)
            else:
                line = self.line_of(fname, m.start())
                for path, name in expand_tree(m.group(7)):
                    ab = self.absolute(mod, path)
                    if ab is None:
                        continue  # an external crate or std
                    if name == "*":
                        self.globs[mod].append((ab, is_pub))
                    elif name:
                        self.names[mod][name] = (ab, is_pub)
                    self.refs.append((fname, line, mod, ab, test, "pub use" if is_pub else "use"))
        # inline paths outside use items and inline module bodies
        body = list(text[start:end])
        for a, b in skip_until:
            for k in range(a - start, min(b, end) - start):
                body[k] = " "
        body = "".join(body)
        for m in re.finditer(r"\buse\s+[^;]+;", body):
            body = body[: m.start()] + " " * (m.end() - m.start()) + body[m.end():]
        test_ranges = []
        for m in re.finditer(r"#\[cfg\(test\)\]", body):
            br = body.find("{", m.end())
            semi = body.find(";", m.end())
            if br >= 0 and (semi < 0 or br < semi):
                test_ranges.append((m.start(), match_brace(body, br)))
        kids = self.children[mod]
        path_re = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self|%s)(?:\s*::\s*%s)+)" % (IDENT, IDENT))
        for m in path_re.finditer(body):
            segs = [s.strip() for s in m.group(1).split("::")]
            if segs[0] not in ("crate", "super", "self") and segs[0] not in kids:
                continue
            ab = self.absolute(mod, segs)
            if ab is None:
                continue
            test = is_test or any(a <= m.start() < b for a, b in test_ranges)
            line = self.line_of(fname, start + m.start())
            self.refs.append((fname, line, mod, ab, test, "path"))

    def absolute(self, mod, path):
        """A use path as seen from module `mod`, made absolute; None if external."""
        if not path:
            return None
        head = path[0]
        if head == "crate":
            return ["crate"] + path[1:]
        if head in ("super", "self"):
            cur = list(mod)
            k = 0
            while k < len(path) and path[k] in ("super", "self"):
                if path[k] == "super":
                    cur = cur[:-1]
                k += 1
            return cur + path[k:]
        if head in self.children.get(mod, ()):  # a child module in scope
            return list(mod) + path
        return None

    def resolve(self, ab, seen=None):
        """(file, item) that defines the absolute path ab, through re-exports."""
        seen = seen or set()
        key = tuple(ab)
        if key in seen:
            return None
        seen.add(key)
        mod = ("crate",)
        k = 1
        while k < len(ab) and mod + (ab[k],) in self.files:
            mod = mod + (ab[k],)
            k += 1
        if k >= len(ab):
            return (self.files[mod], None, mod)
        item = ab[k]
        names = self.names.get(mod, {})
        if item in names:
            target, _ = names[item]
            r = self.resolve(target + ab[k + 1:], seen)
            if r:
                return r
        return (self.files[mod], item, mod)


def top(mod):
    return mod[1] if len(mod) > 1 else None


def is_descendant(a, b):
    """Whether module a lies inside module b."""
    return len(a) > len(b) and a[: len(b)] == b


def circles(graph):
    """Strongly connected components of more than one node (Tarjan), sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    for v in sorted(set(graph) | {b for s in graph.values() for b in s}):
        if v not in index:
            strong(v)
    return sorted(out)


def file_edges(c):
    """(from_file, to_file) -> [(line, path)], and the crate-root imports."""
    edges, root_uses = {}, []
    for fname, line, mod, ab, test, kind in c.refs:
        if test or mod in c.test_mods:
            continue
        r = c.resolve(ab)
        if not r:
            continue
        tfile, item, tmod = r
        what = "::".join(ab)
        if len(ab) == 2 and ("crate", ab[1]) not in c.files and fname != "src/lib.rs":
            root_uses.append((fname, line, what))
        # A module owns its children: it declares them, re-exports them and
        # dispatches to them; the children's uses of it are the edges.
        if tfile == fname or is_descendant(c.file_mod[tfile], c.file_mod[fname]):
            continue
        hits = edges.setdefault((fname, tfile), [])
        if (line, what) not in hits:
            hits.append((line, what))
    return edges, sorted(root_uses)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    root = sys.argv[1] if len(sys.argv) > 1 else here
    c = Crate(root)
    edges, root_uses = file_edges(c)
    failures = allowed = 0

    def report(tag_bad, key, head, lines):
        nonlocal failures, allowed
        why = ALLOWLIST.get(key)
        print("    %s: %s" % ("allowed" if why else tag_bad, head))
        for line in lines:
            print("        " + line)
        if why:
            print("        why allowed: " + why)
            allowed += 1
        else:
            failures += 1

    print("(a) file-level import circles")
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    found = circles(graph)
    for comp in found:
        lines = [
            "%s:%d -> %s (%s)" % (a, line, b, what)
            for (a, b) in sorted(edges)
            if a in comp and b in comp
            for line, what in edges[(a, b)]
        ]
        report("CIRCLE", ("circle",) + comp, " <-> ".join(comp), lines)
    if not found:
        print("    none")

    print("(b) imports against the layer order, bottom to top: "
          + " -> ".join(", ".join(layer) for layer in LAYERS))
    for mod, layers in sorted(SUB_LAYERS.items()):
        print("    inside %s: %s" % (mod, " -> ".join(", ".join(layer) for layer in layers)))
    bad = [(a, "src/lib.rs", line, what, "imports the crate root") for a, line, what in root_uses]
    same = {}  # (module, module) in one layer -> [(from, to, line, what)]
    for (a, b), hits in sorted(edges.items()):
        ta, tb = top(c.file_mod[a]), top(c.file_mod[b])
        if ta is not None and ta == tb and ta in SUB_LAYERS:
            sa, sb = sub_layer(a), sub_layer(b)
            for line, what in hits:
                if sa is None or sb is None:
                    why = "%s is in no layer of %s" % (a if sa is None else b, ta)
                    bad.append((a, b, line, what, why))
                elif sb[1] > sa[1]:
                    why = "%s (%s layer %d) imports %s (layer %d)" % (sa[2], ta, sa[1], sb[2], sb[1])
                    bad.append((a, b, line, what, why))
            continue
        if ta is None or tb is None or ta == tb:
            continue
        la, lb = LAYER_OF.get(ta), LAYER_OF.get(tb)
        for line, what in hits:
            if la is None or lb is None:
                why = "module %s is in no layer" % (ta if la is None else tb)
                bad.append((a, b, line, what, why))
            elif lb > la:
                why = "%s (layer %d) imports %s (layer %d)" % (ta, la, tb, lb)
                bad.append((a, b, line, what, why))
            elif lb == la:
                same.setdefault((ta, tb), []).append((a, b, line, what))
    # Within a layer: one direction (no circle among its modules), and the
    # written-down orders.
    in_circle = {m for comp in circles({a: {b} for a, b in same}) for m in comp}
    for (ta, tb), hits in sorted(same.items()):
        if ta in in_circle and tb in in_circle:
            why = "%s imports %s, and %s imports it back (one layer)" % (ta, tb, tb)
        elif (ta, tb) in SAME_LAYER_ORDER:
            why = "%s imports %s (one layer; %s sits below)" % (ta, tb, ta)
        else:
            continue
        for a, b, line, what in hits:
            bad.append((a, b, line, what, why))
    for a, b, line, what, why in bad:
        report("VIOLATION", (a, b), "%s:%d -> %s (%s): %s" % (a, line, b, what, why), [])
    if not bad:
        print("    none")
    print("%d files, %d file-to-file imports; %d problem(s), %d allowlisted"
          % (len(c.file_mod), len(edges), failures, allowed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
