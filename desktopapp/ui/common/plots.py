"""pyqtgraph, imported lazily and styled once so every plot in the app looks the same.

Call :func:`pg` (or :func:`make_plot`) inside the code that builds a plot, never at module
import: the window must appear before pyqtgraph (and its numpy/OpenGL set-up) is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QWidget

from desktopapp.ui.common.pyqtgraph_module import pg, style_annotation
from desktopapp.ui.common.theme import (
    BASE_POINT_SIZE,
    COLORS,
    current_scale,
    plot_palette,
    series_color,
)

PLOT_MIN_HEIGHT = 180  # px at scale 1: a plot is never squeezed below (the page scrolls)
BASE_TITLE = "_desktopapp_base_title"  # a plot's title at scale 1 (restyle_plot scales it)


def annotation_point_size() -> float:
    """Font size (pt) of text drawn on a plot, for the active scale: presentation mode
    enlarges annotations as it enlarges ticks."""
    return (BASE_POINT_SIZE - 1.5) * current_scale()


def legend_text_size() -> str:
    """A plot legend's label size for the active scale (pyqtgraph's ``labelTextSize``): one
    point under body text, enlarged in presentation mode like the ticks."""
    return f"{(BASE_POINT_SIZE - 1) * current_scale():.0f}pt"


def pen(index: int = 0, width: float = 2.2, dashed: bool = False) -> Any:
    from PySide6.QtCore import Qt

    qpen = pg().mkPen(QColor(series_color(index)), width=width)
    if dashed:
        qpen.setStyle(Qt.PenStyle.DashLine)
    return qpen


def make_plot(
    title: str,
    x_label: str,
    y_label: str,
    *,
    log_x: bool = False,
    log_y: bool = False,
    y_format: Callable[[float], str] | None = None,
    x_unit: str = "",
    y_unit: str = "",
    parent: QWidget | None = None,
) -> Any:
    """A styled ``pyqtgraph.PlotWidget`` with a title, axis labels, light grid and no menu.

    Both axes label their ticks with :mod:`desktopapp.ui.common.axes` (SI prefixes, never
    ``1e+06`` or ``x1e-06``); ``x_unit``/``y_unit`` follow the prefix on every tick (``1.5 ms``).
    ``y_format`` formats the left axis' tick labels instead (linear axes only), e.g.
    ``model.units.format_money``.
    """
    from desktopapp.ui.common.axes import make_axis

    module = pg()
    palette = plot_palette()
    axes = {
        "bottom": make_axis("bottom", x_unit),
        "left": make_axis("left", y_unit, y_format),
    }
    # No context menu: pyqtgraph then skips building the view box's menu (a fifth of a plot's
    # construction time, paid for every plot before the first tab is complete).
    widget = module.PlotWidget(parent=parent, axisItems=axes, enableMenu=False)
    widget.setMinimumHeight(PLOT_MIN_HEIGHT)  # × the presentation scale (restyle_plot)
    widget.setMenuEnabled(False)
    widget.setMouseEnabled(x=False, y=False)
    widget.hideButtons()
    item = widget.getPlotItem()
    set_titles(widget, title, x_label, y_label)
    tick_font = QFont()
    tick_font.setPointSizeF(BASE_POINT_SIZE - 1.5)
    for name in ("bottom", "left"):
        axis = item.getAxis(name)
        axis.setTickFont(tick_font)
        axis.setPen(module.mkPen(palette.axis))
        axis.setTextPen(module.mkPen(palette.axis_text))
    item.showGrid(x=True, y=True, alpha=0.12)
    item.setLogMode(x=log_x, y=log_y)
    widget.setBackground(palette.background)
    if current_scale() != 1.0:
        # Made while presentation mode is on (a tab builds its plots after the switch): take
        # its fonts and axis contrast now, as restyle() gave the plots that already existed.
        from desktopapp.ui.common.appearance import restyle_plot

        restyle_plot(widget)
    return widget


def set_titles(plot: Any, title: str, x_label: str, y_label: str) -> None:
    """Change a plot's title and axis labels, styled as :func:`make_plot` styles them."""
    item = plot.getPlotItem()
    base = (
        f"<span style='color:{COLORS['text']}; font-size:{BASE_POINT_SIZE}pt; "
        f"font-weight:600'>{title}</span>"
    )
    setattr(plot, BASE_TITLE, base)
    k = current_scale()
    item.setTitle(
        base.replace(f"font-size:{BASE_POINT_SIZE}pt", f"font-size:{BASE_POINT_SIZE * k:.1f}pt")
    )
    label_style = {"color": COLORS["muted"], "font-size": f"{(BASE_POINT_SIZE - 1) * k:.0f}pt"}
    item.setLabel("bottom", x_label, **label_style)
    item.setLabel("left", y_label, **label_style)


