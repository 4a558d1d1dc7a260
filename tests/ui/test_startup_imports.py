"""Issue 25 startup: the first complete Workload tab loads only what it shows.

The cost model (planning), the "What to run on" search (advisor), the serving engine model,
the report and compare code, the other tabs, "did you mean" hints (difflib), CSV export and
hashlib are imported
when first used. Each costs milliseconds of module code (dozens of frozen dataclasses) before
the window's first tab is filled; this test fails when building the Workload tab imports one
of them again (a module-level import added back in model/, application/ or ui/).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Modules that the first Workload tab (figures and plots) does not use.
LAZY_MODULES = (
    "desktopapp.model.advisor",
    "desktopapp.model.planning",
    "desktopapp.model.serving",
    "desktopapp.model.idle_cost",
    "desktopapp.model.tco",
    "desktopapp.application.advisor",
    "desktopapp.application.compare",
    "desktopapp.application.cost",
    "desktopapp.application.report_html",
    "desktopapp.application.hardware",
    "desktopapp.application.monitor",
    "desktopapp.ui.estimate.advisor",
    "desktopapp.ui.cost.tab",
    "desktopapp.ui.hardware",
    "desktopapp.ui.monitor",
    "difflib",
    "calendar",
    # temporary file names use os.urandom: secrets would load OpenSSL's hashlib (about 7 ms)
    "secrets",
    "hashlib",
    "csv",  # table export only
    # np.unique's first call imports it (about 8 ms); the sweep grids use model.grids
    "numpy.ma",
    # the benchmarks' and the monitor's hardware libraries (heavy, and torch can take seconds)
    "torch",
    "pynvml",
)


def test_workload_tab_start_leaves_later_modules_unimported(isolated_home: Path) -> None:
    """In a fresh interpreter: show the window on the Workload tab, wait until its figures and
    plots are drawn, then list which of the lazily imported modules are loaded."""
    code = textwrap.dedent(
        f"""
        import sys, time
        from desktopapp import codecache, paths
        from desktopapp.app import _ensure_application, wait_until_ready
        codecache.install(paths.cache_dir())  # as main() does first
        app = _ensure_application()
        from desktopapp.ui.main_window import MainWindow
        window = MainWindow(initial_tab="estimate", remember=False)
        window.show()
        assert wait_until_ready(window, 20), "estimate tab not ready"
        content = window.tab_content("estimate")
        deadline = time.monotonic() + 20
        while not content.plots_drawn() and time.monotonic() < deadline:
            app.processEvents()
        assert content.plots_drawn(), "plots not drawn"
        loaded = sorted(m for m in {LAZY_MODULES!r} if m in sys.modules)
        print("LOADED", loaded)
        window.close()
        """
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout, result.stdout


def test_lazy_modules_list_names_real_modules() -> None:
    """A renamed module would make the check above pass vacuously."""
    code = "import importlib, sys\n" + "".join(
        f"importlib.import_module({name!r})\n" for name in LAZY_MODULES
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
