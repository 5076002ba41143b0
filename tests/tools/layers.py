#!/usr/bin/env python3
"""layers.py [--root DIR] -- every #include "..." of the C sources against
the layers and rooms of docs/DESIGN.md ("Layers and rooms"; the solver's
rooms are also in solver/README.md).

A quoted include is resolved the way the compiler would find it through any
of the project's include directories (or beside the including file), and
the file it names must belong to a part the includer may use.  The compile
flags of each layer already hide what it may not see; this check also
catches what flags cannot: relative paths ("../storage/store.h") and the
rooms inside solver/src, which share one include root.

With --objects DIR (the build's object tree, DIR/server/http/http.o for
server/http/http.c), the direct calls between the files are read off the
objects' symbol tables (nm): a cycle of calls between two rooms of the
server -- a room calling into another that calls back, directly or through
a third -- is a violation too.  Calls through function pointers a room is
handed (the daemon's hooks) are not direct calls, and do not count.

Prints one line per violation and exits 1 when there is any.
"""
import argparse
import os
import re
import subprocess
import sys

# Where the compiler looks, in the order of the Makefile's -I flags.
INCLUDE_DIRS = ["solver/include", "solver/src", "api", "storage", "server",
                "clients/c", "clients/cli", "clients/mpi", "tests"]

