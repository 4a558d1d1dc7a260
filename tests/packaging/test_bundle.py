"""Build the PyInstaller one-folder bundle (Linux) and smoke-test it.

``packaging/build.sh`` builds into a temporary folder (the build venv is cached in
``build/pyinstaller-venv``; about 35 s the first time on 2 cores, 20 s after), then
``packaging/smoke_test.py`` runs the bundle offscreen from outside the checkout. Skipped, with
the reason, where PyInstaller cannot be installed (build.sh exits 3: offline) and on other
operating systems (their bundles are built by hand, see packaging/README-packaging.md).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="the Linux bundle is built on Linux"),
]

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 600


def load_smoke_test() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "desktopapp_smoke_test", REPO / "packaging" / "smoke_test.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PYTHON=sys.executable,  # a venv is made from its base interpreter: same Python version
        DIST_DIR=str(out / "dist"),
        WORK_DIR=str(out / "work"),
        BUNDLE_WITH_TORCH="0",
    )
    proc = subprocess.run(
        ["bash", "packaging/build.sh"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if proc.returncode == 3:
        pytest.skip(f"could not install PyInstaller for the build (offline?): {proc.stderr[-500:]}")
    assert proc.returncode == 0, f"build.sh failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    print(proc.stdout.strip().splitlines()[-1])
    return out / "dist" / "desktopapp"


def test_bundle_layout(bundle: Path) -> None:
    internal = bundle / "_internal"
    assert (bundle / "desktopapp").is_file() and os.access(bundle / "desktopapp", os.X_OK)
    for name in (
        "desktopapp.desktop",
        "io.github.desktopapp.MLCapacityPlanner.metainfo.xml",
        "install-desktop.sh",
    ):
        assert (bundle / name).is_file(), f"{name} is not in the bundle"
    # Torch is optional and left out by default (BUNDLE_WITH_TORCH=1 puts it in).
    assert not (internal / "torch").exists()
    # Unused Qt pieces stay out.
    qt_lib = internal / "PySide6" / "Qt" / "lib"
    assert not list(qt_lib.glob("libQt6Quick*")) and not list(qt_lib.glob("libQt6Qml*"))
    resources = REPO / "resources"
    missing = [
        p.relative_to(resources).as_posix()
        for p in resources.rglob("*")
        if p.is_file()
        and not p.name.endswith(".tmp")
        and not (internal / "desktopapp" / "resources" / p.relative_to(resources)).is_file()
    ]
    assert not missing, f"resources missing from the bundle: {missing}"


def test_bundle_smoke(bundle: Path) -> None:
    smoke = load_smoke_test()
    report = smoke.run_smoke(bundle, timeout=180)
    lines = [f"{s.status:4} {s.name:<30} {s.seconds:6.2f} s  {s.detail}" for s in report.steps]
    print("\n".join(lines))
    assert report.ok, "\n".join(lines)
    assert report.step("--screenshot") is not None
