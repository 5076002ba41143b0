#!/usr/bin/env bash
# image_test.sh IMAGE -- smoke test of the ircgd container image.
#
# ircgd from the image, as the image declares it (its entrypoint, user,
# environment), with a read-only root, a tmpfs on /tmp and a host
# directory as the volume /var/lib/ircg:
#   - the image runs as a non-root user, declares the volume and a
#     HEALTHCHECK, and holds no MovieLens file;
#   - the daemon serves (/healthz, and `ircgd --healthcheck` from the image);
#   - it takes a job (`ircg example least-norm` from the image) and
#     finishes it; the root filesystem cannot be written;
#   - SIGTERM stops it with status 0; the database is on the volume (owned
#     by the image's user, mode 0600) and a restarted daemon still has the
#     job and its result.
# Where containers run (docker, or podman as root), it uses `run`; where
# they cannot (sandboxes refuse `podman run`), it says so and runs the
# image's own files under chroot in a private mount namespace instead
# (podman image mount, bind mounts, chroot --userspec).  Needs root for
# that, curl on the host, and podman or docker.  Ends with
# "N passed, N failed, N skipped".
set -uo pipefail
IMAGE=${1:?usage: image_test.sh IMAGE}
passed=0 failed=0 skipped=0
ok()   { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "skip $*"; skipped=$((skipped + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
summary() { echo "$passed passed, $failed failed, $skipped skipped"; }

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    ENGINE=docker
elif command -v podman >/dev/null 2>&1; then
    ENGINE=podman
else
    echo "image_test: neither docker nor podman is installed (make deps-image)"
    fail "a container engine"; summary; exit 1
fi
if ! $ENGINE image inspect "$IMAGE" >/dev/null 2>&1; then
    fail "image $IMAGE exists (make image)"; summary; exit 1
fi
WORK=$(mktemp -d /tmp/ircg-image-test.XXXXXX)
VOL=$WORK/volume
T0=$(date +%s)

inspect() { $ENGINE image inspect --format "$1" "$IMAGE"; }
USERSPEC=$(inspect '{{.Config.User}}')
mapfile -t IMG_ENV < <(inspect '{{range .Config.Env}}{{println .}}{{end}}' | grep .)
ENTRY=$(inspect '{{range .Config.Entrypoint}}{{.}} {{end}}')
ENTRY=${ENTRY% }

# ------------------------------------------------------------ the runners
# Both runners give: img_root (a directory with the image's files, for
# find), run_img CMD... (a command from the image, read-only root),
# start_daemon (ircgd in the background; sets BASE) and stop_daemon
# (SIGTERM; returns ircgd's exit status).

MODE=container
probe=$($ENGINE run --rm --network host --entrypoint /usr/local/bin/ircgd "$IMAGE" --version 2>&1)
if [ $? -ne 0 ]; then
    MODE=chroot
    skip "$ENGINE run: refused here ($(echo "$probe" | tail -1)); the image's files run under chroot instead"
fi

if [ "$MODE" = container ]; then
    CTR=ircg-image-test-$$
    img_root() {
        [ -d "$WORK/rootfs" ] || { mkdir "$WORK/rootfs"; $ENGINE create --name "$CTR-fs" "$IMAGE" >/dev/null &&
            $ENGINE export "$CTR-fs" | tar -C "$WORK/rootfs" -x; $ENGINE rm "$CTR-fs" >/dev/null; }
        echo "$WORK/rootfs"
    }
    run_img() { $ENGINE run --rm --read-only --tmpfs /tmp --network host -v "$VOL:/var/lib/ircg" \
                    --entrypoint "$1" "$IMAGE" "${@:2}"; }
    start_daemon() {
        $ENGINE run -d --name "$CTR" --read-only --tmpfs /tmp --network host \
            -v "$VOL:/var/lib/ircg" -e IRCGD_LISTEN=127.0.0.1:0 "$IMAGE" >/dev/null || return 1
        wait_listening "$ENGINE logs $CTR"
    }
    stop_daemon() {
        $ENGINE stop -t 60 "$CTR" >/dev/null
        local rc; rc=$($ENGINE inspect --format '{{.State.ExitCode}}' "$CTR")
        $ENGINE logs "$CTR" > "$WORK/ircgd.log.$RUNS" 2>&1; $ENGINE rm "$CTR" >/dev/null
        return "$rc"
    }
else
    [ "$(id -u)" -eq 0 ] || { fail "chroot mode needs root"; summary; exit 1; }
    ROOT=$(podman image mount "$IMAGE" 2>/dev/null) || {
        ROOT=$WORK/rootfs; mkdir "$ROOT"
        ctr=$(podman create "$IMAGE") && podman export "$ctr" | tar -C "$ROOT" -x
        podman rm "$ctr" >/dev/null; }
    MNT=$WORK/mnt; mkdir "$MNT"
    img_root() { echo "$ROOT"; }
    # In a private mount namespace (gone with its last process): the image
    # read-only, the volume, /tmp, /proc and /dev, then chroot as the
    # image's user with only the image's environment.
    in_image() {
        local extra_env=$1; shift
        exec unshare --mount --propagation private -- bash -c '
            set -e; root=$1 vol=$2 mnt=$3 user=$4 extra=$5; shift 5
            mount --bind "$root" "$mnt"; mount -o remount,bind,ro "$mnt"
            mount --bind "$vol" "$mnt/var/lib/ircg"
            mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
            mount -t proc proc "$mnt/proc"; mount --rbind /dev "$mnt/dev"
            mapfile -t env < <(printf "%s" "$IMG_ENV_TEXT")
            exec chroot --userspec="$user" "$mnt" /usr/bin/env -i "${env[@]}" $extra "$@"
        ' in_image "$ROOT" "$VOL" "$MNT" "$USERSPEC" "$extra_env" "$@"
    }
    export IMG_ENV_TEXT; IMG_ENV_TEXT=$(printf '%s\n' "${IMG_ENV[@]}")
    run_img() { ( in_image "" "$@" ); } # in_image execs: keep it in a subshell
    start_daemon() {
        in_image "IRCGD_LISTEN=127.0.0.1:0" $ENTRY > "$WORK/out.$RUNS" 2> "$WORK/ircgd.log.$RUNS" &
        PID=$!
        wait_listening "cat $WORK/out.$RUNS"
    }
    stop_daemon() {
        kill -TERM "$PID"
        local i; for i in $(seq 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        wait "$PID"
    }
fi

# Waits (30 s) for "listening on http://HOST:PORT" in the output of $1.
wait_listening() {
    local i line
    for i in $(seq 300); do
        line=$(eval "$1" 2>/dev/null | grep -m1 -o 'listening on http[s]*://[^ ]*')
        if [ -n "$line" ]; then BASE=${line#listening on }; return 0; fi
        sleep 0.1
    done
    return 1
}

cleanup() {
    [ "$MODE" = container ] && { $ENGINE rm -f "$CTR" >/dev/null 2>&1; }
    [ "$MODE" = chroot ] && [ -n "${PID:-}" ] && kill -KILL "$PID" 2>/dev/null
    [ "$MODE" = chroot ] && podman image unmount "$IMAGE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

# ------------------------------------------------------------ the checks
echo "image_test: $IMAGE, $MODE mode, user $USERSPEC, entrypoint $ENTRY"
uid=${USERSPEC%%:*}
check "runs as a non-root user ($USERSPEC)" test -n "$uid" -a "$uid" != 0 -a "$uid" != root
check "declares the volume /var/lib/ircg" \
    bash -c "$ENGINE image inspect --format '{{json .Config.Volumes}}' '$IMAGE' | grep -q /var/lib/ircg"
check "has a HEALTHCHECK running ircgd --healthcheck" \
    bash -c "$ENGINE image inspect --format '{{json .Config.Healthcheck}}' '$IMAGE' | grep -q -- --healthcheck"
movielens=$(find "$(img_root)" -xdev \( -name 'ratings.dat*' -o -name 'u.data*' -o -name 'u.item*' \
                 -o -name 'ml-100k*' -o -name 'ml-1m*' \) 2>/dev/null | head -3)
check "holds no MovieLens file${movielens:+: $movielens}" test -z "$movielens"

mkdir -p "$VOL" && chown "$USERSPEC" "$VOL" && chmod 0700 "$VOL"
RUNS=1
if ! start_daemon; then
    fail "ircgd from the image starts (log: $(tail -3 "$WORK/ircgd.log.1" 2>/dev/null))"
    summary; exit 1
fi
ok "ircgd from the image serves at $BASE (read-only root, volume $VOL)"
check "GET /healthz is 200" curl -fsS -o /dev/null "$BASE/healthz"
port=${BASE##*:}
hc=$(run_img /usr/local/bin/ircgd --healthcheck --listen "127.0.0.1:$port" 2>&1)
check "ircgd --healthcheck from the image says $hc" test "$hc" = healthy
run_img /usr/bin/touch /usr/local/bin/x 2>/dev/null; rc=$?
check "the root filesystem is read-only (touch: status $rc)" test "$rc" -ne 0

spec=$(run_img /usr/local/bin/ircg example least-norm)
resp=$(curl -sS -X POST -H 'Content-Type: application/json' --data-binary "$spec" "$BASE/v1/jobs")
id=$(printf '%s' "$resp" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
check "POST /v1/jobs takes ircg example least-norm (job ${id:-none})" test -n "$id"
state=""
for i in $(seq 1200); do
    state=$(curl -sS "$BASE/v1/jobs/$id" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')
    case $state in succeeded|failed|cancelled) break ;; esac
    sleep 0.1
done
check "the job finishes: $state" test "$state" = succeeded
result=$(curl -sS "$BASE/v1/jobs/$id/result")
check "its result: $(printf '%s' "$result" | grep -o '"status":"[a-z_]*"' | head -1)" \
    grep -q '"iterations"' <<< "$result"
stop_daemon; rc=$?
check "SIGTERM stops it with status 0 (got $rc)" test "$rc" -eq 0

check "the database is on the volume: $(stat -c '%n %U(%u) %a' "$VOL/jobs.db" 2>&1)" \
    test "$(stat -c '%u %a' "$VOL/jobs.db" 2>/dev/null)" = "$uid 600"
check "the data directory is on the volume, mode 700" \
    test "$(stat -c '%a' "$VOL/data" 2>/dev/null)" = 700

RUNS=2
if start_daemon; then
    state=$(curl -sS "$BASE/v1/jobs/$id" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')
    check "after a restart on the same volume the job is still there: $state" test "$state" = succeeded
    check "and so is its result" grep -q '"iterations"' <<< "$(curl -fsS "$BASE/v1/jobs/$id/result")"
    stop_daemon; rc=$?
    check "the second run stops with status 0 (got $rc)" test "$rc" -eq 0
else
    fail "ircgd restarts on the same volume"
fi
echo "image_test: $(( $(date +%s) - T0 )) s"
summary
[ "$failed" -eq 0 ]
