"""springsim.Scene: loading, changes with the checks of --set, TOML and dicts."""

import pytest

import springsim


def test_bundled_scenes_load_by_name():
    names = springsim.scenes()
    assert "square_drop" in names and "cloth_drop" in names
    s = springsim.Scene.load("square_drop")
    assert (s.name, s.dimension, s.nodes, s.springs) == ("square_drop", 2, 25, 72)
    assert s.source == "bundled:square_drop"
    x0 = s.initial_positions
    assert x0.shape == (25, 2) and x0.dtype.name == "float64"


def test_unknown_scene_is_a_scene_error_naming_it():
    with pytest.raises(springsim.SceneError, match="no_such_scene: no such file"):
        springsim.Scene.load("no_such_scene")


def test_set_checks_like_the_command_line_and_keeps_the_scene_on_refusal():
    s = springsim.Scene.load("square_drop")
    s.set("solver.dt", 5e-3)
    assert s.dt == 5e-3
    with pytest.raises(springsim.SceneError) as e:
        s.set("solver.dt", -1.0)
    msg = str(e.value)
    assert "solver.dt" in msg and "positive" in msg and "\n" not in msg
    assert s.dt == 5e-3, "a refused change leaves the scene as it was"
    with pytest.raises(springsim.SceneError, match="no_such_key"):
        s.set("solver.no_such_key", 1)
    s.set("bodies[0].cells", [2, 2])
    assert s.nodes == 9
    s.set("solver.integrator", "newmark")
    assert 'integrator = "newmark"' in s.to_toml()


def test_set_takes_numpy_values():
    import numpy as np

    s = springsim.Scene.load("square_drop")
    s.set("solver.dt", np.float64(2e-3))
    s.set("bodies[0].cells", np.array([3, 3]))
    assert (s.dt, s.nodes) == (2e-3, 16)


def test_values_without_a_toml_form_are_type_errors():
    s = springsim.Scene.load("square_drop")
    with pytest.raises(TypeError, match="solver.dt"):
        s.set("solver.dt", object())


def test_toml_and_dict_round_trips_give_the_same_scene():
    s = springsim.Scene.load("square_drop")
    s.set("solver.dt", 4e-3)
    t = springsim.Scene.from_toml(s.to_toml())
    d = springsim.Scene.from_dict(s.to_dict())
    for other in (t, d):
        assert (other.name, other.nodes, other.springs, other.dt) == (s.name, s.nodes, s.springs, s.dt)
        assert (other.initial_positions == s.initial_positions).all()


def test_copies_are_independent():
    s = springsim.Scene.load("square_drop")
    c = s.copy()
    c.set("solver.dt", 1e-3)
    assert s.dt == 1e-2 and c.dt == 1e-3


def test_bad_toml_names_the_line():
    with pytest.raises(springsim.SceneError, match=r"<toml>:2"):
        springsim.Scene.from_toml("name = 'x'\n[solver\n")
