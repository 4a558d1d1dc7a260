"""Startup time: process start → Workload tab filled, the app against a bare window.

Each run starts a fresh interpreter that prints the wall-clock time at which its main window
is first exposed (or shown, where the platform sends no expose event), at which its first tab
reports ready (the Workload tab's figures are in its widgets: the "ready" figure) and at which
that tab's plots are drawn (``plots_drawn()``: every plot of the tab that is on screen, not
hidden and inside the visible part of its scrolling column, exists and shows the computed
curves; they come after the figures, on the next turns of the event loop; a plot below the
first screen is built just after), and exits. The baseline
is a bare PySide6 + pyqtgraph window (a QMainWindow holding one PlotWidget) measured in the
same session, alternating with the app so drift hits both alike. Prints the medians, the ratio
and whether torch was imported before the window appeared (it must not be).

The app keeps the compiled methods of its dataclasses between starts
(:mod:`desktopapp.codecache`), as Python keeps a module's bytecode: the warm-up run writes them,
as an installed app's first start does. A third series, alternating with the other two, starts
the app with that cache deleted each time: the first start after an install, printed too.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--target 1.3] [--phases]

``--phases`` also prints, for each mode, when each step of the start was done (median ms from
the start of the process, and since the step before): PySide6 imported, the app's modules
imported, its main window built and exposed, the Workload tab filled, pyqtgraph imported,
the plots built and drawn (the bare window: PySide6, pyqtgraph, window built and exposed).

Without a display the runs use ``QT_QPA_PLATFORM=offscreen``. Exit status 1 when torch was
imported at startup or a child failed; the ratio is reported, not enforced.
"""

from __future__ import annotations

import argparse
import os
import shutil
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
from PySide6.QtWidgets import QApplication


class _Probe(QObject):
    # Prints when a window is first exposed, when its first tab reports ready (the Workload
    # tab's figures are in its widgets), then when that tab's plots exist; then quits.

    def __init__(self, app, wait_ready):
        super().__init__()
        self.app = app
        self.wait_ready = wait_ready
        self.shown = False
        self.ready = False

    def eventFilter(self, obj, event):
        kind = event.type()
        exposed = kind == QEvent.Type.Expose and isinstance(obj, QWindow) and obj.isExposed()
        if not self.shown and exposed:
            self.shown = True
            now = time.time()
            # Watching every event of the app costs it a Python call per event (thousands
            # while the tab is built): the filter goes once the window is exposed.
            self.app.removeEventFilter(self)
            print(f"{MARK} shown {now!r} heavy={_heavy()}", flush=True)
            if self.wait_ready:
                self.watch()
            else:
                print(f"{MARK} ready {now!r} heavy={_heavy()}", flush=True)
                print(f"{MARK} plots {now!r} heavy={_heavy()}", flush=True)
                QTimer.singleShot(0, self.app.quit)
        return False

    def window(self):
        found = [w for w in QApplication.topLevelWidgets() if hasattr(w, "is_tab_ready")]
        return found[0] if found else None

    def watch(self):
        window = self.window()
        if window is None:
            QTimer.singleShot(2, self.watch)
            return
        window.tab_loaded.connect(lambda _name: self.check())  # stamps the moment it is built
        self.check()

    def check(self):
        window = self.window()
        if not self.ready and window is not None and window.is_tab_ready():
            self.ready = True
            print(f"{MARK} ready {time.time()!r} heavy={_heavy()}", flush=True)
            self.poll_plots()
        elif not self.ready:
            QTimer.singleShot(2, self.check)

    def poll_plots(self):
        content = self.window().tab_content(self.window().current_tab_name())
        drawn = getattr(content, "plots_drawn", None)  # every plot not hidden shows its data
        if drawn is None or drawn():
            print(f"{MARK} plots {time.time()!r} heavy={_heavy()}", flush=True)
            self.app.quit()
        else:
            QTimer.singleShot(2, self.poll_plots)


def _heavy():
    return ",".join(m for m in ("torch", "pynvml") if m in sys.modules) or "-"
