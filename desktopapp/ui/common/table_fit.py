"""Table columns that fit their table at any font size: presentation mode, a theme, a narrow
window.

Fixed pixel widths cut a table's cells once the font grows (in presentation mode at 1440×900
the Cost tab's price table read "Provide", "nstance", "$1…" and its comparison "Own …",
"Vast.…"), and a column sized to its contents pushes the rest out sideways. :func:`fit_columns`
sizes the columns again whenever the table's width, font or rows change:

- every column not named below is sized to its contents (figures, dates, short words);
- the ``wrap`` columns (names, free text) share what is left, never less than their longest
  word, and their cells wrap at spaces and soft breaks (:func:`soft_breaks` for identifiers);
  rows grow to hold the lines;
- if even that does not fit, columns with nothing in them are hidden, then the ``fold``
  columns in the order given, until it does; what they say must also be in the row's
  tooltip. A wider table shows them again;
- if nothing is left to fold, the table scrolls sideways rather than cut a word.

The problem a person sees, a cell cut short, is what :func:`desktopapp.ui.common.geometry.
find_cut_cells` checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import shiboken6
from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

# the table's own events; a new width is the viewport's resize (the table's resize comes with
# it, and a change of height alone, such as the ``fitted`` callback's, needs no new fit)
_REFIT_ON = frozenset({QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.Show})


BATCH_MS = 200  # row changes within this long are fitted together
_PROBE_PX = 1000  # a column width to measure a cell's margins with
# A table's columns whose cells elide by design, the whole text in the cell's tooltip (names
# of processes and users, which can be of any length); the cut check skips their cells, not
# their headers (:func:`desktopapp.ui.common.geometry.find_cut_cells`).
ELIDED_COLUMNS_PROPERTY = "elided_columns"
SOFT_BREAK = "\u200b"  # a zero-width space: a line may break here
_WORDS = re.compile(f"[\\s{SOFT_BREAK}]+")


def soft_breaks(identifier: str) -> str:
    """``identifier`` with a line-break opportunity after each ``_``, ``-`` and ``.``, so that
    a wrapped cell can break "Standard_ND96isr_H100_v5" rather than cut it; it reads the same."""
    for mark in "_-.":
        identifier = identifier.replace(mark, mark + SOFT_BREAK)
    return identifier


def words(text: str) -> list[str]:
    """The pieces a wrapped cell's text may not be broken within."""
    return [w for w in _WORDS.split(text) if w] or [""]


def longest_word(metrics: QFontMetrics, text: str) -> int:
    """The width of the widest piece of ``text`` a wrapped cell cannot break (see :func:`words`)."""
    return max(metrics.horizontalAdvance(w) for w in words(text))


def text_width(table: QTableView, index: QModelIndex, width: int) -> int:
    """How wide the text of the cell at ``index`` may be in a column ``width`` px wide, as the
    style lays the cell out: its margins, icon and check box taken off (the style sheet's
    margins are wider than the plain style's)."""
    option = QStyleOptionViewItem()
    table.initViewItemOption(option)
    delegate = table.itemDelegateForIndex(index)
    if isinstance(delegate, QStyledItemDelegate):  # the default: icon, check box, font
        delegate.initStyleOption(option, index)
    option.rect = QRect(0, 0, width, max(1, table.rowHeight(index.row())))
    rect = table.style().subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table)
    return rect.width()


def cell_metrics(table: QTableView, index: QModelIndex) -> QFontMetrics:
    """The metrics of the font a cell is drawn in (its own font, e.g. bold, over the table's)."""
    own = table.model().data(index, Qt.ItemDataRole.FontRole)
    font = QFont(own).resolve(table.font()) if isinstance(own, QFont) else table.font()
    return QFontMetrics(font)


def wrapped_height(metrics: QFontMetrics, room: int, text: str) -> int:
    """Height of ``text`` word-wrapped in ``room`` px (what the fit sizes rows by and the cut
    check in :mod:`.geometry` measures with)."""
    flags = int(Qt.TextFlag.TextWordWrap)
    return metrics.boundingRect(QRect(0, 0, max(room, 1), 1 << 20), flags, text).height()


