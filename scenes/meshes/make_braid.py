"""Writes scenes/meshes/braid.obj: a 1 m rope with thickness along x, a chain of 50
triangular prisms (51 stations 2 cm apart, three vertices each on a circle of radius
1 cm about the x axis), all as `l` elements: the three strands, the triangle at
each station, and one diagonal per side face (its shear and torsion springs). A
polyline has no torsion; this one does, so a rope twisted by its ends winds up and
coils (scenes/rope_twist.toml).

Plain Python, no packages: run from the repository root as
    python3 scenes/meshes/make_braid.py
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PRISMS = 50
RADIUS = 0.01

with open(os.path.join(HERE, "braid.obj"), "w") as f:
    f.write("# a 1 m rope of 50 triangular prisms along x (scenes/meshes/make_braid.py)\n")
    for k in range(PRISMS + 1):
        x = -0.5 + k / PRISMS
        for j in range(3):
            a = 2.0 * math.pi * j / 3.0
            f.write(f"v {x:.6f} {RADIUS * math.cos(a):.6f} {RADIUS * math.sin(a):.6f}\n")

    def v(k, j):
        return 3 * k + j % 3 + 1

    for k in range(PRISMS + 1):
        for j in range(3):
            f.write(f"l {v(k, j)} {v(k, j + 1)}\n")
            if k < PRISMS:
                f.write(f"l {v(k, j)} {v(k + 1, j)}\n")
                f.write(f"l {v(k, j)} {v(k + 1, j + 1)}\n")
