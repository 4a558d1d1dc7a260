"""Getting figures out of the app: plots to PNG/SVG, tables to CSV, results with their formula.

- :func:`plot_image`, :func:`save_plot_png`: a plot rendered at a chosen size and pixel ratio.
- :func:`save_plot_svg`: vector SVG through Qt's own ``QSvgGenerator`` (pyqtgraph's SVG
  exporter does not work with current Qt), by rendering the plot widget into it.
- :func:`table_rows`, :func:`save_table_csv`: what a table view shows (header and cells as
  displayed), as CSV.
- :func:`result_text`, :func:`copy_result`: a result card's caption, value and the formula and
  inputs of its tooltip, as plain text for the clipboard.
- :func:`install_export_actions`: adds these as context-menu actions to every plot, table and
  result card under a widget (idempotent, so it can run again when a tab grows).

File choices go through :data:`choose_path`, which tests replace.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QAction, QImage, QImageWriter, QKeySequence, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsView,
    QLabel,
    QTableView,
    QWidget,
)

from desktopapp.model.atomic import atomic_write_bytes
from desktopapp.ui.common.appearance import is_plot_widget
from desktopapp.ui.common.result_card import ResultCard

INSTALLED = "_desktopapp_export_actions"


def _file_dialog(parent: QWidget | None, title: str, suggested: str, filters: str) -> Path | None:
    name, _chosen = QFileDialog.getSaveFileName(parent, title, suggested, filters)
    return Path(name) if name else None


# Replaceable in tests: (parent, title, suggested file name, filter) → path or None.
choose_path: Callable[[QWidget | None, str, str, str], Path | None] = _file_dialog


# --- plots --------------------------------------------------------------------------------------


def _plot_title(widget: Any) -> str:
    try:
        text = str(widget.getPlotItem().titleLabel.text)
    except AttributeError:
        return "plot"
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText().strip() or "plot"


def safe_file_stem(text: str) -> str:
    stem = "".join(c if c.isalnum() else "-" for c in text.lower())
    while "--" in stem:
        stem = stem.replace("--", "-")
    return stem.strip("-")[:60] or "export"


def _render_into(widget: QWidget, painter: QPainter) -> None:
    """Draw a widget at the painter's origin; a graphics view (pyqtgraph) draws its scene
    vectorially into the painter's whole device."""
    if isinstance(widget, QGraphicsView):
        if not widget.isVisible():
            widget.grab()  # delivers a hidden view's pending resize, so its scene is laid out
        viewport = widget.viewport().rect()
        target = QRectF(0.0, 0.0, float(viewport.width()), float(viewport.height()))
        with _uncached(widget.scene()):
            widget.render(painter, target, viewport)
    else:
        widget.render(painter, QPoint(0, 0))


@contextmanager
def _uncached(scene: QGraphicsScene | None) -> Iterator[None]:
    """The scene's items drawn afresh, not from their on-screen pixmaps (the plot axes keep
    one, see ``axes.make_axis``): an SVG gets the axis labels as text, and an image at twice
    the screen's pixels gets them sharp."""
    cached = []
    if scene is not None:
        cached = [
            (item, item.cacheMode())
            for item in scene.items()
            if item.cacheMode() != QGraphicsItem.CacheMode.NoCache
        ]
    for item, _mode in cached:
        item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for item, mode in cached:
            item.setCacheMode(mode)


