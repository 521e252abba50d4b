"""The two pictures of BENCHMARKS.md's summary, from the committed raw files.

    target/pyenv/bin/python benchmarks/summary_plots.py     # writes docs/bench_*.png

- docs/bench_cg_per_direction.png: CG iterations per Newton direction against nodes
  on the square ladder, per preconditioner (the counts do not depend on the device);
- docs/bench_ms_per_step.png: ms per step against nodes on the square ladder, per
  backend, each line naming its device.
"""

import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "docs")
H100 = "NVIDIA-H100-80GB-HBM3-Vulkan-DiscreteGpu-NVIDIA-580-159-04/vcycle-2026-11-27/bench-gpu-f32-square2d.csv"
CPU = ["cpu-epyc-2threads-square-ladder-mg/bench.csv", "cpu-epyc-2threads-square-1m-mg/bench.csv"]
NAMES = {
    "cpu": "block-Jacobi PCG", "cpu-mas": "additive MAS PCG", "cpu-mg": "V-cycle PCG",
    "direct": "sparse Cholesky", "gpu": "block-Jacobi PCG", "gpu-mas": "additive MAS PCG",
    "gpu-mg": "V-cycle PCG",
}


def rows(*files):
    """(backend, nodes, ms/step, CG per direction) of every finished row."""
    out = []
    for f in files:
        with open(os.path.join(HERE, f)) as fh:
            for r in csv.DictReader(fh):
                if r["status"] == "ok" and r["ms_per_step"]:
                    out.append((r["backend"], int(r["nodes"]), float(r["ms_per_step"]), float(r["cg_per_newton"] or 0)))
    return out


def series(data, backend, col):
    """Nodes and column `col` (0: ms/step, 1: CG per direction) of `backend`."""
    pts = sorted({(d[1], d[2 + col]) for d in data if d[0] == backend})
    return [p[0] for p in pts], [p[1] for p in pts]


cpu, gpu = rows(*CPU), rows(H100)

fig, ax = plt.subplots(figsize=(6.4, 4.0))
for b, style in [("cpu", "o-"), ("cpu-mas", "s-"), ("cpu-mg", "^-")]:
    x, y = series(cpu, b, 1)
    ax.loglog(x, y, style, label=NAMES[b])
ax.set_xlabel("nodes (square ladder, 2D)")
ax.set_ylabel("CG iterations per Newton direction")
ax.set_title("CG per direction, per preconditioner (the default forcing)", fontsize=10)
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(os.path.join(DOCS, "bench_cg_per_direction.png"), dpi=110)

fig, ax = plt.subplots(figsize=(6.4, 4.0))
for b, style in [("cpu-mg", "^-"), ("direct", "d-")]:
    x, y = series(cpu, b, 0)
    ax.loglog(x, y, style, label=f"CPU, 2 EPYC threads: {NAMES[b]}")
for b, style in [("gpu", "o--"), ("gpu-mas", "s--"), ("gpu-mg", "^--")]:
    x, y = series(gpu, b, 0)
    ax.loglog(x, y, style, label=f"GPU, NVIDIA H100 (f32): {NAMES[b]}")
ax.set_xlabel("nodes (square ladder, 2D)")
ax.set_ylabel("ms per step")
ax.set_title("ms per step against nodes, per backend")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(DOCS, "bench_ms_per_step.png"), dpi=110)
print("wrote docs/bench_cg_per_direction.png and docs/bench_ms_per_step.png")
