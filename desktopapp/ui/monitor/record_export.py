"""Recording and CSV export, wired to the Monitor tab's toolbar.

:class:`RecordExport` owns the :class:`~desktopapp.ui.monitor.recording.Recording` (which lives
in the sampling thread) and the worker that writes CSV files, fills the "Earlier recordings"
menu and asks where to save. What a recording is called, what it notes and how recordings are
listed is decided in :mod:`desktopapp.application.monitor_export`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from desktopapp.application.monitor_export import (
    HistoryTable,
    earlier_recordings,
    export_session_csv,
    recorded_sessions,
    write_history_csv,
)
from desktopapp.devices.session_store import SessionInfo
from desktopapp.ui.common.workers import TaskRunner
from desktopapp.ui.monitor.recording import Recording
from desktopapp.ui.monitor.sampling import SamplingController
from desktopapp.ui.monitor.toolbar import MonitorToolbar
from desktopapp.ui.state import AppState


class RecordExport(QObject):
    """Start / stop recordings and export CSV (see the module docstring).

    ``recording_changed(bool)`` once a recording started, stopped or failed;
    ``export_finished(path, rows)`` / ``export_failed(message)`` for CSV exports.
    ``shown_history()`` copies the history the plots show (``None`` without samples).
    """

    recording_changed = Signal(bool)
    export_finished = Signal(str, int)
    export_failed = Signal(str)

    def __init__(
        self,
        sampling: SamplingController,
        store_path: Path | None,
        toolbar: MonitorToolbar,
        state: AppState,
        shown_history: Callable[[], HistoryTable | None],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._widget = parent
        self._toolbar = toolbar
        self._state = state
        self._shown_history = shown_history
        self.recording = Recording(sampling, store_path, self)
        self.recording.started.connect(self._on_started)
        self.recording.stopped.connect(self._on_stopped)
        self.recording.failed.connect(self._on_failed)
        self._exports = TaskRunner("monitor-export", self)
        self._exports.result_ready.connect(self._on_export_done)
        self._exports.error.connect(self.export_failed)
        toolbar.export_history_action.triggered.connect(self.choose_history_export)
        toolbar.export_recording_action.triggered.connect(lambda: self.choose_recording_export())
        toolbar.earlier_menu.aboutToShow.connect(self.fill_earlier_menu)

    # --- recording ----------------------------------------------------------------------------
    def start(self, label: str, meta: Mapping[str, Any]) -> None:
        self.recording.start(label, meta)
        self._toolbar.set_recording_checked(True)

    def stop(self) -> None:
        self.recording.stop()
        self._toolbar.set_recording_checked(False)

    def _on_started(self, session_id: int) -> None:
        self._state.show_status(f"Recording monitor session #{session_id}", 4000)
        self.recording_changed.emit(True)

    def _on_stopped(self, session_id: int, count: int) -> None:
        action = self._toolbar.export_recording_action
        action.setEnabled(True)
        action.setText(f"Recorded session #{session_id}…")
        self._state.show_status(
            f"Saved monitor session #{session_id}: {count} samples in monitor.sqlite3", 8000
        )
        self.recording_changed.emit(False)

    def _on_failed(self, message: str) -> None:
        self._toolbar.set_recording_checked(False, quiet=True)
        if self.recording.last_session_id is not None:
            self._toolbar.export_recording_action.setEnabled(True)
        self._state.show_status(f"Recording: {message}", 0)
        self.recording_changed.emit(False)

    # --- export -------------------------------------------------------------------------------
    def export_history_csv(self, path: Path | str) -> bool:
        """Write the shown history at full rate to CSV in a worker; False without data."""
        table = self._shown_history()
        if table is None:
            return False
        target = Path(path)
        self._exports.submit(lambda: write_history_csv(target, table))
        return True

    def export_recording_csv(self, path: Path | str, session_id: int | None = None) -> bool:
        """Export a recorded session (default: the last one) to CSV in a worker."""
        chosen = session_id if session_id is not None else self.recording.last_session_id
        if chosen is None:
            return False
        store_path, target = self.recording.store_path, Path(path)
        self._exports.submit(lambda: export_session_csv(store_path, chosen, target))
        return True

    def _on_export_done(self, result: object) -> None:
        if isinstance(result, tuple) and len(result) == 2:
            path, rows = str(result[0]), int(result[1])
            self._state.show_status(f"Exported {rows} rows to {path}", 8000)
            self.export_finished.emit(path, rows)

    def _ask_path(self, title: str, stem: str) -> str:
        folder = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation
        ) or str(Path.home())
        default = str(Path(folder) / f"{stem}-{datetime.now():%Y%m%d-%H%M%S}.csv")
        path, _filter = QFileDialog.getSaveFileName(
            self._widget, title, default, "CSV files (*.csv)"
        )
        return path

    def choose_history_export(self) -> None:
        path = self._ask_path("Export the shown history as CSV", "monitor-history")
        if path and not self.export_history_csv(path):
            self._state.show_status("Nothing to export yet: no samples", 6000)

    def choose_recording_export(self, session_id: int | None = None) -> None:
        session_id = session_id if session_id is not None else self.recording.last_session_id
        if session_id is None:
            return
        path = self._ask_path(f"Export recorded session #{session_id} as CSV", "monitor-session")
        if path:
            self.export_recording_csv(path, session_id)

    # --- earlier recordings -------------------------------------------------------------------
    def recorded_sessions(self, limit: int = 15) -> list[SessionInfo]:
        """The newest recorded sessions in the store (empty when there is no store yet)."""
        return recorded_sessions(self.recording.store_path, limit)

    def fill_earlier_menu(self) -> None:
        menu = self._toolbar.earlier_menu
        menu.clear()
        offered = earlier_recordings(self.recorded_sessions(), self.recording.session_id)
        if not offered:
            empty = menu.addAction("No recordings yet")
            empty.setEnabled(False)
            return
        for session_id, text in offered:
            action = menu.addAction(text)
            action.triggered.connect(
                lambda _checked=False, sid=session_id: self.choose_recording_export(sid)
            )

    def shutdown(self) -> None:
        """End the export worker (stop the recording first, before the sampling thread)."""
        self._exports.shutdown()
