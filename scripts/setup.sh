#!/usr/bin/env bash
# Set up a virtual environment in .venv with the app and its test tools.
#
#   scripts/setup.sh            # install (idempotent; fast when already done)
#
# Torch: installs TORCH_SPEC (default "torch==2.13.0") unless a torch is already in .venv.
# On the project's build machines that pin resolves to a local CPU wheel, so no CUDA packages
# are downloaded. A GPU user installs a CUDA build into .venv first (see README), and this
# script keeps it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
TORCH_SPEC=${TORCH_SPEC:-torch==2.13.0}

started=$SECONDS
step() { echo "setup: $* (at $((SECONDS - started)) s)"; }

# Qt needs a few shared libraries that a minimal Debian/Ubuntu may lack: the first group for
# offscreen rendering (tests, --screenshot), the X11 group for a real window.
qt_libs=(libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core
         libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1)
if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    missing=()
    for pkg in "${qt_libs[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    if ((${#missing[@]})); then
        if [ "$(id -u)" = 0 ]; then
            step "installing system packages for Qt: ${missing[*]} (apt-get, usually under a minute)"
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null \
                || echo "setup: warning: could not install ${missing[*]} (Qt may fail to start)"
        else
            echo "setup: note: Qt may need: sudo apt-get install ${missing[*]}"
        fi
    fi
fi

# The cluster tests (tests/cluster) run a real Prometheus scraping a real node-exporter; they
# skip when these are missing. Installed only as root and never fatal.
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] \
    && { ! command -v prometheus >/dev/null 2>&1 || ! command -v prometheus-node-exporter >/dev/null 2>&1; }; then
    step "installing prometheus and prometheus-node-exporter for the cluster tests (apt-get)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends prometheus prometheus-node-exporter) >/dev/null 2>&1 \
        || echo "setup: warning: could not install prometheus (the cluster tests will skip)"
    # Debian's packages start system services where an init system runs; the tests start
    # their own on loopback ports and need none.
fi

if [ ! -x "$VENV/bin/python" ]; then
    step "creating the virtual environment $VENV"
    "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)

if ! "$VENV/bin/python" -c "import torch" >/dev/null 2>&1; then
    step "installing $TORCH_SPEC (a local CPU wheel on the project's machines: about 30 s; elsewhere pip may download a CUDA build of several GB, see README)"
    "${PIP[@]}" install "$TORCH_SPEC"
fi

# Reinstall the project only when pyproject.toml changed since the last install.
stamp="$VENV/.desktopapp-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    step "installing desktopapp with PySide6, pyqtgraph, numpy and the test tools (about 1 minute)"
    "${PIP[@]}" install -e ".[test]"
    touch "$stamp"
fi
step "ready"
