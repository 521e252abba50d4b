"""What stepping from Python costs over `springsim run` (issue 53's target: at most
10 % per step on square_drop).

    python benches/python_step_overhead.py [--bin target/release/springsim] [--scene square_drop]

Both sides are timed as the difference between a short and a long run of the same
scene, so that start-up (loading, opening the backend, writing the first files)
cancels: the command line's whole process (its steps, steps.csv and summary.json)
against a Python loop of `sim.step()` that also builds each step's dict. Each pair
is run `--repeats` times; the medians are printed with the ratio.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

import springsim

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "springsim"))
p.add_argument("--scene", default="square_drop")
p.add_argument("--short", type=int, default=2000)
p.add_argument("--long", type=int, default=22000)
p.add_argument("--repeats", type=int, default=5)
args = p.parse_args()
extra = args.long - args.short


def cli_seconds(steps: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        subprocess.run([args.bin, "run", args.scene, "--backend", "cpu", "--steps", str(steps),
                        "--quiet", "--out", out], check=True)
        return time.perf_counter() - t


def python_seconds(steps: int) -> float:
    sim = springsim.Simulation(springsim.Scene.load(args.scene), backend="cpu")
    t = time.perf_counter()
    for _ in range(steps):
        sim.step()
    return time.perf_counter() - t


cli = [(cli_seconds(args.long) - cli_seconds(args.short)) / extra * 1e6 for _ in range(args.repeats)]
py = [(python_seconds(args.long) - python_seconds(args.short)) / extra * 1e6 for _ in range(args.repeats)]
c, q = statistics.median(cli), statistics.median(py)
print(f"{args.scene}, CPU backend, {extra} steps timed, median of {args.repeats}")
print(f"| springsim run (µs/step) | sim.step() from Python (µs/step) | Python / run |")
print(f"|---:|---:|---:|")
print(f"| {c:.2f} | {q:.2f} | {q / c:.3f} |")
