"""Driven nodes from Python (docs/SCRIPTED.md): a scene's `drive` sets, and targets
set before each step with `Simulation.set_targets`."""

import numpy as np
import pytest

import springsim


def grid(**body):
    b = {"generator": "grid", "size": [1.0, 1.0], "cells": [8, 8], "density": 1000.0,
         "material_stiffness": 2e5}
    b.update(body)
    return springsim.Scene.from_dict({
        "dimension": 2,
        "solver": {"dt": 0.01},
        "contact": {"dhat": 0.01, "kappa": 1e5},
        "bodies": [b],
    })


def test_a_driven_row_follows_its_script_and_reports_it():
    s = grid(drive=[{"name": "top", "where": "y > 0.4", "velocity": [0.0, 0.5]}])
    sim = springsim.Simulation(s, backend="cpu")
    top = np.arange(8, 81, 9)  # the 9 × 9 grid, column by column: y = 0.5 at 8, 17, …
    y0 = sim.positions[top, 1]
    records = [sim.step() for _ in range(10)]
    assert all(r["drive_lag"] == 0.0 for r in records)
    assert np.allclose(sim.positions[top, 1], y0 + 0.05, atol=1e-12)
    assert sum(r["drive_work"] for r in records) > 0.0, "stretching the square takes work"
    drives = sim.summary()["drives"]
    assert [(d["name"], d["nodes"], d["lagged_steps"]) for d in drives] == [("top", 9, 0)]


def test_targets_move_fixed_nodes_and_are_checked():
    sim = springsim.Simulation(grid(fixed=[0, 72]), backend="cpu")
    with pytest.raises(ValueError, match="set_targets: node 1 is free"):
        sim.set_targets([1], np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        sim.set_targets([0, 72], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="node 900 does not exist"):
        sim.set_targets([900], np.zeros((1, 2)))
    # Pull the bottom corners apart, 1 cm a step.
    for k in range(1, 6):
        sim.set_targets([0, 72], np.array([[-0.5 - 0.01 * k, -0.5], [0.5 + 0.01 * k, -0.5]]))
        rec = sim.step()
        assert rec["drive_lag"] == 0.0
    x = sim.positions
    assert np.allclose(x[[0, 72]], [[-0.55, -0.5], [0.55, -0.5]], atol=1e-12)
    assert sim.summary()["drives"][0]["name"] == "targets"


def test_a_turning_implicit_wall_from_a_dict_carries_a_ball_with_friction():
    def ball_in_circle(omega):
        return springsim.Scene.from_dict({
            "dimension": 2,
            "solver": {"dt": 0.005, "tolerance": 1e-6},
            "contact": {"dhat": 0.01, "kappa": 1e4, "barrier": "ipc"},
            "walls": [{"type": "implicit", "shape": "circle", "radius": 3.0, "friction": 0.5,
                       "drive": {"angular_velocity": omega}}],
            "bodies": [{"generator": "particle", "mass": 1.0, "radius": 0.3,
                        "center": [0.0, -2.68]}],
        })
    turning = springsim.Simulation(ball_in_circle(1.0), backend="cpu")
    records = [turning.step() for _ in range(200)]
    assert all(r["min_wall_distance"] > 0.0 for r in records)
    assert turning.positions[0, 0] > 0.2, "carried up the side the bottom moves to"
    assert [d["name"] for d in turning.summary()["drives"]] == ["walls[0]"]
    still = springsim.Simulation(ball_in_circle(0.0), backend="cpu")
    for _ in range(50):
        still.step()
    assert abs(still.positions[0, 0]) < 1e-9
