"""Small building blocks of the Hardware tab: a flow layout, chips, facts, peak tiles, and the
tab's local style sheet."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.hardware import Chip
from desktopapp.ui.common.scaled_sheet import scaled_pt
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, repolish


def hardware_style_sheet() -> str:
    """Styles only this tab uses (the application style sheet covers the rest), with its font
    sizes at the active scale (presentation mode enlarges them with the body text). Text that
    says something is never in the faint colour (under 4.5:1 on a card in both themes); faint
    is for disabled controls."""
    c = COLORS
    small = scaled_pt(BASE_POINT_SIZE - 1)
    return f"""
QFrame#DeviceCard {{
    background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 8px;
}}
QFrame#DeviceCard[muted="true"] {{ background: {c["surface_alt"]}; }}
QLabel#DeviceKind {{ color: {c["muted"]}; font-size: {small}; font-weight: 700; }}
QLabel#DeviceTitle {{ font-size: {scaled_pt(BASE_POINT_SIZE + 2)}; font-weight: 700;
    color: {c["text"]}; }}
QLabel#FactLabel {{ color: {c["muted"]}; }}
QLabel#FactValue {{ color: {c["text"]}; }}
QLabel#FactNote, QLabel#Muted {{ color: {c["muted"]}; }}
QLabel#Faint {{ color: {c["muted"]}; font-size: {small}; }}
QLabel#Chip {{
    border-radius: 9px; padding: 1px 8px; font-size: {small}; font-weight: 600;
    background: {c["surface_alt"]}; color: {c["muted"]}; border: 1px solid {c["border"]};
}}
QLabel#Chip[tone="ml"] {{
    background: {c["accent_soft"]}; color: {c["accent_dark"]}; border: 1px solid {c["accent_soft"]};
}}
QLabel#Chip[tone="warn"] {{
    background: {c["warn_soft"]}; color: {c["warn"]}; border: 1px solid {c["warn_soft"]};
}}
QLabel#Chip[tone="good"] {{
    background: {c["good_soft"]}; color: {c["good"]}; border: 1px solid {c["good_soft"]};
}}
QFrame#PeakTile {{
    background: {c["surface_alt"]}; border: 1px solid {c["border"]}; border-radius: 6px;
}}
QLabel#PeakCaption {{ color: {c["muted"]}; font-size: {small}; font-weight: 700; }}
QLabel#PeakValue {{ font-size: {scaled_pt(BASE_POINT_SIZE + 3)}; font-weight: 600;
    color: {c["text"]}; }}
