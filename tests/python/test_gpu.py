"""The GPU backend from Python (lavapipe in CI): agreement with the CPU, `auto`'s
note, and the fork guard."""

import os

import numpy as np
import pytest

import springsim
from conftest import gpu_or_skip

pytestmark = pytest.mark.gpu


def test_gpu_steps_agree_with_the_cpu():
    gpu_or_skip()
    s = springsim.Scene.load("square_drop")
    cpu = springsim.Simulation(s, backend="cpu")
    gpu = springsim.Simulation(s, backend="gpu", precision="f64")
    assert gpu.backend == "gpu" and gpu.precision == "f64"
    for _ in range(4):
        a, b = cpu.step(10), gpu.step(10)
        assert a["newton_iterations"] == b["newton_iterations"]
        # the same Newton iterations; CG to its tolerance on each (compare uses 1e-6 m)
        assert np.abs(cpu.positions - gpu.positions).max() < 1e-6
    summary = gpu.summary()
    assert summary["device_submissions"] > 0 and summary["backend"] == "gpu"


def test_gpu_state_can_be_set():
    gpu_or_skip()
    sim = springsim.Simulation(springsim.Scene.load("square_drop"), backend="gpu", precision="f32")
    v = np.zeros((25, 2))
    v[:, 0] = 1.0
    sim.set_velocities(v)
    assert np.allclose(sim.velocities, v)
    sim.step(3)
    assert sim.positions[:, 0].mean() > 0.02


def test_auto_skips_a_software_adapter_with_a_note(capfd):
    gpu_or_skip()
    if not all(d["software"] for d in springsim.devices() if d["primary"]):
        pytest.skip("a hardware GPU is present: auto takes it")
    sim = springsim.Simulation(springsim.Scene.load("square_drop"))
    assert sim.backend == "cpu"
    assert "note: running on the CPU backend" in capfd.readouterr().err


def test_a_forked_child_gets_a_clear_error():
    gpu_or_skip()
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    sim = springsim.Simulation(springsim.Scene.load("square_drop"), backend="gpu")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            sim.positions
            os.write(w, b"no error")
        except springsim.DeviceError as e:
            os.write(w, str(e).encode())
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    msg = os.read(r, 1000).decode()
    assert "a forked child cannot use it" in msg, msg
    sim.step()
    assert sim.steps_taken == 1, "the parent goes on"


def test_a_gpu_sweep_runs_as_one_batch_and_agrees_with_the_cpu(tmp_path):
    gpu_or_skip()
    vary = {"contact.kappa": [1e4, 1e5, 1e6], "solver.dt": [1e-2, 5e-3]}
    cpu = springsim.sweep("square_drop", vary, steps=40, trajectory=True, stride=10)
    gpu = springsim.sweep("square_drop", vary, steps=40, trajectory=True, stride=10,
                          backend="gpu", precision="f64", out=tmp_path)
    assert len(gpu) == 6
    for c, g in zip(cpu, gpu):
        assert g["error"] is None and g["summary"]["status"] == "completed"
        assert g["values"] == c["values"]
        assert g["summary"]["newton_iterations"] == c["summary"]["newton_iterations"]
        assert g["trajectory"].shape == c["trajectory"].shape == (5, 25, 2)
        assert np.abs(g["trajectory"] - c["trajectory"]).max() < 1e-6
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{i:04d}" for i in range(6)]
    assert (tmp_path / "0000" / "steps.csv").exists()
    scenes = []
    for kappa in (1e4, 1e5):
        s = springsim.Scene.load("square_drop")
        s.set("contact.kappa", kappa)
        scenes.append(s)
    results, totals = springsim.run_batch(scenes, [tmp_path / "a", tmp_path / "b"], 10)
    assert totals["batches"] == 1 and totals["alone"] == 0 and totals["submissions"] > 0
    assert all(r["summary"]["steps"] == 10 for r in results)


def test_compare_reports_what_the_command_reports(tmp_path):
    gpu_or_skip()
    r = springsim.compare(springsim.Scene.load("square_drop"), steps=30, out=tmp_path, precision="f64")
    assert r["steps"] == 30 and r["nodes"] == 25
    assert r["cpu"]["newton_iterations"] == r["gpu"]["newton_iterations"]
    assert r["max_position_difference"] < 1e-6
    assert (tmp_path / "compare_steps.csv").exists()


def test_a_gpu_that_cannot_run_the_scene_raises_device_error():
    gpu_or_skip()
    code = (
        "import springsim\n"
        "try:\n"
        "    springsim.Simulation(springsim.Scene.load('square_drop'), backend='gpu', precision='f64')\n"
        "except springsim.DeviceError as e:\n"
        "    print('DeviceError:', e)\n"
    )
    env = dict(os.environ, SPRINGSIM_GPU_HIDE_F64="1")
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith('DeviceError: backend="gpu":') and "f64" in p.stdout, p.stdout
