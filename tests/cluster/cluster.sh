#!/usr/bin/env bash
# tests/cluster/cluster.sh -- hosts on one machine for the cluster tests
# (tests/cluster/README.md): each host a network namespace with loopback
# and a veth link to a bridge, its own UTS name (its host name), and at
# every entry a mount namespace of its own in which /dev/shm and /tmp are
# the host's (no two hosts share memory or temporary files); addresses in
# 198.18.0.0/15 (RFC 2544's benchmarking range: never routed) on those
# links only.  The bridge has no address: the machine's own namespace
# cannot reach the hosts, nor they it.
#
#   cluster.sh check            exit 0 when hosts can be made here, else 77
#                               and the reason on stdout
#   cluster.sh up N             (re)makes hosts 1..N (2 <= N <= 8)
#   cluster.sh down             ends every process inside the hosts and
#                               removes what `up` made (also a stale run's)
#   cluster.sh exec HOST CMD... CMD inside HOST (exec: same process, so a
#                               signal to it reaches CMD); Open MPI's rsh
#                               agent when CMD is one shell string
#   cluster.sh agent HOST CMD   Open MPI's plm_rsh_agent: CMD run by sh -c
#   cluster.sh pids HOST        the ids of every process inside HOST
#   cluster.sh kill HOST        SIGKILL to every process inside HOST, until
#                               none is left
#   cluster.sh cut HOST         HOST's link down (its veth, the bridge side)
#   cluster.sh mend HOST        HOST's link up again
#   cluster.sh name K           the name of host K
#   cluster.sh addr K           the address of host K
#   cluster.sh slurm-up         munged, slurmctld (host 1) and one slurmd per
#                               host, each inside its host, with a generated
#                               slurm.conf; wrappers of srun, sbatch,
#                               scancel, scontrol, sinfo and squeue in
#                               $RUN/bin run them from host 1 (a login node)
#
# Environment: IRCG_CLUSTER_PREFIX (host names PREFIX1.., default
# ircg-node), IRCG_CLUSTER_RUN (state, default /run/ircg-cluster).  One run
# at a time: `up` and `down` hold $RUN.lock.
set -euo pipefail

PREFIX=${IRCG_CLUSTER_PREFIX:-ircg-node}
RUN=${IRCG_CLUSTER_RUN:-/run/ircg-cluster}
NET=198.18.29      # /24 on the test links only
BR=ircgbr-${PREFIX: -4}
BR=${BR:0:15}
SELF=$(readlink -f "$0")

name() { echo "$PREFIX$1"; }
addr() { echo "$NET.$1"; }
veth() { local v="ircgv-${PREFIX: -4}$1"; echo "${v:0:15}"; }
index_of() { # host name -> K
    local h=$1
    [[ $h == "$PREFIX"* ]] || { echo "cluster.sh: $h is not a host of this cluster" >&2; exit 2; }
    echo "${h#"$PREFIX"}"
}

die() { echo "cluster.sh: $*" >&2; exit 1; }

# Whether namespaces can be made here; the reason when not.
check() {
    local need
    for need in ip unshare nsenter mount flock; do
        command -v "$need" >/dev/null || { echo "no $need (make deps installs iproute2, util-linux)"; return 77; }
    done
    local eff
    eff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
    if (( (0x$eff >> 21 & 1) == 0 )); then
        echo "no CAP_SYS_ADMIN: network, UTS and mount namespaces cannot be made"; return 77
    fi
    if (( (0x$eff >> 12 & 1) == 0 )); then
        echo "no CAP_NET_ADMIN: veth links and a bridge cannot be made"; return 77
    fi
    # a real attempt: a container may hold the capabilities and still refuse
    if ! unshare --net --uts --mount true 2>/dev/null; then
        echo "unshare --net --uts --mount is refused here (a sandbox without namespaces)"; return 77
    fi
    if ! ip link add ircgprobe0 type bridge 2>/dev/null; then
        echo "ip link add refused: links cannot be made here"; return 77
    fi
    ip link del ircgprobe0
    return 0
}

# Inside host H: its network and UTS namespaces, and a mount namespace of
# its own made at each entry, in which /dev/shm is the host's (a tmpfs of
# its own) and /etc/hosts names the cluster's hosts.  Made afresh rather
# than kept: a host's kept mount namespace would not see the namespace
# files of the hosts made after it, and Open MPI's daemons start the next
# ones from inside a host (--tree-spawn).  Every step execs: the command
# keeps this process's id, so a signal to it reaches the command.
enter() {
    local h=$1; shift
    [[ -e /run/netns/$h && -e $RUN/ns/$h.uts && -d $RUN/host/$h ]] || die "no host $h (cluster.sh up)"
    exec nsenter --net="/run/netns/$h" --uts="$RUN/ns/$h.uts" -- \
        unshare --mount --propagation private -- /bin/sh -c \
        'mount --bind "$0/shm" /dev/shm && mount --bind "$0/tmp" /tmp &&
         mount --bind "$1" /etc/hosts && shift && exec "$@"' \
        "$RUN/host/$h" "$RUN/etc/hosts" "$@"
}

