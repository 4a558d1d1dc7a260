"""``desktopapp monitor`` when files fail: bad --csv targets refused before measuring, a full
disk mid-run keeps every complete row, SIGTERM keeps the end of the session, a database that
fails mid-run stops recording but not monitoring, and a killed recorder loses no more than
the README says."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktopapp.cli import run_command
from desktopapp.commands import monitor
from desktopapp.devices import sampler as sampler_module
from desktopapp.devices import session_store
from desktopapp.devices.session_store import SessionStore, SessionStoreError, read_csv
from desktopapp.testing.sampler import FakeSampler


@pytest.fixture
def scripted(monkeypatch):
    """A FakeSampler and a clock that advances when the command sleeps; counts samples."""
    clock = SimpleNamespace(now=1000.0, samples=0)

    def sleep(seconds: float) -> None:
        clock.now += seconds

    monkeypatch.setattr(monitor, "time", SimpleNamespace(monotonic=lambda: clock.now, sleep=sleep))

    class Counting(FakeSampler):
        def sample(self):  # type: ignore[no-untyped-def]
            clock.samples += 1
            return super().sample()

    monkeypatch.setattr(
        sampler_module, "RealSampler", lambda **_k: Counting(gpu_count=1, interval_s=1.0)
    )
    return clock


def _one_line_error(err: str) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and "Traceback" not in err and ": error: " in lines[0]


@pytest.mark.parametrize(
    "kind", ["empty", "folder", "parent_is_file", "name_too_long", "blank", "read_only_place"]
)
@pytest.mark.parametrize("once", [False, True])
def test_bad_csv_target_refused_before_measuring(kind, once, scripted, tmp_path, capsys):
    (tmp_path / "afile").write_text("mine", encoding="utf-8")
    target = {
        "empty": "",
        "blank": "   ",
        "folder": str(tmp_path),
        "parent_is_file": str(tmp_path / "afile" / "out.csv"),
        "name_too_long": str(tmp_path / ("x" * 300 + ".csv")),
        "read_only_place": "/proc/self/fdinfo/out.csv",  # refused even to root
    }[kind]
    before = sorted(p.name for p in tmp_path.iterdir())
    argv = ["monitor", "--csv", target, *(["--once"] if once else ["--duration", "3"])]
    code = run_command(argv)
    err = capsys.readouterr().err
    assert code == 2 and _one_line_error(err) and "--csv" in err
    assert scripted.samples == 0 or once  # --once primes, but nothing is written
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "mine"


def test_once_json_prints_the_sample_even_when_csv_fails(scripted, tmp_path, capsys, monkeypatch):
    def full(self, *_a, **_k):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(session_store.CsvSampleWriter, "write", full)
    code = run_command(["monitor", "--once", "--json", "--csv", str(tmp_path / "o.csv")])
    captured = capsys.readouterr()
    assert code == 1
    assert "cpu" in json.loads(captured.out)
    assert _one_line_error(captured.err) and "No space left" in captured.err


def test_database_failing_mid_run_stops_recording_not_monitoring(
    scripted, isolated_home, tmp_path, capsys, monkeypatch
):
    calls = {"n": 0}
    real_flush = session_store.SessionRecorder._write_batch

    def flaky(self):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] >= 2:
            raise sqlite3.OperationalError("database or disk is full")
        real_flush(self)

    monkeypatch.setattr(session_store.SessionRecorder, "_write_batch", flaky)
    csv_path = tmp_path / "o.csv"
    code = run_command(
        [
            "monitor",
            "--record",
            "--duration",
            "120",
            "--interval",
            "1",
            "--json",
            "--csv",
            str(csv_path),
        ]
    )
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert code == 1
    assert summary["samples"] == 120 and summary["csv_rows"] == 120  # monitoring went on
    assert any("recording stopped" in e for e in summary["errors"])
    assert "Traceback" not in captured.err
    _, rows = read_csv(csv_path)
    assert len(rows) == 120


def test_recorded_samples_survive_and_session_has_an_end(scripted, isolated_home, capsys):
    assert run_command(["monitor", "--record", "--duration", "35", "--quiet"]) == 0
    with SessionStore(read_only=True) as store:
        (info,) = store.sessions()
        data = store.load(info.id)
    assert info.ended is not None and info.sample_count == 35 == len(data.timestamps)


# --- real processes: full disk, SIGTERM, SIGKILL ----------------------------------------------


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DESKTOPAPP_HOME"] = str(home)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def test_full_disk_mid_run_keeps_every_complete_row(tmp_path):
    """RLIMIT_FSIZE makes writes past a size fail with EFBIG, as a full disk fails with
    ENOSPC: the row being written is cut, every earlier row is kept, the run goes on."""
    out = tmp_path / "out.csv"
    code = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))
        from desktopapp.cli import main
        sys.exit(main(["monitor", "--interval", "0.05", "--duration", "1.5", "--quiet",
                       "--no-processes", "--csv", {str(out)!r}]))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "stopped after" in proc.stderr and "complete rows" in proc.stderr
    assert out.exists() and not out.with_name("out.csv.part").exists()
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n") and len(text.encode()) <= 3000
    header, rows = read_csv(out)
    assert rows and all(len(r) == len(header) for r in rows)
    for r in rows:
        float(r[0])  # no row cut mid-number


def _start_recording(tmp_path: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "desktopapp",
            "monitor",
            "--interval",
            "0.05",
            "--record",
            "--quiet",
            "--json",
            "--no-processes",
            "--csv",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )


def _wait_for_rows(part: Path, rows: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if part.exists() and part.read_text(encoding="utf-8").count("\n") > rows:
            return
        time.sleep(0.05)
    raise AssertionError("the monitor wrote no rows")


def test_sigterm_keeps_the_end_of_the_session(tmp_path):
    out = tmp_path / "rec.csv"
    proc = _start_recording(tmp_path, out)
    _wait_for_rows(out.with_name("rec.csv.part"), 8, proc)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["interrupted"] is True and summary["stopped_by"] == "SIGTERM"
    assert out.exists() and not out.with_name("rec.csv.part").exists()
    _, rows = read_csv(out)
    with SessionStore(tmp_path / "data" / "monitor.sqlite3", read_only=True) as store:
        (info,) = store.sessions()
        data = store.load(info.id)
    assert info.ended is not None
    assert info.sample_count == len(data.timestamps) == len(rows) == summary["samples"]


def test_sigkill_loses_at_most_the_documented_batch(tmp_path):
    out = tmp_path / "rec.csv"
    proc = _start_recording(tmp_path, out)
    part = out.with_name("rec.csv.part")
    _wait_for_rows(part, 70, proc)  # past the first 50-sample batch
    proc.kill()
    proc.communicate(timeout=60)
    _, rows = read_csv(part)  # the CSV keeps every row, under its .part name
    path = tmp_path / "data" / "monitor.sqlite3"
    with SessionStore(path) as store:  # the left-over write-ahead log is ours: it opens
        (info,) = store.sessions()
        stored = len(store.load(info.id).timestamps)
    assert info.ended is None  # the README says so
    assert stored > 0 and len(rows) - stored <= 50  # at most one batch (50 samples or 2 s)


def test_unusable_monitor_database_is_refused_before_measuring(scripted, isolated_home, capsys):
    data = Path(isolated_home) / "data"
    data.mkdir()
    (data / "monitor.sqlite3").mkdir()
    code = run_command(["monitor", "--record", "--duration", "3"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line_error(err) and "is a folder" in err
    assert scripted.samples == 0


def test_data_folder_is_a_file(scripted, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.write_text("x", encoding="utf-8")
    monkeypatch.setenv("DESKTOPAPP_HOME", str(home))
    code = run_command(["monitor", "--record", "--duration", "3"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line_error(err) and "DESKTOPAPP_HOME" in err
    assert home.read_text(encoding="utf-8") == "x"


def test_session_store_error_is_a_value_error():
    assert issubclass(SessionStoreError, ValueError)


def test_data_folder_that_cannot_be_created(scripted, monkeypatch, capsys):
    monkeypatch.setenv("DESKTOPAPP_HOME", "/proc/self/fdinfo")  # read-only, even to root
    code = run_command(["monitor", "--record", "--duration", "3"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line_error(err) and "monitor database" in err
    assert scripted.samples == 0
