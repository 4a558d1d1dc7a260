"""The contract of a tab that recomputes its results from its inputs (Workload, Cost).

Edits call :meth:`RecomputingTab.schedule`; a short single-shot timer coalesces them into one
:meth:`~RecomputingTab.recompute`, the one handler that reads every field, runs the model and
shows the results, then calls :meth:`~RecomputingTab.recomputed_once`. The main window waits for
``ready`` (the first results) and calls :meth:`~RecomputingTab.shutdown` on close; tests and
screenshots call :meth:`~RecomputingTab.flush`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QWidget

from desktopapp.ui.common.timers import debounce_timer


class RecomputingTab(QWidget):
    """Base of a tab with a debounced :meth:`recompute` (see the module docstring)."""

    ready = Signal()
    recomputed = Signal()
    # Each tab defines it: read every field, run the model, show the results.
    recompute: Callable[[], None]

    def __init__(self, parent: QWidget | None = None, timer_name: str = "") -> None:
        super().__init__(parent)
        self._ready = False
        self._timer = debounce_timer(self, self.recompute)
        if timer_name:
            self._timer.setObjectName(timer_name)

    def recomputed_once(self) -> None:
        """End of a :meth:`recompute`: ``ready`` the first time, ``recomputed`` every time."""
        if not self._ready:
            self._ready = True
            self.ready.emit()
        self.recomputed.emit()

    def is_ready(self) -> bool:
        return self._ready

    def shutdown(self) -> None:
        self._timer.stop()

    def closeEvent(self, event: QCloseEvent) -> None:  # a tab shown on its own (tests)
        self.shutdown()
        super().closeEvent(event)

    def schedule(self) -> None:
        """Recompute shortly after the last edit (coalesces fast typing and dragging)."""
        self._timer.start()

    def flush(self) -> None:
        """Run a pending recompute now (tests, screenshots)."""
        if self._timer.isActive():
            self._timer.stop()
            self.recompute()
