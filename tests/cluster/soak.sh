#!/usr/bin/env bash
# tests/cluster/soak.sh MINUTES [STARTS] -- the cluster suites in a loop,
# looking for a rank that dies at its start (issue 38): until MINUTES have
# passed, each cycle runs
#   1. the Slurm and mpirun suites through ircgd (cluster_slurm.,
#      cluster_http.), their folders kept (IRCG_KEEP_TMP) long enough to
#      count in their daemons' logs the launches whose ranks died at their
#      start, then removed;
#   2. STARTS (default 40) bare launches of a 2-iteration job on 4 hosts,
#      half by srun --mpi=pmix (SLURM_PMIX_FENCE=$SOAK_FENCE, default tree,
#      as the suites' launcher), half by mpirun over the rsh agent: the
#      start-up is what crashed, and a bare launch repeats it every two
#      seconds, where a suite repeats it a few times a minute.
# Every rank runs with its core limit raised in a folder of its own; every
# `ircg-mpi crash:` report (clients/mpi/mpi_crash.c) and core file found
# is kept in OUT (default build/soak), with gdb's backtrace of the core.
# Counts go to OUT/counts, one line a cycle, and a total at the end.
# Root only (the hosts are network namespaces); run from the repository
# root after `make all` (SOAK_BUILD: another build folder, e.g. a copy of
# build/ made first, so that the binaries under test do not change while
# you rebuild).
set -uo pipefail
minutes=${1:?usage: soak.sh MINUTES [STARTS]}
starts=${2:-40}
# Slurm's PMIx fence algorithm for the bare srun starts (SOAK_FENCE= for
# Slurm's default, which the crash needed: deploy/README.md)
fence=${SOAK_FENCE-tree}
root=$(pwd)
build=$(realpath -m "${SOAK_BUILD:-$root/build}")  # a copy keeps the loop's binaries still while you build
bin=$build/bin
out=$(realpath -m "${SOAK_OUT:-$build/soak}")
cl=$root/tests/cluster/cluster.sh
mkdir -p "$out"
ulimit -c unlimited
export OPENBLAS_NUM_THREADS=1 IRCG_BUILD_DIR=$build
end=$(( $(date +%s) + minutes * 60 ))
cycle=0
tot_runs=0 tot_fail=0 tot_died=0 tot_starts=0 tot_bad=0 tot_crash=0 tot_cores=0

# Each core file under dir: its backtrace into OUT, the file removed.
keep_cores() {
    local dir=$1 tag=$2 c n=0
    while IFS= read -r c; do
        n=$((n + 1))
        gdb -batch -ex 'thread apply all bt' "$bin/ircg-mpi" "$c" > "$out/$tag.core$n.bt" 2>&1
        rm -f "$c"
    done < <(find "$dir" -name 'core*' -type f 2>/dev/null)
    echo "$n"
}

spec=$out/start.json
cat > "$spec" <<'EOF'
{"problem": {"type": "matrix_completion", "delta": 5, "data": {"source": "synthetic",
 "n_rows": 400, "n_cols": 100, "n_ratings": 8000, "seed": 3}},
 "algorithm": {"name": "ircg", "max_iter": 2}}
EOF

