"""The Monitor tab: live GPU, CPU, memory, disk and network plots over time, a bottleneck
diagnosis in words, and what idle GPUs cost.

Data flow, one direction: :class:`~desktopapp.ui.monitor.sampling.SamplingController` asks the
sampling thread for a sample every interval; the sample comes back by queued signal and the tab
forwards it to the Qt-free :class:`~desktopapp.application.monitor_controller.MonitorController`,
which owns the session (history, diagnosis, idle cost), the gaps after a pause, the warm-up, the
price and the alert, and answers with view-models. The tab only renders them and forwards the
user's edits.

Cost control, scheduled by the controller's
:class:`~desktopapp.application.monitor_views.RedrawSchedule`: plots and live tiles redraw at
most 4 times a second, the text panels and tables every 2 s; lines are drawn without
antialiasing while sampling faster than 0.5 s. Nothing is drawn while the tab is hidden, and
sampling stops then too unless a session is being recorded.

The widgets are built in :mod:`~desktopapp.ui.monitor.assembly` (toolbar, plots area, tables
box, side column: one module each); recording and export are wired in
:mod:`~desktopapp.ui.monitor.record_export`, the idle-cost meter in
:mod:`~desktopapp.ui.monitor.idle_wiring`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QWidget

from desktopapp.application.monitor_controller import MonitorController
from desktopapp.application.monitor_export import (
    HistoryTable,
    history_table,
    recording_label,
    recording_meta,
)
from desktopapp.application.monitor_views import (
    BUFFER_SECONDS,
    NO_GPU_IDLE_NOTE,
    WARM_UP_SAMPLES,
    Frame,
    ProblemsView,
    SessionLayout,
    record_button_text,
    stall_banner,
    status_view,
    wants_sampling,
)
from desktopapp.application.plan import PriceChoice
from desktopapp.devices.sampler import MonitorSession, Sampler, SystemSample
from desktopapp.devices.session_store import SessionInfo
from desktopapp.model.idle_cost import IdleCostReport
from desktopapp.model.ringbuffer import TIMEBASES
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.monitor.assembly import MonitorWidgets
from desktopapp.ui.monitor.idle_wiring import IdleCostWiring
from desktopapp.ui.monitor.layout import plot_specs
from desktopapp.ui.monitor.panels import LiveStrip
from desktopapp.ui.monitor.record_export import RecordExport
from desktopapp.ui.monitor.sampling import SamplerFactory, SamplingController
from desktopapp.ui.monitor.session_panel import SessionPanel
from desktopapp.ui.monitor.toolbar import DEFAULT_INTERVAL_S, DEFAULT_TIMEBASE
from desktopapp.ui.state import AppState

__all__ = [
    "WARM_UP_INTERVAL_S",
    "WARM_UP_SAMPLES",
    "MonitorTab",
    "create_monitor_tab",
]

WARM_UP_INTERVAL_S = 0.2  # the warm-up samples are taken this far apart (the timer's pace)


class MonitorTab(QWidget):
    """The Monitor tab (see the module docstring).

    ``ready`` once the first samples are plotted; ``updated`` after every processed sample;
    ``export_finished(path, rows)`` / ``export_failed(message)`` for CSV exports;
    ``recording_changed(bool)``. ``controller`` paces the sampling thread; ``monitor`` is the
    Qt-free controller of the sample path.
    """

    ready = Signal()
    updated = Signal()
    export_finished = Signal(str, int)
    export_failed = Signal(str)
    recording_changed = Signal(bool)

    def __init__(
        self,
        state: AppState,
        parent: QWidget | None = None,
        *,
        sampler_factory: SamplerFactory | None = None,
        interval_s: float = DEFAULT_INTERVAL_S,
        store_path: Path | None = None,
        warm_up: bool = True,
        demo_note: str = "",
        buffer_seconds: float = BUFFER_SECONDS,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.monitor = MonitorController(
            self._workload_price,
            demo_note=demo_note,
            warm_up=warm_up,
            buffer_seconds=buffer_seconds,
        )
        self.grid: Any = None  # charts.PlotGrid, built with the first sample
        self.live: LiveStrip | None = None
        self.session_panel: SessionPanel | None = None
        self._timebase = DEFAULT_TIMEBASE
        self._paused = False
        self._shut_down = False
        self._dirty = False
        self.draws = 0
        self._watched_window: QWidget | None = None

        self._redraw_timer = register_timer(QTimer(self))
        self._redraw_timer.setObjectName("monitor-redraw")
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.timeout.connect(self._on_redraw_due)
        self.controller = SamplingController(sampler_factory or _real_sampler, interval_s, self)
        self.controller.sample_ready.connect(self._on_sample)
        self.controller.stall_changed.connect(self._on_stall)
        self.controller.failed.connect(self._on_sampler_failed)
        self._build()
        self.records = RecordExport(
            self.controller, store_path, self.toolbar, state, self._shown_history, self
        )
        self.recording = self.records.recording
        self.records.recording_changed.connect(self._on_recording_changed)
        self.records.export_finished.connect(self.export_finished)
        self.records.export_failed.connect(self.export_failed)
        self._connect_controls()
        self.tables_box.show_empty("Waiting for the first samples.")
        self._update_status()
        self.idle_cost = IdleCostWiring(self.monitor, state, self.widgets, self)
        self.idle_cost.follow_workload()
        self.toolbar.show_interval(interval_s)

    def _workload_price(self) -> PriceChoice:
        return self.state.price

    # --- construction ---------------------------------------------------------------------------
    def _build(self) -> None:
        """The widgets (:mod:`~desktopapp.ui.monitor.assembly`), under the names the tab has
        always offered."""
        self.widgets = w = MonitorWidgets(self)
        self.toolbar, self.plots, self.tables_box, self.side = w.toolbar, w.plots, w.tables, w.side
        self.gpu_banner, self.alert_banner = w.gpu_banner, w.alert_banner
        self.stall_banner, self.live_holder = w.stall_banner, w.live_holder
        bar = w.toolbar
        self.status_pill, self.notes_label = bar.status_pill, bar.notes_label
        self.interval_combo, self.timebase, self.axis_mode = (
            bar.interval_combo,
            bar.timebase,
            bar.axis_mode,
        )
        self.pause_button, self.record_button = bar.pause_button, bar.record_button
        self.export_recording_action, self.earlier_menu = (
            bar.export_recording_action,
            bar.earlier_menu,
        )
        self.cursor_label = w.plots.cursor_label
        tables = w.tables
        self.tables, self._table_pages = tables.tabs, tables.pages
        self.process_model, self.process_table = tables.process_model, tables.process_table
        self.cost_model, self.user_model = tables.cost_model, tables.user_model
        self.host_model, self.host_table = tables.host_model, tables.host_table
        self.diagnosis, self.idle_panel = w.side.diagnosis, w.side.idle_panel

    def _connect_controls(self) -> None:
        self.interval_combo.activated.connect(self._on_interval_chosen)
        self.timebase.group.buttonClicked.connect(
            lambda _b: self.set_timebase(self.timebase.current())
        )
        self.axis_mode.group.buttonClicked.connect(
            lambda _b: self.set_axis_mode(self.axis_mode.current())
        )
        self.pause_button.toggled.connect(self.set_paused)
        self.record_button.toggled.connect(self._on_record_toggled)

    # --- tab contract -----------------------------------------------------------------------
    def is_ready(self) -> bool:
        return self.monitor.ready

    def shutdown(self) -> None:
        """Stop the timer, finish a recording, end the sampling thread (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._redraw_timer.stop()
        if self.recording.active:
            self.recording.stop()
        if not self.controller.shutdown(5000):
            sys.stderr.write("monitor: the sampling thread did not stop within 5 s\n")
        self.records.shutdown()
        self.tables_box.shutdown()
        self._update_status()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.widgets.fit_width(self.width())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # presentation mode on or off
            self.widgets.fit_width(self.width())
            if self.live is not None:
                self.live.reflow()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.widgets.fit_width(self.width())
        window = self.window()
        if window is not self._watched_window:  # minimizing the window pauses drawing too
            if self._watched_window is not None:
                self._watched_window.removeEventFilter(self)
            window.installEventFilter(self)
            self._watched_window = window
        self.idle_cost.follow_workload()
        self._sync_running()
        if self._dirty:
            self._render(force=True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._watched_window and event.type() == QEvent.Type.WindowStateChange:
            self._sync_running()
            if self._dirty and self.on_screen():
                self._render(force=True)
        return super().eventFilter(watched, event)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._sync_running()

    # --- public controls --------------------------------------------------------------------
    @property
    def session(self) -> MonitorSession | None:
        return self.monitor.session

    @property
    def samples(self) -> int:
        return self.monitor.samples

    @property
    def interval_s(self) -> float:
        return self.controller.interval_s

    def set_interval(self, seconds: float) -> None:
        """Sampling interval; the menu offers 0.25-10 s, code may go down to 0.02 s."""
        self.controller.set_interval(seconds)
        self.toolbar.show_interval(seconds)

    @property
    def timebase_key(self) -> str:
        return self._timebase

    def timebase_seconds(self) -> float | None:
        return TIMEBASES[self._timebase]

    def set_timebase(self, key: str) -> None:
        if key not in TIMEBASES:
            raise ValueError(f"timebase: must be one of {', '.join(TIMEBASES)}, got {key!r}")
        self._timebase = key
        if self.timebase.current() != key:
            self.timebase.set_current(key)
        self._render(force=True)

    def set_axis_mode(self, mode: str) -> None:
        if self.axis_mode.current() != mode:
            self.axis_mode.set_current(mode)
        if self.grid is not None:
            self.grid.set_mode(mode)
            self._render(force=True)

    def is_paused(self) -> bool:
        return self._paused

    def set_paused(self, paused: bool) -> None:
        if paused == self._paused:
            return
        self._paused = paused
        self.toolbar.show_paused(paused)
        self._sync_running()
        if paused:
            self._render(force=True)
        self._update_status()

    def is_sampling(self) -> bool:
        return self.controller.is_running()

    def start_recording(self, label: str = "") -> None:
        if self.recording.active or self._shut_down:
            return
        last = self.monitor.last
        meta = recording_meta(self.controller.interval_s, last.sample if last else None)
        self.records.start(recording_label(label, datetime.now()), meta)
        self._sync_running()
        self._update_status()

    def stop_recording(self) -> None:
        self.records.stop()

    def export_history_csv(self, path: Path | str) -> bool:
        """Write the shown history at full rate to CSV in a worker; False without data."""
        return self.records.export_history_csv(path)

    def export_recording_csv(self, path: Path | str, session_id: int | None = None) -> bool:
        """Export a recorded session (default: the last one) to CSV in a worker."""
        return self.records.export_recording_csv(path, session_id)

    def recorded_sessions(self, limit: int = 15) -> list[SessionInfo]:
        """The newest recorded sessions in the store (empty when there is no store yet)."""
        return self.records.recorded_sessions(limit)

    def _fill_earlier_menu(self) -> None:
        self.records.fill_earlier_menu()

    def diagnosis_text(self) -> str:
        return self.diagnosis.text()

    def idle_report(self) -> IdleCostReport | None:
        last = self.monitor.last
        return None if last is None else last.idle

    def no_gpu_message(self) -> str:
        return self.gpu_banner.message()

    # --- running ----------------------------------------------------------------------------
    def on_screen(self) -> bool:
        """Shown, and its window not minimized."""
        return self.isVisible() and not self.window().isMinimized()

    def _sync_running(self) -> None:
        want = wants_sampling(
            shut_down=self._shut_down,
            paused=self._paused,
            on_screen=self.on_screen(),
            recording=self.recording.active,
        )
        running = self.controller.is_running()
        if want and not running:
            burst = self.monitor.starting()
            if burst:
                self.controller.burst(burst, WARM_UP_INTERVAL_S)
            self.controller.start()
        elif not want and running:
            self.controller.stop()
        if not self.on_screen():
            self._redraw_timer.stop()
        self._update_status()

    def _on_interval_chosen(self, index: int) -> None:
        seconds = self.interval_combo.itemData(index)
        if isinstance(seconds, float):
            self.controller.set_interval(seconds)

    # --- samples ----------------------------------------------------------------------------
    def _on_sample(self, sample: SystemSample) -> None:
        if self._shut_down:
            return
        view = self.monitor.feed(sample, self.controller.interval_s)
        if view.layout is not None:
            self._build_session(view.layout)
        if view.problems is not None:
            self._show_problems(view.problems)
        self._dirty = True
        if self.on_screen():
            self._render()
        self.updated.emit()

    def _build_session(self, layout: SessionLayout) -> None:
        """The plots, live tiles and session panel for the channels of the first sample."""
        from desktopapp.ui.common.export import install_export_actions

        self.grid = self.plots.show_grid(plot_specs(layout.channel_names), self.axis_mode.current())
        install_export_actions(self)  # the window added them before the plots existed
        self.live = LiveStrip(layout.gpus)
        self.live_holder.addWidget(self.live)
        self.session_panel = self.side.add_session_panel(layout.gpus)
        if not layout.has_gpu:
            self.idle_panel.show_no_gpu(NO_GPU_IDLE_NOTE)
            self.idle_panel.set_gpu_mode(False)
            self.tables_box.show_empty(layout.no_gpu_tables_text)
            self.tables_box.start_host_processes()
        if layout.gpu_banner is not None:
            self.gpu_banner.show_view(layout.gpu_banner)

    def _render(self, force: bool = False) -> None:
        """Redraw what the controller says is due; a throttled sample is drawn when its time
        is up."""
        frame = self.monitor.frame(
            time.monotonic(),
            force=force,
            running=self.controller.is_running(),
            interval_s=self.controller.interval_s,
            in_burst=self.controller.in_burst(),
        )
        if frame is None:
            return
        if not frame.due:
            if not self._redraw_timer.isActive():
                self._redraw_timer.start(max(1, round(frame.wait_s * 1000)))
            return
        self._redraw_timer.stop()
        self._dirty = False
        self._draw(frame)
        self._update_status()
        if frame.became_ready:
            self.ready.emit()

    def _draw(self, frame: Frame) -> None:
        session = self.monitor.session
        assert session is not None and session.history is not None
        self.grid.antialias = frame.smooth
        self.grid.refresh(session.history, self.timebase_seconds(), session.first_timestamp)
        self.draws += 1
        if self.live is not None and frame.sample is not None:
            self.live.show_sample(frame.sample)
        if frame.diagnosis is not None:
            self.diagnosis.show_diagnosis(frame.diagnosis)
        if frame.idle is not None:
            self.idle_cost.show(frame.idle)
        if frame.totals is not None and self.session_panel is not None:
            self.session_panel.show_totals(
                frame.totals,
                self.controller.interval_s,
                warm_up=(self.controller.burst_delivered, WARM_UP_INTERVAL_S),
            )
        if frame.tables is not None:
            self.tables_box.show_view(frame.tables)

    def _on_redraw_due(self) -> None:
        if self._dirty and self.on_screen():
            self._render()

    # --- panels -----------------------------------------------------------------------------
    def _show_problems(self, view: ProblemsView) -> None:
        self.toolbar.show_notes(view.notes_label, view.notes_tooltip)
        self.gpu_banner.show_view(view.gpu_banner)

    def _update_status(self) -> None:
        active = self.recording.active
        self.toolbar.show_status(
            status_view(
                shut_down=self._shut_down,
                recording=active,
                paused=self._paused,
                running=self.controller.is_running(),
            ),
            record_button_text(active, self.recording.session_id),
        )

    def _on_stall(self, seconds: float) -> None:
        self.stall_banner.show_view(stall_banner(seconds, self.controller.failure))

    def _on_sampler_failed(self, message: str) -> None:
        banner, newly_ready = self.monitor.sampler_failed(message)
        self.stall_banner.show_view(banner)
        if newly_ready:
            self.ready.emit()  # nothing more will come; the screenshot shows the message

    # --- recording and export ---------------------------------------------------------------
    def _on_record_toggled(self, checked: bool) -> None:
        if checked and not self.recording.active:
            self.start_recording()
        elif not checked and self.recording.active:
            self.stop_recording()

    def _on_recording_changed(self, active: bool) -> None:
        self._sync_running()
        self._update_status()
        self.recording_changed.emit(active)

    def _shown_history(self) -> HistoryTable | None:
        history, layout = self.monitor.history, self.monitor.layout
        if history is None or layout is None:
            return None
        return history_table(history, layout.specs, self.timebase_seconds())


def _real_sampler() -> Sampler:
    from desktopapp.devices.sampler import RealSampler

    return RealSampler()


def create_monitor_tab(
    state: AppState,
    parent: QWidget | None = None,
    sampler_factory: Callable[[], Sampler] | None = None,
) -> MonitorTab:
    """The tab with the real sampler, or the scripted demo when the demo variable is set."""
    from desktopapp.ui.monitor.demo import DEMO_NOTE, demo_requested, demo_sampler

    if sampler_factory is None and demo_requested():
        return MonitorTab(state, parent, sampler_factory=demo_sampler, demo_note=DEMO_NOTE)
    return MonitorTab(state, parent, sampler_factory=sampler_factory)
