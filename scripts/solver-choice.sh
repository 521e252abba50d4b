#!/usr/bin/env bash
# The default linear solver against the others (issue 26 part 2): every bundled mesh
# scene (its default length), the crumpling shell (scenes/shell_drop.toml, 30 steps)
# and the large squares, each run with `--linear-solver auto` (the default),
# `direct`, and PCG with block-Jacobi and with the V-cycle. Prints one markdown row
# per scene: ms/step of each, what auto ran, and the default's ratio to the best.
#
#   scripts/solver-choice.sh [SPRINGSIM] [EXTRA RUN ARGS...] > table.md
#
# e.g. `scripts/solver-choice.sh target/release/springsim --threads 1`. With
# VARIANTS=auto (a space-separated subset of auto, direct, block_jacobi, multigrid)
# only those run, and a column of a variant left out says `–`. With REPEAT=N every
# variant runs N times, the variants interleaved, and each column shows its fastest
# run (this machine's short runs vary by ±30 % from one run to the next). With
# CASES="a|b" only the cases whose line is listed run.
set -euo pipefail
BIN=${1:-target/release/springsim}
shift || true
OUT=$(mktemp -d)
cases=(
    "square_drop" "lattice_drop" "cloth_drop" "square_in_bowl" "lattice_in_sphere"
    "square_on_slope" "cube_on_slope" "block_thrown" "tet_drop" "obj_cloth_drape"
    "disk_drop" "two_squares" "tet_stack" "cloth_pile" "cloth_on_sphere" "rope_pile"
    "ropes_parallel" "square_64"
    "square_256 --steps 5"
    "scenes/shell_drop.toml --steps 30"
    "square_64 --steps 3 --set bodies[0].cells=[512,512]"
)
variants=("auto:" "direct:--linear-solver direct"
    "block_jacobi:--linear-solver pcg --preconditioner block-jacobi"
    "multigrid:--linear-solver pcg --preconditioner multigrid")
echo "| scene | nodes | auto ran | auto | direct | block-Jacobi | V-cycle | auto / best |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
n=0
for c in "${cases[@]}"; do
    if [ -n "${CASES:-}" ] && [[ "|$CASES|" != *"|$c|"* ]]; then
        continue
    fi
    read -r -a args <<<"$c"
    n=$((n + 1))
    for r in $(seq "${REPEAT:-1}"); do
        for v in "${variants[@]}"; do
            name=${v%%:*}
            if [ -n "${VARIANTS:-}" ] && [[ " $VARIANTS " != *" $name "* ]]; then
                continue
            fi
            read -r -a flags <<<"${v#*:}"
            dir="$OUT/$n-$name-$r"
            "$BIN" run "${args[@]}" --backend cpu "${flags[@]}" "$@" --quiet --out "$dir" >/dev/null 2>&1 || true
        done
    done
    row=()
    for v in "${variants[@]}"; do
        row+=("$OUT/$n-${v%%:*}")
    done
    python3 - "$c" "${row[@]}" <<'PY'
import glob, json, sys
case, prefixes = sys.argv[1], sys.argv[2:]
def fastest(prefix):
    runs = [json.load(open(f)) for f in sorted(glob.glob(prefix + "-*/summary.json"))]
    if not runs:
        return None
    done = [x for x in runs if x["status"] == "completed"]
    return min(done, key=lambda x: x["ms_per_step"]) if done else runs[0]
s = [fastest(p) for p in prefixes]
nan = float("nan")
ms = [nan if x is None else x["ms_per_step"] if x["status"] == "completed" else float("inf") for x in s]
cell = lambda m, x: "–" if x is None else f"{m:.2f}" if m != float("inf") else x["status"]
first = next(x for x in s if x is not None)
label = s[0]["linear_solver"].replace("|", "\\|") if s[0] else "–"
if s[0] and "auto" in label:
    label += f" ({s[0]['direct_solves']} directions factored)"
others = [m for m in ms[1:] if m == m]
ratio = f"{ms[0] / min(others):.2f}" if s[0] and others else "–"
print(f"| `{case}` | {first['nodes']:,} | {label} | " + " | ".join(cell(m, x) for m, x in zip(ms, s))
      + f" | {ratio} |")
PY
done
rm -rf "$OUT"
