"""A percentage slider with a "typical" band painted behind the groove (e.g. MFU 30-50%)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from desktopapp.ui.common.theme import color


class _BandSlider(QSlider):
    """QSlider that paints the band (in slider units) under the groove and handle."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.band: tuple[int, int] | None = None

    def _x_of(self, value: int) -> float:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self
        )
        span = groove.width() - handle.width()
        offset = QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), value, span)
        return groove.x() + handle.width() / 2 + offset

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.band is not None:
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            low, high = self.band
            x0, x1 = self._x_of(low), self._x_of(high)
            rect = QRectF(x0, self.height() / 2 - 7, x1 - x0, 14)
            fill = QColor(color("good"))
            fill.setAlpha(70)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 4, 4)
            painter.end()
        super().paintEvent(event)


class BandSlider(QWidget):
    """Percent slider (integer percent) with a value label and a labelled typical band.

    ``value_changed(float)`` carries the fraction (0.40 for 40%) on user moves.
    """

    value_changed = Signal(float)

    def __init__(
        self,
        minimum_pct: int,
        maximum_pct: int,
        band_pct: tuple[int, int] | None = None,
        band_label: str = "typical",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.slider = _BandSlider()
        self.slider.setRange(minimum_pct, maximum_pct)
        self.slider.setSingleStep(1)
        self.slider.setPageStep(5)
        self.slider.band = band_pct
        self.slider.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.value_label = QLabel()
        self.value_label.setMinimumWidth(QFontMetrics(self.font()).horizontalAdvance("100%") + 6)
        self.value_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.value_label.setStyleSheet("font-weight: 600;")
        self._scale = _BandScale(minimum_pct, maximum_pct, band_pct, band_label, self.slider)

        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.slider, 1)
        row.addWidget(self.value_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(row)
        layout.addWidget(self._scale)

        self.slider.valueChanged.connect(self._on_slider)
        self._update_label(self.slider.value())

    def fraction(self) -> float:
        return self.slider.value() / 100.0

    def set_fraction(self, fraction: float) -> None:
        """Move without emitting ``value_changed`` (model → widget); clamps to the range."""
        pct = round(fraction * 100)
        pct = max(self.slider.minimum(), min(self.slider.maximum(), pct))
        with QSignalBlocker(self.slider):
            self.slider.setValue(pct)
        self._update_label(pct)

    def band(self) -> tuple[int, int] | None:
        return self.slider.band

    def _update_label(self, pct: int) -> None:
        self.value_label.setText(f"{pct}%")

    def _on_slider(self, pct: int) -> None:
        self._update_label(pct)
        self.value_changed.emit(pct / 100.0)


class _BandScale(QWidget):
    """Tick labels under the slider: the ends and the band, with the band's caption."""

    def __init__(
        self,
        minimum: int,
        maximum: int,
        band: tuple[int, int] | None,
        label: str,
        slider: _BandSlider,
    ) -> None:
        super().__init__()
        self._min, self._max, self._band, self._label = minimum, maximum, band, label
        self._slider = slider
        font = self.font()
        font.setPointSizeF(max(font.pointSizeF() - 1.5, 7.0))
        self.setFont(font)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(200, QFontMetrics(self.font()).height() + 2)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        fm = QFontMetrics(self.font())
        offset = self._slider.x() - self.x()

        def draw(value: int, text: str, tone: str) -> None:
            x = offset + self._slider._x_of(value)
            w = fm.horizontalAdvance(text)
            left = int(min(max(x - w / 2, 0), self.width() - w))
            painter.setPen(color(tone))
            painter.drawText(QRect(left, 0, w + 2, self.height()), 0, text)

        draw(self._min, f"{self._min}%", "faint")
        draw(self._max, f"{self._max}%", "faint")
        if self._band is not None:
            low, high = self._band
            mid = (low + high) // 2
            draw(mid, f"{self._label} {low}-{high}%", "good")
        painter.end()
