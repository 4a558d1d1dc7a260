"""Benchmark results on disk: an SQLite database at ``paths.results_db_path()``.

Tables: ``meta`` (schema version), ``runs`` (one row per benchmark run: when, which machine,
software versions, configuration, device, notes) and ``measurements`` (one row per
:class:`BenchResult`). Runs can be listed, loaded, compared and exported to JSON or CSV.

User data is never destroyed: the file is first classified read-only
(:mod:`desktopapp.devices.sqlite_files`). A file that is not a usable results database (corrupt,
another program's database, a newer schema, a folder, an unusable data folder) raises
:class:`ResultsStoreError` naming the file and what to do, and the file is left exactly as it
was. A file with a hot journal (a writer killed mid transaction) is recovered: opening it rolls
the interrupted transaction back.
"""

from __future__ import annotations

import csv
import json
import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.sqlite_files import (
    FileState,
    classify,
    connect_existing,
    create_new,
    ensure_parent,
    setup_schema,
)
from desktopapp.model.jsonable import jsonable

SCHEMA_VERSION = 1
EXPORT_FORMAT = "desktopapp-bench-results"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    machine TEXT NOT NULL,
    hostname TEXT NOT NULL DEFAULT '',
    device TEXT NOT NULL DEFAULT '',
    versions TEXT NOT NULL DEFAULT '{}',
    config TEXT NOT NULL DEFAULT '{}',
    device_info TEXT NOT NULL DEFAULT '{}',
    notes TEXT NOT NULL DEFAULT '',
    warnings TEXT NOT NULL DEFAULT '[]',
    seconds REAL,
    cancelled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS measurements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    suite TEXT NOT NULL,
    device TEXT NOT NULL,
    dtype TEXT NOT NULL,
    variant TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL,
    tflops REAL,
    seconds REAL,
    peak_tflops REAL,
    percent_of_peak REAL,
    metric TEXT NOT NULL DEFAULT '',
    value REAL,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS measurements_run ON measurements(run_id);
"""

_TABLES = {"meta", "runs", "measurements"}


class ResultsStoreError(RuntimeError):
    """The results database cannot be used; the message says which file, why and what to do."""


@dataclass(frozen=True)
class RunSummary:
    id: int
    started: str
    machine: str  # fingerprint: hash of CPU model, GPU UUIDs and host name
    hostname: str
    device: str
    versions: Mapping[str, Any]
    config: Mapping[str, Any]
    device_info: Mapping[str, Any]
    notes: str
    warnings: tuple[str, ...]
    seconds: float | None
    cancelled: bool
    measurement_count: int

    @property
    def label(self) -> str:
        name = self.device_info.get("name") or self.device
        return f"#{self.id} {self.started} {name} ({self.device})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started": self.started,
            "machine": self.machine,
            "hostname": self.hostname,
            "device": self.device,
            "versions": dict(self.versions),
            "config": dict(self.config),
            "device_info": dict(self.device_info),
            "notes": self.notes,
            "warnings": list(self.warnings),
            "seconds": self.seconds,
            "cancelled": self.cancelled,
            "measurement_count": self.measurement_count,
        }


@dataclass(frozen=True)
class StoredRun:
    summary: RunSummary
    results: tuple[BenchResult, ...]

    def to_dict(self) -> dict[str, Any]:
        data = self.summary.to_dict()
        data["results"] = [r.to_dict() for r in self.results]
        return data


@dataclass(frozen=True)
class ComparedMeasurement:
    """One measurement present in both runs. ``ratio`` = b / a of the headline value."""

    suite: str
    dtype: str
    variant: str
    size: int
    metric: str
    a: BenchResult
    b: BenchResult
    ratio: float | None
    better: str  # "a", "b" or "same" (within 3%)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "dtype": self.dtype,
            "variant": self.variant,
            "size": self.size,
            "metric": self.metric,
            "a": self.a.value,
            "b": self.b.value,
            "ratio": self.ratio,
            "better": self.better,
        }


@dataclass(frozen=True)
class RunComparison:
    a: RunSummary
    b: RunSummary
    matched: tuple[ComparedMeasurement, ...]
    only_a: tuple[BenchResult, ...]
    only_b: tuple[BenchResult, ...]

    @property
    def same_machine(self) -> bool:
        return self.a.machine == self.b.machine

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "same_machine": self.same_machine,
            "matched": [m.to_dict() for m in self.matched],
            "only_a": [r.to_dict() for r in self.only_a],
            "only_b": [r.to_dict() for r in self.only_b],
        }


def _version(conn: sqlite3.Connection, tables: frozenset[str]) -> int | None:
    """Schema version from the ``meta`` table (None before it exists)."""
    if "meta" not in tables:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else None


def _write_version(conn: sqlite3.Connection) -> None:
    """The schema version row, when absent (inside ``setup_schema``'s transaction)."""
    if conn.execute("SELECT 1 FROM meta WHERE key='schema_version'").fetchone() is None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )


