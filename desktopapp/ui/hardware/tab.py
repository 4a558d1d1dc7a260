"""The Hardware tab: what this machine has, what it really delivers, and how that compares with
the datasheet and with earlier runs.

Start-up never blocks on slow libraries: the CPU card is filled synchronously from
``/proc``/``/sys`` (about a millisecond), NVML detection runs in a worker right away, and torch
is probed in another worker only after the tab is first shown (importing torch takes a second or
more). Benchmarks run in a :class:`~desktopapp.ui.hardware.bench_worker.BenchWorker`; progress
arrives through queued signals tagged with a generation, and events of a run the tab no longer
shows are dropped.

The tab wires widgets, workers and the shared state together. What a run, a result, a finding
or a press of "Use in estimates" means is decided by
:class:`~desktopapp.application.hardware_controller.HardwareController` (the runs on screen) and
:class:`~desktopapp.application.hardware_machine.MachineState` (detection); the tab renders
their view-models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import QFileDialog, QFrame, QTabWidget, QVBoxLayout, QWidget

from desktopapp.application.hardware_controller import HardwareController
from desktopapp.application.hardware_jobs import (
    Comparison,
    HardwareServices,
    History,
    compare_runs,
    export_runs,
    load_history,
    load_run,
)
from desktopapp.application.hardware_machine import MachineState
from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.detect import SystemReport
from desktopapp.model.units import plural
from desktopapp.ui.common.layouts import scroll_area, two_panes
from desktopapp.ui.common.scaled_sheet import follow_scale
from desktopapp.ui.common.theme import SPACING
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.common.workers import TaskRunner
from desktopapp.ui.hardware.bench_panel import BenchControls
from desktopapp.ui.hardware.history import HistoryPanel
from desktopapp.ui.hardware.live_panel import LivePanel
from desktopapp.ui.hardware.machine_panel import MachinePanel
from desktopapp.ui.hardware.runs import RunsView
from desktopapp.ui.hardware.widgets import DeviceCard, hardware_style_sheet
from desktopapp.ui.state import AppState, CustomAccelerator

TORCH_PROBE_DELAY_MS = 150  # let the first paint happen before torch is imported


RESULTS_MIN_HEIGHT = 380  # px: the results table and plot stay readable


class HardwareTab(QWidget):
    """Device cards, the benchmark panel, live results, history, and "use in estimates"."""

    ready = Signal()
    run_finished = Signal(object)  # BenchOutcome of the run on screen
    history_loaded = Signal()

    def __init__(
        self,
        state: AppState,
        parent: QWidget | None = None,
        services: HardwareServices | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("HardwareTab")
        follow_scale(self, hardware_style_sheet)  # palette and presentation scale
        self.state = state
        if services is None:
            from desktopapp.ui.common.pyqtgraph_module import preload

            services = HardwareServices(warm_up=preload)
        self.services = services
        # Extra BenchConfig fields (``sizes``, ``max_size``, ``budget_s``) for short scripted
        # runs: screenshots and tests. Empty for users.
        self.config_overrides: dict[str, Any] = {}

        self.machine_state = MachineState(*self.services.detect_cpu())
        self.controller = HardwareController()

        self._detect = TaskRunner("hardware-detect", self)
        self._torch = TaskRunner("hardware-torch", self)
        self._history = TaskRunner("hardware-history", self)
        # loads submitted and not yet shown ("history", "run"): the tab is not complete
        self._pending: set[str] = set()
        self._compare = TaskRunner("hardware-compare", self)
        self._loader = TaskRunner("hardware-load-run", self)
        self._torch_timer = register_timer(QTimer(self))
        self._torch_timer.setObjectName("hardware-torch-probe")
        self._torch_timer.setSingleShot(True)
        self._torch_timer.setInterval(TORCH_PROBE_DELAY_MS)

        self._build()
        self._connect()
        self._render_devices()
        self._refresh_controls()
        self._detect.submit(self.services.detect_system)

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.machine = MachinePanel()
        self.redetect_button = self.machine.redetect_button
        self.machine_label = self.machine.machine_label
        self.problems = self.machine.problems
        self.splitter = two_panes(
            self, self.machine.area, self._build_results_column(), (450, 950), stacking=True
        )
        self.runs = RunsView(
            self.controller, self.services, self.controls, self.live, self.state, self
        )

    def _build_results_column(self) -> QWidget:
        """Right: what it delivers (controls, live results and plot, history)."""
        self.controls = BenchControls()
        self.live = LivePanel()
        live = self.live
        self.results_model, self.results_view = live.results_model, live.results_view
        self.plot, self.results_caption = live.plot, live.caption
        self.findings, self.findings_scroll = live.findings, live.findings_scroll
        self.use_summary, self.use_mode, self.use_status = (
            live.use.summary,
            live.use.mode,
            live.use.status,
        )
        self.use_button, self.stop_using_button = live.use.button, live.use.stop_button

        self.history = HistoryPanel()
        self.sub_tabs = QTabWidget()
        self.sub_tabs.setObjectName("SubTabs")
        self.sub_tabs.setDocumentMode(True)
        self.sub_tabs.tabBar().setDrawBase(False)
        self.sub_tabs.addTab(live, "Live results")
        self.sub_tabs.addTab(self.history, "History")
        from desktopapp.ui.hardware.collective import CollectivePanel

        self.collectives = CollectivePanel(state=self.state)  # issue 17: busbw, advertised
        self.sub_tabs.addTab(scroll_area(content=self.collectives), "Collectives")

        results_frame = QFrame()
        results_frame.setObjectName("Section")
        results_layout = QVBoxLayout(results_frame)
        results_layout.setContentsMargins(14, 8, 14, 12)
        results_layout.addWidget(self.sub_tabs)

        # On a short window (1024×640 in presentation mode) the column scrolls: the controls
        # keep every chip row and the results keep a readable height.
        results_frame.setMinimumHeight(RESULTS_MIN_HEIGHT)
        self.results_frame = results_frame
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(SPACING - 4)
        right_layout.addWidget(self.controls)
        right_layout.addWidget(results_frame, 1)
        return scroll_area(content=right)

    def _connect(self) -> None:
        self._detect.result_ready.connect(self._on_report)
        self._detect.error.connect(self._on_detect_error)
        self._torch.result_ready.connect(self._on_torch_report)
        self._torch.error.connect(self._on_torch_error)
        self._torch_timer.timeout.connect(self._start_torch_probe)
        self._history.result_ready.connect(self._on_history)
        self._history.error.connect(lambda message: self._on_history(History((), message)))
        self._compare.result_ready.connect(self._on_comparison)
        self._compare.error.connect(self._show_error)
        self._loader.result_ready.connect(self._on_run_loaded)
        self._loader.error.connect(self._show_error)
        self._loader.error.connect(lambda _message: self._pending.discard("run"))
        self.redetect_button.clicked.connect(self.detect_again)
        self.controls.start_requested.connect(self.start_benchmark)
        self.controls.device_changed.connect(lambda _spec: self._refresh_dtypes())
        self.controls.mode_changed.connect(lambda _quick: self._refresh_dtypes())
        self.history.open_requested.connect(self.show_saved_run)
        self.history.compare_requested.connect(self.compare)
        self.history.export_requested.connect(self._on_export_requested)
        self.runs.run_finished.connect(self.run_finished)
        self.runs.run_saved.connect(self.refresh_history)

    # --- tab contract --------------------------------------------------------------------------
    def is_ready(self) -> bool:
        return self.machine_state.ready

    def shutdown(self) -> None:
        """Stop the torch timer, cancel a run and wait for every worker of this tab."""
        if self.controller.closed:
            return
        self.controller.close()  # anything still in flight is stale now
        self._torch_timer.stop()
        self.runs.stop(5000)
        runners = (self._detect, self._torch, self._history, self._compare, self._loader)
        for runner in runners:
            runner.shutdown(5000)

    def closeEvent(self, event: QCloseEvent) -> None:  # a tab shown on its own (tests)
        self.shutdown()
        super().closeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.machine_state.first_show():
            # On the GUI thread, once the window is up: importing pyqtgraph walks every
            # PySide6 attribute, and doing it in a worker beside the history loader's imports
            # and the GUI thread's own Qt work crashed the process (a segmentation fault in 1
            # of 80 `--screenshot --tab hardware` runs under load, and once in CI).
            QTimer.singleShot(0, self._warm_up_plots)
            self._maybe_probe_torch()

    def _warm_up_plots(self) -> None:
        if not self.controller.closed:
            self.services.warm_up()
            self.plot.prepare()

    def _mark_ready(self, became_ready: bool) -> None:
        if became_ready:
            self.ready.emit()

    # --- detection -----------------------------------------------------------------------------
    @property
    def report(self) -> SystemReport | None:
        return self.machine_state.report

    @property
    def cpu_card(self) -> DeviceCard | None:
        return self.machine.cpu_card

    @property
    def gpu_cards(self) -> list[DeviceCard]:
        return self.machine.gpu_cards

    @property
    def no_gpu_card(self) -> DeviceCard | None:
        return self.machine.no_gpu_card

    @property
    def torch_card(self) -> DeviceCard | None:
        return self.machine.torch_card

    def detect_again(self) -> None:
        if self.controller.closed:
            return
        self.machine_state.redetect()
        self._detect.submit(self.services.detect_system)
        self._render_devices()

    @Slot(object)
    def _on_report(self, report: object) -> None:
        if not self.machine_state.report_arrived(report):
            return
        self._render_devices()
        self._refresh_controls()
        self.refresh_history()
        self._maybe_probe_torch()

    @Slot(str)
    def _on_detect_error(self, message: str) -> None:
        self.state.show_status(f"Hardware detection failed: {message}", 0)
        became_ready = self.machine_state.detect_failed()
        self._render_devices()
        self._mark_ready(became_ready)

    def _maybe_probe_torch(self) -> None:
        if self.machine_state.begin_torch_probe():
            self._render_devices()
            self._torch_timer.start()

    @Slot()
    def _start_torch_probe(self) -> None:
        report = self.machine_state.report
        if report is None or self.controller.closed:
            return
        add_torch = self.services.add_torch
        self._torch.submit(lambda: add_torch(report))

    @Slot(object)
    def _on_torch_report(self, report: object) -> None:
        became_ready = self.machine_state.torch_arrived(report)
        self._render_devices()
        self._refresh_controls()
        self._mark_ready(became_ready)

    @Slot(str)
    def _on_torch_error(self, message: str) -> None:
        became_ready = self.machine_state.torch_failed()
        self.state.show_status(f"PyTorch could not be checked: {message}", 0)
        self._render_devices()
        self._mark_ready(became_ready)

    def _render_devices(self) -> None:
        self.machine.render(self.machine_state.devices_view())

    # --- benchmark controls ------------------------------------------------------------------
    def _refresh_controls(self) -> None:
        choices = self.machine_state.choices(self.controls.device_spec())
        self.controls.set_devices(choices.devices, choices.current)
        self.controls.set_suite_availability(choices.suites)
        self._refresh_dtypes()

    def _refresh_dtypes(self) -> None:
        available, checked = self.machine_state.dtypes(
            self.controls.device_spec(), self.controls.is_quick()
        )
        self.controls.set_dtypes(available, checked)

    def is_running(self) -> bool:
        return self.controller.running

    @property
    def dropped_events(self) -> int:
        """Events of runs no longer on screen, dropped."""
        return self.controller.dropped_events

    @property
    def _generation(self) -> int:
        return self.controller.generation

    # --- running a benchmark -------------------------------------------------------------------
    def start_benchmark(self) -> bool:
        """Start a run with the panel's choices; False (with the reason shown) if it cannot."""
        machine = self.machine_state.machine()
        if not self.runs.start(machine, self.config_overrides):
            return False
        self.sub_tabs.setCurrentIndex(0)
        return True

    def cancel_benchmark(self) -> None:
        self.runs.cancel()

    def _on_progress(self, generation: int, event: object) -> None:
        self.runs.on_progress(generation, event)

    def findings_lines(self) -> list[str]:
        return list(self.controller.findings)

    def shown_results(self) -> list[BenchResult]:
        return self.results_model.results()

    def use_in_estimates(self, apply_anyway: bool = False) -> CustomAccelerator | None:
        """Hand the measured throughput to the Workload tab; a suspect or disturbed run only
        with ``apply_anyway`` (the second press, "Apply anyway")."""
        return self.runs.use_in_estimates(apply_anyway)

    # --- history ---------------------------------------------------------------------------------
    def refresh_history(self) -> None:
        if self.controller.closed:
            return
        services = self.services
        machine = self.machine_state.machine().fingerprint
        self._pending.add("history")
        self._history.submit(lambda: load_history(services, machine))

    @Slot(object)
    def _on_history(self, history: object) -> None:
        loaded = self.controller.history_loaded(history)
        if loaded is None:
            return
        self.history.set_rows(loaded.rows, loaded.path, loaded.error)
        self._show_latest_run(loaded.rows)  # may start loading that run ("run")
        self._pending.discard("history")
        self.history_loaded.emit()

    def plots_drawn(self) -> bool:
        """The tab is complete once ready: the saved runs are listed, the latest one is shown
        (plot and table) and its tables are fitted (a screenshot or check taken earlier saw an
        empty plot, or rows not yet sized to their wrapped text)."""
        from desktopapp.ui.common.table_fit import fits_pending

        return not self._pending and not fits_pending(self)

    def _show_latest_run(self, rows: Sequence[Any]) -> None:
        """With nothing on screen yet, show this machine's latest saved run: the tab opens
        on what the machine delivered last time, not on an empty table."""
        controller = self.controller
        if controller.running or controller.results or controller.label:
            return
        mine = [r for r in rows if getattr(r, "same_machine", False)]
        if mine:
            latest = max(mine, key=lambda r: r.run_id)
            self.show_saved_run(latest.run_id)

    def compare(self, a: int, b: int) -> None:
        services = self.services
        self._compare.submit(lambda: compare_runs(services, a, b))

    @Slot(object)
    def _on_comparison(self, comparison: object) -> None:
        if isinstance(comparison, Comparison):
            self.history.show_comparison(comparison)

    def show_saved_run(self, run_id: int) -> None:
        refusal = self.controller.open_refusal()
        if refusal is not None:
            self.runs.show_status(refusal)
            return
        services = self.services
        self._pending.add("run")
        self._loader.submit(lambda: load_run(services, run_id))

    @Slot(object)
    def _on_run_loaded(self, loaded: object) -> None:
        self._pending.discard("run")
        if self.runs.show_loaded(loaded):
            self.sub_tabs.setCurrentIndex(0)

    def export(self, kind: str, path: str, run_ids: Sequence[int] | None = None) -> str:
        """Export runs (the selected ones, or all) to ``path``; returns the written path."""
        chosen = list(run_ids) if run_ids is not None else self.history.selected_run_ids()
        ids = self.controller.export_ids(chosen)
        written = export_runs(self.services, ids, path, kind)
        self.state.show_status(f"Exported {plural(len(ids), 'run')} to {written}", 8000)
        return written

    def _on_export_requested(self, kind: str) -> None:
        pattern = "JSON (*.json)" if kind == "json" else "CSV (*.csv)"
        path, _filter = QFileDialog.getSaveFileName(
            self, "Export benchmark results", f"benchmarks.{kind}", pattern
        )
        if not path:
            return
        try:
            self.export(kind, path)
        except (OSError, RuntimeError, ValueError) as exc:
            self._show_error(f"Export failed: {exc}")

    @Slot(str)
    def _show_error(self, message: str) -> None:
        self.state.show_status(message, 0)


__all__ = ["HardwareTab"]
