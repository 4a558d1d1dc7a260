"""Startup time: process start → first window exposed, the app against a bare window.

Each run starts a fresh interpreter that prints the wall-clock time at which its main window
is first exposed (or shown, where the platform sends no expose event) and exits. The baseline
is a bare PySide6 + pyqtgraph window (a QMainWindow holding one PlotWidget) measured in the
same session, alternating with the app so drift hits both alike. Prints the medians, the ratio
and whether torch was imported before the window appeared (it must not be).

    .venv/bin/python benchmarks/startup.py [--runs 7] [--target 1.3]

Without a display the runs use ``QT_QPA_PLATFORM=offscreen``. Exit status 1 when torch was
imported at startup or a child failed; the ratio is reported, not enforced.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARK = "STARTUP"

_CHILD_PROBE = """
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QWindow


class _Probe(QObject):
    def __init__(self, app):
        super().__init__()
        self.app = app
        self.done = False

    def eventFilter(self, obj, event):
        kind = event.type()
        exposed = kind == QEvent.Type.Expose and isinstance(obj, QWindow) and obj.isExposed()
        if not self.done and exposed:
            self.done = True
            shown = time.time()
            heavy = ",".join(m for m in ("torch", "pynvml") if m in sys.modules) or "-"
            print(f"{MARK} {shown!r} heavy={heavy}", flush=True)
            QTimer.singleShot(0, self.app.quit)
        return False
"""


def child(mode: str) -> int:
    """Runs in the measured process."""
    from PySide6.QtWidgets import QApplication

    namespace: dict[str, object] = {"time": time, "sys": sys, "MARK": MARK}
    exec(_CHILD_PROBE, namespace)  # the same probe for both modes
    if mode == "app":
        from desktopapp.ui.common.qt_compat import guard_singleton_refcounts

        guard_singleton_refcounts()
    app = QApplication(sys.argv[:1])
    probe = namespace["_Probe"](app)  # type: ignore[operator]
    app.installEventFilter(probe)
    if mode == "bare":
        import pyqtgraph
        from PySide6.QtWidgets import QMainWindow

        window = QMainWindow()
        window.setWindowTitle("bare")
        window.setCentralWidget(pyqtgraph.PlotWidget())
        window.resize(1400, 900)
        window.show()
        app.exec()
    else:
        from desktopapp.app import main

        main([])
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: it is not part of startup


def measure(mode: str, env: dict[str, str]) -> tuple[float, str]:
    start = time.time()
    result = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", mode],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    for line in result.stdout.splitlines():
        if line.startswith(MARK):
            _mark, shown, heavy = line.split()
            return float(shown) - start, heavy.removeprefix("heavy=")
    raise RuntimeError(f"{mode} run printed no timestamp (exit {result.returncode}):\n"
                       f"{result.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per mode (median)")
    parser.add_argument("--target", type=float, default=1.3, help="ratio to aim for")
    parser.add_argument("--child", choices=("bare", "app"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)

    env = dict(os.environ)
    if not env.get("QT_QPA_PLATFORM") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env["QT_QPA_PLATFORM"] = "offscreen"
    home = tempfile.mkdtemp(prefix="desktopapp-startup-")
    env["DESKTOPAPP_HOME"] = home  # fresh settings: default geometry, first tab
    env["PYTHONDONTWRITEBYTECODE"] = "0"

    times: dict[str, list[float]] = {"bare": [], "app": []}
    heavy_seen: set[str] = set()
    for mode in ("bare", "app"):  # warm-up: bytecode and file caches
        measure(mode, env)
    for _ in range(args.runs):
        for mode in ("bare", "app"):
            seconds, heavy = measure(mode, env)
            times[mode].append(seconds)
            if mode == "app" and heavy != "-":
                heavy_seen.update(heavy.split(","))

    bare = statistics.median(times["bare"])
    app = statistics.median(times["app"])
    ratio = app / bare
    platform = env.get("QT_QPA_PLATFORM", "default")
    print(f"platform: {platform}; runs per mode: {args.runs} (after one warm-up each)")
    print(f"bare PySide6 + pyqtgraph window: median {bare * 1000:7.1f} ms  "
          f"(min {min(times['bare']) * 1000:.1f}, max {max(times['bare']) * 1000:.1f})")
    print(f"ML Capacity Planner window:      median {app * 1000:7.1f} ms  "
          f"(min {min(times['app']) * 1000:.1f}, max {max(times['app']) * 1000:.1f})")
    verdict = "within" if ratio <= args.target else "above"
    print(f"ratio app / bare: {ratio:.2f} ({verdict} the {args.target:g}× target)")
    if heavy_seen:
        print(f"FAIL: imported at startup: {', '.join(sorted(heavy_seen))}")
        return 1
    print("torch imported at startup: no; pynvml imported at startup: no")
    return 0


if __name__ == "__main__":
    sys.exit(main())
