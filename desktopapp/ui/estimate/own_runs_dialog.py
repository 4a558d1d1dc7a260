"""The Workload tab's "From past runs…": fit the production allowance to your own finished
runs (a CSV file) and put it in the Production factor field.

The view is :class:`~desktopapp.application.own_runs.OwnRunsView`, the same that
``desktopapp calibrate FILE`` prints; this dialog only shows it and returns the allowance when
the user takes it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.own_runs import HEADERS, OwnRunsView, own_runs_view
from desktopapp.model import units
from desktopapp.model.validation import user_message

TITLE = "Production factor from your past runs"
FILE_FILTER = "CSV files (*.csv);;All files (*)"


class OwnRunsDialog(QDialog):
    """One file's runs against the model; "Use ×N" accepts (``value`` is then the factor)."""

    def __init__(self, parent: QWidget | None = None, software_stack: str | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("OwnRunsDialog")
        self.setWindowTitle(TITLE)
        self.software_stack = software_stack  # for rows that name none (None: the default)
        self.value: float | None = None
        self._view: OwnRunsView | None = None
        layout = QVBoxLayout(self)
        self.headline = QLabel("")
        self.headline.setObjectName("OwnRunsHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.headline)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        others_header = self.table.horizontalHeaderItem(len(HEADERS) - 1)
        if others_header is not None:
            others_header.setToolTip(
                "Each run's GPU-hours predicted with the allowance fitted to the other runs, "
                "and how far that lands from what the run took"
            )
        layout.addWidget(self.table, 1)
        self.details = QLabel("")
        self.details.setObjectName("Hint")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.details)
        self.error_frame = QFrame()  # the theme's error banner
        self.error_frame.setObjectName("Banner")
        self.error_frame.setProperty("kind", "error")
        frame_layout = QHBoxLayout(self.error_frame)
        frame_layout.setContentsMargins(12, 8, 12, 8)
        self.error = QLabel("")
        self.error.setObjectName("BannerText")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        frame_layout.addWidget(self.error)
        self.error_frame.setVisible(False)
        layout.addWidget(self.error_frame)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open another file…")
        self.open_button.clicked.connect(self.choose_file)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        self.use_button = QPushButton("Use")
        self.use_button.setDefault(True)
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self._use)
        buttons.addWidget(self.use_button)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        buttons.addWidget(cancel)
        layout.addLayout(buttons)
        self.resize(900, 420)

    def choose_file(self) -> bool:
        """Ask for a CSV file and load it; False when none was chosen."""
        start = str(Path.home())
        path, _filter = QFileDialog.getOpenFileName(self, TITLE, start, FILE_FILTER)
        if not path:
            return False
        self.load(path)
        return True

    def load(self, path: str | Path) -> bool:
        """Fit the runs in ``path`` and show them; a bad file shows its message instead (the
        last good fit is cleared, so "Use" never takes a value the message contradicts)."""
        try:
            view = own_runs_view(path, self.software_stack)
        except ValueError as exc:
            self._show(None, user_message(exc))
            return False
        self._show(view, "")
        return True

    def _show(self, view: OwnRunsView | None, error: str) -> None:
        self._view = view
        self.error.setText(error)
        self.error_frame.setVisible(bool(error))
        self.headline.setText(view.headline if view else "")
        self.details.setText("\n".join(view.lines) if view else "")
        rows = view.rows if view else ()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c > 0:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(r, c, item)
        self.use_button.setEnabled(view is not None)
        self.use_button.setText(f"Use ×{units.format_plain(view.applied, 3)}" if view else "Use")

    @property
    def view(self) -> OwnRunsView | None:
        """The fit shown (None: none, or the last file was refused)."""
        return self._view

    def _use(self) -> None:
        if self._view is not None:
            self.value = self._view.applied
            self.accept()


def ask_production_factor(
    parent: QWidget | None = None, software_stack: str | None = None
) -> tuple[float, str] | None:
    """The whole flow behind the button: choose a file, review the fit (rows that name no
    stack on ``software_stack``, the Workload tab's), take it or not. Returns the factor and
    the note the field shows under it (None: nothing taken)."""
    dialog = OwnRunsDialog(parent, software_stack)
    if not dialog.choose_file():
        return None
    if dialog.exec() == QDialog.DialogCode.Accepted and dialog.view is not None:
        return dialog.view.applied, dialog.view.field_note
    return None
