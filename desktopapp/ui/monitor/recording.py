"""Recording monitor sessions to SQLite, off the GUI thread.

A recording lives in the sampling thread (:class:`~desktopapp.ui.monitor.sampling.
SamplingThread`): :meth:`Recording.start` opens the store and a
:class:`~desktopapp.devices.session_store.SessionRecorder` there and attaches it as the thread's
sink, so every sample the thread takes is written in batches by that thread; :meth:`Recording.stop`
finishes it there. Results come back through :class:`Recording`'s queued signals.

CSV export lives in :mod:`desktopapp.application.monitor_export` (Qt-free) and is run in a worker
by :class:`~desktopapp.ui.monitor.record_export.RecordExport`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktopapp.devices.sampler import SystemSample
from desktopapp.devices.session_store import SessionRecorder, SessionStore
from desktopapp.ui.monitor.sampling import SamplingController, SamplingThread


class _StoreSink:
    """The recorder plus its store, so both close together."""

    def __init__(self, store: SessionStore, recorder: SessionRecorder) -> None:
        self.store = store
        self.recorder = recorder

    def add(self, sample: SystemSample) -> None:
        self.recorder.add(sample)

    def close(self) -> tuple[int, int]:
        """Finish the session and close the database; returns (session id, samples)."""
        try:
            self.recorder.finish()
        finally:
            self.store.close()
        return self.recorder.session_id, self.recorder.count


class Recording(QObject):
    """Start and stop recorded sessions in the sampling thread.

    ``started(session_id)``, ``stopped(session_id, samples)`` and ``failed(message)`` arrive on
    the GUI thread.
    """

    started = Signal(int)
    stopped = Signal(int, int)
    failed = Signal(str)

    def __init__(
        self,
        controller: SamplingController,
        store_path: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._controller = controller
        self.store_path = store_path
        self.active = False  # between start() and stopped/failed
        self.session_id: int | None = None
        self.last_session_id: int | None = None
        self.started_at = math.nan
        self.started.connect(self._on_started)
        self.stopped.connect(self._on_stopped)
        self.failed.connect(self._on_failed)
        controller.sink_failed.connect(self.failed)

    def start(self, label: str = "", meta: Mapping[str, Any] | None = None) -> None:
        if self.active:
            return
        self.active = True
        self.started_at = time.monotonic()
        path, details = self.store_path, dict(meta or {})

        def begin(thread: SamplingThread) -> None:
            if thread.sink is not None:
                return
            try:
                store = SessionStore(path)
            except Exception as exc:
                self.failed.emit(f"could not open the session database: {exc}")
                return
            try:
                recorder = store.start_session(label, meta=details)
            except Exception as exc:
                store.close()
                self.failed.emit(f"could not start a recorded session: {exc}")
                return
            thread.sink = _StoreSink(store, recorder)
            self.started.emit(recorder.session_id)

        self._controller.call_in_thread(begin)

    def stop(self) -> None:
        if not self.active:
            return

        def end(thread: SamplingThread) -> None:
            sink, thread.sink = thread.sink, None
            if not isinstance(sink, _StoreSink):
                return
            try:
                session_id, count = sink.close()
            except Exception as exc:
                self.failed.emit(f"could not finish the recorded session: {exc}")
                return
            self.stopped.emit(session_id, count)

        self._controller.call_in_thread(end)

    def _on_started(self, session_id: int) -> None:
        self.session_id = session_id

    def _on_stopped(self, session_id: int, _count: int) -> None:
        self.active = False
        self.session_id = None
        self.last_session_id = session_id

    def _on_failed(self, _message: str) -> None:
        if self.session_id is not None:
            self.last_session_id = self.session_id
        self.active = False
        self.session_id = None
