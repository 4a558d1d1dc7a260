"""One rule for the app's SQLite files (results.sqlite3, monitor.sqlite3): look before writing.

:func:`classify` opens a file read-only (never writes, never creates side files next to it)
and sorts it into one of:

- ``MISSING``: nothing there yet; the app may create its database (:func:`create_new`
  builds it under a private name and links it into place, so no other process ever sees a
  half-made or zero-length database);
- ``EMPTY``: a zero-length file the app did not make (the app never leaves one): refused and
  left alone; a zero-length file with a journal next to it is the app's own interrupted
  creation and is handled like ``RECOVERABLE``;
- ``CURRENT``: the app's own tables, a schema version this app knows: write to it;
- ``RECOVERABLE``: the app's own file with a *hot journal* (a writer was killed mid
  transaction). A read-only check cannot roll the journal back, so the file and its journal are
  checked on a private copy; when the copy is ours and current, an ordinary open of the real
  file rolls the interrupted transaction back (SQLite's own recovery) and the file is used;
- ``NEWER``: the app's file from a newer version (higher schema version): refused;
- ``FOREIGN``: not an SQLite file, or another program's database: refused;
- ``CORRUPT``: damaged (fails SQLite's ``quick_check``, truncated, unreadable pages): refused;
- ``NOT_A_FILE``: a folder, a FIFO, a device, a broken link: refused;
- ``UNREADABLE``: no permission to read it: refused.

A refused file is named in one line (:meth:`Classification.message`) and left byte-identical.

Concurrency: the check reads under SQLite's own shared lock (``mode=ro``, a busy timeout and a
retry while another process holds the write lock), so a database that another process is
writing is never misread as damaged. ``immutable=1`` (no locks) is used only for a
write-ahead-log database with no ``-wal`` file next to it (no process has it open; a ``mode=ro``
open would leave ``-wal``/``-shm`` files beside it), and its verdict is kept only when the file
and the absence of a ``-wal`` file are unchanged after the read. :func:`setup_schema` creates
or checks the tables inside ``BEGIN IMMEDIATE`` (the write lock), retrying on ``SQLITE_BUSY``.
"""

from __future__ import annotations

import enum
import logging
import os
import secrets
import shutil
import sqlite3
import stat
import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
# How long one process waits for another's write lock (SQLite busy timeout), and how long the
# open-and-check step retries while the database stays busy.
BUSY_TIMEOUT_S = 30.0
RETRY_FOR_S = 120.0
# Tables SQLite itself adds (AUTOINCREMENT, ANALYZE): never a sign of another program.
_INTERNAL_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3"})
_INTERNAL_TABLES |= {"sqlite_stat4"}


class FileState(enum.Enum):
    MISSING = "missing"
    EMPTY = "empty"
    CURRENT = "ours and current"
    RECOVERABLE = "ours, recoverable (hot journal)"
    NEWER = "ours but newer"
    FOREIGN = "foreign"
    CORRUPT = "corrupt"
    NOT_A_FILE = "not a file"
    UNREADABLE = "unreadable"


WRITABLE_STATES = frozenset({FileState.MISSING, FileState.CURRENT, FileState.RECOVERABLE})
EMPTY_REASON = "is an empty file (0 bytes) that this app did not create (the app never leaves one)"


@dataclass(frozen=True)
class Classification:
    path: Path
    state: FileState
    reason: str = ""  # why it is refused (or what recovery will do), in plain words
    version: int | None = None
    tables: frozenset[str] = field(default_factory=frozenset)

    @property
    def writable(self) -> bool:
        """True when the app may open the file for writing (it is ours and current)."""
        return self.state in WRITABLE_STATES

    def message(self, what: str) -> str:
        """One line: ``<what> <path> <reason>; the file was left untouched: …``."""
        return (
            f"{what} {self.path} {self.reason}; the file was left untouched: move or rename it "
            "to start a new one (your other data is not affected)"
        )


VersionReader = Callable[[sqlite3.Connection, frozenset[str]], int | None]


def user_version(conn: sqlite3.Connection, tables: frozenset[str]) -> int | None:
    """Schema version kept in ``PRAGMA user_version`` (0 = not set)."""
    value = int(conn.execute("PRAGMA user_version").fetchone()[0])
    return value or None


@lru_cache(maxsize=8)
def schema_columns(schema_sql: str) -> Mapping[str, frozenset[str]]:
    """Table → column names that ``schema_sql`` creates (built in an in-memory database)."""
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(schema_sql)
        return _columns(conn)


