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


def test_a_wrapped_cell_is_drawn_whole_at_every_width(qtbot: QtBot, qapp) -> None:
    """Qt sizes a row by the item's size hint, which wraps the text in the column less the
    style's text margins; a style sheet's item padding (the Hardware tab's 8 px each side)
    draws it in a narrower rectangle. In a window a few
    pixels wide, a suite name that fits one line by the hint was drawn on two and lost the
    second: "Bandwidth · device copy" with 245 px of column (233 px of text, 229 px as drawn)
    in the readability check, on a loaded machine whose slower figures were wider. Every
    width, one pixel at a time, across the one where the name starts to wrap."""
    from desktopapp.devices.bench.core import BenchResult
    from desktopapp.ui.common import theme
    from desktopapp.ui.hardware.bench_panel import ResultsModel, results_table
    from desktopapp.ui.hardware.widgets import hardware_style_sheet

    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    try:
        model = ResultsModel()
        table = results_table(model)
        window = QWidget()
        qtbot.addWidget(window)
        window.setStyleSheet(hardware_style_sheet())  # the tab's: 8 px item padding each side
        QVBoxLayout(window).addWidget(table)
        model.set_results(
            [
                BenchResult("matmul", "cpu", "fp32", 128, 0.0451, 93e-6, 0.166, 27.0),
                BenchResult(
                    "bandwidth", "cpu", "uint8", 128 << 20, None, 0.036, None, None,
                    variant="device copy", metric="GB/s", value=7.46,
                ),
            ]
        )  # fmt: skip
        window.resize(1400, 400)
        window.show()
        qtbot.waitExposed(window)
        one_line = table.rowHeight(1)
        wraps = _narrow_until(qtbot, window, table, lambda: table.rowHeight(1) > one_line)
        cut = []
        for width in range(wraps + 40, wraps - 20, -1):
            window.resize(width, 400)
            qtbot.wait(1)
            cut += [f"{width} px: {p}" for p in find_cut_cells(window)]
        assert cut == []
    finally:
        theme.apply_theme(qapp, "light", 1.0)


def test_process_and_user_names_of_any_length_elide_whole_in_their_tooltip(qtbot: QtBot) -> None:
    """The Monitor's process table failed the layout check at 1024×640 on a machine running a
    process named "memfd:sealed-91" (wider than the 82 px its Process column had): the check
    read the machine's own process list. Names of processes and users can be of any length; the
    table keeps its widths between refreshes, so such cells elide with the whole name in their
    tooltip, and the check passes over them (not over the headers or the figures)."""
    from desktopapp.devices.top_processes import HostProcess
    from desktopapp.ui.common.geometry import ELIDED_COLUMNS_PROPERTY
    from desktopapp.ui.monitor.tables import HOST_PROCESS_COLUMNS, RecordModel, make_table

    model = RecordModel(HOST_PROCESS_COLUMNS)
    name = "a-process-with-a-very-long-name-indeed-longer-than-any-column-here"
    user = "systemd-timesync-and-more"
    model.set_rows([HostProcess(4242, name, user, 12.5, 3.5e9, 10.0)])
    table = make_table(model, stretch_column=2)
    window = QWidget()
    qtbot.addWidget(window)
    QVBoxLayout(window).addWidget(table)
    window.resize(760, 300)
    window.show()
    qtbot.waitExposed(window)
    texts = [model.columns[c].title for c in table.property(ELIDED_COLUMNS_PROPERTY)]
    assert texts == ["User", "Process"]
    process = model.index(0, 2)
    assert table.columnWidth(2) < table.fontMetrics().horizontalAdvance(name)  # it is cut short
    assert model.data(process, Qt.ItemDataRole.ToolTipRole) == name
    assert model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole) == user
    assert find_cut_cells(window) == []
    # a figure too wide for its column is still found
    model.set_rows([HostProcess(4242, name, user, 12_345_678.0, 3.5e9, 10.0)])
    table.setColumnWidth(3, 56)
    assert [p.widget for p in find_cut_cells(window)] == ["QTableView row 1 '12345678%'"], (
        find_cut_cells(window)
    )