def plot_image(widget: QWidget, size: QSize | None = None, pixel_ratio: float = 2.0) -> QImage:
    """The plot drawn into an image of ``size`` logical pixels (default: its current size)
    at ``pixel_ratio`` device pixels per logical pixel (sharp in reports and slides)."""
    target = QSize(size) if size is not None else widget.size()
    if target.width() < 10 or target.height() < 10:
        target = QSize(800, 450)
    old_size = widget.size()
    if size is not None:
        widget.resize(target)
    image = QImage(
        int(target.width() * pixel_ratio),
        int(target.height() * pixel_ratio),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.setDevicePixelRatio(pixel_ratio)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        _render_into(widget, painter)
    finally:
        painter.end()
    if size is not None:
        widget.resize(old_size)
    return image


def save_plot_png(widget: QWidget, path: str | Path, pixel_ratio: float = 2.0) -> Path:
    """Write the plot as a PNG (atomically); raises OSError when it cannot be written."""
    target = Path(path)
    image = plot_image(widget, pixel_ratio=pixel_ratio)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QImageWriter(buffer, QByteArray(b"png"))
    if not writer.write(image):
        raise OSError(f"{target.name}: could not encode the image ({writer.errorString()})")
    buffer.close()
    atomic_write_bytes(target, bytes(data.data()))
    return target


def plot_svg(widget: QWidget, title: str = "") -> bytes:
    """The plot as SVG (vector lines and text) through ``QSvgGenerator``."""
    from PySide6.QtSvg import QSvgGenerator

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    size = widget.size()
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle(title or _plot_title(widget))
    generator.setDescription("Exported from ML Capacity Planner")
    painter = QPainter(generator)
    try:
        _render_into(widget, painter)
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())


def save_plot_svg(widget: QWidget, path: str | Path) -> Path:
    target = Path(path)
    atomic_write_bytes(target, plot_svg(widget))
    return target


# --- tables -------------------------------------------------------------------------------------


def table_rows(view: QAbstractItemView) -> list[list[str]]:
    """Header row, then every row as displayed (hidden columns and rows left out)."""
    model = view.model()
    if model is None:
        return []
    hidden_col: Callable[[int], bool] = (
        view.isColumnHidden if isinstance(view, QTableView) else (lambda _c: False)
    )
    hidden_row: Callable[[int], bool] = (
        view.isRowHidden if isinstance(view, QTableView) else (lambda _r: False)
    )
    columns = [c for c in range(model.columnCount()) if not hidden_col(c)]
    header = [  # a header shown on two lines is one name in a file
        " ".join(
            str(
                model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or ""
            ).split()
        )
        for c in columns
    ]
    vertical = [
        str(model.headerData(r, Qt.Orientation.Vertical, Qt.ItemDataRole.DisplayRole) or "")
        for r in range(model.rowCount())
    ]
    show_vertical = (
        isinstance(view, QTableView)
        and view.verticalHeader().isVisible()
        and any(not text.isdigit() for text in vertical)
    )
    rows = [([""] if show_vertical else []) + header]
    for r in range(model.rowCount()):
        if hidden_row(r):
            continue
        cells = [
            str(model.data(model.index(r, c), Qt.ItemDataRole.DisplayRole) or "") for c in columns
        ]
        rows.append(([vertical[r]] if show_vertical else []) + cells)
    return rows


def table_csv(view: QAbstractItemView) -> str:
    import csv  # on export only: every window start loads this module

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(table_rows(view))
    return out.getvalue()


def save_table_csv(view: QAbstractItemView, path: str | Path) -> Path:
    """UTF-8 CSV with a byte-order mark (spreadsheets then read the units right)."""
    target = Path(path)
    atomic_write_bytes(target, ("\ufeff" + table_csv(view)).encode("utf-8"))
    return target


# --- result cards -------------------------------------------------------------------------------


