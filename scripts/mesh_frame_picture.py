#!/usr/bin/env python3
"""Draws frames of a springsim run, read back from its ParaView series with meshio,
as one PNG: the mesh's surface triangles (or its springs when it has none), shaded
by their normal, above the ground plane, one panel per chosen frame.

    springsim run tet_drop --steps 120 --frames 10 --frame-format vtu --out out/tet_drop
    python3 scripts/mesh_frame_picture.py out/tet_drop docs/tet_drop_frames.png 0 40 80 120

Needs numpy, meshio and matplotlib (pip). The README's mesh picture was made this
way; the figure is what meshio reads from springsim's .vtu files, not springsim's
own renderer.
"""
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import meshio  # noqa: E402
import numpy as np  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection  # noqa: E402


def frames(run: Path):
    """(time, path) of every frame listed in RUN/frames.pvd."""
    root = ET.parse(run / "frames.pvd").getroot()
    return [(float(d.get("timestep")), run / d.get("file")) for d in root.iter("DataSet")]


def draw(ax, mesh, t, ground_y, limits):
    p = mesh.points
    # springsim writes y up; matplotlib's 3D axes have z up.
    q = np.column_stack([p[:, 0], p[:, 2], p[:, 1]])
    tris = [c.data for c in mesh.cells if c.type == "triangle"]
    if tris:
        faces = q[np.concatenate(tris)]
        n = np.cross(faces[:, 1] - faces[:, 0], faces[:, 2] - faces[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-30
        light = np.array([0.4, -0.5, 0.75])
        shade = 0.35 + 0.65 * np.abs(n @ (light / np.linalg.norm(light)))
        colors = plt.cm.Blues(0.35 + 0.6 * shade)
        ax.add_collection3d(Poly3DCollection(faces, facecolors=colors, edgecolors="k", linewidths=0.15))
    else:
        lines = [c.data for c in mesh.cells if c.type == "line"]
        ax.add_collection3d(Line3DCollection(q[np.concatenate(lines)], colors="tab:blue", linewidths=0.3))
    (x0, x1), (z0, z1), (y0, y1) = limits
    ground = [[(x0, z0, ground_y), (x1, z0, ground_y), (x1, z1, ground_y), (x0, z1, ground_y)]]
    ax.add_collection3d(Poly3DCollection(ground, facecolors="0.85", edgecolors="0.6", zorder=0))
    ax.set_xlim(x0, x1)
    ax.set_ylim(z0, z1)
    ax.set_zlim(y0, y1)
    ax.set_box_aspect((1, 1, 1))
    ax.set_axis_off()
    ax.set_title(f"t = {t:.2f} s", fontsize=9)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run, out = Path(sys.argv[1]), Path(sys.argv[2])
    steps = [int(s) for s in sys.argv[3:]]
    series = frames(run)
    if steps:
        series = [f for f in series if int(f[1].stem.split("_")[-1]) in steps]
    if not series:
        sys.exit(f"{run}/frames.pvd: no frame to draw")
    meshes = [(t, meshio.read(path)) for t, path in series]
    pts = np.concatenate([m.points for _, m in meshes])
    # The ground is the lowest point any frame reaches, less its wall distance.
    ground_y = min(
        float((m.points[:, 1] - np.ravel(m.point_data["wall_distance"])).min()) for _, m in meshes
    )
    half = 0.55 * max(np.ptp(pts[:, 0]), np.ptp(pts[:, 2]), pts[:, 1].max() - ground_y)
    cx, cz = pts[:, 0].mean(), pts[:, 2].mean()
    limits = ((cx - half, cx + half), (cz - half, cz + half), (ground_y, ground_y + 2 * half))
    fig = plt.figure(figsize=(2.4 * len(meshes), 2.6), dpi=120)
    for k, (t, m) in enumerate(meshes):
        ax = fig.add_subplot(1, len(meshes), k + 1, projection="3d")
        ax.view_init(elev=12, azim=-60)
        draw(ax, m, t, ground_y, limits)
    fig.tight_layout()
    fig.savefig(out)
    print(f"{out}: {len(meshes)} frames")


if __name__ == "__main__":
    main()
