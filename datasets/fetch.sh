#!/usr/bin/env bash
# datasets/fetch.sh -- `make data`: the data sets of datasets/MANIFEST
# into an output folder (build/data), each from the first of
#   1. the output folder itself (a file already there is kept);
#   2. a local copy (--local DIR, `make data DATA_DIR=DIR`): a file of a
#      `local` line, or a remote file under its base name, its sums checked;
#   3. its publisher, downloaded with curl (--base-url URL replaces the
#      folder of every URL: a mirror, or a test's server), its sums checked.
# --local-only stops after 2 (`make test`: never the network) and only
# says what is missing.  Nothing is written under the output name before
# its checks passed (a temporary name, then mv).
#
#   fetch.sh [--out DIR] [--manifest FILE] [--local DIR] [--base-url URL]
#            [--local-only] [NAME... | all]          (default: ml-100k ml-1m)
#
# Exit status: 0 when every file asked for is there (or --local-only),
# 1 when one could not be had or failed its checks, 2 on a usage error.
set -uo pipefail

out=build/data
manifest=datasets/MANIFEST
local_dir=
base_url=
local_only=0
names=()

usage() { sed -n '2,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --manifest) manifest=$2; shift 2 ;;
    --local) local_dir=$2; shift 2 ;;
    --base-url) base_url=${2%/}; shift 2 ;;
    --local-only) local_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "fetch.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
    esac
done
[ ${#names[@]} -gt 0 ] || names=(ml-100k ml-1m)

say() { echo "make data: $*"; }
fail() { echo "make data: $*" >&2; failed=1; }

[ -f "$manifest" ] && [ -r "$manifest" ] || { echo "make data: no manifest $manifest" >&2; exit 2; }
# kind name src sha256 md5 bytes member output, comments and blanks dropped
mapfile -t lines < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$manifest")
if [ "${names[*]}" = all ]; then
    mapfile -t names < <(printf '%s\n' "${lines[@]}" | awk '$1 == "remote" {print $2}' | uniq)
fi
for n in "${names[@]}"; do
    printf '%s\n' "${lines[@]}" | awk -v n="$n" '$1 == "remote" && $2 == n {f = 1} END {exit !f}' ||
        { echo "make data: no data set '$n' in $manifest (there are:" \
               "$(printf '%s\n' "${lines[@]}" | awk '$1 == "remote" {print $2}' | uniq | xargs))" >&2
          exit 2; }
done
mkdir -p "$out" || exit 1
failed=0

# check FILE SHA256 MD5 BYTES WHAT: 0 when every sum given matches.
check() {
    local file=$1 sha=$2 md5=$3 bytes=$4 what=$5 got
    if [ "$bytes" != - ] && [ "$(stat -c %s "$file")" != "$bytes" ]; then
        fail "$what is $(stat -c %s "$file") bytes, the manifest says $bytes: refused"
        return 1
    fi
    if [ "$sha" != - ]; then
        got=$(sha256sum < "$file" | cut -d' ' -f1)
        [ "$got" = "$sha" ] || { fail "$what has sha256 $got, the manifest says $sha: refused"; return 1; }
    fi
    if [ "$md5" != - ]; then
        got=$(md5sum < "$file" | cut -d' ' -f1)
        [ "$got" = "$md5" ] || { fail "$what has md5 $got, the manifest says $md5: refused"; return 1; }
    fi
    return 0
}

# decompress FILE NAME > stdout, by the suffix of NAME.
decompress() {
    case $2 in
    *.xz) xz -dc "$1" ;;
    *.bz2) bzip2 -dc "$1" ;;
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
    esac
}

# unpack ARCHIVE URL MEMBER > stdout: the member of a zip, else the file
# decompressed.  A member missing under its path is looked for by its base
# name (one match only).
unpack() {
    local archive=$1 url=$2 member=$3 found
    case $url in
    *.zip)
        if ! unzip -Z1 "$archive" "$member" > /dev/null 2>&1; then
            found=$(unzip -Z1 "$archive" 2>/dev/null | grep -E "(^|/)${member##*/}\$")
            if [ -z "$found" ] || [ "$(echo "$found" | wc -l)" -ne 1 ]; then
                echo "make data: ${url##*/} holds no single ${member##*/}:" \
                     "$(unzip -Z1 "$archive" 2>/dev/null | head -20 | xargs)" >&2
                return 1
            fi
            member=$found
        fi
        unzip -p "$archive" "$member" ;;
    *) decompress "$archive" "$url" ;;
    esac
}

