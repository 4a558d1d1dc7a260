"""Restyle widgets that were already drawn when the theme or the presentation mode changes.

The application style sheet and palette follow :func:`desktopapp.ui.common.theme.apply_theme`
by themselves. What does not: colours written into rich-text labels and per-widget style sheets
(``color:#5E6A7A``), and pyqtgraph plots (background, axes, titles, line widths), which are
styled once when created. :func:`restyle` walks a widget tree and brings those in line:

- every palette colour of either theme found in a label's text or a widget's style sheet is
  replaced by the same-named colour of the active palette (idempotent, in both directions);
- plots get the active background and axis colours; every curve, marker, fill and bar drawn in
  a plot colour of either theme (:func:`desktopapp.ui.common.theme.themed`) switches to the
  same role's colour in the active theme, and annotation boxes made by
  :func:`desktopapp.ui.common.plots.annotation` take the active annotation style; in
  presentation mode (``scale`` > 1) curves are drawn thicker, ticks larger and axes in the
  text colour (high contrast).
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QSplitter, QWidget

from desktopapp.ui.common.theme import (
    BASE_POINT_SIZE,
    COLORS,
    DARK_COLORS,
    LIGHT_COLORS,
    current_scale,
    plot_palette,
    themed,
)

_HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")
_FONT_PT = re.compile(r"font-size:\s*([\d.]+)pt")
_BASE_WIDTH = "_desktopapp_base_width"
_BASE_TITLE = "_desktopapp_base_title"  # = plots.BASE_TITLE (set_titles keeps it current)
_BASE_MIN_HEIGHT = "_desktopapp_base_min_height"
PRESENTATION_LINE_FACTOR = 1.8


def _names_by_hex() -> dict[str, str]:
    names: dict[str, str] = {}
    for palette in (DARK_COLORS, LIGHT_COLORS):  # light wins where both use one hex
        for name, value in palette.items():
            names[value.lower()] = name
    return names


def recolor(text: str) -> str:
    """``text`` with every palette colour (of either theme) swapped for the active one."""
    names = _names_by_hex()

    def swap(match: re.Match[str]) -> str:
        name = names.get(match.group(0).lower())
        return COLORS[name] if name is not None else match.group(0)

    return _HEX.sub(swap, text)


def recolor_widgets(root: QWidget) -> int:
    """Recolour rich-text labels and per-widget style sheets under ``root``; returns how many
    changed."""
    changed = 0
    for widget in [root, *root.findChildren(QWidget)]:
        sheet = widget.styleSheet()
        if sheet and "#" in sheet:
            new_sheet = recolor(sheet)
            if new_sheet != sheet:
                widget.setStyleSheet(new_sheet)
                changed += 1
        if isinstance(widget, QLabel):
            text = widget.text()
            if "#" in text and "<" in text:
                new_text = recolor(text)
                if new_text != text:
                    widget.setText(new_text)
                    changed += 1
    return changed


def is_plot_widget(widget: object) -> bool:
    """A pyqtgraph PlotWidget (checked without importing pyqtgraph)."""
    return callable(getattr(widget, "getPlotItem", None)) and isinstance(widget, QWidget)


def plot_widgets(root: QWidget) -> list[QWidget]:
    return [w for w in [root, *root.findChildren(QWidget)] if is_plot_widget(w)]


def _scaled_title(html_text: str, scale: float) -> str:
    return _FONT_PT.sub(lambda m: f"font-size:{float(m.group(1)) * scale:.1f}pt", html_text)


def restyle_plot(widget: Any, scale: float | None = None) -> None:
    """Colours and line widths of one plot for the active theme and scale."""
    from desktopapp.ui.common.pyqtgraph_module import pg

    module = pg()
    k = current_scale() if scale is None else scale
    presentation = k > 1.0
    widget.setBackground(plot_palette().background)
    item = widget.getPlotItem()
    retint_plot_items(item)
    text_color = COLORS["text"] if presentation else COLORS["muted"]
    tick_font = QFont()
    tick_font.setPointSizeF((BASE_POINT_SIZE - 1.5) * k)
    for name in ("bottom", "left", "right", "top"):
        axis = item.getAxis(name)
        if axis is None or not axis.isVisible():
            continue
        axis.setPen(module.mkPen(COLORS["text"] if presentation else COLORS["border_strong"]))
        axis.setTextPen(module.mkPen(text_color))
        axis.setTickFont(tick_font)
        style = dict(getattr(axis, "labelStyle", {}) or {})
        style["color"] = text_color
        style["font-size"] = f"{(BASE_POINT_SIZE - 1) * k:.0f}pt"
        axis.labelStyle = style
        axis._updateLabel()  # pyqtgraph has no public call to re-render a label's style
    title = getattr(item, "titleLabel", None)
    if title is not None and str(getattr(title, "text", "") or ""):
        base = getattr(widget, _BASE_TITLE, None)
        if base is None:
            base = str(title.text)
            setattr(widget, _BASE_TITLE, base)
        item.setTitle(recolor(_scaled_title(base, k)))
    item.showGrid(x=True, y=True, alpha=0.25 if presentation else 0.12)
    base_height = getattr(widget, _BASE_MIN_HEIGHT, None)
    if base_height is None:
        base_height = widget.minimumHeight()
        setattr(widget, _BASE_MIN_HEIGHT, base_height)
    if base_height > 0:  # charts keep a readable height: the page scrolls instead
        widget.setMinimumHeight(round(base_height * k))
    factor = PRESENTATION_LINE_FACTOR if presentation else 1.0
    for data_item in item.listDataItems():
        pen = getattr(data_item, "opts", {}).get("pen")
        if not isinstance(pen, QPen) or not callable(getattr(data_item, "setPen", None)):
            continue
        base_width = getattr(data_item, _BASE_WIDTH, None)
        if base_width is None:
            base_width = pen.widthF()
            setattr(data_item, _BASE_WIDTH, base_width)
        new_pen = QPen(pen)
        new_pen.setWidthF(base_width * factor)
        data_item.setPen(new_pen)
    legend = getattr(item, "legend", None)
    if legend is not None:
        legend.setLabelTextColor(QColor(COLORS["text"]))
        legend.setLabelTextSize(f"{(BASE_POINT_SIZE - 1) * k:.0f}pt")


def _retinted(color: QColor) -> QColor | None:
    """``color`` in the active theme (alpha kept), or None when it is no plot colour."""
    new = themed(color.name())
    if new.lower() == color.name().lower():
        return None
    out = QColor(new)
    out.setAlpha(color.alpha())
    return out


def _retint_pen(pen: object) -> QPen | None:
    if not isinstance(pen, QPen):
        return None
    color = _retinted(pen.color())
    if color is None:
        return None
    new = QPen(pen)
    new.setColor(color)
    return new


def _retint_brush(brush: object) -> QBrush | None:
    if not isinstance(brush, QBrush):
        return None
    color = _retinted(brush.color())
    if color is None:
        return None
    new = QBrush(brush)
    new.setColor(color)
    return new


def retint_plot_items(plot_item: Any) -> int:
    """Switch the colours of everything drawn in ``plot_item`` (a pyqtgraph ``PlotItem``) to
    the active theme's colours of the same role; returns how many items changed."""
    from desktopapp.ui.common.pyqtgraph_module import pg, style_annotation

    module = pg()
    changed = 0
    for item in list(getattr(plot_item, "items", [])):
        if isinstance(item, module.TextItem):
            boxed = getattr(item, "_desktopapp_annotation", None)
            if boxed is not None:
                style_annotation(item, boxed)
                changed += 1
            continue
        opts = getattr(item, "opts", None)
        if not isinstance(opts, dict):
            continue
        touched = False
        for key, setter in (
            ("pen", "setPen"),
            ("symbolPen", "setSymbolPen"),
            ("brush", "setBrush"),
            ("symbolBrush", "setSymbolBrush"),
            ("fillBrush", "setFillBrush"),
        ):
            value = opts.get(key)
            new: QPen | QBrush | None = (
                _retint_pen(value) if key.endswith("en") else _retint_brush(value)
            )
            if new is None:
                continue
            if isinstance(item, module.BarGraphItem):
                item.setOpts(**{key: new})
            elif callable(getattr(item, setter, None)):
                getattr(item, setter)(new)
            else:
                continue
            touched = True
        changed += int(touched)
    return changed


