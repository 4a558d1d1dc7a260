"""The Monitor tab's live plots (pyqtgraph: import this module lazily, inside functions).

Every pyqtgraph item is created once when the grid is built from the first sample's channels;
each refresh only calls ``setData`` / ``setImage`` / ``setXRange`` on those items. A refresh
skips plots that are not on screen. The time axis reads "before now" (x = t − newest sample) or
clock time (x = Unix time, :class:`TimeAxis` in date mode); the cursor keeps an absolute time,
so a pinned cursor stays on its moment while the plots scroll.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
from pyqtgraph import AxisItem, DateAxisItem
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGridLayout,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktopapp.model.ringbuffer import MonitorHistory
from desktopapp.model.units import GIB, KIB, MIB, format_duration
from desktopapp.ui.common.plots import pg
from desktopapp.ui.common.theme import (
    BASE_POINT_SIZE,
    COLORS,
    INNER_SPACING,
    current_scale,
    plot_palette,
)
from desktopapp.ui.monitor.controls import FitHeightLabel
from desktopapp.ui.monitor.layout import (
    BYTES_RATE,
    CELSIUS,
    CPU,
    CPU_Y_RANGE,
    PERCENT,
    PERCENT_Y_RANGE,
    STRIP_BOTTOM,
    STRIP_TOP,
    WATTS,
    CurveSpec,
    GridLayout,
    PlotSpec,
    format_ago,
    format_value,
    gpu_color,
    nice_ceiling,
)

_pg = pg()  # configures pyqtgraph (theme colours) before any item is made

FloatArray = npt.NDArray[np.float64]

AGO = "ago"
CLOCK = "clock"
MIN_SPAN_S = 2.0  # the x axis grows with the session until it reaches the timebase
LEFT_AXIS_WIDTH = 66
NICE_STEPS_S: tuple[float, ...] = (
    0.1,
    0.2,
    0.5,
    1,
    2,
    5,
    10,
    15,
    30,
    60,
    120,
    300,
    600,
    900,
    1800,
    3600,
    7200,
    10800,
    21600,
    43200,
    86400,
)
# Heat strip colour scale above 0% (0% is the palette's window colour, so idle cores recede in
# both themes): light blue, blue, then orange and red as a core saturates.
STRIP_RAMP: tuple[tuple[float, str], ...] = (
    (0.35, "#A9C3F7"),
    (0.7, "#2F6FEB"),
    (0.9, "#E0812E"),
    (1.0, "#CF3F3F"),
)


SPAN_STEPS_S: tuple[float, ...] = (2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)


def visible_span(elapsed_s: float, timebase_s: float | None) -> float:
    """Seconds the x axis shows: the timebase, or while the session is shorter, the next
    step of :data:`SPAN_STEPS_S` (doubling past an hour) that holds it. Growing in steps keeps
    the axis still between refreshes instead of rescaling on every sample."""
    span = next((s for s in SPAN_STEPS_S if s >= elapsed_s), 0.0)
    if not span:
        span = SPAN_STEPS_S[-1]
        while span < elapsed_s:
            span *= 2
    span = max(float(span), MIN_SPAN_S)
    return span if timebase_s is None else min(span, timebase_s)


def _byte_unit(value: float) -> tuple[float, str]:
    magnitude = abs(value) if math.isfinite(value) else 0.0
    for factor, name in ((GIB, "GiB/s"), (MIB, "MiB/s"), (KIB, "KiB/s")):
        if magnitude >= factor:
            return float(factor), name
    return 1.0, "B/s"


class TimeAxis(DateAxisItem):
    """Bottom axis: "before now" ticks (``−30 s``, ``−5 min``) or clock time."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom")
        self.mode = AGO

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> Any:
        if self.mode == CLOCK:
            return super().tickValues(minVal, maxVal, size)
        return AxisItem.tickValues(self, minVal, maxVal, size)

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> Any:
        span = maxVal - minVal
        if span <= 0 or size <= 0:
            return []
        most = max(2.0, size / 85.0)  # labelled ticks that fit
        major = NICE_STEPS_S[-1]
        for step in NICE_STEPS_S:
            if span / step <= most:
                major = step
                break
        minor = next((s for s in reversed(NICE_STEPS_S) if s < major and major % s == 0), major)
        return [(major, 0.0), (minor, 0.0)]

    def tickStrings(self, values: Any, scale: float, spacing: float) -> Any:
        if self.mode == CLOCK:
            return super().tickStrings(values, scale, spacing)
        return [format_ago(v, spacing) for v in values]


