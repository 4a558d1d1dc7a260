"""The Monitor tab: live GPU, CPU, memory, disk and network plots over time, a bottleneck
diagnosis in words, and what idle GPUs cost.

Data flow: :class:`~desktopapp.ui.monitor.sampling.SamplingController` asks the sampling
thread for a sample every interval; the sample comes back by queued signal and is fed to a
:class:`~desktopapp.devices.sampler.MonitorSession` on the GUI thread, which appends it to the
preallocated ring buffers and updates the diagnosis and the idle-cost tracker (the model does
every computation).

Cost control: plots and live tiles redraw at most every :data:`MIN_REDRAW_S`, the text panels
every :data:`DETAIL_REFRESH_S`, the tables every :data:`TABLE_REFRESH_S`; lines are drawn
without antialiasing while sampling faster than :data:`FAST_STREAM_S` (smooth again when paused
or slower). Nothing is drawn while the tab is hidden, and sampling stops then too unless a
session is being recorded.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.monitor import (
    GapPolicy,
    PerGpuDiagnosis,
    host_process_empty_text,
    host_process_rows,
    idle_config,
    idle_price,
    no_gpu_reason,
    sort_problems,
)
from desktopapp.devices.sampler import (
    ChannelSpec,
    MonitorSession,
    MonitorUpdate,
    Sampler,
    SystemSample,
)
from desktopapp.devices.session_store import SessionInfo, SessionStore, monitor_db_path
from desktopapp.devices.top_processes import ProcessSnapshot
from desktopapp.model.idle_cost import IdleCostConfig, IdleCostReport
from desktopapp.model.ringbuffer import TIMEBASES
from desktopapp.model.units import format_duration, format_money
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING, SPACING
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.common.workers import TaskRunner
from desktopapp.ui.hardware.widgets import FlowLayout
from desktopapp.ui.monitor.controls import FitHeightLabel, Segmented, caption
from desktopapp.ui.monitor.layout import GridLayout, plot_specs
from desktopapp.ui.monitor.panels import (
    Banner,
    DiagnosisPanel,
    IdleCostPanel,
    LiveStrip,
    SessionPanel,
    set_text,
)
from desktopapp.ui.monitor.recording import (
    Recording,
    export_session_csv,
    history_table,
    write_history_csv,
)
from desktopapp.ui.monitor.sampling import SamplerFactory, SamplingController
from desktopapp.ui.monitor.summary import session_totals
from desktopapp.ui.monitor.tables import (
    COST_SORT_COLUMN,
    HOST_CPU_COLUMN,
    HOST_PROCESS_COLUMNS,
    PROCESS_COLUMNS,
    PROCESS_COST_COLUMNS,
    PROCESS_GPU_MEMORY_COLUMN,
    USER_COST_COLUMNS,
    USER_COST_SORT_COLUMN,
    RecordModel,
    make_table,
)
from desktopapp.ui.state import AppState

INTERVALS_S: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
DEFAULT_INTERVAL_S = 1.0
TIMEBASE_LABELS: dict[str, str] = {
    "1 min": "1 min",
    "10 min": "10 min",
    "1 h": "1 h",
    "session": "Session",
}
DEFAULT_TIMEBASE = "1 min"
BUFFER_RATE_HZ = 10.0  # full-rate buffer sized for 10 min at 10 Hz (40 min at 1 s)
BUFFER_SECONDS = 600.0
MIN_REDRAW_S = 0.25  # at most 4 redraws a second, however fast the sampling
FAST_STREAM_S = 0.5  # sampling faster than this draws plain (not antialiased) lines
DETAIL_REFRESH_S = 2.0  # diagnosis, idle cost and session totals (they move slowly)
TABLE_REFRESH_S = 2.0  # process and cost tables (the sampler refreshes processes every 2 s)
WARM_UP_SAMPLES = 10  # taken WARM_UP_INTERVAL_S apart when the tab opens, to fill the plots
WARM_UP_INTERVAL_S = 0.2
# "ready" (plots filled) only once the warm-up burst is over and the interval has taken over.
READY_SAMPLES = WARM_UP_SAMPLES


class SideScroll(QScrollArea):
    """The side column's scroll area: at least as wide as its content needs (340 px or more,
    with presentation fonts more), so it scrolls up and down but never sideways."""

    MIN_WIDTH = 340

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        content = self.widget()
        needed = self.MIN_WIDTH
        if content is not None:
            bar = self.verticalScrollBar().sizeHint().width()
            needed = max(needed, content.minimumSizeHint().width() + bar + 2 * self.frameWidth())
        return QSize(needed, hint.height())


class MonitorTab(QWidget):
    """The Monitor tab (see the module docstring).

    ``ready`` once the first samples are plotted; ``updated`` after every processed sample;
    ``export_finished(path, rows)`` / ``export_failed(message)`` for CSV exports;
    ``recording_changed(bool)``.
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
        self._factory: SamplerFactory = sampler_factory or _real_sampler
        self._demo_note = demo_note
        self._buffer_seconds = buffer_seconds
        self._session: MonitorSession | None = None
        self._last: MonitorUpdate | None = None
        self._layout: GridLayout | None = None
        self._specs: tuple[ChannelSpec, ...] = ()
        self.grid: Any = None  # charts.PlotGrid, built with the first sample
        self.live: LiveStrip | None = None
        self._timebase = DEFAULT_TIMEBASE
        self._paused = False
        self._shut_down = False
        self._ready = False
        self._warm_up = warm_up
        self._warmed = False
        self._dirty = False
        self._last_draw = -math.inf
        self._last_detail = -math.inf
        self._last_table = -math.inf
        self._gaps = GapPolicy()  # a pause leaves a gap in the plots
        self._problems: tuple[str, ...] = ()
        self._typed_price: float | None = None
        self._alert_dismissed = False
        self._alert_shown = False
        self.samples = 0
        self.draws = 0
        self._watched_window: QWidget | None = None

        self._redraw_timer = register_timer(QTimer(self))
        self._redraw_timer.setObjectName("monitor-redraw")
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.timeout.connect(self._on_redraw_due)
        self.controller = SamplingController(self._factory, interval_s, self)
        self.controller.sample_ready.connect(self._on_sample)
        self.controller.stall_changed.connect(self._on_stall)
        self.controller.failed.connect(self._on_sampler_failed)
        self.recording = Recording(self.controller, store_path, self)
        self.recording.started.connect(self._on_recording_started)
        self.recording.stopped.connect(self._on_recording_stopped)
        self.recording.failed.connect(self._on_recording_failed)
        self._exports = TaskRunner("monitor-export", self)
        self._exports.result_ready.connect(self._on_export_done)
        self._exports.error.connect(self.export_failed)

        self._build()
        self._apply_price_from_state()
        self.state.estimate_changed.connect(self._on_estimate_changed)
        self.state.workload_changed.connect(self._apply_price_from_state)
        if interval_s in INTERVALS_S:
            self.interval_combo.setCurrentIndex(INTERVALS_S.index(interval_s))

    # --- construction ---------------------------------------------------------------------------
    def _build(self) -> None:
        self.status_pill = QLabel()
        self.status_pill.setObjectName("MonitorStatus")
        self.interval_combo = QComboBox()
        for seconds in INTERVALS_S:
            self.interval_combo.addItem(f"every {seconds:g} s", seconds)
        self.interval_combo.setCurrentIndex(INTERVALS_S.index(DEFAULT_INTERVAL_S))
        self.interval_combo.setToolTip("How often to sample")
        self.timebase = Segmented(
            [(key, TIMEBASE_LABELS[key]) for key in TIMEBASES], DEFAULT_TIMEBASE
        )
        self.timebase.setToolTip("How much history the plots show")
        self.axis_mode = Segmented([("ago", "Before now"), ("clock", "Clock")], "ago")
        self.axis_mode.setToolTip("Time axis: time before now, or the time of day")
        self.notes_label = QLabel()
        self.notes_label.setObjectName("Hint")
        self.pause_button = QPushButton("❚❚  Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip("Freeze the plots (sampling stops; recording waits too)")
        self.record_button = QPushButton("●  Record")
        self.record_button.setCheckable(True)
        self.record_button.setToolTip("Record this session to the monitor database")
        self.export_button = QPushButton("Export CSV")
        self.export_menu = QMenu(self)
        self.export_history_action = self.export_menu.addAction("Shown history, full rate…")
        self.export_recording_action = self.export_menu.addAction("Last recorded session…")
        self.export_recording_action.setEnabled(False)
        self.earlier_menu = self.export_menu.addMenu("Earlier recordings")
        self.earlier_menu.aboutToShow.connect(self._fill_earlier_menu)
        self.export_button.setMenu(self.export_menu)
        toolbar = self._build_toolbar()
        plots_box = self._build_plots()
        tables_box = self._build_tables()
        side_scroll = self._build_side()
        self._lay_out(toolbar, plots_box, tables_box, side_scroll)
        self._connect_controls()
        self._show_empty_tables("Waiting for the first samples.")
        self._update_status()

    def _build_toolbar(self) -> QWidget:
        """The controls in groups that wrap to a second line when the window is narrow (issue
        16: buttons never narrower than their text, at 1024 px and in presentation mode)."""

        def group(*widgets: QWidget) -> QWidget:
            holder = QWidget()
            row = QHBoxLayout(holder)
            row.setContentsMargins(0, 0, 0, 0)
            row.setSpacing(INNER_SPACING)
            for widget in widgets:
                row.addWidget(widget)
            return holder

        for segmented in (self.timebase, self.axis_mode):
            for button in segmented.buttons.values():
                button.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.notes_label.setWordWrap(True)
        toolbar = QWidget()
        flow = FlowLayout(toolbar, spacing=INNER_SPACING + 6)
        flow.addWidget(self.status_pill)
        flow.addWidget(group(caption("Sample"), self.interval_combo))
        flow.addWidget(group(caption("Show"), self.timebase))
        flow.addWidget(self.axis_mode)
        flow.addWidget(self.notes_label)
        flow.addWidget(group(self.pause_button, self.record_button, self.export_button))
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        toolbar.setSizePolicy(policy)
        self.toolbar = toolbar
        return toolbar

    def _build_plots(self) -> QWidget:
        self.gpu_banner = Banner(closable=False)
        self.alert_banner = Banner(closable=True)
        self.stall_banner = Banner(closable=False)

        self.live_holder = QVBoxLayout()
        self.live_holder.setContentsMargins(0, 0, 0, 0)

        # Plots: a placeholder until the first sample tells which channels exist.
        self.cursor_label = QLabel()
        self.cursor_label.setObjectName("Hint")
        self.cursor_label.setWordWrap(True)
        self.cursor_label.setText(
            "Hover over a plot to read every value at that moment; click to pin the cursor."
        )
        self.plot_stack = QStackedWidget()
        waiting = QLabel("Starting the sampler…")
        waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        waiting.setObjectName("ComingText")
        self.plot_stack.addWidget(waiting)
        plots_box = QWidget()
        plots_col = QVBoxLayout(plots_box)
        plots_col.setContentsMargins(0, 0, 0, 0)
        plots_col.setSpacing(4)
        plots_col.addWidget(self.cursor_label)
        plots_col.addWidget(self.plot_stack, 1)
        return plots_box

    def _build_tables(self) -> QFrame:
        self.process_model: RecordModel[Any] = RecordModel(PROCESS_COLUMNS, self)
        self.process_table = make_table(self.process_model, 3)
        self.process_table.sortByColumn(PROCESS_GPU_MEMORY_COLUMN, Qt.SortOrder.DescendingOrder)
        self.cost_model: RecordModel[Any] = RecordModel(PROCESS_COST_COLUMNS, self)
        self.cost_table = make_table(self.cost_model, 1)
        self.cost_table.sortByColumn(COST_SORT_COLUMN, Qt.SortOrder.DescendingOrder)
        self.user_model: RecordModel[Any] = RecordModel(USER_COST_COLUMNS, self)
        self.user_table = make_table(self.user_model, 0)
        self.user_table.sortByColumn(USER_COST_SORT_COLUMN, Qt.SortOrder.DescendingOrder)
        self.process_empty = QLabel()
        self.cost_empty = QLabel()
        self.user_empty = QLabel()
        self.tables = QTabWidget()
        self.tables.setDocumentMode(True)
        self._table_pages: list[tuple[QStackedWidget, QLabel, QWidget]] = []
        for title, table, empty in (
            ("Processes on GPUs", self.process_table, self.process_empty),
            ("GPU time and cost by process", self.cost_table, self.cost_empty),
            ("By user", self.user_table, self.user_empty),
        ):
            empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
            empty.setWordWrap(True)
            empty.setObjectName("Hint")
            page = QStackedWidget()
            page.addWidget(empty)
            page.addWidget(table)
            self._table_pages.append((page, empty, table))
            self.tables.addTab(page, title)
        # Without a GPU the first page shows the busiest processes by CPU and memory instead,
        # read by devices.top_processes in a worker thread every TABLE_REFRESH_S.
        self.host_model: RecordModel[Any] = RecordModel(HOST_PROCESS_COLUMNS, self)
        self.host_table = make_table(self.host_model, 2)
        self.host_table.sortByColumn(HOST_CPU_COLUMN, Qt.SortOrder.DescendingOrder)
        self._table_pages[0][0].addWidget(self.host_table)  # page index 2
        self._top_processes: Any = None
        self._host_runner = TaskRunner("monitor-processes", self)
        self._host_runner.result_ready.connect(self._on_host_processes)
        self._host_timer = QTimer(self)
        self._host_timer.setInterval(int(TABLE_REFRESH_S * 1000))
        self._host_timer.timeout.connect(self._poll_host_processes)
        from desktopapp.ui.common.layouts import scroll_area
        from desktopapp.ui.monitor.cluster import ClusterPanel

        self.cluster = ClusterPanel()  # issue 17: a fleet from Prometheus
        self.tables.addTab(scroll_area(content=self.cluster), "Cluster")
        self.attribution_note = FitHeightLabel()  # keeps the height its wrapped text needs
        self.attribution_note.setObjectName("Hint")
        self.attribution_note.setWordWrap(True)
        tables_box = QFrame()
        tables_box.setObjectName("Section")
        self.tables_box = tables_box
        tables_col = QVBoxLayout(tables_box)
        tables_col.setContentsMargins(10, 6, 10, 8)
        tables_col.setSpacing(4)
        tables_col.addWidget(self.tables, 1)
        tables_col.addWidget(self.attribution_note)
        return tables_box

    def _build_side(self) -> QScrollArea:
        self.diagnosis = DiagnosisPanel()
        self.per_gpu_diagnosis = PerGpuDiagnosis()  # a busy and an idle GPU are not averaged
        self.idle_panel = IdleCostPanel()
        side = QWidget()
        side_col = QVBoxLayout(side)
        side_col.setContentsMargins(0, 0, 6, 0)
        side_col.setSpacing(SPACING)
        side_col.addWidget(self.diagnosis)
        side_col.addWidget(self.idle_panel)
        side_col.addStretch(1)
        self.side_col = side_col
        self.session_panel: SessionPanel | None = None
        side_scroll = SideScroll()
        side_scroll.setWidgetResizable(True)
        side_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        side_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side_scroll.setWidget(side)
        return side_scroll

    def _lay_out(
        self, toolbar: QWidget, plots_box: QWidget, tables_box: QFrame, side: QScrollArea
    ) -> None:
        left = QSplitter(Qt.Orientation.Vertical)
        left.setChildrenCollapsible(False)
        left.setHandleWidth(SPACING)
        left.addWidget(plots_box)
        left.addWidget(tables_box)
        left.setStretchFactor(0, 1)
        left.setStretchFactor(1, 0)
        left.setSizes([560, 200])
        self.left_splitter = left

        body = QSplitter(Qt.Orientation.Horizontal)
        body.setChildrenCollapsible(False)
        body.setHandleWidth(SPACING)
        body.addWidget(left)
        body.addWidget(side)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 0)
        body.setSizes([960, 400])
        self.body_splitter = body

        outer = QVBoxLayout(self)
        outer.setContentsMargins(SPACING + 4, SPACING - 2, SPACING, 4)
        outer.setSpacing(INNER_SPACING)
        outer.addWidget(toolbar)
        outer.addWidget(self.gpu_banner)
        outer.addWidget(self.alert_banner)
        outer.addWidget(self.stall_banner)
        outer.addLayout(self.live_holder)
        outer.addWidget(body, 1)

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
        self.export_history_action.triggered.connect(self._choose_history_export)
        self.export_recording_action.triggered.connect(lambda: self._choose_recording_export())
        self.idle_panel.price_changed.connect(self._on_price_typed)
        self.idle_panel.price_reset.connect(self._on_price_reset)
        self.idle_panel.alert_changed.connect(lambda _m: self._apply_idle_config())
        self.alert_banner.dismissed.connect(self._on_alert_dismissed)

    # --- tab contract -----------------------------------------------------------------------
    def is_ready(self) -> bool:
        return self._ready

    def shutdown(self) -> None:
        """Stop the timer, finish a recording, end the sampling thread (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self._redraw_timer.stop()
        if self.recording.active:
            self.recording.stop()
        if not self.controller.shutdown(5000):
            import sys

            sys.stderr.write("monitor: the sampling thread did not stop within 5 s\n")
        self._exports.shutdown()
        self._host_timer.stop()
        self._host_runner.shutdown()
        self._update_status()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        window = self.window()
        if window is not self._watched_window:  # minimizing the window pauses drawing too
            if self._watched_window is not None:
                self._watched_window.removeEventFilter(self)
            window.installEventFilter(self)
            self._watched_window = window
        self._apply_price_from_state()
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
        return self._session

    @property
    def interval_s(self) -> float:
        return self.controller.interval_s

    def set_interval(self, seconds: float) -> None:
        """Sampling interval; the menu offers 0.25-10 s, code may go down to 0.02 s."""
        self.controller.set_interval(seconds)
        if seconds in INTERVALS_S:
            self.interval_combo.setCurrentIndex(INTERVALS_S.index(seconds))

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
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self.pause_button.setText("▶  Resume" if paused else "❚❚  Pause")
        self._sync_running()
        if paused:
            self._render(force=True)
        self._update_status()

    def is_sampling(self) -> bool:
        return self.controller.is_running()

    def start_recording(self, label: str = "") -> None:
        if self.recording.active or self._shut_down:
            return
        meta = {
            "source": "gui",
            "interval_s": self.controller.interval_s,
            "gpus": [g.name for g in self._last.sample.gpus] if self._last is not None else [],
        }
        self.recording.start(label or f"Monitor {datetime.now():%Y-%m-%d %H:%M}", meta)
        if not self.record_button.isChecked():
            self.record_button.setChecked(True)
        self._sync_running()
        self._update_status()

    def stop_recording(self) -> None:
        self.recording.stop()
        if self.record_button.isChecked():
            self.record_button.setChecked(False)

    def export_history_csv(self, path: Path | str) -> bool:
        """Write the shown history at full rate to CSV in a worker; False without data."""
        if self._session is None or self._session.history is None:
            return False
        table = history_table(self._session.history, self._specs, self.timebase_seconds())
        target = Path(path)
        self._exports.submit(lambda: write_history_csv(target, table))
        return True

    def export_recording_csv(self, path: Path | str, session_id: int | None = None) -> bool:
        """Export a recorded session (default: the last one) to CSV in a worker."""
        chosen = session_id if session_id is not None else self.recording.last_session_id
        if chosen is None:
            return False
        store_path, target = self.recording.store_path, Path(path)
        self._exports.submit(lambda: export_session_csv(store_path, chosen, target))
        return True

    def diagnosis_text(self) -> str:
        return self.diagnosis.text()

    def idle_report(self) -> IdleCostReport | None:
        return None if self._last is None else self._last.idle

    def no_gpu_message(self) -> str:
        return self.gpu_banner.message()

    # --- running ----------------------------------------------------------------------------
    def on_screen(self) -> bool:
        """Shown, and its window not minimized."""
        return self.isVisible() and not self.window().isMinimized()

    def _should_sample(self) -> bool:
        if self._shut_down or self._paused:
            return False
        return self.on_screen() or self.recording.active

    def _sync_running(self) -> None:
        want = self._should_sample()
        running = self.controller.is_running()
        if want and not running:
            if self._warm_up and not self._warmed:
                self._warmed = True
                self.controller.burst(WARM_UP_SAMPLES, WARM_UP_INTERVAL_S)
            self._gaps.resume(self.samples > 0)
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
    def _start_session(self, sample: SystemSample) -> None:
        from desktopapp.ui.monitor.charts import PlotGrid

        self._session = MonitorSession(
            _SampledElsewhere(),
            rate_hz=BUFFER_RATE_HZ,
            raw_seconds=self._buffer_seconds,
            idle_config=self._idle_config(),
        )
        self._specs = sample.channel_specs()
        self._layout = plot_specs([s.name for s in self._specs])
        self.grid = PlotGrid(self._layout)
        self.grid.set_mode(self.axis_mode.current())
        self.grid.cursor_changed.connect(self._on_cursor)
        self.plot_stack.addWidget(self.grid)
        self.plot_stack.setCurrentWidget(self.grid)
        _add_export_actions(self)  # the window added them before the plots existed
        gpus = [(g.index, g.name) for g in sample.gpus]
        self.live = LiveStrip(gpus)
        self.live_holder.addWidget(self.live)
        self.session_panel = SessionPanel(gpus)
        self.side_col.insertWidget(2, self.session_panel)
        if not self._layout.has_gpu:
            reason = no_gpu_reason(sample.problems)
            self.gpu_banner.show_message(
                f"No GPU data: {reason}. Showing CPU, memory, disk and network only.", "info"
            )
            self.idle_panel.show_no_gpu(
                "No GPU is measured here, so no GPU time can sit idle. The meter starts "
                "counting on a machine with an NVIDIA GPU."
            )
            self.idle_panel.set_gpu_mode(False)
            self._show_empty_tables(f"No GPU data: {reason}.")
            self._start_host_processes()
        if self._demo_note:
            self.gpu_banner.show_message(self._demo_note, "info")

    def _on_sample(self, sample: SystemSample) -> None:
        if self._shut_down:
            return
        if self._session is None:
            self._start_session(sample)
        session = self._session
        assert session is not None
        history = session.history
        if history is not None and len(history):
            last_t = history.raw.last_timestamp()
            gap = self._gaps.gap_at(sample.timestamp, last_t, self.controller.interval_s)
            if gap is not None:
                history.append(gap, {})  # a gap, not a line across the pause
        else:
            self._gaps.no_history()
        self._last = session.feed(sample)
        self.per_gpu_diagnosis.feed(sample)
        self.samples += 1
        if sample.problems != self._problems:
            self._problems = sample.problems
            self._show_problems(sample.problems)
        self._dirty = True
        if self.on_screen():
            self._render()
        self.updated.emit()

    def _render(self, force: bool = False) -> None:
        """Redraw what is due: plots and tiles at most every MIN_REDRAW_S (a throttled sample
        is drawn when that time is up), panels every DETAIL_REFRESH_S, tables every
        TABLE_REFRESH_S."""
        if self._session is None or self._session.history is None or self._last is None:
            return
        now = time.monotonic()
        wait = MIN_REDRAW_S - (now - self._last_draw)
        if not force and wait > 0:
            if not self._redraw_timer.isActive():
                self._redraw_timer.start(max(1, round(wait * 1000)))
            return
        self._redraw_timer.stop()
        self._last_draw = now
        self._dirty = False
        warming = self.samples <= WARM_UP_SAMPLES
        streaming = self.controller.is_running() and self.controller.interval_s < FAST_STREAM_S
        self.grid.antialias = not streaming
        self.grid.refresh(
            self._session.history, self.timebase_seconds(), self._session.first_timestamp
        )
        self.draws += 1
        update = self._last
        if self.live is not None:
            self.live.show_sample(update.sample)
        if force or warming or now - self._last_detail >= DETAIL_REFRESH_S:
            self._last_detail = now
            self.diagnosis.show_diagnosis(self.per_gpu_diagnosis.view(update.diagnosis))
            self._show_idle(update.idle)
            self._show_session()
        if force or warming or now - self._last_table >= TABLE_REFRESH_S:
            self._last_table = now
            self._show_tables(update)
        self._update_status()
        if not self._ready and self.samples >= READY_SAMPLES and not self.controller.in_burst():
            self._ready = True
            self.ready.emit()

    def _on_redraw_due(self) -> None:
        if self._dirty and self.on_screen():
            self._render()

    # --- panels -----------------------------------------------------------------------------
    def _show_problems(self, problems: tuple[str, ...]) -> None:
        """A lost GPU goes to the banner; other sensor problems to the notes' tooltip."""
        view = sort_problems(problems)
        lost = view.lost
        set_text(self.notes_label, view.notes_label)
        self.notes_label.setToolTip("\n".join(view.notes))
        if lost and self._layout is not None and self._layout.has_gpu:
            self.gpu_banner.show_message(lost[0], "warn")
        elif self._layout is not None and self._layout.has_gpu and not self._demo_note:
            self.gpu_banner.setVisible(False)

    def _show_idle(self, report: IdleCostReport) -> None:
        if self._layout is None or not self._layout.has_gpu:
            return
        self.idle_panel.show_report(report, self._idle_config().idle_threshold_percent)
        if report.alerts:
            if not self._alert_dismissed:
                self.alert_banner.show_message("Idle alert: " + "; ".join(report.alerts), "warn")
                if not self._alert_shown:
                    self._alert_shown = True
                    QApplication.alert(self.window(), 0)
        else:
            self._alert_dismissed = False
            self._alert_shown = False
            self.alert_banner.setVisible(False)

    def _show_session(self) -> None:
        session, panel = self._session, self.session_panel
        if session is None or panel is None or self._last is None:
            return
        gpus = [(g.index, g.name) for g in self._last.sample.gpus]
        totals = session_totals(
            session.stats.summary(), session.duration_s, session.samples_taken, gpus
        )
        panel.show_totals(
            totals,
            self.controller.interval_s,
            warm_up=(self.controller.burst_delivered, WARM_UP_INTERVAL_S),
        )

    def _on_alert_dismissed(self) -> None:
        self._alert_dismissed = True

    # --- top processes by CPU and memory, without a GPU ------------------------------------
    def _start_host_processes(self) -> None:
        from desktopapp.devices.top_processes import TopProcesses

        self.tables.setTabText(0, "Top processes (CPU, memory)")
        self.tables.setTabVisible(1, False)
        self.tables.setTabVisible(2, False)
        set_text(self._table_pages[0][1], "Reading the process list…")
        set_text(
            self.attribution_note,
            "No GPU here: the busiest processes of this machine by CPU (100% = one core) and "
            f"the largest by memory, refreshed every {TABLE_REFRESH_S:g} s.",
        )
        if self._top_processes is None:
            self._top_processes = TopProcesses(limit=8)
        self._poll_host_processes()
        self._host_timer.start()

    def _poll_host_processes(self) -> None:
        top = self._top_processes
        if self._shut_down or top is None or self._host_runner.is_busy():
            return
        self._host_runner.submit(top.read)  # a psutil scan: off the GUI thread

    def _on_host_processes(self, snapshot: object) -> None:
        if self._shut_down or not isinstance(snapshot, ProcessSnapshot):
            return
        rows = host_process_rows(snapshot)
        self.host_model.set_rows(rows)
        page, empty, _table = self._table_pages[0]
        set_text(empty, host_process_empty_text(snapshot))
        page.setCurrentIndex(2 if rows else 0)

    def _show_empty_tables(self, reason: str) -> None:
        for page, empty, _table in self._table_pages:
            empty.setText(reason)
            page.setCurrentIndex(0)

    def _show_tables(self, update: MonitorUpdate) -> None:
        if self._layout is None or not self._layout.has_gpu:
            return
        processes = update.sample.processes
        self.process_model.set_rows(processes)
        self._set_page(0, bool(processes), "No process is using a GPU right now.")
        report = update.idle
        self.cost_model.set_rows(report.processes)
        self._set_page(1, bool(report.processes), "No GPU time attributed to a process yet.")
        self.user_model.set_rows(report.users)
        self._set_page(2, bool(report.users), "No GPU time attributed to a user yet.")
        unattributed_s = report.unattributed_gpu_hours * 3600
        unattributed = format_duration(unattributed_s) if unattributed_s >= 1 else "none"
        set_text(
            self.attribution_note,
            "GPU time is split among the processes on each GPU by the memory they hold; "
            f"time with no process: {unattributed} · "
            f"at {format_money(report.price_per_gpu_hour)} per GPU-hour",
        )

    def _set_page(self, index: int, has_rows: bool, empty_text: str) -> None:
        page, empty, _table = self._table_pages[index]
        set_text(empty, empty_text)
        page.setCurrentIndex(1 if has_rows else 0)

    def _update_status(self) -> None:
        if self._shut_down:
            text, fg, bg = "STOPPED", COLORS["muted"], COLORS["surface_alt"]
        elif self.recording.active:
            text, fg, bg = "●  REC", COLORS["bad"], COLORS["bad_soft"]
            if self._paused:
                text = "●  REC · PAUSED"
        elif self._paused:
            text, fg, bg = "❚❚  PAUSED", COLORS["muted"], COLORS["surface_alt"]
        elif self.controller.is_running():
            text, fg, bg = "●  LIVE", COLORS["good"], COLORS["good_soft"]
        else:
            text, fg, bg = "IDLE", COLORS["muted"], COLORS["surface_alt"]
        if set_text(self.status_pill, text):
            self.status_pill.setStyleSheet(
                f"background: {bg}; color: {fg}; border-radius: 10px; padding: 3px 10px; "
                f"font-weight: 700; font-size: {BASE_POINT_SIZE - 1:.0f}pt;"
            )
        if self.recording.active and self.recording.session_id is not None:
            self.record_button.setText(f"■  Stop recording #{self.recording.session_id}")
        elif self.recording.active:
            self.record_button.setText("■  Stop recording")
        else:
            self.record_button.setText("●  Record")

    def _on_cursor(self, t: float) -> None:
        if self.grid is None:
            return
        if math.isfinite(t):
            pin = "click to release" if self.grid.pinned else "click to pin"
            set_text(self.cursor_label, f"Cursor at {self.grid.cursor_label()} · {pin}")
        else:
            set_text(
                self.cursor_label,
                "Hover over a plot to read every value at that moment; click to pin the cursor.",
            )

    def _on_stall(self, seconds: float) -> None:
        if self.controller.failure is not None:
            return  # the banner keeps the real reason the sampler stopped
        if seconds > 0:
            self.stall_banner.show_message(
                f"The sampler has not answered for {seconds:.0f} s (a driver call is hanging); "
                "the window keeps working and the plots resume when it answers.",
                "warn",
            )
        else:
            self.stall_banner.setVisible(False)

    def _on_sampler_failed(self, message: str) -> None:
        self.stall_banner.show_message(f"Monitoring stopped: {message}", "bad")
        if not self._ready:
            self._ready = True  # nothing more will come; the screenshot shows the message
            self.ready.emit()

    # --- price and idle configuration ---------------------------------------------------------
    def _idle_config(self) -> IdleCostConfig:
        price = idle_price(self._typed_price, self.state.price)
        return idle_config(price, self.idle_panel.alert_after_minutes())

    def _apply_idle_config(self) -> None:
        config = self._idle_config()
        if self._session is not None:
            self._session.idle.config = config
            report = self._session.idle.report()
            if self._last is not None:
                self._last = MonitorUpdate(self._last.sample, self._last.diagnosis, report)
            self._show_idle(report)
            if self._last is not None:
                self._show_tables(self._last)

    def _apply_price_from_state(self) -> None:
        if self._typed_price is not None:
            return
        price = idle_price(None, self.state.price)
        self.idle_panel.set_price(price.usd_per_gpu_hour, price.source, typed=False)
        self._apply_idle_config()

    def _on_estimate_changed(self, _estimate: object) -> None:
        self._apply_price_from_state()  # the Workload tab sets the price before the estimate

    def _on_price_typed(self, value: float) -> None:
        self._typed_price = value
        price = idle_price(value, self.state.price)
        self.idle_panel.set_price(value, price.source, typed=True)
        self._apply_idle_config()

    def _on_price_reset(self) -> None:
        self._typed_price = None
        self._apply_price_from_state()

    # --- recording and export ---------------------------------------------------------------
    def _on_record_toggled(self, checked: bool) -> None:
        if checked and not self.recording.active:
            self.start_recording()
        elif not checked and self.recording.active:
            self.stop_recording()

    def _on_recording_started(self, session_id: int) -> None:
        self.state.show_status(f"Recording monitor session #{session_id}", 4000)
        self._update_status()
        self.recording_changed.emit(True)

    def _on_recording_stopped(self, session_id: int, count: int) -> None:
        self.export_recording_action.setEnabled(True)
        self.export_recording_action.setText(f"Recorded session #{session_id}…")
        self.state.show_status(
            f"Saved monitor session #{session_id}: {count} samples in monitor.sqlite3", 8000
        )
        self._sync_running()
        self._update_status()
        self.recording_changed.emit(False)

    def _on_recording_failed(self, message: str) -> None:
        if self.record_button.isChecked():
            self.record_button.blockSignals(True)
            self.record_button.setChecked(False)
            self.record_button.blockSignals(False)
        if self.recording.last_session_id is not None:
            self.export_recording_action.setEnabled(True)
        self.state.show_status(f"Recording: {message}", 0)
        self._sync_running()
        self._update_status()
        self.recording_changed.emit(False)

    def _default_export_path(self, stem: str) -> str:
        folder = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation
        ) or str(Path.home())
        return str(Path(folder) / f"{stem}-{datetime.now():%Y%m%d-%H%M%S}.csv")

    def _ask_path(self, title: str, stem: str) -> str:
        path, _filter = QFileDialog.getSaveFileName(
            self, title, self._default_export_path(stem), "CSV files (*.csv)"
        )
        return path

    def _choose_history_export(self) -> None:
        path = self._ask_path("Export the shown history as CSV", "monitor-history")
        if path and not self.export_history_csv(path):
            self.state.show_status("Nothing to export yet: no samples", 6000)

    def _choose_recording_export(self, session_id: int | None = None) -> None:
        session_id = session_id if session_id is not None else self.recording.last_session_id
        if session_id is None:
            return
        path = self._ask_path(f"Export recorded session #{session_id} as CSV", "monitor-session")
        if path:
            self.export_recording_csv(path, session_id)

    def recorded_sessions(self, limit: int = 15) -> list[SessionInfo]:
        """The newest recorded sessions in the store (empty when there is no store yet)."""
        path = self.recording.store_path or monitor_db_path()
        if not Path(path).is_file():
            return []
        try:
            with SessionStore(path, read_only=True) as store:  # listing never writes
                return store.sessions()[:limit]
        except (OSError, ValueError, sqlite3.Error):
            return []

    def _fill_earlier_menu(self) -> None:
        self.earlier_menu.clear()
        sessions = [s for s in self.recorded_sessions() if s.id != self.recording.session_id]
        if not sessions:
            empty = self.earlier_menu.addAction("No recordings yet")
            empty.setEnabled(False)
            return
        for info in sessions:
            started = datetime.fromtimestamp(info.started).strftime("%Y-%m-%d %H:%M")
            length = format_duration(info.duration_s) if info.ended is not None else "unfinished"
            action = self.earlier_menu.addAction(
                f"#{info.id} · {info.label or started} · {length} · {info.sample_count} samples"
            )
            action.triggered.connect(
                lambda _checked=False, sid=info.id: self._choose_recording_export(sid)
            )

    def _on_export_done(self, result: object) -> None:
        if isinstance(result, tuple) and len(result) == 2:
            path, rows = str(result[0]), int(result[1])
            self.state.show_status(f"Exported {rows} rows to {path}", 8000)
            self.export_finished.emit(path, rows)


# --- helpers ----------------------------------------------------------------------------------


class _SampledElsewhere:
    """The session's sampler slot: samples are taken in the sampling thread and fed in."""

    def sample(self) -> SystemSample:
        raise RuntimeError("the Monitor tab samples in its sampling thread")

    def close(self) -> None:
        return None


def _add_export_actions(root: QWidget) -> None:
    """The app's "save plot / copy table" context actions, on the plots built just now."""
    from desktopapp.ui.common.export import install_export_actions

    install_export_actions(root)


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
