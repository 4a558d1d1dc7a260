"""Recorded monitor sessions in SQLite, and CSV export.

The database is ``paths.data_dir() / "monitor.sqlite3"`` (benchmarks live in results.sqlite3;
separate files keep the schemas apart). Layout (``PRAGMA user_version`` = 1):

- ``sessions``: one row per recording (label, host, start/end, sample count, JSON metadata);
- ``channels``: the session's channel names and units in column order; a channel first seen
  mid-session is appended, earlier rows read as NaN for it;
- ``samples``: one row per sample: the timestamp and a BLOB of little-endian float64 values in
  channel order (compact, and one INSERT per sample whatever the number of channels);
- ``processes``: the GPU processes, written only when the list changes;
- ``problems``: sample problems, written only when they change.

Writes are batched: :class:`SessionRecorder` inserts every ``batch_size`` samples or
``flush_interval_s`` seconds in one transaction, never one commit per sample.

CSV (:func:`write_csv`, :class:`CsvSampleWriter`, :meth:`SessionStore.export_csv`): one row per
timestamp, ``timestamp (s)``, ``time (UTC)``, ``elapsed (s)``, then one column per channel with
its unit in the header (``gpu0.util (%)``); a missing value is an empty cell. Files are written
to ``<name>.part`` and renamed at the end, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import json
import math
import os
import platform
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from desktopapp import paths
from desktopapp.devices.sampler import ChannelSpec, SystemSample, channel_unit
from desktopapp.devices.sqlite_files import (
    BUSY_TIMEOUT_S,
    FileState,
    classify,
    connect_existing,
    create_new,
    ensure_parent,
    setup_schema,
)

DB_FILENAME = "monitor.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    started REAL NOT NULL,
    ended REAL,
    sample_count INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS channels (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    unit TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, position)
);
CREATE TABLE IF NOT EXISTS samples (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    t REAL NOT NULL,
    vals BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS samples_by_session ON samples (session_id, t);
CREATE TABLE IF NOT EXISTS processes (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    t REAL NOT NULL,
    gpu_index INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    user TEXT NOT NULL DEFAULT '',
    command TEXT NOT NULL DEFAULT '',
    used_memory_bytes REAL
);
CREATE TABLE IF NOT EXISTS problems (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    t REAL NOT NULL,
    text TEXT NOT NULL
);
"""

FloatArray = npt.NDArray[np.float64]


def monitor_db_path() -> Path:
    return paths.data_dir() / DB_FILENAME


@dataclass(frozen=True)
class SessionInfo:
    id: int
    label: str
    host: str
    started: float
    ended: float | None  # None while recording, or if the app stopped without finishing
    sample_count: int
    meta: Mapping[str, Any]

    @property
    def duration_s(self) -> float:
        return (self.ended - self.started) if self.ended is not None else math.nan


@dataclass(frozen=True)
class RecordedProcess:
    t: float
    gpu_index: int
    pid: int
    name: str
    user: str
    command: str
    used_memory_bytes: float


@dataclass(frozen=True)
class SessionData:
    info: SessionInfo
    channels: tuple[ChannelSpec, ...]
    timestamps: FloatArray
    values: Mapping[str, FloatArray]  # one array per channel, aligned with timestamps
    processes: tuple[RecordedProcess, ...] = ()
    problems: tuple[tuple[float, str], ...] = ()


