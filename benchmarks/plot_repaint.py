"""Live-plot repaint cost: the Hardware tab's throughput plot given one more point at a time.

Each update is ``ThroughputPlot.show_data`` with one more result (as a running benchmark
sends them) and then a paint of the plot. The app's plots keep each axis (labels and grid) in
a pixmap drawn when the axis last changed (``axes.make_axis``); the baseline is the same plot
in the same run with that cache switched off, i.e. every axis drawn on every paint (pyqtgraph's
default). Prints the medians of both and their ratio, for the paint after each update and for
a repaint with nothing changed (a tooltip or a neighbouring widget's region).

    .venv/bin/python benchmarks/plot_repaint.py [--rounds 7]

Runs offscreen unless QT_QPA_PLATFORM is set. The figures are reported, not enforced.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = (256, 512, 1024, 2048)
PEAKS = {"fp32": 0.17, "bf16": 0.6, "fp16": 0.6}


def _updates() -> list[dict[tuple[str, str], list[tuple[int, float]]]]:
    """The series as a run fills them: fp32 sizes, then bf16, then fp16."""
    series: dict[tuple[str, str], list[tuple[int, float]]] = {}
    steps = []
    for dtype, scale in (("fp32", 0.04), ("bf16", 0.14), ("fp16", 0.13)):
        for i, size in enumerate(SIZES):
            series.setdefault((dtype, ""), []).append((size, scale * (i + 1)))
            steps.append({key: list(points) for key, points in series.items()})
    return steps


def _set_axis_cache(plot: Any, on: bool) -> None:
    from PySide6.QtWidgets import QGraphicsItem

    mode = QGraphicsItem.CacheMode.DeviceCoordinateCache if on else QGraphicsItem.CacheMode.NoCache
    item = plot.plot.getPlotItem()
    for name in ("left", "bottom"):
        item.getAxis(name).setCacheMode(mode)


def _round(plot: Any, steps: list[Any]) -> tuple[float, float]:
    """Seconds: the paints after all the updates; one repaint with nothing changed."""
    plot.clear_data()
    painting = 0.0
    for step in steps:
        plot.show_data(step, PEAKS)
        start = time.perf_counter()
        plot.plot.grab()  # paints the whole plot now
        painting += time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(10):
        plot.plot.grab()
    return painting, (time.perf_counter() - start) / 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="measured rounds per mode")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.common.qt_compat import guard_singleton_refcounts

    guard_singleton_refcounts()
    app = QApplication.instance() or QApplication([])
    from desktopapp.ui.common.theme import apply_theme
    from desktopapp.ui.hardware.bench_panel import ThroughputPlot

    apply_theme(app)  # type: ignore[arg-type]
    plot = ThroughputPlot()
    plot.resize(420, 240)
    plot.show()
    steps = _updates()
    plot.show_data(steps[0], PEAKS)  # builds the plot
    results: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for _ in range(2):  # warm-up
        for cached in (False, True):
            _set_axis_cache(plot, cached)
            _round(plot, steps)
    for _ in range(args.rounds):  # alternating, so that drift hits both alike
        for cached in (False, True):
            _set_axis_cache(plot, cached)
            results[cached].append(_round(plot, steps))
    base_paint = statistics.median(r[0] for r in results[False]) * 1000
    app_paint = statistics.median(r[0] for r in results[True]) * 1000
    base_idle = statistics.median(r[1] for r in results[False]) * 1000
    app_idle = statistics.median(r[1] for r in results[True]) * 1000
    print(
        f"throughput plot, {len(steps)} updates of one more point each, 420×240 px, "
        f"{args.rounds} rounds (medians)"
    )
    print(f"  {'':34}{'axes cached':>13}{'drawn each paint':>18}{'ratio':>8}")
    print(
        f"  {'paints after the updates (total)':34}{app_paint:>10.1f} ms{base_paint:>15.1f} ms"
        f"{app_paint / base_paint:>7.2f}×"
    )
    print(
        f"  {'a repaint with nothing changed':34}{app_idle:>10.2f} ms{base_idle:>15.2f} ms"
        f"{app_idle / base_idle:>7.2f}×"
    )
    plot.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