QLabel#PeakUnit {{ color: {c["muted"]}; font-size: {small}; }}
QFrame#Notice {{
    background: {c["warn_soft"]}; border: 1px solid {c["warn_soft"]}; border-radius: 8px;
}}
QFrame#Notice[tone="info"] {{
    background: {c["accent_soft"]}; border: 1px solid {c["accent_soft"]};
}}
QLabel#NoticeTitle {{ color: {c["warn"]}; font-weight: 700; }}
QFrame#Notice[tone="info"] QLabel#NoticeTitle {{ color: {c["accent_dark"]}; }}
QLabel#NoticeText {{ color: {c["text"]}; }}
QPushButton#ToggleChip {{
    border-radius: 12px; padding: 3px 12px; min-height: 18px; color: {c["muted"]};
}}
QPushButton#ToggleChip:checked {{
    background: {c["accent_soft"]}; border: 1px solid {c["accent"]}; color: {c["accent_dark"]};
}}
QPushButton#ToggleChip:disabled {{ color: {c["border_strong"]}; border-color: {c["border"]}; }}
QPushButton#Primary {{
    background: {c["accent"]}; color: white; border: 1px solid {c["accent"]}; font-weight: 600;
    padding: 5px 18px;
}}
QPushButton#Primary:hover {{ background: {c["accent_dark"]}; border-color: {c["accent_dark"]}; }}
QPushButton#Primary:disabled {{
    background: {c["border"]}; border-color: {c["border"]}; color: {c["faint"]};
}}
QProgressBar {{
    border: none; background: {c["window"]}; border-radius: 4px; max-height: 8px;
    min-height: 8px; text-align: right;
}}
QProgressBar::chunk {{ background: {c["accent"]}; border-radius: 4px; }}
QTableView, QTreeView {{
    background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 6px;
    gridline-color: {c["border"]}; selection-background-color: {c["accent_soft"]};
    selection-color: {c["text"]}; alternate-background-color: {c["surface_alt"]};
}}
QTableView::item {{ padding: 0px 8px; }}
QHeaderView::section {{
    background: {c["surface_alt"]}; color: {c["muted"]}; border: none;
    border-bottom: 1px solid {c["border"]}; padding: 5px 8px; font-weight: 600;
    font-size: {small};
}}
QTabWidget#SubTabs::pane {{ border: none; border-top: 1px solid {c["border"]}; top: -1px; }}
QTabWidget#SubTabs QTabBar::tab {{ padding: 6px 14px; }}
QLabel#Empty {{ color: {c["muted"]}; font-size: {scaled_pt(BASE_POINT_SIZE + 1)}; }}
"""


class FlowLayout(QLayout):
    """Lays children out left to right and wraps to a new line when the width runs out."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is not None and widget.isHidden():
                continue
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x = area.x()
                y += line_height + self._spacing
                line_height = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + margins.bottom()

    def clear(self) -> None:
        while self._items:
            item = self._items.pop()
            widget = item.widget()
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()


def chip_label(chip: Chip) -> QLabel:
    label = QLabel(chip.label)
    label.setObjectName("Chip")
    label.setProperty("tone", chip.tone)
    label.setToolTip(chip.tooltip)
    return label


def set_tone(widget: QWidget, tone: str) -> None:
    if widget.property("tone") != tone:
        widget.setProperty("tone", tone)
        repolish(widget)


