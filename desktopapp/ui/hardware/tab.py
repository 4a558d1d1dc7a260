"""The Hardware tab: what this machine has, what it really delivers, and how that compares with
the datasheet and with earlier runs.

Start-up never blocks on slow libraries: the CPU card is filled synchronously from
``/proc``/``/sys`` (about a millisecond), NVML detection runs in a worker right away, and torch
is probed in another worker only after the tab is first shown (importing torch takes a second or
more). Benchmarks run in a :class:`~desktopapp.ui.hardware.bench_worker.BenchWorker`; progress
arrives through queued signals tagged with a generation, and events of a run the tab no longer
shows are dropped.
"""

from __future__ import annotations

import html
import socket
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent, QResizeEvent, QShowEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.hardware import (
    NEEDS_TORCH,
    USE_AS_PEAK,
    USE_AS_UTILIZATION,
    MeasuredDevice,
    best_by_dtype,
    default_dtypes,
    dtype_availability,
    eta_text,
    matmul_series,
    measured_accelerator,
    measured_device_from_info,
    percent_text,
    review_use,
    tflops_text,
    utilization_choices,
)
from desktopapp.application.hardware_jobs import (
    BenchOutcome,
    Comparison,
    HardwareServices,
    History,
    LoadedRun,
    Machine,
    compare_runs,
    export_runs,
    load_history,
    load_run,
)
from desktopapp.devices.bench.core import BenchResult, ProgressEvent
from desktopapp.devices.cpu import CpuInfo, MemoryInfo
from desktopapp.devices.detect import SystemReport, machine_fingerprint
from desktopapp.devices.gpu import CatalogMatch, match_catalog
from desktopapp.devices.problems import NO_GPU, kind_of
from desktopapp.model.validation import error_text
from desktopapp.ui.common.layouts import scroll_area, scrolling_column, two_panes
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.common.theme import SPACING
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.common.workers import TaskRunner
from desktopapp.ui.hardware.bench_panel import (
    BenchControls,
    ResultsModel,
    ThroughputPlot,
    results_table,
)
from desktopapp.ui.hardware.cards import (
    cpu_card,
    gpu_card,
    machine_line,
    no_gpu_card,
    other_device_card,
    problem_lines,
    torch_card,
)
from desktopapp.ui.hardware.history import HistoryPanel
from desktopapp.ui.hardware.widgets import DeviceCard, Notice, hardware_style_sheet
from desktopapp.ui.state import AppState, CustomAccelerator

TORCH_PROBE_DELAY_MS = 150  # let the first paint happen before torch is imported


