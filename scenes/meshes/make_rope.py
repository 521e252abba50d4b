"""Writes scenes/meshes/rope.obj: a straight polyline of 60 segments along x from
x = -1 m to x = 1 m (61 vertices, `l` elements), the rope of the rope scenes.

Plain Python, no packages: run from the repository root as
    python3 scenes/meshes/make_rope.py
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
SEGMENTS = 60

with open(os.path.join(HERE, "rope.obj"), "w") as f:
    f.write("# a 2 m rope along x: 60 segments (scenes/meshes/make_rope.py)\n")
    for i in range(SEGMENTS + 1):
        f.write(f"v {-1.0 + 2.0 * i / SEGMENTS:.6f} 0 0\n")
    for i in range(SEGMENTS):
        f.write(f"l {i + 1} {i + 2}\n")
