"""Every widget of the Monitor tab, built and laid out: the toolbar, the three banners (GPU,
idle alert, stalled sampler), the live readings strip's slot, the plots area over the tables
box on the left, and the side column on the right. Nothing here reacts to anything: the tab
connects the signals and renders into these widgets."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QVBoxLayout, QWidget

from desktopapp.ui.common.theme import INNER_SPACING, SPACING, current_scale
from desktopapp.ui.monitor.panels import Banner
from desktopapp.ui.monitor.plots_area import PlotsArea
from desktopapp.ui.monitor.side import SideColumn
from desktopapp.ui.monitor.tables_panel import MonitorTables
from desktopapp.ui.monitor.toolbar import MonitorToolbar

# px: two rows of readable plots, over a few table rows (the page scrolls below that)
PLOTS_MIN_HEIGHT = 340
TABLES_MIN_HEIGHT = 190  # × the presentation scale: a few rows under the header
# Narrower than this (× the presentation scale) the side column moves under the plots: two
# readable plot columns and a readable side column do not fit side by side.
SIDE_BESIDE_MIN_WIDTH = 900


class _WidthFreeColumn(QVBoxLayout):
    """A column whose height does not follow its width: in a resizable scroll area the page
    then fills the view (or its minimum), instead of growing to every item's preferred
    height because one wrapped label asks for height-for-width."""

    def hasHeightForWidth(self) -> bool:
        return False

    def minimumSize(self) -> QSize:
        """At least the height every shown item needs at the page's current width (a wrapped
        banner or side panel takes its wrapped height; counted only as its one-line minimum,
        the splitter above it was squeezed below its own minimum instead)."""
        size = super().minimumSize()
        page = self.parentWidget()
        width = page.width() if page is not None else 0
        if width <= 0:
            return size
        margins = self.contentsMargins()
        inner = width - margins.left() - margins.right()
        heights = []
        for i in range(self.count()):
            item = self.itemAt(i)
            if item is None or item.isEmpty():
                continue
            need = item.minimumSize().height()
            if item.hasHeightForWidth():
                need = max(need, item.heightForWidth(inner))
            heights.append(need)
        total = sum(heights) + self.spacing() * max(0, len(heights) - 1)
        size.setHeight(max(size.height(), total + margins.top() + margins.bottom()))
        return size


class _MinimumRelay(QObject):
    """Passes a pane's new minimum up through the splitters: a QSplitter does not tell the
    page's layout when a child's minimum grows (a plot card's legend wrapping to a second line,
    the plot grid replacing its placeholder), so the page kept the old minimum and the page
    squeezed the plots instead of scrolling."""

    def __init__(self, splitters: tuple[QSplitter, ...], parent: QObject) -> None:
        super().__init__(parent)
        self.splitters = splitters

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            for splitter in self.splitters:
                splitter.updateGeometry()
        return False


def _splitter(orientation: Qt.Orientation, first: QWidget, second: QWidget) -> QSplitter:
    """Two panes; the first takes the room, neither collapses."""
    splitter = QSplitter(orientation)
    splitter.setChildrenCollapsible(False)
    splitter.setHandleWidth(SPACING)
    splitter.addWidget(first)
    splitter.addWidget(second)
    splitter.setStretchFactor(0, 1)
    splitter.setStretchFactor(1, 0)
    return splitter


class MonitorWidgets:
    """The widgets of the Monitor tab, laid out in ``tab``."""

    def __init__(self, tab: QWidget) -> None:
        self.toolbar = MonitorToolbar()
        self.gpu_banner = Banner(closable=False)
        self.alert_banner = Banner(closable=True)
        self.stall_banner = Banner(closable=False)
        self.live_holder = QVBoxLayout()  # the live strip comes with the first sample
        self.live_holder.setContentsMargins(0, 0, 0, 0)
        self.plots = PlotsArea()
        self.tables = MonitorTables()
        self.side = SideColumn()

        self.left_splitter = _splitter(Qt.Orientation.Vertical, self.plots, self.tables)
        self.left_splitter.setSizes([560, 200])
        self.body_splitter = _splitter(
            Qt.Orientation.Horizontal, self.left_splitter, self.side.scroll
        )
        self.body_splitter.setSizes([960, 400])
        # On a short window (a projector at 1024×640, presentation fonts) the page scrolls
        # instead of squeezing the plots to slivers: the body keeps a readable height.
        # Before the first sample the placeholder holds PLOTS_MIN_HEIGHT; then each plot card
        # asks for its own readable minimum (presentation fonts ask for more) and the page
        # scrolls once they do not fit.
        self.plots.waiting.setMinimumHeight(PLOTS_MIN_HEIGHT)
        self._relay = _MinimumRelay((self.left_splitter, self.body_splitter), tab)
        for pane in (self.plots, self.tables, self.plots.plot_stack):
            pane.installEventFilter(self._relay)
        self.tables.setMinimumHeight(TABLES_MIN_HEIGHT)
        self.stacked = False
        page = QWidget()
        column = _WidthFreeColumn(page)
        self.page_column = column
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(INNER_SPACING)
        column.addWidget(self.gpu_banner)
        column.addWidget(self.alert_banner)
        column.addWidget(self.stall_banner)
        column.addLayout(self.live_holder)
        column.addWidget(self.body_splitter, 1)
        self.page_scroll = QScrollArea()
        self.page_scroll.setWidgetResizable(True)
        self.page_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.page_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.page_scroll.setWidget(page)
        outer = QVBoxLayout(tab)
        outer.setContentsMargins(SPACING + 4, SPACING - 2, SPACING, 4)
        outer.setSpacing(INNER_SPACING)
        outer.addWidget(self.toolbar)
        outer.addWidget(self.page_scroll, 1)

    def fit_width(self, width: int) -> bool:
        """Side column beside the plots, or under them (the page scrolls) when ``width`` is
        too narrow for both at the current scale (a projector at 1024 px in presentation
        mode). Returns whether it is under them."""
        scale = current_scale()
        self.tables.setMinimumHeight(round(TABLES_MIN_HEIGHT * scale))
        stacked = width < SIDE_BESIDE_MIN_WIDTH * scale
        if stacked == self.stacked:
            return stacked
        self.stacked = stacked
        scroll = self.side.scroll
        if stacked:
            content = scroll.takeWidget()
            scroll.hide()
            self.page_column.insertWidget(self.page_column.indexOf(self.body_splitter) + 1, content)
            self.page_column.setStretchFactor(self.body_splitter, 0)
        else:
            content = self.side.content
            self.page_column.removeWidget(content)
            scroll.setWidget(content)
            scroll.show()
            self.page_column.setStretchFactor(self.body_splitter, 1)
        return stacked
