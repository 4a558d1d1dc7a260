"""Plots of the compare view and the report: scenario curves overlaid, and the tornado chart.

The curves come from the model's sweeps (:meth:`ScenarioSummary.curves`) and the tornado from
:mod:`desktopapp.model.sensitivity`; here they are only drawn. pyqtgraph is imported when a
chart is built (through :mod:`desktopapp.ui.common.plots`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QWidget

from desktopapp.application.compare import ScenarioSummary, big_count, legend_labels
from desktopapp.model.sensitivity import SensitivityBar, SensitivityResult
from desktopapp.ui.common import plots
from desktopapp.ui.common.theme import COLORS, SERIES

MONEY = "$"  # axes.MONEY_UNIT: money ticks in one style ($900k … $1.2M)
DEVICE_AXIS_TOP = 3.62  # log10(4096): the device sweep's right end
LOW_COLOR_INDEX = 0  # −25 %: first series colour
HIGH_COLOR_INDEX = 1  # +25 %
OVERLAY_TITLES = (
    "Wall time vs devices",
    "Cost vs devices",
    "Cost vs utilization (MFU)",
    "Owning vs renting per useful GPU-hour",
)


def _scenario_color(index: int) -> str:
    return SERIES[index % len(SERIES)]


def overlay_plots(parent: QWidget | None = None) -> list[Any]:
    """The four empty compare plots (see :data:`OVERLAY_TITLES`)."""
    # Ticks in the app's one number format (ui.common.axes): "1,500 h", "$1.5M", "40 %".
    time_plot = plots.make_plot(
        OVERLAY_TITLES[0], "devices", "wall time", log_x=True, log_y=True, y_unit="h", parent=parent
    )
    cost_plot = plots.make_plot(
        OVERLAY_TITLES[1], "devices", "cost", log_x=True, y_unit=MONEY, parent=parent
    )
    util_plot = plots.make_plot(
        OVERLAY_TITLES[2], "utilization", "cost", x_unit="%", y_unit=MONEY, parent=parent
    )
    tco_plot = plots.make_plot(
        OVERLAY_TITLES[3],
        "fleet utilization",
        "per GPU-h",
        x_unit="%",
        y_unit=MONEY,
        parent=parent,
    )
    for plot in (time_plot, cost_plot):
        plot.setXRange(0, DEVICE_AXIS_TOP, padding=0.02)
        plots.set_log_ticks(plot, (1, 8, 64, 512, 4096))
    out = [time_plot, cost_plot, util_plot, tco_plot]
    for plot in (cost_plot, util_plot, tco_plot):
        # Money ticks are wide: room for them and the axis label side by side.
        plot.getPlotItem().getAxis("left").setWidth(78)
    for plot in out:
        plot.setAccessibleName(_plain(plot))
        # Flat cost lines sit high in "cost vs devices": its legend goes bottom right.
        offset = (-8, -8) if plot is cost_plot else (-8, 8)
        plot.addLegend(offset=offset, labelTextColor=COLORS["text"])
    return out


def _plain(plot: Any) -> str:
    from desktopapp.ui.common.export import html_to_text

    return html_to_text(str(plot.getPlotItem().titleLabel.text))


def fill_overlay(plot_list: Sequence[Any], summaries: Sequence[ScenarioSummary]) -> None:
    """Draw every scenario's curves (one colour each) with a marker at its own choice."""
    time_plot, cost_plot, util_plot, tco_plot = plot_list
    for plot in plot_list:
        plots.clear_plot(plot)  # no stale curves, legend entries or ranges
    max_cost = 0.0
    names = legend_labels(summaries)  # distinct even when scenarios share a name
    for index, summary in enumerate(summaries):
        color = _scenario_color(index)
        curves = summary.curves()
        est = summary.training
        name = names[index]
        if curves.devices is not None and est is not None:
            curve = time_plot.plot(pen=plots.pen(index), name=name)
            plots.set_curve(curve, curves.devices.values, curves.devices.training_hours)
            time_plot.addItem(_marker(color, est.devices, est.training_hours))
            if curves.devices.cost_usd is not None and est.estimated_cost_usd is not None:
                curve = cost_plot.plot(pen=plots.pen(index), name=name)
                plots.set_curve(curve, curves.devices.values, curves.devices.cost_usd)
                cost_plot.addItem(_marker(color, est.devices, est.estimated_cost_usd))
                max_cost = max(max_cost, float(np.nanmax(curves.devices.cost_usd)))
        if curves.utilization is not None and est is not None:
            cost = curves.utilization.cost_usd
            if cost is not None and est.estimated_cost_usd is not None:
                curve = util_plot.plot(pen=plots.pen(index), name=name)
                plots.set_curve(curve, curves.utilization.values * 100.0, cost)
                util_plot.addItem(_marker(color, est.utilization * 100.0, est.estimated_cost_usd))
        if curves.fleet_utilization is not None and curves.onprem_per_useful_hour is not None:
            curve = tco_plot.plot(pen=plots.pen(index), name=f"{name} · owning")
            plots.set_curve(curve, curves.fleet_utilization * 100.0, curves.onprem_per_useful_hour)
            figures = summary.rent_or_buy  # the Cost tab's point: the planned fleet's busy
            if figures is not None:
                tco_plot.addItem(_marker(color, figures.owning_busy * 100.0, figures.owning_rate))
        renting = None if summary.rent_or_buy is None else summary.rent_or_buy.renting_rate
        if renting is not None:
            xs = np.array([5.0, 100.0])
            curve = tco_plot.plot(pen=plots.pen(index, dashed=True), name=f"{name} · renting")
            plots.set_curve(curve, xs, np.full(2, renting))
    time_plot.getPlotItem().enableAutoRange(axis="y")
    for plot in (time_plot, cost_plot):
        plot.setXRange(0, DEVICE_AXIS_TOP, padding=0.02)
    if max_cost > 0:
        cost_plot.setYRange(0, max_cost * 1.15, padding=0)
    util_plot.setXRange(5, 80, padding=0.02)
    tco_plot.setXRange(5, 100, padding=0.02)
    _cap_tco_range(tco_plot, summaries)
    for plot, reason in zip(plot_list, _empty_reasons(summaries), strict=True):
        if not plots.data_curves(plot):
            plots.show_empty(plot, reason)