class WrappingFrame(QFrame):
    """A frame whose word-wrapped labels keep the height their text needs at their width (its
    parent layouts size it from the unwrapped hint, which cut the "Use in estimates" text)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        keep_label_heights(self)


def keep_label_heights(widget: QWidget) -> None:
    """Give every label under ``widget`` at least the height its text needs at its width."""
    for label in widget.findChildren(QLabel):
        if label.width() <= 0:
            continue
        needed = (
            label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        )
        if needed > 0 and needed != label.minimumHeight():
            label.setMinimumHeight(needed)


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
        self.setStyleSheet(hardware_style_sheet())
        self.state = state
        if services is None:
            from desktopapp.ui.common.plots import preload

            services = HardwareServices(warm_up=preload)
        self.services = services
        # Extra BenchConfig fields (``sizes``, ``max_size``, ``budget_s``) for short scripted
        # runs: screenshots and tests. Empty for users.
        self.config_overrides: dict[str, Any] = {}

        self._cpu: CpuInfo
        self._memory: MemoryInfo
        self._cpu, self._memory = self.services.detect_cpu()
        self._cpu_catalog: CatalogMatch = match_catalog(self._cpu.model)
        self._report: SystemReport | None = None
        self._torch_state = "waiting"  # waiting → probing → done
        self._shown = False
        self._ready = False
        self._shut_down = False

        self._generation = 0
        self._worker: Any = None  # BenchWorker while a run is going
        self.dropped_events = 0
        self._findings: list[str] = []
        self._device: MeasuredDevice | None = None  # device of the results on screen
        self._device_info: dict[str, object] = {}  # its device info, with the run conditions
        self._confirm_pending = False  # "Use in estimates" showed a warning: next press applies
        self._shown_label = ""  # "this run", "run #3 of …"
        self._last_outcome: BenchOutcome | None = None

        self._detect = TaskRunner("hardware-detect", self)
        self._torch = TaskRunner("hardware-torch", self)
        self._history = TaskRunner("hardware-history", self)
        self._compare = TaskRunner("hardware-compare", self)
        self._loader = TaskRunner("hardware-load-run", self)
        self._warm = TaskRunner("hardware-warm-up", self)
        self._torch_timer = register_timer(QTimer(self))
        self._torch_timer.setObjectName("hardware-torch-probe")
        self._torch_timer.setSingleShot(True)
        self._torch_timer.setInterval(TORCH_PROBE_DELAY_MS)

        self._build()
        self._connect()
        self._render_devices()
        self._refresh_controls()
        self._refresh_use_panel()
        self._on_custom_accelerator(self.state.custom_accelerator)
        self._detect.submit(self.services.detect_system)

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        left_scroll = self._build_machine_column()
        right = self._build_results_column()
        self.splitter = two_panes(self, left_scroll, right, (450, 950))

    def _build_machine_column(self) -> QWidget:
        """Left: what the machine has."""
        title = QLabel("This machine")
        title.setObjectName("PanelTitle")
        self.redetect_button = QPushButton("Detect again")
        self.redetect_button.setObjectName("LinkButton")
        self.redetect_button.setToolTip("Read CPU, GPUs and PyTorch again (after a driver install)")
        heading = QHBoxLayout()
        heading.addWidget(title)
        heading.addStretch(1)
        heading.addWidget(self.redetect_button)
        self.machine_label = QLabel("")
        self.machine_label.setObjectName("Muted")
        self.machine_label.setWordWrap(True)
        self.problems = Notice("To get more out of this machine")
        self.problems.setVisible(False)
        self.cards_box = QVBoxLayout()
        self.cards_box.setSpacing(SPACING)
        self.cards: list[DeviceCard] = []
        self.cpu_card: DeviceCard | None = None
        self.gpu_cards: list[DeviceCard] = []
        self.no_gpu_card: DeviceCard | None = None
        self.torch_card: DeviceCard | None = None

        left_scroll = scrolling_column(
            (heading, self.machine_label, self.problems, self.cards_box), spacing=SPACING - 4
        )
        left_scroll.setMinimumWidth(380)
        return left_scroll

    def _build_results_column(self) -> QWidget:
        """Right: what it delivers (controls, live results and plot, history)."""
        self.controls = BenchControls()
        self.results_model = ResultsModel(self)
        self.results_view = results_table(self.results_model)
        self.plot = ThroughputPlot()
        self.findings = Notice("Findings", tone="info")
        self.findings.setVisible(False)
        findings_scroll = scroll_area(content=self.findings)
        findings_scroll.setMinimumWidth(260)
        findings_scroll.setVisible(False)
        self.findings_scroll = findings_scroll
        self.results_caption = QLabel("")
        self.results_caption.setObjectName("Muted")
        top_split = QSplitter(Qt.Orientation.Horizontal)
        top_split.setChildrenCollapsible(False)
        top_split.addWidget(self.plot)
        top_split.addWidget(findings_scroll)
        top_split.setStretchFactor(0, 3)
        top_split.setStretchFactor(1, 2)
        top_split.setSizes([540, 340])
        live_split = QSplitter(Qt.Orientation.Vertical)
        live_split.setChildrenCollapsible(False)
        live_split.addWidget(top_split)
        live_split.addWidget(self.results_view)
        live_split.setSizes([290, 230])
        live = QWidget()
        live_layout = QVBoxLayout(live)
        live_layout.setContentsMargins(0, 8, 0, 0)
        live_layout.setSpacing(8)
        live_layout.addWidget(self.results_caption)
        live_layout.addWidget(live_split, 1)
        live_layout.addWidget(self._build_use_panel())

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

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(SPACING - 4)
        right_layout.addWidget(self.controls)
        right_layout.addWidget(results_frame, 1)
        return right

    def _build_use_panel(self) -> QFrame:
        frame = WrappingFrame()
        frame.setObjectName("PeakTile")
        title = QLabel("Use in estimates")
        title.setObjectName("SectionTitle")
        self.use_summary = QLabel("")
        self.use_summary.setObjectName("Muted")
        self.use_summary.setWordWrap(True)
        self.use_mode = QComboBox()
        self.use_mode.addItem("Measured TFLOP/s as the peak", USE_AS_PEAK)
        self.use_mode.setItemData(
            0,
            "The Workload tab plans with what this machine really sustains in matmul; its "
            "utilization then applies on top",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.use_mode.addItem("Achieved share of peak as utilization", USE_AS_UTILIZATION)
        self.use_mode.setItemData(
            1,
            "The datasheet (or estimated) peak stays; utilization = measured ÷ peak",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.use_button = QPushButton("Use in estimates")
        self.use_button.setObjectName("Primary")
        self.stop_using_button = QPushButton("Stop using")
        self.stop_using_button.setObjectName("LinkButton")
        self.use_status = QLabel("")
        self.use_status.setObjectName("Faint")
        self.use_status.setWordWrap(True)

        # Title and actions on one row, the measured figures (wrapping) under them: side by
        # side the summary was squeezed into a narrow column of one word per line.
        for button in (self.use_button, self.stop_using_button):
            button.setMinimumWidth(button.sizeHint().width())
        self.use_mode.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(title)
        row.addStretch(1)
        row.addWidget(self.use_mode)
        row.addWidget(self.use_button)
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.use_summary)
        status_row = QHBoxLayout()
        status_row.addWidget(self.use_status, 1)
        status_row.addWidget(self.stop_using_button)
        layout.addLayout(status_row)
        return frame

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
        self.redetect_button.clicked.connect(self.detect_again)
        self.controls.start_requested.connect(self.start_benchmark)
        self.controls.cancel_requested.connect(self.cancel_benchmark)
        self.controls.device_changed.connect(lambda _spec: self._refresh_dtypes())
        self.controls.mode_changed.connect(lambda _quick: self._refresh_dtypes())
        self.history.open_requested.connect(self.show_saved_run)
        self.history.compare_requested.connect(self.compare)
        self.history.export_requested.connect(self._on_export_requested)
        self.use_button.clicked.connect(
            lambda: self.use_in_estimates(apply_anyway=self._confirm_pending)
        )
        self.stop_using_button.clicked.connect(lambda: self.state.set_custom_accelerator(None))
        self.use_mode.activated.connect(lambda _index: self._refresh_use_panel())
        self.state.custom_accelerator_changed.connect(self._on_custom_accelerator)

    # --- tab contract --------------------------------------------------------------------------
    def is_ready(self) -> bool:
        return self._ready

    def shutdown(self) -> None:
        """Stop the torch timer, cancel a run and wait for every worker of this tab."""
        if self._shut_down:
            return
        self._shut_down = True
        self._torch_timer.stop()
        self._generation += 1  # anything still in flight is stale now
        worker = self._worker
        if worker is not None:
            worker.cancel()
            worker.wait(5000)
        runners = (self._detect, self._torch, self._history, self._compare, self._loader)
        for runner in (*runners, self._warm):
            runner.shutdown(5000)

    def closeEvent(self, event: QCloseEvent) -> None:  # a tab shown on its own (tests)
        self.shutdown()
        super().closeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        """Follow a theme switch: rebuild this tab's style sheet from the active palette."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            sheet = hardware_style_sheet()
            if sheet != self.styleSheet():
                self.setStyleSheet(sheet)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown:
            self._shown = True
            self._warm.submit(self.services.warm_up)
            self._maybe_probe_torch()

    def _mark_ready(self) -> None:
        if not self._ready and self._report is not None and self._torch_state == "done":
            self._ready = True
            self.ready.emit()

    # --- detection -----------------------------------------------------------------------------
    @property
    def report(self) -> SystemReport | None:
        return self._report

    def detect_again(self) -> None:
        if self._shut_down:
            return
        self._torch_state = "waiting"
        self._detect.submit(self.services.detect_system)
        self._render_devices()

    @Slot(object)
    def _on_report(self, report: object) -> None:
        if not isinstance(report, SystemReport):
            return
        self._report = report
        self._cpu, self._memory = report.cpu, report.memory
        if report.cpu_catalog is not None:
            self._cpu_catalog = report.cpu_catalog
        self._render_devices()
        self._refresh_controls()
        self.refresh_history()
        self._maybe_probe_torch()

    @Slot(str)
    def _on_detect_error(self, message: str) -> None:
        self.state.show_status(f"Hardware detection failed: {message}", 0)
        self._torch_state = "done"
        self._render_devices()
        if not self._ready:  # the CPU card is all there will be: do not keep --screenshot waiting
            self._ready = True
            self.ready.emit()

    def _maybe_probe_torch(self) -> None:
        if self._shown and self._report is not None and self._torch_state == "waiting":
            self._torch_state = "probing"
            self._render_devices()
            self._torch_timer.start()

    @Slot()
    def _start_torch_probe(self) -> None:
        report = self._report
        if report is None or self._shut_down:
            return
        add_torch = self.services.add_torch
        self._torch.submit(lambda: add_torch(report))

    @Slot(object)
    def _on_torch_report(self, report: object) -> None:
        self._torch_state = "done"
        if isinstance(report, SystemReport):
            self._report = report
        self._render_devices()
        self._refresh_controls()
        self._mark_ready()

    @Slot(str)
    def _on_torch_error(self, message: str) -> None:
        self._torch_state = "done"
        self.state.show_status(f"PyTorch could not be checked: {message}", 0)
        self._render_devices()
        self._mark_ready()

    # --- device cards --------------------------------------------------------------------------
    def _clear_cards(self) -> None:
        for card in self.cards:
            self.cards_box.removeWidget(card)
            card.setParent(None)
            card.deleteLater()
        self.cards = []
        self.gpu_cards = []
        self.no_gpu_card = None

    def _render_devices(self) -> None:
        report = self._report
        self._clear_cards()
        cpu = cpu_card(self._cpu, self._memory, self._cpu_catalog)
        self.cpu_card = cpu
        self.cards.append(cpu)
        gpu_reason = ""
        if report is None:
            placeholder = no_gpu_card("Looking for GPUs…")
            placeholder.title_label.setText("GPUs")
            self.no_gpu_card = placeholder
            self.cards.append(placeholder)
        else:
            for gpu in report.gpus:
                card = gpu_card(gpu)
                self.gpu_cards.append(card)
                self.cards.append(card)
            others = []
            if report.torch is not None and report.torch.installed:
                others = [d for d in report.torch.devices if d.kind in ("mps", "xpu")]
            for device in others:
                card = other_device_card(device)
                self.gpu_cards.append(card)
                self.cards.append(card)
            if not report.gpus and not others:
                gpu_reason = next((p for p in report.problems if kind_of(p) == NO_GPU), "")
                why = gpu_reason.partition(": ")[2] if gpu_reason else report.nvml.reason
                card = no_gpu_card(_no_gpu_line(why))
                self.no_gpu_card = card
                self.cards.append(card)
        probing = self._torch_state == "probing"
        has_nvidia = report is not None and any(g.source == "nvml" for g in report.gpus)
        self.torch_card = torch_card(None if report is None else report.torch, probing, has_nvidia)
        self.cards.append(self.torch_card)
        for card in self.cards:
            self.cards_box.addWidget(card)

        if report is not None:
            self.machine_label.setText(
                machine_line(report.hostname, report.os, report.python, report.seconds)
            )
            lines = problem_lines(report.problems, shown_elsewhere=gpu_reason)
            self.problems.set_lines(lines)
        else:
            self.machine_label.setText(html.escape(socket.gethostname()))
            self.problems.set_lines([])

    # --- benchmark controls ------------------------------------------------------------------
    def _torch_available(self) -> bool | None:
        report = self._report
        if report is None or report.torch is None:
            return None
        return report.torch.installed

    def _device_choices(self) -> list[tuple[str, str]]:
        report = self._report
        choices = [("cpu", f"CPU · {self._cpu.model}")]
        if report is None:
            return choices
        names = {g.torch_device: g.name for g in report.gpus if g.torch_device}
        for spec in report.device_choices()[1:]:
            name = names.get(spec)
            if name is None and report.torch is not None:
                name = next((d.name for d in report.torch.devices if d.id == spec), spec)
            choices.append((spec, f"{name} ({spec})"))
        return choices

    def _refresh_controls(self) -> None:
        current = self.controls.device_spec()
        choices = self._device_choices()
        if current not in [spec for spec, _ in choices]:
            # A GPU is the interesting default once torch can use one.
            current = choices[1][0] if len(choices) > 1 else "cpu"
        self.controls.set_devices(choices, current)
        torch_ok = self._torch_available()
        suites: dict[str, str] = {}
        if torch_ok is False and self._report is not None and self._report.torch is not None:
            hint = self._report.torch.install_hint
            suites = {name: f"needs PyTorch: {hint}" for name in NEEDS_TORCH}
        self.controls.set_suite_availability(suites)
        self._refresh_dtypes()

    def _refresh_dtypes(self) -> None:
        spec = self.controls.device_spec()
        torch_ok = self._torch_available()
        self.controls.set_dtypes(
            dtype_availability(spec, torch_ok),
            default_dtypes(spec, self.controls.is_quick(), torch_ok),
        )

    def _machine(self) -> Machine:
        report = self._report
        if report is not None:
            return Machine(report.fingerprint, report.hostname)
        host = socket.gethostname()
        return Machine(machine_fingerprint(self._cpu.model, [], host), host)

    def is_running(self) -> bool:
        return self._worker is not None

    # --- running a benchmark -------------------------------------------------------------------
    def start_benchmark(self) -> bool:
        """Start a run with the panel's choices; False (with the reason shown) if it cannot."""
        from desktopapp.devices.bench.runner import BenchConfig
        from desktopapp.ui.hardware.bench_worker import BenchWorker

        if self._worker is not None or self._shut_down:
            return False
        suites = self.controls.selected_suites()
        dtypes = self.controls.selected_dtypes()
        if not suites:
            self._show_step("Choose at least one suite to run.")
            return False
        if "matmul" in suites and not dtypes:
            self._show_step("Choose at least one matmul precision.")
            return False
        try:
            config = BenchConfig(
                device=self.controls.device_spec(),
                suites=suites,
                dtypes=dtypes or None,
                quick=self.controls.is_quick(),
                **self.config_overrides,
            )
        except (TypeError, ValueError) as exc:
            self._show_step(f"Cannot start: {exc}")
            return False
        self._generation += 1
        self._clear_findings()
        self.results_model.set_results([])
        self._device = None
        self._device_info = {}
        self._shown_label = "this run"
        self._last_outcome = None
        self.plot.clear_data()
        self._refresh_use_panel()
        self.results_caption.setText(f"Running on {config.device}…")
        self.sub_tabs.setCurrentIndex(0)

        worker = BenchWorker(config, self.services, self._machine(), self._generation)
        queued = Qt.ConnectionType.QueuedConnection
        worker.device_resolved.connect(self._on_device_resolved, queued)
        worker.progress.connect(self._on_progress, queued)
        worker.succeeded.connect(self._on_run_done, queued)
        worker.failed.connect(self._on_run_failed, queued)
        worker.finished.connect(self._on_worker_finished, queued)
        self._worker = worker
        self.controls.set_running(True)
        self.controls.show_progress(0.0, f"Starting on {config.device}…", "")
        worker.start_registered()
        return True

    def cancel_benchmark(self) -> None:
        worker = self._worker
        if worker is None:
            return
        worker.cancel()
        self.controls.cancel_button.setEnabled(False)
        self.controls.cancel_button.setText("Cancelling…")
        self._show_step("Cancelling after the current step…")

    @Slot(int, object)
    def _on_device_resolved(self, generation: int, info: object) -> None:
        if generation != self._generation or not isinstance(info, Mapping):
            self.dropped_events += 1
            return
        self._device = measured_device_from_info(info, self.controls.device_spec())
        self._device_info = dict(info)
        self.results_caption.setText(self._caption_text())
        self._refresh_plot()

    @Slot(int, object)
    def _on_progress(self, generation: int, event: object) -> None:
        if generation != self._generation or not isinstance(event, ProgressEvent):
            self.dropped_events += 1
            return
        self.controls.show_progress(event.fraction, event.message, eta_text(event.eta_s))
        if event.result is not None:
            self.results_model.append(event.result)
            self.results_view.resizeColumnsToContents()
            self.results_view.scrollToBottom()
            if event.result.suite == "matmul":
                self._refresh_plot()
            self._refresh_use_panel()
        if event.warning:
            self._add_finding(event.warning)

    @Slot(int, object)
    def _on_run_done(self, generation: int, outcome: object) -> None:
        if generation != self._generation or not isinstance(outcome, BenchOutcome):
            self.dropped_events += 1
            return
        self._last_outcome = outcome
        self._device_info = dict(outcome.device_info)
        if outcome.error:
            self._show_step(f"Could not start: {outcome.error}")
            self.results_caption.setText("")
            self.state.show_status(f"Benchmark could not start: {outcome.error}", 0)
            self.run_finished.emit(outcome)
            return
        for warning in outcome.warnings:
            self._add_finding(warning)
        done = "Cancelled" if outcome.cancelled else "Finished"
        count = len(outcome.results)
        if outcome.run_id is not None:
            kept = "partial results saved" if outcome.cancelled else "saved"
            saved = f"{kept} as run #{outcome.run_id}"
        else:
            saved = outcome.save_error
        message = f"{done} in {outcome.seconds:.1f} s: {count} results, {saved}."
        if outcome.cancelled:
            self._show_step(message)
        else:
            self.controls.show_progress(1.0, message, "")
        self.results_caption.setText(self._caption_text())
        self.state.show_status(f"Benchmark {message[0].lower()}{message[1:]}", 8000)
        self._refresh_use_panel()
        self.refresh_history()
        self.run_finished.emit(outcome)

    @Slot(int, str)
    def _on_run_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            self.dropped_events += 1
            return
        self._show_step(f"The benchmark failed: {message}")
        self.state.show_status(f"Benchmark failed: {message}", 0)

    @Slot()
    def _on_worker_finished(self) -> None:
        self._worker = None
        self.controls.set_running(False)

    def _show_step(self, text: str) -> None:
        self.controls.step_label.setText(text)
        self.controls.eta_label.setText("")

    def _add_finding(self, text: str) -> None:
        if text in self._findings:
            return
        self._findings.append(text)
        count = len(self._findings)
        self.findings.set_lines(
            self._findings, title=f"Findings · {count}" if count > 1 else "Finding"
        )
        self.findings_scroll.setVisible(True)

    def _clear_findings(self) -> None:
        self._findings = []
        self.findings.set_lines([])
        self.findings_scroll.setVisible(False)

    def findings_lines(self) -> list[str]:
        return list(self._findings)

    # --- what is on screen -------------------------------------------------------------------
    def _caption_text(self) -> str:
        device = self._device
        if device is None:
            return ""
        parts = [f"{device.name} ({device.spec})"]
        if self._shown_label and self._shown_label != "this run":
            parts.insert(0, self._shown_label[:1].upper() + self._shown_label[1:])
        peaks = ", ".join(f"{d} {tflops_text(v)}" for d, v in device.peaks.items())
        if peaks:
            estimate = device.peak_source.startswith("estimate")
            parts.append(f"peak {peaks} TFLOP/s{' (estimate)' if estimate else ''}")
        else:
            parts.append("no known peak, so no % of peak")
        return " · ".join(parts)

    def _refresh_plot(self) -> None:
        results = self.results_model.results()
        device = self._device
        peaks = device.peaks if device is not None else {}
        estimate = device is not None and device.peak_source.startswith("estimate")
        self.plot.show_data(matmul_series(results), peaks, " (estimate)" if estimate else "")
        if device is not None:
            self.plot.setToolTip(
                formula_tooltip("Peaks", note=device.peak_source) if device.peak_source else ""
            )

    def shown_results(self) -> list[BenchResult]:
        return self.results_model.results()

    # --- use in estimates ----------------------------------------------------------------------
    def _refresh_use_panel(self) -> None:
        results = self.results_model.results()
        best = best_by_dtype(results)
        device = self._device
        self._set_confirm_pending(False)
        if not best or device is None:
            self.use_summary.setText("Run the matmul suite to use the measured throughput here.")
            self.use_button.setEnabled(False)
            return
        parts = []
        for dtype, result in best.items():
            pct = percent_text(result)
            share = f" ({pct} of peak)" if pct != "—" else ""
            parts.append(f"{dtype} {tflops_text(result.tflops)}{share}")
        text = "Best measured: " + " · ".join(parts) + " TFLOP/s"
        # Flag a suspect or disturbed run BEFORE it can be applied (model.measurement).
        review = review_use(results, device, self._device_info)
        if review.suspect:
            text += f" — suspect ({', '.join(review.suspect)} far below the datasheet)"
        elif review.needs_confirmation:
            text += " — check before use"
        self.use_summary.setText(text)
        self.use_summary.setToolTip(review.warning)
        shares = utilization_choices(results, device)
        model = self.use_mode.model()
        if isinstance(model, QStandardItemModel):
            entry = model.item(1)
            if entry is not None:
                entry.setEnabled(bool(shares))
        if not shares and self.use_mode.currentData() == USE_AS_UTILIZATION:
            with QSignalBlocker(self.use_mode):
                self.use_mode.setCurrentIndex(0)
        self.use_button.setEnabled(True)

    def _set_confirm_pending(self, pending: bool) -> None:
        self._confirm_pending = pending
        self.use_button.setText("Apply anyway" if pending else "Use in estimates")
        self.use_button.setMinimumWidth(self.use_button.sizeHint().width())

    def use_in_estimates(self, apply_anyway: bool = False) -> CustomAccelerator | None:
        """Hand the measured throughput to the Workload tab through the shared state.

        A suspect, out-of-range or disturbed run is not applied at once: the warning is shown
        and the button becomes "Apply anyway"; ``apply_anyway=True`` (its second press)
        applies the measured figures as they are."""
        device = self._device
        results = self.results_model.results()
        if device is None:
            self.use_status.setText("Nothing measured yet.")
            return None
        review = review_use(results, device, self._device_info)
        if review.needs_confirmation and not apply_anyway:
            self.use_status.setText(f"⚠ {review.warning} Press Apply anyway to use it as it is.")
            self.use_status.setToolTip(review.warning)
            self._set_confirm_pending(True)
            return None
        self._set_confirm_pending(False)
        mode = str(self.use_mode.currentData() or USE_AS_PEAK)
        try:
            custom = measured_accelerator(
                results,
                device,
                mode=mode,
                precision=self.state.precision,
                run_label=self._shown_label,
            )
        except ValueError as exc:
            self.use_status.setText(error_text(exc) or str(exc))
            return None
        self.state.set_custom_accelerator(custom)
        self.state.show_status(
            f"★ {custom.name} (measured) is now available in Workload estimation", 8000
        )
        return custom

    @Slot(object)
    def _on_custom_accelerator(self, custom: object) -> None:
        if isinstance(custom, CustomAccelerator):
            peaks = ", ".join(f"{p} {tflops_text(v)}" for p, v in custom.peak_tflops.items())
            util = (
                f", utilization {custom.utilization:.0%}" if custom.utilization is not None else ""
            )
            self.use_status.setText(
                f"In use in Workload estimation: ★ {custom.name} — {peaks} TFLOP/s{util}."
            )
            self.use_status.setToolTip(custom.source)
            self.stop_using_button.setVisible(True)
        else:
            self.use_status.setText("Not in use: the Workload tab plans with catalog accelerators.")
            self.use_status.setToolTip("")
            self.stop_using_button.setVisible(False)

    # --- history ---------------------------------------------------------------------------------
    def refresh_history(self) -> None:
        if self._shut_down:
            return
        services = self.services
        machine = self._machine().fingerprint
        self._history.submit(lambda: load_history(services, machine))

    @Slot(object)
    def _on_history(self, history: object) -> None:
        if not isinstance(history, History):
            return
        self.history.set_rows(history.rows, history.path, history.error)
        self.history_loaded.emit()

    def compare(self, a: int, b: int) -> None:
        services = self.services
        self._compare.submit(lambda: compare_runs(services, a, b))

    @Slot(object)
    def _on_comparison(self, comparison: object) -> None:
        if isinstance(comparison, Comparison):
            self.history.show_comparison(comparison)

    def show_saved_run(self, run_id: int) -> None:
        if self._worker is not None:
            self.state.show_status("A benchmark is running: wait for it or cancel it first", 6000)
            return
        services = self.services
        self._loader.submit(lambda: load_run(services, run_id))

    @Slot(object)
    def _on_run_loaded(self, loaded: object) -> None:
        if not isinstance(loaded, LoadedRun) or self._worker is not None:
            return
        self._generation += 1
        self._shown_label = loaded.label
        self._device_info = dict(loaded.device_info)
        self._device = measured_device_from_info(loaded.device_info, loaded.device)
        self.results_model.set_results(loaded.results)
        self.results_view.resizeColumnsToContents()
        self._clear_findings()
        for warning in loaded.warnings:
            self._add_finding(warning)
        self._refresh_plot()
        self._refresh_use_panel()
        self.results_caption.setText(self._caption_text())
        status = " (cancelled: partial results)" if loaded.cancelled else ""
        self._show_step(f"Showing {loaded.label}{status}.")
        self.sub_tabs.setCurrentIndex(0)

    def export(self, kind: str, path: str, run_ids: Sequence[int] | None = None) -> str:
        """Export runs (the selected ones, or all) to ``path``; returns the written path."""
        ids = list(run_ids) if run_ids is not None else self.history.selected_run_ids()
        if not ids:
            ids = [row.run_id for row in self.history.rows()]
        written = export_runs(self.services, ids, path, kind)
        self.state.show_status(f"Exported {len(ids)} run(s) to {written}", 8000)
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


def _no_gpu_line(why: str) -> str:
    """ "No NVIDIA GPU found because the NVML library … was not found." from NVML's reason."""
    reason = why.strip().removeprefix("unavailable because").strip().rstrip(".")
    if not reason:
        return "No GPU was found."
    return f"No NVIDIA GPU found because {reason}."


__all__ = ["HardwareTab"]
