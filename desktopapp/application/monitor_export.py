"""The Monitor tab's CSV export and recorded-session listing, without Qt.

- :func:`history_table` copies the shown history at full rate (on the GUI thread, so the worker
  that writes it never reads buffers being appended to); :func:`write_history_csv` and
  :func:`export_session_csv` run in a worker.
- :func:`recorded_sessions` lists the newest recordings of the session store (read-only);
  :func:`earlier_recordings` says how each is offered in the "Earlier recordings" menu.
- :func:`recording_label` and :func:`recording_meta`: what a recording started from the tab
  is called and what it notes about itself.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.devices.sampler import ChannelSpec, SystemSample
from desktopapp.devices.session_store import (
    SessionInfo,
    SessionStore,
    monitor_db_path,
    write_csv,
)
from desktopapp.model.ringbuffer import MonitorHistory
from desktopapp.model.units import format_duration

FloatArray = npt.NDArray[np.float64]


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
    """Copy the rows of the last ``last_seconds`` (all held rows when None) at full rate; gap
    markers (rows with no value at all) are not samples and are left out."""
    names = tuple(s.name for s in specs if s.name in history.channels)
    view = history.raw.view(last_seconds, channels=names)
    timestamps = np.array(view.timestamps, dtype=np.float64)
    keep = ~np.all(np.isnan(np.vstack([view.values[n] for n in names])), axis=0) if names else None
    if keep is not None:
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


def recorded_sessions(store_path: Path | None, limit: int = 15) -> list[SessionInfo]:
    """The newest recorded sessions in the store (empty when there is no store yet, or it
    cannot be read)."""
    path = store_path or monitor_db_path()
    if not Path(path).is_file():
        return []
    try:
        with SessionStore(path, read_only=True) as store:  # listing never writes
            return store.sessions()[:limit]
    except (OSError, ValueError, sqlite3.Error):
        return []


def earlier_recording_text(info: SessionInfo) -> str:
    """``#3 · before lunch · 2 min 5 s · 125 samples`` (the start time when unlabelled)."""
    started = datetime.fromtimestamp(info.started).strftime("%Y-%m-%d %H:%M")
    length = format_duration(info.duration_s) if info.ended is not None else "unfinished"
    return f"#{info.id} · {info.label or started} · {length} · {info.sample_count} samples"


def earlier_recordings(
    sessions: Sequence[SessionInfo], recording_id: int | None
) -> list[tuple[int, str]]:
    """(session id, menu text) of the recordings to offer, without the one being recorded."""
    return [(s.id, earlier_recording_text(s)) for s in sessions if s.id != recording_id]


def recording_label(label: str, now: datetime) -> str:
    return label or f"Monitor {now:%Y-%m-%d %H:%M}"


def recording_meta(interval_s: float, last: SystemSample | None) -> dict[str, Any]:
    """What a recording started from the tab notes about itself."""
    return {
        "source": "gui",
        "interval_s": interval_s,
        "gpus": [g.name for g in last.gpus] if last is not None else [],
    }
