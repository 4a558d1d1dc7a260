"""Hardware tab: device cards, benchmark runs in a worker (rows, cancel, responsiveness),
history and comparison, export, "use in estimates", and no torch import on creation."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from fakes.hardware import CPU_PEAK, CPU_PEAKS, fake_cpu, result
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktopapp.application.hardware import (
    USE_AS_UTILIZATION,
)
from desktopapp.application.hardware_jobs import BenchOutcome, BenchStart, HardwareServices
from desktopapp.devices import problems
from desktopapp.devices.bench.core import CancelToken, ProgressEvent
from desktopapp.devices.bench.runner import BenchConfig
from desktopapp.devices.cpu import MemoryInfo
from desktopapp.devices.detect import SystemReport
from desktopapp.devices.gpu import GpuInfo, match_catalog
from desktopapp.devices.nvml import NvmlStatus
from desktopapp.devices.problems import Problem
from desktopapp.devices.results_store import ResultsStore
from desktopapp.devices.torch_info import TorchInfo
from desktopapp.ui.common.workers import live_workers
from desktopapp.ui.hardware import create_tab
from desktopapp.ui.hardware.tab import HardwareTab
from desktopapp.ui.hardware.widgets import PeakTile
from desktopapp.ui.state import AppState, CustomAccelerator

GIB = 1024**3
NO_GPU = Problem(
    problems.NO_GPU,
    "No NVIDIA GPU: unavailable because the NVML library (libnvidia-ml) was not found: "
    "no NVIDIA driver installed",
)
TORCH_HINT = 'pip install "torch>=2.2" --index-url https://download.pytorch.org/whl/cpu'
BF16_WARNING = "no native bf16 on this CPU: mixed precision would slow training down here"
MakeTab = Callable[..., HardwareTab]


# --- fakes -----------------------------------------------------------------------------------


def fake_memory() -> MemoryInfo:
    return MemoryInfo(64 * GIB, 48 * GIB, 0.0, "test")


def fake_gpu() -> GpuInfo:
    name = "NVIDIA H100 80GB HBM3"
    return GpuInfo(
        index=0,
        name=name,
        uuid="GPU-1234",
        memory_total_bytes=80 * GIB,
        driver_version="550.54",
        cuda_driver_version="12.4",
        power_limit_w=700.0,
        max_sm_clock_mhz=1980.0,
        max_memory_clock_mhz=2619.0,
        pcie_gen_max=5,
        pcie_width_max=16,
        pcie_gen_current=5,
        pcie_width_current=16,
        compute_capability="9.0",
        mig_mode="disabled",
        ecc_mode="enabled",
        catalog=match_catalog(name),
    )


def fake_report(gpus: tuple[GpuInfo, ...] = (), problems: tuple[str, ...] = ()) -> SystemReport:
    cpu = fake_cpu()
    nvml = (
        NvmlStatus(True, "", "550.54", "12.4", len(gpus))
        if gpus
        else NvmlStatus(False, NO_GPU.partition(": ")[2])
    )
    return SystemReport(
        cpu=cpu,
        memory=fake_memory(),
        gpus=gpus,
        torch=None,
        problems=problems or (() if gpus else (NO_GPU,)),
        nvml=nvml,
        cpu_catalog=match_catalog(cpu.model),
        hostname="testhost",
        os="Linux 6.1",
        python="3.11.7",
        seconds=0.004,
    )


def no_torch() -> TorchInfo:
    return TorchInfo(False, f"torch not installed: {TORCH_HINT}", TORCH_HINT)


def cpu_torch() -> TorchInfo:
    return TorchInfo(True, "", TORCH_HINT, version="2.13.0+cpu", num_threads=8)


DEVICE_INFO = {
    "device": "cpu",
    "kind": "cpu",
    "name": "Test EPYC 9000 8-Core",
    "peak_tflops": CPU_PEAKS,
    "peak_source": "estimate: 8 cores × 3.50 GHz × 32 FLOP/cycle",
    "catalog_id": None,
    "memory_bytes": 64 * GIB,
}


def fake_suite(
    steps: int = 6, step_s: float = 0.0, work: Callable[[], None] | None = None
) -> Callable[[BenchConfig, CancelToken], Iterator[ProgressEvent]]:
    """A matmul-like suite: fp32 and bf16 at growing sizes, checking the token every step."""

    def suite(config: BenchConfig, token: CancelToken) -> Iterator[ProgressEvent]:
        dtypes = config.dtypes or ("fp32",)
        yield ProgressEvent(0.0, "starting", steps * step_s, warning=BF16_WARNING)
        for k in range(steps):
            if token.cancelled:
                yield ProgressEvent(k / steps, "cancelled", 0.0, done=True, cancelled=True)
                return
            deadline = time.perf_counter() + step_s
            while time.perf_counter() < deadline and not token.cancelled:
                if work is not None:
                    work()
                else:
                    time.sleep(0.005)
            dtype = dtypes[k % len(dtypes)]
            size = 64 * 2 ** (k // len(dtypes))
            tflops = (0.1 if dtype == "fp32" else 0.01) * (1 + k)
            yield ProgressEvent(
                (k + 1) / steps,
                f"matmul {dtype} {size}×{size}…",
                (steps - k - 1) * step_s,
                result=result(dtype, size, tflops),
            )
        yield ProgressEvent(1.0, "done", 0.0, done=True)

    return suite


def make_services(
    tmp_path: Path,
    report: SystemReport | None = None,
    torch: TorchInfo | None = None,
    suite: Callable[[BenchConfig, CancelToken], Iterator[ProgressEvent]] | None = None,
    start_error: str = "",
) -> HardwareServices:
    report = report or fake_report()
    torch_info = torch or cpu_torch()
    run_suite = suite or fake_suite()
    db = tmp_path / "results.sqlite3"

    def start(config: BenchConfig, token: CancelToken) -> BenchStart:
        if start_error:
            raise ValueError(start_error)
        return BenchStart(DEVICE_INFO, run_suite(config, token))

    return HardwareServices(
        detect_cpu=lambda: (fake_cpu(), fake_memory()),
        detect_system=lambda: report,
        add_torch=lambda r: r.with_torch(torch_info),
        start_benchmark=start,
        open_store=lambda: ResultsStore(db),
        versions=lambda: {"desktopapp": "test"},
        warm_up=lambda: True,
    )


@pytest.fixture
def make_tab(qtbot: QtBot, app_state: AppState) -> Iterator[MakeTab]:
    tabs: list[HardwareTab] = []

    def factory(services: HardwareServices, show: bool = False) -> HardwareTab:
        tab = HardwareTab(app_state, services=services)
        qtbot.addWidget(tab)
        tab.resize(1400, 900)
        tabs.append(tab)
        qtbot.waitUntil(lambda: tab.report is not None, timeout=3000)
        if show:
            with qtbot.waitSignal(tab.ready, timeout=5000):
                tab.show()
        return tab

    yield factory
    for tab in tabs:
        tab.shutdown()


def run_to_end(qtbot: QtBot, tab: HardwareTab, timeout: int = 10_000) -> BenchOutcome:
    with qtbot.waitSignal(tab.run_finished, timeout=timeout) as blocker:
        qtbot.mouseClick(tab.controls.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not tab.is_running(), timeout=timeout)
    outcome = blocker.args[0]
    assert isinstance(outcome, BenchOutcome)
    return outcome


# --- device cards ---------------------------------------------------------------------------


def test_cards_render_from_a_faked_report(make_tab: MakeTab, tmp_path: Path) -> None:
    report = fake_report(gpus=(fake_gpu(),))
    tab = make_tab(make_services(tmp_path, report, torch=no_torch()), show=True)
    assert tab.is_ready()

    cpu = tab.cpu_card
    assert cpu is not None
    assert cpu.title_label.text() == "Test EPYC 9000 8-Core"
    assert cpu.fact("Cores") == "8 cores · 16 threads"
    assert cpu.fact("Clock") == "3.50 GHz assumed"
    assert "64.0 GiB RAM" in cpu.fact("Memory")
    assert cpu.chips is not None
    chips = cpu.chips.labels()
    assert {"AVX2", "FMA", "no native bf16"} <= set(chips)
    assert "AVX" not in chips  # implied by AVX2
    tiles = cpu.findChildren(PeakTile)
    assert [t.caption.text() for t in tiles] == ["FP32 PEAK · ESTIMATE"]
    assert tiles[0].value.text() == "0.896"  # 8 cores × 3.5 GHz × 32 FLOP/cycle
    assert "8 cores × 3.50 GHz × 32 FLOP/cycle" in tiles[0].toolTip()
    texts = " ".join(label.text() for label in cpu.findChildren(QLabel))
    assert "No catalog match for this CPU" in texts

    assert len(tab.gpu_cards) == 1
    gpu = tab.gpu_cards[0]
    assert gpu.title_label.text() == "NVIDIA H100 80GB HBM3"
    assert gpu.fact("Compute capability") == "9.0"
    assert gpu.fact("Power limit") == "700 W"
    assert gpu.fact("PCIe") == "Gen 5 ×16"
    assert gpu.fact("MIG · ECC") == "MIG disabled · ECC enabled"
    assert gpu.fact("Driver") == "550.54 · CUDA 12.4"
    peaks = {t.caption.text(): t.value.text() for t in gpu.findChildren(PeakTile)}
    assert peaks["BF16"] == "989" and peaks["FP32"] == "67.0"  # datasheet, from the catalog
    assert tab.no_gpu_card is None

    # torch missing: the problems strip says how to get it, and the suites that need it are off.
    assert tab.problems.isVisibleTo(tab)
    assert any(TORCH_HINT in line for line in tab.problems.lines())
    assert tab.torch_card is not None
    assert tab.torch_card.title_label.text() == "PyTorch not available"
    assert not tab.controls.suites["amp"].isEnabled()
    assert TORCH_HINT in tab.controls.suites["amp"].toolTip()
    assert tab.controls.suites["matmul"].isEnabled()
    assert [d for d, chip in tab.controls.dtypes.items() if chip.isEnabled()] == ["fp32"]


def test_without_a_gpu_one_line_says_why(make_tab: MakeTab, tmp_path: Path) -> None:
    tab = make_tab(make_services(tmp_path, fake_report()), show=True)
    assert tab.gpu_cards == []
    card = tab.no_gpu_card
    assert card is not None
    texts = [label.text() for label in card.findChildren(QLabel)]
    line = next(t for t in texts if t.startswith("No NVIDIA GPU found"))
    assert "because the NVML library (libnvidia-ml) was not found" in line
    # Said once, in the GPU area: the problems strip does not repeat it.
    assert all("NVML" not in p for p in tab.problems.lines())
    assert not tab.problems.isVisibleTo(tab)
    assert tab.torch_card is not None
    assert tab.torch_card.title_label.text() == "PyTorch 2.13.0+cpu"
    assert tab.controls.device.count() == 1
    assert tab.controls.device_spec() == "cpu"


def test_real_detection_shows_this_cpu_at_once(
    qtbot: QtBot, app_state: AppState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktopapp.devices.cpu import detect_cpu

    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    tab = create_tab(app_state)
    assert isinstance(tab, HardwareTab)
    qtbot.addWidget(tab)
    try:
        # Synchronously, before any worker reported: the CPU card is already there.
        assert tab.cpu_card is not None
        assert tab.cpu_card.title_label.text() == detect_cpu().model
        qtbot.waitUntil(lambda: tab.report is not None, timeout=5000)
        assert tab.report is not None
        assert tab.report.torch is None  # not shown yet: torch not probed
        assert not tab.is_ready()
    finally:
        tab.shutdown()


def test_creating_the_tab_imports_neither_torch_nor_pyqtgraph(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys, time
        from PySide6.QtWidgets import QApplication
        from desktopapp.ui.common.qt_compat import guard_singleton_refcounts
        guard_singleton_refcounts()
        app = QApplication([])
        from desktopapp.ui.hardware import create_tab
        from desktopapp.ui.state import AppState
        state = AppState()
        tab = create_tab(state)
        deadline = time.monotonic() + 120
        while tab.report is None and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        assert tab.report is not None, "no detection report"
        assert tab.cpu_card is not None
        print("torch" in sys.modules, "pyqtgraph" in sys.modules)
        tab.shutdown()
        # The window opening (on another tab) with the Hardware tab loaded: still no torch.
        from desktopapp.ui.main_window import MainWindow
        window = MainWindow(initial_tab="estimate", state=state, remember=False)
        window.show()
        window.ensure_tab_loaded("hardware")
        for _ in range(50):
            app.processEvents()
            time.sleep(0.01)
        print("torch" in sys.modules)
        window.close()
        """
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DESKTOPAPP_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-3:] == ["False", "False", "False"], done.stdout + done.stderr


