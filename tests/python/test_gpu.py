"""The GPU backend from Python (lavapipe in CI): agreement with the CPU, `auto`'s
note, and the fork guard."""

import os

import numpy as np
import pytest

import springsim
from conftest import gpu_or_skip


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
