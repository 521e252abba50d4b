"""springsim.Simulation on the CPU backend: the same bits as `springsim run`, the
course's figures, arrays that are copies, state changes that are checked, errors."""

import csv
import json
import os
import signal
import threading

import numpy as np
import pytest

import springsim
from conftest import run_cli


def square(**keys):
    s = springsim.Scene.load("square_drop")
    for k, v in keys.items():
        s.set(k.replace("__", "."), v)
    return s


def test_steps_equal_the_command_line_to_the_last_bit(tmp_path):
    run_cli("run", "square_drop", "--backend", "cpu", "--steps", "60", "--quiet",
            "--trajectory", "--trajectory-format", "npy", "--trajectory-precision", "f64",
            "--out", str(tmp_path))
    traj = np.load(tmp_path / "trajectory.npy")
    rows = list(csv.DictReader(open(tmp_path / "steps.csv")))
    sim = springsim.Simulation(springsim.Scene.load("square_drop"), backend="cpu")
    assert np.array_equal(sim.positions, traj[0])
    for k in range(1, 61):
        rec = sim.step()
        assert np.array_equal(sim.positions, traj[k]), f"step {k}"
        row = rows[k - 1]
        assert rec["step"] == int(row["step"]) == k
        assert rec["newton_iterations"] == int(row["newton_iterations"])
        assert rec["cg_iterations"] == int(row["cg_iterations"])
        assert rec["total"] == float(row["total"])
    summary = json.load(open(tmp_path / "summary.json"))
    mine = sim.summary()
    assert set(mine) == set(summary), "summary() has the keys of summary.json"
    for k in ["steps", "newton_iterations", "cg_iterations", "first_contact_step", "min_wall_distance", "final_centroid"]:
        assert mine[k] == summary[k], k


def test_the_course_square_drop_figures_from_python():
    sim = springsim.Simulation(square(contact__self_contact=False), backend="cpu")
    ys = {0: sim.positions[:, 1]}
    for k in range(1, 501):
        sim.step()
        if k in (32, 50, 75, 100, 500):
            ys[k] = sim.positions[:, 1]
    assert sim.summary()["first_contact_step"] == 32
    for step, want, tol in [(50, -0.618102, 5e-4), (75, -0.357813, 5e-4), (100, -0.574023, 2e-3), (500, -0.510917, 2e-3)]:
        assert abs(ys[step].mean() - want) <= tol, (step, ys[step].mean())
    bottom = ys[500][ys[500] < -0.9]
    assert len(bottom) == 5 and np.all(np.abs(bottom + 0.990752) <= 5e-4)


def test_arrays_are_new_copies():
    sim = springsim.Simulation(square(), backend="cpu")
    x = sim.positions
    x[:] = 123.0
    assert not np.any(sim.positions == 123.0)
    assert sim.positions is not sim.positions
    assert sim.velocities.shape == (25, 2) and sim.velocities.dtype == np.float64


def test_time_steps_and_step_many():
    sim = springsim.Simulation(square(), backend="cpu")
    rec = sim.step(7)
    assert rec["step"] == 7 and sim.steps_taken == 7
    # no pair near: +inf, not None; no stall: None; in steps.csv's column order
    assert rec["min_pair_distance"] == float("inf") and rec["stall"] is None
    assert list(rec)[:3] == ["step", "time", "newton_iterations"]
    assert sim.time == pytest.approx(0.07)
    assert sim.backend == "cpu" and sim.precision == "f64"
    with pytest.raises(ValueError):
        sim.step(0)


def test_set_velocities_starts_from_the_new_state():
    a = springsim.Simulation(square(), backend="cpu")
    b = springsim.Simulation(square(), backend="cpu")
    up = np.zeros((25, 2))
    up[:, 1] = 3.0
    b.set_velocities(up)
    assert np.array_equal(b.velocities, up)
    a.step(5)
    b.step(5)
    assert b.positions[:, 1].mean() > a.positions[:, 1].mean() + 0.1


def test_set_positions_is_checked():
    sim = springsim.Simulation(square(), backend="cpu")
    x = sim.positions
    sim.set_positions(x + [0.5, 0.2])
    assert np.allclose(sim.positions, x + [0.5, 0.2])
    below = x.copy()
    below[:, 1] -= 10.0
    with pytest.raises(ValueError, match="set_positions: a node is on or behind a wall"):
        sim.set_positions(below)
    with pytest.raises(ValueError, match=r"shape \(25, 2\)"):
        sim.set_positions(np.zeros((3, 2)))
    nan = x.copy()
    nan[4, 0] = np.nan
    with pytest.raises(ValueError, match="node 4"):
        sim.set_positions(nan)
    assert np.allclose(sim.positions, x + [0.5, 0.2]), "a refused state changes nothing"


