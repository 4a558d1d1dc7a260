"""Stacked per-device memory bar (weights, gradients, optimizer, …) against the device's memory."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktopapp.model.units import DASH, format_bytes
from desktopapp.ui.common.theme import MEMORY_COLORS, color


@dataclass(frozen=True)
class Segment:
    """One part of the memory bar: its colour key, label and size in bytes."""

    key: str  # MEMORY_COLORS key
    label: str
    bytes: float


class MemoryBar(QWidget):
    """One horizontal bar: segments left to right, a marker line at the device capacity."""

    BAR_HEIGHT = 30.0

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._segments: list[Segment] = []
        self._capacity: float | None = None
        self._empty = DASH
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(self.sizeHint().height())

    def sizeHint(self) -> QSize:
        fm = QFontMetrics(self.font())
        return QSize(400, int(self.BAR_HEIGHT + 2 * fm.height() + 14))

    def set_segments(self, segments: list[Segment], capacity: float | None) -> None:
        self._segments = [s for s in segments if s.bytes > 0]
        self._capacity = capacity if capacity and capacity > 0 else None
        self.update()

    def clear(self, text: str = DASH) -> None:
        self._segments = []
        self._capacity = None
        self._empty = text
        self.update()

    def total(self) -> float:
        return sum(s.bytes for s in self._segments)

    def segments(self) -> list[Segment]:
        return list(self._segments)

    def capacity(self) -> float | None:
        return self._capacity

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetrics(self.font())
        width = float(self.width())
        top = fm.height() + 6.0
        bar = QRectF(0, top, width, self.BAR_HEIGHT)

        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color("window"))
        painter.drawRoundedRect(bar, 6, 6)

        total = self.total()
        if total <= 0:
            painter.setPen(color("faint"))
            painter.drawText(bar, int(Qt.AlignmentFlag.AlignCenter), self._empty)
            painter.end()
            return

        scale_max = max(total, self._capacity or 0.0) * 1.06
        clip = QPainterPath()
        clip.addRoundedRect(bar, 6, 6)
        painter.save()
        painter.setClipPath(clip)
        x = 0.0
        for seg in self._segments:
            w = seg.bytes / scale_max * width
            painter.setBrush(QColor(MEMORY_COLORS.get(seg.key, "#999999")))
            painter.drawRect(QRectF(x, top, w + 0.5, self.BAR_HEIGHT))
            if w > fm.horizontalAdvance(seg.label) + 12:
                painter.setPen(QColor("white"))
                painter.drawText(
                    QRectF(x, top, w, self.BAR_HEIGHT), int(Qt.AlignmentFlag.AlignCenter), seg.label
                )
                painter.setPen(Qt.PenStyle.NoPen)
            x += w
        if self._capacity is not None and total > self._capacity:
            over = QRectF(self._capacity / scale_max * width, top, width, self.BAR_HEIGHT)
            shade = QColor(color("bad"))
            shade.setAlpha(60)
            painter.setBrush(shade)
            painter.drawRect(over)
        painter.restore()

        # Total above the end of the stack.
        painter.setPen(color("text"))
        total_text = f"{format_bytes(total)} per device"
        tx = min(
            max(x - fm.horizontalAdvance(total_text), 0.0), width - fm.horizontalAdvance(total_text)
        )
        painter.drawText(QPointF(tx, fm.ascent()), total_text)

        # Capacity line with its label under the bar.
        if self._capacity is not None:
            cx = self._capacity / scale_max * width
            fits = total <= self._capacity
            line_color = color("text") if fits else color("bad")
            painter.setPen(QPen(line_color, 2, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(cx, top - 4), QPointF(cx, top + self.BAR_HEIGHT + 4))
            label = f"{format_bytes(self._capacity)} device memory"
            lw = fm.horizontalAdvance(label)
            lx = min(max(cx - lw / 2, 0.0), width - lw)
            painter.setPen(line_color)
            painter.drawText(QPointF(lx, top + self.BAR_HEIGHT + 6 + fm.ascent()), label)
        painter.end()
