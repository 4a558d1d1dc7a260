#!/usr/bin/env bash
# Smoke test of the bundle: starts it offscreen, prints --version, runs `detect --json`,
# `catalog accelerators --json` and --screenshot, with timings. Details: smoke_test.py.
#
#   packaging/smoke_test.sh                  # dist/desktopapp
#   packaging/smoke_test.sh path/to/bundle   # or a desktopapp program
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "${PYTHON:-python3}" "$here/smoke_test.py" "$@"
