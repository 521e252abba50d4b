#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying `springsim sweep --emit-slurm`
# and for scripts/slurm-test.sh (docs/SLURM.md).
#
#   scripts/slurm-cluster.sh start    install slurm-wlm and munge from Debian's packages
#                                     if missing, start munged, slurmctld and slurmd, and
#                                     wait until the node is idle; on a running cluster
#                                     it only checks
#   scripts/slurm-cluster.sh status   one line per daemon and the node's state; exit 0
#                                     when all three run and the node answers
#   scripts/slurm-cluster.sh stop     stop the daemons this script started
#
# Needs root, or passwordless sudo, and apt-get (Debian/Ubuntu). Everything the
# cluster keeps (state, spool, logs, pid files) lives under $SPRINGSIM_SLURM_DIR
# (default /tmp/springsim-slurm); the only files written outside it are what the
# packages read: /etc/slurm/slurm.conf (refused if one exists that this script did
# not write) and, if none exists, the munge key /etc/munge/munge.key.
set -euo pipefail

DIR="${SPRINGSIM_SLURM_DIR:-/tmp/springsim-slurm}"
CONF=/etc/slurm/slurm.conf
MARK="# Written by springsim scripts/slurm-cluster.sh: a one-node test cluster."
MUNGE_KEY=/etc/munge/munge.key
MUNGE_PID="$DIR/munge/munged.pid"
WAIT_S="${SPRINGSIM_SLURM_WAIT_S:-60}"

die() {
    echo "slurm-cluster: $*" >&2
    exit 1
}
note() { echo "slurm-cluster: $*" >&2; }

# start and stop need root (status does not): sudo -n when not root
SUDO=""
need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "$1 needs root or sudo"
        sudo -n true 2>/dev/null || die "$1 needs root or passwordless sudo"
        SUDO="sudo -n"
    fi
}

# pid in FILE (readable by anyone) names a live process; /proc rather than kill -0,
# which a user without root cannot send to root's daemons
running() { [ -n "$1" ] && [ -d "/proc/$1" ]; }
alive() { [ -r "$1" ] && running "$(cat "$1")"; }

# 0 when the node answers sinfo with an idle/mixed/allocated state; prints the state
node_state() { sinfo -h -N -o %T 2>/dev/null | head -n 1; }

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
        command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    command -v apt-get >/dev/null || die "slurm is not installed and there is no apt-get"
    local t0 log
    t0=$SECONDS
    log="$(mktemp /tmp/springsim-slurm-apt.XXXXXX)"
    note "installing slurm-wlm and munge (apt-get; log $log)"
    $SUDO apt-get update -qq >"$log" 2>&1 || die "apt-get update failed (log $log)"
    # No recommends: the daemons and clients, not the documentation and the GUI.
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurm-wlm munge >>"$log" 2>&1 || die "apt-get install slurm-wlm munge failed (log $log)"
    note "installed slurm $(slurm_version) in $((SECONDS - t0)) s"
    rm -f "$log"
}

slurm_version() { slurmd -V 2>/dev/null | awk '{print $2}'; }

start_munge() {
    # A munged started by the package's own scripts (or by an earlier run) is kept.
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    if [ ! -s "$MUNGE_KEY" ]; then
        note "writing a munge key to $MUNGE_KEY"
        $SUDO install -d -o munge -g munge -m 0700 /etc/munge
        $SUDO dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none
        $SUDO chown munge:munge "$MUNGE_KEY"
        $SUDO chmod 0400 "$MUNGE_KEY"
    fi
    # Without systemd nobody makes munged's runtime folders.
    $SUDO install -d -o munge -g munge -m 0755 /run/munge
    $SUDO install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    $SUDO install -d -o munge -g munge -m 0755 "$DIR/munge"
    $SUDO runuser -u munge -- munged --pid-file="$MUNGE_PID" ||
        die "munged did not start (see /var/log/munge/munged.log)"
    local i
    for i in $(seq 50); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.1
    done
    die "munged started but munge -n | unmunge fails"
}

