#!/bin/sh
# examples.sh CLI OUT.json -- the examples `CLI example --list` names, each
# as `CLI example NAME` prints it and, when it differs, its --size small
# variant: {"examples":[{"name":..,"size":..,"spec":{..}},..]}.  ircgd
# serves the file at /v1/examples, so the dashboard offers whatever the
# command line offers.  An example that cannot be made here (its data file
# is absent) is left out.
set -eu
cli=$1
out=$2
tmp=$out.tmp
sep=''
printf '{"examples":[' >"$tmp"
for name in $("$cli" example --list); do
    full=$("$cli" example "$name" 2>/dev/null) || continue
    printf '%s{"name":"%s","size":"full","spec":%s}' "$sep" "$name" "$full" >>"$tmp"
    sep=','
    small=$("$cli" example "$name" --size small 2>/dev/null) || continue
    [ "$small" = "$full" ] ||
        printf ',{"name":"%s","size":"small","spec":%s}' "$name" "$small" >>"$tmp"
done
printf ']}\n' >>"$tmp"
mv "$tmp" "$out"
