"""Small controls of the Monitor tab's toolbar: a segmented toggle row and a field caption."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QWidget

from desktopapp.ui.common.theme import COLORS


def _segmented_style() -> str:
    c = COLORS
    return (
        f"QPushButton {{ border: 1px solid {c['border_strong']}; border-radius: 0; "
        f"padding: 4px 12px; background: {c['surface']}; color: {c['muted']}; "
        "font-weight: 600; margin-left: -1px; }"
        f"QPushButton:checked {{ background: {c['accent_soft']}; color: {c['accent_dark']}; "
        f"border-color: {c['accent']}; }}"
        "QPushButton[first='true'] { border-top-left-radius: 5px; "
        "border-bottom-left-radius: 5px; margin-left: 0; }"
        "QPushButton[last='true'] { border-top-right-radius: 5px; "
        "border-bottom-right-radius: 5px; }"
    )


class Segmented(QWidget):
    """A row of exclusive toggle buttons (a segmented control)."""

    def __init__(self, items: list[tuple[str, str]], current: str) -> None:
        super().__init__()
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        for i, (key, text) in enumerate(items):
            button = QPushButton(text)
            button.setCheckable(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setProperty("first", i == 0)
            button.setProperty("last", i == len(items) - 1)
            button.setChecked(key == current)
            self.group.addButton(button)
            self.buttons[key] = button
            row.addWidget(button)
        self.setStyleSheet(_segmented_style())

    def current(self) -> str:
        for key, button in self.buttons.items():
            if button.isChecked():
                return key
        return next(iter(self.buttons))

    def set_current(self, key: str) -> None:
        self.buttons[key].setChecked(True)


def caption(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldLabel")
    return label


class FitHeightLabel(QLabel):
    """A word-wrapped label that keeps the height its text needs at its width (a plot card's
    layout sizes it from the one-line hint, which cut a wrapped legend)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        needed = self.heightForWidth(self.width())
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)
