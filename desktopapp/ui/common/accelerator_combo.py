"""Accelerator picker: an editable combo box with type-to-search over the catalog.

Typing filters by any part of the name, vendor or id ("h100", "nvidia a1", "mi300"); picking
a row or pressing Enter on a match selects it; leaving the field with text that matches nothing
puts the current accelerator back.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QWidget

from desktopapp.model.catalog import Accelerator

ID_ROLE = Qt.ItemDataRole.UserRole
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 1


def accelerator_label(acc: Accelerator) -> str:
    memory = f"{acc.memory_gb:g} GB"
    return f"{acc.name} · {memory}"


class AcceleratorCombo(QComboBox):
    """Emits ``accelerator_changed(id)`` when the user picks a different accelerator."""

    accelerator_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(18)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(16)
        line = self.lineEdit()
        assert line is not None  # editable
        self._line = line
        line.setPlaceholderText("Type to search: H100, A100, MI300 …")

        completer = QCompleter(self)
        completer.setModel(self.model())
        completer.setCompletionRole(Qt.ItemDataRole.DisplayRole)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.setMaxVisibleItems(12)
        self.setCompleter(completer)
        completer.activated.connect(self._on_completer_activated)

        self._current_id = ""
        self.activated.connect(self._on_activated)
        line.editingFinished.connect(self._on_editing_finished)

    # --- content --------------------------------------------------------------------------
    def set_accelerators(self, accelerators: Iterable[Accelerator]) -> None:
        with QSignalBlocker(self):
            self.clear()
            for acc in accelerators:
                self.addItem(accelerator_label(acc), acc.id)
                index = self.count() - 1
                search = " ".join((acc.name, acc.vendor, acc.id, *acc.aliases))
                self.setItemData(index, search, SEARCH_ROLE)
                tip = (
                    f"{acc.name} ({acc.vendor}), {acc.memory_gb:g} GB, "
                    f"precisions: {', '.join(acc.precisions) or 'none published'}\n"
                    f"Source: {acc.source} ({acc.source_date}, confidence {acc.confidence})"
                )
                self.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        if self._current_id:
            self.set_accelerator_id(self._current_id)

    def accelerator_ids(self) -> list[str]:
        """Ids of the listed rows (separators skipped)."""
        ids = (self.itemData(i, ID_ROLE) for i in range(self.count()))
        return [str(acc_id) for acc_id in ids if acc_id is not None]

    # --- selection ------------------------------------------------------------------------
    def accelerator_id(self) -> str:
        return self._current_id

    def set_accelerator_id(self, acc_id: str) -> bool:
        """Select without emitting (model → widget). False if the id is not listed."""
        index = self.findData(acc_id, ID_ROLE)
        if index < 0:
            return False
        with QSignalBlocker(self):
            self.setCurrentIndex(index)
        self._current_id = acc_id
        self.setToolTip(str(self.itemData(index, Qt.ItemDataRole.ToolTipRole) or ""))
        return True

    def search(self, text: str) -> list[str]:
        """Ids whose name, vendor, id or alias contains every word of ``text``."""
        words = text.lower().split()
        found = []
        for i in range(self.count()):
            if self.itemData(i, ID_ROLE) is None:
                continue
            haystack = f"{self.itemText(i)} {self.itemData(i, SEARCH_ROLE)}".lower()
            if all(w in haystack for w in words):
                found.append(str(self.itemData(i, ID_ROLE)))
        return found

    def _select_index(self, index: int) -> None:
        if index < 0:
            return
        acc_id = str(self.itemData(index, ID_ROLE))
        changed = acc_id != self._current_id
        self.set_accelerator_id(acc_id)
        if changed:
            self.accelerator_changed.emit(acc_id)

    def _on_activated(self, index: int) -> None:
        self._select_index(index)

    def _on_completer_activated(self, text: str) -> None:
        self._select_index(self.findText(text))

    def _on_editing_finished(self) -> None:
        text = self._line.text().strip()
        index = self.findText(text)
        if index < 0 and text:
            matches = self.search(text)
            if len(matches) >= 1:
                index = self.findData(matches[0], ID_ROLE)
        if index >= 0:
            self._select_index(index)
        else:  # nothing matched: show the current accelerator again
            self.set_accelerator_id(self._current_id)
