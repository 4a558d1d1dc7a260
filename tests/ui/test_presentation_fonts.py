"""Presentation mode switched on in a running window (F11, what a presenter does) enlarges
every text, not only what the application style sheet styles.

Widget-local style sheets with a fixed ``font-size`` (the Hardware tab's device titles, chips,
peak tiles and table headers; the Monitor's status pill and verdict; the Cost tab's
recommendation and plot captions) used to keep their normal-mode size, so after F11 a
heading was smaller than the body text under it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme
from desktopapp.ui.main_window import MainWindow

# 9 pt × 1.4 is 12.6 pt; a size that a style sheet rounds still grows by more than this.
MIN_GROWTH = 1.3
_SPAN_PT = re.compile(r'<span style="[^"]*font-size:\s*([\d.]+)pt')


@pytest.fixture
def open_window(
    qtbot: QtBot, qapp: QApplication, isolated_home: Path
) -> Iterator[Callable[[str], MainWindow]]:
    theme.apply_theme(qapp, "light", 1.0)  # as the app starts (desktopapp.app.make_app)

    def make(tab: str) -> MainWindow:
        from desktopapp.app import wait_until_ready

        window = MainWindow(initial_tab=tab, remember=False, theme_mode="light")
        qtbot.addWidget(window)
        window.resize(1440, 900)
        window.show()
        qtbot.waitExposed(window)
        assert wait_until_ready(window, 60.0), f"the {tab} tab did not report ready"
        QApplication.processEvents()
        return window

    yield make
    theme.apply_theme(qapp, "light", 1.0)


def _text_sizes(root: QWidget) -> dict[int, tuple[str, float]]:
    """Point size of every visible label and button with text under ``root``, by identity."""
    sizes = {}
    for widget in root.findChildren(QWidget):
        if isinstance(widget, QLabel | QAbstractButton) and widget.isVisible() and widget.text():
            widget.ensurePolished()
            name = f"{type(widget).__name__}#{widget.objectName()} {widget.text()[:40]!r}"
            sizes[id(widget)] = (name, widget.font().pointSizeF())
    return sizes


def _present(window: MainWindow) -> None:
    window.set_presentation(True)
    window.showNormal()
    window.resize(1440, 900)
    for _ in range(3):
        QApplication.processEvents()


@pytest.mark.parametrize("tab", ["estimate", "cost", "hardware", "monitor"])
def test_f11_enlarges_every_text_of_the_tab(
    open_window: Callable[[str], MainWindow], tab: str
) -> None:
    window = open_window(tab)
    page = window.tab_content(tab)
    assert page is not None
    before = _text_sizes(page)
    assert before, "no text found"
    _present(window)
    after = _text_sizes(page)
    small = [
        f"{name}: {size:.1f} -> {after[key][1]:.1f} pt"
        for key, (name, size) in before.items()
        if key in after and after[key][1] < size * MIN_GROWTH
    ]
    assert not small, "\n".join(small)


def test_headings_stay_larger_than_body_text_after_f11(
    open_window: Callable[[str], MainWindow],
) -> None:
    window = open_window("hardware")
    _present(window)
    page = window.tab_content("hardware")
    assert page is not None
    body = QApplication.font().pointSizeF()
    assert body == pytest.approx(theme.BASE_POINT_SIZE * theme.PRESENTATION_SCALE)
    titles = [w for w in page.findChildren(QLabel) if w.objectName() == "DeviceTitle"]
    assert titles and all(w.font().pointSizeF() > body for w in titles)


def test_cost_recommendation_and_plot_captions_follow_f11(
    open_window: Callable[[str], MainWindow],
) -> None:
    window = open_window("cost")
    page = window.tab_content("cost")
    assert page is not None
    recommendation = page.findChild(QLabel, "Recommendation")
    assert recommendation is not None and recommendation.text()
    plots = _plots_panel(page)
    _present(window)
    body = QApplication.font().pointSizeF()
    assert recommendation.font().pointSizeF() > body  # still the largest text of the panel
    captions = [
        float(size)
        for plot in (plots.curve_plot, plots.cumulative_plot)
        for item in plot.getPlotItem().items
        if hasattr(item, "textItem")
        for size in _SPAN_PT.findall(item.textItem.toHtml())
        if item.textItem.toPlainText().strip()
    ]
    assert captions
    wanted = (theme.BASE_POINT_SIZE - 1.5) * theme.PRESENTATION_SCALE
    assert min(captions) >= round(wanted) - 0.5


def _plots_panel(page: QWidget) -> Any:
    from desktopapp.ui.cost.plots import PlotsPanel

    panels = page.findChildren(PlotsPanel)
    assert len(panels) == 1
    return panels[0]


@pytest.mark.parametrize(
    ("size", "presenting"),
    [((1440, 900), True), ((1024, 640), True), ((1024, 640), False), ((1400, 900), False)],
)
def test_cost_demand_source_shows_its_longest_choice_whole(
    open_window: Callable[[str], MainWindow], size: tuple[int, int], presenting: bool
) -> None:
    from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

    window = open_window("cost")
    if presenting:
        _present(window)
    window.resize(*size)
    QApplication.processEvents()
    page = window.tab_content("cost")
    combo = page.inputs.demand_source if page is not None else None
    assert isinstance(combo, QComboBox) and combo.count() >= 3
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    metrics = combo.fontMetrics()
    cut = [
        combo.itemText(i)
        for i in range(combo.count())
        if metrics.horizontalAdvance(combo.itemText(i)) > field.width()
    ]
    assert not cut, f"{field.width()} px shows only part of {cut}"


@pytest.mark.parametrize("size", [(1440, 900), (1024, 640)])
@pytest.mark.parametrize("tab", ["cost", "hardware", "monitor"])
def test_plot_titles_fit_their_plots_in_presentation_mode(
    open_window: Callable[[str], MainWindow], tab: str, size: tuple[int, int]
) -> None:
    """A plot's title is one line that pyqtgraph cuts at the plot's edge ("Cost per useful
    GPU-hour vs utiliza" on a projector)."""
    from desktopapp.ui.common.appearance import plot_widgets

    window = open_window(tab)
    _present(window)
    window.resize(*size)
    for _ in range(3):
        QApplication.processEvents()
    page = window.tab_content(tab)
    assert page is not None
    cut = []
    for plot in plot_widgets(page):
        if not plot.isVisible():
            continue
        title = plot.getPlotItem().titleLabel  # type: ignore[attr-defined]
        text = title.item.toPlainText()
        needed = title.item.boundingRect().width()
        room = min(title.geometry().width(), plot.width())  # the title's slot in the plot
        if text and needed > room:
            cut.append(f"{text!r}: {needed:.0f} > {room:.0f} px")
    assert not cut, "\n".join(cut)


def test_benchmark_legend_made_in_presentation_mode_reads_like_its_ticks(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """The throughput plot is made on the first result; made on a projector its legend was
    9 pt under 12 pt ticks and 14 pt body text."""
    from desktopapp.ui.hardware.bench_panel import ThroughputPlot

    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    try:
        holder = ThroughputPlot()
        qtbot.addWidget(holder)
        plot = holder._ensure_plot()
        legend = plot.getPlotItem().legend
        size = float(str(legend.opts["labelTextSize"]).removesuffix("pt"))
        tick = plot.getPlotItem().getAxis("bottom").style["tickFont"].pointSizeF()
        assert size >= theme.BASE_POINT_SIZE and size >= tick
    finally:
        theme.apply_theme(qapp, "light", 1.0)
