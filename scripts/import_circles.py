#!/usr/bin/env python3
"""Import circles of tensile's source files: the strongly connected components of the graph
whose nodes are the files of tensile/src and whose edges are their `crate::…`/`super::…`
paths (comments and `mod tests` left out), resolved to the longest module path that is a file.

Usage: python3 scripts/import_circles.py [REV] [-v]

REV is a git revision (default HEAD). Prints the sizes of the circles of more than one file,
largest first, and with -v their files. The resolution is textual (a path names the file of
its longest existing module prefix), so it is a measure to compare two revisions by, not a
compiler's view.
"""
import re
import subprocess
import sys

ROOT = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                      cwd=__file__.rsplit("/", 1)[0] or ".").stdout.strip()
args = [a for a in sys.argv[1:] if a != "-v"]
rev = args[0] if args else "HEAD"
verbose = "-v" in sys.argv[1:]


def git(*a):
    return subprocess.run(["git", "-C", ROOT, *a], capture_output=True, text=True, check=True).stdout


files = {f[len("tensile/src/"):] for f in git("ls-tree", "-r", "--name-only", rev, "tensile/src").split()
         if f.endswith(".rs")}


def module_file(parts):
    """The file of the longest prefix of `parts` that is a module."""
    for n in range(len(parts), 0, -1):
        p = "/".join(parts[:n])
        for c in (p + ".rs", p + "/mod.rs"):
            if c in files:
                return c
    return None


def module_path(f):
    p = f[:-3]
    if p.endswith("/mod"):
        p = p[:-4]
    return p.split("/")


edges = {f: set() for f in files}
for f in files:
    if f == "lib.rs":
        continue
    src = git("show", f"{rev}:tensile/src/{f}")
    src = src.split("#[cfg(test)]")[0]
    src = re.split(r"\n\s*mod tests \{", src)[0]
    src = "\n".join(l for l in src.split("\n") if not l.strip().startswith("//"))
    here = module_path(f)
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)(?:::\{([^;]*?)\})?", src):
        parts = m.group(2).split("::")[1:]
        if m.group(1) == "super":
            parts = here[:-1] + parts
        paths = [parts]
        for item in (m.group(3) or "").split(","):
            item = item.strip().split(" as ")[0].strip()
            if item and re.match(r"^[\w:]+$", item):
                paths.append(parts + item.split("::"))
        for p in paths:
            t = module_file(p)
            if t and t not in (f, "lib.rs"):
                edges[f].add(t)

# Tarjan's strongly connected components
sys.setrecursionlimit(10000)
index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w)
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
            circles.append(sorted(comp))


for v in sorted(edges):
    if v not in index:
        visit(v)
circles.sort(key=len, reverse=True)
print(f"{rev}: {len(circles)} circles, sizes {[len(c) for c in circles]}")
if verbose:
    for c in circles:
        print("  " + " ".join(c))
