"""Nothing is cut off: the responsive containers in ui/common reflow, the geometry check finds
cut widgets, and the main window passes it on every tab at 1024×640, 1280×800 and 1440×900, in
normal and presentation mode, in both themes.

Cases that fail today are marked ``xfail(strict=False)`` with the widget that is cut, so the
list shows what the tab views still need (KNOWN_CUT below); a case that starts passing is
reported as XPASS. ``DESKTOPAPP_GEOMETRY_SHOTS=DIR`` saves a screenshot of every window case
into DIR for a person to look at.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme
from desktopapp.ui.common.geometry import (
    ELIDED_PROPERTY,
    HSCROLL_ALLOWED_PROPERTY,
    NO_HSCROLL_FROM_PX,
    assert_nothing_cut,
    find_cut,
)
from desktopapp.ui.common.layouts import (
    FlowGridLayout,
    StackingSplitter,
    card_grid,
    plot_row,
    scroll_area,
    stack_when_narrow,
)
from desktopapp.ui.common.result_card import ResultCard


@pytest.fixture
def appearance(qapp: QApplication) -> Iterator[object]:
    """Call with (theme, scale) to restyle the application; light at 1.0 afterwards."""

    def use(name: str, scale: float = 1.0) -> None:
        theme.apply_theme(qapp, name, scale)

    theme.apply_theme(qapp, "light", 1.0)
    yield use
    theme.apply_theme(qapp, "light", 1.0)


def _settle(widget: QWidget, size: tuple[int, int]) -> None:
    widget.resize(*size)
    widget.show()
    for _ in range(3):
        QApplication.processEvents()


def _cards(count: int = 4, value: str = "$1,234,567") -> list[ResultCard]:
    cards = [ResultCard(f"Card {i}") for i in range(count)]
    for card in cards:
        card.set_formatted(value)
    return cards


def _page(inner: QWidget) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.addWidget(inner)
    layout.addStretch(1)
    return page


# --- card grid ----------------------------------------------------------------------------------


def _rows(cards: list[ResultCard]) -> int:
    return len({card.y() for card in cards})


def _columns(cards: list[ResultCard]) -> int:
    return len({card.x() for card in cards})


@pytest.mark.parametrize(("width", "columns", "rows"), [(1200, 4, 1), (700, 2, 2), (320, 1, 4)])
def test_card_grid_wraps_four_then_two_by_two_then_one_column(
    qtbot: QtBot, appearance, width: int, columns: int, rows: int
) -> None:
    cards = _cards()
    page = _page(card_grid(cards))
    qtbot.addWidget(page)
    _settle(page, (width, 600))
    assert (_columns(cards), _rows(cards)) == (columns, rows)
    assert_nothing_cut(page)
    # Rows do not overlap and the grid is as tall as its rows.
    tops = sorted({c.y() for c in cards})
    assert all(b - a >= cards[0].height() for a, b in itertools.pairwise(tops))


def test_card_grid_reflows_when_fonts_grow(qtbot: QtBot, appearance) -> None:
    """Presentation fonts make each card's size hint wider: the grid takes fewer columns
    instead of squeezing the values."""
    cards = _cards()
    grid = card_grid(cards)
    page = _page(grid)
    qtbot.addWidget(page)
    need_small = cards[0].sizeHint().width()
    width = 4 * need_small + 3 * grid.layout().spacing() + 30  # 4 fit at 1.0 only
    _settle(page, (width, 600))
    assert _columns(cards) == 4
    appearance("light", theme.PRESENTATION_SCALE)
    _settle(page, (width, 600))
    assert cards[0].sizeHint().width() > need_small
    assert _columns(cards) == 2
    assert_nothing_cut(page)
    appearance("light", 1.0)
    _settle(page, (width, 600))
    assert _columns(cards) == 4


def test_card_grid_recovers_after_a_very_wide_value(qtbot: QtBot, appearance) -> None:
    cards = _cards()
    page = _page(card_grid(cards))
    qtbot.addWidget(page)
    _settle(page, (1100, 600))
    assert _columns(cards) == 4
    cards[1].set_formatted("198,000,000,000,000,023,521,656,832 YFLOP")
    _settle(page, (1100, 600))
    assert _columns(cards) < 4
    cards[1].set_formatted("$12")
    _settle(page, (1100, 600))
    assert _columns(cards) == 4


def test_flow_grid_height_follows_width(qtbot: QtBot, appearance) -> None:
    cards = _cards()
    grid = card_grid(cards)
    qtbot.addWidget(grid)
    layout = grid.layout()
    assert isinstance(layout, FlowGridLayout)
    assert layout.hasHeightForWidth()
    wide, narrow = layout.heightForWidth(1400), layout.heightForWidth(300)
    assert narrow > 3 * wide
    assert layout.minimumSize().width() < layout.sizeHint().width()
    assert layout.columns_for(10_000) == 4 and layout.columns_for(50) == 1


def test_flow_grid_rejects_bad_column_choices() -> None:
    with pytest.raises(ValueError, match="columns"):
        FlowGridLayout(None, (0,))


def test_plot_row_stacks_plots_when_narrow(qtbot: QtBot, appearance) -> None:
    plots = [QLabel(f"plot {i}") for i in range(3)]
    for plot in plots:
        plot.setMinimumHeight(120)
    row = plot_row(plots, min_plot_width=300)
    page = _page(row)
    qtbot.addWidget(page)
    _settle(page, (1100, 700))
    assert len({p.y() for p in plots}) == 1 and len({p.x() for p in plots}) == 3
    _settle(page, (700, 700))
    assert len({p.x() for p in plots}) == 1 and len({p.y() for p in plots}) == 3
    assert_nothing_cut(page)


def test_plot_row_needs_more_width_at_a_larger_font(qtbot: QtBot, appearance) -> None:
    """Presentation mode draws axes and titles larger: two plots side by side at 640 px
    stack at 1.35× the base font (a title was cut at the plot's right edge)."""
    from PySide6.QtGui import QFont

    from desktopapp.ui.common.theme import BASE_POINT_SIZE

    plots = [QLabel(f"plot {i}") for i in range(2)]
    row = plot_row(plots, min_plot_width=300)
    page = _page(row)
    qtbot.addWidget(page)
    _settle(page, (680, 500))
    assert len({p.y() for p in plots}) == 1  # side by side at the base font
    font = QFont(row.font())
    font.setPointSizeF(BASE_POINT_SIZE * 1.35)
    row.setFont(font)
    row.layout().invalidate()
    _settle(page, (681, 500))
    assert len({p.x() for p in plots}) == 1  # one under the other


# --- stacking splitter ----------------------------------------------------------------------------


def _pane(min_width: int) -> QWidget:
    pane = QWidget()
    pane.setMinimumWidth(min_width)
    return pane


def test_splitter_stacks_when_panes_do_not_fit_and_unstacks_when_they_do(
    qtbot: QtBot, appearance
) -> None:
    splitter = stack_when_narrow([_pane(400), _pane(500)])
    qtbot.addWidget(splitter)
    assert isinstance(splitter, StackingSplitter)
    _settle(splitter, (1200, 600))
    assert not splitter.is_stacked()
    _settle(splitter, (800, 600))
    assert splitter.is_stacked()
    assert splitter.orientation() == Qt.Orientation.Vertical
    assert splitter.minimumSizeHint().width() <= 500
    _settle(splitter, (1200, 600))
    assert not splitter.is_stacked()


def test_splitter_restacks_when_a_pane_grows(qtbot: QtBot, appearance) -> None:
    left, right = _pane(300), _pane(300)
    splitter = stack_when_narrow([left, right])
    qtbot.addWidget(splitter)
    _settle(splitter, (900, 600))
    assert not splitter.is_stacked()
    right.setMinimumWidth(700)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
    _settle(splitter, (900, 600))
    assert splitter.is_stacked()


# --- the geometry check itself --------------------------------------------------------------------


def test_geometry_check_finds_a_squeezed_button_and_label(qtbot: QtBot, appearance) -> None:
    window = QWidget()
    row = QHBoxLayout(window)
    button = QPushButton("Session")
    button.setFixedWidth(30)
    label = QLabel("Owning pays off above 37% utilization")
    label.setFixedWidth(60)
    elided = QLabel("Apple M3 Max with a very long name")
    elided.setFixedWidth(60)
    elided.setProperty(ELIDED_PROPERTY, True)
    for widget in (button, label, elided):
        row.addWidget(widget)
    qtbot.addWidget(window)
    _settle(window, (400, 100))
    problems = find_cut(window)
    kinds = {(p.kind, p.widget.split(" ")[0]) for p in problems}
    assert ("narrow-text", "QPushButton") in kinds
    assert ("narrow-text", "QLabel") in kinds
    assert not any("M3 Max" in p.widget for p in problems)
    with pytest.raises(AssertionError, match="Session"):
        assert_nothing_cut(window)


def test_geometry_check_finds_a_wrapped_label_squeezed_in_height(qtbot: QtBot, appearance) -> None:
    window = QWidget()
    detail = QLabel("per useful hour: Vast.ai H100 SXM marketplace · On-demand, 48 months")
    detail.setWordWrap(True)
    detail.setFixedSize(120, 18)  # one line's height for three lines of text
    QVBoxLayout(window).addWidget(detail)
    qtbot.addWidget(window)
    _settle(window, (300, 200))
    problems = find_cut(window)
    assert [p.kind for p in problems] == ["short-text"]
    detail.setFixedSize(120, detail.heightForWidth(120))
    assert find_cut(window) == []


def test_geometry_check_finds_content_past_the_right_edge(qtbot: QtBot, appearance) -> None:
    window = QWidget()
    wide = QLabel("wide", window)
    wide.setGeometry(300, 10, 200, 20)
    qtbot.addWidget(window)
    _settle(window, (400, 100))
    wide.setGeometry(300, 10, 200, 20)  # past the 400 px edge, as a broken layout leaves it
    problems = find_cut(window)
    assert [p.kind for p in problems] == ["past-edge"]
    assert "wide" in problems[0].widget


def test_geometry_check_finds_sideways_scrolling_from_1280_px(qtbot: QtBot, appearance) -> None:
    content = QWidget()
    content.setMinimumWidth(2000)
    area = scroll_area(content=content, horizontal=Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    window = QWidget()
    QVBoxLayout(window).addWidget(area)
    qtbot.addWidget(window)
    _settle(window, (1300, 400))
    assert [p.kind for p in find_cut(window)] == ["hscroll"]
    assert find_cut(window, no_hscroll_from_px=1400) == []  # narrower: scrolling is the way
    area.setProperty(HSCROLL_ALLOWED_PROPERTY, True)
    assert find_cut(window) == []


def test_geometry_check_passes_a_tidy_window(qtbot: QtBot, appearance) -> None:
    content = QWidget()
    layout = QVBoxLayout(content)
    layout.addWidget(QLabel("Rent or buy?"))
    layout.addWidget(QPushButton("Use in estimates"))
    window = QWidget()
    QVBoxLayout(window).addWidget(QScrollArea())
    window.layout().addWidget(content)
    qtbot.addWidget(window)
    _settle(window, (600, 400))
    assert_nothing_cut(window)


# --- the main window, every tab -------------------------------------------------------------------

TABS = ("estimate", "cost", "hardware", "monitor")
SIZES = ((1024, 640), (1280, 800), (1440, 900))
MODES = ("normal", "presentation")
THEMES = ("light", "dark")

# What is cut today, per (tab, size, mode): the first widget named is the one a person notices.
# Empty since 2026-11-26 (the Workload tab's panes stack when they do not fit side by side);
# a new entry needs a reason and an issue.
KNOWN_CUT: dict[tuple[str, str, str], str] = {}

# Tabs whose panes stack when they do not fit side by side: they never scroll sideways, not
# even at 1024 px with presentation fonts (issue 16). The others may from below
# NO_HSCROLL_FROM_PX (1280 px).
NO_HSCROLL_AT_ANY_SIZE = frozenset({"estimate", "cost"})


def _case_id(tab: str, size: tuple[int, int], mode: str, name: str) -> str:
    return f"{tab}-{size[0]}x{size[1]}-{mode}-{name}"


def _window_cases() -> list[object]:
    cases = []
    for tab in TABS:
        for size in SIZES:
            for mode in MODES:
                for name in THEMES:
                    marks = []
                    reason = KNOWN_CUT.get((tab, f"{size[0]}x{size[1]}", mode))
                    if reason:
                        marks.append(pytest.mark.xfail(strict=False, reason=reason))
                    cases.append(
                        pytest.param(
                            tab, size, mode, name, marks=marks, id=_case_id(tab, size, mode, name)
                        )
                    )
    return cases


@pytest.fixture
def main_window(qtbot: QtBot, appearance, isolated_home) -> Iterator[object]:
    from desktopapp.ui.main_window import MainWindow

    windows: list[MainWindow] = []

    def open_window(tab: str, size: tuple[int, int], mode: str, name: str) -> MainWindow:
        window = MainWindow(initial_tab=tab, remember=False, theme_mode=name)
        qtbot.addWidget(window)
        windows.append(window)
        window.resize(*size)
        window.show()
        if mode == "presentation":
            # As ``desktopapp --presentation --size WxH`` does: presentation fonts and plots
            # at a chosen window size instead of the (offscreen) full screen.
            window.set_presentation(True)
            window.showNormal()
            window.resize(*size)
        from desktopapp.app import wait_until_ready

        assert wait_until_ready(window, 30.0), f"the {tab} tab did not report ready"
        for _ in range(3):
            QApplication.processEvents()
        return window

    yield open_window
    for window in windows:
        window.close()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


@pytest.mark.parametrize(("tab", "size", "mode", "name"), _window_cases())
def test_main_window_cuts_nothing_off(
    main_window, tab: str, size: tuple[int, int], mode: str, name: str
) -> None:
    window = main_window(tab, size, mode, name)
    assert window.size() == QSize(*size)
    assert window.current_tab_name() == tab
    assert window.is_presenting() == (mode == "presentation")
    assert theme.current_theme() == name
    shots = os.environ.get("DESKTOPAPP_GEOMETRY_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(shots) / f"{_case_id(tab, size, mode, name)}.png"), "PNG")
    assert_nothing_cut(window, 0 if tab in NO_HSCROLL_AT_ANY_SIZE else NO_HSCROLL_FROM_PX)


def test_result_card_grows_to_fit_a_wrapped_detail(qtbot: QtBot, appearance) -> None:
    """A card in a row keeps its whole detail when the detail wraps (narrow window,
    presentation fonts) instead of cutting it to half a line."""
    appearance("light", theme.PRESENTATION_SCALE)
    cards = _cards(4, "$1.56")
    for card in cards:
        card.set_formatted("$1.56", "per useful hour: Vast.ai H100 SXM marketplace · On-demand")
    window = QWidget()
    column = QVBoxLayout(window)
    row = QHBoxLayout()
    for card in cards:
        row.addWidget(card, 1)
    column.addLayout(row)
    column.addStretch(1)
    qtbot.addWidget(window)
    _settle(window, (900, 500))
    assert_nothing_cut(window)
    assert cards[0].height() >= cards[0].heightForWidth(cards[0].width()) - 2


def test_flow_grid_nested_in_a_section_reflows(qtbot: QtBot, appearance) -> None:
    """The drop-in for a tab's card row: ``section.add(flow_grid(cards))``."""
    from desktopapp.ui.common.layouts import flow_grid
    from desktopapp.ui.common.section import Section

    cards = _cards()
    for card in cards:
        card.set_formatted("$1.56", "per useful hour: Vast.ai H100 SXM marketplace · On-demand")
    section = Section("Rent or buy?")
    section.add(flow_grid(cards))
    page = _page(section)
    qtbot.addWidget(page)
    _settle(page, (1300, 700))
    assert (_columns(cards), _rows(cards)) == (4, 1)
    _settle(page, (620, 700))
    assert (_columns(cards), _rows(cards)) == (2, 2)
    assert_nothing_cut(page)
    _settle(page, (330, 900))
    assert (_columns(cards), _rows(cards)) == (1, 4)
    assert_nothing_cut(page)


def test_stacked_panes_share_the_height(qtbot: QtBot) -> None:
    """Stacked, the lower pane gets half the height, not the sliver left by the widths."""
    from PySide6.QtWidgets import QLabel, QScrollArea

    from desktopapp.ui.common.layouts import stack_when_narrow

    wide = QScrollArea()
    wide.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    wide.setWidgetResizable(True)
    content = QLabel("x")
    content.setMinimumWidth(700)
    wide.setWidget(content)
    other = QLabel("results")
    other.setMinimumWidth(400)
    splitter = stack_when_narrow([wide, other])
    qtbot.addWidget(splitter)
    splitter.setSizes([300, 900])
    splitter.resize(1300, 600)
    splitter.show()
    qtbot.waitUntil(lambda: not splitter.is_stacked() and splitter.sizes()[0] >= 700)
    splitter.resize(900, 600)  # 700 + 400 no longer fit
    qtbot.waitUntil(splitter.is_stacked)
    top, bottom = splitter.sizes()
    assert abs(top - bottom) <= 0.1 * (top + bottom)


def test_side_by_side_panes_are_laid_out_once_at_their_minimum_widths(qtbot: QtBot) -> None:
    """Sizes asked for before the first show that leave a pane under its minimum width are
    raised before the pane is shown: it is never shown (and laid out) at the narrower width
    first (a second full layout of the results column cost the Workload tab a tenth of a
    second at start-up). As in a tab: the panes are built inside an already shown window."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QLabel

    from desktopapp.ui.common.layouts import scrolling_column, two_panes

    class Widths(QObject):
        """The widths a pane is shown and laid out at."""

        def __init__(self) -> None:
            super().__init__()
            self.seen: list[int] = []

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            pane = watched
            assert isinstance(pane, QWidget)
            if event.type() == QEvent.Type.Show or (
                event.type() == QEvent.Type.Resize and pane.isVisible()
            ):
                self.seen.append(pane.width())
            return False

    window = QWidget()
    qtbot.addWidget(window)
    QVBoxLayout(window)
    window.resize(1300, 600)
    window.show()
    QApplication.processEvents()
    tab = QWidget(window)
    inputs = scrolling_column([QLabel("an input label that sets a width " * 3)])
    splitter = two_panes(tab, inputs, QLabel("results"), (300, 900), stacking=True)
    assert isinstance(splitter, StackingSplitter)
    need = splitter._min_width(inputs)
    assert need > 300
    widths = Widths()
    inputs.installEventFilter(widths)
    layout = window.layout()
    assert layout is not None
    layout.addWidget(tab)
    for _ in range(3):
        QApplication.processEvents()
    assert not splitter.is_stacked()
    assert splitter.sizes()[0] >= need
    assert widths.seen and min(widths.seen) >= need, (need, widths.seen)
