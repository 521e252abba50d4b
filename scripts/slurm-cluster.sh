#!/usr/bin/env bash
# A private one-node Slurm cluster on this machine, for trying
# `springsim sweep --emit-slurm` and for scripts/slurm-test.sh (docs/SLURM.md).
#
#   scripts/slurm-cluster.sh start    install slurm-wlm and munge from Debian's packages
#                                     if missing, start a private munged, slurmctld and
#                                     slurmd, and wait until the node is idle; on a
#                                     running cluster it only checks
#   scripts/slurm-cluster.sh status   one line per daemon and the node's state; exit 0
#                                     when all three run and the node answers
#   scripts/slurm-cluster.sh stop     stop the daemons this script started
#   scripts/slurm-cluster.sh env      print `export SLURM_CONF=...`: after
#                                     eval "$(scripts/slurm-cluster.sh env)", sbatch,
#                                     sinfo, scontrol... talk to this cluster
#   scripts/slurm-cluster.sh install  only install the packages, if missing
#
# Needs root, or passwordless sudo, and apt-get (Debian/Ubuntu) for start and stop.
# Everything the cluster has lives in one folder, $SPRINGSIM_SLURM_DIR (default
# /tmp/springsim-slurm): its slurm.conf (the daemons get it with -f, clients through
# SLURM_CONF), its own munge key, munged socket, seed and log (slurm.conf's AuthInfo
# points at that socket), state, spool, pid and log files. Its ports are its own
# (16817 and 16818, or the next free pair). It never reads or writes /etc/slurm or
# /etc/munge, never uses the machine's munged, and never stops a daemon it did not
# start, so it runs beside a real Slurm cluster. The only files written outside the
# folder are the packages apt-get installs (Debian's munge package makes
# /etc/munge/munge.key if none exists).
#
# With SPRINGSIM_SLURM_USE_EXISTING=1 nothing is started or stopped: start and status
# only check that the cluster the environment names (SLURM_CONF, else
# /etc/slurm/slurm.conf) answers sinfo, env prints nothing and stop does nothing.
set -euo pipefail

die() {
    echo "slurm-cluster: $*" >&2
    exit 1
}
note() { echo "slurm-cluster: $*" >&2; }