class _ColumnFit(QObject):
    def __init__(
        self,
        table: QTableView,
        wrap: Sequence[int],
        fold: Sequence[int],
        fitted: Callable[[], None] | None,
    ) -> None:
        super().__init__(table)
        self._table = table
        self._wrap = tuple(wrap)
        self._fold = tuple(fold)
        self._fitted = fitted
        self._busy = False
        self._again = False
        self.folded: tuple[int, ...] = ()
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setMinimumSectionSize(1)
        # rows are sized by each fit (a header in ResizeToContents mode measures every row
        # again on each appended row)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.installEventFilter(self)
        table.viewport().installEventFilter(self)
        model = table.model()
        if model is not None:
            for signal in (model.modelReset, model.layoutChanged, model.headerDataChanged):
                signal.connect(self._soon)
            for signal in (model.rowsInserted, model.rowsRemoved, model.dataChanged):
                signal.connect(self._batched)
        # row by row changes (a QTableWidget filled cell by cell, results arriving during a
        # benchmark) fit once after a short pause, not once per change: a fit measures every
        # cell (17 ms for 40 results), and one per result stalled the GUI under load
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.refit)

    @property
    def pending(self) -> bool:
        """A fit is waiting for the event loop (the rows changed and are not sized yet)."""
        return self._timer.isActive()

    def _soon(self, *_args: object) -> None:
        self._timer.start(0)

    def _batched(self, *_args: object) -> None:
        if not self._timer.isActive():
            self._timer.start(BATCH_MS)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._table:
            if event.type() in _REFIT_ON:
                self.refit()
        elif isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            self.refit()
        return False

    def _needs(self, columns: range) -> tuple[dict[int, int], dict[int, int]]:
        """Per column: the width of its contents on one line, and the least it can take (its
        longest word for a wrapped column, else its contents)."""
        table = self._table
        model = table.model()
        header = table.horizontalHeader()
        full: dict[int, int] = {}
        least: dict[int, int] = {}
        for column in columns:
            head = header.sectionSizeFromContents(column).width()
            cells = table.sizeHintForColumn(column) if model.rowCount() else 0
            full[column] = max(head, cells)
            if column in self._wrap:
                widest = 0
                for row in range(model.rowCount()):
                    index = model.index(row, column)
                    text = model.data(index, Qt.ItemDataRole.DisplayRole)
                    if not text:
                        continue
                    word = longest_word(cell_metrics(table, index), str(text))
                    overhead = _PROBE_PX - text_width(table, index, _PROBE_PX)
                    widest = max(widest, word + overhead)
                least[column] = max(head, widest)
            else:
                least[column] = full[column]
        return full, least

    def refit(self, *_args: object) -> None:
        # a QTableWidget's own model outlives the view's C++ part when the view is deleted
        if not shiboken6.isValid(self._table) or self._table.model() is None:
            return
        self._timer.stop()  # this fit covers the row changes a pending one was waiting for
        if self._busy:  # a fit changed the width (a scroll bar came or went): fit again after
            self._again = True
            return
        self._busy = True
        try:
            for _ in range(3):  # wrapping may bring a scroll bar, which narrows the rows
                self._again = False
                room = self._table.viewport().width()
                if room > 0:
                    self._fit(room)
                if not self._again:
                    break
        finally:
            self._busy = False
        if self._fitted is not None:
            self._fitted()

    def _fit(self, room: int) -> None:
        table = self._table
        columns = range(table.model().columnCount())
        full, least = self._needs(columns)
        shown = list(columns)
        folded: list[int] = []
        model = table.model()
        empty = [
            c
            for c in columns
            if not any(model.data(model.index(r, c)) for r in range(model.rowCount()))
        ]
        for column in [*empty, *(c for c in self._fold if c not in empty)]:
            if sum(least[c] for c in shown) <= room:
                break
            shown.remove(column)
            folded.append(column)
        wrap = [c for c in shown if c in self._wrap]
        fixed = sum(full[c] for c in shown if c not in self._wrap)
        widths = {c: full[c] for c in shown if c not in self._wrap}
        left = room - fixed
        # wrapped columns: each its longest word, then the rest shared by what each still lacks;
        # if even the longest words do not fit, the table scrolls sideways (nothing is cut)
        floor = {c: least[c] for c in wrap}
        overflow = sum(floor.values()) > left
        policy = Qt.ScrollBarPolicy
        table.setHorizontalScrollBarPolicy(
            policy.ScrollBarAsNeeded if overflow else policy.ScrollBarAlwaysOff
        )
        spare = left - sum(floor.values())
        lack = {c: max(0, full[c] - floor[c]) for c in wrap}
        total_lack = sum(lack.values())
        for c in wrap:
            share = spare * lack[c] / total_lack if total_lack > 0 and spare > 0 else 0
            widths[c] = floor[c] + int(min(share, lack[c]))
        extra = room - sum(widths.values())
        if extra > 0 and shown:  # the first wrapped column (else the first) takes the rest
            widths[wrap[0] if wrap else shown[0]] += extra
        for column in columns:
            table.setColumnHidden(column, column in folded)
        header = table.horizontalHeader()
        for column, width in widths.items():
            header.resizeSection(column, width)
        table.resizeRowsToContents()
        self._rows_hold_wrapped_lines(wrap)
        self.folded = tuple(folded)

    def _rows_hold_wrapped_lines(self, wrap: Sequence[int]) -> None:
        """Each row as tall as its wrapped cells need as they are drawn.

        Qt sizes a row by the item's size hint, which wraps the text in the column's width less
        the style's text margins; a style sheet's item padding (the Hardware tab's 8 px each
        side) draws it narrower still. A cell that fits on one line by the hint but not as drawn
        got one line of height and lost its second line ("Bandwidth · device copy": 233 px of
        text, a 245 px column, 229 px as drawn). The lines the hint missed are added here."""
        table = self._table
        model = table.model()
        style = table.style()
        margins = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
        for row in range(model.rowCount()):
            missing = 0
            for column in wrap:
                if table.isColumnHidden(column):
                    continue
                index = model.index(row, column)
                text = model.data(index, Qt.ItemDataRole.DisplayRole)
                if not text:
                    continue
                width = table.columnWidth(column)
                drawn = text_width(table, index, width)
                if drawn >= width - margins:  # drawn no narrower than the hint wraps it
                    continue
                metrics = cell_metrics(table, index)
                lines = wrapped_height(metrics, drawn, str(text))
                missing = max(missing, lines - wrapped_height(metrics, width - margins, str(text)))
            if missing > 0:
                table.setRowHeight(row, table.rowHeight(row) + missing)


