"""``bench cluster-command`` prints shell that is safe by construction, for any --output: it
passes ``bash -n``, and sourcing it (as a user pasting it would) runs only the generated
commands, each receiving the output path as one exact argument. Paths with control characters
and empty paths are refused in one line; a path starting with ``-`` is never an option."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktopapp.cli import run_command
from desktopapp.commands.collective import cluster_command_lines, safe_output_path
from desktopapp.model.validation import InputError

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")
STUBS = ("torchrun", "desktopapp", "srun", "scontrol", "head", "python")
RS, GS = "\x1e", "\x1d"  # record and group separators: control characters never get through


def _stub_dir(tmp: Path) -> Path:
    stubs = tmp / "bin"
    stubs.mkdir(exist_ok=True)
    for name in STUBS:
        stub = stubs / name
        # one write per call: the two sides of a pipe run at once, and two printf calls each
        # could interleave their records in the log
        stub.write_text(
            "#!/bin/sh\n"
            f"rec=$(printf '%s{RS}' \"${{0##*/}}\" \"$@\"; printf '{GS}')\n"
            'printf \'%s\' "$rec" >> "$STUB_LOG"\n'
        )
        stub.chmod(0o755)
    return stubs


def _source(script: str, tmp: Path) -> tuple[int, list[list[str]], str]:
    """Source ``script`` with only the stubs on PATH; unknown commands are logged too."""
    stubs = _stub_dir(tmp)
    log = tmp / "calls.log"
    log.write_text("")
    path = tmp / "printed.sh"
    path.write_text(script)
    checked = subprocess.run([BASH, "-n", str(path)], capture_output=True, text=True, check=False)
    if checked.returncode != 0:
        return checked.returncode, [], checked.stderr
    handler = (
        "command_not_found_handle() { "
        f"rec=$(printf '%s{RS}' UNKNOWN \"$@\"; printf '{GS}'); "
        'printf \'%s\' "$rec" >> "$STUB_LOG"; return 127; }; '
    )
    done = subprocess.run(
        [BASH, "--noprofile", "--norc", "-c", handler + '. "$1"', "bash", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp,
        env={"PATH": str(stubs), "STUB_LOG": str(log), "HOME": str(tmp), "LC_ALL": "C.UTF-8"},
        timeout=30,
    )
    calls = [
        record.split(RS)[:-1]
        for record in log.read_text(encoding="utf-8", errors="surrogateescape").split(GS)
        if record
    ]
    return done.returncode, calls, done.stderr


def _check(output: str, scheduler: str, tmp: Path) -> None:
    try:
        lines = cluster_command_lines(2, 8, scheduler, output, 29500, 60.0)
    except InputError as exc:
        assert exc.field == "output" and "\n" not in str(exc)
        return
    code, calls, err = _source("\n".join(lines) + "\n", tmp)
    assert code == 0, err
    names = [c[0] for c in calls]
    if scheduler == "torchrun":
        assert names == ["torchrun", "desktopapp"], calls
    else:  # the two sides of the pipe start in either order
        assert sorted(names[:2]) == ["head", "scontrol"] and names[2:] == ["srun"], calls
    path = safe_output_path(output)
    runner = calls[0] if scheduler == "torchrun" else calls[2]
    assert runner.count(f"--output={path}") == 1
    if scheduler == "torchrun":
        assert calls[1] == ["desktopapp", "bench", "import", "--", path]
    assert sorted(p.name for p in tmp.iterdir()) == ["bin", "calls.log", "printed.sh"]


HOSTILE = [
    "x.json\ntouch PWNED #",
    "x.json\rtouch PWNED",
    "$(touch PWNED).json",
    "`touch PWNED`.json",
    "x.json; touch PWNED",
    "x' ; touch PWNED ; '",
    '"; touch PWNED; "',
    "-rf",
    "--help",
    "-",
    "a b\tc",
    "*",
    "~/r.json",
    "x\u2028touch PWNED",
    "\x1b[2Jx.json",
    "",
    "   ",
    "a\\",
    "!!",
    "x.json #",
]


@pytest.mark.parametrize("scheduler", ["torchrun", "slurm"])
@pytest.mark.parametrize("output", HOSTILE)
def test_hostile_output_paths(output, scheduler, tmp_path):
    _check(output, scheduler, tmp_path)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(output=st.text(min_size=0, max_size=40), scheduler=st.sampled_from(["torchrun", "slurm"]))
def test_any_output_is_safe(output, scheduler, tmp_path_factory):
    _check(output, scheduler, tmp_path_factory.mktemp("cc"))


@pytest.mark.parametrize("output", ["x.json\ntouch PWNED #", "", "\x07bell.json"])
def test_cli_refuses_in_one_line(output, capsys):
    code = run_command(
        ["bench", "cluster-command", "--nodes", "2", "--gpus-per-node", "8", "--output", output]
    )
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "--output" in captured.err


def test_import_accepts_the_printed_double_dash(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    code = run_command(["bench", "import", "--", str(tmp_path / "-missing.json")])
    err = capsys.readouterr().err
    assert code == 2 and "-missing.json" in err and "unrecognized" not in err


def test_no_stub_leaks_into_the_environment():
    assert "STUB_LOG" not in os.environ
