#!/usr/bin/env bash
# Issue 29's check: the Slurm test passes on a machine that already runs Slurm, and
# leaves that Slurm alone (docs/SLURM.md).
#
#   scripts/slurm-foreign-check.sh CMD [ARGS...]
#
# Needs root or passwordless sudo, and a machine with no /etc/slurm/slurm.conf (a fresh
# CI machine): it refuses to replace a real one. Steps:
#  1. installs slurm-wlm and munge if missing (scripts/slurm-cluster.sh install);
#  2. writes a foreign /etc/slurm/slurm.conf, Debian's single-node example
#     (slurm.conf.simple: SlurmUser=slurm, the default ports 6817 and 6818, state in
#     /var/lib/slurm, logs in /var/log/slurm, pid files /run/slurmctld.pid and
#     /run/slurmd.pid), and starts a cluster from it the way a machine with Slurm runs
#     one: the machine's munged (/etc/munge/munge.key, socket /run/munge/munge.socket.2;
#     started unless one answers), `slurmctld` and `slurmd` without -f;
#  3. runs CMD, the Slurm test, with neither SLURM_CONF nor SPRINGSIM_SLURM_USE_EXISTING
#     set, so that the test takes its defaults, and SPRINGSIM_SLURM_FOREIGN_CHECK=inside
#     (tests/slurm.rs does not start the check again inside); CMD must exit 0;
#  4. checks that the foreign slurm.conf and munge key are byte-identical, that the same
#     slurmctld, slurmd and munged processes still run, that the foreign controller
#     still answers with its node idle, and that no job was submitted to it (its
#     NEXT_JOB_ID is unchanged);
#  5. stops the daemons it started and removes every file and folder it made (a trap:
#     also after a failure or an interrupt).
# Prints `slurm-foreign-check: OK (...)` or `slurm-foreign-check: FAIL: ...` (exit 1).
set -euo pipefail

fail() {
    echo "slurm-foreign-check: FAIL: $*" >&2
    exit 1
}
note() { echo "slurm-foreign-check: $*" >&2; }

