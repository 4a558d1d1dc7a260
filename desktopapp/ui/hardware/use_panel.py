"""Hardware tab, "Use in estimates": the best measured figures, the mode, the button (which
becomes "Apply anyway" after a warning) and what the Workload tab plans with now.

The panel renders the view-models of :mod:`desktopapp.application.hardware_controller`
(:class:`UsePanel`, :class:`UseResult`, :class:`InUse`); the tab forwards its clicks.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QResizeEvent, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from desktopapp.application.hardware import USE_AS_PEAK, USE_AS_UTILIZATION
from desktopapp.application.hardware_controller import InUse, UsePanel, UseResult


def keep_label_heights(widget: QFrame) -> None:
    """Give every label under ``widget`` at least the height its text needs at its width."""
    for label in widget.findChildren(QLabel):
        if label.width() <= 0:
            continue
        needed = (
            label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        )
        if needed > 0 and needed != label.minimumHeight():
            label.setMinimumHeight(needed)


class WrappingFrame(QFrame):
    """A frame whose word-wrapped labels keep the height their text needs at their width (its
    parent layouts size it from the unwrapped hint, which cut the "Use in estimates" text)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        keep_label_heights(self)


class UseInEstimates(WrappingFrame):
    """The "Use in estimates" tile under the live results."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("PeakTile")
        title = QLabel("Use in estimates")
        title.setObjectName("SectionTitle")
        self.summary = QLabel("")
        self.summary.setObjectName("Muted")
        self.summary.setWordWrap(True)
        self.mode = QComboBox()
        self.mode.addItem("Measured TFLOP/s as the peak", USE_AS_PEAK)
        self.mode.setItemData(
            0,
            "The Workload tab plans with what this machine really sustains in matmul; its "
            "utilization then applies on top",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.mode.addItem("Achieved share of peak as utilization", USE_AS_UTILIZATION)
        self.mode.setItemData(
            1,
            "The datasheet (or estimated) peak stays; utilization = measured ÷ peak",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.button = QPushButton("Use in estimates")
        self.button.setObjectName("Primary")
        self.stop_button = QPushButton("Stop using")
        self.stop_button.setObjectName("LinkButton")
        self.status = QLabel("")
        self.status.setObjectName("Faint")
        self.status.setWordWrap(True)

        # Title and actions on one row, the measured figures (wrapping) under them: side by
        # side the summary was squeezed into a narrow column of one word per line.
        for button in (self.button, self.stop_button):
            button.setMinimumWidth(button.sizeHint().width())
        self.mode.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(title)
        row.addStretch(1)
        row.addWidget(self.mode)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.stop_button)
        layout.addLayout(status_row)

    def current_mode(self) -> str:
        return str(self.mode.currentData() or USE_AS_PEAK)

    def _set_button_text(self, text: str) -> None:
        self.button.setText(text)
        self.button.setMinimumWidth(self.button.sizeHint().width())

    def show_panel(self, view: UsePanel) -> None:
        self._set_button_text(view.button_text)
        self.summary.setText(view.summary)
        self.summary.setToolTip(view.summary_tooltip)
        model = self.mode.model()
        if isinstance(model, QStandardItemModel):
            entry = model.item(1)
            if entry is not None:
                entry.setEnabled(view.utilization_available)
        if view.mode != self.current_mode():
            with QSignalBlocker(self.mode):
                self.mode.setCurrentIndex(max(0, self.mode.findData(view.mode)))
        self.button.setEnabled(view.enabled)

    def show_result(self, result: UseResult) -> None:
        """A press that applied nothing says why (an applied one is shown by :meth:`show_in_use`
        when the shared state changes)."""
        self._set_button_text(result.button_text)
        if result.note:
            self.status.setText(result.note)
        if result.note_tooltip is not None:
            self.status.setToolTip(result.note_tooltip)

    def show_in_use(self, view: InUse) -> None:
        self.status.setText(view.text)
        self.status.setToolTip(view.tooltip)
        self.stop_button.setVisible(view.can_stop)


__all__ = ["UseInEstimates", "WrappingFrame", "keep_label_heights"]
