"""Every option that takes a value, of every command, with hostile values: the command either
answers (exit 0, finite JSON) or refuses in one line naming the problem (exit 2), never a
traceback, a hang, an ``inf``/``null`` passed off as a result, or a 100 kB echo.

The options are found by walking the real argparse tree, so a new option is swept without
editing this file. Runs in process (``desktopapp.cli.run_command``); ``monitor`` runs on a fake
sampler and clock, ``bench`` on a fake run, so the sweep takes seconds.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktopapp.cli import build_parser, run_command

# Values no numeric option may accept: not numbers, not finite, a decimal comma, too large.
MUST_REFUSE: tuple[str, ...] = (
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e300",
    "-1e300",
    "1e309",
    "1,5",
    "2,5",
    "12,34",
    "1,000,000,000,000,000,000,000",
    "9" * 400,
    "",
    " ",
    "0x10",
    "1e",
    "1.5.5",
    "7BB",
    "x" * 120_000,
    "\x00",
)
# Values an option may accept or refuse, depending on what it allows (refused in one line).
MAY_ACCEPT: tuple[str, ...] = (
    "1e-300",
    "1e18",
    "-0",
    "0",
    "-1",
    "0.5",
    "\u0663",  # Arabic-Indic digit three
    "\uff11\uff10",  # full-width "10"
    "1e3k",
    "4294967297",
    "-9223372036854775809",
)
HOSTILE_VALUES: tuple[str, ...] = (*MUST_REFUSE, *MAY_ACCEPT)

# Options that name things, not numbers: swept with the same values (they must refuse cleanly
# or accept the text), but their base command differs where noted.
BASES: dict[str, list[str]] = {
    "estimate train": ["--params", "7B", "--tokens", "100B", "--peak-tflops", "300"],
    "estimate memory": ["--params", "7B"],
    "estimate inference": ["--params", "7B", "--peak-tflops", "300", "--bandwidth-gbs", "2000"],
    "estimate tco": ["--accelerator", "h100-sxm"],
    "catalog accelerators": [],
    "catalog cloud": [],
    "bench": ["--no-save", "--suite", "matmul"],
    "monitor": ["--duration", "3", "--interval", "1", "--quiet"],
    # Port 9 (discard) on loopback refuses at once: the command reports the server unreachable.
    "cluster": ["--prometheus", "http://127.0.0.1:9", "--once", "--timeout-s", "0.5"],
    "bench cluster-command": ["--nodes", "2", "--gpus-per-node", "8"],
    "bench import": ["no-such-run.json"],
    "report": ["--preset", "llm-7b", "--json"],
    "calibrate": [str(Path(__file__).parents[1] / "fixtures" / "past_runs.csv")],
    # one accelerator, one price, four fleet sizes: the sweep stays fast
    "plan train": [
        "--params", "7B", "--tokens", "100B", "--include", "h100-sxm", "--pricing", "spot",
        "--max-gpus", "8",
    ],
    "plan serve": [
        "--params", "7B", "--requests-per-s", "2", "--include", "h100-sxm", "--pricing", "spot",
        "--max-gpus", "8",
    ],
}  # fmt: skip
# Commands whose output is text only (no --json option).
TEXT_ONLY = {"bench cluster-command"}
# --forward-flops and --samples replace --params/--tokens as the source of compute.
PER_SAMPLE_BASE = ["--forward-flops", "1e9", "--samples", "1e6", "--peak-tflops", "300"]


# estimate tco reads its numbers after parsing (the Cost tab shares the code): named here.
TEXT_OPTIONS_OF_TCO = {"--accelerator", "--profile", "--pricing"}
NUMERIC: set[tuple[str, str]] = set()


def _value_options() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.option_strings and action.nargs is None and action.dest != "help":
                if isinstance(action, argparse._StoreConstAction | argparse._VersionAction):
                    continue
                command, option = " ".join(path), action.option_strings[-1]
                found.append((command, option))
                kind = getattr(action.type, "__name__", "")
                if kind in {
                    "quantity",
                    "count",
                    "option_count",
                    "option_number",
                    "_whole_number",
                    "float",
                    "int",
                } or (command == "estimate tco" and option not in TEXT_OPTIONS_OF_TCO):
                    NUMERIC.add((command, option))

    walk(build_parser(), [])
    return found


OPTIONS = _value_options()
# report --pdf renders pages with Qt (seconds each): its path handling is --html's, swept.
CASES = [
    (cmd, opt, value)
    for cmd, opt in OPTIONS
    if (cmd, opt) != ("report", "--pdf")
    for value in HOSTILE_VALUES
]


def test_the_sweep_covers_every_command():
    commands = {cmd for cmd, _ in OPTIONS}
    assert {"estimate train", "estimate memory", "estimate inference", "bench", "monitor"} <= (
        commands
    )
    assert not commands - set(BASES), f"add a base command line for {commands - set(BASES)}"
    assert len(CASES) >= 2000
    assert len(NUMERIC) >= 60 and ("monitor", "--interval") in NUMERIC


@pytest.fixture
def fast_devices(monkeypatch, tmp_path, isolated_home):
    """monitor on a fake sampler and clock (stops after 3 samples), bench on a fake run; the
    working folder is a temporary one (a --csv value may be a file name)."""
    from desktopapp.commands import monitor
    from desktopapp.devices import sampler as sampler_module
    from desktopapp.devices.bench import runner
    from desktopapp.devices.bench.core import BenchResult
    from desktopapp.testing.sampler import FakeSampler

    clock = SimpleNamespace(now=1000.0, sleeps=0)

    def sleep(seconds: float) -> None:
        clock.sleeps += 1
        if clock.sleeps > 3:
            raise KeyboardInterrupt  # the user stops a run without --duration
        clock.now += seconds

    monkeypatch.setattr(monitor, "time", SimpleNamespace(monotonic=lambda: clock.now, sleep=sleep))
    monkeypatch.setattr(
        sampler_module, "RealSampler", lambda **_k: FakeSampler(gpu_count=1, interval_s=1.0)
    )

    def fake_run(config, token=None, on_event=None, target=None):
        result = BenchResult(
            "matmul", "cpu", "fp32", 64, 0.5, 1e-3, None, None, metric="TFLOP/s", value=0.5
        )
        return runner.BenchRun(
            config, target, (result,), (), "2026-01-01T00:00:00+00:00", 0.1, False
        )

    monkeypatch.setattr(runner, "run_and_collect", fake_run)
    monkeypatch.chdir(tmp_path)
    return clock


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = run_command(argv)
        except SystemExit as exc:  # argparse's own exit
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


_NON_FINITE_TEXT = re.compile(r"(?<![\w.])-?(inf|nan|Infinity|NaN)(?![\w])")


@pytest.mark.parametrize(("command", "option", "value"), CASES, ids=lambda v: str(v)[:24])
def test_hostile_value(command, option, value, fast_devices):
    # A hostile value comes last, so it replaces the base's value of the same option.
    base = PER_SAMPLE_BASE if option in ("--forward-flops", "--samples") else BASES[command]
    argv = [*command.split(), *base, "--json", option, value]
    if (
        command.startswith("catalog")
        or command in TEXT_ONLY
        or (command == "monitor" and option == "--csv")
    ):
        argv = [*command.split(), *base, option, value]  # text output: checked below too
    fast_devices.sleeps = 0
    code, out, err = _run(argv)
    assert "Traceback" not in err and "Traceback" not in out
    # ``cluster`` exits 1 when its (valid) server cannot be reached: a runtime failure.
    allowed = (0, 1, 2) if command == "cluster" else (0, 2)
    assert code in allowed, f"exit {code}: {err[-300:]}"
    if (command, option) in NUMERIC and value in MUST_REFUSE:
        assert code == 2, f"{option} {value[:30]!r} accepted"
    if code in (1, 2):
        lines = err.strip().splitlines()
        assert len(lines) == 1, f"{len(lines)} lines: {err[:300]}"
        assert lines[0].startswith("desktopapp") and ": error: " in lines[0]
        assert len(lines[0]) <= 600
        return
    if "--json" in argv:
        payload = json.loads(out)  # strict JSON: no NaN/Infinity
        assert payload is not None
    elif (command, option) != ("bench cluster-command", "--output"):  # a file name is echoed
        assert not _NON_FINITE_TEXT.search(out), out[:300]
