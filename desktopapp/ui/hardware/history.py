"""History: the saved runs, comparing two of them, exporting to JSON/CSV."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.hardware import HistoryRow, ratio_text, tflops_text
from desktopapp.application.hardware_controller import history_note, history_status
from desktopapp.application.hardware_jobs import Comparison
from desktopapp.model import units
from desktopapp.model.units import DASH
from desktopapp.ui.common.table_fit import fit_columns
from desktopapp.ui.common.theme import COLORS

RUN_ID_ROLE = Qt.ItemDataRole.UserRole
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _table(headers: Sequence[str], wrap: Sequence[int]) -> QTableWidget:
    """A read-only table: figures sized to their contents at any font, the ``wrap`` columns
    (names, lists) sharing the rest and wrapping rather than cut ("Matmul, Bandw…")."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setHighlightSections(False)
    fit_columns(table, wrap=wrap)
    return table


def _item(text: str, right: bool = False, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(_RIGHT)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def _value(value: float | None) -> str:
    if value is None:
        return DASH
    if value >= 100:
        return f"{value:,.0f}"
    return f"{units.format_plain(value, 3)}"


class HistoryPanel(QWidget):
    """Saved runs (select one to show it, two to compare) and the comparison table."""

    open_requested = Signal(int)
    compare_requested = Signal(int, int)
    export_requested = Signal(str)  # "json" or "csv"
    refresh_requested = Signal()

    RUN_HEADERS = ("Date", "Device", "Suites", "Best fp32", "Best bf16", "Results", "Status")
    COMPARE_HEADERS = ("Suite", "Precision", "Size", "Metric", "A", "B", "B ÷ A")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info = QLabel("Results are saved here when a benchmark finishes.")
        self.info.setObjectName("Muted")
        self.info.setWordWrap(True)
        self.open_button = QPushButton("Show results")
        self.open_button.setToolTip("Show the selected run in Live results (table and plot)")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Select two runs to compare every matching measurement")
        self.json_button = QPushButton("Export JSON…")
        self.csv_button = QPushButton("Export CSV…")
        for button in (self.json_button, self.csv_button):
            button.setToolTip("Export the selected runs (all runs when none is selected)")

        self.runs = _table(self.RUN_HEADERS, wrap=(1, 2, 6))  # device, suites, status
        self.runs.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.empty = QLabel("No saved runs yet. Run a benchmark: it is saved when it finishes.")
        self.empty.setObjectName("Empty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.compare_title = QLabel("")
        self.compare_title.setObjectName("SectionTitle")
        self.compare_note = QLabel("")
        self.compare_note.setObjectName("Muted")
        self.compare_note.setWordWrap(True)
        self.comparison = _table(self.COMPARE_HEADERS, wrap=(0, 3))  # suite, metric
        self.compare_box = QWidget()
        compare_layout = QVBoxLayout(self.compare_box)
        compare_layout.setContentsMargins(0, 6, 0, 0)
        compare_layout.setSpacing(4)
        compare_layout.addWidget(self.compare_title)
        compare_layout.addWidget(self.compare_note)
        compare_layout.addWidget(self.comparison, 1)
        self.compare_box.setVisible(False)

        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        buttons.addWidget(self.info, 1)
        for button in (self.open_button, self.compare_button, self.json_button, self.csv_button):
            buttons.addWidget(button)

        runs_box = QWidget()
        runs_layout = QVBoxLayout(runs_box)
        runs_layout.setContentsMargins(0, 0, 0, 0)
        runs_layout.addWidget(self.runs, 1)
        runs_layout.addWidget(self.empty, 1)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(runs_box)
        splitter.addWidget(self.compare_box)
        splitter.setSizes([240, 260])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(8)
        layout.addLayout(buttons)
        layout.addWidget(splitter, 1)

        self.open_button.clicked.connect(self._on_open)
        self.compare_button.clicked.connect(self._on_compare)
        self.json_button.clicked.connect(lambda: self.export_requested.emit("json"))
        self.csv_button.clicked.connect(lambda: self.export_requested.emit("csv"))
        self.runs.itemSelectionChanged.connect(self._sync_buttons)
        self.runs.itemDoubleClicked.connect(lambda _item: self._on_open())
        self._rows: list[HistoryRow] = []
        self.set_rows([])

    # --- model → widgets ------------------------------------------------------------------
    def set_rows(self, rows: Sequence[HistoryRow], path: str = "", error: str = "") -> None:
        selected = set(self.selected_run_ids())
        self._rows = list(rows)
        with QSignalBlocker(self.runs):
            self.runs.setRowCount(len(rows))
            for r, row in enumerate(rows):
                date = _item(row.started, tooltip=row.notes)
                date.setData(RUN_ID_ROLE, row.run_id)
                cells = [
                    date,
                    _item(row.device, tooltip=row.device),
                    _item(row.suites),
                    _item(tflops_text(row.best_fp32), right=True),
                    _item(tflops_text(row.best_bf16), right=True),
                    _item(str(row.measurements), right=True),
                    _item(history_status(row), tooltip=row.disturbed),
                ]
                if row.cancelled or row.disturbed:
                    cells[6].setForeground(QColor(COLORS["warn"]))
                for c, cell in enumerate(cells):
                    self.runs.setItem(r, c, cell)
            self.runs.clearSelection()
            for r, row in enumerate(rows):
                if row.run_id in selected:
                    self.runs.selectRow(r)
        has_rows = bool(rows)
        self.runs.setVisible(has_rows)
        self.empty.setVisible(not has_rows)
        self.info.setText(history_note(len(rows), path, error))
        self._sync_buttons()

    def rows(self) -> list[HistoryRow]:
        return list(self._rows)

    def select_runs(self, run_ids: Sequence[int]) -> None:
        self.runs.clearSelection()
        mode = self.runs.selectionMode()
        self.runs.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for r, row in enumerate(self._rows):
            if row.run_id in run_ids:
                self.runs.selectRow(r)
        self.runs.setSelectionMode(mode)
        self._sync_buttons()

    def selected_run_ids(self) -> list[int]:
        rows = sorted({index.row() for index in self.runs.selectionModel().selectedRows()})
        return [self._rows[r].run_id for r in rows if r < len(self._rows)]

    def show_comparison(self, comparison: Comparison) -> None:
        self.compare_title.setText(f"B {comparison.b_label}  vs  A {comparison.a_label}")
        notes = [f"{len(comparison.rows)} matching measurements; ratio = B ÷ A (above 1: B faster)"]
        if comparison.only_a or comparison.only_b:
            notes.append(f"{comparison.only_a} only in A, {comparison.only_b} only in B")
        if not comparison.same_machine:
            notes.append("the runs come from different machines")
        self.compare_note.setText("; ".join(notes) + ".")
        self.comparison.setRowCount(len(comparison.rows))
        for r, row in enumerate(comparison.rows):
            ratio = _item(ratio_text(row.ratio), right=True)
            if row.better == "b":
                ratio.setForeground(QColor(COLORS["good"]))
            elif row.better == "a":
                ratio.setForeground(QColor(COLORS["bad"]))
            cells = [
                _item(row.suite),
                _item(row.dtype),
                _item(row.size, right=True),
                _item(row.metric or DASH),
                _item(_value(row.a), right=True),
                _item(_value(row.b), right=True),
                ratio,
            ]
            for c, cell in enumerate(cells):
                self.comparison.setItem(r, c, cell)
        self.compare_box.setVisible(True)

    def comparison_texts(self) -> list[list[str]]:
        table = self.comparison
        rows: list[list[str]] = []
        for r in range(table.rowCount()):
            cells = [table.item(r, c) for c in range(table.columnCount())]
            rows.append([cell.text() if cell is not None else "" for cell in cells])
        return rows

    def _sync_buttons(self) -> None:
        count = len(self.selected_run_ids())
        self.open_button.setEnabled(count == 1)
        self.compare_button.setEnabled(count == 2)
        has_rows = bool(self._rows)
        self.json_button.setEnabled(has_rows)
        self.csv_button.setEnabled(has_rows)

    # --- widgets → tab ----------------------------------------------------------------------
    def _on_open(self) -> None:
        ids = self.selected_run_ids()
        if len(ids) == 1:
            self.open_requested.emit(ids[0])

    def _on_compare(self) -> None:
        ids = self.selected_run_ids()
        if len(ids) == 2:
            older, newer = sorted(ids)
            self.compare_requested.emit(older, newer)
