"""springsim.sweep, springsim.run, devices(), check_run() and the stubs."""

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import springsim
from springsim import _core


def test_sweep_runs_every_combination_with_trajectories():
    res = springsim.sweep("square_drop", {"solver.dt": [1e-2, 5e-3], "contact.kappa": [1e5, 1e6]},
                          steps=12, trajectory=True, stride=4, jobs=2)
    assert [r["values"] for r in res] == [
        {"solver.dt": 1e-2, "contact.kappa": 1e5}, {"solver.dt": 1e-2, "contact.kappa": 1e6},
        {"solver.dt": 5e-3, "contact.kappa": 1e5}, {"solver.dt": 5e-3, "contact.kappa": 1e6}]
    for r in res:
        assert r["error"] is None and r["summary"]["steps"] == 12
        assert r["trajectory"].shape == (4, 25, 2)
        assert r["summary"]["dt"] == r["values"]["solver.dt"]
        assert np.allclose(r["times"], r["summary"]["dt"] * np.array([0, 4, 8, 12]))
    # each variant is the one a Simulation of the same scene takes
    s = springsim.Scene.load("square_drop")
    s.set("solver.dt", 5e-3)
    s.set("contact.kappa", 1e6)
    sim = springsim.Simulation(s, backend="cpu")
    sim.step(12)
    assert np.array_equal(sim.positions, res[3]["trajectory"][-1])


def test_sweep_zip_and_its_errors():
    res = springsim.sweep("square_drop", {"solver.dt": [1e-2, 5e-3], "contact.kappa": [1e5, 1e6]}, steps=2, zip=True)
    assert len(res) == 2
    with pytest.raises(ValueError, match="zip=True needs the same number"):
        springsim.sweep("square_drop", {"solver.dt": [1e-2], "contact.kappa": [1e5, 1e6]}, steps=2, zip=True)
    with pytest.raises(springsim.SceneError, match="solver.dt"):
        springsim.sweep("square_drop", {"solver.dt": [1e-2, -1.0]}, steps=2)


def test_run_and_check_run(tmp_path):
    s = springsim.run("two_squares", steps=20, out=tmp_path, backend="cpu", trajectory=True)
    assert s["status"] == "completed"
    assert json.load(open(tmp_path / "summary.json"))["steps"] == 20
    report = springsim.check_run(tmp_path)
    assert report["states"] == 21 and report["crossings"] == []
    with pytest.raises(springsim.SimulationError):
        springsim.check_run(tmp_path / "missing")


def test_devices_lists_dicts():
    for d in springsim.devices():
        assert {"name", "primary", "software", "f64", "measured", "profile"} <= set(d)


def test_every_public_name_has_a_stub_and_every_stub_a_name():
    stub = Path(_core.__file__).with_name("_core.pyi") if Path(_core.__file__).with_name("_core.pyi").exists() \
        else Path(springsim.__file__).with_name("_core.pyi")
    tree = ast.parse(stub.read_text())
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stubbed.add(node.target.id)
    public = {n for n in dir(_core) if not n.startswith("_") or n == "__version__"}
    stubbed = {n for n in stubbed if not n.startswith("_") or n == "__version__"}
    assert public == stubbed
    for cls in ("Scene", "Simulation"):
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        methods = {m.name for m in node.body if isinstance(m, ast.FunctionDef)} - {"__init__"}
        real = {n for n in dir(getattr(_core, cls)) if not n.startswith("_")}
        assert methods == real, cls
    assert (Path(springsim.__file__).parent / "py.typed").exists()


def test_run_takes_a_nonsmooth_scene_as_the_command_does(tmp_path):
    s = springsim.Scene.load("ball_bounce")
    assert s.contact_model == "nonsmooth"
    assert springsim.Scene.load("square_drop").contact_model == "ipc"
    summary = springsim.run(s, steps=150, out=tmp_path / "py")
    assert summary["status"] == "completed" and summary["steps"] == 150
    from conftest import run_cli

    run_cli("run", "ball_bounce", "--steps", "150", "--quiet", "--out", str(tmp_path / "cli"))
    strip = lambda p: [r.rsplit(",", 1)[0] for r in p.read_text().splitlines()]
    assert (tmp_path / "py" / "steps.csv").exists()
    assert strip(tmp_path / "py" / "steps.csv") == strip(tmp_path / "cli" / "steps.csv")
    with pytest.raises(ValueError, match="CPU only"):
        springsim.run(s, steps=5, out=tmp_path / "g", backend="gpu")


def test_ctrl_c_stops_a_run_on_its_own_thread_and_the_next_run_goes_on(tmp_path):
    import os
    import signal
    import threading

    s = springsim.Scene.load("ball_bounce")
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        springsim.run(s, steps=10**8, out=tmp_path / "a")
    stopped = json.load(open(tmp_path / "a" / "summary.json"))
    assert stopped["status"] == "interrupted" and 0 < stopped["steps"] < 10**8
    again = springsim.run(s, steps=20, out=tmp_path / "b")
    assert again["status"] == "completed" and again["steps"] == 20
