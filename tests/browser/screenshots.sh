#!/bin/sh
# screenshots.sh IRCGD OUT_DIR -- starts IRCGD on a free loopback port with
# a fresh store, runs screenshots.mjs (headless chromium) against it, stops
# it.  The PNGs land in OUT_DIR.
set -eu
ircgd=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
mkdir -p "$out"
OPENBLAS_NUM_THREADS=1 "$ircgd" --listen 127.0.0.1:0 --db "$work/ircg.db" \
    --data-dir "$work/data" --workers 2 >"$work/out" 2>"$work/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q '^listening on' "$work/out" && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' "$work/out")
[ -n "$base" ] || { cat "$work/log"; exit 1; }
node "$here/screenshots.mjs" "$base" "$out"