def _empty_reasons(summaries: Sequence[ScenarioSummary]) -> tuple[str, str, str, str]:
    """Why each overlay plot has nothing to draw (shown on the empty plot)."""
    if not summaries:
        none = "no scenario pinned"
        return (none, none, none, none)
    return (
        "no training estimate",
        "no training estimate with a price",
        "no training estimate with a price",
        "no owning and renting inputs",
    )


def _cap_tco_range(plot: Any, summaries: Sequence[ScenarioSummary]) -> None:
    """Owning per useful hour runs off to infinity at low utilization: show up to 3 × the
    dearest price that matters (cloud prices and owning at the chosen utilization)."""
    anchors = [
        value
        for s in summaries
        if s.rent_or_buy is not None
        for value in (s.rent_or_buy.renting_rate, s.rent_or_buy.owning_rate)
        if value is not None
    ]
    if anchors:
        plot.setYRange(0, max(anchors) * 3.0, padding=0)


def _marker(color: str, x: float, y: float) -> Any:
    item = plots.marker(color, size=11.0)
    item.setData([x], [y])
    return item


# --- tornado ------------------------------------------------------------------------------------


def bar_value_text(bar: SensitivityBar, value: float) -> str:
    if bar.name in ("params", "tokens", "samples"):
        return big_count(value)
    return bar.low_text if value == bar.low_value else bar.high_text


def tornado_label(bar: SensitivityBar) -> str:
    low = bar_value_text(bar, bar.low_value)
    high = bar_value_text(bar, bar.high_value)
    return f"{bar.label}  {low} … {high}"


