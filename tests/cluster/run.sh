#!/usr/bin/env bash
# tests/cluster/run.sh RUNNER [TESTS...] -- the cluster tests, then the
# fixture's `down` whatever happened to them (a crash, a signal): nothing
# they made outlives the run.  The runner's exit status is the script's.
here=$(dirname "$(readlink -f "$0")")
trap '"$here/cluster.sh" down' EXIT
trap 'exit 130' INT TERM
"$@"
