#!/usr/bin/env bash
# Self-contact cost ladder (BENCHMARKS.md, "Contact between and within bodies"): the
# cloth of scenes/cloth_on_sphere.toml at CELLS × CELLS cells (default 64 128 256),
# each run for STEPS steps (default 40: the cloth reaches the ball at step ~15) on
# the CPU backend, and one row per size from its summary.json:
#   nodes, ms/step, the shares of a step spent in the broad phase, in the pairs'
#   terms (distances, barrier, energies) and in the pairs' CCD, candidate pairs per
#   broad phase, active pairs per Newton iteration, peak memory per node.
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
echo "cells,nodes,steps,ms_per_step,broad_share,pair_share,ccd_share,candidates_per_broad_phase,active_per_newton,max_contact_pairs,peak_rss_bytes_per_node,status" > "$out/self_contact.csv"
for c in "${sizes[@]}"; do
    dir="$out/$c"
    /usr/bin/env time -f "%M" -o "$dir.rss" ./target/release/springsim run scenes/cloth_on_sphere.toml \
        --backend cpu --steps "$steps" --quiet --out "$dir" \
        --set "bodies[0].cells=[$c, $c]" >/dev/null
    python3 - "$dir" "$c" "$dir.rss" >> "$out/self_contact.csv" <<'PY'
import json, sys
d, c, rss = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(f"{d}/summary.json"))
k = s["contact_costs"]
wall = s["wall_clock_seconds"]
kb = int(open(rss).read().split()[-1])
print(",".join(str(v) for v in [
    c, s["nodes"], s["steps"], round(s["ms_per_step"], 2),
    round(k["broad_phase_seconds"] / wall, 3), round(k["pair_seconds"] / wall, 3),
    round(k["ccd_seconds"] / wall, 3),
    round(k["candidate_pairs"] / max(k["broad_phases"], 1), 1),
    round(k["active_pairs"] / max(k["assemblies"], 1), 1),
    s["max_contact_pairs"], round(kb * 1024 / s["nodes"]), s["status"]]))
PY
done
column -s, -t < "$out/self_contact.csv"
