"""GUI responsiveness during a real benchmark run: the GUI thread's longest stall.

A 20 ms QTimer ticks on the GUI thread while (a) nothing runs, the baseline, and (b) the
Hardware tab runs a real CPU matmul + AMP + bandwidth benchmark (in a child process since
issue 25; ``--in-process`` runs it in a thread of the GUI process, the old way, for
comparison), both with ``--load`` (2) busy processes beside the app; then Cancel is pressed
and the time until the run has ended is printed. The gaps
between ticks show how long the GUI thread was unable to handle events. Prints the median,
99th percentile and longest gap for both phases and the ratios against the baseline measured in
the same run (the test suite checks the deterministic property instead: every step runs off the
GUI thread, which keeps handling events; tests/ui/test_hardware_tab.py).

    .venv/bin/python benchmarks/gui_responsiveness.py [--seconds 4] [--target-ms 100]
        [--load 2] [--in-process] [--trace-stalls 60]

Runs offscreen unless QT_QPA_PLATFORM is set. Exit status 0; the figures are reported, not
enforced. ``--trace-stalls MS`` samples the GUI thread's Python stack every 2 ms from a
watchdog thread and prints where it was during each gap longer than MS (the cause of a stall).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _gaps(ticks: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(ticks)]


def _summary(gaps: list[float]) -> tuple[float, float, float]:
    ordered = sorted(gaps)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return statistics.median(ordered), p99, ordered[-1]


_BUSY = (
    "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\n"
    "while time.monotonic() < end:\n    sum(i * i for i in range(10000))\n"
)


class _StallTracer:
    """Samples the GUI thread's stack from another thread while no tick has come for longer
    than ``threshold`` seconds; ``report()`` lists the stacks seen in each such gap."""

    def __init__(self, ticks: list[float], threshold: float) -> None:
        import threading

        self.ticks = ticks
        self.threshold = threshold
        self.main = threading.main_thread().ident or 0
        self.samples: dict[float, Counter[str]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import traceback

        while not self.stop.wait(0.002):
            if not self.ticks:
                continue
            last = self.ticks[-1]
            if time.perf_counter() - last < self.threshold:
                continue
            frame = sys._current_frames().get(self.main)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)[-8:]
            where = " < ".join(
                f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(stack)
            )
            self.samples.setdefault(last, Counter())[where] += 1

    def report(self) -> None:
        self.stop.set()
        self.thread.join()
        if not self.samples:
            print(f"no gap over {self.threshold * 1000:.0f} ms was sampled")
        for last, where in sorted(self.samples.items()):
            print(f"gap after the tick at {last:.3f} s: {sum(where.values())} samples (2 ms each)")
            for stack, count in where.most_common(3):
                print(f"  {count:3d} × {stack}")


def _load(n: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``n`` busy Python processes (the "2-process CPU load" of issue 25)."""
    return [subprocess.Popen([sys.executable, "-c", _BUSY, f"{seconds:g}"]) for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="baseline length (s)")
    parser.add_argument("--target-ms", type=float, default=100.0, help="longest stall allowed")
    parser.add_argument("--load", type=int, default=2, help="busy processes beside the GUI")
    parser.add_argument("--cancel-after", type=float, default=6.0, help="s before Cancel")
    parser.add_argument(
        "--in-process", action="store_true", help="run the benchmark in a thread (the old way)"
    )
    parser.add_argument(
        "--trace-stalls",
        type=float,
        metavar="MS",
        help="print the GUI thread's stack in gaps over MS",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("DESKTOPAPP_HOME", tempfile.mkdtemp(prefix="desktopapp-bench-"))

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.common.qt_compat import guard_singleton_refcounts

    guard_singleton_refcounts()
    app = QApplication.instance() or QApplication([])
    from desktopapp.application.hardware_jobs import HardwareServices, start_benchmark_in_process
    from desktopapp.ui.common.pyqtgraph_module import preload
    from desktopapp.ui.hardware.tab import HardwareTab
    from desktopapp.ui.state import AppState

    start = start_benchmark_in_process if args.in_process else HardwareServices().start_benchmark
    tab = HardwareTab(AppState(), services=HardwareServices(warm_up=preload, start_benchmark=start))
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

    load = _load(args.load, 600)
    try:
        timer.start()
        idle_cpu = time.thread_time()
        pump(time.perf_counter() + args.seconds)
        idle_cpu = time.thread_time() - idle_cpu
        timer.stop()
        idle = _gaps(ticks)

        ticks.clear()
        tracer = None
        if args.trace_stalls is not None:
            tracer = _StallTracer(ticks, args.trace_stalls / 1000)
        tab.config_overrides = {"sizes": (256, 512), "budget_s": 0.5}
        for key, chip in tab.controls.suites.items():
            chip.setChecked(key in ("matmul", "amp", "bandwidth"))
        finished: list[object] = []
        tab.run_finished.connect(finished.append)
        timer.start()
        started = time.perf_counter()
        gui_cpu = time.thread_time()  # this is the GUI thread
        tab.controls.start_button.click()
        pump(started + args.cancel_after, stop=lambda: bool(finished))
        cancel_s = float("nan")
        if not finished:
            pressed = time.perf_counter()
            tab.controls.cancel_button.click()
            pump(pressed + 60, stop=lambda: bool(finished))
            cancel_s = time.perf_counter() - pressed
        pump(time.perf_counter() + 60, stop=lambda: not tab.is_running())
        run_s = time.perf_counter() - started
        gui_cpu = time.thread_time() - gui_cpu
        timer.stop()
        busy = _gaps(ticks)
        worst = sorted(zip(busy, ticks, strict=False), reverse=True)[:3]
        when = ", ".join(f"{gap * 1000:.0f} ms at {at - started:+.2f} s" for gap, at in worst)
        if tracer is not None:
            tracer.report()
    finally:
        for proc in load:
            proc.kill()
            proc.wait()
    tab.close()
    app.processEvents()

    if len(idle) < 3 or len(busy) < 3:
        print("too few timer ticks to report", file=sys.stderr)
        return 1
    base, during = _summary(idle), _summary(busy)
    where = "a thread of the GUI process" if args.in_process else "a child process"
    print(
        f"GUI thread timer gaps (20 ms timer), {os.cpu_count()} CPUs, {args.load} busy "
        f"processes beside the app; benchmark (matmul, AMP, bandwidth) in {where}"
    )
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
    print(f"longest gaps (after the tick at, from Run pressed): {when}")
    print(
        f"GUI thread CPU time during the run: {gui_cpu * 1000:.0f} ms "
        f"({100 * gui_cpu / run_s:.1f}% of the run; idle: {100 * idle_cpu / args.seconds:.1f}%)"
    )
    if cancel_s == cancel_s:  # not NaN
        ok = "within" if cancel_s <= 1.0 else "OVER"
        print(f"Cancel took effect after {cancel_s * 1000:.0f} ms: {ok} the 1 s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
