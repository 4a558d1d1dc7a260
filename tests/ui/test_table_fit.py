"""Tables whose columns fit at any font (common.table_fit) and the check that finds a cell cut
short (common.geometry.find_cut_cells).

Issue 25: in presentation mode at 1440×900 the Cost tab's price table read "Provide",
"nstance" and "$1…", its comparison "Own …" and "Vast.…" with its last column past the
table's edge, and the Hardware results "Bandwidt…ice copy"; the readability check, which looks
at widgets, saw none of it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktopapp.ui.common.geometry import find_cut_cells
from desktopapp.ui.common.table_fit import (
    SOFT_BREAK,
    fit_columns,
    folded_columns,
    shown_rows_height,
    soft_breaks,
    words,
)

ROWS = [
    ("Vast.ai H100 SXM marketplace · On-demand", "$1.56", "never (127%)", "", "Rent saves $1.18M"),
    ("CoreWeave H100 (1yr reserved) · 1-yr commit", "$1.79", "74%", "", "Rent saves $569,984"),
    ("GCP a3-highgpu-8g · Spot", "$12.29", "37%", "", "Own saves $41,403"),
]
HEADERS = ["Option", "Per useful GPU-hour", "Break-even", "Empty", "Cheaper"]


def _window(qtbot: QtBot, width: int, point_size: float) -> tuple[QWidget, QTableWidget]:
    window = QWidget()
    qtbot.addWidget(window)
    font = QFont(window.font())
    font.setPointSizeF(point_size)
    window.setFont(font)
    table = QTableWidget(len(ROWS), len(HEADERS))
    table.setHorizontalHeaderLabels(HEADERS)
    table.verticalHeader().setVisible(False)
    for r, row in enumerate(ROWS):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    layout = QVBoxLayout(window)
    layout.addWidget(table)
    window.resize(width, 400)
    window.show()
    qtbot.waitExposed(window)
    return window, table


def test_the_check_finds_cells_cut_by_fixed_widths(qtbot: QtBot) -> None:
    window, table = _window(qtbot, 420, 14.0)
    table.setWordWrap(False)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    for c in range(len(HEADERS)):
        table.setColumnWidth(c, 70)
    problems = [str(p) for p in find_cut_cells(window)]
    assert any("'Vast.ai H100 SXM marketplace · On-demand'" in p for p in problems)
    assert any("header 'Per useful GPU-hour'" in p for p in problems)
    table.setColumnWidth(0, 900)  # the last columns now lie past the table's edge
    assert any("ends at" in str(p) for p in find_cut_cells(window))


def _narrow_until(qtbot: QtBot, window: QWidget, table: QTableWidget, done) -> int:
    """Narrow the window 20 px at a time until ``done()``; the width it took (the widths
    depend on the fonts at hand, so no width is written in)."""
    for width in range(1800, 100, -20):
        window.resize(width, 400)
        qtbot.wait(1)
        if done():
            return width
    raise AssertionError("never happened")


def test_fitted_columns_cut_nothing_at_a_presentation_font(qtbot: QtBot) -> None:
    window, table = _window(qtbot, 1800, 14.0)
    fit_columns(table, wrap=(0, 2, 4))
    line = table.fontMetrics().height()
    one_line = table.rowHeight(0)  # room for every name on one line
    assert folded_columns(table) == () and find_cut_cells(window) == []
    # narrower: the names wrap first, then the empty column folds away; nothing is cut
    _narrow_until(qtbot, window, table, lambda: table.rowHeight(0) >= one_line + line)
    assert folded_columns(table) == () and find_cut_cells(window) == []
    assert table.columnWidth(1) >= table.sizeHintForColumn(1)  # figures keep their width
    _narrow_until(qtbot, window, table, lambda: folded_columns(table) != ())
    assert folded_columns(table) == (3,) and find_cut_cells(window) == []
    assert not table.horizontalScrollBar().isVisibleTo(window)
    window.resize(1800, 400)  # and with room it comes back
    qtbot.waitUntil(lambda: folded_columns(table) == ())


def test_fold_columns_hide_in_order_and_the_rest_still_fits(qtbot: QtBot) -> None:
    window, table = _window(qtbot, 1800, 14.0)
    fit_columns(table, wrap=(0, 2, 4), fold=(2, 1))
    _narrow_until(qtbot, window, table, lambda: 2 in folded_columns(table))
    assert folded_columns(table) == (3, 2)  # the empty column, then the first fold column
    assert find_cut_cells(window) == []


def test_a_table_too_narrow_for_its_words_scrolls_rather_than_cut(qtbot: QtBot) -> None:
    window, table = _window(qtbot, 160, 14.0)
    fit_columns(table, wrap=(0, 2, 4))
    longest = max(table.fontMetrics().horizontalAdvance(w) for w in words(ROWS[0][0]))
    assert table.columnWidth(0) >= longest
    qtbot.waitUntil(lambda: table.horizontalScrollBar().isVisibleTo(window))
    assert find_cut_cells(window) == []


def test_shown_rows_height_shows_every_wrapped_row(qtbot: QtBot) -> None:
    _, table = _window(qtbot, 300, 14.0)
    fit_columns(
        table, wrap=(0, 2, 4), fitted=lambda: table.setFixedHeight(shown_rows_height(table))
    )
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.height() >= rows + table.horizontalHeader().height()
    assert table.verticalScrollBar().maximum() == 0


def test_soft_breaks_read_the_same_and_break_identifiers() -> None:
    text = soft_breaks("Standard_ND96isr_H100_v5")
    assert text.replace(SOFT_BREAK, "") == "Standard_ND96isr_H100_v5"
    assert words(text) == ["Standard_", "ND96isr_", "H100_", "v5"]
    assert words(soft_breaks("p5.48xlarge")) == ["p5.", "48xlarge"]
    assert words("never (127%)") == ["never", "(127%)"]


def test_filling_a_table_cell_by_cell_fits_it_once(qtbot: QtBot, monkeypatch) -> None:
    """Row changes refit once the event loop is back: 100 setItem calls are not 100 fits (each
    measures every cell)."""
    from desktopapp.ui.common import table_fit

    fits = []
    real = table_fit._ColumnFit._fit
    monkeypatch.setattr(
        table_fit._ColumnFit, "_fit", lambda self, room: (fits.append(room), real(self, room))
    )
    window, table = _window(qtbot, 900, 11.0)
    fit_columns(table, wrap=(0,))
    fits.clear()
    table.setRowCount(20)
    for r in range(20):
        for c in range(len(HEADERS)):
            table.setItem(r, c, QTableWidgetItem(f"row {r} column {c}"))
    qtbot.waitUntil(lambda: len(fits) >= 1)
    qtbot.wait(20)
    assert 1 <= len(fits) <= 3
    assert find_cut_cells(window) == []


def test_hardware_history_cuts_nothing_at_the_presentation_font(qtbot: QtBot) -> None:
    """The saved-runs list read "Matmul, Bandw…" and "compl…" in presentation mode."""
    from desktopapp.application.hardware import HistoryRow
    from desktopapp.ui.hardware.history import HistoryPanel

    panel = HistoryPanel()
    qtbot.addWidget(panel)
    font = QFont(panel.font())
    font.setPointSizeF(14.0)
    panel.setFont(font)
    device = "cpu · AMD EPYC 9654 96-Core Processor"
    suites = "Matmul, Mixed precision, Bandwidth"
    row = HistoryRow(1, "2026-11-29 00:52", device, suites, 0.0488, 0.132, 24, False, "", True)
    panel.set_rows([row, HistoryRow(**{**row.__dict__, "run_id": 2, "cancelled": True})])
    panel.resize(640, 500)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: find_cut_cells(panel) == [])
    assert panel.runs.rowHeight(0) > panel.runs.fontMetrics().height() * 1.5  # lists wrap


def test_monitor_cluster_headers_are_whole_in_presentation_mode(qtbot: QtBot, qapp) -> None:
    """Before any snapshot the cluster table is headers only; in presentation mode its fixed
    100 px sections cut "memory" and "pod / job"."""
    from desktopapp.ui.common import theme
    from desktopapp.ui.monitor.cluster import ClusterPanel

    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    try:
        panel = ClusterPanel()
        qtbot.addWidget(panel)
        panel.resize(1200, 500)
        panel.show()
        qtbot.waitExposed(panel)
        qtbot.waitUntil(lambda: find_cut_cells(panel) == [])
    finally:
        theme.apply_theme(qapp, "light", 1.0)
