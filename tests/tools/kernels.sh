#!/usr/bin/env bash
# kernels.sh RUNNER SUITE... -- the numerical suites under several OpenBLAS
# kernel sets.  OpenBLAS picks its kernels by CPU (OPENBLAS_CORETYPE forces
# one), and each sums in its own order: a tolerance that holds on one set
# only is a tolerance taken from one machine's rounding.  A kernel set this
# CPU cannot execute (SkylakeX without AVX-512, say) is reported as skipped
# ("skip kernels.SkylakeX: ..."); the runner's own skips and margin reports
# (IRCG_TEST_MARGIN) within a set are passed on, prefixed "[CORETYPE]", for
# tests/tools/skips.py.  Ends with the harness's own line: "N passed, N
# failed, N skipped" (N kernel sets).
set -u
runner=$1
shift
cores=${IRCG_CORETYPES:-"Prescott Nehalem Sandybridge Haswell Zen SkylakeX"}
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { [[ " $flags " == *" $1 "* ]]; }
passed=0 failed=0 skipped=0
for c in $cores; do
    need=""
    case $c in
        Prescott) need=pni ;;
        Nehalem) need=sse4_2 ;;
        Sandybridge) need=avx ;;
        Haswell|Zen) need="avx2 fma" ;;
        SkylakeX|Cooperlake) need=avx512f ;;
    esac
    missing=""
    for f in $need; do has "$f" || missing="$missing $f"; done
    if [ -n "$missing" ]; then
        echo "skip kernels.$c: this CPU lacks$missing"
        skipped=$((skipped + 1))
        continue
    fi
    out=$(OPENBLAS_CORETYPE=$c OPENBLAS_NUM_THREADS=1 "$runner" "$@" 2>&1)
    last=$(printf '%s\n' "$out" | tail -n 1)
    # the runner's own skips, and its margin reports with the result line
    # of their test, for tests/tools/skips.py
    printf '%s\n' "$out" | awk -v c="$c" '
        /^skip / { print "  [" c "] " $0 }
        /^    margin / { m = m "  [" c "] " $0 "\n" }
        /^(ok  |FAIL) / { if (m != "") printf "%s  [%s] %s\n", m, c, $0; m = "" }'
    if [[ $last =~ ^([0-9]+)\ passed,\ 0\ failed ]]; then
        echo "ok   kernels.$c: $last"
        passed=$((passed + 1))
    else
        printf '%s\n' "$out" | grep -E '^(FAIL|    )' | grep -v '^    margin ' | sed "s/^/  [$c] /"
        echo "FAIL kernels.$c: $last"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
