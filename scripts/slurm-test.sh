#!/usr/bin/env bash
# End-to-end test of `springsim sweep` on Slurm (issue 16, docs/SLURM.md):
#
#   scripts/slurm-test.sh [BIN]
#
# starts the private one-node cluster of scripts/slurm-cluster.sh (installing Slurm if
# needed; with SPRINGSIM_SLURM_USE_EXISTING=1, uses the cluster sinfo answers for instead),
# runs a small sweep locally, emits the same sweep as an sbatch array script, submits it
# with `sbatch --wait`, merges the array tasks' folders with `sweep collect`, and checks
# that the merged sweep.csv equals the local one in every column but the timing columns
# (wall_clock_seconds, ms_per_step). BIN defaults to target/debug/springsim, built by
# `cargo build --locked` if absent. Prints one line, `slurm-test: OK (...)` or
# `slurm-test: FAIL: ...` (exit 1). A cluster this script started is stopped at the end
# unless SPRINGSIM_SLURM_KEEP=1; one that was already up is left running. The work
# folder is removed on success and kept (and named) on failure.
set -euo pipefail

WORK=""
fail() {
    echo "slurm-test: FAIL: $*${WORK:+ (work folder kept: $WORK)}" >&2
    exit 1
}

if [ $# -gt 0 ]; then
    BIN="$1"
    [ -x "$BIN" ] || fail "$BIN is not an executable"
    BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
fi
cd "$(dirname "$0")/.."
REPO="$PWD"
if [ $# -eq 0 ]; then
    BIN="$REPO/target/debug/springsim"
    if [ ! -x "$BIN" ]; then
        cargo build --locked -q || fail "cargo build --locked failed"
    fi
fi
TIMEOUT_S="${SPRINGSIM_SLURM_TEST_TIMEOUT_S:-300}"
TASKS=2
# The sweep: 2 x 2 variants of the square drop, one CPU thread per run so that every
# column but the timings is deterministic. 50 steps: the square reaches the ground
# (0.5 m below it, about 0.32 s) in every variant, so kappa matters in all four.
SWEEP=(square_drop --vary solver.dt=0.01,0.02 --vary contact.kappa=1e4,1e5
    --steps 50 --backend cpu --threads 1)

# On a cluster of several machines (SPRINGSIM_SLURM_USE_EXISTING=1) the work folder
# must be on a filesystem every node sees: SPRINGSIM_SLURM_TEST_DIR.
WORK="$(mktemp -d "${SPRINGSIM_SLURM_TEST_DIR:-/tmp}/springsim-slurm-test.XXXXXX")"
STARTED=""
finish() {
    local rc=$?
    if [ -n "$STARTED" ] && [ "${SPRINGSIM_SLURM_KEEP:-0}" != 1 ]; then
        "$REPO/scripts/slurm-cluster.sh" stop >>"$WORK/cluster.log" 2>&1 || true
    fi
    [ $rc -ne 0 ] || rm -rf "$WORK"
}
trap finish EXIT

# 1. the cluster
t0=$SECONDS
if ! "$REPO/scripts/slurm-cluster.sh" status >/dev/null 2>&1; then
    STARTED=1
fi
if ! "$REPO/scripts/slurm-cluster.sh" start >"$WORK/cluster.log" 2>&1; then
    fail "cluster: $(tail -n 1 "$WORK/cluster.log")"
fi
t_cluster=$((SECONDS - t0))
# Every Slurm client below talks to that cluster: the private one's slurm.conf, or
# (SPRINGSIM_SLURM_USE_EXISTING=1) the one the environment names.
eval "$("$REPO/scripts/slurm-cluster.sh" env)"
slurm_version="$(slurmd -V 2>/dev/null | awk '{print $2}')"

# 2. the sweep, locally
t0=$SECONDS
"$BIN" sweep "${SWEEP[@]}" --jobs 2 --out "$WORK/local" --quiet >"$WORK/local.log" 2>&1 ||
    fail "local sweep exited $? ($(tail -n 1 "$WORK/local.log"))"
t_local=$((SECONDS - t0))
[ -s "$WORK/local/sweep.csv" ] || fail "local sweep wrote no $WORK/local/sweep.csv"

# 3. the same sweep as a Slurm array job
t0=$SECONDS
"$BIN" sweep "${SWEEP[@]}" --out "$WORK/slurm" --emit-slurm "$WORK/sweep.sbatch" \
    --slurm-tasks "$TASKS" --slurm-time 00:10:00 >"$WORK/emit.log" 2>&1 ||
    fail "--emit-slurm exited $? ($(tail -n 1 "$WORK/emit.log"))"
[ -s "$WORK/sweep.sbatch" ] || fail "--emit-slurm wrote no $WORK/sweep.sbatch"
grep -q '^#SBATCH.*--array' "$WORK/sweep.sbatch" || fail "$WORK/sweep.sbatch has no #SBATCH --array line"
# --output on the command line overrides the script's, so the test knows where the
# tasks' logs are.
rc=0
(cd "$WORK" && timeout "$TIMEOUT_S" sbatch --wait --parsable --output="$WORK/task-%A_%a.log" \
    sweep.sbatch >"$WORK/sbatch.out" 2>"$WORK/sbatch.err") || rc=$?
job="$(head -n 1 "$WORK/sbatch.out" | cut -d';' -f1)"
[ -n "$job" ] || fail "sbatch did not submit: $(tail -n 1 "$WORK/sbatch.err")"
if [ $rc -eq 124 ]; then
    scancel "$job" 2>/dev/null || true
    fail "job $job did not finish within ${TIMEOUT_S} s (cancelled)"
fi
t_slurm=$((SECONDS - t0))

# Every array task's state and exit code, as slurmctld remembers them (MinJobAge,
# 300 s by default; there is no accounting database to ask sacct).
tasks="$(scontrol show job -o "$job" 2>/dev/null |
    grep -o 'ArrayTaskId=[^ ]*\|JobState=[^ ]*\|ExitCode=[^ ]*' | paste -d' ' - - - || true)"
if [ $rc -ne 0 ]; then
    bad="$(echo "$tasks" | grep -v 'JobState=COMPLETED ExitCode=0:0' | head -n 1 || true)"
    task="$(echo "$bad" | sed -n 's/.*ArrayTaskId=\([0-9]*\).*/\1/p')"
    last=""
    [ -n "$task" ] && [ -f "$WORK/task-${job}_$task.log" ] &&
        last="; its log ends: $(tail -n 1 "$WORK/task-${job}_$task.log")"
    fail "sbatch --wait exited $rc: job $job ${bad:-(no task record)}$last"
fi
ntasks="$(echo "$tasks" | grep -c 'JobState=COMPLETED ExitCode=0:0' || true)"
nlogs="$(find "$WORK" -maxdepth 1 -name "task-${job}_*.log" | wc -l)"
[ "$nlogs" -eq "$TASKS" ] || fail "job $job: $nlogs task logs, expected $TASKS array tasks"
if [ -n "$tasks" ] && [ "$ntasks" -ne "$TASKS" ]; then
    fail "job $job: $ntasks of $TASKS array tasks COMPLETED with exit 0: $(echo "$tasks" | tr '\n' ' ')"
fi

"$BIN" sweep collect "$WORK/slurm" >"$WORK/collect.log" 2>&1 ||
    fail "sweep collect exited $? ($(tail -n 1 "$WORK/collect.log"))"

# 4. the comparison: same variant folders, same columns, same rows; every cell equal
# but the timing columns, after the output folder's path is replaced by OUT.
result="$(python3 - "$WORK/local" "$WORK/slurm" <<'PY'
import csv, os, sys

TIMING = {"wall_clock_seconds", "ms_per_step"}
local, slurm = sys.argv[1], sys.argv[2]

def fail(msg):
    print(msg)
    sys.exit(1)

def folders(out):
    # Variant folders: those with a variant.json (shards/ and slurm/ hold the shard
    # tables and the task logs).
    return sorted(d for d in os.listdir(out)
                  if os.path.isfile(os.path.join(out, d, "variant.json")))

def table(out):
    path = os.path.join(out, "sweep.csv")
    if not os.path.isfile(path):
        fail(f"no {path}")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        fail(f"{path} is empty")
    keep = [i for i, c in enumerate(rows[0]) if c not in TIMING]
    return [[r[i].replace(out, "OUT") if i < len(r) else None for i in keep] for r in rows]

fl, fs = folders(local), folders(slurm)
if fl != fs:
    fail(f"variant folders differ: only local {sorted(set(fl) - set(fs))}, "
         f"only slurm {sorted(set(fs) - set(fl))}")
tl, ts = table(local), table(slurm)
if tl[0] != ts[0]:
    fail(f"sweep.csv columns differ: local {tl[0]}, slurm {ts[0]}")
if len(tl) != len(ts):
    fail(f"sweep.csv rows differ: local {len(tl) - 1}, slurm {len(ts) - 1}")
if len(tl) == 1:
    fail("sweep.csv has no rows")
for n, (a, b) in enumerate(zip(tl[1:], ts[1:]), start=1):
    for col, x, y in zip(tl[0], a, b):
        if x != y:
            fail(f"sweep.csv row {n} column {col}: local {x!r}, slurm {y!r}")
print(f"{len(tl) - 1} variants, {len(tl[0])} columns equal")
PY
)" || fail "$result"

echo "slurm-test: OK ($result; job $job, $TASKS array tasks; slurm ${slurm_version:-?};" \
    "cluster ${t_cluster} s, local sweep ${t_local} s, emit+sbatch --wait ${t_slurm} s)"
