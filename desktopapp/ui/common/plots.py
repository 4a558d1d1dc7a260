"""pyqtgraph, imported lazily and styled once so every plot in the app looks the same.

Call :func:`pg` (or :func:`make_plot`) inside the code that builds a plot, never at module
import: the window must appear before pyqtgraph (and its numpy/OpenGL set-up) is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, SERIES

_PG: ModuleType | None = None


def pg() -> ModuleType:
    """The pyqtgraph module, configured for the app's light theme on first use."""
    global _PG
    if _PG is None:
        import pyqtgraph

        pyqtgraph.setConfigOptions(
            antialias=True,
            background=COLORS["surface"],
            foreground=COLORS["muted"],
            leftButtonPan=False,  # drag-to-zoom box; wheel still zooms
        )
        _PG = pyqtgraph
    return _PG


def pen(index: int = 0, width: float = 2.2, dashed: bool = False) -> Any:
    from PySide6.QtCore import Qt

    qpen = pg().mkPen(QColor(SERIES[index % len(SERIES)]), width=width)
    if dashed:
        qpen.setStyle(Qt.PenStyle.DashLine)
    return qpen


def _formatted_axis(orientation: str, fmt: Callable[[float], str]) -> Any:
    """An axis whose tick labels go through ``fmt`` (money, SI counts) instead of 1e+06."""
    module = pg()

    class FormattedAxis(module.AxisItem):  # type: ignore[name-defined]
        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            return [fmt(value * scale) for value in values]

    axis = FormattedAxis(orientation)
    axis.enableAutoSIPrefix(False)
    return axis


def make_plot(
    title: str,
    x_label: str,
    y_label: str,
    *,
    log_x: bool = False,
    log_y: bool = False,
    y_format: Callable[[float], str] | None = None,
    parent: QWidget | None = None,
) -> Any:
    """A styled ``pyqtgraph.PlotWidget`` with a title, axis labels, light grid and no menu.

    ``y_format`` formats the left axis' tick labels (linear axes only), e.g.
    ``model.units.format_money``.
    """
    module = pg()
    axes = {} if y_format is None else {"left": _formatted_axis("left", y_format)}
    widget = module.PlotWidget(parent=parent, axisItems=axes)
    widget.setMinimumHeight(180)
    widget.setMenuEnabled(False)
    widget.setMouseEnabled(x=False, y=False)
    widget.hideButtons()
    item = widget.getPlotItem()
    item.setTitle(
        f"<span style='color:{COLORS['text']}; font-size:{BASE_POINT_SIZE}pt; "
        f"font-weight:600'>{title}</span>"
    )
    label_style = {"color": COLORS["muted"], "font-size": f"{BASE_POINT_SIZE - 1:.0f}pt"}
    item.setLabel("bottom", x_label, **label_style)
    item.setLabel("left", y_label, **label_style)
    tick_font = QFont()
    tick_font.setPointSizeF(BASE_POINT_SIZE - 1.5)
    for name in ("bottom", "left"):
        axis = item.getAxis(name)
        axis.setTickFont(tick_font)
        axis.setPen(module.mkPen(COLORS["border_strong"]))
        axis.setTextPen(module.mkPen(COLORS["muted"]))
    item.showGrid(x=True, y=True, alpha=0.12)
    item.setLogMode(x=log_x, y=log_y)
    widget.setBackground(COLORS["surface"])
    return widget


def marker(color_hex: str | None = None, size: float = 12.0) -> Any:
    """A one-point item for "the current choice"; it follows the plot's log mode like a curve."""
    module = pg()
    fill = QColor(color_hex or SERIES[0])
    item = module.PlotDataItem(
        [],
        [],
        pen=None,
        symbol="o",
        symbolSize=size,
        symbolBrush=module.mkBrush(fill),
        symbolPen=module.mkPen("white", width=2),
    )
    item.setZValue(10)
    return item


def vertical_band(low: float, high: float, color_hex: str | None = None) -> Any:
    """A shaded vertical region (e.g. the typical utilization band), in view coordinates
    (log10 of the value on a log axis)."""
    module = pg()
    fill = QColor(color_hex or COLORS["band"])
    fill.setAlpha(140)
    region = module.LinearRegionItem(
        values=(low, high), movable=False, brush=module.mkBrush(fill), pen=module.mkPen(None)
    )
    region.setZValue(-10)
    return region


def set_log_ticks(plot: Any, values: Sequence[float], axis: str = "bottom") -> None:
    """Fixed, plainly labelled ticks on a log axis (pyqtgraph's defaults crowd short ranges)."""
    import math

    ticks = [(math.log10(v), f"{v:,.0f}" if v >= 1 else f"{v:g}") for v in values if v > 0]
    plot.getPlotItem().getAxis(axis).setTicks([ticks, []])


def set_curve(curve: Any, xs: Sequence[float] | Any, ys: Sequence[float] | Any) -> None:
    """Set data, dropping non-finite points (pyqtgraph draws NaN as gaps, log axes dislike 0)."""
    import numpy as np

    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (y > 0)
    curve.setData(x[keep], y[keep])