DIR="${SPRINGSIM_SLURM_DIR:-/tmp/springsim-slurm}"
case "$DIR" in
/*) ;;
*) DIR="$PWD/$DIR" ;;
esac
DIR="${DIR%/}"
# The folder's path goes into slurm.conf and munged's options unquoted.
[[ "$DIR" =~ ^[A-Za-z0-9_./-]+$ ]] ||
    die "SPRINGSIM_SLURM_DIR '$DIR' has characters other than letters, digits, _ . / -"
CONF="$DIR/slurm.conf"
MARK="# Written by springsim scripts/slurm-cluster.sh: a private one-node test cluster."
MUNGE_DIR="$DIR/munge"
MUNGE_KEY="$MUNGE_DIR/munge.key"
MUNGE_SOCKET="$MUNGE_DIR/munge.socket"
MUNGE_PID="$MUNGE_DIR/munged.pid"
PORT0="${SPRINGSIM_SLURM_PORT:-16817}"
if ! [[ "$PORT0" =~ ^[0-9]{4,5}$ ]] || [ "$PORT0" -lt 1024 ] || [ "$PORT0" -gt 65000 ]; then
    die "SPRINGSIM_SLURM_PORT '$PORT0' is not a port number from 1024 to 65000"
fi
WAIT_S="${SPRINGSIM_SLURM_WAIT_S:-60}"
EXISTING=""
[ "${SPRINGSIM_SLURM_USE_EXISTING:-0}" = 1 ] && EXISTING=1

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

# Every client call of this script talks to the private cluster (not in EXISTING mode,
# where the caller's environment says which cluster).
[ -n "$EXISTING" ] || export SLURM_CONF="$CONF"

# the node's state as sinfo prints it (idle, mixed, ...), empty when nobody answers
node_state() { timeout 20 sinfo -h -N -o %T 2>/dev/null | head -n 1; }

munge_ok() {
    munge -S "$MUNGE_SOCKET" -n </dev/null 2>/dev/null |
        unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1
}

slurm_version() { slurmd -V 2>/dev/null | awk '{print $2}'; }

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
        command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    command -v apt-get >/dev/null || die "slurm is not installed and there is no apt-get"
    local t0 log
    t0=$SECONDS
    $SUDO install -d -m 0755 "$DIR" "$DIR/log"
    log="$DIR/log/apt.log"
    note "installing slurm-wlm and munge (apt-get; log $log)"
    # No recommends: the daemons and clients, not the documentation and the GUI.
    # shellcheck disable=SC2016 # $1 is bash -c's argument
    $SUDO bash -c 'exec >"$1" 2>&1
        apt-get update -qq || { echo "apt-get update failed"; exit 1; }
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            slurm-wlm munge' _ "$log" ||
        die "apt-get install slurm-wlm munge failed (log $log)"
    note "installed slurm $(slurm_version) in $((SECONDS - t0)) s"
    $SUDO rm -f "$log"
}

# A munged of the cluster's own: its key, socket, pid, seed and log in $MUNGE_DIR.
start_munge() {
    munge_ok && return
    getent passwd munge >/dev/null || die "there is no user munge (is the munge package installed?)"
    # 0755: clients run by other users reach the socket; the key itself is 0400.
    $SUDO install -d -o munge -g munge -m 0755 "$MUNGE_DIR"
    if [ ! -s "$MUNGE_KEY" ]; then
        $SUDO runuser -u munge -- mungekey --create --keyfile="$MUNGE_KEY" ||
            die "mungekey could not write $MUNGE_KEY"
    fi
    $SUDO runuser -u munge -- munged --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
        --pid-file="$MUNGE_PID" --seed-file="$MUNGE_DIR/munged.seed" \
        --log-file="$MUNGE_DIR/munged.log" ||
        die "munged did not start (see $MUNGE_DIR/munged.log)"
    for _ in $(seq 50); do
        munge_ok && return
        sleep 0.1
    done
    die "munged started but munge -n | unmunge fails on $MUNGE_SOCKET (see $MUNGE_DIR/munged.log)"
}

# 0 when some process listens on TCP port $1 (any address, IPv4 or IPv6)
port_busy() {
    awk -v p="$(printf '%04X' "$1")" \
        'FNR > 1 && $4 == "0A" { n = split($2, a, ":"); if (a[n] == p) f = 1 } END { exit !f }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# Two free ports, PORT0 and PORT0+1 or the next free pair above: "CTLD SLURMD"
free_ports() {
    local p=$PORT0
    for _ in $(seq 50); do
        if ! port_busy "$p" && ! port_busy $((p + 1)); then
            echo "$p $((p + 1))"
            return
        fi
        p=$((p + 2))
    done
    die "no two free TCP ports between $PORT0 and $p"
}

write_conf() {
    local host cpus mem_mb ports ctld_port slurmd_port
    host="$(hostname -s)"
    cpus="$(nproc)"
    # 95 % of MemTotal: slurmd drains a node that has less memory than it claims.
    mem_mb="$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.95}' /proc/meminfo)"
    ports="$(free_ports)"
    ctld_port="${ports% *}"
    slurmd_port="${ports#* }"
    $SUDO tee "$CONF" >/dev/null <<EOF
$MARK
# Node: $host, $cpus CPUs, RealMemory $mem_mb MB. Every file of the cluster: $DIR.
# Daemons: slurmctld -f $CONF, slurmd -f $CONF; clients: SLURM_CONF=$CONF.
ClusterName=springsim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
PlugStackConfig=$DIR/plugstack.conf
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    $SUDO chmod 0644 "$CONF"
    # No SPANK plugins: an empty stack of the cluster's own, not the machine's.
    $SUDO install -m 0644 /dev/null "$DIR/plugstack.conf"
}

start_existing() {
    command -v sinfo >/dev/null || die "SPRINGSIM_SLURM_USE_EXISTING=1 but there is no sinfo"
    local out
    out="$(timeout 20 sinfo -h -o '%P %a %D %T' 2>&1)" ||
        die "SPRINGSIM_SLURM_USE_EXISTING=1 but sinfo does not answer (SLURM_CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}): $(echo "$out" | tail -n 1)"
    note "using the existing cluster (SLURM_CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}); sinfo: $(echo "$out" | head -n 3 | tr '\n' ';')"
}

start() {
    local t0 was_up=""
    install_packages
    t0=$SECONDS
    if alive "$DIR/slurmctld.pid" || alive "$DIR/slurmd.pid"; then
        grep -qxF "$MARK" "$CONF" 2>/dev/null ||
            die "daemons from $DIR run without its $CONF (an earlier version of this script started them from /etc/slurm/slurm.conf); run scripts/slurm-cluster.sh stop first"
    fi
    alive "$DIR/slurmctld.pid" && alive "$DIR/slurmd.pid" && was_up=1
    $SUDO install -d -m 0755 "$DIR" "$DIR/state" "$DIR/spool" "$DIR/log"
    start_munge
    if ! alive "$DIR/slurmctld.pid" && ! alive "$DIR/slurmd.pid"; then
        write_conf
    fi
    if ! alive "$DIR/slurmctld.pid"; then
        $SUDO slurmctld -f "$CONF" || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
    fi
    local ok=""
    for _ in $(seq $((WAIT_S * 5))); do
        if scontrol ping 2>/dev/null | grep -q "is UP"; then
            ok=1
            break
        fi
        sleep 0.2
    done
    [ -n "$ok" ] || die "slurmctld does not answer scontrol ping (see $DIR/log/slurmctld.log)"
    if ! alive "$DIR/slurmd.pid"; then
        $SUDO slurmd -f "$CONF" || die "slurmd did not start (see $DIR/log/slurmd.log)"
    fi
    local state=""
    for _ in $(seq $((WAIT_S * 5))); do
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
        reason="$(timeout 20 sinfo -h -N -o %E 2>/dev/null | head -n 1)"
        # shellcheck disable=SC2016 # the quotes around $reason are the message's
        die "node not idle after ${WAIT_S} s: state '${state:-none}'${reason:+, reason '$reason'} (see $DIR/log/)"
        ;;
    esac
    local where
    where="$(hostname -s), ports $(sed -n 's/^SlurmctldPort=//p' "$CONF")/$(sed -n 's/^SlurmdPort=//p' "$CONF"), $CONF"
    if [ -n "$was_up" ]; then
        note "slurm $(slurm_version) already up ($where; node $state)"
    else
        note "slurm $(slurm_version) up ($where; $(nproc) CPUs, node $state) in $((SECONDS - t0)) s"
    fi
}

status() {
    if [ -n "$EXISTING" ]; then
        local state
        state="$(node_state)"
        echo "existing cluster (SLURM_CONF=${SLURM_CONF:-/etc/slurm/slurm.conf}): ${state:-no answer}"
        [ -n "$state" ]
        return
    fi
    local rc=0 d
    for d in slurmctld slurmd; do
        if alive "$DIR/$d.pid"; then
            echo "$d: running (pid $(cat "$DIR/$d.pid"))"
        else
            echo "$d: not running"
            rc=1
        fi
    done
    if munge_ok; then
        echo "munged: running ($MUNGE_SOCKET)"
    else
        echo "munged: not running ($MUNGE_SOCKET)"
        rc=1
    fi
    local state=""
    [ -r "$CONF" ] && alive "$DIR/slurmctld.pid" && state="$(node_state)"
    echo "node $(hostname -s): ${state:-no answer}${state:+ ($CONF)}"
    [ -n "$state" ] || rc=1
    return $rc
}

# Stop the process in pid FILE, waiting up to 10 s for it to go.
stop_pid() {
    local name="$1" file="$2" pid
    alive "$file" || return 0
    pid="$(cat "$file")"
    $SUDO kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
        running "$pid" || {
            note "stopped $name (pid $pid)"
            return 0
        }
        sleep 0.2
    done
    die "$name (pid $pid) did not stop"
}

stop() {
    if [ -n "$EXISTING" ]; then
        note "SPRINGSIM_SLURM_USE_EXISTING=1: nothing of the existing cluster is stopped"
        return
    fi
    stop_pid slurmd "$DIR/slurmd.pid"
    stop_pid slurmctld "$DIR/slurmctld.pid"
    stop_pid munged "$MUNGE_PID"
}

case "${1:-}" in
start)
    if [ -n "$EXISTING" ]; then
        start_existing
    else
        need_root start
        start
    fi
    ;;
stop)
    [ -n "$EXISTING" ] || need_root stop
    stop
    ;;
status) status ;;
env) [ -n "$EXISTING" ] || echo "export SLURM_CONF=$CONF" ;;
install)
    need_root install
    install_packages
    ;;
*) die "usage: scripts/slurm-cluster.sh start|stop|status|env|install" ;;
esac
