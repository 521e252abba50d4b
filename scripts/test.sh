#!/usr/bin/env bash
# The project's test command (README): formatting, lints, then every test, GPU tests
# included. Works on a fresh machine with only the Rust toolchain and the package
# registries: without a Vulkan driver it installs Mesa's lavapipe (a software Vulkan
# device), so every WGSL kernel runs here too.
set -euo pipefail
cd "$(dirname "$0")/.."

have_vulkan_icd() {
    compgen -G "/usr/share/vulkan/icd.d/*.json" >/dev/null ||
        compgen -G "/etc/vulkan/icd.d/*.json" >/dev/null
}
if ! have_vulkan_icd && command -v apt-get >/dev/null; then
    echo "scripts/test.sh: no Vulkan driver found; installing mesa-vulkan-drivers (lavapipe)" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
fi

# Adapter measurements cached in the user's folder (`springsim devices --calibrate`)
# would change what `auto` chooses on this machine: the tests keep their own, empty
# cache (the calibration tests make theirs).
export SPRINGSIM_CACHE_DIR="$(mktemp -d)"

# Vulkan loaders print a warning per instance without a valid runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
chmod 700 "$XDG_RUNTIME_DIR" 2>/dev/null || true

# Consumer tests read springsim's files back with numpy and meshio (and write meshes
# with meshio for springsim to read); tests/ipctk_reference.rs compares the contact
# distances, gradients, barrier and CCD with ipc-toolkit's Python bindings (ipctk):
# all from PyPI, in a venv under target/.
PYENV="$PWD/target/pyenv"
if ! "$PYENV/bin/python" -c 'import numpy, meshio, ipctk, pytest, matplotlib' 2>/dev/null; then
    echo "scripts/test.sh: installing numpy, meshio, ipctk, pytest and matplotlib into $PYENV" >&2
    python3 -m venv "$PYENV"
    "$PYENV/bin/python" -m pip install -q --disable-pip-version-check numpy meshio ipctk==1.6.1 pytest matplotlib
fi
export SPRINGSIM_PYTHON="$PYENV/bin/python"

# One build from a clean clone: incremental caches would only take disk (GBs).
export CARGO_INCREMENTAL=0

cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
cargo clippy -p springsim-py --locked -- -D warnings
cargo test --locked --all-targets

# The Python package (docs/PYTHON.md): `pip install .` from this checkout (maturin
# builds crates/springsim-py), then its tests and examples against the binary that
# `cargo test` built.
"$PYENV/bin/python" -m pip install -q --disable-pip-version-check .
SPRINGSIM_BIN="$PWD/target/debug/springsim" "$PYENV/bin/python" -m pytest -q tests/python
