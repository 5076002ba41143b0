#!/usr/bin/env bash
# provenance.sh -- what produced a `make paper` (or `make tta`) run, as JSON
# on stdout: the commit (and whether the code had uncommitted changes), the
# date, the machine, the compiler and OpenBLAS, and the code itself:
# {path: git blob id} of the solver, the studies and the paper runner
# (results.py --manifest), which `make test` compares with the files as
# they are (results.py --check-code).  The budgets are in each run's
# summary.json.
set -u
cd "$(dirname "$0")/../.."
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# changes to the code (not to tests/paper, which the run itself rewrites)
dirty=$( [ -n "$(git status --porcelain --untracked-files=no -- . ':!tests/paper' 2>/dev/null)" ] && echo true || echo false)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cc_version=$(${CC:-cc} --version | head -1)
openblas=$(dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null || dpkg-query -W -f='${Version}' libopenblas0 2>/dev/null || echo unknown)
code=$(python3 tests/paper/results.py --manifest)
python3 - "$commit" "$dirty" "$cpu" "$(nproc)" "$cc_version" "$openblas" "$code" <<'PY'
import datetime, json, sys
c, d, cpu, nproc, cc, ob, code = sys.argv[1:8]
print(json.dumps({"commit": c, "dirty": d == "true", "cpu": cpu, "cores": int(nproc),
                  "compiler": cc, "openblas": ob,
                  "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                  "code": json.loads(code)},
                 indent=1))
PY
