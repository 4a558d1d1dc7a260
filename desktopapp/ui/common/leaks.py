"""Find what a test (or a closing window) left behind: visible windows, workers, timers."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktopapp.ui.common.qt_compat import top_level_widgets
from desktopapp.ui.common.timers import active_timers, stop_all_timers
from desktopapp.ui.common.workers import live_workers, stop_all_workers


def find_leaks(clean_up: bool = True) -> list[str]:
    """One line per kind of leftover; with ``clean_up`` the leftovers are closed/stopped."""
    problems: list[str] = []
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.processEvents()
        visible = [w for w in top_level_widgets() if w.isVisible()]
        if visible:
            names = [f"{type(w).__name__}({w.windowTitle()!r})" for w in visible]
            problems.append(f"visible top-level windows left open: {names}")
            if clean_up:
                for widget in visible:
                    widget.close()
    workers = live_workers()
    if workers:
        problems.append(f"workers still running: {[w.objectName() for w in workers]}")
        if clean_up:
            stop_all_workers()
    timers = active_timers()
    if timers:
        names = [t.objectName() or repr(t) for t in timers]
        problems.append(f"registered timers still active: {names}")
        if clean_up:
            stop_all_timers()
    if clean_up and isinstance(app, QApplication):
        app.processEvents()
    return problems
