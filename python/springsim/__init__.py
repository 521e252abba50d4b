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
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from ._core import (
    DeviceError,
    Scene,
    SceneError,
    Simulation,
    SimulationError,
    __version__,
    check_intersections,
    check_run,
    compare,
    devices,
    run_batch,
    run_nonsmooth,
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
    "compare",
    "devices",
    "mesh_body",
    "run",
    "run_batch",
    "run_nonsmooth",
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
    A scene with ``contact.model = "nonsmooth"`` (seed 002's particles) runs on the
    CPU without a backend, as the command runs it.
    """
    s = _scene(scene)
    if s.contact_model == "nonsmooth":
        # seed 002's impulse scheme steps its particles without a backend
        if backend == "gpu":
            raise ValueError(f'scene `{s.name}` uses contact.model = "nonsmooth", which runs on the CPU only')
        return run_nonsmooth(s, steps, out, **options)
    sim = Simulation(s, backend=backend, precision=precision)
    return sim.run(steps, out, **options)


def mesh_body(
    nodes: "npt.ArrayLike",
    *,
    segments: Optional["npt.ArrayLike"] = None,
    triangles: Optional["npt.ArrayLike"] = None,
    tetrahedra: Optional["npt.ArrayLike"] = None,
    **keys: Any,
) -> Dict[str, Any]:
    """A mesh body from arrays, as a dict for ``Scene.add_body`` or the ``bodies``
    list of ``Scene.from_dict``: ``nodes`` (m, shape (n, dimension)) and exactly one
    of ``segments`` (shape (m, 2)), ``triangles`` (m, 3) or ``tetrahedra`` (m, 4),
    0-based node indices; ``keys`` are the body's other scene keys (``name``,
    ``density``, ``spring_stiffness`` or ``material_stiffness``, ``velocity``,
    ``fixed``, ``bending``, ``center`` or ``translate``, ``scale``, ``rotate`` …).

    The scene checks and repairs the mesh as it does a mesh file (docs/PYTHON.md).
    """
    x = np.asarray(nodes, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] not in (2, 3):
        raise ValueError(f"nodes: expected an array of shape (n, 2) or (n, 3), got {x.shape}")
    given = {k: v for k, v in (("segments", segments), ("triangles", triangles), ("tetrahedra", tetrahedra)) if v is not None}
    if len(given) != 1:
        raise ValueError("give exactly one of segments, triangles and tetrahedra")
    (kind, elements), = given.items()
    width = {"segments": 2, "triangles": 3, "tetrahedra": 4}[kind]
    e = np.asarray(elements)
    if e.ndim != 2 or e.shape[1] != width or not np.issubdtype(e.dtype, np.integer):
        raise ValueError(f"{kind}: expected integers of shape (m, {width}), got {e.dtype} {e.shape}")
    body: Dict[str, Any] = {"generator": "mesh", "nodes": x.tolist(), kind: e.astype(np.int64).tolist()}
    body.update(keys)
    return body


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
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    batch: int = 1024,
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
    On the CPU (``backend="cpu"``) variants run ``jobs`` at a time (default: the
    cores) in threads: a step releases the GIL. On the GPU (``backend="gpu"``) they
    run as batched ensembles, at most ``batch`` per batch, as
    ``springsim sweep --backend gpu`` runs them; a variant a batch cannot hold runs
    alone. With ``out``, each variant's folder ``out/NNNN`` holds what
    ``springsim run`` writes for it; on the GPU without ``out`` the folders are
    temporary.
    """
    base = _scene(scene)
    if stride < 1:
        raise ValueError("stride must be at least 1")
    if backend not in ("cpu", "gpu"):
        raise ValueError(f'backend={backend!r}: expected "cpu" or "gpu"')
    todo = []
    for values in _variants(vary, zip):
        s = base.copy()
        for k, v in values.items():
            s.set(k, v)
        if precision is not None:
            s.set("solver.precision", precision)
        todo.append((values, s))
    n_steps = base.default_steps if steps is None else int(steps)
    if n_steps < 1:
        raise ValueError("steps must be at least 1")
    width = max(4, len(str(len(todo) - 1)))
    dirs = [None if out is None else os.path.join(os.fspath(out), f"{i:0{width}d}") for i in range(len(todo))]
    if backend == "gpu":
        return _sweep_batched(todo, dirs, n_steps, trajectory, stride, batch)
    if jobs is None:
        jobs = os.cpu_count() or 1

    def one(i: int) -> Dict[str, Any]:
        values, s = todo[i]
        result: Dict[str, Any] = {"values": values, "error": None}
        sim = Simulation(s, backend="cpu", quiet=True)
        if dirs[i] is not None:
            try:
                sim.run(n_steps, dirs[i], trajectory=trajectory, trajectory_format="npy",
                        trajectory_stride=stride, trajectory_precision="f64")
            except SimulationError as e:
                result["error"] = str(e)
            result["summary"] = sim.summary()
            if trajectory:
                _load_trajectory(result, dirs[i])
            return result
        frames: List[np.ndarray] = [sim.positions] if trajectory else []
        times: List[float] = [sim.time] if trajectory else []
        try:
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
        return list(pool.map(one, range(len(todo))))


def _load_trajectory(result: Dict[str, Any], folder: str) -> None:
    """Puts a run folder's trajectory.npy and times.npy into ``result``."""
    path = os.path.join(folder, "trajectory.npy")
    if os.path.exists(path):
        result["trajectory"] = np.load(path)
        result["times"] = np.load(os.path.join(folder, "times.npy"))


def _sweep_batched(todo: List[Any], dirs: List[Optional[str]], steps: int, trajectory: bool,
                   stride: int, batch: int) -> List[Dict[str, Any]]:
    """The GPU half of ``sweep``: the variants as batched ensembles (``run_batch``)."""
    with tempfile.TemporaryDirectory(prefix="springsim-sweep-") as tmp:
        folders = [d if d is not None else os.path.join(tmp, f"{i:04d}") for i, d in enumerate(dirs)]
        outcomes, _ = run_batch([s for _, s in todo], folders, steps, trajectory, stride, batch)
        results = []
        for (values, _), folder, o in zip(todo, folders, outcomes):
            r: Dict[str, Any] = {"values": values, "error": o["error"], "summary": o["summary"]}
            if r["summary"] is None:
                try:
                    with open(os.path.join(folder, "summary.json")) as f:
                        r["summary"] = json.load(f)
                except (OSError, ValueError):
                    pass
            if trajectory:
                _load_trajectory(r, folder)
            results.append(r)
        return results