# from_local NAME OUTPUT URL SHA MD5 BYTES MEMBER: 0 when a local copy
# gave OUTPUT, 1 when there is none, 2 when one failed its checks.
from_local() {
    local name=$1 output=$2 url=$3 sha=$4 md5=$5 bytes=$6 member=$7 l tmp
    [ -n "$local_dir" ] || return 1
    tmp="$out/.$output.tmp"
    while read -r _ _ src lsha _ lbytes _ _; do
        [ -f "$local_dir/$src" ] || continue
        if ! decompress "$local_dir/$src" "$src" > "$tmp"; then
            rm -f "$tmp"
            fail "cannot decompress the local copy $local_dir/$src"
            return 2
        fi
        check "$tmp" "$lsha" - "$lbytes" "the local copy $local_dir/$src" || { rm -f "$tmp"; return 2; }
        mv "$tmp" "$out/$output" && say "$output from the local copy $local_dir/$src"
        return 0
    done < <(printf '%s\n' "${lines[@]}" | awk -v n="$name" -v o="$output" '$1 == "local" && $2 == n && $8 == o')
    l="$local_dir/${url##*/}"
    [ -f "$l" ] || return 1
    check "$l" "$sha" "$md5" "$bytes" "the local copy $l" || return 2
    unpack "$l" "$url" "$member" > "$tmp" || { rm -f "$tmp"; fail "cannot unpack $l"; return 2; }
    mv "$tmp" "$out/$output" && say "$output from the local copy $l"
}

# download NAME OUTPUT URL SHA MD5 BYTES MEMBER
download() {
    local name=$1 output=$2 url=$3 sha=$4 md5=$5 bytes=$6 member=$7 from err
    local arc="$out/.${url##*/}.download" tmp="$out/.$output.tmp"
    from=${base_url:+$base_url/${url##*/}}
    from=${from:-$url}
    say "$output: downloading $from"
    if ! err=$(curl -fsSL --connect-timeout 20 --retry 1 -o "$arc" "$from" 2>&1); then
        rm -f "$arc"
        fail "cannot download $name from $from (${err:-curl failed}); offline?" \
             "Give a local copy instead: make data DATA_DIR=DIR, DIR holding ${url##*/}$(
             printf '%s\n' "${lines[@]}" | awk -v n="$name" -v o="$output" \
                 '$1 == "local" && $2 == n && $8 == o {printf " or %s", $3}')"
        return
    fi
    if ! check "$arc" "$sha" "$md5" "$bytes" "${url##*/} from $from"; then
        rm -f "$arc"
        return
    fi
    if [ "$sha" = - ]; then
        say "${url##*/}: $(stat -c %s "$arc") bytes, sha256 $(sha256sum < "$arc" | cut -d' ' -f1):" \
            "$manifest has no sha256 of it yet; record these there once you trust this copy"
    fi
    if ! unpack "$arc" "$url" "$member" > "$tmp"; then
        rm -f "$arc" "$tmp"
        fail "cannot unpack ${url##*/}"
        return
    fi
    rm -f "$arc"
    mv "$tmp" "$out/$output" && say "$output from $from"
}

for n in "${names[@]}"; do
    while read -r _ name url sha md5 bytes member output; do
        [ -f "$out/$output" ] && continue
        from_local "$name" "$output" "$url" "$sha" "$md5" "$bytes" "$member"
        case $? in
        0 | 2) continue ;;
        esac
        if [ $local_only = 1 ]; then
            say "$output ($name) is not here: the tests that need it skip" \
                "(make data downloads it; make data DATA_DIR=DIR takes a local copy)"
            continue
        fi
        download "$name" "$output" "$url" "$sha" "$md5" "$bytes" "$member"
    done < <(printf '%s\n' "${lines[@]}" | awk -v n="$n" '$1 == "remote" && $2 == n')
done
exit $failed
