#!/usr/bin/env bash
# The course's Python step and springsim's CPU backend on the same free-falling
# square, timed in one run, one table.
#
# Usage: scripts/course_side_by_side.sh COURSE_CHECKOUT [STEPS] [N_SEG]
#   COURSE_CHECKOUT  a checkout of github.com/phys-sim-book/solid-sim-tutorial (its
#                    3_contact folder is imported, never copied)
#   STEPS            time steps timed on each side (default 3)
#   N_SEG            cells per side (default 64: 4225 nodes, springsim's square_64)
#
# springsim runs the bundled square_64 scene (seed 003's physics at N_SEG cells) with
# the default solver, with --linear-solver direct, with --preconditioner mas, and with
# solver.forcing = "eisenstat_walker" (inexact Newton). Python: $SPRINGSIM_PYTHON, else
# target/pyenv (numpy and scipy installed there when missing). springsim: $SPRINGSIM_BIN,
# else target/release/springsim (built when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || $# -gt 3 ]]; then
    echo "usage: $0 COURSE_CHECKOUT [STEPS] [N_SEG]" >&2
    exit 2
fi
course="$1/3_contact"
steps="${2:-3}"
n_seg="${3:-64}"
if [[ ! -f "$course/time_integrator.py" ]]; then
    echo "error: $course/time_integrator.py: not found (expected a solid-sim-tutorial checkout)" >&2
    exit 2
fi
if ! [[ "$steps" =~ ^[1-9][0-9]*$ && "$n_seg" =~ ^[1-9][0-9]*$ ]]; then
    echo "error: STEPS and N_SEG must be positive integers, got '$steps' and '$n_seg'" >&2
    exit 2
fi

py="${SPRINGSIM_PYTHON:-$PWD/target/pyenv/bin/python}"
if ! "$py" -c 'import numpy, scipy' 2>/dev/null; then
    echo "$0: installing numpy and scipy into target/pyenv" >&2
    [[ -x target/pyenv/bin/python ]] || python3 -m venv target/pyenv
    py="$PWD/target/pyenv/bin/python"
    "$py" -m pip install -q --disable-pip-version-check numpy scipy
fi

bin="${SPRINGSIM_BIN:-${CARGO_TARGET_DIR:-target}/release/springsim}"
if [[ ! -x "$bin" ]]; then
    cargo build --release --locked
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scene="$work/square_course.toml"
sed -e "s/cells = \[64, 64\]/cells = [$n_seg, $n_seg]/" scenes/square_64.toml > "$scene"
sed -e 's/^\[solver\]$/[solver]\nforcing = "eisenstat_walker"/' "$scene" > "$work/square_course_ew.toml"

course_json="$("$py" scripts/course_timing.py "$course" "$n_seg" "$steps")"

ms() { # label, scene, extra args...
    local label="$1" sc="$2"
    shift 2
    "$bin" run "$sc" --backend cpu --steps "$steps" --quiet --out "$work/$label" "$@" >/dev/null
    "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["ms_per_step"])' "$work/$label/summary.json"
}
pcg="$(ms pcg "$scene")"
direct="$(ms direct "$scene" --linear-solver direct)"
mas="$(ms mas "$scene" --preconditioner mas)"
ew="$(ms ew "$work/square_course_ew.toml")"

"$py" - "$course_json" "$pcg" "$direct" "$mas" "$ew" "$steps" <<'PY'
import json, sys
course = json.loads(sys.argv[1])
py_ms = course["s_per_step"] * 1e3
rows = [
    ("course Python (3_contact, spsolve)", py_ms),
    ("springsim cpu, default solver (block-Jacobi PCG)", float(sys.argv[2])),
    ("springsim cpu, --linear-solver direct", float(sys.argv[3])),
    ("springsim cpu, --preconditioner mas", float(sys.argv[4])),
    ("springsim cpu, forcing = eisenstat_walker", float(sys.argv[5])),
]
print(f"{course['nodes']} nodes, free fall, {sys.argv[6]} steps each")
print(f"| {'run':<50} | {'ms/step':>10} | {'course / this':>13} |")
print(f"|{'-' * 52}|{'-' * 11}:|{'-' * 14}:|")
for name, v in rows:
    print(f"| {name:<50} | {v:>10.2f} | {py_ms / v:>12.1f}x |")
PY