write_conf() {
    local host cpus mem_mb
    host="$(hostname -s)"
    cpus="$(nproc)"
    # 95 % of MemTotal: slurmd drains a node that has less memory than it claims.
    mem_mb="$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.95}' /proc/meminfo)"
    if [ -e "$CONF" ] && ! grep -qxF "$MARK" "$CONF"; then
        die "$CONF exists and was not written by this script; not touching it"
    fi
    local tmp
    tmp="$(mktemp)"
    cat >"$tmp" <<EOF
$MARK
# Node: $host, $cpus CPUs, RealMemory $mem_mb MB. Cluster files: $DIR.
ClusterName=springsim
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    if ! cmp -s "$tmp" "$CONF" 2>/dev/null; then
        $SUDO install -d -m 0755 /etc/slurm
        $SUDO install -m 0644 "$tmp" "$CONF"
    fi
    rm -f "$tmp"
}

start() {
    local t0 was_up=""
    install_packages
    t0=$SECONDS
    alive "$DIR/slurmctld.pid" && alive "$DIR/slurmd.pid" && was_up=1
    $SUDO install -d -m 0755 "$DIR" "$DIR/state" "$DIR/spool" "$DIR/log"
    start_munge
    if ! alive "$DIR/slurmctld.pid" || ! alive "$DIR/slurmd.pid"; then
        write_conf
    fi
    if ! alive "$DIR/slurmctld.pid"; then
        $SUDO slurmctld || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
    fi
    local i ok=""
    for i in $(seq $((WAIT_S * 5))); do
        if scontrol ping 2>/dev/null | grep -q "is UP"; then
            ok=1
            break
        fi
        sleep 0.2
    done
    [ -n "$ok" ] || die "slurmctld does not answer scontrol ping (see $DIR/log/slurmctld.log)"
    if ! alive "$DIR/slurmd.pid"; then
        $SUDO slurmd || die "slurmd did not start (see $DIR/log/slurmd.log)"
    fi
    local state=""
    for i in $(seq $((WAIT_S * 5))); do
        state="$(node_state)"
        case "$state" in
        idle | mixed | allocated | completing) break ;;
        esac
        sleep 0.2
    done
    case "$state" in
    idle | mixed | allocated | completing) ;;
    *)
        local reason
        reason="$(sinfo -h -N -o %E 2>/dev/null | head -n 1)"
        die "node not idle after ${WAIT_S} s: state '${state:-none}'${reason:+, reason '$reason'} (see $DIR/log/)"
        ;;
    esac
    if [ -n "$was_up" ]; then
        note "slurm $(slurm_version) already up on $(hostname -s) (node $state)"
    else
        note "slurm $(slurm_version) up on $(hostname -s) ($(nproc) CPUs, node $state) in $((SECONDS - t0)) s"
    fi
}

status() {
    local rc=0 d
    for d in slurmctld slurmd; do
        if alive "$DIR/$d.pid"; then
            echo "$d: running (pid $(cat "$DIR/$d.pid"))"
        else
            echo "$d: not running"
            rc=1
        fi
    done
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        echo "munged: running"
    else
        echo "munged: not running"
        rc=1
    fi
    local state=""
    alive "$DIR/slurmctld.pid" && state="$(node_state)"
    echo "node $(hostname -s): ${state:-no answer}"
    [ -n "$state" ] || rc=1
    return $rc
}

# Stop the process in pid FILE, waiting up to 10 s for it to go.
stop_pid() {
    local name="$1" file="$2" pid i
    alive "$file" || return 0
    pid="$(cat "$file")"
    $SUDO kill "$pid" 2>/dev/null || true
    for i in $(seq 50); do
        running "$pid" || {
            note "stopped $name (pid $pid)"
            return 0
        }
        sleep 0.2
    done
    die "$name (pid $pid) did not stop"
}

stop() {
    stop_pid slurmd "$DIR/slurmd.pid"
    stop_pid slurmctld "$DIR/slurmctld.pid"
    # Only the munged this script started: one the packages started is left alone.
    stop_pid munged "$MUNGE_PID"
}

case "${1:-}" in
start)
    need_root start
    start
    ;;
stop)
    need_root stop
    stop
    ;;
status) status ;;
*) die "usage: scripts/slurm-cluster.sh start|stop|status" ;;
esac
