"""Load a springsim run's trajectory.npy into Blender as an animated mesh.

Usage (Blender 2.8x to 4.x; its bundled Python has numpy):

    blender --python scripts/blender_load_npy.py -- out/lattice_drop

or open this file in Blender's Text Editor, set RUN_DIR below and press Run Script.
The run must have been made with `springsim run SCENE --trajectory
--trajectory-format npy`. The script builds one mesh object "springsim" whose
vertices are the nodes (z = 0 for 2D runs), whose edges are the springs
(springs.npy) and whose faces are the triangles (triangles.npy, when the model has
any), and registers a frame-change handler that moves the vertices to the stored
frame matching the timeline frame (timeline frame 1 = stored frame 0). The array is
memory-mapped, so long runs are not loaded into memory at once. The handler lives
only in this Blender session: run the script again after reopening the .blend file.
"""

import json
import os
import sys

import bpy
import numpy as np

RUN_DIR = "out/square_drop"


def run_dir():
    """The run folder: the argument after `--`, else RUN_DIR."""
    if "--" in sys.argv and len(sys.argv) > sys.argv.index("--") + 1:
        return sys.argv[sys.argv.index("--") + 1]
    return RUN_DIR


def xyz(frame):
    """One stored frame as float32 [nodes, 3] (2D padded with z = 0)."""
    out = np.zeros((frame.shape[0], 3), dtype=np.float32)
    out[:, : frame.shape[1]] = frame
    return out


def load(path):
    traj = np.load(os.path.join(path, "trajectory.npy"), mmap_mode="r")
    springs = np.load(os.path.join(path, "springs.npy"))
    tri_path = os.path.join(path, "triangles.npy")
    faces = np.load(tri_path).tolist() if os.path.exists(tri_path) else []
    meta = json.load(open(os.path.join(path, "bodies.json")))
    mesh = bpy.data.meshes.new("springsim")
    mesh.from_pydata(xyz(traj[0]).tolist(), springs.tolist(), faces)
    mesh.update()
    obj = bpy.data.objects.new("springsim", mesh)
    bpy.context.collection.objects.link(obj)

    def on_frame(scene, *_):
        k = min(max(scene.frame_current - 1, 0), traj.shape[0] - 1)
        obj.data.vertices.foreach_set("co", xyz(traj[k]).ravel())
        obj.data.update()

    bpy.app.handlers.frame_change_post[:] = [
        h for h in bpy.app.handlers.frame_change_post if h.__name__ != "on_frame"
    ]
    bpy.app.handlers.frame_change_post.append(on_frame)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, traj.shape[0]
    # One stored frame per timeline frame at the run's time step × stride.
    scene.render.fps = max(1, round(1.0 / (meta["dt"] * meta["stride"])))
    print(f"springsim: {traj.shape[0]} frames of {traj.shape[1]} nodes from {path}")


load(run_dir())
