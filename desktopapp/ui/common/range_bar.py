"""A horizontal planning-range bar: the band from low to high with the point estimate marked."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktopapp.model.units import DASH
from desktopapp.ui.common.theme import color


class RangeBar(QWidget):
    """Log-scaled band ``low … high`` with a marker at ``point`` and labelled ends.

    ``ticks`` are multipliers of ``point`` drawn inside the band (×1, ×2, ×3 by default).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._low: float | None = None
        self._point: float | None = None
        self._high: float | None = None
        self._formatter: Callable[[float], str] = lambda v: f"{v:g}"
        self._ticks: tuple[float, ...] = (1.0, 2.0, 3.0)
        self._empty_text = DASH
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(self.sizeHint().height())

    def sizeHint(self) -> QSize:
        fm = QFontMetrics(self.font())
        return QSize(320, 30 + 2 * fm.height())

    def set_range(
        self,
        low: float,
        point: float,
        high: float,
        formatter: Callable[[float], str],
        ticks: tuple[float, ...] = (1.0, 2.0, 3.0),
    ) -> None:
        values = (low, point, high)
        if not all(math.isfinite(v) and v > 0 for v in values) or not low <= high:
            self.clear()
            return
        self._low, self._point, self._high = low, point, high
        self._formatter = formatter
        self._ticks = ticks
        self.update()

    def clear(self, text: str = DASH) -> None:
        self._low = self._point = self._high = None
        self._empty_text = text
        self.update()

    def has_range(self) -> bool:
        return self._low is not None

    def labels(self) -> tuple[str, str]:
        """The texts at the low and high ends (for tests and accessibility)."""
        if self._low is None or self._high is None:
            return DASH, DASH
        return self._formatter(self._low), self._formatter(self._high)

    # --- painting -------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetrics(self.font())
        width = self.width()
        margin = 8.0
        track_y = fm.height() + 8.0
        track_h = 10.0
        track = QRectF(margin, track_y, width - 2 * margin, track_h)

        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color("window"))
        painter.drawRoundedRect(track, track_h / 2, track_h / 2)

        if self._low is None or self._high is None or self._point is None:
            painter.setPen(color("faint"))
            painter.drawText(
                QRectF(0, track_y + track_h + 4, width, fm.height() + 4),
                int(Qt.AlignmentFlag.AlignCenter),
                self._empty_text,
            )
            painter.end()
            return

        low, high, point = self._low, self._high, self._point
        span_lo = math.log10(low) - 0.35 * max(math.log10(high / low), 0.3)
        span_hi = math.log10(high) + 0.35 * max(math.log10(high / low), 0.3)

        def x_of(value: float) -> float:
            frac = (math.log10(value) - span_lo) / (span_hi - span_lo)
            return margin + frac * (width - 2 * margin)

        x_low, x_high, x_point = x_of(low), x_of(high), x_of(point)
        band = QRectF(x_low, track_y - 2, max(x_high - x_low, 2.0), track_h + 4)
        painter.setBrush(color("band"))
        painter.setPen(QPen(color("accent"), 1.2))
        painter.drawRoundedRect(band, 4, 4)

        # Multiplier ticks inside the band, labelled above it.
        small = QFont(self.font())
        small.setPointSizeF(max(self.font().pointSizeF() - 1.5, 7.0))
        painter.setFont(small)
        sfm = QFontMetrics(small)
        for mult in self._ticks:
            value = point * mult
            if not low * 0.999 <= value <= high * 1.001:
                continue
            x = x_of(value)
            painter.setPen(QPen(color("accent_dark"), 1))
            painter.drawLine(QPointF(x, track_y - 2), QPointF(x, track_y + track_h + 2))
            text = f"×{mult:g}"
            painter.setPen(color("muted"))
            painter.drawText(QPointF(x - sfm.horizontalAdvance(text) / 2, sfm.ascent()), text)

        # Point estimate marker.
        painter.setPen(QPen(QColor("white"), 2))
        painter.setBrush(color("accent"))
        painter.drawEllipse(QPointF(x_point, track_y + track_h / 2), 7, 7)

        # End labels under the band, apart and kept inside the widget.
        painter.setFont(self.font())
        label_y = track_y + track_h + 6 + fm.ascent()
        texts = (self._formatter(low), self._formatter(high))
        lefts = end_label_lefts(
            x_low,
            x_high,
            fm.horizontalAdvance(texts[0]),
            fm.horizontalAdvance(texts[1]),
            width,
            fm.horizontalAdvance("  "),
        )
        painter.setPen(color("text"))
        for left, text in zip(lefts, texts, strict=True):
            painter.drawText(QPointF(left, label_y), text)
        painter.end()


def end_label_lefts(
    x_low: float, x_high: float, w_low: float, w_high: float, width: float, gap: float
) -> tuple[float, float]:
    """Left edges of the labels under a band's two ends: each centred under its end, pushed
    apart to at least ``gap`` between them (a narrow band at the presentation font read
    "34.5 min1.73 h") and kept inside the widget's ``width``."""
    left_low = min(max(x_low - w_low / 2, 0.0), width - w_low)
    left_high = min(max(x_high - w_high / 2, 0.0), width - w_high)
    short = left_low + w_low + gap - left_high
    if short > 0:  # pushed apart evenly, then back inside
        left_low = max(0.0, left_low - short / 2)
        left_high = min(width - w_high, left_low + w_low + gap)
        left_low = max(0.0, min(left_low, left_high - gap - w_low))
    return left_low, left_high
