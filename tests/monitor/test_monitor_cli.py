"""``desktopapp monitor``: --once --json, a short real run with --csv, summaries, Ctrl-C."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest

from desktopapp.cli import run_command
from desktopapp.commands import monitor
from desktopapp.devices import sampler as sampler_module
from desktopapp.devices.session_store import SessionStore, read_csv
from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler


def test_once_json(capsys):
    assert run_command(["monitor", "--once", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) >= {"timestamp", "cpu", "memory", "gpus", "problems"}
    assert 0 <= payload["cpu"]["percent"] <= 100
    assert len(payload["cpu"]["per_core"]) >= 1
    assert payload["memory"]["total_bytes"] > 0
    assert isinstance(payload["gpus"], list) and isinstance(payload["problems"], list)
    if not payload["gpus"]:
        assert any("GPU" in p for p in payload["problems"])


def test_csv_in_a_folder_not_made_yet_is_written_there(tmp_path, capsys):
    """The CSV's missing folders are created, as for the app's own files; a file standing where
    a folder must be is refused before anything is measured, naming it."""
    target = tmp_path / "runs" / "today" / "out.csv"
    assert run_command(["monitor", "--once", "--csv", str(target)]) == 0
    assert f"CSV written to {target}" in capsys.readouterr().out
    assert len(read_csv(target)[1]) == 1
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.csv"]
    (tmp_path / "blocker").write_text("not a folder")
    code = run_command(["monitor", "--once", "--csv", str(tmp_path / "blocker" / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "csv:" in err and "blocker" in err and "Traceback" not in err


def test_once_text(capsys):
    assert run_command(["monitor", "--once"]) == 0
    out = capsys.readouterr().out
    assert "CPU" in out and "RAM" in out and "load average" in out


def test_one_second_run_with_csv(tmp_path, capsys):
    target = tmp_path / "out.csv"
    code = run_command(["monitor", "--interval", "0.25", "--duration", "1", "--csv", str(target)])
    assert code == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "CPU" in line and "RAM" in line]
    assert 3 <= len(lines) <= 5  # one live line per sample
    assert "samples over" in out and f"CSV written to {target}" in out
    header, rows = read_csv(target)
    assert header[:3] == ["timestamp (s)", "time (UTC)", "elapsed (s)"]
    assert "cpu.percent (%)" in header and "disk.read (B/s)" in header
    assert len(rows) == len(lines)
    assert not (tmp_path / "out.csv.part").exists()
    col = header.index("cpu.percent (%)")
    assert all(0 <= float(r[col]) <= 100 for r in rows)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--interval", "0.01"], "--interval: must be between 0.05 and 3600"),
        (["--interval", "7200"], "--interval: must be between 0.05 and 3600"),
        (["--duration", "-1"], "--duration: must be greater than 0"),
        (["--price-per-gpu-hour", "-2", "--duration", "1"], "--price-per-gpu-hour: must be 0"),
    ],
)
def test_bad_options_exit_2(argv, message, capsys):
    assert run_command(["monitor", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


class FakeClock:
    """Stands in for the ``time`` module inside commands.monitor: sleeping advances it."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps = 0
        self.interrupt_after: int | None = None

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        if self.interrupt_after is not None and self.sleeps > self.interrupt_after:
            raise KeyboardInterrupt
        self.now += seconds


@pytest.fixture
def scripted(monkeypatch):
    """The CLI on a FakeSampler (2 GPUs, idle then busy) and a fake clock."""
    clock = FakeClock()
    monkeypatch.setattr(
        monitor, "time", SimpleNamespace(monotonic=clock.monotonic, sleep=clock.sleep)
    )

    def make(**_kwargs):
        return FakeSampler(
            gpu_count=2,
            gpu_util=(2.0,),
            cpu_percent=(95.0,),
            interval_s=1.0,
            processes=(FakeProcessSpec(0, 4242, user="carol"),),
        )

    monkeypatch.setattr(sampler_module, "RealSampler", make)
    return clock


def test_json_summary_with_diagnosis_and_idle_cost(scripted, capsys):
    code = run_command(
        ["monitor", "--interval", "1", "--duration", "40", "--json", "--price-per-gpu-hour", "3"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)  # only JSON on stdout: no live lines
    assert summary["samples"] == 40 and summary["interrupted"] is False
    assert summary["duration_s"] == pytest.approx(39.0)
    cpu = summary["channels"]["cpu.percent"]
    assert cpu["unit"] == "%" and cpu["mean"] == pytest.approx(95.0) and cpu["max"] == 95.0
    assert summary["channels"]["gpu1.util"]["mean"] == pytest.approx(2.0)
    keys = [v["key"] for v in summary["diagnosis"]]
    assert keys == ["input_bound"]
    assert "GPU (mean of 2) 2% mean over 30 s while CPU 95%" in summary["diagnosis"][0]["evidence"]
    idle = summary["idle_cost"]
    assert idle["idle_fraction"] == pytest.approx(1.0)
    assert idle["idle_cost_usd"] == pytest.approx(2 * 39 / 3600 * 3.0)
    assert idle["users"][0]["user"] == "carol"


def test_ctrl_c_stops_cleanly_and_keeps_what_was_recorded(
    scripted, tmp_path, capsys, isolated_home
):
    scripted.interrupt_after = 5
    target = tmp_path / "partial.csv"
    code = run_command(
        ["monitor", "--interval", "0.5", "--csv", str(target), "--record", "--label", "x"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "5 samples over" in out and "(interrupted)" in out
    assert "GPU0   2%" in out and "session 1 recorded" in out
    _, rows = read_csv(target)
    assert len(rows) == 5
    with SessionStore() as store:
        (info,) = store.sessions()
        assert info.label == "x" and info.sample_count == 5 and info.ended is not None


def test_quiet_prints_nothing(scripted, capsys):
    assert run_command(["monitor", "--interval", "1", "--duration", "3", "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_live_line_shows_throttling_and_lost_gpu():
    f = FakeSampler(gpu_count=2, throttle_mask=(0x1 | 0x40,), lose_gpu_at={1: 0})
    line = monitor._live_line(f.sample())
    assert "[thermal (hardware)]" in line and "idle" not in line
    assert "GPU1 lost" in line


def test_one_sample_is_one_sample_over_no_time(capsys):
    from desktopapp.commands.monitor import _print_summary

    out = io.StringIO()
    summary = {"samples": 1, "duration_s": 0.0, "interrupted": False, "channels": {},
               "diagnosis": [], "csv": "x.csv", "csv_rows": 1, "session_id": None}  # fmt: skip
    _print_summary(summary, out)
    assert out.getvalue().startswith("\n1 sample\n")
    assert "CSV written to x.csv (1 row)" in out.getvalue()
    out = io.StringIO()
    _print_summary({**summary, "samples": 4, "duration_s": 3.0}, out)
    assert "4 samples over 3" in out.getvalue()
