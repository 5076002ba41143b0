#!/usr/bin/env bash
# fuzz.sh BUILD SECONDS TARGET... -- `make fuzz`: runs each libFuzzer
# target for SECONDS (or FUZZ_RUNS executions when that is set in the
# environment) at nice 19 on its working corpus BUILD/corpus/NAME
# (new inputs are kept there; the seeds and the regressions of
# tests/fuzz are read too), then prints one line per target: executions,
# executions per second, corpus size, crashes.  Exit status 1 when any
# target crashed; the input is in BUILD/artifacts/NAME/ -- minimize it
# (BUILD/fuzz/fuzz_NAME -minimize_crash=1 FILE), fix the bug, and commit
# the input to tests/fuzz/regress/NAME/ so make test replays it.
set -u
build=$1 seconds=$2
shift 2
fail=0
summary=""
for t in "$@"; do
    corpus=$build/corpus/$t art=$build/artifacts/$t log=$build/logs/$t.log
    mkdir -p "$corpus" "$art" "$build/logs"
    dict=""
    [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
    echo "fuzz $t: ${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-${seconds}s}"
    regress=""  # (a target nothing ever crashed has no such directory)
    [ -d "tests/fuzz/regress/$t" ] && regress="tests/fuzz/regress/$t"
    limit="-max_total_time=$seconds"
    [ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
    nice -n 19 "$build/fuzz/fuzz_$t" $limit -timeout=20 \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 $dict \
        -artifact_prefix="$art/" "$corpus" "tests/fuzz/corpus/$t" $regress \
        >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    files=$(find "$corpus" -type f | wc -l)
    crashes=$(find "$art" -type f | wc -l)
    if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        fail=1
        grep -E "^==[0-9]+==ERROR|SUMMARY|FUZZ_CHECK|Test unit written" "$log" | head -5
    fi
    summary+=$(printf '%-10s %12s execs %8s/s %6s corpus %3s crashes\n' "$t" "${execs:-?}" "${rate:-?}" "$files" "$crashes")$'\n'
done
printf '%s' "$summary"
exit $fail
