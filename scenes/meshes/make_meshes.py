"""Makes the sample meshes of scenes/meshes/ with Gmsh (and meshio for the OBJ).

Run from the repository root, in a Python environment with the PyPI packages
`gmsh` and `meshio` (e.g. `python3 -m venv /tmp/gmshenv &&
/tmp/gmshenv/bin/pip install gmsh meshio`):

    /tmp/gmshenv/bin/python scenes/meshes/make_meshes.py

It writes
  disk2d.msh   a 2D disk of radius 0.5 m centred at the origin, triangles,
               Gmsh MSH 4.1 ASCII;
  box3d.msh    a 1 m cube [0, 1]^3, tetrahedra, Gmsh MSH 4.1 binary;
  square2d.msh a 2D unit square [0, 1]^2, unstructured triangles, MSH 4.1
               ASCII (tests/mesh_stiffness.rs hangs it beside the grid);
  cloth.obj    a 1 m x 1 m sheet in the x-z plane (y = 0), 16 x 16 quads,
               meshed by Gmsh (transfinite, recombined) and written by meshio.
The meshes are small (a few hundred nodes) so that they can be committed and
the bundled scenes stay quick.
"""

import os

import gmsh
import meshio
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def triangles_2d(name, add_shape):
    """Meshes the 2D shape that `add_shape()` adds to a new model `name` with
    triangles of at most 0.1 m and writes it as NAME.msh (MSH 4.1 ASCII) here."""
    gmsh.model.add(name)
    add_shape()
    gmsh.model.occ.synchronize()
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.1)
    gmsh.model.mesh.generate(2)
    gmsh.option.setNumber("Mesh.Binary", 0)
    gmsh.write(os.path.join(HERE, name + ".msh"))
    gmsh.model.remove()


def disk():
    triangles_2d("disk2d", lambda: gmsh.model.occ.addDisk(0.0, 0.0, 0.0, 0.5, 0.5))


def square():
    triangles_2d(
        "square2d", lambda: gmsh.model.occ.addRectangle(0.0, 0.0, 0.0, 1.0, 1.0)
    )


def box():
    gmsh.model.add("box3d")
    gmsh.model.occ.addBox(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)
    gmsh.model.occ.synchronize()
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.25)
    gmsh.model.mesh.generate(3)
    gmsh.option.setNumber("Mesh.Binary", 1)
    gmsh.write(os.path.join(HERE, "box3d.msh"))
    gmsh.option.setNumber("Mesh.Binary", 0)
    gmsh.model.remove()


def cloth():
    gmsh.model.add("cloth")
    s = gmsh.model.occ.addRectangle(-0.5, -0.5, 0.0, 1.0, 1.0)
    gmsh.model.occ.synchronize()
    for _, c in gmsh.model.getEntities(1):
        gmsh.model.mesh.setTransfiniteCurve(c, 17)
    gmsh.model.mesh.setTransfiniteSurface(s)
    gmsh.model.mesh.setRecombine(2, s)
    gmsh.model.mesh.generate(2)
    tags, coords, _ = gmsh.model.mesh.getNodes()
    coords = coords.reshape(-1, 3)
    index = {int(t): i for i, t in enumerate(tags)}
    types, _, nodes = gmsh.model.mesh.getElements(2)
    quads = []
    for t, n in zip(types, nodes):
        if t == 3:  # 4-node quadrangle
            quads = [[index[int(v)] for v in q] for q in n.reshape(-1, 4)]
    # The sheet lies in the x-z plane: (x, y, 0) -> (x, 0, y).
    points = np.column_stack([coords[:, 0], np.zeros(len(coords)), coords[:, 1]])
    meshio.write(
        os.path.join(HERE, "cloth.obj"),
        meshio.Mesh(points, [("quad", np.array(quads))]),
    )
    gmsh.model.remove()


if __name__ == "__main__":
    gmsh.initialize()
    gmsh.option.setNumber("General.Terminal", 0)
    gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
    disk()
    square()
    box()
    cloth()
    gmsh.finalize()
