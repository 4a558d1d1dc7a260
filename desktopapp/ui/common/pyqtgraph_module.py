"""The pyqtgraph module, imported when first asked and configured once, and the theme's
annotation box for its text items.

Lives below :mod:`.plots`, :mod:`.axes` and :mod:`.appearance`, which all need the module:
call :func:`pg` inside the code that builds a plot, never at module import (the window must
appear before pyqtgraph and its numpy set-up are loaded).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from PySide6.QtGui import QColor

from desktopapp.ui.common.theme import COLORS, plot_palette

_PG: ModuleType | None = None

#: The PySide6 modules of which pyqtgraph keeps a copy in ``pyqtgraph.Qt``.
MIRRORED = ("QtCore", "QtGui", "QtWidgets")


def import_pyqtgraph() -> ModuleType:
    """Import pyqtgraph without having it build every PySide6 class up front.

    PySide6 (6.7 on) creates each class the first time it is read. pyqtgraph's import copies
    every attribute of QtCore, QtGui and QtWidgets into its own modules ``pyqtgraph.Qt.QtCore``
    and so on (``_copy_attrs``, so that its later patches stay out of PySide6's modules), and
    so reads all ~720 classes: about 90 ms on a 2-core VM, most of its import. The app's first
    tab needs about 60% of them; the others are never made (benchmarks/startup.py: the first
    complete tab about 35 ms sooner).

    Here those three modules of pyqtgraph, which are empty files, are created first and
    forward any name they lack to PySide6's module (a module ``__getattr__``, PEP 562), and
    while pyqtgraph is imported PySide6's modules list no names, so there is nothing to copy.
    pyqtgraph's own patches still land in its modules; a name it did not patch reads PySide6's
    class, made when first asked, as the copy would have held it. PySide6's listing is put
    back as soon as the import ends, whatever happens.

    In a pyqtgraph release listed in :data:`DEFERRED_IN`, the modules of :data:`DEFERRED`
    (items and widgets the app never shows) are not loaded by the import: a stand-in module
    takes each one's place while it runs, and pyqtgraph loads them, and takes the names they
    give it, when one of its names that it lacks is first read (PEP 562) or it is listed. After
    that every name reads what pyqtgraph's own import gives it (tested name by name).

    Falls back to a plain import where pyqtgraph is already imported, where its modules are
    not the empty files this relies on, or where PySide6 builds its classes eagerly.
    """
    loaded = sys.modules.get("pyqtgraph")
    if loaded is not None:
        return loaded
    from PySide6 import QtCore, QtGui, QtWidgets

    sources = {"QtCore": QtCore, "QtGui": QtGui, "QtWidgets": QtWidgets}
    files = _mirror_files()
    listings = {name: vars(module).get("__dir__") for name, module in sources.items()}
    if files is None or None in listings.values():
        import pyqtgraph

        return pyqtgraph
    for name, path in files.items():
        spec = importlib.util.spec_from_file_location(
            f"pyqtgraph.Qt.{name}", path, submodule_search_locations=[str(path.parent)]
        )
        assert spec is not None and spec.loader is not None  # always, for a .py file
        mirror = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mirror)  # the empty file: a package module, as pyqtgraph's
        setattr(mirror, "__getattr__", _forwarder(spec.name, sources[name]))  # noqa: B010
        sys.modules[spec.name] = mirror
    deferring = _version(files) in DEFERRED_IN
    try:
        for module in sources.values():
            setattr(module, "__dir__", list)  # noqa: B010  # lists nothing
        if deferring:
            for name in DEFERRED:
                sys.modules[name] = _stand_in(name)
        import pyqtgraph
    except BaseException:
        for name in files:
            sys.modules.pop(f"pyqtgraph.Qt.{name}", None)
        raise
    finally:
        for name, module in sources.items():
            setattr(module, "__dir__", listings[name])  # noqa: B010
        if deferring:
            for name in DEFERRED:
                sys.modules.pop(name, None)
    if deferring:
        _defer(pyqtgraph)
    return pyqtgraph


#: pyqtgraph's modules for items and widgets the app never shows (regions of interest, an image
#: viewer, a colour-map editor, a data filter and data trees, a plot view drawn in another
#: process, a scatter-plot explorer, a table), in the order its import loads them. With its
#: parameter tree and multiprocess packages, which only they bring in, they are about 30 ms of
#: its import on a 2-core VM. :func:`import_pyqtgraph` loads them when a name of theirs is
#: first read.
DEFERRED = (
    "pyqtgraph.graphicsItems.ROI",
    "pyqtgraph.imageview",
    "pyqtgraph.widgets.ColorMapWidget",
    "pyqtgraph.widgets.DataFilterWidget",
    "pyqtgraph.widgets.DataTreeWidget",
    "pyqtgraph.widgets.DiffTreeWidget",
    "pyqtgraph.widgets.RemoteGraphicsView",
    "pyqtgraph.widgets.ScatterPlotWidget",
    "pyqtgraph.widgets.TableWidget",
)
#: pyqtgraph releases whose import was checked name by name against the deferral
#: (tests/ui/test_pyqtgraph_import.py): no other module of theirs imports those nine while
#: pyqtgraph is imported. Any other release is imported whole.
DEFERRED_IN = frozenset({"0.14.0"})


class _Pending:
    """What a name imported from a deferred module holds while pyqtgraph is imported."""

    __slots__ = ()


_PENDING = _Pending()


def _stand_in(name: str) -> ModuleType:
    """A module in place of deferred ``name`` while pyqtgraph is imported: ``import *`` from
    it gives nothing, and a name imported from it gives :data:`_PENDING` (removed after)."""
    module = ModuleType(name)
    module.__all__ = []  # type: ignore[attr-defined]

    def __getattr__(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _PENDING

    setattr(module, "__getattr__", __getattr__)  # noqa: B010
    return module


def _defer(pyqtgraph: ModuleType) -> None:
    """Drop the pending names and have ``pyqtgraph`` and the packages holding the deferred
    modules load them when a name they lack is first read or they are listed (PEP 562); the
    load gives pyqtgraph the names those modules give it in its own import."""
    parents = {name.rpartition(".")[0] for name in DEFERRED}
    packages = [sys.modules[name] for name in sorted(parents)]
    for package in packages:
        for attr in [attr for attr, value in vars(package).items() if value is _PENDING]:
            delattr(package, attr)

    def load() -> None:
        for package in packages:  # once: a miss after the load is a plain AttributeError
            vars(package).pop("__getattr__", None)
            vars(package).pop("__dir__", None)
        for name in DEFERRED:
            module = importlib.import_module(name)
            for attr in module.__all__:
                setattr(pyqtgraph, attr, getattr(module, attr))

    for package in packages:
        setattr(package, "__getattr__", _loader(package, load))  # noqa: B010
        setattr(package, "__dir__", _lister(package, load))  # noqa: B010


def _loader(package: ModuleType, load: Any) -> Any:
    def __getattr__(attr: str) -> Any:
        if not attr.startswith("__"):
            load()
            if attr in vars(package):
                return vars(package)[attr]
        raise AttributeError(f"module {package.__name__!r} has no attribute {attr!r}")

    return __getattr__


def _lister(package: ModuleType, load: Any) -> Any:
    def __dir__() -> list[str]:
        load()
        return sorted(vars(package))

    return __dir__


def _version(files: dict[str, Path]) -> str | None:
    """The ``__version__`` that pyqtgraph's ``__init__.py`` sets, read from the file (next to
    the copies in ``files``) without importing it."""
    init = files["QtCore"].parents[2] / "__init__.py"
    try:
        text = init.read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("__version__ = "):
            return line.removeprefix("__version__ = ").strip().strip("'\"")
    return None


def _forwarder(mirror: str, source: ModuleType) -> Any:
    """A module ``__getattr__`` for ``mirror`` that reads a name it lacks from ``source``."""

    def __getattr__(name: str) -> Any:
        try:
            return getattr(source, name)
        except AttributeError:
            raise AttributeError(f"module {mirror!r} has no attribute {name!r}") from None

    return __getattr__


def _mirror_files() -> dict[str, Path] | None:
    """pyqtgraph's copies of the PySide6 modules (``pyqtgraph/Qt/QtCore/__init__.py`` ...), or
    None where pyqtgraph is not there or any of them holds code (then they are not plain
    copies, and only pyqtgraph's own import makes them right)."""
    spec = importlib.util.find_spec("pyqtgraph")
    if spec is None or spec.origin is None:
        return None
    root = Path(spec.origin).parent / "Qt"
    files = {name: root / name / "__init__.py" for name in MIRRORED}
    try:
        if any(path.stat().st_size != 0 for path in files.values()):
            return None
    except OSError:
        return None
    return files


def pg() -> ModuleType:
    """The pyqtgraph module, configured for the app's light theme on first use."""
    global _PG
    if _PG is None:
        pyqtgraph = import_pyqtgraph()
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

    On the GUI thread: pyqtgraph's import patches its copies of the PySide6 modules (and, in
    its own plain import, reads every class of them), which is not safe beside another thread's
    imports and Qt work (it crashed the process); :func:`import_pyqtgraph` also hides PySide6's
    name lists while it runs.
    """
    import_pyqtgraph()
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
