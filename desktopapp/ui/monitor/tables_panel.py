"""The Monitor tab's tables box: processes on GPUs, GPU time and cost by process and by user,
the cluster page, and the attribution note under them.

It renders :class:`~desktopapp.application.monitor_views.TablesView`. Without a GPU the
first page shows the busiest processes of this machine by CPU and memory instead, read by
:mod:`desktopapp.devices.top_processes` in a worker thread every
:data:`~desktopapp.application.monitor_views.TABLE_REFRESH_S`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from desktopapp.application.monitor import host_process_empty_text, host_process_rows
from desktopapp.application.monitor_views import (
    HOST_PROCESSES_NOTE,
    TABLE_REFRESH_S,
    TablesView,
)
from desktopapp.devices.top_processes import ProcessSnapshot
from desktopapp.ui.common.workers import TaskRunner
from desktopapp.ui.monitor.controls import FitHeightLabel
from desktopapp.ui.monitor.panels import set_text
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

EMPTY_PAGE, TABLE_PAGE, HOST_PAGE = 0, 1, 2  # the widgets of each page's stack


class MonitorTables(QFrame):
    """The tables box (see the module docstring). ``pages`` holds (stack, empty label, table)
    for the three GPU pages."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Section")
        self.process_model: RecordModel[Any] = RecordModel(PROCESS_COLUMNS, self)
        self.process_table = make_table(self.process_model, 3)
        self.process_table.sortByColumn(PROCESS_GPU_MEMORY_COLUMN, Qt.SortOrder.DescendingOrder)
        self.cost_model: RecordModel[Any] = RecordModel(PROCESS_COST_COLUMNS, self)
        self.cost_table = make_table(self.cost_model, 1)
        self.cost_table.sortByColumn(COST_SORT_COLUMN, Qt.SortOrder.DescendingOrder)
        self.user_model: RecordModel[Any] = RecordModel(USER_COST_COLUMNS, self)
        self.user_table = make_table(self.user_model, 0)
        self.user_table.sortByColumn(USER_COST_SORT_COLUMN, Qt.SortOrder.DescendingOrder)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.pages: list[tuple[QStackedWidget, QLabel, QWidget]] = []
        for title, table in (
            ("Processes on GPUs", self.process_table),
            ("GPU time and cost by process", self.cost_table),
            ("By user", self.user_table),
        ):
            empty = QLabel()
            empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
            empty.setWordWrap(True)
            empty.setObjectName("Hint")
            page = QStackedWidget()
            page.addWidget(empty)
            page.addWidget(table)
            self.pages.append((page, empty, table))
            self.tabs.addTab(page, title)
        self.host_model: RecordModel[Any] = RecordModel(HOST_PROCESS_COLUMNS, self)
        self.host_table = make_table(self.host_model, 2)
        self.host_table.sortByColumn(HOST_CPU_COLUMN, Qt.SortOrder.DescendingOrder)
        self.pages[0][0].addWidget(self.host_table)  # HOST_PAGE
        self._add_cluster_page()
        self.attribution_note = FitHeightLabel()  # keeps the height its wrapped text needs
        self.attribution_note.setObjectName("Hint")
        self.attribution_note.setWordWrap(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 6, 10, 8)
        column.setSpacing(4)
        column.addWidget(self.tabs, 1)
        column.addWidget(self.attribution_note)

        self._top_processes: Any = None
        self._shut_down = False
        self._host_runner = TaskRunner("monitor-processes", self)
        self._host_runner.result_ready.connect(self._on_host_processes)
        self._host_timer = QTimer(self)
        self._host_timer.setInterval(int(TABLE_REFRESH_S * 1000))
        self._host_timer.timeout.connect(self._poll_host_processes)

    def _add_cluster_page(self) -> None:
        from desktopapp.ui.common.layouts import scroll_area
        from desktopapp.ui.monitor.cluster import ClusterPanel

        self.cluster = ClusterPanel()  # issue 17: a fleet from Prometheus
        self.tabs.addTab(scroll_area(content=self.cluster), "Cluster")

    # --- GPU tables ---------------------------------------------------------------------------
    def show_empty(self, reason: str) -> None:
        for page, empty, _table in self.pages:
            empty.setText(reason)
            page.setCurrentIndex(EMPTY_PAGE)

    def show_view(self, view: TablesView) -> None:
        self.process_model.set_rows(view.processes)
        self.cost_model.set_rows(view.process_costs)
        self.user_model.set_rows(view.user_costs)
        counts = (len(view.processes), len(view.process_costs), len(view.user_costs))
        for (page, empty, _table), rows, text in zip(
            self.pages, counts, view.empty_texts, strict=True
        ):
            set_text(empty, text)
            page.setCurrentIndex(TABLE_PAGE if rows else EMPTY_PAGE)
        set_text(self.attribution_note, view.attribution_note)

    # --- top processes by CPU and memory, without a GPU ---------------------------------------
    def start_host_processes(self) -> None:
        from desktopapp.devices.top_processes import TopProcesses

        self.tabs.setTabText(0, "Top processes (CPU, memory)")
        self.tabs.setTabVisible(1, False)
        self.tabs.setTabVisible(2, False)
        set_text(self.pages[0][1], "Reading the process list…")
        set_text(self.attribution_note, HOST_PROCESSES_NOTE)
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
        page, empty, _table = self.pages[0]
        set_text(empty, host_process_empty_text(snapshot))
        page.setCurrentIndex(HOST_PAGE if rows else EMPTY_PAGE)

    def shutdown(self) -> None:
        self._shut_down = True
        self._host_timer.stop()
        self._host_runner.shutdown()
