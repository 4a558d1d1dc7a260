"""Concurrent writers never lose data; a zero-length file the app did not make is left alone.

Eight processes released together create the same fresh results database and store their runs:
every run is stored and no writer calls the file damaged (the old check read it without locks,
``immutable=1``, while another process was still writing the schema, and refused it as
"malformed"). The repetition under CPU load is ``concurrent_writers.py --repeat 20`` (README)."""

from __future__ import annotations

import pytest
from concurrent_writers import run_once

from desktopapp.cli import run_command
from desktopapp.devices.session_store import SessionStore, SessionStoreError


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["results", "monitor"])
def test_concurrent_writers_store_every_run(kind, tmp_path):
    stored, errors = run_once(kind, processes=8, runs=12, folder=tmp_path, rows=40)
    assert errors == []
    assert stored == 8 * 12


def test_listing_monitor_sessions_never_writes_a_zero_length_file(tmp_path, capsys):
    path = tmp_path / "monitor.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(SessionStoreError, match="empty file") as info:
        SessionStore(path, read_only=True)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == b""
    assert [p.name for p in tmp_path.iterdir()] == ["monitor.sqlite3"]


@pytest.mark.parametrize("read_only", [False, True])
def test_zero_length_monitor_file_is_named_and_left(read_only, tmp_path):
    path = tmp_path / "monitor.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(SessionStoreError, match="did not create"):
        SessionStore(path, read_only=read_only)
    assert path.stat().st_size == 0


def test_record_into_a_zero_length_database_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    from desktopapp.devices.session_store import monitor_db_path

    path = monitor_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    code = run_command(["monitor", "--record", "--duration", "1", "--interval", "0.5", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "empty file" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert path.stat().st_size == 0
