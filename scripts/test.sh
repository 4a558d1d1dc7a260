#!/usr/bin/env bash
# Set up .venv (scripts/setup.sh) and run the whole test suite on every core. Extra arguments
# go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
# One worker per core (pytest-xdist); a test file's tests stay on one worker, so module
# fixtures (the PyInstaller bundle, the wheel) are built once. PYTEST_WORKERS=0 runs serially.
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" --dist loadfile "$@"