"""


PHASES_ENV = "DESKTOPAPP_STARTUP_PHASES"


def _phase(name: str) -> None:
    """Print when a step of the start was done (``--phases``)."""
    if os.environ.get(PHASES_ENV):
        print(f"{MARK} phase:{name.replace(' ', '_')} {time.time()!r} heavy=-", flush=True)


def _after(owner: object, attribute: str, name: str) -> None:
    """Print phase ``name`` each time ``owner.attribute`` (a function) returns."""
    function = getattr(owner, attribute)

    def wrapper(*args: object, **kwargs: object) -> object:
        result = function(*args, **kwargs)
        _phase(name)
        return result

    setattr(owner, attribute, wrapper)


def child(mode: str) -> int:
    """Runs in the measured process."""
    from PySide6.QtWidgets import QApplication

    _phase("PySide6 imported")
    namespace: dict[str, object] = {"time": time, "sys": sys, "MARK": MARK}
    exec(_CHILD_PROBE, namespace)  # the same probe for both modes
    if mode == "app":
        from desktopapp.ui.common.qt_compat import guard_singleton_refcounts

        guard_singleton_refcounts()
    app = QApplication(sys.argv[:1])
    probe = namespace["_Probe"](app, mode == "app")  # type: ignore[operator]
    app.installEventFilter(probe)
    if mode == "bare":
        import pyqtgraph
        from PySide6.QtWidgets import QMainWindow

        _phase("pyqtgraph imported")
        window = QMainWindow()
        window.setWindowTitle("bare")
        window.setCentralWidget(pyqtgraph.PlotWidget())
        window.resize(1400, 900)
        _phase("window built")
        window.show()
        app.exec()
    else:
        from desktopapp.app import main

        if os.environ.get(PHASES_ENV):
            # imported here rather than inside main(): the same work, now timed, after what
            # main() does first (the compiled dataclass methods, the garbage collector paused;
            # here it stays paused to the end of the run)
            from desktopapp import codecache, paths
            from desktopapp.app import pause_gc

            codecache.install(paths.cache_dir())
            pause_gc()
            from desktopapp.ui import main_window
            from desktopapp.ui.common import pyqtgraph_module
            from desktopapp.ui.estimate import modelled

            _phase("app modules imported")
            _after(main_window.MainWindow, "__init__", "window built")
            _after(pyqtgraph_module, "import_pyqtgraph", "pyqtgraph imported")
            _after(modelled.ModelledPanel, "_build_plots", "plots built")
        main([])
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: it is not part of startup


def measure(mode: str, env: dict[str, str]) -> tuple[float, float, float, str]:
    """Seconds to the window exposed, to its first tab filled, to that tab's plots drawn; and
    the heavy modules imported by then."""
    stamps, heavy = measure_stamps(mode, env)
    return stamps["shown"], stamps["ready"], stamps["plots"], heavy


def measure_stamps(mode: str, env: dict[str, str]) -> tuple[dict[str, float], str]:
    """Seconds from the start of one run to each mark it printed (``shown``, ``ready``,
    ``plots`` and, with ``--phases``, ``phase:<step>``); and the heavy modules imported."""
    start = time.time()
    result = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", mode],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    stamps: dict[str, float] = {}
    heavy: set[str] = set()
    for line in result.stdout.splitlines():
        if line.startswith(MARK):
            _mark, what, stamp, modules = line.split()
            stamps[what] = float(stamp) - start
            heavy.update(m for m in modules.removeprefix("heavy=").split(",") if m != "-")
    if not {"shown", "ready", "plots"} <= set(stamps):
        raise RuntimeError(
            f"{mode} run printed no timestamps (exit {result.returncode}):\n{result.stderr[-2000:]}"
        )
    return stamps, ",".join(sorted(heavy)) or "-"


def paired_ratio(app: list[float], bare: list[float]) -> tuple[float, float, float]:
    """Median and interquartile range of the per-run ratios app[i] / bare[i].

    The runs alternate (bare, app, bare, app …), so the two runs of a pair share the machine's
    state of that moment. The spread of the pairs' ratios says how far one figure can be
    trusted: on this shared 2-CPU VM the ratio of medians of the same code moved between 1.33
    and 1.61 from one run of this script to the next."""
    if len(app) != len(bare) or not app:
        raise ValueError(f"runs: one app run per bare run, got {len(app)} and {len(bare)}")
    ratios = sorted(a / b for a, b in zip(app, bare, strict=True))
    if len(ratios) == 1:
        return ratios[0], ratios[0], ratios[0]
    q1, _q2, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return statistics.median(ratios), q1, q3


PHASE_NAMES = {"shown": "window exposed", "ready": "Workload tab filled", "plots": "plots drawn"}


def phase_table(runs: list[dict[str, float]]) -> list[tuple[str, float, float]]:
    """(step, median seconds from the start, median seconds since the step before) for every
    mark all runs printed, in the order of their medians. The step's own time is taken run by
    run (a mark minus the mark before it in that order), then the median of those."""
    if not runs:
        return []
    common = set(runs[0]).intersection(*runs[1:])
    order = sorted(common, key=lambda name: statistics.median(run[name] for run in runs))
    table = []
    for index, name in enumerate(order):
        before = order[index - 1] if index else None
        at = statistics.median(run[name] for run in runs)
        step = statistics.median(run[name] - (run[before] if before else 0.0) for run in runs)
        label = PHASE_NAMES.get(name, name.removeprefix("phase:").replace("_", " "))
        table.append((label, at, step))
    return table


def _print_phases(title: str, runs: list[dict[str, float]]) -> None:
    print(f"{title}: median ms from the start of the process, and since the step before")
    for label, at, step in phase_table(runs):
        print(f"  {label:<28} {at * 1000:7.1f}  {step * 1000:+7.1f}")


def _summary(label: str, values: list[float]) -> str:
    median = statistics.median(values) * 1000
    return (
        f"{label}: median {median:7.1f} ms  (min {min(values) * 1000:.1f}, "
        f"max {max(values) * 1000:.1f})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per mode (median)")
    parser.add_argument("--target", type=float, default=1.3, help="ratio to aim for")
    parser.add_argument(
        "--phases", action="store_true", help="also print when each step of the start was done"
    )
    parser.add_argument("--child", choices=("bare", "app"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)

    env = dict(os.environ)
    if not env.get("QT_QPA_PLATFORM") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env["QT_QPA_PLATFORM"] = "offscreen"
    home = tempfile.mkdtemp(prefix="desktopapp-startup-")
    env["DESKTOPAPP_HOME"] = home  # fresh settings: default geometry, first tab
    # The warm-up run writes the bytecode of modules edited since the last run, as an
    # installed app has it. (Any non-empty value, "0" too, would stop Python writing it, and
    # every run would compile those modules again.)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.phases:
        env[PHASES_ENV] = "1"
    else:
        env.pop(PHASES_ENV, None)

    modes = ("bare", "app", "first")
    shown: dict[str, list[float]] = {m: [] for m in modes}
    ready: dict[str, list[float]] = {m: [] for m in modes}
    plots: dict[str, list[float]] = {m: [] for m in modes}
    every: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    heavy_seen: set[str] = set()
    for mode in ("bare", "app"):  # warm-up: bytecode and file caches (and the kept methods)
        measure(mode, env)
    for _ in range(args.runs):
        for mode in modes:
            if mode == "first":  # the first start after an install: no kept dataclass methods
                shutil.rmtree(Path(home) / "cache", ignore_errors=True)
            stamps, heavy = measure_stamps("app" if mode == "first" else mode, env)
            every[mode].append(stamps)
            shown[mode].append(stamps["shown"])
            ready[mode].append(stamps["ready"])
            plots[mode].append(stamps["plots"])
            if mode != "bare" and heavy != "-":
                heavy_seen.update(heavy.split(","))

    bare = statistics.median(shown["bare"])
    app = statistics.median(shown["app"])
    app_ready = statistics.median(ready["app"])
    app_plots = statistics.median(plots["app"])
    ratio = app_ready / bare
    platform = env.get("QT_QPA_PLATFORM", "default")
    print(f"platform: {platform}; runs per mode: {args.runs} (after one warm-up each)")
    print(_summary("bare PySide6 + pyqtgraph window, exposed ", shown["bare"]))
    print(_summary("ML Capacity Planner window, exposed      ", shown["app"]))
    print(_summary("ML Capacity Planner, Workload tab filled ", ready["app"]))
    print(_summary("ML Capacity Planner, its plots drawn     ", plots["app"]))
    print(f"ratio window exposed, app / bare: {app / bare:.2f}")
    verdict = "within" if ratio <= args.target else "above"
    print(
        f"ready: Workload tab filled, app / bare window: {ratio:.2f} "
        f"({verdict} the {args.target:g}x target)"
    )
    print(f"ratio plots drawn (after the figures), app / bare: {app_plots / bare:.2f}")
    mid, low, high = paired_ratio(plots["app"], shown["bare"])
    print(
        f"plots drawn, median of the {args.runs} paired runs' ratios: {mid:.2f} "
        f"(interquartile {low:.2f}-{high:.2f}; target {args.target:g}x)"
    )
    first, first_low, first_high = paired_ratio(plots["first"], shown["bare"])
    print(
        "first start after an install (no kept dataclass methods, desktopapp.codecache):\n"
        f"  plots drawn {statistics.median(plots['first']) * 1000:.1f} ms, paired ratio "
        f"{first:.2f} (interquartile {first_low:.2f}-{first_high:.2f})"
    )
    if args.phases:
        # the bare window's "ready" and "plots" are its exposure (it has no tab to fill)
        _print_phases(
            "bare window",
            [
                {k: v for k, v in run.items() if k not in ("ready", "plots")}
                for run in every["bare"]
            ],
        )
        _print_phases("ML Capacity Planner", every["app"])
    if heavy_seen:
        print(f"FAIL: imported at startup: {', '.join(sorted(heavy_seen))}")
        return 1
    print("torch imported at startup: no; pynvml imported at startup: no")
    return 0


if __name__ == "__main__":
    sys.exit(main())
