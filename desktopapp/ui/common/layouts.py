"""The tabs' page layout: a column of inputs on the left, results on the right, in a splitter.

:func:`scroll_area` makes the frameless scroll areas both sides use, :func:`scrolling_column`
stacks widgets into one, and :func:`two_panes` puts the two sides into a tab.

Responsive pieces, so results reflow instead of being cut off in narrow windows and in
presentation mode (larger fonts make every size hint larger, and these follow):

- :class:`FlowGridLayout` / :func:`card_grid`: result cards in 4 columns, 2×2 when 4 do not
  fit, 1 column when 2 do not (any column choices, widest first);
- :func:`plot_row`: plots side by side while each keeps a readable width, stacked otherwise;
- :class:`StackingSplitter`: a side-by-side splitter that turns vertical when its panes' minimum
  widths no longer fit next to each other, and back when they do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLayout,
    QLayoutItem,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktopapp.ui.common.theme import BASE_POINT_SIZE, INNER_SPACING, SPACING

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


class ScrollColumn(QScrollArea):
    """A scroll area that takes its content once it is placed (has a parent) or is shown.

    Under the app-wide style sheet, a widget tree that has been polished and then moves under
    a new parent is polished again: Qt resolves the style of every widget in it once more.
    ``setWidget`` on a scroll area that has no parent yet polishes the whole column (the area
    reads its size hints); placing the area in its page then polished it a second time (in a
    test window, 300 labels and fields took 26-28 ms that way against 14-19 ms when the area
    was placed first; the Workload tab's two columns were built 15 ms sooner). Content given to
    :meth:`set_content` before the area is placed waits until then; :meth:`widget` returns it
    meanwhile."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pending: QWidget | None = None

    def set_content(self, content: QWidget) -> None:
        """``setWidget(content)`` now if the area is placed or shown, else once it is."""
        self._pending = content
        if self.parentWidget() is not None or self.isVisible():
            self._take_pending()

    def _take_pending(self) -> None:
        content, self._pending = self._pending, None
        if content is not None:
            self.setWidget(content)

    def widget(self) -> QWidget | None:
        """The content, also while it waits for the area to be placed."""
        return self._pending if self._pending is not None else super().widget()

    def is_content_pending(self) -> bool:
        return self._pending is not None

    def event(self, event: QEvent) -> bool:
        if self._pending is not None and (
            (event.type() == QEvent.Type.ParentChange and self.parentWidget() is not None)
            or event.type() == QEvent.Type.Show
        ):
            self._take_pending()
        return super().event(event)


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
) -> ScrollColumn:
    """The items one under another in a scroll area, then a stretch of ``end_stretch``; the
    area takes them once it is placed (:class:`ScrollColumn`)."""
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
    area = ScrollColumn()
    scroll_area(area, horizontal=horizontal)
    area.set_content(content)  # set once the area is placed (see ScrollColumn)
    return area


def two_panes(
    owner: QWidget,
    left: QWidget,
    right: QWidget,
    sizes: tuple[int, int],
    stacking: bool = False,
) -> QSplitter | StackingSplitter:
    """``left | right`` in a splitter filling ``owner``: the left keeps its width when the
    window grows, neither side can be collapsed away. With ``stacking`` the panes go one above
    the other when their minimum widths do not fit side by side (:class:`StackingSplitter`).
    Returns the splitter."""
    splitter: QSplitter | StackingSplitter = (
        StackingSplitter() if stacking else QSplitter(Qt.Orientation.Horizontal)
    )
    if isinstance(splitter, QSplitter):
        splitter.setChildrenCollapsible(False)
    splitter.setHandleWidth(SPACING)
    # The splitter joins the owner first and the panes then join once: a finished pane tree
    # moved into the owner's window has its fonts, palette and style resolved a second time.
    layout = QHBoxLayout(owner)
    layout.setContentsMargins(SPACING + 4, SPACING, SPACING, 4)
    layout.addWidget(splitter)
    splitter.addWidget(left)
    splitter.addWidget(right)
    splitter.setStretchFactor(0, 0)
    splitter.setStretchFactor(1, 1)
    splitter.setSizes(list(sizes))
    return splitter


# --- responsive ---------------------------------------------------------------------------------

CARD_COLUMNS: tuple[int, ...] = (4, 2, 1)
MIN_PLOT_WIDTH_PX = 300  # below this a plot's axes and title crowd; plots then stack


