"""Hardware tab, "Collectives": the collective benchmark with busbw against message size.

Runs :func:`desktopapp.devices.bench.collective.run_local` in a registered worker thread
(Cancel stops before the next message size), plots busbw per op on a log size axis with the
catalog's advertised per-GPU link rate as a dashed line, lists the rows and the
interpretation, and saves the run to the results database like the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.hardware import BusbwChoice, busbw_for_estimates, busbw_use
from desktopapp.devices.bench.collective import (
    ONE_RANK_NOTE,
    OPS,
    CollectiveConfig,
    CollectiveRun,
)
from desktopapp.devices.bench.core import CancelToken, ProgressEvent
from desktopapp.model.collective import AdvertisedRate, advertised_rate, interpret
from desktopapp.model.units import format_bytes, format_duration
from desktopapp.ui.common.plots import legend_text_size, make_plot, pen, pg, set_titles
from desktopapp.ui.common.workers import Worker

if TYPE_CHECKING:
    from desktopapp.ui.state import AppState

NO_ACCELERATOR = "(none: no advertised line)"


class CollectiveWorker(Worker):
    """Runs one local collective benchmark; ``progress(ProgressEvent)`` is queued to the GUI."""

    progress = Signal(object)

    def __init__(self, config: CollectiveConfig, parent: QObject | None = None) -> None:
        super().__init__(self._job, 0, "hardware-collective", parent)
        self.config = config
        self.token = CancelToken()

    def cancel(self) -> None:
        self.token.cancel()
        self.requestInterruption()

    def _job(self) -> tuple[CollectiveRun, str]:  # worker thread
        from desktopapp.devices.bench.collective import (
            check_local,
            run_local,
            save_collective_run,
        )

        check_local(self.config)

        def on_event(event: ProgressEvent) -> None:
            if self.isInterruptionRequested():
                self.token.cancel()
            self.progress.emit(event)

        # below normal priority, as the other benchmarks the window runs (bench.priority)
        run = run_local(self.config, self.token, on_event, background=True)
        try:
            run_id = save_collective_run(run)
            saved = f"saved as run #{run_id}"
        except Exception as exc:  # the database is a convenience here; the run is shown
            saved = f"not saved: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        return run, saved


class CollectivePanel(QWidget):
    def __init__(self, parent: QWidget | None = None, state: AppState | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.worker: CollectiveWorker | None = None
        self.run: CollectiveRun | None = None
        self.device = QComboBox()
        self.device.addItem("CPU (Gloo)", "cpu")
        self.device.addItem("CUDA (NCCL)", "cuda")
        self.nproc = QSpinBox()
        self.nproc.setRange(1, 64)
        self.nproc.setValue(2)
        self.nproc.setToolTip("Local processes (ranks); NCCL needs one GPU each")
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0.5, 600.0)
        self.budget.setValue(4.0)
        self.budget.setSuffix(" s")
        self.budget.setToolTip("Time for the size sweep of all four ops (start-up excluded)")
        self.accelerator = QComboBox()
        self.accelerator.addItem(NO_ACCELERATOR, "")
        try:
            from desktopapp.model.interconnect import interconnects

            for acc_id in sorted(interconnects()):
                self.accelerator.addItem(acc_id, acc_id)
        except (OSError, ValueError, KeyError):
            pass
        self.accelerator.setToolTip("Catalog accelerator whose advertised link rate is drawn")
        self.accelerator.currentIndexChanged.connect(self._redraw)
        self.run_button = QPushButton("Run collectives")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        controls = QHBoxLayout()
        for label, widget in (
            ("Device", self.device),
            ("Processes", self.nproc),
            ("Budget", self.budget),
            ("Advertised rate of", self.accelerator),
        ):
            controls.addWidget(QLabel(label))
            controls.addWidget(widget)
        controls.addStretch(1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.cancel_button)
        self.status = QLabel(
            "all-reduce, all-gather, reduce-scatter and broadcast over growing messages; "
            "busbw as nccl-tests defines it"
        )
        self.status.setObjectName("Muted")
        self.status.setWordWrap(True)
        # The plot (pyqtgraph) is made when the panel is first shown or has a run to draw, so
        # that creating the Hardware tab does not load pyqtgraph.
        self.plot: Any = None
        self.plot_slot = QVBoxLayout()
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["op", "size", "time", "algbw", "busbw"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.interpretation = QLabel("")
        self.interpretation.setWordWrap(True)
        self.interpretation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addLayout(self.plot_slot, 3)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.interpretation)
        layout.addLayout(self._build_use_row())
        self.advertised_line: Any = None
        if self.state is not None:
            self.state.measured_busbw_changed.connect(self._refresh_use)
        self._refresh_use()

    def _build_use_row(self) -> QHBoxLayout:
        self.use_label = QLabel("")
        self.use_label.setObjectName("Muted")
        self.use_label.setWordWrap(True)
        self.use_button = QPushButton("Use in estimates")
        self.use_button.setToolTip(
            "Hand the measured all-reduce bus bandwidth to the Workload tab's estimates"
        )
        self.use_button.clicked.connect(self.use_in_estimates)
        self.stop_using_button = QPushButton("Stop using")
        self.stop_using_button.clicked.connect(self.stop_using)
        for button in (self.use_button, self.stop_using_button):
            button.setMinimumWidth(button.sizeHint().width())
        row = QHBoxLayout()
        row.addWidget(self.use_label, 1)
        row.addWidget(self.use_button)
        row.addWidget(self.stop_using_button)
        return row

    def busbw_choice(self) -> BusbwChoice | None:
        """The all-reduce busbw of the shown run that "Use in estimates" would hand over."""
        if self.run is None:
            return None
        return busbw_for_estimates((r.op, r.bytes, r.busbw_gbs * 1e9) for r in self.run.results)

    def use_in_estimates(self) -> None:
        choice = self.busbw_choice()
        if self.state is None or choice is None:
            return
        self.state.set_measured_busbw(choice.bytes_per_s)
        self.state.show_status(f"Estimates now use the measured {choice.text}", 8000)

    def stop_using(self) -> None:
        if self.state is not None:
            self.state.set_measured_busbw(None)

    def _refresh_use(self, *_args: object) -> None:
        used = self.state.measured_busbw if self.state is not None else None
        view = busbw_use(self.busbw_choice(), used, self.state is not None)
        self.use_button.setEnabled(view.can_use)
        self.stop_using_button.setEnabled(view.can_stop)
        self.use_label.setText(view.text)

    # --- running ---------------------------------------------------------------------------

    def config(self) -> CollectiveConfig:
        return CollectiveConfig(
            device=str(self.device.currentData()),
            nproc=self.nproc.value(),
            budget_s=self.budget.value(),
        )

    def start(self) -> None:
        if self.worker is not None and self.worker.isRunning():
            return
        try:
            config = self.config()
        except ValueError as exc:
            self.status.setText(str(exc))
            return
        self.worker = CollectiveWorker(config, self)
        self.worker.progress.connect(self._on_progress)
        self.worker.succeeded.connect(self._on_done)
        self.worker.failed.connect(self._on_failed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(f"starting {config.nproc} processes ({config.backend})…")
        self.worker.start_registered()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("stopping before the next message size…")

    def _on_progress(self, event: ProgressEvent) -> None:
        self.status.setText(f"[{event.fraction * 100:3.0f}%] {event.message}")

    def _on_done(self, generation: int, outcome: tuple[CollectiveRun, str]) -> None:
        run, saved = outcome
        self._finish()
        self.show_run(run)
        state = "cancelled, partial results" if run.cancelled else f"{run.seconds:.1f} s"
        self.status.setText(f"{run.world_size} ranks over {run.backend}: {state}; {saved}")

    def _on_failed(self, generation: int, message: str) -> None:
        self._finish()
        self.status.setText(f"collective benchmark failed: {message}")

    def _finish(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    # --- showing ---------------------------------------------------------------------------

    def advertised(self) -> AdvertisedRate | None:
        acc = str(self.accelerator.currentData() or "")
        if not acc:
            return None
        try:
            return advertised_rate(acc, self.run.nodes if self.run is not None else 1)
        except (ValueError, KeyError, OSError):
            return None

    def show_run(self, run: CollectiveRun) -> None:
        """Show a run (local, imported or from history)."""
        self.run = run
        one_rank = run.world_size == 1
        # one rank: no bus traffic to measure (the op moves nothing); time and the last column
        # are a timed local copy of the message, and there is no algorithm bandwidth
        self.table.setHorizontalHeaderLabels(
            ["op", "size", "copy time" if one_rank else "time", "algbw",
             "local copy" if one_rank else "busbw"]
        )  # fmt: skip
        self.table.setRowCount(len(run.results))
        for i, r in enumerate(run.results):
            if one_rank:
                time_text = format_duration(r.copy_seconds) if r.copy_seconds else "—"
                rates = ("—", f"{r.copy_gbs or 0.0:.3f} GB/s")
            else:
                time_text = format_duration(r.seconds)
                rates = (f"{r.algbw_gbs:.3f} GB/s", f"{r.busbw_gbs:.3f} GB/s")
            for j, text in enumerate((r.op, format_bytes(r.bytes), time_text, *rates)):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self._redraw()
        self._refresh_use()

    def showEvent(self, event: Any) -> None:
        self._ensure_plot()
        super().showEvent(event)

    def _ensure_plot(self) -> Any:
        if self.plot is None:
            self.plot = make_plot(
                "Bus bandwidth against message size",
                "message size",
                "busbw",
                log_x=True,
                x_unit="B",
                y_unit="B/s",
            )
            self.plot.getPlotItem().addLegend(offset=(8, 8), labelTextSize=legend_text_size())
            self.plot_slot.addWidget(self.plot)
        return self.plot

    def _redraw(self) -> None:
        item = self._ensure_plot().getPlotItem()
        item.clear()
        self.advertised_line = None
        run = self.run
        if run is None:
            item.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)  # no stale axes
            return
        one_rank = run.world_size == 1
        if one_rank:
            set_titles(self.plot, "Local copy rate (one rank: no bus traffic)", "message size",
                       "copy rate")  # fmt: skip
        else:
            set_titles(self.plot, "Bus bandwidth against message size", "message size", "busbw")
        for index, op in enumerate(OPS):
            rows = [r for r in run.results if r.op == op]
            if rows:
                self.plot.plot(
                    [r.bytes for r in rows],
                    [((r.copy_gbs or 0.0) if one_rank else r.busbw_gbs) * 1e9 for r in rows],
                    pen=pen(index),
                    symbol="o",
                    symbolSize=5,
                    name=op.replace("_", "-"),
                )
        advertised = self.advertised()
        if advertised is not None:
            self.advertised_line = pg().InfiniteLine(
                pos=advertised.bytes_per_s,
                angle=0,
                pen=pen(len(OPS), dashed=True),
                label=f"advertised {advertised.name}",
                labelOpts={"position": 0.15},
            )
            item.addItem(self.advertised_line)
        if one_rank:
            copy = max((r.copy_gbs or 0.0 for r in run.results), default=0.0)
            lines: tuple[str, ...] = (f"{ONE_RANK_NOTE}; fastest local copy {copy:,.0f} GB/s",)
        else:
            lines = interpret(
                [(r.op, r.bytes, r.busbw_gbs * 1e9) for r in run.results],
                nodes=run.nodes,
                gpus_per_node=run.gpus_per_node,
                advertised=advertised,
            )
        self.interpretation.setText("\n".join(f"• {line}" for line in lines))
