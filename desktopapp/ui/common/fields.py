"""Building blocks of the tabs' input columns: labels, hints, spin boxes, combos, link buttons
and the rows they sit in. Widgets only, no formulas.

:class:`InputsColumn` is the scrolling column of :class:`~desktopapp.ui.common.section.Section`
cards that the Workload and Cost tabs show on the left.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QVBoxLayout,
    QWidget,
)

from desktopapp.ui.common.layouts import ScrollColumn, column_layout, scroll_area
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.scaled_sheet import follow_font


def field_label(text: str) -> QLabel:
    """A caption inside a row (``Precision`` between two fields)."""
    label = QLabel(text)
    label.setObjectName("FieldLabel")
    return label


def hint_label(text: str = "", *, rich: bool = True) -> QLabel:
    """A small grey note under a field, wrapping (rich text unless ``rich`` is False)."""
    label = QLabel(text)
    label.setObjectName("Hint")
    label.setWordWrap(True)
    if rich:
        label.setTextFormat(Qt.TextFormat.RichText)
    return label


def link_button(text: str) -> QPushButton:
    """A flat button drawn as a link ("Use catalog price")."""
    button = QPushButton(text)
    button.setObjectName("LinkButton")
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFlat(True)
    return button


def amount_edit(
    field: str,
    placeholder: str,
    tooltip: str,
    *,
    currency: bool = False,
    allow_empty: bool = False,
) -> QuantityEdit:
    """A field for an amount of 0 or more (a price, a power draw); ``currency`` accepts "$"."""
    return QuantityEdit(
        field,
        minimum=0.0,
        minimum_inclusive=True,
        currency=currency,
        allow_empty=allow_empty,
        placeholder=placeholder,
        tooltip=tooltip,
    )


def percent_edit(field: str, placeholder: str, tooltip: str) -> QuantityEdit:
    """A percentage from 0 to 100."""
    edit = amount_edit(field, placeholder, tooltip)
    edit.set_extra_check(lambda v: None if v <= 100 else "must be at most 100%")
    return edit


def spin_box(
    minimum: int,
    maximum: int,
    value: int,
    tooltip: str = "",
    *,
    suffix: str = "",
    special: str = "",
) -> QSpinBox:
    """A whole-number field. Arrow keys and the wheel step the value; the arrow buttons are
    hidden by the style sheet (NoButtons with a styled frame leaves no room for the text in
    Qt 6), so the text gets a small left margin instead. ``special`` is shown at ``minimum``."""
    spin = QSpinBox()
    spin.setRange(minimum, maximum)
    spin.setValue(value)
    spin.setSuffix(suffix)
    spin.setGroupSeparatorShown(True)
    spin.setAccelerated(True)
    spin.setKeyboardTracking(True)
    spin.setToolTip(tooltip)
    spin.lineEdit().setTextMargins(4, 0, 0, 0)
    spin.setMinimumWidth(64)  # below the hint for the widest value, so the column can narrow
    if special:
        spin.setSpecialValueText(special)
    return spin


def small_combo(combo: QComboBox | None = None, chars: int = 8) -> QComboBox:
    """A combo whose minimum width does not follow its longest item."""
    combo = combo or QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return combo


def choice_combo(
    items: Iterable[tuple[object, str]], tooltip: str = "", chars: int = 10
) -> QComboBox:
    """A narrow combo of ``(value, label)`` items; ``currentData()`` is the value."""
    combo = small_combo(chars=chars)
    for value, label in items:
        combo.addItem(label, value)
    combo.setToolTip(tooltip)
    return combo


def _fit_longest_item(combo: QComboBox) -> None:
    """Set ``combo``'s minimum width to that of its longest item at its current font."""
    metrics = combo.fontMetrics()
    widest = max(
        (metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count())),
        default=0,
    )
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    size = combo.style().sizeFromContents(
        QStyle.ContentsType.CT_ComboBox, option, QSize(widest, metrics.height()), combo
    )
    combo.setMinimumWidth(size.width())


def show_longest_item(combo: QComboBox) -> QComboBox:
    """Never cut a choice of ``combo`` short: its minimum width follows its longest item's
    text at the current font (presentation mode included). For a combo on its own row; the
    items must be added first."""
    follow_font(
        combo,
        lambda: _fit_longest_item(combo),
        frozenset({QEvent.Type.FontChange, QEvent.Type.StyleChange}),
    )
    return combo


def with_units(field: QWidget, before: str = "", after: str = "") -> QHBoxLayout:
    """``$ [field] per server``: a field between its unit captions."""
    row = QHBoxLayout()
    row.setSpacing(6)
    if before:
        row.addWidget(field_label(before))
    row.addWidget(field, 1)
    if after:
        row.addWidget(field_label(after))
    return row


def with_note(field: QWidget | QLayout, note: QLabel) -> QVBoxLayout:
    """``field`` with ``note`` under it, both in the field's own grid cell: a note in a grid
    row of its own leaves that row's spacing as a blank line while it is hidden."""
    cell = QVBoxLayout()
    cell.setContentsMargins(0, 0, 0, 0)
    if isinstance(field, QWidget):
        cell.addWidget(field)
    else:
        cell.addLayout(field)
    cell.addWidget(note)
    return cell


def row_widget(layout: QLayout) -> QWidget:
    """A row's layout in a widget of its own, so the whole row (captions and units too) can
    be hidden at once."""
    holder = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    holder.setLayout(layout)
    return holder


def field_pair(first: QWidget, caption: str, second: QWidget) -> QHBoxLayout:
    """Two fields sharing a row: ``[first] caption [second]``."""
    row = QHBoxLayout()
    row.setSpacing(10)
    row.addWidget(first, 1)
    row.addWidget(field_label(caption))
    row.addWidget(second, 1)
    return row


def source_row(note: QLabel, button: QPushButton) -> QHBoxLayout:
    """Where a value comes from, with the link button that resets it, on the right."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(note, 1)
    row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
    return row


class InputsColumn(ScrollColumn):
    """A tab's input column: cards added to ``column`` scroll as one; call :meth:`finish`
    once they are all added."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        scroll_area(self)
        self.content = QWidget()
        self.column = column_layout(self.content)

    def finish(self, minimum_width: int) -> None:
        """Close the column (a stretch under the last card) and set the narrowest width."""
        self.column.addStretch(1)
        self.set_content(self.content)  # set once the column is placed (see ScrollColumn)
        self.content.setMinimumWidth(0)
        self.setMinimumWidth(minimum_width)
