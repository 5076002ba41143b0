#!/usr/bin/env bash
# unit_check.sh UNIT IRCGD -- the systemd unit against systemd's own tools,
# offline (no running systemd needed; systemd 252 of Debian 12):
#   1. `systemd-analyze verify` on a copy whose ExecStart points at the
#      built daemon: every directive is known and well-formed;
#   2. `systemd-analyze security --offline=true`: the overall exposure must
#      rate "OK" or better (exposure below 5.0, i.e. --threshold=49).
# Prints the score and ends with one summary line; exits 1 on a failure.
# Without systemd-analyze it says so and exits 0 with "skipped" (CI
# installs it: `make deps-unit`).
set -euo pipefail
unit=${1:?usage: unit_check.sh UNIT IRCGD}
ircgd=${2:?usage: unit_check.sh UNIT IRCGD}

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "SKIP unit-check: systemd-analyze not found (apt-get install systemd, or make deps-unit)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
echo "$(systemd-analyze --version | head -1)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# 1. verify: a copy named like the unit, running the binary we built
sed "s|^ExecStart=/usr/local/bin/ircgd|ExecStart=$(realpath "$ircgd")|" "$unit" \
    > "$tmp/$(basename "$unit")"
if systemd-analyze verify "$tmp/$(basename "$unit")" > "$tmp/verify.log" 2>&1 &&
   ! grep -q . "$tmp/verify.log"; then
    echo "ok   systemd-analyze verify $(basename "$unit")"
    passed=$((passed + 1))
else
    echo "FAIL systemd-analyze verify $(basename "$unit"):"
    sed 's/^/    /' "$tmp/verify.log"
    failed=$((failed + 1))
fi

# 2. security: the score, and the rating word systemd gives it
systemd-analyze security --offline=true "$unit" > "$tmp/security.log" 2>&1 || true
score=$(grep -o 'Overall exposure level for .*' "$tmp/security.log" || echo "no score")
echo "     $score"
if systemd-analyze security --offline=true --threshold=49 "$unit" >/dev/null 2>&1 &&
   grep -Eq 'Overall exposure level for .*: [0-9.]+ (PERFECT|SAFE|OK)' "$tmp/security.log"; then
    echo "ok   systemd-analyze security: OK or better"
    passed=$((passed + 1))
else
    echo "FAIL systemd-analyze security: worse than OK; the exposed settings:"
    grep '✗' "$tmp/security.log" | sed 's/^/    /' || true
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
