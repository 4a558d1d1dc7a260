"""The Cost tab's plots: cost per useful GPU-hour against utilization (owning's curve, one flat
line per price, the crossings marked) and the cumulative cost of the plan with the payback
months. What is marked and where the axes end is :mod:`desktopapp.application.cost_plots`;
this module draws it."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from desktopapp.application.cost import OWNING_COLOR
from desktopapp.application.cost_plots import (
    PlotMark,
    caption_on_left,
    crossing_marks,
    cumulative_top,
    curve_legend,
    curve_top,
    payback_marks,
    shows_fleet,
    utilization_caption,
)
from desktopapp.ui.common.axes import make_axis
from desktopapp.ui.common.layouts import plot_row
from desktopapp.ui.common.plots import annotation_html, annotation_point_size
from desktopapp.ui.common.scaled_sheet import scaled_pt
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import COLORS, plot_palette, themed


def _style_axis(plot: Any, name: str) -> None:
    from desktopapp.ui.common.plots import pg

    axis = plot.getPlotItem().getAxis(name)
    font = QFont()
    font.setPointSizeF(annotation_point_size())  # tick size: presentation mode enlarges it
    axis.setTickFont(font)
    axis.setPen(pg().mkPen(COLORS["border_strong"]))
    axis.setTextPen(pg().mkPen(COLORS["muted"]))


def _label_html(text: str, color: str, bold: bool = False) -> str:
    """A caption on a plot in ``color`` (of either theme), at the annotation size of the
    active scale."""
    return annotation_html(text, themed(color), bold)


EDGE_SHARE = 0.15  # the outer share of the months where a short caption faces inwards
UPPER_LEFT = (1.05, 1.15)  # TextItem anchors: the caption's corner nearest the point
LOWER_RIGHT = (-0.05, -0.15)


def payback_anchor(mark: PlotMark, index: int, last_month: float) -> tuple[float, float]:
    """Where a payback caption goes around its crossing. Cumulative costs only rise, so every
    line through the crossing runs from its lower left to its upper right: above and to the
    left, or below and to the right, the caption covers neither line (a caption below and to
    the left sat on owning's line). The first, worded caption, the earliest payback that no
    other line has crossed before, goes above left when the crossing is in the right half of
    the plot (room for its words) and below right otherwise; the short ``m<month>`` captions
    after it alternate between the two, except near a side, where they face inwards (one at
    month 46 of 48 was cut at the right edge)."""
    if index == 0:
        left = mark.x > last_month / 2
    elif mark.x > last_month * (1 - EDGE_SHARE):
        left = True
    elif mark.x < last_month * EDGE_SHARE:
        left = False
    else:
        left = mark.above
    return UPPER_LEFT if left else LOWER_RIGHT


CROSSING_LEFT_FROM = 15.0  # % utilization: a caption left of a crossing from here on


def _keep_inside(plot: Any, text: Any, mark: PlotMark, anchor: tuple[float, float]) -> None:
    """A payback caption that runs past a side of the plot (a long price name, the
    presentation font) moves to the other diagonal of its dot (upper left and lower right both
    keep clear of the rising lines); where neither side has room, it takes its narrower form
    (the pricing on a line of its own) on the side with more room, and in a plot too narrow
    even for that it slides inside."""
    view = plot.getPlotItem().getViewBox()
    view.updateMatrix()  # the range just set, before the first paint applies it
    (x_low, x_high), _y = view.viewRange()

    def overflow(where: tuple[float, float]) -> float:
        text.setAnchor(where)
        text.updateTransform(force=True)
        rect = text.mapRectToView(text.boundingRect())
        return max(0.0, rect.right() - x_high) + max(0.0, x_low - rect.left())

    other = UPPER_LEFT if anchor == LOWER_RIGHT else LOWER_RIGHT
    for where in (anchor, other):
        if overflow(where) == 0.0:
            return
    if mark.narrow_text:
        text.setHtml(_label_html(mark.narrow_text, mark.color, bold=True))
    best = UPPER_LEFT if mark.x - x_low > x_high - mark.x else LOWER_RIGHT
    for where in (best, UPPER_LEFT if best == LOWER_RIGHT else LOWER_RIGHT):
        if overflow(where) == 0.0:
            return
    overflow(best)  # a plot too narrow for it either side: slid inside, off its dot
    rect = text.mapRectToView(text.boundingRect())
    if rect.width() >= x_high - x_low:
        shift = x_low - rect.left()
    else:
        shift = max(0.0, x_low - rect.left()) - max(0.0, rect.right() - x_high)
    text.setPos(mark.x + shift, mark.y)


def crossing_anchor(mark: PlotMark) -> tuple[float, float]:
    """Where a break-even caption goes around the crossing of owning's curve with a price.
    Owning's cost per useful hour falls as utilization rises and a price is flat, so above
    and to the right, or below and to the left, the caption covers neither (below and to the
    right it sat on owning's curve). Near the left edge a caption below goes right, as there
    is no room on the left."""
    if mark.above:
        return (-0.1, 1.1)
    return (1.1, -0.1) if mark.x >= CROSSING_LEFT_FROM else (-0.1, -0.1)


def nbsp(text: str) -> str:
    """Escaped text that does not break across lines."""
    return html.escape(text).replace(" ", "&nbsp;").replace("-", "\u2011")


def swatch(color: str) -> str:
    return f"<span style='color:{themed(color)}; font-size:{scaled_pt(13)}'>■</span>"


class PlotsPanel(Section):
    """Cost per useful GPU-hour against utilization (owning's curve, one flat line per price,
    the crossings marked) and the cumulative cost of the plan with the payback months."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Where owning pays off", parent=parent)
        from desktopapp.ui.common import plots

        self._pg = plots.pg()
        self.curve_plot = plots.make_plot(
            "Cost per useful GPU-hour", "utilization of owned GPUs (%)", ""
        )
        self.cumulative_plot = plots.make_plot("Cumulative cost of the plan", "month", "")
        for plot in (self.curve_plot, self.cumulative_plot):
            plot.getPlotItem().setAxisItems({"left": make_axis("left", "$")})
            _style_axis(plot, "left")
        self.curve_plot.setXRange(0, 100, padding=0.01)
        self._build_owning_items(plots)
        self._dynamic: list[tuple[Any, Any]] = []  # (plot, item) recreated on every update
        self.crossings: list[tuple[float, float, str]] = []  # (u %, $, label) for tests
        self.paybacks: list[tuple[int, float, str]] = []
        # the payback captions as placed (text item, mark, first anchor): placed again when
        # the plot changes size, as where a caption fits depends on the plot's width
        self._payback_captions: list[tuple[Any, PlotMark, tuple[float, float]]] = []
        self.cumulative_plot.getPlotItem().getViewBox().sigResized.connect(
            lambda _view: self._place_payback_captions()
        )
        # The last data drawn, drawn again when the scale changes (captions and swatches
        # are rich text with their size in it).
        self._drawn: tuple[tuple[Any, ...], tuple[Any, ...] | None] | None = None

        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setObjectName("Hint")

        for plot in (self.curve_plot, self.cumulative_plot):
            plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            plot.setMinimumHeight(260)
        self.add(plot_row((self.curve_plot, self.cumulative_plot)), 1)
        self.add(self.legend)

    def changeEvent(self, event: QEvent) -> None:
        """Presentation mode on or off: the captions, drawn as rich text at the scale of the
        moment, are drawn again at the new one."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self._drawn is not None:
            curves, cumulative = self._drawn
            self.set_curves(*curves)
            if cumulative is not None:
                self.set_cumulative(*cumulative)

    def _build_owning_items(self, plots: Any) -> None:
        """Owning's curve, marker and cumulative line, the utilization line and caption: kept
        for the panel's life and given new data on every update."""
        pg = self._pg
        owning_pen = pg.mkPen(QColor(themed(OWNING_COLOR)), width=3.0)
        self.owning_curve = self.curve_plot.plot(pen=owning_pen, name="Owning")
        self.owning_curve.setZValue(5)
        self.utilization_line = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen(QColor(COLORS["faint"]), width=1.2, style=Qt.PenStyle.DashLine),
        )
        self.curve_plot.addItem(self.utilization_line)
        self.owning_marker = plots.marker(themed(OWNING_COLOR), 11)
        self.curve_plot.addItem(self.owning_marker)
        self.utilization_label = pg.TextItem(anchor=(0.0, 0.0))
        self.curve_plot.addItem(self.utilization_label)
        self.owning_cumulative = self.cumulative_plot.plot(
            pen=pg.mkPen(QColor(themed(OWNING_COLOR)), width=3.0)
        )
        self.owning_cumulative.setZValue(5)

    def _add(self, plot: Any, item: Any) -> Any:
        plot.addItem(item)
        self._dynamic.append((plot, item))
        return item

    def _clear_dynamic(self) -> None:
        for plot, item in self._dynamic:
            plot.removeItem(item)
        self._dynamic = []
        self.crossings = []
        self.paybacks = []
        self._payback_captions = []

    def clear(self) -> None:
        self._clear_dynamic()
        for item in (self.owning_curve, self.owning_marker, self.owning_cumulative):
            item.setData([], [])
        self.utilization_label.setText("")
        self.legend.setText("")
        self._drawn = None
        # No stale axes: the ranges of the last comparison go with its curves.
        self.cumulative_plot.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.curve_plot.getPlotItem().setYRange(0, 1, padding=0)

    def _place_payback_captions(self) -> None:
        for text, mark, anchor in self._payback_captions:
            text.setHtml(_label_html(mark.text, mark.color, bold=True))
            text.setPos(mark.x, mark.y)
            _keep_inside(self.cumulative_plot, text, mark, anchor)

    def _mark(self, plot: Any, mark: PlotMark, anchor: tuple[float, float]) -> Any:
        """A dot in the option's colour and its caption."""
        pg = self._pg
        dot = pg.ScatterPlotItem(
            [mark.x],
            [mark.y],
            size=10,
            brush=pg.mkBrush(QColor(themed(mark.color))),
            pen=pg.mkPen(QColor(plot_palette().marker_outline), width=1.5),
        )
        dot.setZValue(12)
        self._add(plot, dot)
        text = pg.TextItem(html=_label_html(mark.text, mark.color, bold=True), anchor=anchor)
        text.setPos(mark.x, mark.y)
        text.setZValue(13)
        self._add(plot, text)
        return text

    def set_curves(
        self,
        utilization: Any,
        owning: Any,
        current_u: float,
        current_cost: float,
        options: Sequence[tuple[str, str, float, float]],
        fleet_u: float | None,
        fleet_cost: float | None,
    ) -> None:
        """``options``: (short label, colour, price per useful hour, break-even u)."""
        import numpy as np

        from desktopapp.ui.common.plots import set_curve

        self._clear_dynamic()
        args = (utilization, owning, current_u, current_cost, options, fleet_u, fleet_cost)
        self._drawn = (args, None)
        pg = self._pg
        set_curve(self.owning_curve, np.asarray(utilization, dtype=float) * 100.0, owning)
        owning_arr = np.asarray(owning, dtype=float)
        floor = float(owning_arr[-1]) if owning_arr.size else 0.0
        top = curve_top([p for _l, _c, p, _b in options], floor, current_cost)
        self.curve_plot.setYRange(0.0, top, padding=0.0)
        for _label, color, price, _u_star in options:
            pen = pg.mkPen(QColor(themed(color)), width=2.0)
            self._add(self.curve_plot, pg.PlotDataItem([0.0, 100.0], [price, price], pen=pen))
        for mark in crossing_marks(options):
            self._mark(self.curve_plot, mark, crossing_anchor(mark))
            self.crossings.append((mark.x, mark.y, mark.label))
        self._show_utilization(current_u, current_cost, top)
        if fleet_u is not None and fleet_cost is not None and shows_fleet(fleet_u, current_u):
            fleet_dot = pg.ScatterPlotItem(
                [fleet_u * 100.0],
                [fleet_cost],
                size=10,
                symbol="d",
                brush=pg.mkBrush(QColor(COLORS["surface"])),
                pen=pg.mkPen(QColor(themed(OWNING_COLOR)), width=2),
            )
            fleet_dot.setZValue(11)
            self._add(self.curve_plot, fleet_dot)
        entries = curve_legend(options, OWNING_COLOR, fleet_u, current_u)
        self.legend.setText(
            " &nbsp; ".join(
                (f"{swatch(e.color)}&nbsp;" if e.color else "")
                + (f"<b>{nbsp(e.text)}</b>" if e.bold else nbsp(e.text))
                for e in entries
            )
        )

    def _show_utilization(self, current_u: float, current_cost: float, top: float) -> None:
        """The dashed line at the chosen utilization, owning's marker and its caption."""
        self.utilization_line.setValue(current_u * 100.0)
        self.owning_marker.setData([current_u * 100.0], [current_cost])
        self.utilization_label.setHtml(
            _label_html(utilization_caption(current_u, current_cost), OWNING_COLOR, True)
        )
        left = caption_on_left(current_u)
        self.utilization_label.setAnchor((1.05, 0.0) if left else (-0.05, 0.0))
        self.utilization_label.setPos(current_u * 100.0, top * 0.98)

    def set_cumulative(
        self,
        months: Any | None,
        owning: Any | None,
        options: Sequence[tuple[str, str, Any, int | None]],
    ) -> None:
        """``options``: (short label, colour, cumulative USD by month, payback month)."""
        import numpy as np

        pg = self._pg
        if self._drawn is not None:
            self._drawn = (self._drawn[0], (months, owning, options))
        if months is None or owning is None:
            self.owning_cumulative.setData([], [])
            return
        x = np.asarray(months, dtype=float)
        owning_arr = np.asarray(owning, dtype=float)
        self.owning_cumulative.setData(x, owning_arr)
        for _label, color, values, _payback in options:
            pen = pg.mkPen(QColor(themed(color)), width=2.0)
            self._add(self.cumulative_plot, pg.PlotDataItem(x, np.asarray(values, float), pen=pen))
        paybacks = [(label, color, month) for label, color, _v, month in options]
        last_month = float(x[-1]) if x.size else 1.0
        top = cumulative_top(owning_arr.tolist(), [list(v) for _l, _c, v, _p in options])
        self.cumulative_plot.setXRange(0, float(x[-1]) if x.size else 1.0, padding=0.02)
        self.cumulative_plot.setYRange(0.0, top, padding=0.0)
        for index, mark in enumerate(payback_marks(paybacks, owning_arr.tolist())):
            anchor = payback_anchor(mark, index, last_month)
            text = self._mark(self.cumulative_plot, mark, anchor)
            self._payback_captions.append((text, mark, anchor))
            self.paybacks.append((int(mark.x), mark.y, mark.label))
        self._place_payback_captions()
