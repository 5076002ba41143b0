#!/usr/bin/env bash
# loadtest.sh BUILD -- `make loadtest`, a benchmark (not a test): a real
# ircgd with jobs solving, SSE clients attached and submissions arriving
# while wrk asks for job status and job lists; then a burst of concurrent
# submissions.  Prints p50/p99 latency, errors, the daemon's RSS before
# and after, and what the burst lost.  Knobs (environment): LOAD_SECONDS
# (60), LOAD_CONNECTIONS (64), LOAD_SSE (16 SSE clients), LOAD_BURST (500),
# LOAD_WARMUP (10 s of load before the run), LOAD_KEEP (keep the
# daemon's directory and log).
set -u
build=$1
secs=${LOAD_SECONDS:-60} conns=${LOAD_CONNECTIONS:-64} nsse=${LOAD_SSE:-16} burst=${LOAD_BURST:-500}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/ircg-load-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    [ -n "${daemon:-}" ] && kill -TERM "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    [ -n "${LOAD_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

OPENBLAS_NUM_THREADS=1 "$build/bin/ircgd" --listen 127.0.0.1:0 --db "$tmp/jobs.db" \
    --data-dir "$tmp/data" --workers 2 --conn-limit 1024 --per-ip-limit 0 --max-queued 0 \
    >"$tmp/out" 2>"$tmp/log" &
daemon=$!
for _ in $(seq 100); do grep -q listening "$tmp/out" && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' "$tmp/out")
[ -n "$base" ] || { echo "ircgd did not start"; cat "$tmp/log"; exit 1; }

submit() { # spec [extra curl args] -> prints the status, the id into $tmp/last
    curl -s -o "$tmp/resp" -w '%{http_code}' -H 'Content-Type: application/json' "${@:2}" \
         --data-binary "$1" "$base/v1/jobs"
    sed -n 's/.*"id":"\(j_[0-9a-z]*\)".*/\1/p' "$tmp/resp" >"$tmp/last"
}
long='{"problem":{"type":"least_squares","data":{"source":"synthetic","m":200,"n":400,"noise":0,"seed":SEED},"domain":{"type":"l2_ball","radius":100},"outer":{"type":"half_norm_sq"}},"algorithm":{"name":"ircg","max_iter":1000000000,"time_limit":TL},"output":{"trace_every":100}}'
small='{"problem":{"type":"least_squares","data":{"source":"synthetic","m":30,"n":80,"noise":0,"seed":1},"domain":{"type":"l2_ball","radius":8.4},"outer":{"type":"half_norm_sq"}},"algorithm":{"name":"ircg","max_iter":200}}'
tl=$((secs + 60))
for s in 1 2; do submit "$(echo "$long" | sed "s/SEED/$s/; s/TL/$tl/")" >/dev/null; done
job=$(cat "$tmp/last")
for i in $(seq "$nsse"); do
    curl -sN "$base/v1/jobs/$job/events" >/dev/null 2>&1 &
    pids+=($!)
done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$daemon/status"; }

# warm-up (LOAD_WARMUP s, 10): connection threads, the store pool, SQLite's
# page caches and malloc's arenas reach their working size first
wrk -t2 -c"$conns" -d"${LOAD_WARMUP:-10}s" -s "$here/loadtest.lua" "$base" -- "/v1/jobs/$job" \
    >/dev/null 2>&1

# submissions arriving during the run
( ok=0 other=0; end=$((SECONDS + secs))
  while [ $SECONDS -lt $end ]; do
      c=$(submit "$small"); [ "$c" = 202 ] && ok=$((ok + 1)) || other=$((other + 1)); sleep 0.2
  done; echo "$ok $other" >"$tmp/submits" ) &
sub=$!
wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$here/loadtest.lua" "$base" -- "/v1/jobs/$job" \
    >"$tmp/wrk" 2>&1 &
load=$!
# the RSS under load, early and late in the run (between runs the daemon
# gives memory back, which would flatter the comparison)
sleep 5
rss_before=$(rss)
sleep $((secs - 8))
rss_after=$(rss)
wait "$load" "$sub"

# the burst: concurrent submissions, each with its own Idempotency-Key
for i in $(seq "$burst"); do # one transfer each, "next" between them
    [ "$i" -gt 1 ] && echo next
    printf 'url = "%s/v1/jobs"\nheader = "Content-Type: application/json"\nheader = "Idempotency-Key: burst-%d"\ndata-binary = "@%s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
        "$base" "$i" "$tmp/small.json"
done >"$tmp/burst.cfg"
echo "$small" >"$tmp/small.json"
before=$(curl -s "$base/v1/jobs?page_size=1000" | grep -o '"id":"j_' | wc -l)
curl -s --parallel --parallel-max "$burst" -K "$tmp/burst.cfg" >"$tmp/burst" 2>/dev/null
accepted=$(grep -c '^202$' "$tmp/burst")
after=$(curl -s "$base/v1/jobs?page_size=1000" | grep -o '"id":"j_' | wc -l)

p50=$(awk '$1 == "50%" {print $2}' "$tmp/wrk")
p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk")
reqs=$(awk '/requests in/ {print $1}' "$tmp/wrk")
rate=$(awk '/^Requests\/sec/ {print $2}' "$tmp/wrk")
non2xx=$(awk '/Non-2xx/ {print $NF}' "$tmp/wrk")
sockerr=$(sed -n 's/.*Socket errors: //p' "$tmp/wrk")
read -r sub_ok sub_other <"$tmp/submits"
growth=$(awk -v a="$rss_before" -v b="$rss_after" 'BEGIN {printf "%+.1f%%", 100 * (b - a) / a}')
cat <<REPORT
loadtest: ${secs}s, $conns connections (GET job status / job list), $nsse SSE clients, 2 jobs solving
  requests        $reqs ($rate/s)
  latency         p50 $p50, p99 $p99
  errors          non-2xx ${non2xx:-0}, socket ${sockerr:-none}
  submits during  $sub_ok accepted, $sub_other other
  RSS under load  at 5 s ${rss_before} kB, at $((secs - 3)) s ${rss_after} kB ($growth)
  burst           $accepted of $burst accepted; jobs $before -> $after: $((after - before)) created, $((accepted - (after - before))) lost
REPORT