def html_to_text(text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText().strip()


def result_text(card: ResultCard) -> str:
    """``"Wall time: 3.2 days (8 devices at 40% utilization)"`` and, below, the formula and
    inputs from the card's tooltip."""
    caption = card.caption.capitalize()
    detail = card.detail_text()
    line = f"{caption}: {card.value_text()}" + (f" ({detail})" if detail else "")
    tip = html_to_text(card.toolTip()) if card.toolTip() else ""
    return f"{line}\n{tip}" if tip else line


def copy_result(card: ResultCard) -> str:
    text = result_text(card)
    clipboard = QApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(text)
    return text


# --- context menus ------------------------------------------------------------------------------


def _report(widget: QWidget, message: str) -> None:
    window = widget.window()
    status = getattr(window, "show_status", None)
    if callable(status):
        status(message, 6000)


def _save_plot(widget: QWidget, kind: str) -> Path | None:
    title = _plot_title(widget)
    suffix = ".png" if kind == "png" else ".svg"
    filters = "PNG image (*.png)" if kind == "png" else "SVG drawing (*.svg)"
    path = choose_path(
        widget, f"Save plot as {kind.upper()}", safe_file_stem(title) + suffix, filters
    )
    if path is None:
        return None
    if not path.suffix:
        path = path.with_suffix(suffix)
    try:
        (save_plot_png if kind == "png" else save_plot_svg)(widget, path)
    except OSError as exc:
        _report(widget, f"Could not save {path.name}: {exc.strerror or exc}")
        return None
    _report(widget, f"Saved {path.name}")
    return path


def _save_table(view: QAbstractItemView) -> Path | None:
    name = safe_file_stem(view.accessibleName() or view.objectName() or "table") + ".csv"
    path = choose_path(view, "Export table as CSV", name, "CSV table (*.csv)")
    if path is None:
        return None
    if not path.suffix:
        path = path.with_suffix(".csv")
    try:
        save_table_csv(view, path)
    except OSError as exc:
        _report(view, f"Could not save {path.name}: {exc.strerror or exc}")
        return None
    _report(view, f"Saved {path.name}")
    return path


def _add_action(widget: QWidget, text: str, slot: Callable[[], object]) -> QAction:
    action = QAction(text, widget)
    action.triggered.connect(lambda _checked=False: slot())
    widget.addAction(action)
    return action


def install_plot_actions(widget: QWidget) -> list[QAction]:
    if getattr(widget, INSTALLED, False):
        return []
    widget.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    actions = [
        _add_action(widget, "Save plot as PNG…", lambda: _save_plot(widget, "png")),
        _add_action(widget, "Save plot as SVG…", lambda: _save_plot(widget, "svg")),
        _add_action(widget, "Copy plot image", lambda: _copy_image(widget)),
    ]
    setattr(widget, INSTALLED, True)
    widget.setToolTip(widget.toolTip() or "Right-click to save this plot as PNG or SVG")
    return actions


def _copy_image(widget: QWidget) -> None:
    clipboard = QApplication.clipboard()
    if clipboard is not None:
        clipboard.setImage(plot_image(widget))
    _report(widget, "Plot copied")


def install_table_actions(view: QAbstractItemView) -> list[QAction]:
    if getattr(view, INSTALLED, False):
        return []
    if view.contextMenuPolicy() != Qt.ContextMenuPolicy.DefaultContextMenu:
        return []  # the view has its own menu
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    copy = _add_action(view, "Copy table", lambda: _copy_table(view))
    copy.setShortcut(QKeySequence("Ctrl+Shift+Alt+C"))
    copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    actions = [copy, _add_action(view, "Export table as CSV…", lambda: _save_table(view))]
    setattr(view, INSTALLED, True)
    return actions


def _copy_table(view: QAbstractItemView) -> None:
    clipboard = QApplication.clipboard()
    if clipboard is not None:
        clipboard.setText(table_csv(view))
    _report(view, "Table copied as CSV")


def install_card_actions(card: ResultCard) -> list[QAction]:
    if getattr(card, INSTALLED, False):
        return []
    card.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    for label in card.findChildren(QLabel):  # let the card's menu show over its labels
        label.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
    action = _add_action(card, "Copy result with formula", lambda: _copy_card(card))
    setattr(card, INSTALLED, True)
    return [action]


def _copy_card(card: ResultCard) -> None:
    copy_result(card)
    _report(card, f"Copied {card.caption.capitalize()} with its formula")


def install_export_actions(root: QWidget) -> int:
    """Export/copy actions on every plot, table view and result card under ``root``; returns
    how many widgets got them now."""
    count = 0
    for widget in [root, *root.findChildren(QWidget)]:
        if is_plot_widget(widget):
            count += bool(install_plot_actions(widget))
        elif isinstance(widget, QTableView):
            count += bool(install_table_actions(widget))
        elif isinstance(widget, ResultCard):
            count += bool(install_card_actions(widget))
    return count
