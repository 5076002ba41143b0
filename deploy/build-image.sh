#!/usr/bin/env bash
# build-image.sh -- `make image`: builds deploy/Dockerfile with docker (when
# its engine answers), else podman, else buildah, and reports the build
# time and the image size.  Run from the repository root.
#
# Environment:
#   IMAGE       the tag to build                    (localhost/ircgd:latest)
#   BASE_IMAGE  the Dockerfile's base; empty = its pinned digest when it can
#               be pulled, else a local base made with debootstrap
#   RUN_TESTS   1 = `make test` inside the build stage (default), 0 = skip
#   DEBIAN_MIRROR  for debootstrap (default: the first URI of apt's
#               debian.sources, else http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/ircgd:latest}
RUN_TESTS=${RUN_TESTS:-1}
LOCAL_BASE=localhost/ircg-base:bookworm
PINNED=$(sed -n 's/^ARG BASE_IMAGE=//p' deploy/Dockerfile)

say() { echo "build-image: $*"; }

engine() {
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
        echo docker
    elif command -v podman >/dev/null 2>&1; then
        echo podman
    elif command -v buildah >/dev/null 2>&1; then
        echo buildah
    else
        say "no container engine: install docker, or podman/buildah (make deps-image)" >&2
        return 1
    fi
}

have_image() {
    case $1 in
        docker) docker image inspect "$2" >/dev/null 2>&1 ;;
        *) podman image exists "$2" 2>/dev/null || buildah inspect "$2" >/dev/null 2>&1 ;;
    esac
}

pull() {
    case $1 in
        docker) timeout 120 docker pull -q "$2" ;;
        podman) timeout 120 podman pull -q "$2" ;;
        buildah) timeout 120 buildah pull -q "$2" ;;
    esac
}

mirror() {
    local m
    m=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
        grep -v security | head -1 || true)
    echo "${DEBIAN_MIRROR:-${m:-http://deb.debian.org/debian}}"
}

# A base equivalent to debian:bookworm-slim without a registry: a minbase
# debootstrap, trimmed as the slim images are (no docs, man pages, locales,
# apt lists), imported as $LOCAL_BASE.  Kept for later builds.
local_base() {
    local eng=$1 dir
    if have_image "$eng" "$LOCAL_BASE"; then
        say "using the local base $LOCAL_BASE (made earlier)"
        return
    fi
    command -v debootstrap >/dev/null || { say "debootstrap is missing (make deps-image)" >&2; exit 1; }
    dir=$(mktemp -d)
    say "debootstrap --variant=minbase bookworm from $(mirror)"
    debootstrap --variant=minbase bookworm "$dir" "$(mirror)" > "$dir.log" 2>&1 ||
        { tail -20 "$dir.log" >&2; exit 1; }
    rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* \
           "$dir"/usr/share/locale/* "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/* \
           "$dir"/var/log/* "$dir.log"
    case $eng in
        docker) tar -C "$dir" -c . | docker import - "$LOCAL_BASE" >/dev/null ;;
        *) tar -C "$dir" -c . | podman import - "$LOCAL_BASE" >/dev/null ;;
    esac
    rm -rf "$dir"
    say "imported $LOCAL_BASE"
}

choose_base() {
    local eng=$1
    if [ -n "${BASE_IMAGE:-}" ]; then
        echo "$BASE_IMAGE"
    elif have_image "$eng" "$PINNED" || pull "$eng" "$PINNED" >/dev/null 2>&1; then
        echo "$PINNED"
    else
        say "cannot pull $PINNED (no registry?): building a local base" >&2
        local_base "$eng" >&2
        echo "$LOCAL_BASE"
    fi
}

size_of() {
    case $1 in
        docker) docker image inspect --format '{{.Size}}' "$2" ;;
        *) podman image inspect --format '{{.Size}}' "$2" ;;
    esac
}

main() {
    local eng base t0 t1 args
    eng=$(engine)
    base=$(choose_base "$eng")
    args=(--build-arg "BASE_IMAGE=$base" --build-arg "RUN_TESTS=$RUN_TESTS"
          -f deploy/Dockerfile -t "$IMAGE")
    say "$eng build, base $base, RUN_TESTS=$RUN_TESTS"
    t0=$(date +%s)
    case $eng in
        docker) docker build "${args[@]}" . ;;
        # chroot isolation builds inside sandboxes and containers too; the
        # docker format keeps the HEALTHCHECK (OCI images have none)
        podman) podman build --isolation chroot --format docker "${args[@]}" . ;;
        buildah) buildah bud --isolation chroot --format docker "${args[@]}" . ;;
    esac
    t1=$(date +%s)
    local bytes
    bytes=$(size_of "$eng" "$IMAGE")
    say "built $IMAGE in $((t1 - t0)) s; size $((bytes / 1000000)) MB ($bytes bytes)"
}

main "$@"
