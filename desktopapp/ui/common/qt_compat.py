"""Work around a reference-count bug of PySide6 6.12 on Python 3.10/3.11, and a slow import
hook of PySide6.

PySide6 6.12 returns ``None`` from every void Qt method (``label.setText``, ``timer.stop`` …)
without taking a reference. From Python 3.12 on ``None`` is immortal and nothing happens; on
3.10/3.11 each call drops one reference and after a few thousand calls CPython aborts with
"Fatal Python error: none_dealloc". :func:`guard_singleton_refcounts` detects the leak with a
short probe and, only when it is present, gives ``None``, ``True`` and ``False`` a very large
reference count so they can never reach zero (which is what 3.12's immortal objects do).

PySide6 asks of every module imported after it whether its source mentions ``PySide6`` (so
that ``from __feature__ import snake_case`` can switch per module), reading the source with
``inspect.getsource``: tokenizer and line cache, for the hundreds of modules the app, numpy and
pyqtgraph import at start-up. :func:`speed_up_feature_check` asks the same question of the
file's bytes.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from typing import Any

PIN = 1 << 40  # references added per singleton: far more than a session can leak
PROBE_CALLS = 64

_guarded = False


def leaks_none_references() -> bool:
    """True when a void PySide6 call drops a reference to ``None`` (the 6.12 bug)."""
    if sys.version_info >= (3, 12):
        return False  # None is immortal: reference counts do not matter
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(PROBE_CALLS):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before - PROBE_CALLS // 2


def guard_singleton_refcounts() -> bool:
    """Pin ``None``/``True``/``False`` when the bug is present; returns whether it was needed.

    Idempotent and cheap; call it once before the Qt application does any work.
    """
    global _guarded
    if _guarded:
        return True
    if not leaks_none_references():
        return False
    for singleton in (None, True, False):
        # ob_refcnt is the first field of every CPython object.
        refcnt = ctypes.c_ssize_t.from_address(id(singleton))
        refcnt.value += PIN
    _guarded = True
    return True


FAST_CHECK_MARK = "_desktopapp_reads_bytes"


def speed_up_feature_check() -> bool:
    """Make PySide6's per-module "does this module use PySide6?" check read the ``.py`` file's
    bytes instead of going through ``inspect.getsource`` (the same answer: the source contains
    ``PySide6``); any other module (built in, compiled, unreadable) goes to PySide6's own check.

    Call it before PySide6 is imported, so that the modules imported before it are checked the
    fast way too. Returns whether the check is the fast one now; does nothing (False) if this
    PySide6 has no such check. Idempotent.
    """
    import shiboken6  # noqa: F401  (creates shibokensupport, where the check lives)

    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(original):
        return False
    if getattr(original, FAST_CHECK_MARK, False):
        return True

    def uses_pyside(module: Any) -> bool:
        try:
            path = getattr(module, "__file__", None)
        except Exception:  # a module object with its own __getattr__ (torch.classes)
            path = None
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return bool(original(module))

    setattr(uses_pyside, FAST_CHECK_MARK, True)
    setattr(feature, "_mod_uses_pyside", uses_pyside)  # noqa: B010  (a module mypy cannot see)
    return True


def top_level_widgets() -> list[Any]:
    """``QApplication.topLevelWidgets()`` without a garbage-collection race.

    PySide converts the C++ list to Python wrappers one at a time. A garbage collection that
    runs during that conversion can delete a Python-owned window whose pointer is still in the
    list, and the next conversion then touches freed memory (a segmentation fault, seen once in
    CI at a test's teardown). Collect first, then convert with the collector paused.
    """
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return []
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return list(app.topLevelWidgets())
    finally:
        if was_enabled:
            gc.enable()
