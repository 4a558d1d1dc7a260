"""Timers the app creates are registered here so tests can assert none is left active.

Use :func:`debounce_timer` for "recompute shortly after the user stops typing" and
:func:`register_timer` for any other ``QTimer`` owned by a tab (monitor polling, animations).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer

_TIMERS: weakref.WeakSet[QTimer] = weakref.WeakSet()

DEBOUNCE_MS = 120


def register_timer(timer: QTimer) -> QTimer:
    _TIMERS.add(timer)
    return timer


def active_timers() -> list[QTimer]:
    """Registered timers that still exist and are running."""
    active: list[QTimer] = []
    for timer in list(_TIMERS):
        if shiboken6.isValid(timer) and timer.isActive():
            active.append(timer)
    return active


def stop_all_timers() -> None:
    for timer in active_timers():
        timer.stop()


def debounce_timer(
    parent: QObject, callback: Callable[[], None], interval_ms: int = DEBOUNCE_MS
) -> QTimer:
    """A registered single-shot timer: ``start()`` it on every change; ``callback`` runs once."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(interval_ms)
    timer.timeout.connect(callback)
    return register_timer(timer)


def when(
    done: Callable[[], bool],
    then: Callable[[], object],
    context: QObject,
    timeout_s: float,
    every_ms: int = 50,
) -> None:
    """Call ``then`` once ``done()`` holds (or after ``timeout_s``), polling every ``every_ms``
    without blocking the event loop; nothing runs once ``context`` is gone."""
    deadline = time.monotonic() + timeout_s

    def poll() -> None:
        if done() or time.monotonic() >= deadline:
            then()
        else:
            QTimer.singleShot(every_ms, context, poll)

    QTimer.singleShot(0, context, poll)