make_host() {
    local k=$1 h v
    h=$(name "$k"); v=$(veth "$k")
    echo "$h" >> "$RUN/made"
    ip netns add "$h"
    touch "$RUN/ns/$h.uts"
    unshare --uts="$RUN/ns/$h.uts" hostname "$h"
    # the host's /dev/shm (a tmpfs) and /tmp, which no other host sees
    mkdir -p "$RUN/host/$h/shm" "$RUN/host/$h/tmp"
    chmod 1777 "$RUN/host/$h/tmp"
    mount -t tmpfs -o size=256m,mode=1777 "ircg-shm-$h" "$RUN/host/$h/shm"
    ip link add "$v" type veth peer name eth0 netns "$h"
    ip link set "$v" master "$BR" up
    ip -n "$h" link set lo up
    ip -n "$h" addr add "$(addr "$k")/24" dev eth0
    ip -n "$h" link set eth0 up
}

# /etc/hosts inside every host (bound by `enter`; the machine's file is
# untouched): a host knows the others by name, as a cluster's DNS would say.
write_hosts() {
    local n=$1 k
    mkdir -p "$RUN/etc"
    {
        echo "127.0.0.1 localhost"
        for ((k = 1; k <= n; k++)); do echo "$(addr "$k") $(name "$k")"; done
    } > "$RUN/etc/hosts"
}

# Whether host H reaches address A: a TCP connection to a closed port
# refused (not timed out) came back from A's host (no ping needed).
reaches() {
    local said
    said=$(ip netns exec "$1" timeout 2 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 || true)
    [[ $said == *refused* ]]
}

up() {
    local n=${1:-4} k
    [[ $n =~ ^[0-9]+$ ]] && (( n >= 2 && n <= 8 )) || die "up wants 2..8 hosts, not $n"
    local why
    why=$(check) || { echo "$why"; exit 77; }
    down_unlocked
    mkdir -p "$RUN/ns" "$RUN/host"
    mount --bind "$RUN/ns" "$RUN/ns"
    mount --make-private "$RUN/ns"
    : > "$RUN/made"
    echo "bridge $BR" >> "$RUN/made"
    ip link add "$BR" type bridge
    ip link set "$BR" up
    for ((k = 1; k <= n; k++)); do make_host "$k"; done
    write_hosts "$n"
    for ((k = 1; k <= n; k++)); do name "$k"; done > "$RUN/hosts"
    # every host reaches every other before anyone starts there
    for ((k = 2; k <= n; k++)); do
        local tries=0
        until reaches "$(name 1)" "$(addr "$k")"; do
            (( ++tries < 20 )) || die "host $(name 1) cannot reach $(addr "$k")"
            sleep 0.1
        done
    done
    echo "$n hosts up: $(tr '\n' ' ' < "$RUN/hosts")"
}

kill_host() {
    local h=$1 pids tries=0
    [[ -e /run/netns/$h ]] || return 0
    while pids=$(ip netns pids "$h" 2>/dev/null) && [[ -n $pids ]]; do
        # shellcheck disable=SC2086
        kill -9 $pids 2>/dev/null || true
        (( ++tries < 100 )) || { echo "cluster.sh: processes survive in $h: $pids" >&2; return 1; }
        sleep 0.05
    done
}

# Everything `up` made, as recorded (and the hosts' files of a stale run).
down_unlocked() {
    local h rc=0
    [[ -d $RUN ]] || return 0
    if [[ -f $RUN/made ]]; then
        while read -r h; do
            [[ $h == bridge\ * ]] && continue
            kill_host "$h" || rc=1
        done < "$RUN/made"
        while read -r h; do
            if [[ $h == bridge\ * ]]; then
                ip link del "${h#bridge }" 2>/dev/null || true
                continue
            fi
            ip link del "$(veth "$(index_of "$h")")" 2>/dev/null || true
            ip netns del "$h" 2>/dev/null || true
        done < "$RUN/made"
    fi
    # every mount under $RUN (the namespace files, the hosts' /dev/shm),
    # deepest first; nothing is removed while one stays
    local m
    for m in $(findmnt -rn -o TARGET | grep "^$RUN/" | sort -r); do
        umount "$m" 2>/dev/null || true
    done
    if findmnt -rn -o TARGET | grep "^$RUN\(/\|$\)" >/dev/null; then
        echo "cluster.sh: mounts remain under $RUN: $(findmnt -rn -o TARGET | grep "^$RUN")" >&2
        return 1
    fi
    rm -rf --one-file-system "$RUN"
    return $rc
}