# --- running benchmarks ---------------------------------------------------------------------


def test_tiny_fake_benchmark_rows_plot_findings_and_history(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    tab = make_tab(make_services(tmp_path, suite=fake_suite(steps=6)), show=True)
    tab.controls.dtypes["bf16"].setChecked(True)
    outcome = run_to_end(qtbot, tab)

    assert not outcome.cancelled
    assert outcome.run_id is not None
    model = tab.results_model
    assert model.rowCount() == 6
    first = model.row_texts(0)
    assert first[:3] == ["Matmul", "fp32", "64×64"]
    assert first[3] == "100 GFLOP/s"  # the sustained median; below 1 TFLOP/s in GFLOP/s
    assert first[6] == "20%"  # 0.1 of the 0.5 TFLOP/s peak
    assert model.row_texts(1)[6] == "—"  # no bf16 peak known
    assert set(tab.plot.curves) == {("fp32", ""), ("bf16", "")}
    assert set(tab.plot.peak_lines) == {"fp32"}
    assert BF16_WARNING in tab.findings_lines()
    assert tab.findings_scroll.isVisibleTo(tab)
    # No thread is left behind: the bench worker has ended, and the history reload it started
    # ends too (asserting at once raced that reload under load).
    qtbot.waitUntil(lambda: live_workers() == [], timeout=5000)

    # Saved, and listed in the history with its best figures.
    qtbot.waitUntil(lambda: len(tab.history.rows()) == 1, timeout=3000)
    row = tab.history.rows()[0]
    assert row.run_id == outcome.run_id
    assert row.best_fp32 == pytest.approx(0.5)
    assert row.best_bf16 == pytest.approx(0.06)
    assert row.status == "complete"
    assert row.suites == "Matmul, Mixed precision, Bandwidth"
    stored = ResultsStore(tmp_path / "results.sqlite3").load_run(outcome.run_id)
    assert len(stored.results) == 6
    assert stored.summary.device_info["name"] == "Test EPYC 9000 8-Core"


def test_real_runner_tiny_matmul_from_the_ui(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    services = replace(make_services(tmp_path), start_benchmark=HardwareServices().start_benchmark)
    tab = make_tab(services, show=True)
    tab.config_overrides = {"sizes": (32, 64), "budget_s": 0.02}
    for key, chip in tab.controls.suites.items():
        chip.setChecked(key == "matmul")
    for key, chip in tab.controls.dtypes.items():
        chip.setChecked(key == "fp32")
    outcome = run_to_end(qtbot, tab, timeout=30_000)

    assert outcome.error == ""
    rows = [tab.results_model.row_texts(r) for r in range(tab.results_model.rowCount())]
    assert rows and all(r[0] == "Matmul" and r[1] == "fp32" for r in rows)
    assert all(r[4].endswith("FLOP/s") for r in rows)  # the fastest repeat beside the median
    assert {r.size for r in tab.shown_results()} <= {32, 64}
    assert all(r.tflops is not None and r.tflops > 0 for r in tab.shown_results())
    assert outcome.run_id is not None


def gated_suite(
    gate: threading.Semaphore, threads: list[int], steps: int = 200
) -> Callable[[BenchConfig, CancelToken], Iterator[ProgressEvent]]:
    """A suite whose steps each wait for the test to open the gate (or for a cancel).

    Nothing here depends on how fast the machine is: a step finishes only when the test says so,
    and the suite notes the thread every step ran on.
    """

    def suite(config: BenchConfig, token: CancelToken) -> Iterator[ProgressEvent]:
        yield ProgressEvent(0.0, "starting", None)
        for k in range(steps):
            threads.append(threading.get_ident())
            while not token.cancelled and not gate.acquire(timeout=0.01):
                pass
            if token.cancelled:
                yield ProgressEvent(k / steps, "cancelled", 0.0, done=True, cancelled=True)
                return
            yield ProgressEvent(
                (k + 1) / steps, f"matmul fp32 {64 + k}…", None, result=result("fp32", 64 + k, 0.1)
            )
        yield ProgressEvent(1.0, "done", 0.0, done=True)

    return suite


def test_cancel_stops_at_the_next_step_and_saves_partial_results(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    gate = threading.Semaphore(0)
    threads: list[int] = []
    tab = make_tab(make_services(tmp_path, suite=gated_suite(gate, threads)), show=True)
    qtbot.mouseClick(tab.controls.start_button, Qt.MouseButton.LeftButton)
    assert tab.is_running()
    assert not tab.controls.start_button.isEnabled()
    gate.release(2)
    qtbot.waitUntil(lambda: tab.results_model.rowCount() == 2, timeout=30_000)

    # The worker now waits inside step 3; Cancel must end the run there, with no further step.
    with qtbot.waitSignal(tab.run_finished, timeout=30_000) as blocker:
        qtbot.mouseClick(tab.controls.cancel_button, Qt.MouseButton.LeftButton)
        assert tab.controls.cancel_button.text() == "Cancelling…"
    qtbot.waitUntil(lambda: not tab.is_running() and not live_workers(), timeout=30_000)

    outcome = blocker.args[0]
    assert outcome.cancelled
    assert len(outcome.results) == 2
    assert len(threads) == 3
    assert tab.controls.start_button.isEnabled()
    assert "Cancelled" in tab.controls.step_label.text()
    stored = ResultsStore(tmp_path / "results.sqlite3").load_run(outcome.run_id)
    assert stored.summary.cancelled
    assert "partial" in stored.summary.notes
    qtbot.waitUntil(lambda: len(tab.history.rows()) == 1, timeout=30_000)
    assert tab.history.rows()[0].status == "partial (cancelled)"


def test_cancel_of_a_real_run_ends_it_cancelled(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    services = replace(make_services(tmp_path), start_benchmark=HardwareServices().start_benchmark)
    tab = make_tab(services, show=True)
    tab.config_overrides = {"sizes": (64, 128, 256, 512), "budget_s": 0.3}
    for key, chip in tab.controls.suites.items():
        chip.setChecked(key in ("matmul", "bandwidth"))
    qtbot.mouseClick(tab.controls.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.results_model.rowCount() >= 1, timeout=60_000)
    with qtbot.waitSignal(tab.run_finished, timeout=60_000) as blocker:
        tab.cancel_benchmark()
    qtbot.waitUntil(lambda: not tab.is_running() and not live_workers(), timeout=30_000)
    assert blocker.args[0].cancelled


def test_benchmark_steps_run_off_the_gui_thread_while_it_keeps_handling_events(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    """Responsiveness as a property, not a stopwatch.

    Every step runs on a worker thread, and each step waits for a handshake that only the GUI
    thread's event loop can give (a queued timer). Were the GUI thread blocked on the worker, the
    handshake would never come and the run would not finish. The stall in milliseconds under
    load is measured by benchmarks/gui_responsiveness.py.
    """
    gate = threading.Semaphore(0)
    threads: list[int] = []
    steps = 5
    tab = make_tab(make_services(tmp_path, suite=gated_suite(gate, threads, steps)), show=True)
    opened: list[int] = []

    def open_gate() -> None:  # runs on the GUI thread
        opened.append(threading.get_ident())
        gate.release()

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(open_gate)
    timer.start()
    try:
        outcome = run_to_end(qtbot, tab, timeout=60_000)
    finally:
        timer.stop()
    assert not outcome.cancelled
    assert len(outcome.results) == steps
    gui = threading.get_ident()
    assert threads and gui not in threads
    assert opened and set(opened) == {gui}


def test_a_start_error_is_shown_and_leaves_no_thread(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    message = "device: cuda:0 is not available: no GPU"
    tab = make_tab(make_services(tmp_path, start_error=message), show=True)
    outcome = run_to_end(qtbot, tab)
    assert outcome.error == message
    assert message in tab.controls.step_label.text()
    assert tab.results_model.rowCount() == 0
    assert live_workers() == []


def test_no_suite_chosen_does_not_start(make_tab: MakeTab, tmp_path: Path) -> None:
    tab = make_tab(make_services(tmp_path))
    for chip in tab.controls.suites.values():
        chip.setChecked(False)
    assert not tab.start_benchmark()
    assert "at least one suite" in tab.controls.step_label.text()
    assert not tab.is_running()


def test_events_of_an_older_generation_are_dropped(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    tab = make_tab(make_services(tmp_path, suite=fake_suite(steps=3)), show=True)
    run_to_end(qtbot, tab)
    rows = tab.results_model.rowCount()
    stale = ProgressEvent(0.5, "old", result=result("fp32", 4096, 9.0))
    tab._on_progress(tab._generation - 1, stale)
    assert tab.dropped_events == 1
    assert tab.results_model.rowCount() == rows


# --- history, compare, export ---------------------------------------------------------------


def test_compare_two_runs_and_export(make_tab: MakeTab, tmp_path: Path, qtbot: QtBot) -> None:
    store = ResultsStore(tmp_path / "results.sqlite3")
    a = store.save_run([result("fp32", 64, 0.1), result("fp32", 128, 0.2)], machine="m")
    b = store.save_run([result("fp32", 64, 0.15), result("bf16", 64, 0.3)], machine="m")
    tab = make_tab(make_services(tmp_path))
    qtbot.waitUntil(lambda: len(tab.history.rows()) == 2, timeout=3000)

    tab.history.select_runs([a, b])
    assert tab.history.compare_button.isEnabled()
    qtbot.mouseClick(tab.history.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.history.compare_box.isVisibleTo(tab.history), timeout=3000)
    rows = tab.history.comparison_texts()
    assert rows == [["Matmul", "fp32", "64×64", "TFLOP/s", "0.1", "0.15", "×1.50"]]
    assert "1 only in A, 1 only in B" in tab.history.compare_note.text()

    json_path = Path(tab.export("json", str(tmp_path / "runs.json")))
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert sorted(run["id"] for run in data["runs"]) == [a, b]
    csv_path = Path(tab.export("csv", str(tmp_path / "runs.csv"), run_ids=[a]))
    with csv_path.open(encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert [line["size"] for line in lines] == ["64", "128"]


def test_show_a_saved_run_in_the_results_view(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    store = ResultsStore(tmp_path / "results.sqlite3")
    run = store.save_run(
        [result("fp32", 64, 0.1), result("fp32", 128, 0.25)],
        machine="m",
        device="cpu",
        device_info=DEVICE_INFO,
        warnings=["an earlier finding"],
    )
    tab = make_tab(make_services(tmp_path))
    qtbot.waitUntil(lambda: len(tab.history.rows()) == 1, timeout=3000)
    tab.history.select_runs([run])
    qtbot.mouseClick(tab.history.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.results_model.rowCount() == 2, timeout=3000)
    assert tab.sub_tabs.currentIndex() == 0
    assert tab.findings_lines() == ["an earlier finding"]
    assert f"run #{run}" in tab.results_caption.text().lower()
    assert set(tab.plot.peak_lines) == {"fp32"}


# --- use in estimates ---------------------------------------------------------------------------


def test_use_in_estimates_updates_the_app_state(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot, app_state: AppState
) -> None:
    tab = make_tab(make_services(tmp_path, suite=fake_suite(steps=6)), show=True)
    assert not tab.use_button.isEnabled()
    tab.controls.dtypes["bf16"].setChecked(True)
    run_to_end(qtbot, tab)
    assert tab.use_button.isEnabled()

    with qtbot.waitSignal(app_state.custom_accelerator_changed, timeout=1000):
        qtbot.mouseClick(tab.use_button, Qt.MouseButton.LeftButton)
    custom = app_state.custom_accelerator
    assert isinstance(custom, CustomAccelerator)
    assert custom.name == "Test EPYC 9000 8-Core"
    assert dict(custom.peak_tflops) == pytest.approx({"fp32": 0.5, "bf16": 0.06})
    assert custom.utilization is None
    assert custom.memory_bytes == 64 * GIB
    assert "In use" in tab.use_status.text()

    # The other mode: keep the (estimated) peak, measured share as utilization.
    tab.use_mode.setCurrentIndex(tab.use_mode.findData(USE_AS_UTILIZATION))
    qtbot.mouseClick(tab.use_button, Qt.MouseButton.LeftButton)
    custom = app_state.custom_accelerator
    assert custom is not None
    assert dict(custom.peak_tflops) == {"fp32": CPU_PEAK}
    assert custom.utilization == pytest.approx(1.0)  # 0.5 of 0.5 TFLOP/s

    # The Workload tab can plan with it.
    from desktopapp.ui.estimate import create_tab as create_estimate_tab

    estimate = create_estimate_tab(app_state)
    qtbot.addWidget(estimate)
    try:
        assert estimate.use_custom_accelerator()  # type: ignore[attr-defined]
    finally:
        estimate.shutdown()  # type: ignore[attr-defined]

    qtbot.mouseClick(tab.stop_using_button, Qt.MouseButton.LeftButton)
    assert app_state.custom_accelerator is None
    assert "Not in use" in tab.use_status.text()


# The summary tests (no widgets) are in tests/application/test_hardware_presenter.py.


def test_a_suspect_run_is_flagged_before_use_and_needs_apply_anyway(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot, app_state: AppState
) -> None:
    """Issue 16: a matmul far below the datasheet (< 5% of peak) is shown as measured and
    flagged as suspect before it can be applied; the first press warns, "Apply anyway"
    applies the measured figure unchanged."""

    def slow_suite(config: BenchConfig, token: CancelToken) -> Iterator[ProgressEvent]:
        yield ProgressEvent(0.5, "matmul fp32 64×64…", 0.0, result=result("fp32", 64, 0.01))
        yield ProgressEvent(1.0, "done", 0.0, done=True)

    tab = make_tab(make_services(tmp_path, suite=slow_suite), show=True)
    run_to_end(qtbot, tab)
    assert "suspect" in tab.use_summary.text()  # 0.01 of 0.5 TFLOP/s = 2% of peak
    assert "0.01" in tab.use_summary.text()  # the measured value, as measured
    tab.use_button.click()
    assert app_state.custom_accelerator is None  # not applied silently
    assert "far below" in tab.use_status.text()
    assert tab.use_button.text() == "Apply anyway"
    with qtbot.waitSignal(app_state.custom_accelerator_changed, timeout=1000):
        tab.use_button.click()
    custom = app_state.custom_accelerator
    assert custom is not None and dict(custom.peak_tflops) == pytest.approx({"fp32": 0.01})
    assert tab.use_button.text() == "Use in estimates"


def test_a_disturbed_run_shows_as_disturbed_in_the_history(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    conditions = {"disturbed": True, "summary": "disturbed run: other processes used 60% of CPUs"}

    def busy_suite(config: BenchConfig, token: CancelToken) -> Iterator[ProgressEvent]:
        yield ProgressEvent(0.5, "matmul fp32 64×64…", 0.0, result=result("fp32", 64, 0.3))
        yield ProgressEvent(1.0, "done", 0.0, done=True, conditions=conditions)

    tab = make_tab(make_services(tmp_path, suite=busy_suite), show=True)
    outcome = run_to_end(qtbot, tab)
    assert outcome.device_info["conditions"]["disturbed"]
    assert "check before use" in tab.use_summary.text()
    qtbot.waitUntil(lambda: len(tab.history.rows()) == 1, timeout=3000)
    row = tab.history.rows()[0]
    assert row.status.endswith("disturbed") and "60% of CPUs" in row.disturbed
    assert "60% of CPUs" in tab.history.runs.item(0, 6).toolTip()


def test_a_short_narrow_window_stacks_and_scrolls_instead_of_squeezing(
    qtbot: QtBot, make_tab: MakeTab, tmp_path: Path
) -> None:
    """At 1024×640 in presentation mode the suites' chips were clipped and the results table
    squeezed to one row; now the panes stack and each column scrolls."""
    from desktopapp.ui.hardware.tab import RESULTS_MIN_HEIGHT

    tab = make_tab(make_services(tmp_path, fake_report()), show=True)
    tab.resize(700, 420)
    qtbot.waitUntil(tab.splitter.is_stacked)
    assert tab.results_frame.height() >= RESULTS_MIN_HEIGHT
    tab.resize(1400, 900)
    qtbot.waitUntil(lambda: not tab.splitter.is_stacked())


def test_the_tab_opens_on_the_latest_saved_run_with_every_column_whole(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    """Issue 25: after a benchmark, a new window shows the run (not an empty table), and in
    presentation mode at 1024 px the results table keeps every column, none cut."""
    services = make_services(tmp_path, suite=fake_suite(steps=4))
    first = make_tab(services, show=True)
    saved = run_to_end(qtbot, first)
    assert saved.run_id is not None
    first.close()

    tab = make_tab(services, show=True)
    qtbot.waitUntil(lambda: tab.results_model.rowCount() == 4, timeout=10_000)
    assert f"#{saved.run_id}" in tab.results_caption.text()
    tab.resize(1000, 600)
    view = tab.results_view
    font = view.font()
    font.setPointSizeF(font.pointSizeF() * 1.35)  # presentation scale
    view.setFont(font)
    qtbot.wait(50)
    header = view.horizontalHeader()
    model = tab.results_model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())][
        3:5
    ] == ["Result", "Best"]
    for column in range(1, model.columnCount()):  # every figure column sized to its text
        assert not header.isSectionHidden(column)
        assert header.sectionSize(column) >= view.sizeHintForColumn(column), column


def test_the_tab_is_complete_once_the_latest_run_is_shown_and_fitted(
    make_tab: MakeTab, tmp_path: Path, qtbot: QtBot
) -> None:
    """A screenshot or check waits for ``plots_drawn``: ready (the machine detected) is not
    enough, the saved runs load in workers after it and the table fits its new rows on a
    later turn of the event loop. Taken at ready, CI's readability check saw a results row
    not yet sized to its wrapped suite name ("Bandwidth · device copy" cut) under load."""
    from desktopapp.ui.common.table_fit import fits_pending

    services = make_services(tmp_path, suite=fake_suite(steps=4))
    first = make_tab(services, show=True)
    run_to_end(qtbot, first)
    first.close()

    tab = make_tab(services)
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    assert tab.results_model.rowCount() == 4  # the latest run is on screen by then
    assert not fits_pending(tab)
    tab.refresh_history()
    assert not tab.plots_drawn()  # the saved runs are loading again
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    tab.results_model.append(tab.results_model.results()[0])  # a row arrives
    assert fits_pending(tab) and not tab.plots_drawn()  # fitted together, a moment later
    qtbot.waitUntil(lambda: not fits_pending(tab), timeout=5_000)
    assert tab.plots_drawn()


def test_throughput_plot_updates_keep_their_items(qtbot: QtBot) -> None:
    """Issue 25 item 10: every result of a run redraws the throughput plot; the curves, peak
    lines and their labels are made once and given new data (a rebuild per result stalled the
    GUI thread), a series or peak no longer shown goes, legend entry included."""
    from desktopapp.ui.hardware.bench_panel import ThroughputPlot

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    plot.show()
    fp32 = [(256, 1.0)]
    plot.show_data({("fp32", ""): fp32}, {"fp32": 4.0})
    curve, line, label = (
        plot.curves[("fp32", "")],
        plot.peak_lines["fp32"],
        plot.peak_labels["fp32"],
    )
    legend = plot.plot.getPlotItem().legend
    for n in (512, 1024):
        fp32 = [*fp32, (n, n / 256.0)]
        plot.show_data({("fp32", ""): fp32, ("bf16", ""): [(256, 2.0)]}, {"fp32": 4.0})
        assert plot.curves[("fp32", "")] is curve  # the same item, new data
        assert plot.peak_lines["fp32"] is line and plot.peak_labels["fp32"] is label
    xs, ys = curve.getData()
    assert len(xs) == 3 and list(ys) == [1.0, 2.0, 4.0]
    assert len(legend.items) == 2 and "fp32 peak 4" in label.toPlainText()
    plot.show_data({("bf16", ""): [(256, 2.0)]}, {})  # fp32 and its peak no longer shown
    assert set(plot.curves) == {("bf16", "")} and not plot.peak_lines and not plot.peak_labels
    assert len(legend.items) == 1
    items = plot.plot.getPlotItem().items
    assert curve not in items and line not in items and label not in items


def test_throughput_plot_redraws_axes_only_when_they_change(qtbot: QtBot) -> None:
    """Issue 25 item 10: a result that brings no new size and no new top leaves the axis ticks
    and the view range as they are (setting them again makes both axes lay out and draw their
    labels on the next paint, the largest GUI-thread cost of an update); a range someone
    changed is put back by the next result, as before."""
    from desktopapp.ui.hardware.bench_panel import ThroughputPlot

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    plot.show()
    series = {("fp32", ""): [(256, 1.0), (512, 2.0)]}
    plot.show_data(series, {"fp32": 4.0})
    item = plot.plot.getPlotItem()
    calls: list[str] = []
    axis = item.getAxis("bottom")
    set_ticks, set_x, set_y = axis.setTicks, item.setXRange, item.setYRange
    axis.setTicks = lambda *a, **k: (calls.append("ticks"), set_ticks(*a, **k))
    item.setXRange = lambda *a, **k: (calls.append("x"), set_x(*a, **k))
    item.setYRange = lambda *a, **k: (calls.append("y"), set_y(*a, **k))
    more = {("fp32", ""): [(256, 1.0), (512, 2.0)], ("bf16", ""): [(256, 1.5)]}
    plot.show_data(more, {"fp32": 4.0})  # same sizes, same top: nothing to redo
    assert calls == []
    plot.show_data({**more, ("bf16", ""): [(256, 1.5), (1024, 3.0)]}, {"fp32": 4.0})
    assert calls == ["ticks", "x"]  # a new size: new ticks and x range; the top is the peak
    calls.clear()
    set_y(0, 99.0, padding=0)  # the range changed behind the plot's back (a zoom)
    plot.show_data({**more, ("bf16", ""): [(256, 1.5), (1024, 3.0)]}, {"fp32": 4.0})
    assert calls == ["y"]
    (_x0, _x1), (y0, y1) = item.viewRange()
    assert y0 == pytest.approx(0.0) and y1 == pytest.approx(4.0 * 1.3)


def test_peak_label_keeps_off_the_curves(qtbot: QtBot) -> None:
    """Issue 25: the peak label sits at the left end below its dashed line, where curves that
    rise towards the peak leave room; when a curve runs just under the line there (a CPU near
    its peak) the label goes above the line instead, and the y range makes room for it below
    the legend."""
    from desktopapp.ui.hardware.bench_panel import (
        LABEL_HEIGHT_FRACTION,
        LEGEND_FREE_FRACTION,
        ThroughputPlot,
    )

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    plot.show()
    gpu = {("fp32", ""): [(256, 4.0), (1024, 30.0), (4096, 55.0)]}  # far below at the left
    plot.show_data(gpu, {"fp32": 67.0})
    assert plot.peak_labels["fp32"].anchor.y() == 0  # hangs below the line
    cpu = {("fp32", ""): [(256, 0.108), (512, 0.124), (2048, 0.161)], ("bf16", ""): [(256, 0.32)]}
    plot.show_data(cpu, {"fp32": 0.166})
    label = plot.peak_labels["fp32"]
    assert label.anchor.y() == 1  # stands on the line: the fp32 curve is just below it
    _x_range, (_low, high) = plot.plot.getPlotItem().viewRange()
    assert high >= 0.32 * 1.3  # the curves' own headroom is kept
    assert 0.166 + LABEL_HEIGHT_FRACTION * high <= LEGEND_FREE_FRACTION * high  # under the legend
    # a peak above every curve: the label above the line gets room under the legend
    plot.show_data({("fp32", ""): [(256, 0.9), (512, 0.95)]}, {"fp32": 1.0})
    _x_range, (_low, high) = plot.plot.getPlotItem().viewRange()
    assert plot.peak_labels["fp32"].anchor.y() == 1
    assert LEGEND_FREE_FRACTION * high + 1e-9 >= 1.0 + LABEL_HEIGHT_FRACTION * 1.3


def test_results_table_gives_the_suite_room_in_presentation(qtbot: QtBot) -> None:
    """Issue 25: at presentation size in the width the Hardware tab gives it at 1440×900, the
    results table shows every figure and the suite name whole ("Matmul", not "M…l"): the
    columns whose figures are narrower than their names show them on two lines. Exports keep
    one-line names."""
    from desktopapp.ui.common import export
    from desktopapp.ui.common.theme import BASE_POINT_SIZE, PRESENTATION_SCALE
    from desktopapp.ui.hardware.bench_panel import ResultsModel, results_table

    model = ResultsModel()
    for dtype in ("fp32", "bf16"):
        for size in (256, 1024, 2048):
            model.append(result(dtype, size, 0.161))
    table = results_table(model)
    qtbot.addWidget(table)
    font = table.font()
    font.setPointSizeF(BASE_POINT_SIZE * PRESENTATION_SCALE)
    table.setFont(font)
    table.resize(900, 300)
    table.show()
    qtbot.waitExposed(table)
    header = table.horizontalHeader()
    # the text and the cell margins of the style (an elided "M…l" had 63 px for 61 px of text)
    assert header.sectionSize(0) >= table.fontMetrics().horizontalAdvance("Matmul · a@b.T")
    assert sum(header.sectionSize(c) for c in range(model.columnCount())) <= (
        table.viewport().width()
    )  # no sideways scrolling
    assert "\n" in str(model.headerData(6, Qt.Orientation.Horizontal))
    first = export.table_csv(table).splitlines()[0]
    assert first == "Suite,Precision,Size,Result,Best,Time per op,% of peak"


def test_real_memory_suite_from_the_ui(make_tab: MakeTab, tmp_path: Path, qtbot: QtBot) -> None:
    """Issue 22: the window checks the fit verdict on this device too: the Memory chip runs
    real training steps and each row shows the measured peak with the model's ratio."""
    services = replace(make_services(tmp_path), start_benchmark=HardwareServices().start_benchmark)
    tab = make_tab(services, show=True)
    assert tab.controls.suites["memory"].isEnabled()
    assert not tab.controls.suites["memory"].isChecked()  # off by default, as in the CLI
    for key, chip in tab.controls.suites.items():
        chip.setChecked(key == "memory")
    outcome = run_to_end(qtbot, tab, timeout=120_000)

    assert outcome.error == ""
    rows = [tab.results_model.row_texts(r) for r in range(tab.results_model.rowCount())]
    assert len(rows) >= 2 and all(r[0].startswith("Memory") for r in rows)
    for r, text in zip(tab.shown_results(), rows, strict=True):
        peak = r.extra["measured_bytes"]["peak_allocated"]
        ratio = r.extra["predicted_bytes"]["peak_allocated"] / peak
        assert 0.95 <= ratio <= 1.15  # the acceptance band of the memory model
        assert f"model {ratio:.2f}×" in " ".join(text)


def test_live_caption_wraps_rather_than_widening_the_tab(qtbot):
    """The caption over the live results names the run, its date and its measured peaks, so its
    length follows the measurement: a long one wraps instead of raising the panel's minimum
    width (it pushed the Hardware tab past a 1440x900 window in presentation mode)."""
    from desktopapp.ui.hardware.live_panel import LivePanel

    panel = LivePanel()
    qtbot.addWidget(panel)
    panel.caption.setText("Run #1 of 2026-11-28 23:12 · AMD EPYC (cpu)")
    short = panel.minimumSizeHint().width()
    panel.caption.setText(
        "Run #12 of 2026-11-28 23:12 · AMD EPYC 9654 96-Core Processor (cpu) · peak fp32 "
        "0.166 TFLOP/s, bf16 0.0432 TFLOP/s, fp16 0.0401 TFLOP/s (estimate)"
    )
    assert panel.minimumSizeHint().width() == short


def test_plots_warm_up_on_the_gui_thread_once_shown(make_tab: MakeTab, tmp_path: Path, qtbot):
    """pyqtgraph's import walks every PySide6 attribute; in a worker, beside the history
    loader's imports, it crashed the process (1 in 80 screenshot runs). It runs once, on the
    GUI thread, after the first show."""
    import dataclasses
    import threading

    calls: list[threading.Thread] = []
    services = dataclasses.replace(
        make_services(tmp_path), warm_up=lambda: calls.append(threading.current_thread())
    )
    tab = make_tab(services, show=True)
    qtbot.waitUntil(lambda: len(calls) == 1)
    assert calls == [threading.main_thread()]
    tab.hide()
    tab.show()
    qtbot.wait(50)
    assert len(calls) == 1
