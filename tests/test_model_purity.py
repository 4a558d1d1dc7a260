"""The model layer imports no GUI, GPU or deep-learning library (it must run headless and fast)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import desktopapp.model

FORBIDDEN = ("PySide6", "torch", "pynvml", "pyqtgraph")

# Imports every module of desktopapp.model in a fresh interpreter and lists forbidden modules
# that ended up in sys.modules. PRELUDE runs first (the self-check below plants one there).
PROBE = """
import importlib, json, pkgutil, sys, types
{prelude}
import desktopapp.model as pkg
names = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + "."))
for name in names:
    importlib.import_module(name)
forbidden = {forbidden!r}
bad = sorted(m for m in sys.modules if m.split(".")[0].startswith(forbidden))
print(json.dumps({{"imported": names, "forbidden": bad}}))
"""


def _probe(prelude: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(prelude=prelude, forbidden=FORBIDDEN)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_model_modules_import_no_qt_torch_or_nvml():
    report = _probe()
    expected = {
        m.name for m in pkgutil.iter_modules(desktopapp.model.__path__, "desktopapp.model.")
    }
    assert set(report["imported"]) == expected
    for name in ("training", "memory", "inference", "presets", "catalog", "units"):
        assert f"desktopapp.model.{name}" in report["imported"]
    assert report["forbidden"] == []


def test_the_probe_notices_a_forbidden_module():
    report = _probe("sys.modules['pyqtgraph.fake'] = types.ModuleType('pyqtgraph.fake')")
    assert report["forbidden"] == ["pyqtgraph.fake"]