down() {
    down_unlocked
}

locked() {
    exec 9>"$RUN.lock"
    flock -w 600 9 || die "another cluster run holds $RUN.lock"
    "$@"
}

# ------------------------------------------------------------- Slurm --

# One munged (host 1; its socket is a file every host sees), slurmctld on
# host 1, one slurmd per host with -N its name.  Cgroup-free plugins
# (proctrack/linuxproc, task/none): a namespace is not a machine of its own
# to cgroups.  Short timeouts, so a lost node is noticed in seconds.
slurm_conf() {
    local n=$1 k
    cat <<EOF
# generated by tests/cluster/cluster.sh slurm-up
ClusterName=ircgtest
SlurmctldHost=$(name 1)($(addr 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$RUN/munge/munge.socket.2
StateSaveLocation=$RUN/slurm/state
SlurmdSpoolDir=$RUN/slurm/spool-%n
SlurmctldPidFile=$RUN/slurm/slurmctld.pid
SlurmdPidFile=$RUN/slurm/slurmd-%n.pid
SlurmctldLogFile=$RUN/slurm/slurmctld.log
SlurmdLogFile=$RUN/slurm/slurmd-%n.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=1
SlurmdTimeout=10
SlurmctldTimeout=10
MessageTimeout=5
KillWait=5
InactiveLimit=0
MinJobAge=600
NodeName=$(name 1) NodeAddr=$(addr 1) CPUs=2 State=UNKNOWN
EOF
    for ((k = 2; k <= n; k++)); do
        echo "NodeName=$(name "$k") NodeAddr=$(addr "$k") CPUs=2 State=UNKNOWN"
    done
    echo "PartitionName=ircg Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
}

# $RUN/bin: the Slurm commands as a login node runs them (host 1, the
# generated configuration).
slurm_wrappers() {
    local c
    mkdir -p "$RUN/bin"
    for c in srun sbatch scancel scontrol sinfo squeue; do
        cat > "$RUN/bin/$c" <<EOF
#!/bin/sh
export SLURM_CONF=$RUN/slurm/slurm.conf
exec "$SELF" exec $(name 1) /usr/bin/$c "\$@"
EOF
        chmod 755 "$RUN/bin/$c"
    done
}

slurm_up() {
    local n k h tries=0
    [[ -f $RUN/hosts ]] || die "no hosts (cluster.sh up)"
    n=$(wc -l < "$RUN/hosts")
    for c in munged slurmctld slurmd srun; do
        command -v "$c" >/dev/null || { echo "no $c (make deps installs munge and slurm-wlm)"; exit 77; }
    done
    mkdir -p "$RUN/munge" "$RUN/slurm/state"
    chmod 700 "$RUN/munge"
    dd if=/dev/urandom of="$RUN/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$RUN/munge/munge.key"
    slurm_conf "$n" > "$RUN/slurm/slurm.conf"
    slurm_wrappers
    "$SELF" exec "$(name 1)" munged --force --key-file="$RUN/munge/munge.key" \
        --socket="$RUN/munge/munge.socket.2" --pid-file="$RUN/munge/munged.pid" \
        --log-file="$RUN/munge/munged.log" --seed-file="$RUN/munge/munged.seed"
    export SLURM_CONF=$RUN/slurm/slurm.conf
    "$SELF" exec "$(name 1)" slurmctld -i
    for ((k = 1; k <= n; k++)); do
        h=$(name "$k")
        mkdir -p "$RUN/slurm/spool-$h"
        "$SELF" exec "$h" slurmd -N "$h"
    done
    until [[ $("$RUN/bin/sinfo" -h -o '%D %t' 2>/dev/null | awk '$2 == "idle" {s += $1} END {print s + 0}') == "$n" ]]; do
        (( ++tries < 150 )) || { "$RUN/bin/sinfo" >&2 || true; die "slurm's nodes are not idle after 30 s"; }
        sleep 0.2
    done
    echo "slurm up: $n nodes idle"
}

cmd=${1:-}
shift || true
case $cmd in
check) check ;;
up) locked up "$@" ;;
down) locked down ;;
exec) [[ $# -ge 2 ]] || die "exec HOST CMD..."; enter "$@" ;;
agent) [[ $# -ge 2 ]] || die "agent HOST CMD..."; h=$1; shift; enter "$h" /bin/sh -c "$*" ;;
pids) ip netns pids "$1" ;;
kill) kill_host "$1" ;;
cut) ip link set "$(veth "$(index_of "$1")")" down ;;
mend) ip link set "$(veth "$(index_of "$1")")" up ;;
name) name "$1" ;;
addr) addr "$1" ;;
slurm-up) slurm_up ;;
*) sed -n '2,/^set -euo/p' "$SELF" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
esac
