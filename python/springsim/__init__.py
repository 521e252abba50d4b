"""springsim from Python: mass-spring meshes through Incremental Potential Contact.

The same scenes, backends and checks as the ``springsim`` command line, with numpy
arrays in and out::

    import springsim
    scene = springsim.Scene.load("square_drop")
    scene.set("solver.dt", 5e-3)
    sim = springsim.Simulation(scene, backend="cpu")
    stats = sim.step(100)            # the last step's row of steps.csv, as a dict
    x = sim.positions                # (nodes, dimension) float64, a copy you own

Errors carry the command line's one-line message: ``SceneError`` (a ``ValueError``)
for a scene, mesh or key springsim refuses, ``SimulationError`` for a run that
cannot go on, ``DeviceError`` where no GPU can run the scene. See docs/PYTHON.md.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._core import (
    DeviceError,
    Scene,
    SceneError,
    Simulation,
    SimulationError,
    __version__,
    check_intersections,
    check_run,
    devices,
    scenes,
)

__all__ = [
    "DeviceError",
    "Scene",
    "SceneError",
    "Simulation",
    "SimulationError",
    "__version__",
    "check_intersections",
    "check_run",
    "devices",
    "run",
    "scenes",
    "sweep",
]

SceneLike = Union[Scene, str, "os.PathLike[str]"]


def _scene(scene: SceneLike) -> Scene:
    """A Scene, loading a path or a bundled scene's name."""
    if isinstance(scene, Scene):
        return scene
    return Scene.load(os.fspath(scene))


def run(
    scene: SceneLike,
    steps: Optional[int] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    backend: str = "auto",
    precision: Optional[str] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Runs ``scene`` as ``springsim run`` does and returns its ``summary.json``.

    ``steps`` defaults to the scene's ``[run]``, else 100; ``out`` to
    ``out/SCENE_NAME``. ``options`` are the command's output options:
    ``trajectory`` (bool), ``trajectory_format`` ("csv" or "npy"),
    ``trajectory_stride`` (int), ``trajectory_precision`` ("f32" or "f64"),
    ``frames`` (every K steps), ``frame_format`` ("vtk", "vtu" or "ply") and
    ``progress`` (a bar on stderr). The folder holds exactly what the command writes.
    """
    sim = Simulation(_scene(scene), backend=backend, precision=precision)
    return sim.run(steps, out, **options)


def _variants(vary: Mapping[str, Sequence[Any]], zip_axes: bool) -> List[Dict[str, Any]]:
    """Every combination of the values in ``vary`` (or the i-th of each, zipped)."""
    keys = list(vary)
    values = [list(vary[k]) for k in keys]
    for k, v in zip(keys, values):
        if not v:
            raise ValueError(f"vary[{k!r}]: no values")
    if zip_axes:
        n = {len(v) for v in values}
        if len(n) > 1:
            raise ValueError(
                "zip=True needs the same number of values for every key, got "
                + ", ".join(f"{k}: {len(v)}" for k, v in zip(keys, values))
            )
        combos = list(zip(*values))
    else:
        combos = list(itertools.product(*values))
    return [dict(zip(keys, c)) for c in combos]


def sweep(
    scene: SceneLike,
    vary: Mapping[str, Sequence[Any]],
    steps: Optional[int] = None,
    backend: str = "cpu",
    precision: Optional[str] = None,
    trajectory: bool = False,
    stride: int = 1,
    jobs: Optional[int] = None,
    zip: bool = False,
) -> List[Dict[str, Any]]:
    """Runs one variant of ``scene`` per combination of the values in ``vary``
    (``{"solver.dt": [1e-2, 5e-3], "contact.dhat": [1e-2, 1e-3]}``: four variants;
    with ``zip=True`` the i-th value of each key together) and returns, per variant
    in order, a dict with ``values`` (the keys it set), ``summary`` (its
    ``summary.json`` keys), ``error`` (None, or why it failed: a failed variant does
    not stop the others) and, with ``trajectory=True``, ``trajectory``: a
    (frames, nodes, dimension) float64 array of the positions at step 0 and every
    ``stride``-th step, with ``times`` (s).

    Every variant is checked like a scene file before any runs (``SceneError``).
    Variants run ``jobs`` at a time (default: the CPU cores on the CPU backend, one
    on the GPU) in threads: a step releases the GIL.
    """
    base = _scene(scene)
    if stride < 1:
        raise ValueError("stride must be at least 1")
    todo = []
    for values in _variants(vary, zip):
        s = base.copy()
        for k, v in values.items():
            s.set(k, v)
        todo.append((values, s))
    n_steps = base.default_steps if steps is None else int(steps)
    if n_steps < 1:
        raise ValueError("steps must be at least 1")
    if jobs is None:
        jobs = (os.cpu_count() or 1) if backend == "cpu" else 1

    def one(item: Any) -> Dict[str, Any]:
        values, s = item
        result: Dict[str, Any] = {"values": values, "error": None}
        frames: List[np.ndarray] = []
        times: List[float] = []
        sim = Simulation(s, backend=backend, precision=precision, quiet=True)
        try:
            if trajectory:
                frames.append(sim.positions)
                times.append(sim.time)
            done = 0
            while done < n_steps:
                k = min(stride, n_steps - done) if trajectory else n_steps - done
                sim.step(k)
                done += k
                if trajectory and done % stride == 0:
                    frames.append(sim.positions)
                    times.append(sim.time)
        except SimulationError as e:
            result["error"] = str(e)
        result["summary"] = sim.summary()
        if trajectory:
            result["trajectory"] = np.stack(frames)
            result["times"] = np.asarray(times)
        return result

    with ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
        return list(pool.map(one, todo))