[ $# -gt 0 ] || fail "usage: scripts/slurm-foreign-check.sh CMD [ARGS...]"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
CONF=/etc/slurm/slurm.conf
MUNGE_KEY=/etc/munge/munge.key
MUNGE_SOCKET=/run/munge/munge.socket.2
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
STATE_DIRS=(/var/lib/slurm/slurmctld /var/lib/slurm/slurmd)
LOGS=(/var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
        fail "needs root or passwordless sudo"
    fi
    SUDO="sudo -n"
fi

running() { [ -n "$1" ] && [ -d "/proc/$1" ]; }
# the foreign cluster's clients: the machine's configuration, whatever the caller has
fslurm() { env -u SLURM_CONF timeout 20 "$@"; }
port_busy() {
    awk -v p="$(printf '%04X' "$1")" \
        'FNR > 1 && $4 == "0A" { n = split($2, a, ":"); if (a[n] == p) f = 1 } END { exit !f }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
sum() { $SUDO sha256sum "$1" | cut -d' ' -f1; }

# What must not be there: this check writes them and will not replace a real one.
if [ -e "$CONF" ]; then
    fail "$CONF exists: this check writes a foreign one of its own and does not replace a real one (run it on a machine without Slurm configured, as CI does)"
fi
for f in "$CTLD_PID" "$SLURMD_PID" "${LOGS[@]}"; do
    if [ -e "$f" ]; then
        fail "$f exists: Slurm has run on this machine; the check needs one where it has not"
    fi
done
for d in "${STATE_DIRS[@]}"; do
    if [ -d "$d" ] && [ -n "$(ls -A "$d")" ]; then
        fail "$d is not empty: Slurm has run on this machine; the check needs one where it has not"
    fi
done
for p in 6817 6818; do
    if port_busy $p; then
        fail "TCP port $p is in use: the foreign cluster needs Slurm's default ports"
    fi
done

"$REPO/scripts/slurm-cluster.sh" install || fail "could not install slurm-wlm and munge"

# Everything made outside TMP is listed in MADE (removed in reverse order); daemons
# started are in STARTED as "name:pid".
TMP="$(mktemp -d /tmp/springsim-foreign-check.XXXXXX)"
MADE=()
STARTED=()
cleanup() {
    local rc=$? s pid i
    for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
        s="${STARTED[$i]}"
        pid="${s#*:}"
        running "$pid" || continue
        $SUDO kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            running "$pid" || break
            sleep 0.2
        done
        if running "$pid"; then note "${s%%:*} (pid $pid) did not stop"; fi
    done
    for ((i = ${#MADE[@]} - 1; i >= 0; i--)); do
        $SUDO rm -rf "${MADE[$i]}"
    done
    for d in "${STATE_DIRS[@]}"; do
        if [ -d "$d" ]; then $SUDO find "$d" -mindepth 1 -delete; fi
    done
    $SUDO rm -rf "$TMP"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# a folder made (with install -d's options), listed for removal when it was not there
make_dir() {
    local d="${*: -1}"
    [ -d "$d" ] || MADE+=("$d")
    $SUDO install -d "$@"
}

# 2. the foreign cluster: munged
host="$(hostname -s)"
cpus="$(nproc)"
mem_mb="$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)"
munged_pid=""
if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    note "the machine's munged answers on $MUNGE_SOCKET; the foreign cluster uses it"
    munged_pid="$($SUDO cat /run/munge/munged.pid 2>/dev/null || true)"
else
    make_dir -o munge -g munge -m 0700 /etc/munge
    if ! $SUDO test -s "$MUNGE_KEY"; then
        MADE+=("$MUNGE_KEY")
        $SUDO runuser -u munge -- mungekey --create --keyfile="$MUNGE_KEY" ||
            fail "mungekey could not write $MUNGE_KEY"
    fi
    make_dir -o munge -g munge -m 0755 /run/munge
    MADE+=("$MUNGE_SOCKET" "$MUNGE_SOCKET.lock")
    $SUDO chown munge:munge "$TMP"
    $SUDO runuser -u munge -- munged --pid-file="$TMP/munged.pid" \
        --seed-file="$TMP/munged.seed" --log-file="$TMP/munged.log" ||
        fail "the foreign munged did not start ($($SUDO tail -n 1 "$TMP/munged.log" 2>/dev/null))"
    munged_pid="$(cat "$TMP/munged.pid")"
    STARTED+=("munged:$munged_pid")
fi
key_sum="$(sum "$MUNGE_KEY")"

# slurm.conf, Debian's /usr/share/doc/slurmctld/examples/slurm.conf.simple for this host
make_dir -m 0755 /etc/slurm
MADE+=("$CONF")
cat >"$TMP/slurm.conf" <<EOF
# A foreign Slurm configuration, written by springsim's scripts/slurm-foreign-check.sh
# for the duration of the check (Debian's slurm.conf.simple for host $host).
ClusterName=foreign
SlurmctldHost=$host(127.0.0.1)
ProctrackType=proctrack/linuxproc
ReturnToService=2
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmdSpoolDir=${STATE_DIRS[1]}
StateSaveLocation=${STATE_DIRS[0]}
SlurmUser=slurm
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
SlurmctldDebug=info
SlurmctldLogFile=${LOGS[0]}
SlurmdDebug=info
SlurmdLogFile=${LOGS[1]}
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
$SUDO install -m 0644 "$TMP/slurm.conf" "$CONF"
conf_sum="$(sum "$CONF")"
make_dir -o slurm -g slurm -m 0755 /var/lib/slurm
for d in "${STATE_DIRS[@]}"; do make_dir -o slurm -g slurm -m 0755 "$d"; done
make_dir -o slurm -g slurm -m 0755 /var/log/slurm
MADE+=("$CTLD_PID" "$SLURMD_PID" "${LOGS[@]}")

t0=$SECONDS
# start_daemon NAME PIDFILE LOG: starts a foreign daemon as the machine would (no -f),
# waits for its pid file and records it; prints the pid.
start_daemon() {
    local name=$1 pidfile=$2 log=$3 pid
    $SUDO env -u SLURM_CONF "$name" >&2 || fail "the foreign $name did not start ($($SUDO tail -n 1 "$log" 2>/dev/null))"
    for _ in $(seq 150); do
        [ -s "$pidfile" ] && break
        sleep 0.2
    done
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    running "$pid" || fail "the foreign $name is not running ($($SUDO tail -n 1 "$log" 2>/dev/null))"
    echo "$pid"
}
ctld_pid="$(start_daemon slurmctld "$CTLD_PID" "${LOGS[0]}")"
STARTED+=("slurmctld:$ctld_pid")
for _ in $(seq 150); do
    fslurm scontrol ping 2>/dev/null | grep -q "is UP" && break
    sleep 0.2
done
slurmd_pid="$(start_daemon slurmd "$SLURMD_PID" "${LOGS[1]}")"
STARTED+=("slurmd:$slurmd_pid")
state=""
for _ in $(seq 150); do
    state="$(fslurm sinfo -h -N -o %T 2>/dev/null | head -n 1)"
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || fail "the foreign node is '${state:-not answering}', not idle (see ${LOGS[*]})"
next_job() { fslurm scontrol show config 2>/dev/null | awk '$1 == "NEXT_JOB_ID" { print $3 }'; }
next0="$(next_job)"
[ -n "$next0" ] || fail "the foreign slurmctld does not report NEXT_JOB_ID"
note "foreign cluster up from $CONF in $((SECONDS - t0)) s (slurmctld $ctld_pid, slurmd $slurmd_pid, ports 6817/6818, NEXT_JOB_ID $next0)"

# 3. the Slurm test, with its defaults
t0=$SECONDS
rc=0
env -u SLURM_CONF -u SPRINGSIM_SLURM_USE_EXISTING SPRINGSIM_SLURM_FOREIGN_CHECK=inside "$@" || rc=$?
t_test=$((SECONDS - t0))
[ $rc -eq 0 ] || fail "the Slurm test exited $rc beside the foreign cluster"

# 4. the foreign cluster, untouched
[ "$(sum "$CONF")" = "$conf_sum" ] || fail "$CONF changed"
[ "$(sum "$MUNGE_KEY")" = "$key_sum" ] || fail "$MUNGE_KEY changed"
[ "$(cat "/proc/$ctld_pid/comm" 2>/dev/null)" = slurmctld ] || fail "the foreign slurmctld (pid $ctld_pid) is gone"
[ "$(cat "/proc/$slurmd_pid/comm" 2>/dev/null)" = slurmd ] || fail "the foreign slurmd (pid $slurmd_pid) is gone"
[ "$(cat "$CTLD_PID" 2>/dev/null)" = "$ctld_pid" ] || fail "$CTLD_PID no longer names pid $ctld_pid"
[ "$(cat "$SLURMD_PID" 2>/dev/null)" = "$slurmd_pid" ] || fail "$SLURMD_PID no longer names pid $slurmd_pid"
if [ -n "$munged_pid" ]; then
    [ "$(cat "/proc/$munged_pid/comm" 2>/dev/null)" = munged ] || fail "the foreign munged (pid $munged_pid) is gone"
fi
munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 ||
    fail "the machine's munged no longer answers on $MUNGE_SOCKET"
fslurm scontrol ping 2>/dev/null | grep -q "is UP" || fail "the foreign slurmctld no longer answers scontrol ping"
state="$(fslurm sinfo -h -N -o %T 2>/dev/null | head -n 1)"
[ "$state" = idle ] || fail "the foreign node is '${state:-not answering}' after the test, not idle"
next1="$(next_job)"
[ "$next1" = "$next0" ] || fail "the Slurm test submitted to the foreign cluster (NEXT_JOB_ID $next0 -> $next1)"

echo "slurm-foreign-check: OK (the Slurm test passed in ${t_test} s beside a foreign cluster from $CONF;" \
    "its slurm.conf and munge key unchanged, slurmctld $ctld_pid and slurmd $slurmd_pid still up, no job submitted to it)"