class ChipRow(QWidget):
    """A wrapping row of chips."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.flow = FlowLayout(self)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def set_chips(self, chips: Iterable[Chip]) -> None:
        self.flow.clear()
        for chip in chips:
            self.flow.addWidget(chip_label(chip))
        self.flow.invalidate()
        self.updateGeometry()

    def labels(self) -> list[str]:
        return [label.text() for label in self.findChildren(QLabel) if label.parent() is self]


class PeakTile(QFrame):
    """A small box: precision caption, value and unit (e.g. BF16 / 989 / TFLOP/s)."""

    def __init__(
        self, caption: str, value: str, unit: str = "TFLOP/s", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("PeakTile")
        self.caption = QLabel(caption)
        self.caption.setObjectName("PeakCaption")
        self.value = QLabel(value)
        self.value.setObjectName("PeakValue")
        self.unit = QLabel(unit)
        self.unit.setObjectName("PeakUnit")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(0)
        layout.addWidget(self.caption)
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(self.value, 0, Qt.AlignmentFlag.AlignBaseline)
        row.addWidget(self.unit, 0, Qt.AlignmentFlag.AlignBaseline)
        row.addStretch(1)
        layout.addLayout(row)


class DeviceCard(QFrame):
    """One device: a kind caption, a title, label/value facts, chips and peak tiles."""

    def __init__(self, kind: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DeviceCard")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.kind_label = QLabel(kind.upper())
        self.kind_label.setObjectName("DeviceKind")
        self.title_label = QLabel(title)
        self.title_label.setObjectName("DeviceTitle")
        self.title_label.setWordWrap(True)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.header = QHBoxLayout()
        self.header.setContentsMargins(0, 0, 0, 0)
        self.header.addWidget(self.kind_label)
        self.header.addStretch(1)
        self.facts = QGridLayout()
        self.facts.setContentsMargins(0, 4, 0, 0)
        self.facts.setHorizontalSpacing(14)
        self.facts.setVerticalSpacing(5)
        self.facts.setColumnStretch(1, 1)
        self._row = 0
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(14, 11, 14, 12)
        self.body.setSpacing(6)
        self.body.addLayout(self.header)
        self.body.addWidget(self.title_label)
        self.body.addLayout(self.facts)
        self.fact_values: dict[str, QLabel] = {}
        self.chips: ChipRow | None = None

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Wrapped labels in the facts grid get the height their text needs at their width
        (the grid sizes rows from the unwrapped hint, which cut "Apple M3 Max…" and long
        facts in narrow windows and in presentation mode)."""
        super().resizeEvent(event)
        for label in self.findChildren(QLabel):
            if label.wordWrap() and label.width() > 0:
                needed = label.heightForWidth(label.width())
                if needed > 0 and needed != label.minimumHeight():
                    label.setMinimumHeight(needed)

    def add_badge(self, chip: Chip) -> QLabel:
        label = chip_label(chip)
        self.header.addWidget(label)
        return label

    def add_fact(self, label: str, value: str, note: str = "", tooltip: str = "") -> QLabel:
        caption = QLabel(label)
        caption.setObjectName("FactLabel")
        caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        text = QLabel(value)
        text.setObjectName("FactValue")
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if tooltip:
            text.setToolTip(tooltip)
            caption.setToolTip(tooltip)
        self.facts.addWidget(caption, self._row, 0)
        if note:
            box = QVBoxLayout()
            box.setSpacing(0)
            box.addWidget(text)
            note_label = QLabel(note)
            note_label.setObjectName("Faint")
            note_label.setWordWrap(True)
            if tooltip:
                note_label.setToolTip(tooltip)
            box.addWidget(note_label)
            self.facts.addLayout(box, self._row, 1)
        else:
            self.facts.addWidget(text, self._row, 1)
        self._row += 1
        self.fact_values[label] = text
        return text

    def add_fact_widget(self, label: str, widget: QWidget) -> None:
        caption = QLabel(label)
        caption.setObjectName("FactLabel")
        caption.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.facts.addWidget(caption, self._row, 0)
        self.facts.addWidget(widget, self._row, 1)
        self._row += 1

    def add_widget(self, widget: QWidget | QLayout) -> None:
        if isinstance(widget, QWidget):
            self.body.addWidget(widget)
        else:
            self.body.addLayout(widget)

    def fact(self, label: str) -> str:
        found = self.fact_values.get(label)
        return found.text() if found is not None else ""


class Notice(QFrame):
    """A tinted strip with a title and lines (problems, findings)."""

    def __init__(self, title: str, tone: str = "warn", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Notice")
        self.setProperty("tone", tone)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("NoticeTitle")
        self.header = QHBoxLayout()
        self.header.setContentsMargins(0, 0, 0, 0)
        self.header.addWidget(self.title_label)
        self.header.addStretch(1)
        self.lines_box = QVBoxLayout()
        self.lines_box.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 10)
        layout.setSpacing(4)
        layout.addLayout(self.header)
        layout.addLayout(self.lines_box)
        self._lines: list[str] = []

    def set_lines(self, lines: Iterable[str], title: str | None = None) -> None:
        while self.lines_box.count():
            item = self.lines_box.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
        self._lines = list(lines)
        for line in self._lines:
            label = QLabel(f"•  {line}")
            label.setObjectName("NoticeText")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.lines_box.addWidget(label)
        if title is not None:
            self.title_label.setText(title)
        self.setVisible(bool(self._lines))

    def lines(self) -> list[str]:
        return list(self._lines)


class ToggleChip(QPushButton):
    """A checkable pill button (suites, precisions)."""

    def __init__(
        self, text: str, key: str, tooltip: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(text, parent)
        self.setObjectName("ToggleChip")
        self.setCheckable(True)
        self.key = key
        self.base_tooltip = tooltip
        self.available = True
        self.setToolTip(tooltip)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_available(self, available: bool, why: str = "") -> None:
        self.available = available
        self.setEnabled(available)
        self.setToolTip(self.base_tooltip if available else f"{self.base_tooltip}\n{why}".strip())