class ValueAxis(AxisItem):
    """Left axis with units in the tick labels; byte rates use IEC units (KiB/s, MiB/s)."""

    def __init__(self, kind: str) -> None:
        super().__init__(orientation="left")
        self.kind = kind
        self._unit = (1.0, "B/s")

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> Any:
        if self.kind != BYTES_RATE:
            return super().tickSpacing(minVal, maxVal, size)
        factor, name = _byte_unit(max(abs(minVal), abs(maxVal)))
        self._unit = (factor, name)
        levels = super().tickSpacing(minVal / factor, maxVal / factor, size)
        return [(spacing * factor, offset * factor) for spacing, offset in levels]

    def tickStrings(self, values: Any, scale: float, spacing: float) -> Any:
        if self.kind == BYTES_RATE:
            factor, name = self._unit
            return [f"{v / factor:g} {name}" if v else "0" for v in values]
        if self.kind == WATTS:
            return [f"{v:g} W" for v in values]
        if self.kind == CELSIUS:
            return [f"{v:g} °C" for v in values]
        return super().tickStrings(values, scale, spacing)


def _finite_max(arrays: list[FloatArray]) -> float:
    best = -math.inf
    for y in arrays:
        if y.size:
            finite = y[np.isfinite(y)]
            if finite.size:
                best = max(best, float(finite.max()))
    return best


def _finite_min(arrays: list[FloatArray]) -> float:
    best = math.inf
    for y in arrays:
        if y.size:
            finite = y[np.isfinite(y)]
            if finite.size:
                best = min(best, float(finite.min()))
    return best


