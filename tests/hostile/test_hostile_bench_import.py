"""``bench import`` checks the whole collective results file before storing one row: types and
ranges, size, depth and row limits, regular files only (no hang on a pipe, no read of
/dev/zero), a known --accelerator; refused files leave the results database without a run."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktopapp.cli import run_command

GOOD = {
    "format": "desktopapp-collective-bench",
    "suite": "allreduce",
    "started": "2026-01-01T00:00:00+00:00",
    "seconds": 3.0,
    "cancelled": False,
    "config": {"device": "cuda", "nproc": 8, "min_bytes": 32768, "budget_s": 60.0},
    "world_size": 8,
    "backend": "nccl",
    "nodes": 1,
    "gpus_per_node": 8,
    "hosts": ["node-a"],
    "device_name": "NVIDIA H100 80GB HBM3",
    "versions": {"torch": "2.5.1", "nccl": "2.21.5"},
    "results": [
        {
            "op": "all_reduce",
            "bytes": 1048576,
            "seconds": 0.0001,
            "min_seconds": 0.00009,
            "world_size": 8,
            "backend": "nccl",
            "iterations": 5,
        }
    ],
    "notes": [],
}


def _stored_runs(home: Path) -> int:
    from desktopapp.devices.results_store import ResultsStore

    path = home / "data" / "results.sqlite3"
    found = list(home.rglob("results.sqlite3"))
    if not found:
        return 0
    path = found[0]
    return len(ResultsStore(path).list_runs())


def _import(tmp_path, monkeypatch, capsys, doc=None, text=None, extra=()):
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path / "home"))
    path = tmp_path / "in.json"
    path.write_text(text if text is not None else json.dumps(doc))
    code = run_command(["bench", "import", str(path), *extra])
    captured = capsys.readouterr()
    return code, captured.err, _stored_runs(tmp_path / "home")


def _with(change):
    doc = copy.deepcopy(GOOD)
    change(doc)
    return doc


def _row(key, value):
    return lambda d: d["results"][0].__setitem__(key, value)


def _top(key, value):
    return lambda d: d.__setitem__(key, value)


BAD = {
    "bytes negative": _row("bytes", -1),
    "bytes zero": _row("bytes", 0),
    "bytes boolean": _row("bytes", True),
    "bytes fraction": _row("bytes", 1.5),
    "bytes 1e300": _row("bytes", 1e300),
    "bytes text": _row("bytes", "1024"),
    "bytes beyond int64": _row("bytes", 2**70),
    "seconds negative": _row("seconds", -0.5),
    "seconds zero": _row("seconds", 0),
    "seconds text": _row("seconds", "0.1"),
    "seconds list": _row("seconds", [1]),
    "min above median": _row("min_seconds", 5.0),
    "world size zero": _row("world_size", 0),
    "op unknown": _row("op", "all_to_all"),
    "op object": _row("op", {"a": 1}),
    "row not object": lambda d: d["results"].append(7),
    "cancelled text": _top("cancelled", "false"),
    "nodes zero": _top("nodes", 0),
    "nodes negative": _top("nodes", -3),
    "gpus per node zero": _top("gpus_per_node", 0),
    "nodes infinity-like": _top("nodes", 1e300),
    "empty results": _top("results", []),
    "results object": _top("results", {"op": "all_reduce"}),
    "hosts text": _top("hosts", "node-a"),
    "device name escape": _top("device_name", "\x1b]0;pwned\x07"),
    "config not object": _top("config", [1, 2]),
    "too many rows": lambda d: d.__setitem__("results", d["results"] * 20_001),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_field_refused_in_one_line_and_nothing_stored(case, tmp_path, monkeypatch, capsys):
    code, err, stored = _import(tmp_path, monkeypatch, capsys, _with(BAD[case]))
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "\x1b" not in err
    assert stored == 0


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(GOOD).replace('"seconds": 0.0001', '"seconds": NaN'),
        json.dumps(GOOD).replace('"seconds": 0.0001', '"seconds": Infinity'),
        json.dumps(GOOD).replace('"seconds": 0.0001', '"seconds": -Infinity'),
        json.dumps(GOOD).replace('"bytes": 1048576', '"bytes": 1e400'),
        json.dumps(GOOD).replace('"bytes": 1048576', '"bytes": ' + "9" * 5000),
        "[" * 100_000 + "]" * 100_000,
        '{"format": "desktopapp-collective-bench", "results": ' + "[" * 50 + "]" * 50 + "}",
    ],
    ids=["nan", "inf", "-inf", "1e400", "5000 digits", "deep list", "deep results"],
)
def test_odd_json_refused_and_nothing_stored(text, tmp_path, monkeypatch, capsys):
    code, err, stored = _import(tmp_path, monkeypatch, capsys, text=text)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert stored == 0


def test_good_file_is_stored_once(tmp_path, monkeypatch, capsys):
    code, err, stored = _import(tmp_path, monkeypatch, capsys, GOOD)
    assert code == 0, err
    assert stored == 1


def test_unknown_accelerator_is_refused_with_a_suggestion(tmp_path, monkeypatch, capsys):
    code, err, stored = _import(
        tmp_path, monkeypatch, capsys, GOOD, extra=("--accelerator", "h100-sxn")
    )
    assert code == 2 and "accelerator" in err and "h100-sxm" in err
    assert stored == 0


def test_oversized_file_is_refused_unread(tmp_path, monkeypatch, capsys):
    padding = {"notes": ["x" * 1000] * 10_000}
    code, err, stored = _import(tmp_path, monkeypatch, capsys, _with(lambda d: d.update(padding)))
    assert code == 2 and "bytes" in err
    assert stored == 0


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DESKTOPAPP_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "desktopapp", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_named_pipe_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    done = _cli(tmp_path / "home", "bench", "import", str(fifo))
    assert done.returncode == 2 and "not a regular file" in done.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_link_to_dev_zero_is_refused_without_reading(tmp_path):
    link = tmp_path / "results.json"
    link.symlink_to("/dev/zero")
    done = _cli(tmp_path / "home", "bench", "import", str(link))
    assert done.returncode == 2 and "not a regular file" in done.stderr
