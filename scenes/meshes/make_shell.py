"""Writes scenes/meshes/shell.obj: a closed triangle surface for the crumpling-shell
scene (scenes/shell_drop.toml), with no dependency beyond the standard library.

The surface is an icosphere of radius 0.3 m centred at the origin: the 12
vertices of an icosahedron, each triangle split into four `LEVELS` times, every
new vertex pushed out to the sphere. Four levels give 2,562 vertices and 5,120
triangles, the size of the public shell in issue 26.

    python3 scenes/meshes/make_shell.py
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RADIUS = 0.3
LEVELS = 4


def icosahedron():
    t = (1.0 + math.sqrt(5.0)) / 2.0
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0),
         (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
         (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
         (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    return [unit(p) for p in v], f


def unit(p):
    n = math.sqrt(sum(c * c for c in p))
    return tuple(c / n for c in p)


def subdivide(verts, faces):
    mid = {}

    def midpoint(a, b):
        key = (min(a, b), max(a, b))
        if key not in mid:
            pa, pb = verts[a], verts[b]
            verts.append(unit(tuple((x + y) / 2.0 for x, y in zip(pa, pb))))
            mid[key] = len(verts) - 1
        return mid[key]

    out = []
    for a, b, c in faces:
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        out += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return verts, out


def main():
    verts, faces = icosahedron()
    for _ in range(LEVELS):
        verts, faces = subdivide(verts, faces)
    with open(os.path.join(HERE, "shell.obj"), "w") as f:
        f.write(f"# icosphere, radius {RADIUS} m, {LEVELS} subdivisions: "
                f"{len(verts)} vertices, {len(faces)} triangles (make_shell.py)\n")
        for p in verts:
            f.write("v {:.6f} {:.6f} {:.6f}\n".format(*(RADIUS * c for c in p)))
        for a, b, c in faces:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")


if __name__ == "__main__":
    main()