def _swatch(color: str, label: str, dashed: bool = False, block: bool = False) -> str:
    mark = "■" if block else ("╌" if dashed else "━")
    return (
        f"<span style='color:{color}'>{mark}</span>"
        f"<span style='color:{COLORS['muted']}'>&nbsp;{label}</span>&nbsp; "
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
        parts.append(_swatch(COLORS["accent"], "per core", block=True))
    return "".join(parts)


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
        self.item.getAxis("left").setWidth(round(LEFT_AXIS_WIDTH * current_scale()))
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
        w.setMinimumHeight(110)
        item = w.getPlotItem()
        # Horizontal grid only, drawn by the left axis, which is cached as a pixmap: its ticks
        # rarely change while the time axis scrolls on every refresh.
        item.showGrid(x=False, y=True, alpha=0.12)
        item.getAxis("left").setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # The time axis keeps its range while "before now" scrolls in a fixed window, so its
        # labels are cached too (re-rendered only when the range changes).
        item.getAxis("bottom").setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        item.layout.setContentsMargins(0, 0, 4, 0)
        tick_font = QFont()
        tick_font.setPointSizeF(BASE_POINT_SIZE - 1.5)
        for name in ("bottom", "left"):
            axis = item.getAxis(name)
            axis.setTickFont(tick_font)
            axis.setPen(_pg.mkPen(COLORS["border_strong"]))
            axis.setTextPen(_pg.mkPen(COLORS["muted"]))
        item.getAxis("left").setWidth(round(LEFT_AXIS_WIDTH * current_scale()))
        item.getAxis("left").setStyle(hideOverlappingLabels=False, maxTextLevel=0)
        item.disableAutoRange()
        item.hideButtons()

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
        high = _finite_max(ys)
        if kind == CELSIUS:
            low = _finite_min(ys)
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
            factor, _ = _byte_unit(value)
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


class PlotGrid(QWidget):
    """The grid of :class:`MonitorPlot` cards built from a :class:`GridLayout`.

    ``cursor_changed(t)`` carries the cursor's Unix time (NaN when the cursor is hidden).
    """

    cursor_changed = Signal(float)

    def __init__(self, layout: GridLayout, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layout_spec = layout
        self.mode = AGO
        self.plots: dict[str, MonitorPlot] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(INNER_SPACING)
        for spec in layout.plots:
            plot = MonitorPlot(spec)
            self.plots[spec.key] = plot
            grid.addWidget(plot.frame, spec.row, spec.column)
        rows = 1 + max((s.row for s in layout.plots), default=0)
        cols = 1 + max((s.column for s in layout.plots), default=0)
        for r in range(rows):
            grid.setRowStretch(r, 1)
        for c in range(cols):
            grid.setColumnStretch(c, 1)
        first = next(iter(self.plots.values()), None)
        for plot in self.plots.values():
            if first is not None and plot is not first:
                plot.item.setXLink(first.item)
            scene = plot.widget.scene()
            scene.sigMouseMoved.connect(partial(self._on_mouse_moved, plot))
            scene.sigMouseClicked.connect(partial(self._on_mouse_clicked, plot))
            plot.widget.installEventFilter(self)
        self._first = first
        self._latest = math.nan
        self._series: dict[str, tuple[FloatArray, FloatArray]] = {}
        self._cursor_t = math.nan
        self.pinned = False
        # Smooth (antialiased) lines; the tab turns this off while streaming fast, where it
        # would cost half the drawing time, and back on when paused or sampling slowly.
        self.antialias = True
        self.refreshes = 0
        self._strip_counter = 0

    # --- time mapping -------------------------------------------------------------------------
    def x_of(self, t: float) -> float:
        return t - self._latest if self.mode == AGO else t

    def t_of(self, x: float) -> float:
        return x + self._latest if self.mode == AGO else x

    def set_mode(self, mode: str) -> None:
        if mode not in (AGO, CLOCK):
            raise ValueError(f"mode: must be {AGO!r} or {CLOCK!r}, got {mode!r}")
        self.mode = mode
        for plot in self.plots.values():
            plot.time_axis.set_mode(mode)

    # --- data ---------------------------------------------------------------------------------
    def refresh(self, history: MonitorHistory, timebase_s: float | None, first_t: float) -> int:
        """Redraw the plots on screen from ``history``; returns how many were redrawn."""
        latest = history.raw.last_timestamp()
        if not math.isfinite(latest):
            return 0
        self._latest = latest
        elapsed = max(0.0, latest - first_t) if math.isfinite(first_t) else 0.0
        span = visible_span(elapsed, timebase_s)
        self._strip_counter += 1
        drawn = 0
        for plot in self.plots.values():
            if not plot.on_screen():
                continue
            plot.follow_palette()
            points = max(120, min(800, plot.pixel_width() // 2))
            ys: list[FloatArray] = []
            for channel, curve in plot.curves.items():
                t, y = history.series(channel, timebase_s, points)
                self._series[channel] = (t, y)
                curve.setData(t - latest if self.mode == AGO else t, y, antialias=self.antialias)
                ys.append(y)
            plot.update_y(ys)
            if plot.strip is not None and self._strip_due(plot):
                self._refresh_strip(plot, history, timebase_s)
            drawn += 1
        if self._first is not None:
            x1 = self.x_of(latest)
            self._first.item.setXRange(x1 - span, x1, padding=0)
            # Apply the new range now: left to paint time, the transform change schedules a
            # second paint of every plot.
            for plot in self.plots.values():
                plot.view.updateMatrix()
        if math.isfinite(self._cursor_t):
            self._place_cursor()
        self.refreshes += 1
        return drawn

    def _strip_due(self, plot: MonitorPlot) -> bool:
        cores = len(plot.spec.strip_channels)
        every = max(1, cores // 32)  # many cores: refresh the strip less often
        return self._strip_counter % every == 0

    def _refresh_strip(
        self, plot: MonitorPlot, history: MonitorHistory, timebase_s: float | None
    ) -> None:
        bins = max(30, min(240, plot.pixel_width() // 3))
        columns = []
        t: FloatArray = np.empty(0)
        for channel in reversed(plot.spec.strip_channels):  # core 0 on top
            t, y = history.series(channel, timebase_s, bins, "mean")
            columns.append(y)
        if not columns or t.size < 2:
            plot.update_strip(np.empty(0), np.empty((0, 0)), self.x_of)
            return
        image = np.nan_to_num(np.column_stack(columns), nan=0.0)
        plot.update_strip(t, image, self.x_of)

    def series(self, channel: str) -> tuple[FloatArray, FloatArray] | None:
        """What was last drawn for a channel (absolute times)."""
        return self._series.get(channel)

    # --- cursor -------------------------------------------------------------------------------
    def cursor_time(self) -> float:
        return self._cursor_t

    def set_cursor_time(self, t: float, pinned: bool | None = None) -> None:
        """Show the cursor at Unix time ``t`` in every plot (NaN hides it)."""
        if pinned is not None:
            self.pinned = pinned
        self._cursor_t = t
        if not math.isfinite(t):
            for plot in self.plots.values():
                plot.cursor.hide()
                plot.value_box.hide()
            self.pinned = False
        else:
            self._place_cursor()
        self.cursor_changed.emit(t)

    def readings_at(self, t: float) -> dict[str, list[tuple[CurveSpec, float]]]:
        """Per plot key, each curve's drawn value nearest to time ``t``."""
        out: dict[str, list[tuple[CurveSpec, float]]] = {}
        for key, plot in self.plots.items():
            rows = []
            for curve in plot.spec.curves:
                if not curve.readout:
                    continue
                drawn = self._series.get(curve.channel)
                rows.append((curve, _nearest(drawn, t)))
            out[key] = rows
        return out

    def _place_cursor(self) -> None:
        t = self._cursor_t
        readings = self.readings_at(t)
        x = self.x_of(t)
        for key, plot in self.plots.items():
            plot.cursor.setPos(x)
            plot.cursor.show()
            lines = [
                f"<span style='color:{c.color}'>■</span>&nbsp;{c.label}&nbsp;"
                f"<b>{format_value(plot.spec.kind, v)}</b>"
                for c, v in readings.get(key, [])
            ]
            (x_lo, x_hi), (_y_lo, y_hi) = plot.view.viewRange()
            right_side = x > x_lo + 0.6 * (x_hi - x_lo)
            plot.value_box.setAnchor((1.0, 0.0) if right_side else (0.0, 0.0))
            plot.value_box.setHtml(
                f"<div style='color:{COLORS['text']}; "
                f"font-size:{(BASE_POINT_SIZE - 1.5) * current_scale():.1f}pt'>"
                + "<br>".join(lines)
                + "</div>"
            )
            plot.value_box.setPos(QPointF(x, y_hi))
            plot.value_box.show()

    def cursor_label(self) -> str:
        """The cursor's time in words, e.g. ``14:03:21 · 23 s before the newest sample``."""
        t = self._cursor_t
        if not math.isfinite(t):
            return ""
        clock = datetime.fromtimestamp(t).strftime("%H:%M:%S")
        before = self._latest - t if math.isfinite(self._latest) else math.nan
        if math.isfinite(before) and before >= 0.5:
            return f"{clock} · {format_duration(before)} before now"
        return f"{clock} · newest sample"

    def _time_at(self, plot: MonitorPlot, pos: QPointF) -> float:
        if not plot.view.sceneBoundingRect().contains(pos):
            return math.nan
        return self.t_of(float(plot.view.mapSceneToView(pos).x()))

    def _on_mouse_moved(self, plot: MonitorPlot, pos: QPointF) -> None:
        if self.pinned or not math.isfinite(self._latest):
            return
        t = self._time_at(plot, pos)
        if math.isfinite(t):
            self.set_cursor_time(min(t, self._latest))

    def _on_mouse_clicked(self, plot: MonitorPlot, event: Any) -> None:
        if not math.isfinite(self._latest) or event.button() != Qt.MouseButton.LeftButton:
            return  # the right button opens the plot's context menu
        t = self._time_at(plot, event.scenePos())
        if not math.isfinite(t):
            return
        if self.pinned:
            self.set_cursor_time(math.nan)
        else:
            self.set_cursor_time(min(t, self._latest), pinned=True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Leave and not self.pinned:
            self.set_cursor_time(math.nan)
        return super().eventFilter(watched, event)

    def item_counts(self) -> Mapping[str, int]:
        """Items per plot (constant after construction: updates never add items)."""
        return {key: plot.data_item_count() for key, plot in self.plots.items()}


def _nearest(drawn: tuple[FloatArray, FloatArray] | None, t: float) -> float:
    if drawn is None or not math.isfinite(t):
        return math.nan
    ts, ys = drawn
    if ts.size == 0:
        return math.nan
    i = int(np.searchsorted(ts, t))
    if i >= ts.size:
        i = ts.size - 1
    elif i > 0 and abs(ts[i - 1] - t) <= abs(ts[i] - t):
        i -= 1
    return float(ys[i])
