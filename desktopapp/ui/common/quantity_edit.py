"""A line edit for quantities such as ``110M``, ``7B``, ``1.5e9`` (``model.units.parse_quantity``).

Invalid text marks the field (``invalid`` property → red border from the style sheet) and puts
the reason in its tooltip, in the user's words (``"Server price: 'lots' is not a number
(examples: …)"``, never the internal ``server_price``); :meth:`QuantityEdit.value` is then ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QLineEdit, QWidget

from desktopapp.model.units import (
    MAX_INPUT_VALUE,
    QUANTITY_EXAMPLES,
    parse_money,
    parse_quantity,
)
from desktopapp.model.validation import InputError, user_message
from desktopapp.ui.common.theme import repolish

_INPUT_SUFFIXES: tuple[tuple[float, str], ...] = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def compact_quantity(value: float) -> str:
    """Shortest input text that parses back to ``value``: 7e9 → ``7B``, 1281167 → ``1.281167M``."""
    if not math.isfinite(value):
        return ""
    magnitude = abs(value)
    scientific = magnitude >= 1e15
    factor, suffix = 1.0, ""
    for scale, letter in _INPUT_SUFFIXES:
        if magnitude >= scale:
            factor, suffix = scale, letter
            break

    def render(digits: int) -> str:
        if scientific:  # past the T suffix: "1e17", not "1e+05T"
            mantissa, _, exponent = f"{value:.{digits}g}".partition("e")
            return f"{mantissa}e{int(exponent)}" if exponent else mantissa
        return f"{value / factor:.{digits}g}{suffix}"

    for digits in range(1, 17) if scientific else range(3, 16):
        candidate = render(digits)
        if math.isclose(parse_quantity(candidate), value, rel_tol=1e-12, abs_tol=0.0):
            return candidate
    return repr(value) if scientific else render(15)


def set_invalid(widget: QWidget, message: str | None, base_tooltip: str = "") -> None:
    """Mark any input widget invalid (red border, reason in the tooltip) or clear the mark."""
    invalid = message is not None
    if bool(widget.property("invalid")) != invalid:
        widget.setProperty("invalid", invalid)
        repolish(widget)
    if invalid:
        tip = f"<b>Invalid:</b> {message}"
        widget.setToolTip(f"{tip}<br><br>{base_tooltip}" if base_tooltip else tip)
    else:
        widget.setToolTip(base_tooltip)


class QuantityEdit(QLineEdit):
    """Text field holding a positive (by default) quantity with k/M/B/T suffixes.

    ``value_changed(object)`` carries the parsed float, or ``None`` when the text is invalid.
    ``field`` names the model field; parse errors name it by its label and say what is
    allowed (``"Parameters: must be greater than 0, got '-5'"``, see ``model.validation``).
    """

    value_changed = Signal(object)

    def __init__(
        self,
        field: str,
        *,
        minimum: float | None = 0.0,
        minimum_inclusive: bool = False,
        integer: bool = False,
        allow_empty: bool = False,
        currency: bool = False,
        placeholder: str = "e.g. 7B, 110M, 1.5e9",
        tooltip: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.field = field
        self._minimum = minimum
        self._minimum_inclusive = minimum_inclusive
        self._integer = integer
        self._allow_empty = allow_empty
        self._currency = currency  # accept a leading "$" (prices)
        self._base_tooltip = tooltip
        self._value: float | None = None
        self._error: str | None = "empty"
        self._external_error: str | None = None
        self._extra_check: Callable[[float], str | None] | None = None
        # Emptied by the program (a preset without this figure): not marked until typed in.
        self._pristine = False
        self.setPlaceholderText(placeholder)
        self.setToolTip(tooltip)
        self.setClearButtonEnabled(False)
        self.textChanged.connect(self._on_text_changed)

    # --- reading --------------------------------------------------------------------------
    def value(self) -> float | None:
        """The parsed number; ``None`` when invalid, or when empty and empty is allowed."""
        return self._value if self._error is None else None

    def is_empty(self) -> bool:
        return not self.text().strip()

    def error(self) -> str | None:
        """Why the field is invalid (parse error or one set by the model), or ``None``."""
        return self._external_error or self._error

    def is_valid(self) -> bool:
        return self.error() is None

    # --- writing --------------------------------------------------------------------------
    def set_value(self, value: float | None) -> None:
        """Show ``value`` without emitting ``value_changed`` (model → widget).

        ``None`` empties the field without marking it (until the user types), for presets
        that have no such figure; :meth:`error` still says a value is required.
        """
        with QSignalBlocker(self):
            self.setText("" if value is None else compact_quantity(value))
        self._external_error = None
        self._pristine = value is None
        self._parse(self.text())
        self._refresh_mark()

    def is_pristine_empty(self) -> bool:
        """Emptied by the program and not typed in since."""
        return self._pristine and self.is_empty()

    def set_extra_check(self, check: Callable[[float], str | None] | None) -> None:
        """An extra rule returning an error message (without the field name) or ``None``."""
        self._extra_check = check
        self._parse(self.text())
        self._refresh_mark()

    def set_error(self, message: str | None) -> None:
        """Mark the field with an error the model reported (``None`` clears it)."""
        self._external_error = message
        self._refresh_mark()

    # --- internals ------------------------------------------------------------------------
    def _parse(self, text: str) -> None:
        self._value, self._error = None, None
        if not text.strip():
            if not self._allow_empty:
                self._error = self._message(InputError(self.field, "a value is required"))
            return
        try:
            # a price takes a "$" and gives price examples, not "110M, 7B"
            value = (
                parse_money(text, self.field, maximum=MAX_INPUT_VALUE)
                if self._currency
                else parse_quantity(
                    text, self.field, maximum=MAX_INPUT_VALUE, examples=QUANTITY_EXAMPLES
                )
            )
        except ValueError as exc:  # "field: 'lots' is not a number (examples: …)"
            self._error = self._message(exc)
            return
        problem = self._problem(value)
        if problem is not None:
            self._error = self._message(InputError(self.field, f"{problem}, got {text.strip()!r}"))
            return
        self._value = value

    def _problem(self, value: float) -> str | None:
        """What the rules of this field (minimum, whole number, extra check) say of ``value``."""
        if self._minimum is not None:
            if self._minimum_inclusive and value < self._minimum:
                return f"must be at least {self._minimum:g}"
            if not self._minimum_inclusive and value <= self._minimum:
                return f"must be greater than {self._minimum:g}"
        if self._integer and value != int(value):
            return "must be a whole number"
        if self._extra_check is not None:
            return self._extra_check(value)
        return None

    def _message(self, exc: ValueError) -> str:
        """The error in the user's words: the field's label, never its internal name."""
        if not isinstance(exc, InputError):  # parse_quantity's "field: …"
            exc = InputError(self.field, str(exc).removeprefix(f"{self.field}: "))
        return user_message(exc)

    def _refresh_mark(self) -> None:
        shown = None if self.is_pristine_empty() else self.error()
        set_invalid(self, shown, self._base_tooltip)

    def _on_text_changed(self, text: str) -> None:
        self._pristine = False
        self._external_error = None
        self._parse(text)
        self._refresh_mark()
        self.value_changed.emit(self.value())
