"""The single items of issue 15 on the command line: no non-finite result passes, ``1,5`` is
refused while ``1,000`` is read, ``-0`` is 0, long values are cut, a bare ``estimate`` is one
line, an ASCII-only terminal still gets output, ``tco --months`` is bounded."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from desktopapp.cli import run_command
from desktopapp.commands import estimate
from desktopapp.commands.output import print_json


def _args(**values):
    values.setdefault("json", True)
    return argparse.Namespace(estimate_command="train", **values)


@pytest.mark.parametrize(
    "failure",
    [
        "json_inf",
        "json_nested_inf",
        "text_inf",
        "text_nan",
        "numpy_overflow",
        "python_overflow",
        "memory",
    ],
)
def test_guard_turns_non_finite_results_into_one_line(failure, capsys):
    def handler(args):
        if failure == "json_inf":
            print_json({"total_flops": math.inf})
        elif failure == "json_nested_inf":
            print_json({"plans": [{"cost": 1.0}, {"cost": -math.inf}]})
        elif failure == "text_inf":
            print("total compute   inf FLOP")
        elif failure == "text_nan":
            print("time   nan s")
        elif failure == "numpy_overflow":
            print_json({"step_seconds": np.float64(1e300) * np.float64(1e300)})
        elif failure == "python_overflow":
            print(10.0**400)
        else:
            raise MemoryError
        return 0

    as_json = failure.startswith("json") or failure == "numpy_overflow"
    args = _args(params=1e300, tokens=2e12, gpus=8, json=as_json)
    code = estimate.guarded_run(handler, args, strict_json=True)
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""  # nothing passes as a result
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("desktopapp estimate train: error: ")
    assert "--params 1e+300" in line  # names the input most likely at fault


def test_guard_lets_nan_as_unknown_and_finite_results_through(capsys):
    def handler(args):
        print_json({"total_flops": 6e23, "mfu": math.nan})
        return 0

    assert estimate.guarded_run(handler, _args(params=7e9), strict_json=True) == 0
    assert json.loads(capsys.readouterr().out) == {"total_flops": 6e23, "mfu": None}


def test_guard_allows_infinity_where_it_means_never(capsys):
    def handler(args):
        print_json({"break_even_utilization": math.inf})
        return 0

    assert estimate.guarded_run(handler, _args(), strict_json=False) == 0
    assert json.loads(capsys.readouterr().out) == {"break_even_utilization": None}


@pytest.mark.parametrize("option", ["--price", "--utilization", "--gpus", "--params"])
def test_decimal_comma_is_refused(option, capsys):
    argv = [
        "estimate",
        "train",
        "--params",
        "7B",
        "--tokens",
        "1T",
        "--peak-tflops",
        "300",
        option,
        "2,5",
    ]
    with pytest.raises(SystemExit) as info:
        run_command(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and option in err and "1.5" in err


def test_thousands_separators_in_groups_are_read(capsys):
    argv = [
        "estimate",
        "train",
        "--params",
        "7,000,000,000",
        "--tokens",
        "1,000B",
        "--peak-tflops",
        "300",
        "--price",
        "1,000",
        "--json",
    ]
    assert run_command(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["inputs"]["params"] == 7e9
    assert payload["inputs"]["price"] == 1000.0


def test_minus_zero_is_echoed_as_zero(capsys):
    code = run_command(
        ["estimate", "train", "--params", "-0", "--tokens", "1T", "--peak-tflops", "300"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--params" in err and "-0" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "train", "--params"],
        ["estimate", "train", "--preset"],
        ["estimate", "train", "--accelerator"],
        ["catalog", "cloud", "--accelerator"],
        ["bench", "--device"],
        ["estimate", "train", "--params", "7B", "--tokens", "1T", "--scenario"],
    ],
)
def test_long_values_are_cut_in_errors(argv, capsys):
    value = "Z" * 120_000
    try:
        code = run_command([*argv, value])
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    (line,) = err.strip().splitlines()
    assert len(line) <= 600 and "Z" * 1000 not in line


def test_bare_estimate_is_one_line(capsys):
    assert run_command(["estimate"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "train" in line and "memory" in line


@pytest.mark.parametrize(
    ("months", "ok"),
    [("1200", True), ("1201", False), ("7B", False), ("1e300", False), ("30M", False)],
)
def test_tco_months_is_bounded(months, ok, capsys):
    code = run_command(
        ["estimate", "tco", "--accelerator", "h100-sxm", "--months", months, "--json"]
    )
    captured = capsys.readouterr()
    if ok:
        assert code == 0 and json.loads(captured.out)
    else:
        assert code == 2 and "--months" in captured.err and len(captured.err.splitlines()) == 1


def test_ascii_only_output_still_works(tmp_path):
    env = dict(os.environ, PYTHONIOENCODING="ascii", DESKTOPAPP_HOME=str(tmp_path))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktopapp",
            "estimate",
            "train",
            "--params",
            "7B",
            "--tokens",
            "1T",
            "--peak-tflops",
            "300",
        ],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Training estimate" in proc.stdout and b"Traceback" not in proc.stderr
    proc.stdout.decode("ascii")  # really ASCII: "·", "—" became "?"


def test_estimate_text_never_shows_inf_at_the_bounds(capsys):
    argv = [
        "estimate",
        "memory",
        "--params",
        "1e18",
        "--layers",
        "1e18",
        "--hidden",
        "1e18",
        "--heads",
        "1",
        "--seq-len",
        "1e18",
        "--batch-size",
        "1e18",
    ]
    code = run_command(argv)
    captured = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in captured.err
    if code == 0:
        assert " inf" not in captured.out and " nan" not in captured.out
