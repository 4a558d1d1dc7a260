"""One rule for the app's SQLite files (results.sqlite3, monitor.sqlite3): look before writing.

:func:`classify` opens a file read-only (never writes, never creates side files next to it)
and sorts it into one of:

- ``MISSING`` / ``EMPTY``: nothing there yet; the app may create its database;
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
"""

from __future__ import annotations

import enum
import os
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
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


WRITABLE_STATES = frozenset(
    {FileState.MISSING, FileState.EMPTY, FileState.CURRENT, FileState.RECOVERABLE}
)


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
        return Classification(path, FileState.EMPTY)
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
    if _has_content(_sidecar(path, "-wal")):
        mode = "mode=ro"  # reads the write-ahead log; never writes the database file
    elif hot_journal:
        mode = "mode=ro"  # refuses (SQLITE_READONLY_ROLLBACK) when the journal is hot
    else:
        mode = "immutable=1"  # no locks and no -wal/-shm files created next to it
    try:
        result = _inspect(
            f"{path.resolve().as_uri()}?{mode}", path, schema_sql, current_version, read_version
        )
    except sqlite3.DatabaseError as exc:
        if hot_journal or _has_content(_sidecar(path, "-wal")):
            return _classify_copy(path, schema_sql, current_version, read_version)
        return Classification(path, FileState.CORRUPT, f"is not a readable SQLite database ({exc})")
    return result


def _inspect(
    uri: str,
    path: Path,
    schema_sql: str,
    current_version: int,
    read_version: VersionReader,
) -> Classification:
    with closing(sqlite3.connect(uri, uri=True)) as conn:
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
    "WRITABLE_STATES",
    "Classification",
    "FileState",
    "classify",
    "ensure_parent",
    "schema_columns",
    "user_version",
]
