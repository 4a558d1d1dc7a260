"""A titled white card grouping inputs or results, with an optional note and a form grid."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QVBoxLayout,
    QWidget,
)

from desktopapp.ui.common.theme import INNER_SPACING


class Section(QFrame):
    """``Section("Hardware")``; add rows with :meth:`add_row` or widgets with :meth:`add`."""

    def __init__(self, title: str, note: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Section")
        self.title_label = QLabel(title)
        self.title_label.setObjectName("SectionTitle")
        self.header = QHBoxLayout()
        self.header.setContentsMargins(0, 0, 0, 0)
        self.header.addWidget(self.title_label)
        self.header.addStretch(1)

        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(14, 12, 14, 14)
        self.body.setSpacing(INNER_SPACING)
        self.body.addLayout(self.header)
        self.note_label = QLabel(note)
        self.note_label.setObjectName("SectionNote")
        self.note_label.setWordWrap(True)
        self.note_label.setVisible(bool(note))
        self.body.addWidget(self.note_label)

        self.grid = QGridLayout()
        self.grid.setContentsMargins(0, 2, 0, 0)
        self.grid.setHorizontalSpacing(10)
        self.grid.setVerticalSpacing(INNER_SPACING)
        self.grid.setColumnStretch(1, 1)
        self.body.addLayout(self.grid)
        self._row = 0

    def set_note(self, text: str) -> None:
        self.note_label.setText(text)
        self.note_label.setVisible(bool(text))

    def add_header_widget(self, widget: QWidget) -> None:
        self.header.addWidget(widget)

    def add_row(self, label: str, field: QWidget | QLayout, hint: str = "") -> QLabel:
        """A label on the left and the field on the right (optionally a hint under it)."""
        caption = QLabel(label)
        caption.setObjectName("FieldLabel")
        caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if isinstance(field, QWidget):
            caption.setBuddy(field)
        self.grid.addWidget(caption, self._row, 0)
        if isinstance(field, QWidget):
            self.grid.addWidget(field, self._row, 1)
        else:
            self.grid.addLayout(field, self._row, 1)
        self._row += 1
        if hint:
            hint_label = QLabel(hint)
            hint_label.setObjectName("Hint")
            hint_label.setWordWrap(True)
            self.grid.addWidget(hint_label, self._row, 1)
            self._row += 1
        return caption

    def add_wide(self, widget: QWidget | QLayout) -> None:
        """A row spanning both columns."""
        if isinstance(widget, QWidget):
            self.grid.addWidget(widget, self._row, 0, 1, 2)
        else:
            self.grid.addLayout(widget, self._row, 0, 1, 2)
        self._row += 1

    def add(self, widget: QWidget | QLayout, stretch: int = 0) -> None:
        """Below the grid, full width."""
        if isinstance(widget, QWidget):
            self.body.addWidget(widget, stretch)
        else:
            self.body.addLayout(widget, stretch)
