"""The Monitor tab's live plots (pyqtgraph: import this module lazily, inside functions): the
grid of plot cards (:mod:`~desktopapp.ui.monitor.plot_card`, axes in
:mod:`~desktopapp.ui.monitor.axes`), their shared time window and the cursor.

Every pyqtgraph item is created once when the grid is built from the first sample's channels;
each refresh only calls ``setData`` / ``setImage`` / ``setXRange`` on those items. A refresh
skips plots that are not on screen. The time axis reads "before now" (x = t − newest sample) or
clock time (x = Unix time, :class:`TimeAxis` in date mode); the cursor keeps an absolute time,
so a pinned cursor stays on its moment while the plots scroll.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QWidget

from desktopapp.model.ringbuffer import MonitorHistory
from desktopapp.model.units import format_duration
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING, current_scale
from desktopapp.ui.monitor.axes import AGO, CLOCK, TimeAxis
from desktopapp.ui.monitor.layout import CurveSpec, GridLayout, format_value
from desktopapp.ui.monitor.plot_card import MonitorPlot

__all__ = ["AGO", "CLOCK", "MonitorPlot", "PlotGrid", "TimeAxis", "visible_span"]

FloatArray = npt.NDArray[np.float64]

MIN_SPAN_S = 2.0  # the x axis grows with the session until it reaches the timebase
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
