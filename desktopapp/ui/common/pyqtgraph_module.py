"""The pyqtgraph module, imported when first asked and configured once, and the theme's
annotation box for its text items.

Lives below :mod:`.plots`, :mod:`.axes` and :mod:`.appearance`, which all need the module:
call :func:`pg` inside the code that builds a plot, never at module import (the window must
appear before pyqtgraph and its numpy set-up are loaded).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from PySide6.QtGui import QColor

from desktopapp.ui.common.theme import COLORS, plot_palette

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


def preload() -> bool:
    """Import pyqtgraph ahead of the first plot (the Hardware tab calls it once its window is
    up, so the window appears first).

    On the GUI thread: pyqtgraph's import reads every attribute of the PySide6 modules, which
    is not safe beside another thread's imports and Qt work (it crashed the process).
    """
    import pyqtgraph  # noqa: F401

    return True


def style_annotation(item: Any, boxed: bool = True) -> Any:
    """Give a pyqtgraph ``TextItem`` the theme's annotation box (fill and border) or, with
    ``boxed=False``, none; returns the item. :func:`desktopapp.ui.common.appearance.restyle`
    calls it again on a theme change for items made by
    :func:`desktopapp.ui.common.plots.annotation`."""
    module = pg()
    palette = plot_palette()
    if boxed:
        fill = QColor(palette.annotation_fill)
        fill.setAlpha(palette.annotation_alpha)
        # TextItem keeps its box colours in these attributes (pyqtgraph has no setter).
        item.fill = module.mkBrush(fill)
        item.border = module.mkPen(QColor(palette.annotation_border))
    item.setColor(QColor(palette.annotation_text))
    item._desktopapp_annotation = boxed  # restyle() recognises it by this
    item.update()
    return item
