"""The layer contracts in pyproject.toml (``[tool.importlinter]``) hold: ``lint-imports``
passes. model imports nothing from devices/ui/commands/Qt/pyqtgraph/torch/pynvml, devices
nothing from ui/commands/Qt, the application layer and commands nothing from Qt, and the GUI
entry (app.py) does not import the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint_imports() -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("lint-imports")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command"
              " as c; sys.exit(c())"]
    )  # fmt: skip
    return subprocess.run(
        [*command, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_every_layer_contract_is_kept() -> None:
    done = lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout or "broken" not in done.stdout.split("Contracts:")[-1]
    kept = done.stdout.count(" KEPT")
    assert kept >= 4, done.stdout
