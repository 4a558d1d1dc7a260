"""Small window parts of the scenario feature: the Notes dock and the message banner."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktopapp.model.scenario import MAX_NAME_CHARS
from desktopapp.model.validation import user_message
from desktopapp.ui.common.theme import INNER_SPACING, repolish
from desktopapp.ui.scenario.document import ScenarioDocument


class NotesDock(QDockWidget):
    """Name and free-text notes of the scenario; saved with it."""

    def __init__(self, document: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__("Scenario notes", parent)
        self.setObjectName("NotesDock")
        self.document = document
        self.setAllowedAreas(
            Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea
        )
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 8, 10, 10)
        layout.setSpacing(INNER_SPACING - 2)
        name_label = QLabel("Name")
        name_label.setObjectName("FieldLabel")
        self.name_edit = QLineEdit()
        self.name_edit.setMaxLength(MAX_NAME_CHARS)
        self.name_edit.setAccessibleName("Scenario name")
        self.name_edit.setPlaceholderText("Untitled")
        name_label.setBuddy(self.name_edit)
        notes_label = QLabel("Notes")
        notes_label.setObjectName("FieldLabel")
        self.notes_edit = QPlainTextEdit()
        self.notes_edit.setAccessibleName("Scenario notes")
        self.notes_edit.setPlaceholderText(
            "Assumptions, decisions, who asked for what. Saved with the scenario and printed "
            "in the report."
        )
        notes_label.setBuddy(self.notes_edit)
        self.error = QLabel("")
        self.error.setObjectName("Hint")
        self.error.setWordWrap(True)
        layout.addWidget(name_label)
        layout.addWidget(self.name_edit)
        layout.addWidget(notes_label)
        layout.addWidget(self.notes_edit, 1)
        layout.addWidget(self.error)
        self.setWidget(body)
        self.setMinimumWidth(260)

        self.name_edit.editingFinished.connect(self._on_name)
        self.notes_edit.textChanged.connect(self._on_notes)
        document.text_changed.connect(self.show_document)
        self.show_document()

    def show_document(self) -> None:
        """Model → widgets."""
        with QSignalBlocker(self.name_edit), QSignalBlocker(self.notes_edit):
            name = self.document.name
            self.name_edit.setText("" if name == "Untitled" else name)
            if self.notes_edit.toPlainText() != self.document.notes:
                self.notes_edit.setPlainText(self.document.notes)
        self.error.setText("")

    def _on_name(self) -> None:
        try:
            self.document.set_name(self.name_edit.text())
            self.error.setText("")
        except ValueError as exc:
            self.error.setText(user_message(exc))

    def _on_notes(self) -> None:
        try:
            self.document.set_notes(self.notes_edit.toPlainText())
            self.error.setText("")
        except ValueError as exc:
            self.error.setText(user_message(exc))


class MessageBanner(QFrame):
    """A strip above the tabs for things that need an answer but must not block: recovered
    work after a crash, a file from the command line that could not be opened."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Banner")
        self.setProperty("kind", "info")
        self.setAccessibleName("Message")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 8, 8)
        layout.setSpacing(INNER_SPACING)
        self.text = QLabel("")
        self.text.setObjectName("BannerText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.text, 1)
        self._buttons: list[QPushButton] = []
        self._button_row = QHBoxLayout()
        self._button_row.setSpacing(6)
        layout.addLayout(self._button_row)
        self.close_button = QPushButton("✕")
        self.close_button.setObjectName("LinkButton")
        self.close_button.setAccessibleName("Close message")
        self.close_button.setToolTip("Close this message (Esc)")
        self.close_button.clicked.connect(self.dismiss)
        layout.addWidget(self.close_button)
        self.hide()

    def show_message(
        self,
        text: str,
        kind: str = "info",
        actions: tuple[tuple[str, Callable[[], None]], ...] = (),
    ) -> None:
        """Show ``text``; each action is a button that runs its callback and closes the banner."""
        for button in self._buttons:
            self._button_row.removeWidget(button)
            button.deleteLater()
        self._buttons = []
        for label, callback in actions:
            button = QPushButton(label)
            button.setAccessibleName(label.replace("&", ""))
            button.clicked.connect(lambda _c=False, cb=callback: self._run(cb))
            self._button_row.addWidget(button)
            self._buttons.append(button)
        self.text.setText(text)
        self.setProperty("kind", kind)
        repolish(self)
        self.show()

    def buttons(self) -> list[QPushButton]:
        return list(self._buttons)

    def _run(self, callback: Callable[[], None]) -> None:
        self.dismiss()
        callback()

    def dismiss(self) -> None:
        self.hide()
        self.closed.emit()