def tornado_height(result: SensitivityResult | None) -> int:
    """A height that gives every bar pair room for its label."""
    return 90 + 34 * (len(result.bars) if result is not None else 4)


def tornado_plot(metric: str, parent: QWidget | None = None) -> Any:
    title = "Cost of the run" if metric == "cost" else "Wall time"
    plot = plots.make_plot(
        f"{title}: each input ±25%", "change of the result", "", x_unit="%", parent=parent
    )
    plot.setMinimumHeight(260)
    plot.getPlotItem().showGrid(x=True, y=False, alpha=0.15)
    plot.setAccessibleName(f"Sensitivity of the {title.lower()}")
    return plot


def fill_tornado(plot: Any, result: SensitivityResult | None, metric: str) -> list[str]:
    """Draw the bars of ``metric`` ("cost" | "hours"), biggest swing on top; returns the row
    labels from top to bottom (empty when nothing can be shown)."""
    module = plots.pg()
    item = plot.getPlotItem()
    plots.clear_plot(plot)
    base = None if result is None else result.base(metric)
    if result is None or base is None:
        label = "no price: cost not computed" if result is not None else "no training estimate"
        item.getAxis("left").setTicks([[], []])
        item.getAxis("left").setWidth(None)
        plots.show_empty(plot, label)
        return []
    bars = list(result.ranked(metric))
    n = len(bars)
    ticks: list[tuple[float, str]] = []
    span = 1.0
    for side, color_index in (("low", LOW_COLOR_INDEX), ("high", HIGH_COLOR_INDEX)):
        x0: list[float] = []
        widths: list[float] = []
        ys: list[float] = []
        for rank, bar in enumerate(bars):
            change = bar.change(metric, base, side) or 0.0
            pct = change * 100.0
            y = float(n - 1 - rank) + (0.18 if side == "low" else -0.18)
            x0.append(min(0.0, pct))
            widths.append(abs(pct))
            ys.append(y)
            span = max(span, abs(pct))
        graph = module.BarGraphItem(
            x0=x0,
            y=ys,
            width=widths,
            height=0.34,
            brush=module.mkBrush(SERIES[color_index]),
            pen=module.mkPen(None),
        )
        item.addItem(graph)
    for rank, bar in enumerate(bars):
        y = float(n - 1 - rank)
        ticks.append((y, tornado_label(bar)))
        for side, offset in (("low", 0.18), ("high", -0.18)):
            change = bar.change(metric, base, side) or 0.0
            pct = change * 100.0
            if math.isclose(pct, 0.0, abs_tol=0.05):
                continue
            anchor = (0.0, 0.5) if pct > 0 else (1.0, 0.5)
            text = module.TextItem(f"{pct:+.0f}%", color=COLORS["muted"], anchor=anchor)
            item.addItem(text)
            text.setPos(pct + (1.0 if pct > 0 else -1.0) * span * 0.02, y + offset)
    zero = module.InfiniteLine(pos=0.0, angle=90, pen=module.mkPen(COLORS["text"], width=1.2))
    item.addItem(zero)
    axis = item.getAxis("left")
    axis.setTicks([ticks, []])
    metrics = QFontMetrics(axis.style.get("tickFont") or QFont())
    axis.setWidth(max(metrics.horizontalAdvance(label) for _y, label in ticks) + 18)
    plot.setYRange(-0.7, n - 0.3, padding=0)
    plot.setXRange(-span * 1.4, span * 1.4, padding=0)
    return [label for _y, label in ticks]


def tornado_legend_html() -> str:
    low, high = SERIES[LOW_COLOR_INDEX], SERIES[HIGH_COLOR_INDEX]
    swatch = "<span style='color:{c}; font-size:14pt'>■</span>"
    return (
        f"{swatch.format(c=low)} input 25% lower &nbsp;&nbsp; "
        f"{swatch.format(c=high)} input 25% higher &nbsp;&nbsp; "
        "<span>Bars show how much the result moves; biggest effect on top.</span>"
    )
