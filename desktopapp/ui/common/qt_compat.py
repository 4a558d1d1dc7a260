"""Work around a reference-count bug of PySide6 6.12 on Python 3.10/3.11.

PySide6 6.12 returns ``None`` from every void Qt method (``label.setText``, ``timer.stop`` …)
without taking a reference. From Python 3.12 on ``None`` is immortal and nothing happens; on
3.10/3.11 each call drops one reference and after a few thousand calls CPython aborts with
"Fatal Python error: none_dealloc". :func:`guard_singleton_refcounts` detects the leak with a
short probe and, only when it is present, gives ``None``, ``True`` and ``False`` a very large
reference count so they can never reach zero (which is what 3.12's immortal objects do).
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
