"""The Monitor tab's plots area: the cursor read-out line above a placeholder that gives way
to the plot grid once the first sample says which channels exist."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from desktopapp.ui.monitor.layout import GridLayout
from desktopapp.ui.monitor.panels import set_text

CURSOR_HINT = "Hover over a plot to read every value at that moment; click to pin the cursor."


class PlotsArea(QWidget):
    """``grid`` is the :class:`~desktopapp.ui.monitor.charts.PlotGrid` (``None`` until
    :meth:`show_grid`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid: Any = None
        self.cursor_label = QLabel(CURSOR_HINT)
        self.cursor_label.setObjectName("Hint")
        self.cursor_label.setWordWrap(True)
        self.plot_stack = QStackedWidget()
        waiting = QLabel("Starting the sampler…")
        waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        waiting.setObjectName("ComingText")
        self.waiting = waiting
        self.plot_stack.addWidget(waiting)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.cursor_label)
        column.addWidget(self.plot_stack, 1)

    def show_grid(self, layout: GridLayout, axis_mode: str) -> Any:
        """Build the plot grid for ``layout`` and show it instead of the placeholder."""
        from desktopapp.ui.monitor.charts import PlotGrid

        self.grid = PlotGrid(layout)
        self.grid.set_mode(axis_mode)
        self.grid.cursor_changed.connect(self._on_cursor)
        self.plot_stack.addWidget(self.grid)
        self.plot_stack.setCurrentWidget(self.grid)
        return self.grid

    def _on_cursor(self, t: float) -> None:
        if self.grid is None:
            return
        if math.isfinite(t):
            pin = "click to release" if self.grid.pinned else "click to pin"
            set_text(self.cursor_label, f"Cursor at {self.grid.cursor_label()} · {pin}")
        else:
            set_text(self.cursor_label, CURSOR_HINT)
