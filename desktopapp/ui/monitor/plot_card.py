"""One plot card of the Monitor tab (pyqtgraph: import lazily): header with title and
legend, the PlotWidget with its curves, the cursor line and value box, and for the CPU the
per-core heat strip. Every item is created once; updates only set data and ranges."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QFrame, QGraphicsItem, QSizePolicy, QVBoxLayout

from desktopapp.model.units import KIB
from desktopapp.ui.common.plots import pg
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, current_scale, plot_palette
from desktopapp.ui.monitor.axes import TimeAxis, ValueAxis, byte_unit
from desktopapp.ui.monitor.controls import FitHeightLabel
from desktopapp.ui.monitor.layout import (
    CELSIUS,
    CPU,
    CPU_Y_RANGE,
    PERCENT,
    PERCENT_Y_RANGE,
    STRIP_BOTTOM,
    STRIP_TOP,
    WATTS,
    CurveSpec,
    PlotSpec,
    gpu_color,
    nice_ceiling,
)

_pg = pg()  # configures pyqtgraph (theme colours) before any item is made

FloatArray = npt.NDArray[np.float64]

LEFT_AXIS_WIDTH = 66
# A plot never gets shorter than this (× the presentation scale): on a short window the page
# scrolls instead of squeezing the plots to slivers with cut time labels.
PLOT_MIN_HEIGHT = 130
# Heat strip colour scale above 0% (0% is the palette's window colour, so idle cores recede in
# both themes): light blue, blue, then orange and red as a core saturates.
STRIP_RAMP: tuple[tuple[float, str], ...] = (
    (0.35, "#A9C3F7"),
    (0.7, "#2F6FEB"),
    (0.9, "#E0812E"),
    (1.0, "#CF3F3F"),
)


def _finite_range(arrays: list[FloatArray]) -> tuple[float, float]:
    """(lowest, highest) finite value over the arrays; (inf, -inf) when there is none."""
    low, high = math.inf, -math.inf
    for y in arrays:
        finite = y[np.isfinite(y)]
        if finite.size:
            low, high = min(low, float(finite.min())), max(high, float(finite.max()))
    return low, high


def _swatch(color: str, label: str, dashed: bool = False, block: bool = False) -> str:
    mark = "■" if block else ("╌" if dashed else "━")
    return (
        f"<span style='color:{color}'>{mark}</span>"
        f"<span style='color:{COLORS['muted']}'>&nbsp;{label.replace(' ', '&nbsp;')}</span>&nbsp; "
    )


def _legend_html(spec: PlotSpec) -> str:
    """Title and legend. With several GPUs the line styles are explained once in grey and
    each GPU gets a colour swatch, instead of one entry per curve."""
    parts = [
        f"<span style='color:{COLORS['text']}; font-weight:600'>{spec.title}</span>&nbsp;&nbsp; "
    ]
    gpus = sorted({c.gpu for c in spec.curves if c.gpu is not None})
    if len(gpus) > 1:
        seen: set[tuple[str, bool]] = set()
        for curve in spec.curves:
            key = (curve.what, curve.dashed)
            if curve.what and key not in seen:
                seen.add(key)
                parts.append(_swatch(COLORS["faint"], curve.what, curve.dashed))
        parts += [_swatch(gpu_color(i), f"GPU {i}", block=True) for i in gpus]
    else:
        parts += [_swatch(c.color, c.what or c.label, c.dashed) for c in spec.curves]
    if spec.strip_channels:
        parts.append(_ramp_swatch("per core, 0 → 100%"))
    return "".join(parts)


def _ramp_swatch(label: str) -> str:
    """The heat strip's colour scale as a legend entry: idle → busy in the strip's colours,
    kept on one line like the other entries (it wrapped as "per core, 0" / "→ 100%")."""
    blocks = "".join(f"<span style='color:{c}'>■</span>" for _p, c in STRIP_RAMP)
    words = label.replace(" ", "&nbsp;")
    return f"{blocks}<span style='color:{COLORS['muted']}'>&nbsp;{words}</span>&nbsp; "


class MonitorPlot:
    """One plot card: header with title and legend, the PlotWidget, its curves, the cursor line
    and value box, and for the CPU the per-core heat strip."""

    def __init__(self, spec: PlotSpec) -> None:
        self.spec = spec
        self.frame = QFrame()
        self.frame.setObjectName("Section")
        self.header = FitHeightLabel(_legend_html(spec))
        self.header.setObjectName("PlotHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        # A long legend wraps rather than widening the whole column or being clipped.
        self.header.setWordWrap(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.header.setMinimumWidth(0)
        self.time_axis = TimeAxis()
        self.value_axis = ValueAxis(spec.kind)
        self.widget = _pg.PlotWidget(axisItems={"bottom": self.time_axis, "left": self.value_axis})
        self._style_widget()
        # The view paints its whole background itself: Qt need not paint the card beneath.
        self.widget.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        layout = QVBoxLayout(self.frame)
        layout.setContentsMargins(10, 8, 8, 4)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.widget, 1)

        item = self.widget.getPlotItem()
        self.item = item
        self.view = item.getViewBox()
        self.curves: dict[str, Any] = {}
        for curve in spec.curves:
            self.curves[curve.channel] = self._make_curve(curve)
        self.strip: Any = None
        if spec.strip_channels:
            self.strip = _pg.ImageItem(axisOrder="col-major")
            self.strip.setLevels((0.0, 100.0))
            self.strip.setZValue(-5)
            item.addItem(self.strip, ignoreBounds=True)
            self.strip.hide()
        self.cursor = _pg.InfiniteLine(angle=90, movable=False)
        self.cursor.setZValue(20)
        item.addItem(self.cursor, ignoreBounds=True)
        self.cursor.hide()
        self.value_box = _pg.TextItem(html="", anchor=(0, 0))
        self.value_box.setZValue(30)
        item.addItem(self.value_box, ignoreBounds=True)
        self.value_box.hide()
        self.top: float | None = None
        self.bottom = 0.0
        self.palette_key = ""
        self.follow_palette()
        self._set_fixed_range()

    def follow_palette(self) -> None:
        """What the app's restyle does not reach: the cursor, its value box, the heat strip's
        colour scale (palette) and the value axis width (presentation scale, kept equal in
        every plot so the time axes line up). Cheap when nothing changed."""
        key = f"{COLORS['surface']}@{current_scale()}"
        if key == self.palette_key:
            return
        self.palette_key = key
        self._scale_axes()
        self.header.setText(_legend_html(self.spec))
        pen = _pg.mkPen(QColor(COLORS["text"]), width=1, style=Qt.PenStyle.DashLine)
        self.cursor.setPen(pen)
        fill = QColor(COLORS["surface"])
        fill.setAlpha(235)
        # TextItem keeps its box colours in these attributes (no setter in pyqtgraph).
        self.value_box.fill = _pg.mkBrush(fill)
        self.value_box.border = _pg.mkPen(QColor(COLORS["border_strong"]))
        self.value_box.update()
        if self.strip is not None:
            stops = [(0.0, COLORS["window"]), *STRIP_RAMP]
            cmap = _pg.ColorMap([p for p, _ in stops], [c for _, c in stops])
            self.strip.setLookupTable(cmap.getLookupTable(0.0, 1.0, 256))

    # --- construction -----------------------------------------------------------------------
    def _style_widget(self) -> None:
        w = self.widget
        w.setBackground(COLORS["surface"])
        w.setMenuEnabled(False)
        w.setMouseEnabled(x=False, y=False)
        w.hideButtons()
        item = w.getPlotItem()
        # Horizontal grid only, drawn by the left axis, which is cached as a pixmap: its ticks
        # rarely change while the time axis scrolls on every refresh.
        item.showGrid(x=False, y=True, alpha=0.12)
        item.getAxis("left").setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # The time axis keeps its range while "before now" scrolls in a fixed window, so its
        # labels are cached too (re-rendered only when the range changes).
        item.getAxis("bottom").setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        item.layout.setContentsMargins(0, 0, 4, 0)
        for name in ("bottom", "left"):
            axis = item.getAxis(name)
            axis.setPen(_pg.mkPen(COLORS["border_strong"]))
            axis.setTextPen(_pg.mkPen(COLORS["muted"]))
        self._scale_axes()
        item.getAxis("left").setStyle(hideOverlappingLabels=False, maxTextLevel=0)
        item.disableAutoRange()
        item.hideButtons()

    def _scale_axes(self) -> None:
        """Tick fonts, the value axis' width, the time axis' height and the plot's minimum
        height for the presentation scale: ticks in presentation mode are at least the
        normal body size, and the time axis is tall enough for its labels."""
        k = current_scale()
        item = self.widget.getPlotItem()
        tick_font = QFont()
        tick_font.setPointSizeF((BASE_POINT_SIZE - 1.5) * k)
        for name in ("bottom", "left"):
            item.getAxis(name).setTickFont(tick_font)
        item.getAxis("left").setWidth(round(LEFT_AXIS_WIDTH * k))
        text_height = QFontMetrics(tick_font).height()
        item.getAxis("bottom").setHeight(text_height + 10)
        self.widget.setMinimumHeight(round(PLOT_MIN_HEIGHT * k))
        self.widget._desktopapp_base_min_height = PLOT_MIN_HEIGHT  # restyle_plot scales it too

    def _make_curve(self, spec: CurveSpec) -> Any:
        color = QColor(spec.color)
        pen = _pg.mkPen(color, width=spec.width)
        if spec.dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        curve = _pg.PlotCurveItem(pen=pen, connect="finite", antialias=True)
        if spec.fill:
            fill = QColor(color)
            fill.setAlpha(plot_palette().fill_alpha)
            curve.setFillLevel(0.0)
            curve.setBrush(_pg.mkBrush(fill))
        self.item.addItem(curve)
        return curve

    def _set_fixed_range(self) -> None:
        kind = self.spec.kind
        left = self.item.getAxis("left")
        if kind == PERCENT:
            self.item.setYRange(*PERCENT_Y_RANGE, padding=0)
            left.setTicks([[(0, "0%"), (50, "50%"), (100, "100%")], [(25, ""), (75, "")]])
        elif kind == CPU:
            self.item.setYRange(*CPU_Y_RANGE, padding=0)
            mid = (STRIP_TOP + STRIP_BOTTOM) / 2
            left.setTicks(
                [[(0, "0%"), (50, "50%"), (100, "100%"), (mid, "cores")], [(25, ""), (75, "")]]
            )
        elif kind == CELSIUS:
            self.bottom, self.top = 20.0, 90.0
            self.item.setYRange(self.bottom, self.top, padding=0)
        else:
            self.top = 1.0
            self.item.setYRange(0.0, self.top, padding=0)

    # --- updates ------------------------------------------------------------------------------
    def on_screen(self) -> bool:
        viewport = self.widget.viewport()
        return viewport.isVisible() and not viewport.visibleRegion().isEmpty()

    def pixel_width(self) -> int:
        return max(0, int(self.view.width()))

    def update_y(self, ys: list[FloatArray]) -> None:
        """Adapt the y range to the data, with hysteresis (no axis jitter every tick)."""
        kind = self.spec.kind
        if kind in (PERCENT, CPU):
            return
        low, high = _finite_range(ys)
        if kind == CELSIUS:
            bottom = 20.0 if not math.isfinite(low) or low >= 20 else 10 * math.floor(low / 10)
            top = 90.0 if not math.isfinite(high) or high <= 85 else 10 * math.ceil(high / 10 + 0.5)
            if (bottom, top) != (self.bottom, self.top):
                self.bottom, self.top = bottom, top
                self.item.setYRange(bottom, top, padding=0)
            return
        if kind == WATTS:
            wanted = nice_ceiling(max(high * 1.08, 50.0) if math.isfinite(high) else 50.0)
        else:  # BYTES_RATE
            floor = 16 * KIB
            value = max(high * 1.15, floor) if math.isfinite(high) else floor
            factor, _ = byte_unit(value)
            wanted = nice_ceiling(value / factor) * factor
        current = self.top or 0.0
        if wanted > current or wanted < 0.4 * current:
            self.top = wanted
            self.item.setYRange(0.0, wanted, padding=0)

    def update_strip(
        self, t: FloatArray, image: FloatArray, x_of: Callable[[float], float]
    ) -> None:
        if self.strip is None:
            return
        if t.size < 2:
            self.strip.hide()
            return
        x0, x1 = x_of(float(t[0])), x_of(float(t[-1]))
        step = (x1 - x0) / (t.size - 1)
        self.strip.setImage(image, autoLevels=False, levels=(0.0, 100.0))
        self.strip.setRect(
            QRectF(x0 - step / 2, STRIP_BOTTOM, (x1 - x0) + step, STRIP_TOP - STRIP_BOTTOM)
        )
        self.strip.show()

    def data_item_count(self) -> int:
        return len(self.item.items)
