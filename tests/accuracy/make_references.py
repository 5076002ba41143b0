#!/usr/bin/python3
"""make_references.py -- tests/accuracy/references.json, the exact bilevel
solutions of the examples, made by CVXOPT (reference.py).

    /usr/bin/python3 tests/accuracy/make_references.py [--bin build/bin] [--out FILE]

For each example of `ircg example --list` whose domain has a projection
(the vector families: least squares and logistic regression), the spec
`ircg example NAME` prints, its instance as the solver holds it (`ircg
instance SPEC --npz`), and reference.py's report of it: f*, g* with its
certified bracket, the instance's hash (sha256 of its members), the data
digest, each stage's status and accuracy as CVXOPT reports them, and the
seconds CVXOPT took here (with the machine's cores and load average, since
the machine is shared).  The examples that read a data set when `make
data` fetched it (min-norm-msd, logistic-a1a, fair-a9a) are made on the
synthetic data of their shape, whatever this machine has: their --data
names a file that is not there (NO_DATA), so that the references are the
same on every machine.  Tests read the file without CVXOPT
(tests/unit/tools/test_accuracy_reference.c): the hash says that the
example still builds that instance, and the certificates of a short IR-CG
run must bracket g* and stay below f*.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REFERENCE = os.path.join(ROOT, "tests", "accuracy", "reference.py")
NO_DATA = "/nonexistent/ircg-synthetic-shape"
FILE_EXAMPLES = ("min-norm-msd", "logistic-a1a", "fair-a9a")
MATRIX_EXAMPLES = ("paper-movielens", "synthetic-movielens")  # the nuclear ball: no projection


def example_args(name):
    return ["--data", NO_DATA] if name in FILE_EXAMPLES else []


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": cpu}


def reference_of(ircg, name, tmp):
    spec = os.path.join(tmp, name + ".json")
    npz = os.path.join(tmp, name + ".npz")
    with open(spec, "w", encoding="utf-8") as f:
        f.write(run([ircg, "example", name] + example_args(name)).stdout)
    run([ircg, "instance", spec, "--npz", npz])
    load = os.getloadavg()[0]
    out = json.loads(run(["/usr/bin/python3", REFERENCE, npz]).stdout)
    out["example_args"] = example_args(name)
    out["load_average_1min"] = load
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "accuracy", "references.json"))
    a = ap.parse_args()
    ircg = os.path.join(a.bin, "ircg")
    names = [n for n in run([ircg, "example", "--list"]).stdout.split() if n not in MATRIX_EXAMPLES]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    refs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print(f"make_references: {name} ...", file=sys.stderr, flush=True)
            refs[name] = reference_of(ircg, name, tmp)
            r = refs[name]
            print(f"  f* {r['f_star']:.12g}, g* {r['g_star']:.12g}, CVXOPT {r['cvxopt_seconds']:.3g} s",
                  file=sys.stderr)
    doc = {"made_by": "tests/accuracy/make_references.py (reference.py: CVXOPT)",
           "commit": commit,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "machine": machine(), "references": refs}
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    print(f"make_references: {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