while (( $(date +%s) < end )); do
    cycle=$((cycle + 1))
    log=$out/cycle$cycle.suites.log
    marker=$out/.mark$cycle
    touch "$marker"
    # 1. the suites, their folders kept for the daemons' logs (IRCG_TMPDIR: this
    # loop's own, never another run's)
    tmp=$out/tmp$cycle
    mkdir -p "$tmp"
    IRCG_TMPDIR=$tmp IRCG_KEEP_TMP=1 "$root/tests/cluster/run.sh" "$bin/run_cluster_tests" \
        cluster_slurm. cluster_http. > "$log" 2>&1
    rc=$?
    fails=$(grep -c '^FAIL ' "$log")
    dirs=$(echo "$tmp"; find "$build/cluster-tmp" -maxdepth 1 -name 'run-*' -newer "$marker" 2>/dev/null)
    died=0
    for d in $dirs; do
        # not the daemon of rank_dead_at_its_start_is_launched_again,
        # whose wrapper kills a rank at its start on purpose
        k=$(find "$d" -name ircgd.log -not -path '*/cluster_slurm_start/*' -exec \
              grep -h 'died at their start' {} + 2>/dev/null | tee -a "$out/cycle$cycle.died" | wc -l)
        died=$((died + k))
        grep -rh -A40 'ircg-mpi crash:' --include='*.log' "$d" >> "$out/cycle$cycle.crash" 2>/dev/null
        c=$(keep_cores "$d" "cycle$cycle.suite")
        tot_cores=$((tot_cores + c))
        rm -rf "$d"
    done
    rm -f "$marker"
    tot_runs=$((tot_runs + 1)); tot_fail=$((tot_fail + fails)); tot_died=$((tot_died + died))
    grep '^FAIL \|passed, ' "$log" | sed "s/^/cycle $cycle suites (exit $rc): /" >> "$out/failures"

    # 2. bare launches
    bad=0 crash=0 cores=0
    work=$build/cluster-tmp/soak-$cycle
    mkdir -p "$work"
    if "$cl" up 4 > "$work/up.log" 2>&1 && "$cl" slurm-up >> "$work/up.log" 2>&1; then
        printf '%s slots=1\n' $(for k in 1 2 3 4; do "$cl" name $k; done) > "$work/hosts"
        for ((i = 1; i <= starts; i++)); do
            dir=$work/s$i
            mkdir -p "$dir"
            if (( i % 2 )); then
                ( cd "$dir" && env ${fence:+SLURM_PMIX_FENCE=$fence} OMPI_MCA_btl=tcp,self \
                    OMPI_MCA_btl_tcp_if_include=198.18.29.0/24 \
                    OMPI_MCA_mpi_yield_when_idle=1 /run/ircg-cluster/bin/srun --mpi=pmix \
                    --kill-on-bad-exit=1 --ntasks-per-node=1 --chdir="$dir" -n 4 \
                    "$bin/ircg-mpi" "$spec" --quiet > "$dir/out" 2>&1 )
            else
                ( cd "$dir" && "$cl" exec "$("$cl" name 1)" mpirun --allow-run-as-root -np 4 \
                    --hostfile "$work/hosts" --mca plm_rsh_agent "$cl agent" \
                    --mca btl tcp,self --mca btl_tcp_if_include 198.18.29.0/24 \
                    --mca oob_tcp_if_include 198.18.29.0/24 --mca mpi_yield_when_idle 1 \
                    --bind-to none -x OPENBLAS_NUM_THREADS "$bin/ircg-mpi" "$spec" --quiet \
                    > "$dir/out" 2>&1 )
            fi
            st=$?
            c=$(keep_cores "$dir" "cycle$cycle.start$i")
            cores=$((cores + c))
            if [ "$st" != 0 ] || [ "$c" != 0 ] || grep -q 'ircg-mpi crash:' "$dir/out"; then
                bad=$((bad + 1))
                grep -q 'ircg-mpi crash:' "$dir/out" && crash=$((crash + 1))
                { echo "== cycle $cycle start $i ($((i % 2)) = srun) exit $st"; cat "$dir/out"; } >> "$out/starts.bad"
            fi
        done
    else
        echo "cycle $cycle: hosts or Slurm did not come up" >> "$out/failures"
        cat "$work/up.log" >> "$out/failures"
    fi
    "$cl" down > /dev/null 2>&1
    rm -rf "$work"
    tot_starts=$((tot_starts + starts)); tot_bad=$((tot_bad + bad))
    tot_crash=$((tot_crash + crash)); tot_cores=$((tot_cores + cores))
    echo "$(date -u +%FT%TZ) cycle $cycle: suites exit $rc, $fails failed, $died died-at-start" \
         "relaunches; $starts bare starts, $bad bad, $crash crash reports, $cores cores" \
         >> "$out/counts"
done
echo "total: $tot_runs suite runs, $tot_fail failed tests, $tot_died died-at-start relaunches;" \
     "$tot_starts bare starts, $tot_bad bad, $tot_crash crash reports; $tot_cores cores" \
     | tee -a "$out/counts"
