"""Test set-up: offscreen Qt, isolated user folders, and leak checks.

- ``QT_QPA_PLATFORM=offscreen`` is set here, before anything imports Qt, so tests need no screen.
- ``DESKTOPAPP_HOME`` points at a temporary folder so settings, the results database and
  autosaves never touch the real user folders.
- The autouse ``no_leaked_threads`` fixture fails a test that leaves a Python thread running;
  Qt tests also fail if they leave a visible top-level window or a running worker behind.
- ``fake_nvml`` / ``no_nvml`` put a fake ``pynvml`` (``tests/fakes/fake_pynvml.py``) or none in
  ``sys.modules`` for the detection and monitor tests.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DESKTOPAPP_HOME", tempfile.mkdtemp(prefix="desktopapp-test-home-"))
# Hypothesis keeps its database out of the checkout.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "desktopapp-hypothesis")
)

import pytest
from hypothesis import settings

# CI draws the same examples every run (a red build must be reproducible, and a search that
# finds something new belongs in a developer run, not in the build gate); developers explore.
settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("explore", max_examples=5000, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(autouse=True)
def closed_widgets_are_deleted() -> None:
    """Run the deletions pytest-qt asked for the previous test's widgets (``deleteLater`` on
    each closed one). Only the event loop runs them, ``processEvents`` does not, so a test
    file's closed windows stayed alive for the rest of the worker's session (17 Cost tabs and
    469 plot menus by the time test_cost_readability ran), and every theme change restyled them
    all: 10 s per test instead of under 1 s."""
    if "PySide6.QtCore" not in sys.modules:
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def no_terminal_size_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    """``COLUMNS``/``LINES`` come from how pytest was started (a terminal exports them; each
    pytest-xdist worker sets ``COLUMNS=80``; GNU readline, once anything loads it, puts
    ``COLUMNS=80``/``LINES=24`` into the C environment behind ``os.environ``'s back, which child
    processes inherit): tests that need a width set it themselves."""
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
        os.unsetenv(name)  # the C-level copy a subprocess inherits, where os.environ had none


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 30.0  # grace for a loaded machine, not a speed limit
    while True:
        leaked = [
            t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon
        ]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"test left threads running: {[t.name for t in leaked]}"


@pytest.fixture
def isolated_home(tmp_path, monkeypatch) -> Iterator[os.PathLike[str]]:
    """A fresh DESKTOPAPP_HOME for tests that write settings or databases."""
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    yield tmp_path


@pytest.fixture
def fake_nvml(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """``install(gpus, **kwargs)`` puts a fake pynvml in place and resets the NVML wrapper;
    it returns the module (``module.calls`` counts the calls)."""
    from fakes.fake_pynvml import FakeGpu, make_module

    from desktopapp.devices import nvml

    def install(gpus: list[FakeGpu], **kwargs: Any) -> Any:
        module = make_module(gpus, **kwargs)
        nvml.shutdown()
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    yield install
    nvml.shutdown()  # before monkeypatch puts the real module back


@pytest.fixture
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``import pynvml`` fails, as on a machine without nvidia-ml-py."""
    from desktopapp.devices import nvml

    monkeypatch.setitem(sys.modules, "pynvml", None)
    nvml.shutdown()
    yield
    nvml.shutdown()


@pytest.fixture(scope="session")
def fresh_catalogs() -> dict[str, Any]:
    """Every catalog document built from ``../shared/reference`` (dated 2000-01-01), once per
    test session: the drift test and the perf-resource checks compare against it. Skips, with
    the reason, where the reference is absent (a clone outside the work tree)."""
    from pathlib import Path

    reference = Path(__file__).resolve().parents[2] / "shared" / "reference"
    if not (reference / "accelerators.csv").is_file():
        pytest.skip(f"reference tables not present at {reference} (a clone outside the work tree)")
    documents: dict[str, Any] = load_catalog_builder().build_all(reference, "2000-01-01")
    return documents


def load_catalog_builder() -> Any:
    """``scripts/build_catalogs.py`` as the module ``build_catalogs`` (loaded once)."""
    import importlib.util
    from pathlib import Path

    module = sys.modules.get("build_catalogs")
    if module is None:
        path = Path(__file__).resolve().parents[1] / "scripts" / "build_catalogs.py"
        spec = importlib.util.spec_from_file_location("build_catalogs", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["build_catalogs"] = module  # dataclasses look the module up
        spec.loader.exec_module(module)
    return module
