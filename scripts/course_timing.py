"""Times the course's implicit step (phys-sim-book solid-sim-tutorial, 3_contact) on
the seed-003 square with N_SEG cells per side, falling freely onto y = -1.

Usage: python course_timing.py COURSE_3_CONTACT_DIR N_SEG STEPS

It imports the course's own modules from that folder (nothing of the course is part
of springsim), builds the inputs the course's simulator.py builds (rho = 1000,
k = 2e4, h = 0.01, tol = 1e-2, contact area side / n_seg), calls
time_integrator.step_forward STEPS times with its prints sent to /dev/null, and prints
one JSON line: seconds per step, nodes and the lowest node height at the end.
"""

import contextlib
import json
import os
import sys
import time


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: course_timing.py COURSE_3_CONTACT_DIR N_SEG STEPS")
    course, n_seg, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if not os.path.isfile(os.path.join(course, "time_integrator.py")):
        sys.exit(f"{course}: no time_integrator.py (expected the course's 3_contact folder)")
    sys.path.insert(0, course)
    import numpy as np
    import square_mesh
    import time_integrator

    side, rho, k, h, tol, y_ground = 1.0, 1000.0, 2e4, 0.01, 1e-2, -1.0
    x, e = square_mesh.generate(side, n_seg)
    n = len(x)
    v = np.zeros((n, 2))
    m = [rho * side * side / (n_seg + 1) ** 2] * n
    l2 = [float((x[a] - x[b]).dot(x[a] - x[b])) for a, b in e]
    ks = [k] * len(e)
    is_dbc = [False] * n
    contact_area = [side / n_seg] * n
    times = []
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        for _ in range(steps):
            t0 = time.perf_counter()
            x, v = time_integrator.step_forward(
                x, e, v, m, l2, ks, y_ground, contact_area, is_dbc, h, tol
            )
            times.append(time.perf_counter() - t0)
    print(
        json.dumps(
            {
                "nodes": n,
                "steps": steps,
                "s_per_step": sum(times) / len(times),
                "min_y": float(np.min(x[:, 1])),
            }
        )
    )


if __name__ == "__main__":
    main()