def test_bad_options_are_value_errors():
    s = square()
    with pytest.raises(ValueError, match="backend=\"quantum\": expected one of auto, cpu, gpu"):
        springsim.Simulation(s, backend="quantum")
    with pytest.raises(springsim.SceneError, match="precision"):
        springsim.Simulation(s, precision="f16")


def test_a_nonsmooth_scene_says_how_to_run_it():
    with pytest.raises(springsim.SceneError, match="nonsmooth"):
        springsim.Simulation(springsim.Scene.load("ball_nonsmooth"), backend="cpu")


def test_run_writes_what_the_command_line_writes(tmp_path):
    cli, py = tmp_path / "cli", tmp_path / "py"
    run_cli("run", "square_drop", "--backend", "cpu", "--steps", "40", "--quiet",
            "--trajectory", "--frames", "20", "--out", str(cli))
    sim = springsim.Simulation(square(), backend="cpu")
    s = sim.run(40, py, trajectory=True, frames=20)
    assert s["status"] == "completed" and s["steps"] == 40
    assert sorted(p.name for p in py.rglob("*")) == sorted(p.name for p in cli.rglob("*"))
    assert (py / "trajectory.csv").read_bytes() == (cli / "trajectory.csv").read_bytes()
    for f in ["scene.toml", "frames/frame_000020.vtk"]:
        assert (py / f).read_bytes() == (cli / f).read_bytes(), f
    strip = lambda p: [r[:-1] for r in csv.reader(open(p))]  # wall_ms differs
    assert strip(py / "steps.csv") == strip(cli / "steps.csv")
    assert json.load(open(py / "summary.json"))["first_contact_step"] == s["first_contact_step"]
    assert sim.steps_taken == 40
    sim.step()
    assert sim.summary()["steps"] == 41


def test_run_rejects_unknown_options(tmp_path):
    sim = springsim.Simulation(square(), backend="cpu")
    with pytest.raises(TypeError, match="trajectroy"):
        sim.run(5, tmp_path, trajectroy=True)


def test_ctrl_c_stops_after_the_step_under_way(tmp_path):
    sim = springsim.Simulation(square(), backend="cpu")
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        sim.step(10**8)
    taken = sim.steps_taken
    assert 0 < taken < 10**8
    sim.step()
    assert sim.steps_taken == taken + 1, "an interrupted simulation goes on"
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(10**8, tmp_path)
    s = json.load(open(tmp_path / "summary.json"))
    assert s["status"] == "interrupted" and s["steps"] > taken


def test_set_positions_refuses_bodies_that_cross():
    s = springsim.Scene.load("two_squares")
    sim = springsim.Simulation(s, backend="cpu")
    x = sim.positions
    half = s.nodes // 2
    y = x.copy()
    y[half:] = x[:half] + [0.13, 0.07]  # the second square over the first
    with pytest.raises(ValueError, match=r"set_positions: edge \(nodes .*\) and edge \(nodes .*\) cross"):
        sim.set_positions(y)
    assert np.array_equal(sim.positions, x)


def test_an_intersection_free_self_contact_run_is_checked_each_step():
    s = springsim.Scene.load("two_squares")
    sim = springsim.Simulation(s, backend="cpu")
    sim.step(30)
    summ = sim.summary()
    assert summ["intersection_checked_steps"] == 30
    assert springsim.check_intersections(s, sim.positions) == []


def test_restitution_is_a_scene_key_and_the_bounce_is_e():
    # A particle dropped onto the ground with the restitution law (docs/RESTITUTION.md).
    s = springsim.Scene.from_dict({
        "dimension": 2,
        "solver": {"dt": 1e-3, "gravity": [0.0, 0.0], "tolerance": 1e-7},
        "contact": {"dhat": 1e-3, "kappa": 1e4},
        "walls": [{"type": "plane", "point": [0.0, 0.0], "normal": [0.0, 1.0]}],
        "bodies": [{"generator": "particle", "mass": 1.0, "center": [0.0, 0.02],
                    "velocity": [0.0, -1.0]}],
    })
    s.set("contact.restitution", 0.6)
    with pytest.raises(springsim.SceneError, match="between 0 and 1"):
        s.set("contact.restitution", 1.5)
    sim = springsim.Simulation(s, backend="cpu")
    corrected = sum(sim.step()["rebounds"] for _ in range(60))
    assert corrected > 0
    assert sim.velocities[0, 1] == pytest.approx(0.6, abs=1e-9)
    rebound = sim.summary()["first_rebound"]
    assert rebound["cor"] == pytest.approx(0.6, abs=1e-9)
