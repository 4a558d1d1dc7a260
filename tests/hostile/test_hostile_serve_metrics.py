"""``monitor --serve-metrics``: options it cannot honour are refused with it (never silently
ignored), and the address is parsed with a named error (no Python-internal message)."""

from __future__ import annotations

import pytest

from desktopapp.cli import run_command


@pytest.mark.parametrize(
    "extra", [["--once"], ["--record"], ["--csv", "out.csv"], ["--once", "--record"]]
)
def test_options_it_cannot_honour_are_refused(extra, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code = run_command(["monitor", "--serve-metrics", "127.0.0.1:0", "--duration", "1", *extra])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--serve-metrics" in err and extra[0] in err
    assert not (tmp_path / "out.csv").exists()
    assert not list(tmp_path.rglob("monitor.sqlite3"))


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1:" + "9" * 10_000,
        "9" * 10_000,
        "127.0.0.1:" + "0" * 3 + "1" * 8,
        "127.0.0.1:65536",
        "127.0.0.1:-1",
        "127.0.0.1:",
        "bad host:9100",
        "host\n:9100",
    ],
)
def test_bad_address_is_named_in_one_line(address, capsys):
    code = run_command(["monitor", "--serve-metrics", address, "--duration", "1"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--serve-metrics" in err and "Exceeds the limit" not in err and "Traceback" not in err
