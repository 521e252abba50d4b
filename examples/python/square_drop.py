"""Seed 003's square drop stepped from Python, with a plot of its height.

    python examples/python/square_drop.py [--steps 500] [--plot square_drop.png]

Steps the bundled scene on the CPU backend, reads the positions back as numpy
arrays after every step, and plots the centroid's and the lowest node's height
against time (matplotlib, if installed).
"""

import argparse

import numpy as np

import springsim

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--steps", type=int, default=500)
p.add_argument("--plot", default="square_drop.png", help="PNG to write ('' for none)")
args = p.parse_args()

scene = springsim.Scene.load("square_drop")
scene.set("contact.self_contact", False)  # the course's figures: no self-contact
sim = springsim.Simulation(scene, backend="cpu")

t, centroid, lowest = [0.0], [sim.positions[:, 1].mean()], [sim.positions[:, 1].min()]
for _ in range(args.steps):
    sim.step()
    y = sim.positions[:, 1]
    t.append(sim.time)
    centroid.append(y.mean())
    lowest.append(y.min())

s = sim.summary()
print(f"{s['steps']} steps, {s['newton_iterations']} Newton iterations, "
      f"first contact at step {s['first_contact_step']}, "
      f"lowest node {min(lowest):.6f} m (ground at -1, d^ = 0.01)")
if len(t) > 51:
    print(f"centroid at step 50: {centroid[50]:.6f} m (the course: -0.618102)")

if args.plot:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
    else:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(t, centroid, label="centroid")
        ax.plot(t, lowest, label="lowest node")
        ax.axhline(-1.0, color="k", lw=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("height (m)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print(f"plot: {args.plot}")