class SessionRecorder:
    """Buffers samples of one session and writes them in batches. Use as a context manager
    or call :meth:`finish`. Thread-safe (one lock with the store)."""

    def __init__(
        self,
        store: SessionStore,
        session_id: int,
        batch_size: int = 50,
        flush_interval_s: float = 2.0,
    ) -> None:
        self._store = store
        self.session_id = session_id
        self.batch_size = max(1, int(batch_size))
        self.flush_interval_s = flush_interval_s
        self._names: list[str] = []
        self._positions: dict[str, int] = {}
        self._new_channels: list[tuple[int, str, str]] = []
        self._rows: list[tuple[int, float, bytes]] = []
        self._procs: list[tuple[Any, ...]] = []
        self._problems: list[tuple[int, float, str]] = []
        self._last_procs: dict[int, tuple[tuple[int, float], ...]] = {}
        self._last_problems: tuple[str, ...] = ()
        self._last_flush = time.monotonic()
        self.count = 0
        self.last_timestamp = math.nan
        self.finished = False

    def add(self, sample: SystemSample) -> None:
        """Buffer one sample (flushing when the batch is full or old enough)."""
        self.add_values(sample.timestamp, sample.channels())
        for gpu in sample.gpus:
            key = tuple((p.pid, p.used_memory_bytes) for p in gpu.processes)
            if self._last_procs.get(gpu.index) != key:
                self._last_procs[gpu.index] = key
                for p in gpu.processes:
                    self._procs.append(
                        (
                            self.session_id,
                            sample.timestamp,
                            gpu.index,
                            p.pid,
                            p.name,
                            p.user,
                            p.command,
                            _sql_float(p.used_memory_bytes),
                        )
                    )
        if sample.problems != self._last_problems:
            self._last_problems = sample.problems
            for text in sample.problems:
                self._problems.append((self.session_id, sample.timestamp, text))
        self._maybe_flush()

    def add_values(self, timestamp: float, values: Mapping[str, float]) -> None:
        """Buffer one row of channel values (units from :func:`sampler.channel_unit`)."""
        if self.finished:
            raise ValueError("session: already finished")
        for name in values:
            if name not in self._positions:
                self._positions[name] = len(self._names)
                self._names.append(name)
                self._new_channels.append((self._positions[name], name, channel_unit(name)))
        row = np.fromiter(
            (values.get(name, math.nan) for name in self._names),
            dtype="<f8",
            count=len(self._names),
        )
        self._rows.append((self.session_id, float(timestamp), row.tobytes()))
        self.count += 1
        self.last_timestamp = float(timestamp)
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if (
            len(self._rows) >= self.batch_size
            or time.monotonic() - self._last_flush >= self.flush_interval_s
        ):
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows in one transaction."""
        self._last_flush = time.monotonic()
        if not (self._rows or self._new_channels or self._procs or self._problems):
            return
        try:
            self._write_batch()
        except sqlite3.Error as exc:
            raise SessionStoreError(
                f"monitor database {self._store.path}: could not save {len(self._rows)} "
                f"samples ({exc}); {self.count - len(self._rows)} samples were saved before"
            ) from None
        self._new_channels.clear()
        self._rows.clear()
        self._procs.clear()
        self._problems.clear()

    def _write_batch(self) -> None:
        channels = [(self.session_id, *c) for c in self._new_channels]
        with self._store._lock, self._store._conn as conn:
            conn.executemany(
                "INSERT INTO channels (session_id, position, name, unit) VALUES (?, ?, ?, ?)",
                channels,
            )
            conn.executemany(
                "INSERT INTO samples (session_id, t, vals) VALUES (?, ?, ?)", self._rows
            )
            conn.executemany(
                "INSERT INTO processes (session_id, t, gpu_index, pid, name, user, command, "
                "used_memory_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                self._procs,
            )
            conn.executemany(
                "INSERT INTO problems (session_id, t, text) VALUES (?, ?, ?)", self._problems
            )
            conn.execute(
                "UPDATE sessions SET sample_count = ? WHERE id = ?", (self.count, self.session_id)
            )

    def finish(self) -> None:
        """Flush and mark the session ended (at its last sample's time). Idempotent."""
        if self.finished:
            return
        self.flush()
        ended = self.last_timestamp if math.isfinite(self.last_timestamp) else time.time()
        try:
            with self._store._lock, self._store._conn as conn:
                conn.execute("UPDATE sessions SET ended = ? WHERE id = ?", (ended, self.session_id))
        except sqlite3.Error as exc:
            raise SessionStoreError(
                f"monitor database {self._store.path}: could not mark session "
                f"{self.session_id} as ended ({exc})"
            ) from None
        self.finished = True

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()


def _write_version(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _wal_mode(path: Path) -> bool:
    """The file's header says write-ahead log (bytes 18 and 19 = 2)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return len(header) == 20 and (header[18] == 2 or header[19] == 2)


class SessionStoreError(ValueError):
    """The monitor database cannot be used; the message names the file, why, and what to do.
    A ``ValueError`` so callers that report bad input report this the same way."""


class SessionStore:
    """The monitor database. ``SessionStore()`` opens ``monitor_db_path()``.

    The file is classified read-only first (:func:`sqlite_files.classify`): only a missing or
    empty file, the app's own current file, or the app's own file with a hot journal (rolled
    back on opening) is opened for writing. Anything else raises :class:`SessionStoreError`
    and is left byte-identical. ``read_only=True`` (listing, export) never writes at all, and
    nothing is written to a current file unless something is recorded or deleted.
    """

    def __init__(self, path: Path | str | None = None, *, read_only: bool = False) -> None:
        if path is None:
            try:
                path = monitor_db_path()
            except OSError as exc:
                raise SessionStoreError(
                    f"monitor database: the data folder cannot be used ({_os_text(exc)}); "
                    "check DESKTOPAPP_HOME or the folder's permissions"
                ) from None
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        found = classify(self.path, schema_sql=_SCHEMA, current_version=SCHEMA_VERSION)
        if found.state is FileState.MISSING and not read_only:
            found = self._create()
        if not found.writable:
            raise SessionStoreError(found.message("monitor database"))
        self.recovered = found.state is FileState.RECOVERABLE
        try:
            if read_only:
                self._conn = self._open_read_only(found.state)
            else:
                self._conn = self._open_for_writing()
        except sqlite3.Error as exc:
            raise SessionStoreError(
                f"monitor database {self.path} cannot be opened ({exc}); the file was left as "
                "it was"
            ) from None

    def _open_read_only(self, state: FileState) -> sqlite3.Connection:
        if state is FileState.MISSING:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.executescript(_SCHEMA)  # nothing recorded yet: an empty in-memory view
            return conn
        if state is FileState.RECOVERABLE:
            return sqlite3.connect(str(self.path), check_same_thread=False)  # rolls back
        # A write-ahead-log file with no -wal beside it is open in no process: read it without
        # locks (a mode=ro open would leave -wal/-shm files next to it). Otherwise mode=ro,
        # under SQLite's shared lock, waiting for a writer.
        wal = self.path.with_name(self.path.name + "-wal")
        mode = "immutable=1" if _wal_mode(self.path) and not wal.exists() else "mode=ro"
        return sqlite3.connect(
            f"{self.path.resolve().as_uri()}?{mode}",
            uri=True,
            check_same_thread=False,
            timeout=BUSY_TIMEOUT_S,
        )

    def _create(self) -> Any:
        """A missing database, created complete (``sqlite_files.create_new``), then
        classified again (another process may have created it first)."""
        problem = ensure_parent(self.path)
        if problem is not None:
            raise SessionStoreError(f"monitor database {self.path} {problem}")
        try:
            create_new(self.path, _SCHEMA, extra=_write_version, wal=True)
        except (OSError, sqlite3.Error) as exc:
            text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SessionStoreError(
                f"monitor database {self.path} could not be created ({text})"
            ) from None
        return classify(self.path, schema_sql=_SCHEMA, current_version=SCHEMA_VERSION)

    def _open_for_writing(self) -> sqlite3.Connection:
        problem = ensure_parent(self.path)
        if problem is not None:
            raise SessionStoreError(f"monitor database {self.path} {problem}")
        conn = connect_existing(self.path, check_same_thread=False)
        try:
            conn.execute("PRAGMA foreign_keys = ON")
            setup_schema(conn, _SCHEMA, extra=_write_version)
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start_session(
        self,
        label: str = "",
        meta: Mapping[str, Any] | None = None,
        started: float | None = None,
        batch_size: int = 50,
        flush_interval_s: float = 2.0,
    ) -> SessionRecorder:
        try:
            with self._lock, self._conn as conn:
                cur = conn.execute(
                    "INSERT INTO sessions (label, host, started, meta) VALUES (?, ?, ?, ?)",
                    (
                        label,
                        platform.node(),
                        time.time() if started is None else started,
                        json.dumps(dict(meta or {})),
                    ),
                )
                session_id = int(cur.lastrowid or 0)
        except sqlite3.Error as exc:
            raise SessionStoreError(
                f"monitor database {self.path}: could not start a session ({exc})"
            ) from None
        return SessionRecorder(self, session_id, batch_size, flush_interval_s)

    def sessions(self) -> list[SessionInfo]:
        """All sessions, newest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, label, host, started, ended, sample_count, meta FROM sessions "
                "ORDER BY started DESC, id DESC"
            ).fetchall()
        return [_info(row) for row in rows]

    def session(self, session_id: int) -> SessionInfo:
        with self._lock:
            row = self._conn.execute(
                "SELECT id, label, host, started, ended, sample_count, meta FROM sessions "
                "WHERE id = ?",
                (session_id,),
            ).fetchone()
        if row is None:
            raise ValueError(f"session: no recorded session {session_id}")
        return _info(row)

    def delete(self, session_id: int) -> None:
        with self._lock, self._conn as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def load(self, session_id: int) -> SessionData:
        info = self.session(session_id)
        with self._lock:
            chans = self._conn.execute(
                "SELECT name, unit FROM channels WHERE session_id = ? ORDER BY position",
                (session_id,),
            ).fetchall()
            rows = self._conn.execute(
                "SELECT t, vals FROM samples WHERE session_id = ? ORDER BY t, rowid",
                (session_id,),
            ).fetchall()
            procs = self._conn.execute(
                "SELECT t, gpu_index, pid, name, user, command, used_memory_bytes FROM processes "
                "WHERE session_id = ? ORDER BY t, rowid",
                (session_id,),
            ).fetchall()
            problems = self._conn.execute(
                "SELECT t, text FROM problems WHERE session_id = ? ORDER BY t, rowid",
                (session_id,),
            ).fetchall()
        channels = tuple(ChannelSpec(name, unit) for name, unit in chans)
        table = np.full((len(rows), len(channels)), np.nan)
        for i, (_, blob) in enumerate(rows):
            row = np.frombuffer(blob, dtype="<f8")
            table[i, : row.size] = row
        timestamps = np.array([r[0] for r in rows], dtype=np.float64)
        values = {c.name: table[:, j] for j, c in enumerate(channels)}
        return SessionData(
            info,
            channels,
            timestamps,
            values,
            tuple(
                RecordedProcess(t, g, pid, name, user, cmd, math.nan if mem is None else float(mem))
                for t, g, pid, name, user, cmd, mem in procs
            ),
            tuple((float(t), str(text)) for t, text in problems),
        )

    def export_csv(self, session_id: int, path: Path | str) -> Path:
        data = self.load(session_id)
        return write_csv(path, data.channels, data.timestamps, data.values)


def _info(row: Sequence[Any]) -> SessionInfo:
    sid, label, host, started, ended, count, meta = row
    try:
        parsed = json.loads(meta) if meta else {}
    except json.JSONDecodeError:
        parsed = {}
    return SessionInfo(int(sid), label, host, float(started), ended, int(count), parsed)


def _os_text(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return f"{text}: {exc.filename}" if exc.filename else text


def _sql_float(value: float) -> float | None:
    return value if math.isfinite(value) else None


# --- CSV -----------------------------------------------------------------------------------

LEADING_COLUMNS: tuple[str, ...] = ("timestamp (s)", "time (UTC)", "elapsed (s)")


def csv_value(value: float) -> str:
    """Full precision, whole numbers without ".0", NaN/inf as an empty cell."""
    v = float(value)
    if not math.isfinite(v):
        return ""
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _utc(timestamp: float) -> str:
    moment = _dt.datetime.fromtimestamp(timestamp, tz=_dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class CsvWriteError(OSError):
    """Writing the CSV failed part way (disk full, file system gone read-only …). The rows
    written before are kept: the file is cut back to the last complete row and moved into
    place. ``rows`` is how many rows it keeps, ``path`` where."""

    def __init__(self, path: Path, rows: int, why: str) -> None:
        super().__init__(
            f"csv: writing {path} stopped after {rows} complete rows ({why}); the rows "
            "written before are kept"
        )
        self.path = path
        self.rows = rows
        self.why = why


def check_csv_target(path: Path | str) -> Path:
    """Refuse a CSV path that cannot be written, before anything is measured:
    ``ValueError("csv: …")`` for an empty name, a folder, a parent that is a file, a read-only
    place. It creates the file's missing folders, as the writer would (a long recording should
    not be lost to a folder not made yet); no file is left behind."""
    text = str(path)
    if not text.strip():
        raise ValueError("csv: a file name is needed (got an empty value)")
    target = Path(text)
    try:
        info: os.stat_result | None = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:  # name too long, a file as a folder, no permission …
        raise ValueError(f"csv: {_cut(text)} cannot be written ({_os_text(exc)})") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ValueError(f"csv: {_cut(text)} is a folder; give a file name")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise ValueError(f"csv: {_cut(text)} is not a regular file")
    problem = ensure_parent(target)
    if problem is not None:
        raise ValueError(f"csv: {_cut(text)}: the folder {problem}")
    part = target.with_name(target.name + ".part")
    existed = part.exists()
    try:
        with open(part, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise ValueError(f"csv: {_cut(text)} cannot be written ({_os_text(exc)})") from None
    if not existed:
        part.unlink(missing_ok=True)
    return target


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CsvSampleWriter:
    """Streams rows to ``<path>.part`` (flushed per row) and renames it to ``path`` on
    :meth:`close`, so an interrupted run still leaves the rows written so far in the .part file
    until close and a complete file after.

    A write that fails (disk full, I/O error) raises :class:`CsvWriteError` after cutting the
    file back to its last complete row and moving it into place: no half row, no lost row.
    A path that cannot be opened raises ``ValueError("csv: …")``."""

    def __init__(self, path: Path | str, channels: Sequence[ChannelSpec]) -> None:
        self.path = check_csv_target(path)
        self.part = self.path.with_name(self.path.name + ".part")
        self.channels = tuple(channels)
        self.rows = 0
        self.error: CsvWriteError | None = None
        self._t0 = math.nan
        try:
            self._file: IO[str] | None = open(  # noqa: SIM115
                self.part, "w", newline="", encoding="utf-8"
            )
        except OSError as exc:
            raise ValueError(
                f"csv: {_cut(str(path))} cannot be written ({_os_text(exc)})"
            ) from None
        self._good_size = 0
        self._writer = csv.writer(self._file)
        self._emit([*LEADING_COLUMNS, *(c.header for c in self.channels)])

    def _emit(self, row: Sequence[str]) -> None:
        assert self._file is not None
        try:
            self._writer.writerow(row)
            self._file.flush()
        except OSError as exc:
            self._fail(_os_text(exc))
        self._good_size = self._file.tell()

    def _fail(self, why: str) -> None:
        """Keep every complete row: cut the half-written one, move the file into place."""
        handle, self._file = self._file, None
        if handle is not None:
            with contextlib.suppress(OSError):  # the half row is dropped: cut below
                handle.close()
        try:
            os.truncate(self.part, self._good_size)
            os.replace(self.part, self.path)
            where = self.path
        except OSError:
            where = self.part
        self.error = CsvWriteError(where, self.rows, why)
        raise self.error

    def write(self, timestamp: float, values: Mapping[str, float]) -> None:
        if self.error is not None:
            raise self.error
        if self._file is None:
            raise ValueError("csv: writer already closed")
        if not math.isfinite(self._t0):
            self._t0 = timestamp
        self._emit(
            [
                csv_value(timestamp),
                _utc(timestamp),
                f"{timestamp - self._t0:.3f}",
                *(csv_value(values.get(c.name, math.nan)) for c in self.channels),
            ]
        )
        self.rows += 1

    def close(self) -> Path:
        """Finish the file and move it into place; idempotent. After a failed write it
        returns where the kept rows are."""
        if self.error is not None:
            return self.error.path
        if self._file is not None:
            try:
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as exc:
                self._fail(_os_text(exc))
            assert self._file is not None
            self._file.close()
            self._file = None
            os.replace(self.part, self.path)
        return self.path

    def __enter__(self) -> CsvSampleWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_csv(
    path: Path | str,
    channels: Sequence[ChannelSpec],
    timestamps: Iterable[float],
    values: Mapping[str, Sequence[float] | FloatArray],
) -> Path:
    """Write a whole table at once (atomically, through a .part file)."""
    with CsvSampleWriter(path, channels) as writer:
        for i, t in enumerate(timestamps):
            writer.write(float(t), {c.name: float(values[c.name][i]) for c in channels})
    return writer.path


def read_csv(path: Path | str) -> tuple[list[str], list[list[str]]]:
    """Header and rows as text (for tests and quick checks)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]
