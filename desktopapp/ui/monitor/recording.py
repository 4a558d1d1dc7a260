"""Recording monitor sessions to SQLite and exporting CSV, all off the GUI thread.

A recording lives in the sampling thread (:class:`~desktopapp.ui.monitor.sampling.
SamplingThread`): :meth:`Recording.start` opens the store and a
:class:`~desktopapp.devices.session_store.SessionRecorder` there and attaches it as the thread's
sink, so every sample the thread takes is written in batches by that thread; :meth:`Recording.stop`
finishes it there. Results come back through :class:`Recording`'s queued signals.

CSV export (:func:`history_table`, :func:`write_history_csv`, :func:`export_session_csv`) runs in
a :class:`~desktopapp.ui.common.workers.TaskRunner`; the history is copied on the GUI thread
first, so the worker never reads buffers that are being appended to.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, Signal

from desktopapp.devices.sampler import ChannelSpec, SystemSample
from desktopapp.devices.session_store import SessionRecorder, SessionStore, write_csv
from desktopapp.model.ringbuffer import MonitorHistory
from desktopapp.ui.monitor.sampling import SamplingController, SamplingThread

FloatArray = npt.NDArray[np.float64]


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


# --- CSV --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryTable:
    """A copy of the full-rate history, ready to be written by a worker."""

    channels: tuple[ChannelSpec, ...]
    timestamps: FloatArray
    values: Mapping[str, FloatArray]

    @property
    def rows(self) -> int:
        return int(self.timestamps.size)


def history_table(
    history: MonitorHistory, specs: Sequence[ChannelSpec], last_seconds: float | None
) -> HistoryTable:
    """Copy the rows of the last ``last_seconds`` (all held rows when None) at full rate."""
    names = tuple(s.name for s in specs if s.name in history.channels)
    view = history.raw.view(last_seconds, channels=names)
    timestamps = np.array(view.timestamps, dtype=np.float64)
    keep = ~np.all(np.isnan(np.vstack([view.values[n] for n in names])), axis=0) if names else None
    if keep is not None:  # gap markers (rows with no value at all) are not samples
        timestamps = timestamps[keep]
    values = {
        n: np.array(view.values[n], dtype=np.float64)[keep] if keep is not None else np.empty(0)
        for n in names
    }
    kept = tuple(s for s in specs if s.name in names)
    return HistoryTable(kept, timestamps, values)


def write_history_csv(path: Path, table: HistoryTable) -> tuple[str, int]:
    written = write_csv(path, table.channels, table.timestamps, table.values)
    return str(written), table.rows


def export_session_csv(store_path: Path | None, session_id: int, path: Path) -> tuple[str, int]:
    with SessionStore(store_path, read_only=True) as store:  # exporting never writes it
        info = store.session(session_id)
        written = store.export_csv(session_id, path)
    return str(written), info.sample_count
