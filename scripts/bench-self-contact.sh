#!/usr/bin/env bash
# Self-contact cost ladder (benchmarks/NOTES.md, "Contact between and within bodies"): the
# cloth of scenes/cloth_on_sphere.toml at CELLS × CELLS cells (default 64 128 256),
# each run for STEPS steps (default 40: the cloth reaches the ball at step ~15) on
# the CPU backend, and one row per size from its summary.json: nodes; ms/step with
#   self-contact on and off (`contact.self_contact=false`); the shares of a step spent
#   in the broad phase, in the pairs' terms (near lists, distances, barrier,
#   energies) and in the pairs' CCD; what those three cost against the rest of a
#   step (the issue's target: at most 0.5); broad phases and Newton iterations;
#   candidate pairs per broad phase; active pairs per Newton iteration; the
#   intersection checker's ms per step (run between steps, outside ms/step); peak
#   memory per node.
#
#   scripts/bench-self-contact.sh OUT [CELLS...]
# STEPS=N overrides the step count. Writes OUT/<cells>/ (each run's folder) and
# OUT/self_contact.csv; prints the table.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/bench-self-contact.sh OUT [CELLS...]}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(64 128 256)
steps=${STEPS:-40}
cargo build --release --locked -q
mkdir -p "$out"
echo "cells,nodes,steps,ms_per_step,ms_per_step_off,broad_share,pair_share,ccd_share,contact_over_rest,broad_phases,newton_iterations,candidates_per_broad_phase,active_per_newton,max_contact_pairs,check_ms_per_step,peak_rss_bytes_per_node,status" > "$out/self_contact.csv"
for c in "${sizes[@]}"; do
    dir="$out/$c"
    /usr/bin/env time -f "%M" -o "$dir.rss" ./target/release/springsim run scenes/cloth_on_sphere.toml \
        --backend cpu --steps "$steps" --quiet --out "$dir" \
        --set "bodies[0].cells=[$c, $c]" >/dev/null
    ./target/release/springsim run scenes/cloth_on_sphere.toml --backend cpu --steps "$steps" \
        --quiet --out "$dir-off" --set "bodies[0].cells=[$c, $c]" \
        --set contact.self_contact=false >/dev/null
    python3 - "$dir" "$c" "$dir.rss" >> "$out/self_contact.csv" <<'PY'
import json, sys
d, c, rss = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(f"{d}/summary.json"))
off = json.load(open(f"{d}-off/summary.json"))
k = s["contact_costs"]
wall = s["wall_clock_seconds"]
contact = k["broad_phase_seconds"] + k["pair_seconds"] + k["ccd_seconds"]
kb = int(open(rss).read().split()[-1])
print(",".join(str(v) for v in [
    c, s["nodes"], s["steps"], round(s["ms_per_step"], 2), round(off["ms_per_step"], 2),
    round(k["broad_phase_seconds"] / wall, 3), round(k["pair_seconds"] / wall, 3),
    round(k["ccd_seconds"] / wall, 3),
    round(contact / (wall - contact), 3), k["broad_phases"], s["newton_iterations"],
    round(k["candidate_pairs"] / max(k["broad_phases"], 1), 1),
    round(k["active_pairs"] / max(k["assemblies"], 1), 1),
    s["max_contact_pairs"], round(1e3 * s["intersection_check_seconds"] / s["steps"], 1),
    round(kb * 1024 / s["nodes"]), s["status"]]))
PY
done
column -s, -t < "$out/self_contact.csv"
