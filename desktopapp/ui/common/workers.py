"""Background work: QThread workers in one registry, and a runner that drops stale results.

- :class:`Worker` runs one callable in its own ``QThread`` and reports the result or the error
  message through queued signals (delivered on the GUI thread).
- Every started worker is kept in a module registry until its thread ends, so nothing is
  garbage-collected while running and tests can assert :func:`live_workers` is empty.
- :class:`TaskRunner` owns a generation counter: each :meth:`TaskRunner.submit` starts a new
  generation and a result that arrives from an older one is dropped, so a slow computation never
  overwrites the answer to newer inputs.

Long functions should check ``QThread.currentThread().isInterruptionRequested()`` between steps;
:meth:`TaskRunner.cancel` and :func:`stop_all_workers` request interruption.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

_LIVE: set[Worker] = set()


class Worker(QThread):
    """Runs ``fn()`` in a thread; emits ``succeeded(generation, result)`` or ``failed``."""

    succeeded = Signal(int, object)
    failed = Signal(int, str)

    def __init__(
        self,
        fn: Callable[[], Any],
        generation: int = 0,
        name: str = "worker",
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._fn = fn
        self.generation = generation
        self.setObjectName(name)

    def run(self) -> None:  # runs in the worker thread
        try:
            result = self._fn()
        except Exception as exc:  # reported to the GUI, never raised into Qt
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.failed.emit(self.generation, message)
            traceback.print_exc()
            return
        self.succeeded.emit(self.generation, result)

    def start_registered(self) -> None:
        """Start the thread and keep it in the registry until it ends."""
        _LIVE.add(self)
        self.finished.connect(self._forget)
        self.start()

    @Slot()
    def _forget(self) -> None:
        _LIVE.discard(self)


def live_workers() -> list[Worker]:
    """Registered workers whose thread is still running (finished ones are pruned)."""
    for worker in list(_LIVE):
        if not worker.isRunning():
            _LIVE.discard(worker)
    return [w for w in _LIVE if w.isRunning()]


def stop_all_workers(timeout_ms: int = 3000) -> list[Worker]:
    """Ask every live worker to stop and wait for it; return those that did not stop."""
    stuck: list[Worker] = []
    for worker in live_workers():
        worker.requestInterruption()
    for worker in live_workers():
        if not worker.wait(timeout_ms):
            stuck.append(worker)
        else:
            _LIVE.discard(worker)
    return stuck


class TaskRunner(QObject):
    """Runs one kind of job off the GUI thread; only the newest submission's result counts.

    ``result_ready(object)`` and ``error(str)`` carry the outcome of the latest generation;
    results and errors from older generations are dropped (``dropped`` counts them).
    """

    result_ready = Signal(object)
    error = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, name: str = "task", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._generation = 0
        self._workers: set[Worker] = set()
        self.dropped = 0

    @property
    def generation(self) -> int:
        return self._generation

    def is_busy(self) -> bool:
        return any(w.isRunning() for w in self._workers)

    def submit(self, fn: Callable[[], Any]) -> int:
        """Start ``fn`` in a new worker; returns its generation."""
        self._generation += 1
        worker = Worker(fn, self._generation, f"{self._name}-{self._generation}")
        worker.succeeded.connect(self._on_succeeded)
        worker.failed.connect(self._on_failed)
        worker.finished.connect(self._on_finished)
        was_busy = self.is_busy()
        self._workers.add(worker)
        worker.start_registered()
        if not was_busy:
            self.busy_changed.emit(True)
        return self._generation

    def cancel(self) -> None:
        """Drop whatever is running (its result will be ignored) and ask it to stop."""
        self._generation += 1
        for worker in self._workers:
            worker.requestInterruption()

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Cancel and wait for this runner's threads (call before the owner is destroyed)."""
        self.cancel()
        for worker in list(self._workers):
            worker.wait(timeout_ms)
        self._workers = {w for w in self._workers if w.isRunning()}

    @Slot(int, object)
    def _on_succeeded(self, generation: int, result: object) -> None:
        if generation != self._generation:
            self.dropped += 1
            return
        self.result_ready.emit(result)

    @Slot(int, str)
    def _on_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            self.dropped += 1
            return
        self.error.emit(message)

    @Slot()
    def _on_finished(self) -> None:
        self._workers = {w for w in self._workers if w.isRunning()}
        if not self._workers:
            self.busy_changed.emit(False)
