"""A titled white card grouping inputs or results, with an optional note and a form grid."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QToolButton,
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

    # --- folding ------------------------------------------------------------------------------
    fold_button: QToolButton | None = None
    folded = False

    def set_foldable(self, folded: bool = False) -> QToolButton:
        """A secondary panel that can fold to its title (an arrow button before the title):
        on a projector the room goes to what matters. Returns the button."""
        if self.fold_button is None:
            button = QToolButton()
            button.setObjectName("FoldButton")
            button.setAutoRaise(True)
            button.setCheckable(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.toggled.connect(self.set_folded)
            self.header.insertWidget(0, button)
            self.fold_button = button
            self._fold_hidden: list[QWidget] = []
        self.fold_button.setChecked(folded)
        self.set_folded(folded)
        return self.fold_button

    def _body_widgets(self) -> list[QWidget]:
        found: list[QWidget] = []

        def take(item: object) -> None:
            widget = getattr(item, "widget", lambda: None)()
            inner = getattr(item, "layout", lambda: None)()
            if isinstance(widget, QWidget):
                found.append(widget)
            elif isinstance(inner, QLayout) and inner is not self.header:
                for i in range(inner.count()):
                    take(inner.itemAt(i))

        for i in range(self.body.count()):
            take(self.body.itemAt(i))
        return found

    def set_folded(self, folded: bool) -> None:
        """Show only the title (``folded``) or the whole panel again."""
        if self.fold_button is None:
            self.set_foldable(folded)
            return
        if self.fold_button.isChecked() != folded:
            self.fold_button.setChecked(folded)  # comes back here through toggled
            return
        self.fold_button.setArrowType(Qt.ArrowType.RightArrow if folded else Qt.ArrowType.DownArrow)
        self.fold_button.setToolTip(
            f"Show {self.title_label.text()}" if folded else f"Fold {self.title_label.text()}"
        )
        if folded == self.folded:
            return
        self.folded = folded
        if folded:
            self._fold_hidden = [w for w in self._body_widgets() if not w.isHidden()]
            for widget in self._fold_hidden:
                widget.hide()
        else:
            for widget in self._fold_hidden:
                widget.show()
            self._fold_hidden = []

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
