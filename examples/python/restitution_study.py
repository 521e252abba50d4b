"""Seed 000's restitution study as a loop over Simulations: a particle thrown at
the ground with IPC's barrier, its coefficient of restitution (COR) against d^,
kappa and h, for implicit Euler and Newmark.

    python examples/python/restitution_study.py [--quick]

The COR is read as `springsim restitution` reads it: the contact is the first run
of states within d^ of the ground; the speed in is the one at the state before it,
the speed out the one at the state that ends it. The particle here is a scene's
body, so its barrier is the scenes' (kappa weighted by the node's contact area,
docs/PHYSICS.md), not the seed's bare one that `springsim restitution` steps: the
figures differ (0.030 here against 0.013 there for the seed's implicit Euler case),
but they move with h, d^ and kappa the same way.
"""

import argparse

import numpy as np

import springsim

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--quick", action="store_true", help="a shorter drop (for the tests)")
args = p.parse_args()

X0, V0 = (0.05, -10.0) if args.quick else (10.0, -10.0)


def particle(integrator: str, h: float, dhat: float, kappa: float) -> springsim.Scene:
    """Seed 000's particle: 1 kg at height X0 moving at V0, no gravity, a ground at 0."""
    return springsim.Scene.from_dict({
        "name": "seed000_particle",
        "dimension": 2,
        "solver": {"dt": h, "gravity": [0.0, 0.0], "integrator": integrator, "tolerance": 1e-5},
        "contact": {"dhat": dhat, "kappa": kappa},
        "walls": [{"type": "plane", "point": [0.0, 0.0], "normal": [0.0, 1.0]}],
        "bodies": [{"name": "p", "generator": "particle", "mass": 1.0,
                    "center": [0.0, X0], "velocity": [0.0, V0]}],
    })


def cor(scene: springsim.Scene) -> str:
    """The first contact's COR, or `stuck` (still within d^ at the end) or `none`."""
    sim = springsim.Simulation(scene, backend="cpu")
    dhat = scene.to_dict()["contact"]["dhat"]
    v_before, v_in = sim.velocities[0, 1], None
    for _ in range(int(4 * X0 / abs(V0) / scene.dt) + 2000):
        sim.step()
        y, v = sim.positions[0, 1], sim.velocities[0, 1]
        if y < dhat and v_in is None:
            v_in = v_before  # the state before the contact
        elif y >= dhat and v_in is not None:
            return f"{abs(v / v_in):.4f}"  # the state that ends it
        v_before = v
    return "stuck" if v_in is not None else "none"


print(f"{'integrator':>10} {'h':>8} {'dhat':>8} {'kappa':>8}  COR")
for integrator in ["implicit_euler", "newmark"]:
    for h, dhat, kappa in [(1e-3, 1e-3, 100.0), (1e-3, 1e-2, 100.0), (1e-3, 1e-3, 1e4), (5e-4, 1e-3, 100.0)]:
        print(f"{integrator:>10} {h:8.0e} {dhat:8.0e} {kappa:8.0e}  {cor(particle(integrator, h, dhat, kappa))}")
