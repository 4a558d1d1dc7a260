"""Result cards: a small caption, a large value with its unit, a detail line, a formula tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from desktopapp.application.text import CardView, formula_tooltip
from desktopapp.model.units import DASH

__all__ = ["CardView", "ResultCard", "formula_tooltip", "split_value_unit"]

# Units a formatted value may end with (model.units output); anything else stays in the value.
_UNIT_WORDS = ("FLOP", "FLOP/s", "B", "iB", "s", "ms", "µs", "min", "h", "days", "years")


def split_value_unit(formatted: str) -> tuple[str, str]:
    """``"2.18 EFLOP"`` → (``"2.18"``, ``"EFLOP"``); ``"$9.70"`` → (``"$9.70"``, ``""``)."""
    number, sep, unit = formatted.strip().rpartition(" ")
    if not sep or not number:
        return formatted.strip(), ""
    if any(unit.endswith(word) for word in _UNIT_WORDS) or "/" in unit:
        return number, unit
    return formatted.strip(), ""


class ResultCard(QFrame):
    """One headline figure. ``set_formatted("2.18 EFLOP")`` shows 2.18 large and EFLOP small."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Card")
        # As tall as its lines need at its width: a detail that wraps to a third line (narrow
        # window, presentation fonts) makes the card taller instead of being cut.
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._caption = QLabel(caption.upper())
        self._caption.setObjectName("CardCaption")
        self._value = QLabel(DASH)
        self._value.setObjectName("CardValue")
        self._value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._unit = QLabel("")
        self._unit.setObjectName("CardUnit")
        self._detail = QLabel("")
        self._detail.setObjectName("CardDetail")
        self._detail.setWordWrap(True)

        value_row = QHBoxLayout()
        value_row.setSpacing(6)
        value_row.addWidget(self._value, 0, Qt.AlignmentFlag.AlignBaseline)
        value_row.addWidget(self._unit, 0, Qt.AlignmentFlag.AlignBaseline)
        value_row.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 10)
        layout.setSpacing(2)
        layout.addWidget(self._caption)
        layout.addLayout(value_row)
        layout.addWidget(self._detail)

    @property
    def caption(self) -> str:
        return self._caption.text()

    def set_caption(self, caption: str) -> None:
        self._caption.setText(caption.upper())

    def value_text(self) -> str:
        """The value and unit as shown, e.g. ``"2.18 EFLOP"`` (``"—"`` when not computable)."""
        unit = self._unit.text()
        return f"{self._value.text()} {unit}" if unit else self._value.text()

    def detail_text(self) -> str:
        return self._detail.text()

    def set_value(self, value: str, unit: str = "", detail: str = "", tooltip: str = "") -> None:
        self._value.setText(value or DASH)
        self._unit.setText(unit if value and value != DASH else "")
        self._detail.setText(detail)
        self.setToolTip(tooltip)

    def set_formatted(self, formatted: str, detail: str = "", tooltip: str = "") -> None:
        value, unit = split_value_unit(formatted)
        self.set_value(value, unit, detail, tooltip)

    def show_view(self, view: CardView) -> None:
        """Show a presenter's card (``view.unit`` None: split the formatted value)."""
        if view.unit is None:
            self.set_formatted(view.value, view.detail, view.tooltip)
        else:
            self.set_value(view.value, view.unit, view.detail, view.tooltip)

    def clear(self, reason: str = "") -> None:
        """Show the dash; ``reason`` (why it cannot be computed) goes into the tooltip."""
        self.set_value(DASH, "", "", reason)