# part -> the parts it may include.  A part is a folder prefix; the longest
# matching prefix names a file's part.  Every part may include itself.
SOLVER_PUBLIC = "solver/include"
RULES = {
    "solver/include": [],
    "solver/src/base": [SOLVER_PUBLIC],
    "solver/src/lmo": [SOLVER_PUBLIC, "solver/src/base"],
    "solver/src/inputs": [SOLVER_PUBLIC, "solver/src/base"],
    "solver/src/problems": [SOLVER_PUBLIC, "solver/src/base", "solver/src/lmo",
                            "solver/src/core/oracle.h"],
    "solver/src/baselines": [SOLVER_PUBLIC, "solver/src/base", "solver/src/lmo",
                             "solver/src/problems", "solver/src/core/oracle.h",
                             "solver/src/core/solver_internal.h"],
    "solver/src/reference": [SOLVER_PUBLIC, "solver/src/base",
                             "solver/src/core/oracle.h",
                             "solver/src/core/solver_internal.h"],
    "solver/src/bisect": [SOLVER_PUBLIC, "solver/src/base",
                          "solver/src/core/oracle.h",
                          "solver/src/core/solver_internal.h"],
    "solver/src/twostage": [SOLVER_PUBLIC, "solver/src/base",
                            "solver/src/core/oracle.h",
                            "solver/src/core/solver_internal.h"],
    "solver/src/core": [SOLVER_PUBLIC, "solver/src"],
    "api": [SOLVER_PUBLIC],
    "storage": [],
    # ircgd's rooms (docs/DESIGN.md, "The server's rooms"): another room is
    # reached through its one public header only, one way: daemon -> routes
    # -> {http, jobs, mpi}; mpi -> jobs -> base; http -> base.
    "server/base": [SOLVER_PUBLIC, "api", "storage"],
    "server/http": [SOLVER_PUBLIC, "api", "storage", "server/base/base.h"],
    "server/jobs": [SOLVER_PUBLIC, "api", "storage", "server/base/base.h"],
    "server/mpi": [SOLVER_PUBLIC, "api", "storage", "server/base/base.h",
                   "server/jobs/jobs.h"],
    "server/routes": [SOLVER_PUBLIC, "api", "storage", "server/base/base.h",
                      "server/http/http.h", "server/jobs/jobs.h", "server/mpi/mpi.h"],
    "server": [SOLVER_PUBLIC, "api", "storage", "server/base/base.h",
               "server/http/http.h", "server/jobs/jobs.h", "server/mpi/mpi.h",
               "server/routes/routes.h"],
    "clients/c": [],
    "clients/cli": [SOLVER_PUBLIC, "api", "clients/c/ircg_client.h"],
    # ircg-mpi: the CLI's outputs and spec helpers, and the one room that
    # may include <mpi.h> (MPI_ONLY below)
    "clients/mpi": [SOLVER_PUBLIC, "api", "clients/cli/cli.h"],
    "tests": [""],  # everything
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# libircg, ircgd and everything but ircg-mpi stay free of MPI.
# PARPACK's header includes mpi.h: the same rule.
MPI_RE = re.compile(r'^\s*#\s*include\s+[<"](mpi\.h|arpack/parpack\.h)[>"]')
MPI_ONLY = "clients/mpi"


def part_of(path):
    best = None
    for part in RULES:
        if path == part or path.startswith(part + "/"):
            if best is None or len(part) > len(best):
                best = part
    return best


def allowed(part, target):
    if target == part or target.startswith(part + "/"):
        return True
    for p in RULES[part]:
        if p == "" or target == p or target.startswith(p + "/"):
            return True
    return False


def resolve(root, includer, name):
    here = os.path.dirname(includer)
    for d in [here] + INCLUDE_DIRS:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def sources(root):
    for top in ["solver", "api", "storage", "server", "clients", "tests"]:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


CALL_ROOMS = "server"  # the layer whose rooms the call check covers


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRC":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def room_calls(root, objects):
    """{(from room, to room): an example call} between the rooms of
    CALL_ROOMS, from the objects under objects/CALL_ROOMS whose source is
    still a file under root (an object left by a file since moved is
    not the program's)."""
    files = {}
    for dirpath, _, names in os.walk(os.path.join(objects, CALL_ROOMS)):
        for n in names:
            if n.endswith(".o"):
                obj = os.path.join(dirpath, n)
                src = os.path.relpath(obj, objects)[:-2] + ".c"
                if part_of(src) and os.path.isfile(os.path.join(root, src)):
                    files[src] = symbols(obj)
    owner = {s: src for src, (defined, _) in files.items() for s in defined}
    edges = {}
    for src, (_, undefined) in sorted(files.items()):
        for s in sorted(undefined):
            if s in owner and part_of(owner[s]) != part_of(src):
                edges.setdefault((part_of(src), part_of(owner[s])),
                                 f"{src} calls {s} of {owner[s]}")
    return edges


def call_cycles(root, objects):
    """One line per call from a room into one that calls back into it,
    directly or through others; and the count of room-to-room edges."""
    edges = room_calls(root, objects)
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)

    def reaches(a, b):
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            for y in graph.get(x, ()):
                if y == b:
                    return True
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    bad = [f"{why}: {a} calls {b}, and {b} calls back into {a}"
           for (a, b), why in sorted(edges.items()) if reaches(b, a)]
    return bad, len(edges)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--objects", help="the build's object tree: check calls too")
    args = ap.parse_args()
    root = args.root
    bad = checked = 0
    for src in sorted(sources(root)):
        part = part_of(src)
        if part is None:
            continue
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                if MPI_RE.match(line) and part != MPI_ONLY:
                    print(f"{src}:{lineno}: only {MPI_ONLY} may include mpi.h (or parpack.h)")
                    bad += 1
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                checked += 1
                target = resolve(root, src, m.group(1))
                if target is None:
                    print(f"{src}:{lineno}: \"{m.group(1)}\" is not a file of the project")
                    bad += 1
                elif part_of(target) is None or target.startswith(".."):
                    print(f"{src}:{lineno}: \"{m.group(1)}\" lies outside the layers")
                    bad += 1
                elif not allowed(part, target):
                    print(f"{src}:{lineno}: {part} may not include {target} "
                          f"(it may use: {', '.join(RULES[part]) or 'nothing of ours'})")
                    bad += 1
    print(f"layers: {checked} includes checked, {bad} across a forbidden boundary")
    if args.objects:
        cycles, n = call_cycles(root, args.objects)
        for line in cycles:
            print(line)
        print(f"layers: {n} calls between rooms of {CALL_ROOMS} checked, "
              f"{len(cycles)} in a cycle")
        bad += len(cycles)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
