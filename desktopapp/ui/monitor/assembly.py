"""Every widget of the Monitor tab, built and laid out: the toolbar, the three banners (GPU,
idle alert, stalled sampler), the live readings strip's slot, the plots area over the tables
box on the left, and the side column on the right. Nothing here reacts to anything: the tab
connects the signals and renders into these widgets."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from desktopapp.ui.common.theme import INNER_SPACING, SPACING
from desktopapp.ui.monitor.panels import Banner
from desktopapp.ui.monitor.plots_area import PlotsArea
from desktopapp.ui.monitor.side import SideColumn
from desktopapp.ui.monitor.tables_panel import MonitorTables
from desktopapp.ui.monitor.toolbar import MonitorToolbar


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
        outer = QVBoxLayout(tab)
        outer.setContentsMargins(SPACING + 4, SPACING - 2, SPACING, 4)
        outer.setSpacing(INNER_SPACING)
        outer.addWidget(self.toolbar)
        outer.addWidget(self.gpu_banner)
        outer.addWidget(self.alert_banner)
        outer.addWidget(self.stall_banner)
        outer.addLayout(self.live_holder)
        outer.addWidget(self.body_splitter, 1)
