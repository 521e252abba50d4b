"""Three disks with e = 0.2, 0.5 and 0.9 dropped side by side (scenes/restitution_balls.toml):
IPC's barrier with the restitution law, each disk with its own e. Prints each disk's
bounce heights against e^(2k) of the drop, and plots the disks' lowest points.

    python examples/python/restitution_balls.py [--duration S] [--plot FILE]
"""

import argparse
from pathlib import Path

import numpy as np

import springsim

ROOT = Path(__file__).resolve().parents[2]
p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--duration", type=float, default=2.5, help="simulated seconds (default 2.5)")
p.add_argument("--plot", help="write the heights against time to this PNG")
args = p.parse_args()

scene = springsim.Scene.load(str(ROOT / "scenes/restitution_balls.toml"))
sim = springsim.Simulation(scene, backend="cpu", quiet=True)
es = [b["restitution"] for b in scene.to_dict()["bodies"]]
per = scene.nodes // len(es)  # three copies of one disk mesh
steps = int(round(args.duration / scene.dt))
low = np.empty((steps + 1, len(es)))
x = sim.positions
low[0] = [x[b * per:(b + 1) * per, 1].min() for b in range(len(es))]
for k in range(steps):
    sim.step()
    x = sim.positions
    low[k + 1] = [x[b * per:(b + 1) * per, 1].min() for b in range(len(es))]
t = np.arange(steps + 1) * scene.dt

print(f"{'e':>4} {'bounce':>6} {'height (m)':>11} {'e^2k h0 (m)':>12}")
for b, e in enumerate(es):
    h = low[:, b]
    # Apexes: the highest point between two contacts, after the first one.
    inside = np.flatnonzero(h < 2e-3)
    starts = [i for j, i in enumerate(inside) if j == 0 or i > inside[j - 1] + 1]
    for k, (a, z) in enumerate(zip(starts, starts[1:] + [len(h)]), start=1):
        apex = h[a:z].max()
        if apex < 5e-3:
            break
        print(f"{e:>4} {k:>6} {apex:>11.4f} {e ** (2 * k) * h[0]:>12.4f}")
summary = sim.summary()
print(f"intersection-free steps: {summary['steps']}, min wall distance {summary['min_wall_distance']:.2e} m")

if args.plot:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is not installed")
    else:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        for b, e in enumerate(es):
            ax.plot(t, low[:, b], label=f"e = {e}")
            for k in range(1, 4):
                ax.axhline(e ** (2 * k) * low[0, b], color=ax.lines[-1].get_color(),
                           lw=0.6, ls=":")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("lowest point of the disk (m)")
        ax.set_title("restitution_balls: bounce heights and e^(2k) h0 (dotted)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"wrote {args.plot}")
