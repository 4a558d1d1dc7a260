"""ScrollColumn: a column's content joins its scroll area once the area is placed, so the
app-wide style sheet polishes the column once (ui.common.layouts)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProxyStyle,
    QScrollArea,
    QSplitter,
    QStyleFactory,
    QWidget,
)

from desktopapp.ui.common import theme
from desktopapp.ui.common.fields import InputsColumn
from desktopapp.ui.common.layouts import ScrollColumn, scroll_area, scrolling_column, two_panes


class _Repolishes(QProxyStyle):
    """Fusion, counting how often the watched widgets are unpolished: Qt unpolishes and
    polishes a polished widget again when its tree moves under a new parent."""

    def __init__(self) -> None:
        super().__init__(QStyleFactory.create("Fusion"))
        self.watched: list[QWidget] = []
        self.count = 0

    def unpolish(self, target: object) -> None:
        if any(target is widget for widget in self.watched):
            self.count += 1
        super().unpolish(target)  # type: ignore[call-overload]


@pytest.fixture
def repolishes(qapp: QApplication) -> Iterator[_Repolishes]:
    theme.apply_theme(qapp, "light", 1.0)  # the app-wide style sheet, as the app has it
    style = _Repolishes()
    qapp.setStyle(style)  # under the sheet, as Fusion is in the app
    yield style
    qapp.setStyle("Fusion")
    theme.apply_theme(qapp, "light", 1.0)


@pytest.fixture
def page(qtbot, repolishes) -> Iterator[QSplitter]:
    window = QWidget()
    splitter = QSplitter(window)
    QHBoxLayout(window).addWidget(splitter)
    qtbot.addWidget(window)
    window.resize(600, 400)
    window.show()
    qtbot.waitExposed(window)
    yield splitter
    window.close()


def _column_content() -> tuple[list[QWidget], QLabel]:
    label = QLabel("Parameters N")
    return [label, QLineEdit("110M"), QLabel("Tokens D")], label


def test_content_given_before_the_area_is_placed_waits_for_it(qtbot) -> None:
    area = ScrollColumn()
    content = QWidget()
    area.set_content(content)
    assert area.is_content_pending()
    assert area.widget() is content  # callers see it meanwhile
    assert QScrollArea.widget(area) is None
    holder = QWidget()
    qtbot.addWidget(holder)
    QHBoxLayout(holder).addWidget(area)
    assert not area.is_content_pending()
    assert QScrollArea.widget(area) is content
    assert area.widget() is content


def test_an_area_shown_on_its_own_takes_its_content(qtbot) -> None:
    area = ScrollColumn()
    content = QWidget()
    area.set_content(content)
    qtbot.addWidget(area)
    area.show()
    assert QScrollArea.widget(area) is content
    holder = QWidget()
    qtbot.addWidget(holder)
    placed = ScrollColumn(holder)
    other = QWidget()
    placed.set_content(other)  # already placed: at once
    assert QScrollArea.widget(placed) is other


def test_a_placed_column_is_polished_once(page: QSplitter, repolishes, qtbot) -> None:
    items, label = _column_content()
    repolishes.watched = [label]
    page.addWidget(scrolling_column(items))
    qtbot.wait(20)
    assert label.isVisible()
    assert repolishes.count == 0

    # the old order, content set while the area had no parent, polished it twice
    items, old_label = _column_content()
    content = QWidget()
    layout = QHBoxLayout(content)
    for item in items:
        layout.addWidget(item)
    repolishes.watched = [old_label]
    page.addWidget(scroll_area(content=content))
    qtbot.wait(20)
    assert old_label.isVisible()
    assert repolishes.count == 1


def test_a_tabs_input_column_joins_its_page_before_its_cards(repolishes, qtbot) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    inputs = InputsColumn()
    label = QLabel("Accelerator")
    inputs.column.addWidget(label)
    inputs.finish(minimum_width=200)
    assert inputs.is_content_pending()
    result = QLabel("Training estimate")
    repolishes.watched = [label, result]
    results = scrolling_column([result])
    two_panes(owner, inputs, results, (200, 300))
    owner.show()
    qtbot.waitExposed(owner)
    assert QScrollArea.widget(inputs) is inputs.content
    assert not results.is_content_pending()
    assert label.isVisible() and result.isVisible()
    assert repolishes.count == 0
    owner.close()