def fit_columns(
    table: QTableView,
    wrap: Sequence[int],
    fold: Sequence[int] = (),
    fitted: Callable[[], None] | None = None,
) -> Callable[[], None]:
    """Keep ``table``'s columns fitted to its width (see the module docstring); ``fitted`` runs
    after each fit (to set a height that shows every row). A change of size or font refits at
    once, a reset of the rows once the event loop is back, row by row changes together after
    :data:`BATCH_MS` (cell-by-cell filling fits once).
    Returns the refit function, to fit at once after filling."""
    fit = _ColumnFit(table, wrap, fold, fitted)
    table.setProperty("column_fit", True)
    fit.refit()
    return fit.refit


def fits_pending(root: QWidget) -> bool:
    """Whether a table under ``root`` (or ``root`` itself) has a fit waiting for the event
    loop: its rows changed and are not sized yet (a screenshot or check waits for it)."""
    return any(fit.pending for fit in root.findChildren(_ColumnFit))


def folded_columns(table: QTableView) -> tuple[int, ...]:
    """The columns :func:`fit_columns` has folded away at the table's present width."""
    for child in table.children():
        if isinstance(child, _ColumnFit):
            return child.folded
    return ()


def shown_rows_height(table: QTableView, most: int | None = None) -> int:
    """The height of the first ``most`` rows (all by default) with the header and frame: a
    fixed table height that shows them without a scroll bar."""
    model = table.model()
    rows = 0 if model is None else model.rowCount()
    if most is not None:
        rows = min(rows, most)
    body = sum(table.rowHeight(r) for r in range(rows))
    header = table.horizontalHeader()
    head = header.sizeHint().height() if not header.isHidden() else 0
    columns = 0 if model is None else model.columnCount()
    wide = sum(table.columnWidth(c) for c in range(columns) if not table.isColumnHidden(c))
    bar = table.horizontalScrollBar()
    scrolls = table.horizontalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    sideways = bar.sizeHint().height() if scrolls and wide > table.viewport().width() else 0
    return head + body + sideways + 2 * table.frameWidth()
