"""Issue 25: presentation mode as a layout (plots keep a readable height and scaled ticks, the
Monitor reflows on a projector), dark-theme controls that can be seen, foldable panels and a
sort mark that does not cover its column's title."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QTableView
from pytestqt.qtbot import QtBot

from desktopapp.testing.sampler import FakeSampler
from desktopapp.ui.common import theme
from desktopapp.ui.common.section import Section
from desktopapp.ui.monitor import tab as tab_module
from desktopapp.ui.monitor.plot_card import PLOT_MIN_HEIGHT
from desktopapp.ui.monitor.tab import MonitorTab
from desktopapp.ui.state import AppState


@pytest.fixture
def presentation(qapp: QApplication) -> Iterator[None]:
    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    yield
    theme.apply_theme(qapp, "light", 1.0)


def test_dark_controls_keep_three_to_one() -> None:
    for palette in theme.THEMES.values():
        for background in ("surface", "window", "surface_alt"):
            assert theme.contrast_ratio(palette["control"], palette[background]) >= 3.0
            assert theme.contrast_ratio(palette["accent"], palette[background]) >= 3.0
    sheet = theme.style_sheet(1.0)
    assert "QRadioButton::indicator" in sheet and "QSlider::handle:horizontal" in sheet


def test_a_section_folds_to_its_title_and_back(qtbot: QtBot) -> None:
    section = Section("Idle GPU cost", "a note")
    body = QLabel("body")
    section.add_row("Price", body)
    qtbot.addWidget(section)
    section.show()
    section.set_foldable(True)
    assert section.folded and body.isHidden() and section.note_label.isHidden()
    assert section.title_label.isVisible()
    assert section.fold_button is not None
    section.fold_button.click()
    assert not section.folded and body.isVisible() and section.note_label.isVisible()


def test_annotations_and_titles_follow_the_scale(qtbot: QtBot, presentation: None) -> None:
    from desktopapp.ui.common.plots import annotation_html, make_plot, set_titles

    size = (theme.BASE_POINT_SIZE - 1.5) * theme.PRESENTATION_SCALE
    assert f"font-size:{size:.0f}pt" in annotation_html("pays back in month 39")
    plot = make_plot("Cost", "GPUs", "$")
    qtbot.addWidget(plot)
    assert plot.minimumHeight() >= 180 * theme.PRESENTATION_SCALE - 1
    set_titles(plot, "Cost vs GPUs", "GPUs", "$")
    title = str(plot.getPlotItem().titleLabel.text)
    assert f"font-size:{theme.BASE_POINT_SIZE * theme.PRESENTATION_SCALE:.1f}pt" in title


@pytest.fixture
def monitor(
    qtbot: QtBot, app_state: AppState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> MonitorTab:
    monkeypatch.setattr(tab_module, "WARM_UP_INTERVAL_S", 0.02)
    fake = FakeSampler(gpu_count=1)
    tab = MonitorTab(
        app_state,
        sampler_factory=lambda: fake,
        interval_s=0.02,
        store_path=tmp_path / "monitor.sqlite3",
    )
    qtbot.addWidget(tab)
    return tab


def test_monitor_on_a_projector_scrolls_and_keeps_readable_plots(
    qtbot: QtBot, presentation: None, monitor: MonitorTab
) -> None:
    tab = monitor
    tab.resize(1000, 560)  # 1024 × 640 less the window's menu, tabs and status bar
    tab.show()
    qtbot.waitExposed(tab)
    qtbot.waitUntil(lambda: tab.grid is not None and tab.live is not None, timeout=10000)
    qtbot.wait(100)
    assert tab.widgets.stacked  # the side column went under the plots
    assert tab.widgets.page_scroll.verticalScrollBar().maximum() > 0
    for plot in tab.grid.plots.values():
        assert plot.widget.height() >= PLOT_MIN_HEIGHT * theme.PRESENTATION_SCALE - 1
        tick = plot.item.getAxis("bottom").style["tickFont"]
        assert tick.pointSizeF() >= theme.BASE_POINT_SIZE  # ≥ body text in normal mode
    assert tab.live is not None
    for tile in tab.live.tiles:  # every reading whole, none cut to "2 c…"
        assert tile.width() >= tile.needed_width()
    tab.resize(1700, 900)
    qtbot.waitUntil(lambda: not tab.widgets.stacked)
    assert tab.widgets.side.scroll.widget() is tab.widgets.side.content


def test_the_sort_mark_is_part_of_the_title(qtbot: QtBot, monitor: MonitorTab) -> None:
    tab = monitor
    tab.resize(1300, 860)
    tab.show()
    qtbot.waitExposed(tab)
    view = next(v for v in tab.findChildren(QTableView) if hasattr(v.model(), "sort_mark"))
    model = view.model()
    assert not view.horizontalHeader().isSortIndicatorShown()
    view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
    title = model.headerData(1, Qt.Orientation.Horizontal)
    assert title.endswith(" ▼")
    assert not model.headerData(0, Qt.Orientation.Horizontal).endswith(("▲", "▼"))