def marker(color_hex: str | None = None, size: float = 12.0) -> Any:
    """A one-point item for "the current choice"; it follows the plot's log mode like a curve."""
    module = pg()
    palette = plot_palette()
    fill = QColor(color_hex or palette.series[0])
    item = module.PlotDataItem(
        [],
        [],
        pen=None,
        symbol="o",
        symbolSize=size,
        symbolBrush=module.mkBrush(fill),
        symbolPen=module.mkPen(QColor(palette.marker_outline), width=2),
    )
    item.setZValue(10)
    return item


def vertical_band(low: float, high: float, color_hex: str | None = None) -> Any:
    """A shaded vertical region (e.g. the typical utilization band), in view coordinates
    (log10 of the value on a log axis)."""
    module = pg()
    fill = QColor(color_hex or plot_palette().band)
    fill.setAlpha(140)
    region = module.LinearRegionItem(
        values=(low, high), movable=False, brush=module.mkBrush(fill), pen=module.mkPen(None)
    )
    region.setZValue(-10)
    return region


def set_log_ticks(plot: Any, values: Sequence[float], axis: str = "bottom") -> None:
    """Fixed, plainly labelled ticks on a log axis (pyqtgraph's defaults crowd short ranges),
    in the axes' number format (``1``, ``512``, ``4,096``, ``0.01``, ``2 M``; never ``1e-05``)."""
    import math

    from desktopapp.ui.common.axes import si_tick_label

    item = plot.getPlotItem().getAxis(axis)
    unit = getattr(item, "si_unit", "")
    ticks = [
        (math.log10(v), f"{v:,.0f}" if 1 <= v < 1e6 else si_tick_label(v, unit))
        for v in values
        if v > 0
    ]
    item.setTicks([ticks, []])


EMPTY_NOTE = "_desktopapp_empty_note"  # the "nothing to show" text of an empty plot


def clear_plot(plot: Any) -> None:
    """Remove every curve, marker, annotation and legend entry, and reset the view: the axes
    range over 0…1 again (auto range on) and show tick values, so an emptied plot never keeps
    the previous data's axes. Axis titles and fixed ticks (:func:`set_log_ticks`) stay."""
    item = plot.getPlotItem()
    item.clear()
    legend = getattr(item, "legend", None)
    if legend is not None:
        legend.clear()
    setattr(plot, EMPTY_NOTE, None)
    for name in ("bottom", "left"):
        item.getAxis(name).setStyle(showValues=True)
    item.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0.0)
    item.enableAutoRange()


def show_empty(plot: Any, reason: str) -> Any:
    """Mark a plot with nothing to draw: tick values hidden (no stale or made-up numbers) and
    ``reason`` in the middle ("no training estimate"). The next :func:`clear_plot` undoes it.
    Returns the text item."""
    item = plot.getPlotItem()
    for name in ("bottom", "left"):
        item.getAxis(name).setStyle(showValues=False)
    view = item.getViewBox()
    view.disableAutoRange()
    item.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0.0)
    note = annotation(reason, anchor=(0.5, 0.5), boxed=False)
    note.setColor(QColor(plot_palette().axis_text))
    item.addItem(note, ignoreBounds=True)
    # The view is in log10 units on a log axis; the middle of 0…1 is the middle either way.
    note.setPos(0.5, 0.5)
    setattr(plot, EMPTY_NOTE, note)
    return note


def empty_note(plot: Any) -> str:
    """The reason shown on an empty plot (see :func:`show_empty`), or ``""``."""
    note = getattr(plot, EMPTY_NOTE, None)
    return "" if note is None else str(note.toPlainText())


def data_curves(plot: Any) -> list[Any]:
    """The plot's curves that hold at least one point (markers included)."""
    items = plot.getPlotItem().listDataItems()
    return [i for i in items if i.xData is not None and len(i.xData) > 0]


def set_curve(curve: Any, xs: Sequence[float] | Any, ys: Sequence[float] | Any) -> None:
    """Set data, dropping non-finite points (pyqtgraph draws NaN as gaps, log axes dislike 0)."""
    import numpy as np

    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (y > 0)
    curve.setData(x[keep], y[keep])


def annotation_html(text: str, color_hex: str | None = None, bold: bool = False) -> str:
    """Rich text for a label drawn on a plot: ``text`` in ``color_hex`` (default: the theme's
    annotation text) on the theme's translucent annotation fill, so it reads over curves in
    both themes. A newline in ``text`` starts a new line."""
    import html

    palette = plot_palette()
    weight = "font-weight:700;" if bold else ""
    return (
        f"<span style='color:{color_hex or palette.annotation_text}; {weight} "
        f"font-size:{annotation_point_size():.0f}pt; background:{palette.annotation_css()}'>"
        f"{html.escape(text).replace(chr(10), '<br>')}</span>"
    )


def annotation(text: str = "", anchor: tuple[float, float] = (0.0, 0.0), boxed: bool = True) -> Any:
    """A ``TextItem`` for a plot in the theme's annotation style."""
    item = pg().TextItem(text, anchor=anchor)
    return style_annotation(item, boxed)
