#!/usr/bin/env bash
# Set up .venv (scripts/setup.sh) and start the app. Arguments go to `desktopapp`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/desktopapp "$@"
