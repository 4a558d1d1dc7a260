"""What the tabs do with a model ``ValueError("field: …")``: find the field, mark the widget
(red frame, reason in the tooltip), say the first problem in the status bar; and writing values
to widgets without their signals (model → widget under ``QSignalBlocker``)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSignalBlocker
from PySide6.QtWidgets import QComboBox, QWidget

from desktopapp.model.validation import error_field
from desktopapp.ui.common.quantity_edit import QuantityEdit, set_invalid
from desktopapp.ui.common.theme import COLORS

if TYPE_CHECKING:
    from desktopapp.ui.state import AppState


@contextmanager
def blocked(*objects: QObject) -> Iterator[None]:
    """Model → widget updates: no widget signals while the values are written."""
    with ExitStack() as stack:
        for obj in objects:
            stack.enter_context(QSignalBlocker(obj))
        yield


def flagged_html(text: str, color_role: str = "bad") -> str:
    """``text`` as a message at a field: "⚠ …", bold, in the theme's ``bad`` (or ``warn``)
    colour, as rich text (``text`` is escaped)."""
    return f"<span style='color:{COLORS[color_role]}; font-weight:600'>⚠ {html.escape(text)}</span>"


def select_data(combo: QComboBox, value: object) -> bool:
    """Select the item whose data equals ``value`` without signals; False if absent."""
    index = combo.findData(value)
    if index < 0:
        return False
    with QSignalBlocker(combo):
        combo.setCurrentIndex(index)
    return True


def field_of(exc: ValueError) -> str:
    """The field a model error names (``InputError.field``), or ``""``."""
    return error_field(exc)


def read_quantity(edit: QuantityEdit, errors: dict[QWidget, str]) -> float | None:
    """The field's value; a text that does not parse (not one left empty by the program) is
    added to ``errors``."""
    value = edit.value()
    if value is None and edit.error() is not None and not edit.is_pristine_empty():
        errors[edit] = edit.error() or ""
    return value


def _targets(widget: QWidget) -> list[QWidget]:
    """The widget and, for an editable combo, its line edit (which draws the frame)."""
    targets = [widget]
    if isinstance(widget, QComboBox) and widget.isEditable():
        line = widget.lineEdit()
        if line is not None:
            targets.append(line)
    return targets


class FieldMarks:
    """The widgets of one tab marked invalid, with the reasons; the first reason goes to the
    status bar as ``"<status_prefix><reason> (+N more)"``."""

    def __init__(self, state: AppState, status_prefix: str) -> None:
        self.state = state
        self.status_prefix = status_prefix
        self._marked: dict[QWidget, str] = {}
        self._last_status = ""

    def show(self, errors: dict[QWidget, str]) -> None:
        """Mark exactly the widgets in ``errors`` (clearing the others)."""
        for widget in list(self._marked):
            if widget not in errors:
                self._unmark(widget)
        for widget, message in errors.items():
            self._mark(widget, message)
        status = ""
        if errors:
            first = next(iter(errors.values()))
            more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
            status = f"{self.status_prefix}{first}{more}"
        if status != self._last_status:
            self._last_status = status
            self.state.show_status(status, 0)

    def marked(self) -> dict[QWidget, str]:
        """Widgets currently marked invalid, with the reason."""
        return dict(self._marked)

    def _mark(self, widget: QWidget, message: str) -> None:
        if isinstance(widget, QuantityEdit):
            if widget.error() != message:
                widget.set_error(message)
            self._marked[widget] = message
            return
        if widget not in self._marked and widget.property("baseToolTip") is None:
            widget.setProperty("baseToolTip", widget.toolTip())
        base_tip = str(widget.property("baseToolTip") or "")
        for target in _targets(widget):
            set_invalid(target, message, base_tip)
        self._marked[widget] = message

    def _unmark(self, widget: QWidget) -> None:
        self._marked.pop(widget, None)
        if isinstance(widget, QuantityEdit):
            widget.set_error(None)
            return
        base_tip = str(widget.property("baseToolTip") or "")
        for target in _targets(widget):
            set_invalid(target, None, base_tip)
