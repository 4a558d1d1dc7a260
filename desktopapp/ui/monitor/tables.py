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
                return column.title
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(
                    (Qt.AlignmentFlag.AlignRight if column.numeric else Qt.AlignmentFlag.AlignLeft)
                    | Qt.AlignmentFlag.AlignVCenter
                )
        return None

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
        return None

    # --- sorting ------------------------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        self._apply_sort()
        self.layoutChanged.emit()

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
    metrics = view.fontMetrics()
    for i, column in enumerate(model.columns):
        if i != stretch_column:
            sample = column.sample or column.title
            width = max(metrics.horizontalAdvance(column.title), metrics.horizontalAdvance(sample))
            header.resizeSection(i, width + 28)
    return view


# --- rows ---------------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{value:.0f}%" if math.isfinite(value) else DASH


def _command(p: GpuProcess) -> str:
    return p.command or p.name or p.note or DASH


PROCESS_COLUMNS: tuple[Column[GpuProcess], ...] = (
    Column("PID", lambda p: str(p.pid), lambda p: float(p.pid), numeric=True, sample="4194304"),
    Column("GPU", lambda p: str(p.gpu_index), lambda p: float(p.gpu_index), numeric=True),
    Column("User", lambda p: p.user or DASH, lambda p: p.user, sample="username"),
    Column(
        "Command",
        _command,
        lambda p: _command(p).lower(),
        tooltip=lambda p: p.command or p.note or p.name,
    ),
    Column(
        "CPU", lambda p: _pct(p.cpu_percent), lambda p: p.cpu_percent, numeric=True, sample="1000%"
    ),
    Column(
        "RSS",
        lambda p: format_bytes(p.rss_bytes),
        lambda p: p.rss_bytes,
        numeric=True,
        sample="999 MiB",
    ),
    Column(
        "GPU memory",
        lambda p: format_bytes(p.used_memory_bytes),
        lambda p: p.used_memory_bytes,
        numeric=True,
        sample="99.9 GiB",
    ),
)
PROCESS_GPU_MEMORY_COLUMN = len(PROCESS_COLUMNS) - 1

# Without a GPU: the busiest processes of the machine by CPU and memory (devices.top_processes).
HOST_PROCESS_COLUMNS: tuple[Column[HostProcess], ...] = (
    Column("PID", lambda p: str(p.pid), lambda p: float(p.pid), numeric=True, sample="4194304"),
    Column("User", lambda p: p.user or DASH, lambda p: p.user, sample="username"),
    Column("Process", lambda p: p.name or DASH, lambda p: p.name.lower(), tooltip=lambda p: p.name),
    Column(
        "CPU", lambda p: _pct(p.cpu_percent), lambda p: p.cpu_percent, numeric=True, sample="1000%"
    ),
    Column(
        "Memory",
        lambda p: format_bytes(p.rss_bytes),
        lambda p: p.rss_bytes,
        numeric=True,
        sample="99.9 GiB",
    ),
    Column(
        "Memory %",
        lambda p: _pct(p.memory_percent),
        lambda p: p.memory_percent,
        numeric=True,
        sample="100%",
    ),
)
HOST_CPU_COLUMN = 3

PROCESS_COST_COLUMNS: tuple[Column[ProcessCost], ...] = (
    Column("PID", lambda p: str(p.pid), lambda p: float(p.pid), numeric=True, sample="4194304"),
    Column("Process", lambda p: p.name or DASH, lambda p: p.name.lower()),
    Column("User", lambda p: p.user or DASH, lambda p: p.user, sample="username"),
    Column(
        "GPU time",
        lambda p: format_hours(p.gpu_hours),
        lambda p: p.gpu_hours,
        numeric=True,
        sample="999 min",
    ),
    Column(
        "GPU-hours",
        lambda p: f"{p.gpu_hours:.3f}",
        lambda p: p.gpu_hours,
        numeric=True,
    ),
    Column(
        "Cost",
        lambda p: format_money(p.cost_usd),
        lambda p: p.cost_usd,
        numeric=True,
        sample="$9,999",
    ),
    Column("Share", lambda p: format_percent(p.share, 0), lambda p: p.share, numeric=True),
)
USER_COST_COLUMNS: tuple[Column[UserCost], ...] = (
    Column("User", lambda u: u.user or DASH, lambda u: u.user),
    Column(
        "GPU time",
        lambda u: format_hours(u.gpu_hours),
        lambda u: u.gpu_hours,
        numeric=True,
        sample="999 min",
    ),
    Column("GPU-hours", lambda u: f"{u.gpu_hours:.3f}", lambda u: u.gpu_hours, numeric=True),
    Column(
        "Cost",
        lambda u: format_money(u.cost_usd),
        lambda u: u.cost_usd,
        numeric=True,
        sample="$9,999",
    ),
)
COST_SORT_COLUMN = 5  # process cost
USER_COST_SORT_COLUMN = 3
