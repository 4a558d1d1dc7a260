"""GUI responsiveness during a real benchmark run: the GUI thread's longest stall.

A 20 ms QTimer ticks on the GUI thread while (a) nothing runs, the baseline, and (b) the
Hardware tab runs a real CPU matmul + bandwidth benchmark in its worker thread. The gaps
between ticks show how long the GUI thread was unable to handle events. Prints the median,
99th percentile and longest gap for both phases and the ratios against the baseline measured in
the same run (the test suite checks the deterministic property instead: every step runs off the
GUI thread, which keeps handling events; tests/ui/test_hardware_tab.py).

    .venv/bin/python benchmarks/gui_responsiveness.py [--seconds 4] [--target-ms 500]

Runs offscreen unless QT_QPA_PLATFORM is set. Exit status 0; the figures are reported, not
enforced.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _gaps(ticks: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(ticks)]


def _summary(gaps: list[float]) -> tuple[float, float, float]:
    ordered = sorted(gaps)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered), p99, ordered[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="baseline length (s)")
    parser.add_argument("--target-ms", type=float, default=500.0, help="longest stall allowed")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("DESKTOPAPP_HOME", tempfile.mkdtemp(prefix="desktopapp-bench-"))

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.common.qt_compat import guard_singleton_refcounts

    guard_singleton_refcounts()
    app = QApplication.instance() or QApplication([])
    from desktopapp.ui.hardware import create_tab
    from desktopapp.ui.state import AppState

    tab = create_tab(AppState())
    tab.resize(1200, 800)
    tab.show()
    deadline = time.monotonic() + 120
    while not tab.is_ready() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)

    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    def pump(until: float, stop: object = None) -> None:
        while time.perf_counter() < until:
            app.processEvents()
            if callable(stop) and stop():
                return
            time.sleep(0.001)

    timer.start()
    pump(time.perf_counter() + args.seconds)
    timer.stop()
    idle = _gaps(ticks)

    ticks.clear()
    tab.config_overrides = {"sizes": (256, 512, 1024), "budget_s": 0.5}
    for key, chip in tab.controls.suites.items():
        chip.setChecked(key in ("matmul", "bandwidth"))
    finished: list[object] = []
    tab.run_finished.connect(finished.append)
    timer.start()
    started = time.perf_counter()
    tab.controls.start_button.click()
    pump(started + 300, stop=lambda: bool(finished) and not tab.is_running())
    run_s = time.perf_counter() - started
    timer.stop()
    busy = _gaps(ticks)
    tab.close()
    app.processEvents()

    if len(idle) < 3 or len(busy) < 3:
        print("too few timer ticks to report", file=sys.stderr)
        return 1
    base, during = _summary(idle), _summary(busy)
    print(f"GUI thread timer gaps (20 ms timer), {os.cpu_count()} CPUs")
    print(f"  {'phase':<22}{'median':>10}{'p99':>10}{'longest':>10}")
    print(f"  {'idle (baseline)':<22}" + "".join(f"{v * 1000:>8.1f}ms" for v in base))
    print(f"  {'benchmark running':<22}" + "".join(f"{v * 1000:>8.1f}ms" for v in during))
    ratios = [d / b if b > 0 else float("inf") for d, b in zip(during, base, strict=True)]
    print("  ratio (running/idle)  " + "".join(f"{r:>9.2f}×" for r in ratios))
    verdict = "within" if during[2] * 1000 <= args.target_ms else "OVER"
    print(
        f"longest stall {during[2] * 1000:.0f} ms during a {run_s:.1f} s run: {verdict} the "
        f"{args.target_ms:.0f} ms target"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