def fit_splitters(root: QWidget) -> int:
    """Give the first pane of every side-by-side splitter the width its content needs (larger
    fonts need more); the other panes give it up. Returns how many were widened."""
    widened = 0
    for splitter in root.findChildren(QSplitter):
        if splitter.orientation() != Qt.Orientation.Horizontal or splitter.count() < 2:
            continue
        first = splitter.widget(0)
        inner = first.widget() if isinstance(first, QScrollArea) else first
        if inner is None:
            continue
        need = inner.minimumSizeHint().width()
        if isinstance(first, QScrollArea):
            bar = first.verticalScrollBar()
            need += (bar.sizeHint().width() if bar is not None else 0) + 2
        sizes = splitter.sizes()
        second = splitter.widget(1)
        if second is None:
            continue
        spare = sizes[1] - second.minimumSizeHint().width()
        if sizes[0] < need and spare > 0:
            grow = min(need - sizes[0], spare)
            splitter.setSizes([sizes[0] + grow, sizes[1] - grow, *sizes[2:]])
            widened += 1
    return widened


def restyle(root: QWidget) -> None:
    """Bring everything under ``root`` in line with the active theme and scale."""
    recolor_widgets(root)
    for plot in plot_widgets(root):
        restyle_plot(plot)
    if current_scale() != 1.0:
        fit_splitters(root)
    root.update()


def restyle_application(skip: QWidget | None = None) -> None:
    """:func:`restyle` every visible top-level window of the application (a hidden one is
    restyled by its owner when shown again)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        from desktopapp.ui.common.qt_compat import top_level_widgets

        for widget in top_level_widgets():
            if widget.isVisible() and widget is not skip:
                restyle(widget)
