"""Damaged, foreign and odd data files for the hostile tests: each maker builds one variant at
``path`` (the place the app will open) and returns a short description.

The makers work for both SQLite stores; ``kind`` is "results" or "monitor".
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.results_store import ResultsStore
from desktopapp.devices.session_store import SessionStore

PAGE = 4096


def make_ours(kind: str, path: Path, rows: int = 300) -> None:
    """A real database of the app with enough rows to span many pages."""
    if kind == "results":
        store = ResultsStore(path)
        for i in range(3):
            store.save_run(
                [
                    BenchResult("matmul", "cpu", "fp32", 64 + j, 1.0 + j, 0.001, None, None)
                    for j in range(rows // 3)
                ],
                machine=f"m{i}",
                notes="x" * 200,
            )
    else:
        with SessionStore(path) as store, store.start_session("seed") as rec:
            for i in range(rows):
                rec.add_values(1000.0 + i, {"cpu.percent": float(i % 100), "mem.percent": 50.0})


def _rewrite(path: Path, change: Callable[[bytearray], None]) -> None:
    data = bytearray(path.read_bytes())
    change(data)
    path.write_bytes(bytes(data))


def truncated_half(kind: str, path: Path) -> str:
    make_ours(kind, path)
    _rewrite(path, lambda d: d.__delitem__(slice(len(d) // 2, None)))
    return "cut to half its size"


def header_only(kind: str, path: Path) -> str:
    make_ours(kind, path)
    _rewrite(path, lambda d: d.__delitem__(slice(100, None)))
    return "only the 100-byte header"


def short_magic(kind: str, path: Path) -> str:
    path.write_bytes(b"SQLite for")
    return "a prefix of the SQLite magic"


def random_bytes(kind: str, path: Path) -> str:
    path.write_bytes(random.Random(7).randbytes(3 * PAGE))
    return "random bytes"


def zero_filled(kind: str, path: Path) -> str:
    path.write_bytes(bytes(5 * PAGE))
    return "zeros"


def text_file(kind: str, path: Path) -> str:
    path.write_text("these are the user's notes, not a database\n" * 50, encoding="utf-8")
    return "a text file"


def garbage_page(kind: str, path: Path) -> str:
    make_ours(kind, path)

    def change(d: bytearray) -> None:
        page_size = int.from_bytes(d[16:18], "big") or 65536
        start = 2 * page_size  # page 3: a table's b-tree page
        d[start : start + page_size] = random.Random(3).randbytes(page_size)

    _rewrite(path, change)
    return "one page overwritten with garbage"


def bad_page_size(kind: str, path: Path) -> str:
    make_ours(kind, path)

    def change(d: bytearray) -> None:
        d[16:18] = (1000).to_bytes(2, "big")  # not a power of two

    _rewrite(path, change)
    return "an impossible page size in the header"


def foreign_db(kind: str, path: Path) -> str:
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE contacts(name TEXT, phone TEXT);INSERT INTO contacts VALUES ('Ada', '123');"
    )
    conn.commit()
    conn.close()
    return "another program's database"


def foreign_same_names(kind: str, path: Path) -> str:
    """Another program's tables that happen to share our table names."""
    conn = sqlite3.connect(path)
    name = "runs" if kind == "results" else "sessions"
    conn.executescript(f"CREATE TABLE {name}(a TEXT); INSERT INTO {name} VALUES ('theirs');")
    conn.commit()
    conn.close()
    return f"a foreign {name!r} table"


def ours_plus_foreign(kind: str, path: Path) -> str:
    make_ours(kind, path, rows=30)
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE invoices(n INTEGER); INSERT INTO invoices VALUES (1);")
    conn.commit()
    conn.close()
    return "our tables plus another program's"


def newer_version(kind: str, path: Path) -> str:
    make_ours(kind, path, rows=30)
    conn = sqlite3.connect(path)
    if kind == "results":
        conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
        conn.commit()
    else:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    return "written by a newer version"


def unreadable_version(kind: str, path: Path) -> str:
    if kind != "results":
        return newer_version(kind, path)
    make_ours(kind, path, rows=30)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value='banana' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    return "a schema version that is not a number"


def a_folder(kind: str, path: Path) -> str:
    path.mkdir()
    (path / "keep.txt").write_text("mine", encoding="utf-8")
    return "a folder"


def a_fifo(kind: str, path: Path) -> str:
    os.mkfifo(path)
    return "a FIFO"


def link_to_dev_zero(kind: str, path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "a symbolic link to /dev/zero"


def broken_link(kind: str, path: Path) -> str:
    path.symlink_to(path.parent / "nowhere" / "x.sqlite3")
    return "a broken symbolic link"


REFUSED: dict[str, Callable[[str, Path], str]] = {
    "truncated_half": truncated_half,
    "header_only": header_only,
    "short_magic": short_magic,
    "random_bytes": random_bytes,
    "zero_filled": zero_filled,
    "text_file": text_file,
    "garbage_page": garbage_page,
    "bad_page_size": bad_page_size,
    "foreign_db": foreign_db,
    "foreign_same_names": foreign_same_names,
    "ours_plus_foreign": ours_plus_foreign,
    "newer_version": newer_version,
    "unreadable_version": unreadable_version,
    "a_folder": a_folder,
    "a_fifo": a_fifo,
    "link_to_dev_zero": link_to_dev_zero,
    "broken_link": broken_link,
}


def snapshot(path: Path) -> object:
    """What must not change: the bytes of a file, the listing of a folder, a link's target,
    the type of a special file."""
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_dir():
        return ("dir", sorted((p.name, p.read_bytes()) for p in path.iterdir()))
    if path.exists() and not path.is_file():
        return ("special", os.stat(path).st_mode)
    if not path.exists():
        return None
    return ("file", path.read_bytes())


def kill_mid_transaction(path: Path, kind: str) -> None:
    """Start a big write in another process and kill it (SIGKILL) mid transaction, leaving a
    hot journal beside ``path`` (rollback-journal mode, the results store's mode)."""
    assert kind == "results"
    code = textwrap.dedent(
        f"""
        import os, sqlite3
        conn = sqlite3.connect({str(path)!r})
        conn.execute("PRAGMA cache_size = 1")  # spill pages to the file mid transaction
        conn.execute("BEGIN")
        for i in range(3000):
            conn.execute(
                "INSERT INTO runs(started, machine, notes) VALUES ('x', 'killed', ?)",
                ("y" * 500,),
            )
        os.kill(os.getpid(), 9)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=False, timeout=60)
