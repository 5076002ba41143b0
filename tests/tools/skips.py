#!/usr/bin/env python3
"""skips.py ALLOWED LOG... -- every skip in the test logs is one that
ALLOWED (tests/skips.allowed) lists and whose condition holds here.

Reads the output of the test runner (`skip suite.name: why`) and of
tests/tools/kernels.sh (`skip kernels.CORE: why`, and the runner's own
skips inside a kernel set, prefixed `[CORE]`).  Prints each skip with its
verdict, then, for the log, the checks that used more than the fraction
IRCG_TEST_MARGIN of their tolerance (`margin` lines of tests/harness.c).
Exit status 1 when any skip is not allowed, 2 on a malformed ALLOWED.
"""
import os
import re
import subprocess
import sys

SKIP = re.compile(r"^(?:\s*\[[\w-]+\] )?skip ([^\s:]+): (.*)$")
MARGIN = re.compile(r"^(?:\s*\[[\w-]+\] )?\s*margin (\S+) used (\S+) of its tolerance")
RESULT = re.compile(r"^(?:\s*\[([\w-]+)\] )?(?:ok  |FAIL) (\S+)")
# the test command as make echoes it: IRCG_SAN="-fsanitize=..." (make asan, tsan)
SANITIZED = re.compile(r'IRCG_SAN="[^"]*-fsanitize=([\w,]+)')

MOVIELENS = {"100k": "ml-100k/u.data.xz", "1m": "ml-1m-subset/ratings.dat.xz"}
CAPS = {"sys_admin": 21, "net_admin": 12}
# tests/cluster/cluster.sh check: whether its hosts can be made here
CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster",
                       "cluster.sh")


def cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cap_eff():
    try:
        with open("/proc/self/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except OSError:
        pass
    return 0


def holds(kind, arg, sanitizers=()):
    """Whether condition `kind arg` holds on this machine (and, for
    `sanitizer`, in the log: the sanitizers its test command ran with), and
    what was seen."""
    if kind == "sanitizer":
        on = arg == "any" and bool(sanitizers) or arg in sanitizers
        return on, ("built with -fsanitize=" + ",".join(sanitizers) if sanitizers
                    else "no sanitizer in the log's test command")
    if kind == "cpu-lacks":
        missing = [f for f in arg.split(",") if f not in cpu_flags()]
        return bool(missing), "lacks " + ",".join(missing) if missing else "has " + arg
    if kind == "no-cap":
        have = cap_eff() >> CAPS[arg] & 1
        return not have, ("has " if have else "lacks ") + "CAP_" + arg.upper()
    if kind == "no-netns":
        try:
            p = subprocess.run([CLUSTER, "check"], capture_output=True, text=True,
                               timeout=60, check=False)
        except OSError as e:
            return True, f"cluster.sh check cannot run: {e}"
        said = (p.stdout or p.stderr).strip()
        return p.returncode != 0, "hosts can be made" if p.returncode == 0 else said
    if kind == "no-movielens":
        data = os.environ.get("IRCG_DATA_DIR") or os.environ.get("DATA_DIR") or ""
        path = os.path.join(data, MOVIELENS[arg])
        there = os.path.exists(path)
        return not there, path + (" is present" if there else " is absent")
    raise ValueError(kind)


def read_allowed(path):
    allowed = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 3)
            ok = len(parts) == 4 and parts[1] in ("cpu-lacks", "no-cap", "no-movielens",
                                                  "no-netns", "sanitizer")
            ok = ok and (parts[1] != "sanitizer" or parts[2] in ("any", "address", "thread"))
            ok = ok and (parts[1] != "no-cap" or parts[2] in CAPS)
            ok = ok and (parts[1] != "no-movielens" or parts[2] in MOVIELENS)
            ok = ok and (parts[1] != "no-netns" or parts[2] == "hosts")
            if not ok:
                sys.exit(f"{path}:{n}: want 'NAME CONDITION ARG REASON', a known condition")
            # a test may be listed under several conditions: any one allows it
            allowed.setdefault(parts[0], []).append((parts[1], parts[2], parts[3]))
    return allowed


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        allowed = read_allowed(sys.argv[1])
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    bad = 0
    for log in sys.argv[2:]:
        skips, margins, pending, sanitizers = [], [], [], []
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = SANITIZED.search(line)
                if m:
                    sanitizers = m.group(1).split(",")
                m = SKIP.match(line.rstrip("\n"))
                if m:
                    skips.append((m.group(1), m.group(2)))
                m = MARGIN.match(line)
                if m:  # the harness prints a test's margins before its result line
                    pending.append((m.group(1), m.group(2)))
                m = RESULT.match(line)
                if m:
                    test = (f"[{m.group(1)}] " if m.group(1) else "") + m.group(2)
                    margins += [(test, where, used) for where, used in pending]
                    pending = []
        print(f"{log}: {len(skips)} skip(s)")
        for name, why in skips:
            if name not in allowed:
                print(f"  NOT ALLOWED  {name}: {why} (not in {sys.argv[1]})")
                bad += 1
                continue
            verdicts = [(kind, arg) + holds(kind, arg, sanitizers)
                        for kind, arg, _ in allowed[name]]
            ok = any(v[2] for v in verdicts)
            seen = "; ".join(f"{k} {a}: {s}" for k, a, _, s in verdicts)
            print(f"  {'allowed    ' if ok else 'NOT ALLOWED'}  {name}: {why} [{seen}]")
            bad += not ok
        if margins:
            limit = os.environ.get("IRCG_TEST_MARGIN", "?")
            print(f"{log}: {len(margins)} check(s) used more than {limit} of their tolerance")
            for test, where, used in margins:
                print(f"  {test}: {where} used {used}")
    if bad:
        print(f"{bad} skip(s) not allowed: a test that skips where it should run hides "
              f"a failure (tests/skips.allowed)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
