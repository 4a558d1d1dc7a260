"""``desktopapp bench``: Ctrl-C keeps what was measured (marked cancelled, saved) the way the
GUI's Cancel does; a second Ctrl-C aborts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from desktopapp.cli import run_command
from desktopapp.devices.bench import runner
from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.results_store import ResultsStore


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """These tests send SIGINT to this process: they set Python's own handler instead of relying
    on the parent's (a suite started as a background job inherits SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _result(size: int) -> BenchResult:
    return BenchResult(
        "matmul", "cpu", "fp32", size, 0.5, 1e-3, None, None, metric="TFLOP/s", value=0.5
    )


def test_first_ctrl_c_cancels_and_keeps_results(monkeypatch, isolated_home, capsys):
    seen = {}

    def fake_run(config, token=None, on_event=None, target=None):
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C mid-run
        seen["cancelled"] = token.cancelled
        from desktopapp.devices.bench.target import resolve_device

        return runner.BenchRun(
            config,
            resolve_device("cpu"),
            (_result(64),),
            ("cancelled during matmul",),
            "2026-01-01T00:00:00+00:00",
            0.1,
            token.cancelled,
        )

    monkeypatch.setattr(runner, "run_and_collect", fake_run)
    code = run_command(["bench", "--json", "--suite", "matmul"])
    captured = capsys.readouterr()
    assert code == 0 and seen["cancelled"] is True
    payload = json.loads(captured.out)
    assert payload["cancelled"] is True and len(payload["results"]) == 1
    assert "what was measured is kept" in captured.err
    (run,) = ResultsStore().list_runs()
    assert run.cancelled and run.measurement_count == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_second_ctrl_c_aborts(monkeypatch, isolated_home, capsys):
    def fake_run(config, token=None, on_event=None, target=None):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        raise AssertionError("not reached")

    monkeypatch.setattr(runner, "run_and_collect", fake_run)
    assert run_command(["bench", "--suite", "matmul"]) == 130
    assert ResultsStore().list_runs() == []


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_on_a_real_run(tmp_path, signum):
    env = dict(os.environ, DESKTOPAPP_HOME=str(tmp_path))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "desktopapp",
            "bench",
            "--suite",
            "matmul",
            "--dtype",
            "fp32",
            "--budget-s",
            "60",  # long enough that the signal, not the budget, ends the run
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # the child starts with SIGINT's default action, as from a terminal, even when this
        # suite runs as a background job (SIGINT inherited as ignored)
        preexec_fn=_default_sigint,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    lines = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        lines.append(line)
        if "fp32" in line and "×" in line and len(lines) > 3:  # measurements are coming in
            break
    proc.send_signal(signum)
    stdout, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    payload = json.loads(stdout)
    assert payload["cancelled"] is True and payload["results"]
    (run,) = ResultsStore(tmp_path / "data" / "results.sqlite3").list_runs()
    assert run.cancelled and run.measurement_count == len(payload["results"])