def _columns(conn: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [
        str(r[0])
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    ]
    return {
        name: frozenset(str(r[1]) for r in conn.execute(f'PRAGMA table_info("{_quoted(name)}")'))
        for name in names
    }


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _has_content(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def classify(
    path: Path | str,
    *,
    schema_sql: str,
    current_version: int,
    read_version: VersionReader = user_version,
) -> Classification:
    """Classify ``path`` without changing it (see the module docstring)."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            return Classification(path, FileState.NOT_A_FILE, "is a broken symbolic link")
        return Classification(path, FileState.MISSING)
    except NotADirectoryError:
        return Classification(
            path,
            FileState.NOT_A_FILE,
            "cannot be used: a part of its folder path is a file, not a folder "
            "(check DESKTOPAPP_HOME)",
        )
    except OSError as exc:
        return Classification(path, FileState.UNREADABLE, f"cannot be read ({_os_text(exc)})")
    if stat.S_ISDIR(info.st_mode):
        return Classification(path, FileState.NOT_A_FILE, "is a folder, not a database file")
    if not stat.S_ISREG(info.st_mode):
        return Classification(path, FileState.NOT_A_FILE, "is not a regular file (device or pipe)")
    if info.st_size == 0:
        if _has_content(_sidecar(path, "-journal")) or _has_content(_sidecar(path, "-wal")):
            return _classify_copy(path, schema_sql, current_version, read_version)
        return Classification(path, FileState.EMPTY, EMPTY_REASON)
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        return Classification(path, FileState.UNREADABLE, f"cannot be read ({_os_text(exc)})")
    if not header.startswith(SQLITE_MAGIC):
        if SQLITE_MAGIC.startswith(header):
            return Classification(
                path, FileState.CORRUPT, "is not a readable SQLite database (cut short)"
            )
        return Classification(
            path, FileState.FOREIGN, "is not a readable SQLite database (no SQLite header)"
        )
    if len(header) < 100:
        return Classification(
            path, FileState.CORRUPT, "is not a readable SQLite database (cut short)"
        )
    hot_journal = _has_content(_sidecar(path, "-journal"))
    wal_mode = header[18] == 2 or header[19] == 2
    deadline = time.monotonic() + RETRY_FOR_S
    while True:
        has_wal = _has_content(_sidecar(path, "-wal")) or _sidecar(path, "-wal").exists()
        unlocked = wal_mode and not has_wal and not hot_journal
        before = _identity(path)
        # mode=ro reads under a shared lock and waits for a writer; immutable=1 only where no
        # process has the file open (write-ahead-log file without its -wal), checked below.
        mode = "immutable=1" if unlocked else "mode=ro"
        try:
            result = _inspect(
                f"{path.resolve().as_uri()}?{mode}", path, schema_sql, current_version, read_version
            )
        except sqlite3.DatabaseError as exc:
            if _busy(exc) and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            if unlocked and _changed(path, before) and time.monotonic() < deadline:
                continue  # another process opened it meanwhile: read again under its lock
            if (
                hot_journal
                or _has_content(_sidecar(path, "-journal"))
                or _has_content(_sidecar(path, "-wal"))
            ):
                return _classify_copy(path, schema_sql, current_version, read_version)
            return Classification(
                path, FileState.CORRUPT, f"is not a readable SQLite database ({exc})"
            )
        if unlocked and _changed(path, before) and time.monotonic() < deadline:
            continue
        return result


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _changed(path: Path, before: tuple[int, int, int] | None) -> bool:
    """The file changed, or a -wal file appeared, since ``before`` was taken."""
    return _identity(path) != before or _sidecar(path, "-wal").exists()


def _busy(exc: sqlite3.Error) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds a lock this one needs."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _inspect(
    uri: str,
    path: Path,
    schema_sql: str,
    current_version: int,
    read_version: VersionReader,
) -> Classification:
    with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)) as conn:
        conn.execute("BEGIN")  # one read transaction: one consistent view of the file
        found = _columns(conn)
        tables = frozenset(found) - _INTERNAL_TABLES
        expected = schema_columns(schema_sql)
        if tables:
            if not tables & set(expected):
                return Classification(
                    path,
                    FileState.FOREIGN,
                    "is an SQLite database of another program (tables: "
                    f"{_short(', '.join(sorted(tables)))})",
                    tables=tables,
                )
            strangers = sorted(tables - set(expected))
            if strangers:
                return Classification(
                    path,
                    FileState.FOREIGN,
                    f"holds tables this app does not use ({_short(', '.join(strangers))})",
                    tables=tables,
                )
            for name in sorted(tables):
                missing = sorted(expected[name] - found[name])
                if missing:
                    return Classification(
                        path,
                        FileState.FOREIGN,
                        f"has a table {name!r} without the columns this app uses "
                        f"({_short(', '.join(missing))})",
                        tables=tables,
                    )
        try:
            version = read_version(conn, tables)
        except (ValueError, TypeError) as exc:
            return Classification(
                path, FileState.CORRUPT, f"has an unreadable schema version ({exc})", tables=tables
            )
        if version is not None and version > current_version:
            return Classification(
                path,
                FileState.NEWER,
                f"was written by a newer version of the app (schema version {version}, this "
                f"app reads up to {current_version}; update the app)",
                version,
                tables,
            )
        check = conn.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            detail = _short(str(check[0]) if check else "no answer")
            return Classification(
                path, FileState.CORRUPT, f"failed its integrity check ({detail})", version, tables
            )
    return Classification(path, FileState.CURRENT, version=version, tables=tables)


def _classify_copy(
    path: Path, schema_sql: str, current_version: int, read_version: VersionReader
) -> Classification:
    """The file has a journal or write-ahead log that a read-only open cannot apply: apply it
    to a private copy (the real files are only read) and classify the result."""
    with tempfile.TemporaryDirectory(prefix="desktopapp-check-") as tmp:
        copy = Path(tmp) / path.name
        try:
            shutil.copyfile(path, copy)
            for suffix in ("-journal", "-wal"):
                if _has_content(_sidecar(path, suffix)):
                    shutil.copyfile(_sidecar(path, suffix), _sidecar(copy, suffix))
        except OSError as exc:
            return Classification(path, FileState.UNREADABLE, f"cannot be read ({_os_text(exc)})")
        try:
            with closing(sqlite3.connect(copy)) as conn:  # rolls back / replays on the copy
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            checked = _inspect(
                f"{copy.resolve().as_uri()}?mode=ro",
                path,
                schema_sql,
                current_version,
                read_version,
            )
        except sqlite3.DatabaseError as exc:
            return Classification(
                path,
                FileState.CORRUPT,
                f"is not a readable SQLite database, even after applying its journal ({exc})",
            )
    if checked.state is FileState.CURRENT:
        return Classification(
            path,
            FileState.RECOVERABLE,
            "has an interrupted transaction (hot journal) that opening it rolls back",
            checked.version,
            checked.tables,
        )
    return checked


def _os_text(exc: OSError) -> str:
    text = exc.strerror or str(exc)
    return f"{text}: {exc.filename}" if exc.filename else text


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _statements(script: str) -> list[str]:
    """The statements of a schema script (the app's own scripts: no ``;`` inside strings)."""
    return [part.strip() for part in script.split(";") if part.strip()]


def connect_existing(path: Path, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open an existing database for writing (``mode=rw``: never creates a file) with the busy
    timeout; writes take the write lock when their transaction begins (``IMMEDIATE``), so two
    writers wait for each other instead of failing."""
    conn = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=rw",
        uri=True,
        timeout=BUSY_TIMEOUT_S,
        check_same_thread=check_same_thread,
    )
    conn.isolation_level = "IMMEDIATE"
    return conn


def setup_schema(
    conn: sqlite3.Connection,
    schema_sql: str,
    *,
    extra: Callable[[sqlite3.Connection], None] | None = None,
) -> None:
    """Create-or-check inside ``BEGIN IMMEDIATE``: the tables of ``schema_sql`` that are
    missing are created, then ``extra(conn)`` runs (version rows), all under the write lock;
    retried while another process holds it (``SQLITE_BUSY``). Nothing is written when the
    tables are there and ``extra`` changes nothing."""
    expected = set(schema_columns(schema_sql))
    deadline = time.monotonic() + RETRY_FOR_S
    previous = conn.isolation_level
    conn.isolation_level = None  # this function issues BEGIN and COMMIT itself
    try:
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    tables = {
                        str(r[0])
                        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
                    }
                    if not expected <= tables:
                        for statement in _statements(schema_sql):
                            conn.execute(statement)
                    if extra is not None:
                        extra(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                return
            except sqlite3.OperationalError as exc:
                if _busy(exc) and time.monotonic() < deadline:
                    time.sleep(0.05 + secrets.randbelow(50) / 1000)
                    continue
                raise
    finally:
        conn.isolation_level = previous


def create_new(
    path: Path,
    schema_sql: str,
    *,
    extra: Callable[[sqlite3.Connection], None] | None = None,
    wal: bool = False,
) -> bool:
    """Create the database at ``path`` complete or not at all: built under a private name in
    the same folder, then hard-linked into place (an atomic create-if-absent). Returns False
    when another process created it first (its file is kept, this one discarded). Raises
    ``OSError`` or ``sqlite3.Error`` when the folder cannot take it."""
    private = path.with_name(f".{path.name}.new-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with closing(sqlite3.connect(private)) as conn:
            setup_schema(conn, schema_sql, extra=extra)
            if wal:
                conn.execute("PRAGMA journal_mode = WAL")
        fd = os.open(private, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(private, path)
        except FileExistsError:
            return False
        except OSError as exc:  # a file system without hard links (FAT, some network shares)
            _log.info("hard link refused in %s (%s): renaming instead", path.parent, exc)
            if path.exists():
                return False
            os.replace(private, path)
        return True
    finally:
        for leftover in (private, _sidecar(private, "-journal"), _sidecar(private, "-wal")):
            leftover.unlink(missing_ok=True)
        _sidecar(private, "-shm").unlink(missing_ok=True)


def ensure_parent(path: Path) -> str | None:
    """Create the folder of ``path``; returns why it cannot be used, or None when it can."""
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return f"cannot be created: {parent} is not a folder"
    except NotADirectoryError:
        return f"cannot be created: a part of {parent} is a file, not a folder"
    except OSError as exc:
        return f"cannot be created in {parent} ({_os_text(exc)})"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be written: the folder {parent} is read-only"
    return None


__all__ = [
    "BUSY_TIMEOUT_S",
    "WRITABLE_STATES",
    "Classification",
    "FileState",
    "classify",
    "connect_existing",
    "create_new",
    "ensure_parent",
    "schema_columns",
    "setup_schema",
    "user_version",
]
