#!/usr/bin/env python3
"""standalone.py [--root DIR] -- the repository stands alone: no file of it
sends a reader to something a clone does not have.

A person who clones the repository has only the repository.  So no tracked
file may name a folder beside it (the parent's shared folder), the research
notes or design files kept outside it, the LaTeX source of the paper or its
labels (cite the paper by its numbered results instead), the data sources
file kept with the local copies of the data, or a path of one machine.  The
design is docs/DESIGN.md; the data sets and their sources are
datasets/README.md.

The files are those git tracks (`git ls-files`), or, outside a git checkout
(the container image's build), every file under DIR but build output and
installed tools.  Prints `path:line: why` for each finding and exits 1 when
there is any.
"""
import argparse
import os
import re
import subprocess
import sys

# (pattern, why).  Each is written so that this file does not match it.
RULES = [
    (re.compile(r"\.\./share[d]\b"), "a folder beside the repository"),
    (re.compile(r"(?<![\w/.-])share[d]/(data|notes|paper|hooks|DESIGN)\b"),
     "the shared folder of the workplace, not part of the repository"),
    (re.compile(r"\bnotes/[\w.-]+\.md\b"), "research notes kept outside the repository"),
    (re.compile(r"\b(algorithms|service)[.]md\b"), "research notes kept outside the repository"),
    (re.compile(r"(?<!docs/)\bDESIGN[.]md\b"), "a design file other than docs/DESIGN.md"),
    (re.compile(r"\bSOURCES[.]md\b"), "the data sources file of the local copies "
                                      "(datasets/README.md has the sources)"),
    (re.compile(r"projection-free-bilev[e]l|\.te[x]\b"), "the paper's LaTeX source"),
    (re.compile(r"\b(eq|sec|subsec|thm|lem|lemma|rem|remark|alg|ass|ineq\d?)"
                r":(?=[A-Za-z])[\w-]+"),
     "a label of the paper's LaTeX source (cite its numbered result instead)"),
    (re.compile(r"(?<![\w./])/wor[k]/"), "a path of one machine"),
]

SKIP_DIRS = {".git", "node_modules", "__pycache__"}
SKIP_PREFIXES = ("build",)  # build/, build-asan/, build-fuzz/, ...
BINARY_SUFFIXES = (".png", ".jpg", ".gif", ".ico", ".npz", ".gz", ".xz", ".zip", ".bz2")


def files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        if out:
            return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for dirpath, dirs, names in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and
                   not (rel == "." and d.startswith(SKIP_PREFIXES))]
        found += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(found)


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def dead_link(root, path, target):
    """A Markdown link to a file the repository does not have."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
        return False
    full = os.path.normpath(os.path.join(root, os.path.dirname(path), target))
    inside = os.path.commonpath([os.path.abspath(full), os.path.abspath(root)])
    return inside != os.path.abspath(root) or not os.path.exists(full)


def findings(root, path):
    if path.endswith(BINARY_SUFFIXES) or "/corpus/" in path or "/regress/" in path:
        return  # images, archives, fuzz inputs: not read by people
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read(4 << 20)
    except OSError:
        return
    if b"\0" in data:
        return
    for lineno, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        for rx, why in RULES:
            m = rx.search(line)
            # CI's own script may name where CI's machines keep their local
            # copy of the data (beside the checkout): it sends no reader there
            if m and not (path == ".ci/run" and why == RULES[0][1]):
                yield f"{path}:{lineno}: {why}: {m.group(0)}"
        if path.endswith(".md"):
            for m in LINK.finditer(line):
                if dead_link(root, path, m.group(1)):
                    yield f"{path}:{lineno}: a link to a file the repository does not have: " \
                          f"{m.group(1)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    root = ap.parse_args().root
    names = files(root)
    bad = [f for p in names for f in findings(root, p)]
    for f in bad:
        print(f)
    print(f"standalone: {len(names)} files read, {len(bad)} references outside the repository")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