def _error_text(exc: BaseException) -> str:
    return _os_text(exc) if isinstance(exc, OSError) else str(exc)


def _os_text(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return f"{text}: {exc.filename}" if exc.filename else text


def _headline(result: BenchResult) -> float | None:
    value = result.value if result.value is not None else result.tflops
    if value is None or not math.isfinite(value):
        return None
    return float(value)


def _dumps(value: Any) -> str:
    return json.dumps(jsonable(value), allow_nan=False, sort_keys=True)


def _loads(text: str | None, default: Any) -> Any:
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


class ResultsStore:
    """Open (creating if absent) the results database. Raises :class:`ResultsStoreError`."""

    def __init__(self, path: Path | str | None = None) -> None:
        if path is None:
            from desktopapp.paths import results_db_path

            try:
                path = results_db_path()
            except OSError as exc:
                raise ResultsStoreError(
                    f"results database: the data folder cannot be used ({_os_text(exc)}); "
                    "check DESKTOPAPP_HOME or the folder's permissions"
                ) from None
        self.path = Path(path)
        self.recovered = False  # True when a hot journal was rolled back on opening
        self._check_existing()
        self._initialise()

    # --- opening --------------------------------------------------------------------------

    def _error(self, why: str) -> ResultsStoreError:
        return ResultsStoreError(
            f"results database {self.path} {why}; the file was left untouched: move or rename "
            "it to start a new database (your other data is not affected)"
        )

    def _classify(self) -> Any:
        return classify(
            self.path, schema_sql=_SCHEMA, current_version=SCHEMA_VERSION, read_version=_version
        )

    def _check_existing(self) -> None:
        """Read-only classification (``sqlite_files.classify``): never writes, never deletes.
        Ours and current, or ours with a hot journal (recovered on opening), pass; anything
        else raises :class:`ResultsStoreError` and the file stays byte-identical. A missing
        file is created complete under a private name and linked into place
        (``sqlite_files.create_new``), so a second process never sees it half made."""
        found = self._classify()
        if found.state is FileState.MISSING:
            problem = ensure_parent(self.path)
            if problem is not None:
                raise ResultsStoreError(f"results database {self.path} {problem}")
            try:
                create_new(self.path, _SCHEMA, extra=_write_version)
            except (OSError, sqlite3.Error) as exc:
                raise ResultsStoreError(
                    f"results database {self.path} could not be created ({_error_text(exc)})"
                ) from None
            found = self._classify()
        if not found.writable:
            raise ResultsStoreError(found.message("results database"))
        self.recovered = found.state is FileState.RECOVERABLE

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = connect_existing(self.path)
        except sqlite3.Error as exc:
            raise self._error(f"cannot be opened ({exc})") from None
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _initialise(self) -> None:
        """Create-or-check under the write lock (``BEGIN IMMEDIATE``, retried while busy)."""
        problem = ensure_parent(self.path)
        if problem is not None:
            raise ResultsStoreError(f"results database {self.path} {problem}")
        try:
            with closing(self._connect()) as conn:
                setup_schema(conn, _SCHEMA, extra=_write_version)
        except sqlite3.DatabaseError as exc:
            raise ResultsStoreError(
                f"results database {self.path} could not be set up ({exc})"
            ) from None

    @property
    def schema_version(self) -> int:
        with closing(self._connect()) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else SCHEMA_VERSION

    # --- writing ----------------------------------------------------------------------------

    def save_run(
        self,
        results: Iterable[BenchResult],
        *,
        machine: str,
        hostname: str = "",
        device: str = "",
        versions: Mapping[str, Any] | None = None,
        config: Mapping[str, Any] | None = None,
        device_info: Mapping[str, Any] | None = None,
        notes: str = "",
        warnings: Sequence[str] = (),
        started: str | None = None,
        seconds: float | None = None,
        cancelled: bool = False,
    ) -> int:
        """Store one run and its measurements; returns the run id."""
        started = started or datetime.now(UTC).isoformat(timespec="seconds")
        rows = list(results)
        with closing(self._connect()) as conn, conn:
            cursor = conn.execute(
                "INSERT INTO runs(started, machine, hostname, device, versions, config, "
                "device_info, notes, warnings, seconds, cancelled) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    started,
                    machine,
                    hostname,
                    device,
                    _dumps(dict(versions or {})),
                    _dumps(dict(config or {})),
                    _dumps(dict(device_info or {})),
                    notes,
                    _dumps(list(warnings)),
                    seconds,
                    int(cancelled),
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO measurements(run_id, suite, device, dtype, variant, size, tflops, "
                "seconds, peak_tflops, percent_of_peak, metric, value, extra) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        r.suite,
                        r.device,
                        r.dtype,
                        r.variant,
                        int(r.size),
                        *(
                            r.to_dict()[k]
                            for k in ("tflops", "seconds", "peak_tflops", "percent_of_peak")
                        ),
                        r.metric,
                        _headline(r),
                        _dumps(dict(r.extra)),
                    )
                    for r in rows
                ],
            )
        return run_id

    def set_notes(self, run_id: int, notes: str) -> None:
        with closing(self._connect()) as conn, conn:
            if conn.execute("UPDATE runs SET notes=? WHERE id=?", (notes, run_id)).rowcount == 0:
                raise ValueError(f"run: no run with id {run_id}")

    def delete_run(self, run_id: int) -> None:
        with closing(self._connect()) as conn, conn:
            conn.execute("DELETE FROM measurements WHERE run_id=?", (run_id,))
            if conn.execute("DELETE FROM runs WHERE id=?", (run_id,)).rowcount == 0:
                raise ValueError(f"run: no run with id {run_id}")

    # --- reading ----------------------------------------------------------------------------

    @staticmethod
    def _summary(row: sqlite3.Row) -> RunSummary:
        return RunSummary(
            id=int(row["id"]),
            started=str(row["started"]),
            machine=str(row["machine"]),
            hostname=str(row["hostname"]),
            device=str(row["device"]),
            versions=_loads(row["versions"], {}),
            config=_loads(row["config"], {}),
            device_info=_loads(row["device_info"], {}),
            notes=str(row["notes"]),
            warnings=tuple(_loads(row["warnings"], [])),
            seconds=row["seconds"],
            cancelled=bool(row["cancelled"]),
            measurement_count=int(row["n"]),
        )

    _SUMMARY_SQL = (
        "SELECT runs.*, (SELECT COUNT(*) FROM measurements m WHERE m.run_id = runs.id) AS n "
        "FROM runs"
    )

    def list_runs(self, machine: str | None = None) -> list[RunSummary]:
        """All runs, newest first (optionally of one machine)."""
        sql = self._SUMMARY_SQL
        params: tuple[Any, ...] = ()
        if machine is not None:
            sql += " WHERE machine = ?"
            params = (machine,)
        sql += " ORDER BY started DESC, id DESC"
        with closing(self._connect()) as conn:
            return [self._summary(row) for row in conn.execute(sql, params)]

    def load_run(self, run_id: int) -> StoredRun:
        """A run and its measurements; ``ValueError("run: …")`` if there is no such run."""
        with closing(self._connect()) as conn:
            row = conn.execute(self._SUMMARY_SQL + " WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise ValueError(f"run: no run with id {run_id}")
            rows = conn.execute(
                "SELECT * FROM measurements WHERE run_id = ? ORDER BY id", (run_id,)
            ).fetchall()
        results = tuple(
            BenchResult(
                suite=m["suite"],
                device=m["device"],
                dtype=m["dtype"],
                size=int(m["size"]),
                tflops=m["tflops"],
                seconds=m["seconds"] if m["seconds"] is not None else math.nan,
                peak_tflops=m["peak_tflops"],
                percent_of_peak=m["percent_of_peak"],
                extra=_loads(m["extra"], {}),
                variant=m["variant"],
                metric=m["metric"],
                value=m["value"],
            )
            for m in rows
        )
        return StoredRun(self._summary(row), results)

    def compare_runs(self, a: int, b: int) -> RunComparison:
        """Measurements present in both runs (same suite, dtype, variant, size) with b/a."""
        run_a, run_b = self.load_run(a), self.load_run(b)
        index_b = {r.key: r for r in run_b.results}
        matched: list[ComparedMeasurement] = []
        only_a: list[BenchResult] = []
        for ra in run_a.results:
            rb = index_b.pop(ra.key, None)
            if rb is None:
                only_a.append(ra)
                continue
            va, vb = _headline(ra), _headline(rb)
            ratio = vb / va if va and vb is not None else None
            better = "same"
            if ratio is not None and abs(ratio - 1) > 0.03:
                # Headline values are rates (higher is better) for every suite.
                better = "b" if ratio > 1 else "a"
            matched.append(
                ComparedMeasurement(
                    ra.suite, ra.dtype, ra.variant, ra.size, ra.metric, ra, rb, ratio, better
                )
            )
        only_b = [r for r in run_b.results if r.key in index_b]
        return RunComparison(
            run_a.summary, run_b.summary, tuple(matched), tuple(only_a), tuple(only_b)
        )

    # --- export -----------------------------------------------------------------------------

    def export_json(self, run_ids: Sequence[int], path: Path | str) -> Path:
        """Write the runs (with measurements) as one JSON document."""
        runs = [self.load_run(i).to_dict() for i in run_ids]
        payload = {"format": EXPORT_FORMAT, "schema_version": SCHEMA_VERSION, "runs": runs}
        target = Path(path)
        target.write_text(
            json.dumps(jsonable(payload), indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )
        return target

    CSV_COLUMNS: tuple[str, ...] = (
        "run_id",
        "started",
        "machine",
        "suite",
        "device",
        "dtype",
        "variant",
        "size",
        "tflops",
        "seconds",
        "peak_tflops",
        "percent_of_peak",
        "metric",
        "value",
        "extra",
    )

    def export_csv(self, run_ids: Sequence[int], path: Path | str) -> Path:
        """One row per measurement; ``extra`` as a JSON string."""
        target = Path(path)
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(self.CSV_COLUMNS)
            for run_id in run_ids:
                run = self.load_run(run_id)
                for r in run.results:
                    d = r.to_dict()
                    writer.writerow(
                        [
                            run.summary.id,
                            run.summary.started,
                            run.summary.machine,
                            r.suite,
                            r.device,
                            r.dtype,
                            r.variant,
                            r.size,
                            *("" if d[k] is None else d[k] for k in self.CSV_COLUMNS[8:14]),
                            _dumps(dict(r.extra)),
                        ]
                    )
        return target


def save_bench_run(
    run: Any,
    *,
    notes: str = "",
    store: ResultsStore | None = None,
    fingerprint: str | None = None,
    hostname: str | None = None,
) -> int:
    """Save a :class:`~desktopapp.devices.bench.runner.BenchRun` with this machine's identity."""
    import socket

    from desktopapp.devices.bench.runner import versions

    if fingerprint is None or hostname is None:
        from desktopapp.devices.detect import detect_system

        report = detect_system(include_torch=False)
        fingerprint = fingerprint or report.fingerprint
        hostname = hostname or report.hostname
    store = store or ResultsStore()
    return store.save_run(
        run.results,
        machine=fingerprint,
        hostname=hostname or socket.gethostname(),
        device=run.device.spec,
        versions=versions(),
        config=run.config.to_dict(),
        device_info=run.device_info,
        notes=notes,
        warnings=run.warnings,
        started=run.started,
        seconds=run.seconds,
        cancelled=run.cancelled,
    )


__all__ = [
    "SCHEMA_VERSION",
    "ComparedMeasurement",
    "ResultsStore",
    "ResultsStoreError",
    "RunComparison",
    "RunSummary",
    "StoredRun",
    "save_bench_run",
]
