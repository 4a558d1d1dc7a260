"""Sortable tables of the Monitor tab: the processes on the GPUs, and GPU time and cost per
process or per user (``model.idle_cost`` attribution).

:class:`RecordModel` holds plain rows described by :class:`Column` (display text and sort key
per column) and sorts itself, so the view's header click sorts by the underlying number, not by
the formatted text. Replacing the rows keeps the chosen sort.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from desktopapp.devices.gpu_sampling import GpuProcess
from desktopapp.devices.top_processes import HostProcess
from desktopapp.model.idle_cost import ProcessCost, UserCost
from desktopapp.model.units import DASH, format_bytes, format_hours, format_money, format_percent
from desktopapp.ui.common.table_fit import ELIDED_COLUMNS_PROPERTY

R = TypeVar("R")
Index = QModelIndex | QPersistentModelIndex
SortKey = tuple[int, float | str]


@dataclass(frozen=True)
class Column(Generic[R]):
    title: str
    text: Callable[[R], str]
    key: Callable[[R], float | str]
    numeric: bool = False
    tooltip: Callable[[R], str] | None = None
    sample: str = ""  # typical widest text, sizes the column once
    # a name of any length (process, command, user): elided in the cell, whole in its tooltip
    elides: bool = False


def _num_key(value: float) -> float:
    return value if math.isfinite(value) else -math.inf


class RecordModel(QAbstractTableModel, Generic[R]):
    def __init__(self, columns: Sequence[Column[R]], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)
        self.rows: list[R] = []
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.DescendingOrder

    # --- content ------------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[R]) -> bool:
        """Replace the rows (kept in the chosen sort); False when nothing changed."""
        new = list(rows)
        if new == self.rows:
            return False
        self.beginResetModel()
        self.rows = new
        self._apply_sort()
        self.endResetModel()
        return True

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.columns):
            column = self.columns[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return column.title + self.sort_mark(section)
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(
                    (Qt.AlignmentFlag.AlignRight if column.numeric else Qt.AlignmentFlag.AlignLeft)
                    | Qt.AlignmentFlag.AlignVCenter
                )
        return None

    def sort_mark(self, section: int) -> str:
        """ " ▲"/" ▼" after the sorted column's title: the view draws no sort indicator of its
        own (Fusion centred it over the title, covering "CPU")."""
        if section != self._sort_column:
            return ""
        return " ▲" if self._sort_order == Qt.SortOrder.AscendingOrder else " ▼"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(row)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(
                (Qt.AlignmentFlag.AlignRight if column.numeric else Qt.AlignmentFlag.AlignLeft)
                | Qt.AlignmentFlag.AlignVCenter
            )
        if role == Qt.ItemDataRole.ToolTipRole and column.tooltip is not None:
            return column.tooltip(row)
        if role == Qt.ItemDataRole.ToolTipRole and column.elides:
            return column.text(row)  # the whole name the cell may elide
        return None

    # --- sorting ------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        self._apply_sort()
        self.layoutChanged.emit()
        if self.columns:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)

    def _apply_sort(self) -> None:
        if not 0 <= self._sort_column < len(self.columns):
            return
        column = self.columns[self._sort_column]

        def key(row: R) -> SortKey:
            value = column.key(row)
            return (0, value) if isinstance(value, str) else (1, _num_key(float(value)))

        self.rows.sort(key=key, reverse=self._sort_order == Qt.SortOrder.DescendingOrder)

    def column_texts(self, column: int) -> list[str]:
        return [self.columns[column].text(row) for row in self.rows]


def make_table(model: RecordModel[Any], stretch_column: int, parent: QWidget | None = None) -> Any:
    view = QTableView(parent)
    view.setModel(model)
    view.setSortingEnabled(True)
    view.setAlternatingRowColors(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setShowGrid(False)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(24)
    header = view.horizontalHeader()
    header.setHighlightSections(False)
    # Fixed widths (the user can drag them): measuring every cell on each refresh costs more
    # than the refresh itself.
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
    header.setMinimumSectionSize(56)
    header.setSortIndicatorShown(False)  # the model writes the arrow into the title
    # names of any length elide (the full name is the cell's tooltip) rather than widen the
    # table: the columns keep their widths between refreshes
    view.setProperty(
        ELIDED_COLUMNS_PROPERTY, [i for i, column in enumerate(model.columns) if column.elides]
    )
    metrics = view.fontMetrics()
    for i, column in enumerate(model.columns):
        if i != stretch_column:
            sample = column.sample or column.title
            title = column.title + " ▼"  # room for the sort mark
            width = max(metrics.horizontalAdvance(title), metrics.horizontalAdvance(sample))
            header.resizeSection(i, width + 28)
    return view


# --- rows ---------------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{value:.0f}%" if math.isfinite(value) else DASH


def _command(p: GpuProcess) -> str:
    return p.command or p.name or p.note or DASH


# Columns the tables share (processes on the GPU or the host, cost per process or per user).
def _pid_column() -> Column[Any]:
    return Column(
        "PID", lambda r: str(r.pid), lambda r: float(r.pid), numeric=True, sample="4194304"
    )


def _user_column(sample: str = "username") -> Column[Any]:
    return Column("User", lambda r: r.user or DASH, lambda r: r.user, sample=sample, elides=True)


def _numeric_column(
    title: str, value: Callable[[R], float], text: Callable[[float], str], sample: str = ""
) -> Column[R]:
    """A column sorted by ``value`` and showing it as ``text`` gives it."""
    return Column(title, lambda r: text(value(r)), value, numeric=True, sample=sample)


def _cost_columns() -> tuple[Column[Any], ...]:
    """GPU time, GPU-hours and cost of a ``ProcessCost`` or ``UserCost`` row."""
    return (
        _numeric_column("GPU time", lambda r: r.gpu_hours, format_hours, "999 min"),
        _numeric_column("GPU-hours", lambda r: r.gpu_hours, lambda hours: f"{hours:.3f}"),
        _numeric_column("Cost", lambda r: r.cost_usd, format_money, "$9,999"),
    )


PROCESS_COLUMNS: tuple[Column[GpuProcess], ...] = (
    _pid_column(),
    Column("GPU", lambda p: str(p.gpu_index), lambda p: float(p.gpu_index), numeric=True),
    _user_column(),
    Column(
        "Command",
        _command,
        lambda p: _command(p).lower(),
        tooltip=lambda p: p.command or p.note or p.name,
        elides=True,
    ),
    _numeric_column("CPU", lambda p: p.cpu_percent, _pct, "1000%"),
    _numeric_column("RSS", lambda p: p.rss_bytes, format_bytes, "999 MiB"),
    _numeric_column("GPU memory", lambda p: p.used_memory_bytes, format_bytes, "99.9 GiB"),
)
PROCESS_GPU_MEMORY_COLUMN = len(PROCESS_COLUMNS) - 1

# Without a GPU: the busiest processes of the machine by CPU and memory (devices.top_processes).
HOST_PROCESS_COLUMNS: tuple[Column[HostProcess], ...] = (
    _pid_column(),
    _user_column(),
    Column(
        "Process",
        lambda p: p.name or DASH,
        lambda p: p.name.lower(),
        tooltip=lambda p: p.name,
        elides=True,
    ),
    _numeric_column("CPU", lambda p: p.cpu_percent, _pct, "1000%"),
    _numeric_column("Memory", lambda p: p.rss_bytes, format_bytes, "99.9 GiB"),
    _numeric_column("Memory %", lambda p: p.memory_percent, _pct, "100%"),
)
HOST_CPU_COLUMN = 3

PROCESS_COST_COLUMNS: tuple[Column[ProcessCost], ...] = (
    _pid_column(),
    Column("Process", lambda p: p.name or DASH, lambda p: p.name.lower(), elides=True),
    _user_column(),
    *_cost_columns(),
    _numeric_column("Share", lambda p: p.share, lambda share: format_percent(share, 0)),
)
USER_COST_COLUMNS: tuple[Column[UserCost], ...] = (_user_column(sample=""), *_cost_columns())
COST_SORT_COLUMN = 5  # process cost
USER_COST_SORT_COLUMN = 3
