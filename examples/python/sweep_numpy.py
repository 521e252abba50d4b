"""A sweep whose arrays go straight into numpy: the square drop's bounce height
against the barrier stiffness kappa and the time step.

    python examples/python/sweep_numpy.py [--steps 120]
"""

import argparse

import numpy as np

import springsim

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--steps", type=int, default=120)
args = p.parse_args()

kappas = [1e4, 1e5, 1e6]
dts = [1e-2, 5e-3]
results = springsim.sweep("square_drop", {"contact.kappa": kappas, "solver.dt": dts},
                          steps=args.steps, trajectory=True, stride=2)

# (variants, frames, nodes, 2) -> centroid heights (variants, frames)
heights = np.stack([r["trajectory"][:, :, 1].mean(axis=1) for r in results
                    if r["trajectory"].shape[0] == results[0]["trajectory"].shape[0]])
print("kappa      dt      first contact  lowest centroid (m)  Newton its")
for r, h in zip(results, heights):
    v, s = r["values"], r["summary"]
    print(f"{v['contact.kappa']:8.0e} {v['solver.dt']:8.0e} {str(s['first_contact_step']):>14} "
          f"{h.min():19.6f} {s['newton_iterations']:11d}")
assert all(r["error"] is None for r in results)