class FlowGridLayout(QLayout):
    """Items in a grid of ``columns[0]`` columns, or the next choice when the width does not
    give every item its size hint (``min_item_width``, when set, instead): 4 → 2 → 1.

    Every column is equally wide; a row is as tall as its tallest item (height-for-width
    aware, so word-wrapped details grow), extra height goes to rows with vertically expanding
    items. The layout's minimum width is one item's, so it never forces a window wider; its
    height follows the width (``hasHeightForWidth``), so scroll areas and sections size it
    right after a reflow.
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        columns: Sequence[int] = CARD_COLUMNS,
        spacing: int = INNER_SPACING + 2,
        min_item_width: int | None = None,
    ) -> None:
        super().__init__(parent)
        choices = sorted({int(c) for c in columns}, reverse=True)
        if not choices or choices[-1] < 1:
            raise ValueError(f"columns: must be whole numbers of at least 1, got {columns!r}")
        self._columns = tuple(choices) if choices[-1] == 1 else (*choices, 1)
        self._items: list[QLayoutItem] = []
        self._min_item_width = min_item_width
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    # QLayout's item protocol
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if 0 <= index < len(self._items):
            return self._items.pop(index)
        return None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _item_width(self, item: QLayoutItem) -> int:
        if self._min_item_width is not None:
            return max(self._scaled(self._min_item_width), item.minimumSize().width())
        return max(item.sizeHint().width(), item.minimumSize().width())

    def _scaled(self, pixels: int) -> int:
        """``pixels`` at the base font, grown with the font of the moment (presentation mode
        draws axes and titles larger, so a plot needs more width before it crowds)."""
        widget = self.parentWidget()
        size = widget.font().pointSizeF() if widget is not None else BASE_POINT_SIZE
        return round(pixels * max(1.0, size / BASE_POINT_SIZE))

    def _margins(self) -> tuple[int, int, int, int]:
        m = self.contentsMargins()
        return m.left(), m.top(), m.right(), m.bottom()

    def columns_for(self, width: int) -> int:
        """How many columns ``width`` pixels give (the first choice every item fits in)."""
        items = self._visible()
        if not items:
            return self._columns[0]
        left, _top, right, _bottom = self._margins()
        inner = width - left - right
        need = max(self._item_width(item) for item in items)
        for columns in self._columns:
            shown = min(columns, len(items)) if columns > 1 else 1
            if shown * need + (shown - 1) * self.spacing() <= inner:
                return columns
        return 1

    def columns(self) -> int:
        """Columns in use at the layout's current width."""
        return self.columns_for(self.geometry().width())

    def minimumSize(self) -> QSize:
        left, top, right, bottom = self._margins()
        items = self._visible()
        width = max((item.minimumSize().width() for item in items), default=0)
        height = max((item.minimumSize().height() for item in items), default=0)
        return QSize(width + left + right, height + top + bottom)

    def sizeHint(self) -> QSize:
        left, top, right, bottom = self._margins()
        items = self._visible()
        if not items:
            return QSize(left + right, top + bottom)
        columns = min(self._columns[0], len(items))
        width = columns * max(self._item_width(i) for i in items) + (columns - 1) * self.spacing()
        return QSize(width + left + right, self.heightForWidth(width + left + right))

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def _arrange(self, rect: QRect, apply: bool) -> int:
        left, top, right, bottom = self._margins()
        items = self._visible()
        if not items:
            return top + bottom
        columns = self.columns_for(rect.width())
        inner = max(0, rect.width() - left - right)
        space = self.spacing()
        column_width = max(1, (inner - (columns - 1) * space) // columns)
        rows = [items[i : i + columns] for i in range(0, len(items), columns)]
        heights = []
        for row in rows:
            heights.append(
                max(
                    item.heightForWidth(column_width)
                    if item.hasHeightForWidth()
                    else item.sizeHint().height()
                    for item in row
                )
            )
        natural = sum(heights) + space * (len(rows) - 1) + top + bottom
        if apply:
            extra = max(0, rect.height() - natural)
            growing = [
                r
                for r, row in enumerate(rows)
                if any(item.expandingDirections() & Qt.Orientation.Vertical for item in row)
            ]
            if extra and growing:
                for r in growing:
                    heights[r] += extra // len(growing)
            y = rect.y() + top
            for row, height in zip(rows, heights, strict=True):
                x = rect.x() + left
                for item in row:
                    item.setGeometry(QRect(QPoint(x, y), QSize(column_width, height)))
                    x += column_width + space
                y += height + space
        return natural


def flow_grid(
    widgets: Iterable[QWidget],
    columns: Sequence[int] = CARD_COLUMNS,
    min_item_width: int | None = None,
) -> FlowGridLayout:
    """``widgets`` in a :class:`FlowGridLayout` to nest in another layout (``Section.add``):
    the drop-in for a ``QHBoxLayout`` row of result cards."""
    layout = FlowGridLayout(None, columns, min_item_width=min_item_width)
    for widget in widgets:
        layout.addWidget(widget)
    return layout


def card_grid(
    widgets: Iterable[QWidget],
    columns: Sequence[int] = CARD_COLUMNS,
    parent: QWidget | None = None,
) -> QWidget:
    """A widget holding ``widgets`` (result cards) in a :class:`FlowGridLayout`: 4 in a row,
    2×2 when narrower, one column when narrower still."""
    holder = QWidget(parent)
    layout = FlowGridLayout(holder, columns)
    for widget in widgets:
        layout.addWidget(widget)
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    policy.setHeightForWidth(True)
    holder.setSizePolicy(policy)
    return holder


def plot_row(
    plots: Iterable[QWidget],
    min_plot_width: int = MIN_PLOT_WIDTH_PX,
    parent: QWidget | None = None,
) -> QWidget:
    """Plots side by side while each gets ``min_plot_width`` px, else one under another."""
    items = list(plots)
    holder = QWidget(parent)
    layout = FlowGridLayout(holder, (max(1, len(items)), 1), min_item_width=min_plot_width)
    for plot in items:
        plot.setMinimumWidth(min(plot.minimumWidth(), min_plot_width))
        layout.addWidget(plot)
    policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
    policy.setHeightForWidth(True)
    holder.setSizePolicy(policy)
    return holder


class StackingSplitter(QWidget):
    """A splitter whose panes sit side by side while their minimum widths fit, and one above
    the other when they do not (a narrow window, larger presentation fonts); the side-by-side
    sizes come back when it unstacks. :meth:`is_stacked` tells which way it is.

    It wraps a ``QSplitter`` (:attr:`splitter`) because a bare one raises its own minimum width
    to the sum of its panes' and so could never become narrow enough to stack.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.installEventFilter(self)  # panes' size changes reach it as LayoutRequest
        self._sizes_side_by_side: list[int] | None = None
        # Sizes asked for before the first show: the panes start at least at their minimum
        # widths (see _start_within_minimums).
        self._first_sizes: list[int] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # the QSplitter calls tabs use
    def addWidget(self, widget: QWidget) -> None:
        self.splitter.addWidget(widget)
        widget.installEventFilter(self)
        self.updateGeometry()

    def count(self) -> int:
        return self.splitter.count()

    def widget(self, index: int) -> QWidget | None:
        return self.splitter.widget(index)

    def orientation(self) -> Qt.Orientation:
        return self.splitter.orientation()

    def sizes(self) -> list[int]:
        return self.splitter.sizes()

    def setSizes(self, sizes: Sequence[int]) -> None:
        self.splitter.setSizes(list(sizes))
        if not self.isVisible():
            self._first_sizes = list(sizes)

    def setStretchFactor(self, index: int, stretch: int) -> None:
        self.splitter.setStretchFactor(index, stretch)

    def handleWidth(self) -> int:
        return self.splitter.handleWidth()

    def setHandleWidth(self, width: int) -> None:
        self.splitter.setHandleWidth(width)

    def _panes(self) -> list[QWidget]:
        return [w for w in (self.widget(i) for i in range(self.count())) if w is not None]

    @staticmethod
    def _min_width(widget: QWidget) -> int:
        own = max(widget.minimumSizeHint().width(), widget.minimumWidth())
        # A scroll area that never scrolls sideways needs its content's width (larger
        # presentation fonts widen it), not the few pixels a scroll area asks for.
        area = widget if isinstance(widget, QScrollArea) else None
        content = area.widget() if area is not None else None
        if (
            area is not None
            and content is not None
            and area.horizontalScrollBarPolicy() == ScrollBarPolicy.ScrollBarAlwaysOff
        ):
            bar = area.verticalScrollBar()
            extra = (bar.sizeHint().width() if bar is not None else 0) + 2 * area.frameWidth()
            own = max(own, content.minimumSizeHint().width() + extra)
        return own

    def _fit_panes(self) -> None:
        """Side by side, give each pane at least its minimum width, taken from the panes that
        have more than theirs (a ``QSplitter`` honours only a scroll area's tiny minimum)."""
        if self.is_stacked():
            return
        panes = self._panes()
        sizes = self.sizes()
        if len(sizes) != len(panes) or any(w.isHidden() for w in panes):
            return
        need = [self._min_width(w) for w in panes]
        short = sum(max(0, n - s) for n, s in zip(need, sizes, strict=True))
        if short == 0:
            return
        spare = [max(0, s - n) for n, s in zip(need, sizes, strict=True)]
        if sum(spare) < short:
            return  # cannot fit: update_orientation stacks instead
        new = [max(s, n) for n, s in zip(need, sizes, strict=True)]
        for i in range(len(new)):  # take the shortfall from the panes with room, in order
            take = min(spare[i], short)
            new[i] -= take
            short -= take
        self.setSizes(new)

    def needed_width(self) -> int:
        """Width the panes need side by side: their minimum widths and the handles."""
        widths = [self._min_width(w) for w in self._panes() if not w.isHidden()]
        return sum(widths) + self.handleWidth() * max(0, len(widths) - 1)

    def is_stacked(self) -> bool:
        return self.orientation() == Qt.Orientation.Vertical

    def sizeHint(self) -> QSize:
        return self.splitter.sizeHint()

    def minimumSizeHint(self) -> QSize:
        # Stacking is the way out when narrow: never ask for the side-by-side width.
        panes = [w for w in self._panes() if not w.isHidden()]
        width = max((self._min_width(w) for w in panes), default=0)
        heights = [max(w.minimumSizeHint().height(), w.minimumHeight()) for w in panes]
        if self.is_stacked():
            height = sum(heights) + self.handleWidth() * max(0, len(heights) - 1)
        else:
            height = max(heights, default=0)
        return QSize(width, height)

    def update_orientation(self, width: int | None = None) -> bool:
        """Stack or unstack for ``width`` (default: the current width); True if it changed."""
        available = self.width() if width is None else width
        stack = available < self.needed_width()
        if stack == self.is_stacked():
            return False
        if stack:
            self._sizes_side_by_side = self.sizes()
            self.splitter.setOrientation(Qt.Orientation.Vertical)
            # One above the other, the panes share the height evenly (the side-by-side widths
            # would leave the lower pane a sliver).
            count = max(1, len(self._panes()))
            self.setSizes([max(1, self.height()) // count] * count)
        else:
            self.splitter.setOrientation(Qt.Orientation.Horizontal)
            if self._sizes_side_by_side:
                self.setSizes(self._sizes_side_by_side)
        self.updateGeometry()
        return True

    def _start_within_minimums(self) -> None:
        """Before the first show: raise the sizes asked for to the panes' minimum widths, so
        the splitter's first layout already gives each pane its width (:meth:`_fit_panes`
        after it would lay out both panes a second time, a tenth of a second for a full
        results column)."""
        first = self._first_sizes
        panes = self._panes()
        if first is None or self.isVisible() or self.is_stacked() or len(first) != len(panes):
            return
        need = [0 if w.isHidden() else self._min_width(w) for w in panes]
        wanted = [max(size, n) for size, n in zip(first, need, strict=True)]
        if wanted != first:
            self.splitter.setSizes(wanted)
            self._first_sizes = wanted

    def showEvent(self, event: QShowEvent) -> None:
        self._first_sizes = None  # shown: the user's and the splitter's sizes from now on
        super().showEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.update_orientation(event.size().width())
        self._start_within_minimums()
        self.splitter.setGeometry(0, 0, event.size().width(), event.size().height())
        self._fit_panes()
        super().resizeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A pane's minimum width changed (new content, presentation fonts): re-decide.
        relevant = event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.FontChange)
        if relevant:
            if self.update_orientation():
                self.splitter.setGeometry(0, 0, self.width(), self.height())
            self._fit_panes()
        elif watched is self.splitter and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            # The splitter spreads its new size after this filter returns: fit afterwards.
            QTimer.singleShot(0, self, self._fit_panes)
        return False


def stack_when_narrow(
    widgets: Sequence[QWidget], parent: QWidget | None = None
) -> StackingSplitter:
    """``widgets`` in a :class:`StackingSplitter` with the app's handle width."""
    splitter = StackingSplitter(parent)
    splitter.setHandleWidth(SPACING)
    for widget in widgets:
        splitter.addWidget(widget)
    return splitter
