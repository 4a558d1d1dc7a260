"""The tabs' page layout: a column of inputs on the left, results on the right, in a splitter.

:func:`scroll_area` makes the frameless scroll areas both sides use, :func:`scrolling_column`
stacks widgets into one, and :func:`two_panes` puts the two sides into a tab.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLayout, QScrollArea, QSplitter, QVBoxLayout, QWidget

from desktopapp.ui.common.theme import SPACING

ScrollBarPolicy = Qt.ScrollBarPolicy
# A widget, a (widget, stretch) pair or a layout, in a column's order.
ColumnItem = QWidget | tuple[QWidget, int] | QLayout


def scroll_area(
    area: QScrollArea | None = None,
    content: QWidget | None = None,
    horizontal: ScrollBarPolicy = ScrollBarPolicy.ScrollBarAlwaysOff,
) -> QScrollArea:
    """A frameless scroll area whose content follows its width (``area``: set up an existing
    one, such as a ``QScrollArea`` subclass; ``horizontal``: its horizontal bar)."""
    area = area if area is not None else QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(horizontal)
    if content is not None:
        area.setWidget(content)
    return area


def column_layout(widget: QWidget, spacing: int = SPACING) -> QVBoxLayout:
    """The vertical layout of a scrolling column (room on the right for the scroll bar)."""
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 8, 0)
    layout.setSpacing(spacing)
    return layout


def scrolling_column(
    items: Iterable[ColumnItem],
    *,
    end_stretch: int = 1,
    spacing: int = SPACING,
    horizontal: ScrollBarPolicy = ScrollBarPolicy.ScrollBarAlwaysOff,
) -> QScrollArea:
    """The items one under another in a scroll area, then a stretch of ``end_stretch``."""
    content = QWidget()
    layout = column_layout(content, spacing)
    for item in items:
        if isinstance(item, tuple):
            layout.addWidget(item[0], item[1])
        elif isinstance(item, QLayout):
            layout.addLayout(item)
        else:
            layout.addWidget(item)
    layout.addStretch(end_stretch)
    return scroll_area(content=content, horizontal=horizontal)


def two_panes(owner: QWidget, left: QWidget, right: QWidget, sizes: tuple[int, int]) -> QSplitter:
    """``left | right`` in a splitter filling ``owner``: the left keeps its width when the
    window grows, neither side can be collapsed away. Returns the splitter."""
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.setChildrenCollapsible(False)
    splitter.setHandleWidth(SPACING)
    splitter.addWidget(left)
    splitter.addWidget(right)
    splitter.setStretchFactor(0, 0)
    splitter.setStretchFactor(1, 1)
    splitter.setSizes(list(sizes))
    layout = QHBoxLayout(owner)
    layout.setContentsMargins(SPACING + 4, SPACING, SPACING, 4)
    layout.addWidget(splitter)
    return splitter
