"""Bodies from numpy arrays: springsim.mesh_body and Scene.add_body."""

import numpy as np
import pytest

import springsim

# a unit cube as 8 nodes and 5 tetrahedra
CUBE = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], dtype=float)
TETS = np.array([[0, 1, 3, 5], [0, 3, 2, 6], [0, 5, 4, 6], [3, 5, 6, 7], [0, 3, 6, 5]])


def cube_scene(**keys):
    body = springsim.mesh_body(0.2 * CUBE, tetrahedra=TETS, name="cube", density=1000.0,
                               spring_stiffness=1e4, translate=[0.0, 0.1, 0.0], **keys)
    return springsim.Scene.from_dict({
        "dimension": 3,
        "solver": {"dt": 1e-2, "gravity": [0.0, -9.81, 0.0]},
        "contact": {"dhat": 1e-3, "kappa": 1e5},
        "walls": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0]}],
        "bodies": [body],
    }, name="cube_drop")


def test_a_cube_from_arrays_falls_and_rests_on_the_ground():
    s = cube_scene()
    assert (s.nodes, s.dimension) == (8, 3)
    assert np.allclose(s.initial_positions, 0.2 * CUBE + [0.0, 0.1, 0.0])
    sim = springsim.Simulation(s, backend="cpu")
    sim.step(60)
    summ = sim.summary()
    assert summ["first_contact_step"] is not None and summ["min_wall_distance"] > 0
    assert np.abs(sim.velocities).max() < 0.05, "at rest on the ground"
    assert summ["intersection_checked_steps"] == 60


def test_add_body_appends_a_body_and_checks_it():
    s = springsim.Scene.load("square_drop")
    tri = np.array([[0.0, 1.0], [0.5, 1.0], [0.25, 1.4]])
    s.add_body(springsim.mesh_body(tri, triangles=[[0, 1, 2]], name="tri", density=100.0,
                                   spring_stiffness=1e3))
    assert s.nodes == 28
    assert 'name = "tri"' in s.to_toml()
    with pytest.raises(springsim.SceneError, match=r"bodies\[2\]\.triangles.*node 7 does not exist"):
        s.add_body(springsim.mesh_body(tri, triangles=[[0, 1, 7]], density=1.0, spring_stiffness=1.0))
    assert s.nodes == 28, "a refused body leaves the scene as it was"


def test_mesh_body_checks_its_arrays():
    with pytest.raises(ValueError, match="shape"):
        springsim.mesh_body(np.zeros(5), triangles=[[0, 1, 2]])
    with pytest.raises(ValueError, match="exactly one"):
        springsim.mesh_body(CUBE, triangles=[[0, 1, 2]], tetrahedra=TETS)
    with pytest.raises(ValueError, match="integers"):
        springsim.mesh_body(CUBE, tetrahedra=TETS.astype(float))
