"""The Monitor tab's side column: the bottleneck diagnosis, the idle-cost meter and, once the
first sample names the GPUs, the "This session" totals, in a scroll area that never scrolls
sideways."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from desktopapp.ui.common.theme import SPACING
from desktopapp.ui.monitor.idle_panel import IdleCostPanel
from desktopapp.ui.monitor.panels import DiagnosisPanel
from desktopapp.ui.monitor.session_panel import SessionPanel


class SideScroll(QScrollArea):
    """The side column's scroll area: at least as wide as its content needs (340 px or more,
    with presentation fonts more), so it scrolls up and down but never sideways."""

    MIN_WIDTH = 340

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        content = self.widget()
        needed = self.MIN_WIDTH
        if content is not None:
            bar = self.verticalScrollBar().sizeHint().width()
            needed = max(needed, content.minimumSizeHint().width() + bar + 2 * self.frameWidth())
        return QSize(needed, hint.height())


class SideColumn:
    """The panels of the side column and their scroll area (``scroll``, to lay out)."""

    def __init__(self) -> None:
        self.diagnosis = DiagnosisPanel()
        self.idle_panel = IdleCostPanel()
        self.idle_panel.set_foldable(False)  # secondary: folds to its title on a projector
        side = QWidget()
        self.content = side  # moved under the plots on a narrow window (MonitorWidgets)
        self.column = QVBoxLayout(side)
        self.column.setContentsMargins(0, 0, 6, 0)
        self.column.setSpacing(SPACING)
        self.column.addWidget(self.diagnosis)
        self.column.addWidget(self.idle_panel)
        self.column.addStretch(1)
        self.scroll = SideScroll()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(side)

    def add_session_panel(self, gpus: Sequence[tuple[int, str]]) -> SessionPanel:
        """The session totals, under the idle-cost meter."""
        panel = SessionPanel(gpus)
        panel.set_foldable(False)
        self.column.insertWidget(2, panel)
        return panel
