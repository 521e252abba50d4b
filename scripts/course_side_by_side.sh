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
# the default solver, with --linear-solver direct, with --preconditioner mas and
# block-jacobi, and with solver.forcing = "fixed" (exact Newton directions; the
# default, auto, is inexact Newton from 1000 nodes on). Each row names the solver as run (summary.json). Python: $SPRINGSIM_PYTHON, else
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
sed -e 's/^\[solver\]$/[solver]\nforcing = "fixed"/' "$scene" > "$work/square_course_fixed.toml"

course_json="$("$py" scripts/course_timing.py "$course" "$n_seg" "$steps")"

ms() { # label, scene, extra args...
    local label="$1" sc="$2"
    shift 2
    "$bin" run "$sc" --backend cpu --steps "$steps" --quiet --out "$work/$label" "$@" >/dev/null
    # ms/step and the direction solver as run, e.g. "31.2|pcg, block_jacobi, eisenstat_walker"
    "$py" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(str(s["ms_per_step"]) + "|" + s["linear_solver"])' "$work/$label/summary.json"
}
pcg="$(ms pcg "$scene")"
direct="$(ms direct "$scene" --linear-solver direct)"
mas="$(ms mas "$scene" --preconditioner mas)"
jacobi="$(ms jacobi "$scene" --preconditioner block-jacobi)"
fixed="$(ms fixed "$work/square_course_fixed.toml")"

"$py" - "$course_json" "$pcg" "$direct" "$mas" "$fixed" "$steps" "$jacobi" <<'PY'
import json, sys
course = json.loads(sys.argv[1])
py_ms = course["s_per_step"] * 1e3
def row(name, arg):
    ms, solver = arg.split("|", 1)
    return (f"{name} ({solver})", float(ms))
rows = [
    ("course Python (3_contact, spsolve)", py_ms),
    row("springsim cpu, default", sys.argv[2]),
    row("springsim cpu, --linear-solver direct", sys.argv[3]),
    row("springsim cpu, --preconditioner mas", sys.argv[4]),
    row("springsim cpu, --preconditioner block-jacobi", sys.argv[7]),
    row("springsim cpu, forcing = fixed", sys.argv[5]),
]
print(f"{course['nodes']} nodes, free fall, {sys.argv[6]} steps each")
print(f"| {'run':<72} | {'ms/step':>10} | {'course / this':>13} |")
print(f"|{'-' * 74}|{'-' * 11}:|{'-' * 14}:|")
for name, v in rows:
    print(f"| {name:<72} | {v:>10.2f} | {py_ms / v:>12.1f}x |")
PY
