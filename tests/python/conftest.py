"""Shared fixtures of the Python package's tests (run by scripts/test.sh)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import springsim

ROOT = Path(__file__).resolve().parents[2]


def springsim_cli() -> str:
    """The command-line binary the tests compare with: $SPRINGSIM_BIN, else the one
    `cargo test` or `cargo build` left under target/."""
    for c in [os.environ.get("SPRINGSIM_BIN"), ROOT / "target/debug/springsim", ROOT / "target/release/springsim"]:
        if c and Path(c).is_file():
            return str(c)
    found = shutil.which("springsim")
    if found:
        return found
    pytest.fail("no springsim binary: run `cargo build` or set SPRINGSIM_BIN")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the command line; fails the test with its stderr where it fails."""
    p = subprocess.run([springsim_cli(), *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def gpu_or_skip() -> None:
    """Skips a GPU test where no adapter can run it, except under CI, where GPU tests
    never skip (scripts/test.sh installs lavapipe)."""
    if any(d["primary"] for d in springsim.devices()):
        return
    if os.environ.get("CI"):
        pytest.fail("CI is set but no GPU adapter is found (is lavapipe installed?)")
    pytest.skip("no GPU adapter")
