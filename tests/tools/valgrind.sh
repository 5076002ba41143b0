#!/usr/bin/env bash
# valgrind.sh BUILD -- `make valgrind`: the ircg CLI under valgrind's
# memcheck on every example it prints (paper-movielens on the small test
# ratings, synthetic-movielens, least-norm), with every algorithm, solved
# for a few iterations with a trace and a result written, and validated.
# Any memory error or definite/indirect leak, or a run that does not
# succeed, fails (exit 1).
set -u
build=$1
tmp=$(mktemp -d /tmp/ircg-valgrind-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
vg="valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
export OPENBLAS_NUM_THREADS=1
runs=0 fail=0
for ex in paper-movielens synthetic-movielens least-norm; do
    for alg in ircg cgbio irpg bisg; do
        args="--algorithm $alg --max-iter 15"
        [ "$ex" = paper-movielens ] && args="$args --ratings tests/data/ratings_small.dat"
        [ "$ex" = synthetic-movielens ] && args="$args --size small"
        if ! "$build/bin/ircg" example "$ex" $args >"$tmp/spec.json" 2>"$tmp/err"; then
            echo "valgrind: cannot make the $ex example for $alg:"; cat "$tmp/err"; fail=1; continue
        fi
        for cmd in "validate $tmp/spec.json" \
                   "solve $tmp/spec.json --quiet --trace $tmp/t.csv --result $tmp/r.json"; do
            runs=$((runs + 1))
            $vg "$build/bin/ircg" $cmd >"$tmp/out" 2>"$tmp/vg"
            rc=$?
            if [ "$rc" -ne 0 ] || grep -q '^==' "$tmp/vg"; then
                echo "valgrind: $ex / $alg: ircg ${cmd%% *} exit $rc (99: memcheck errors)"
                cat "$tmp/vg"; fail=1
            fi
        done
    done
done
echo "valgrind: $runs runs of ircg, $([ $fail -eq 0 ] && echo clean || echo 'errors above')"
exit $fail
