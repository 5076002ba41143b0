#!/usr/bin/env bash
# lint.sh -- `make lint`: cppcheck and clang-tidy over the code we ship
# (solver, api, storage, server, clients), each file with its layer's
# include path (the Makefile's INC_* flags, passed in the environment).
# The checks are the deliberate list in .clang-tidy at the root; both
# tools must report nothing.  Ends with one line: "lint: N files, clean"
# or the number of findings.
set -u
cd "$(dirname "$0")/../.."
jobs=${LINT_JOBS:-2}
fail=0

echo "cppcheck $(cppcheck --version | cut -d' ' -f2)"
cppcheck --quiet --std=c11 --enable=warning,portability --inline-suppr \
    --error-exitcode=1 -D_DEFAULT_SOURCE $INC_SOLVER $INC_API $INC_STORAGE \
    $INC_SERVER $INC_CLIENT $INC_CLI -Iclients/mpi solver api storage server clients || fail=1

# file -> its layer's include flags; the analysis keeps the assertions
# (no NDEBUG), which tell it the invariants.
tidy_one() {
    local f=$1 inc
    case $f in
        solver/*) inc=$INC_SOLVER ;;
        api/*) inc=$INC_API ;;
        storage/*) inc=$INC_STORAGE ;;
        server/*) inc=$INC_SERVER ;;
        clients/c/*) inc=$INC_CLIENT ;;
        clients/cli/*) inc=$INC_CLI ;;
        clients/mpi/*) inc=$INC_MPI ;;
    esac
    clang-tidy --quiet "$f" -- -std=c11 -D_DEFAULT_SOURCE $inc 2>/dev/null
}
export -f tidy_one
export INC_SOLVER INC_API INC_STORAGE INC_SERVER INC_CLIENT INC_CLI INC_MPI
files=$(find solver api storage server clients -name '*.c' | sort)
n=$(echo "$files" | wc -l)
echo "clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1) on $n files"
out=$(echo "$files" | xargs -P "$jobs" -I{} bash -c 'tidy_one {}')
findings=$(printf '%s\n' "$out" | grep -cE ': (warning|error): ')
if [ "$findings" -gt 0 ]; then
    printf '%s\n' "$out" | grep -E ': (warning|error): '
    fail=1
fi
if [ "$fail" -eq 0 ]; then
    echo "lint: $n files, clean"
else
    echo "lint: $findings clang-tidy finding(s)$( [ "$findings" -eq 0 ] && echo ', cppcheck findings above')"
fi
exit $fail
