"""The "coming" panel shown for a tab whose package does not exist yet."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktopapp.ui.common.icons import app_icon


class ComingPanel(QWidget):
    """A centred card: the app icon, the tab's title, what it will do, and a "coming" badge."""

    def __init__(self, title: str, summary: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ComingPanel")
        card = QFrame(self)
        card.setObjectName("Card")
        card.setFixedWidth(540)

        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(72, 72))
        icon.setFixedSize(72, 72)

        heading = QLabel(title)
        heading.setObjectName("ComingTitle")
        heading.setAlignment(Qt.AlignmentFlag.AlignCenter)

        text = QLabel(summary)
        text.setObjectName("ComingText")
        text.setWordWrap(True)
        text.setAlignment(Qt.AlignmentFlag.AlignCenter)

        badge = QLabel("Coming in a later version")
        badge.setObjectName("Badge")
        badge.setAlignment(Qt.AlignmentFlag.AlignCenter)

        inner = QVBoxLayout(card)
        inner.setContentsMargins(40, 32, 40, 32)
        inner.setSpacing(12)
        inner.addWidget(icon, 0, Qt.AlignmentFlag.AlignHCenter)
        inner.addWidget(heading)
        inner.addWidget(text)
        inner.addSpacing(4)
        inner.addWidget(badge, 0, Qt.AlignmentFlag.AlignHCenter)

        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(card)
        row.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addStretch(2)
        outer.addLayout(row)
        outer.addStretch(3)
        self.summary = summary

    def is_ready(self) -> bool:
        return True
