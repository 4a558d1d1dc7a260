"""CLI side of issue 16's formatting part: errors name the option or the field's label (never
the internal name), and inputs beyond any real system print a stderr "warning:" line."""

from __future__ import annotations

import argparse
import json

import pytest

from desktopapp.cli import format_value_error, run_command
from desktopapp.commands.output import warn_implausible
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.training import TrainingInputs
from desktopapp.model.validation import InputError


def test_an_error_names_the_option_when_the_command_has_one():
    args = argparse.Namespace(gpu_hours_per_month=None)
    exc = InputError("gpu_hours_per_month", "must be 0 or more")
    assert format_value_error(exc, args) == "--gpu-hours-per-month: must be 0 or more"


def test_an_error_without_an_option_speaks_the_label():
    args = argparse.Namespace(gpus=8)
    exc = InputError("gpu_hours_per_month", "must be 0 or more")
    assert format_value_error(exc, args) == "GPU-hours per month: must be 0 or more"
    assert "gpu_hours_per_month" not in format_value_error(exc, args)


def test_a_bad_scenario_file_names_its_key_and_label(tmp_path, capsys):
    path = tmp_path / "bad.json"
    document = {"format": "desktopapp-scenario", "version": 1, "name": "x"}
    document["training"] = {"params": -5, "tokens": 1e9}
    path.write_text(json.dumps(document), encoding="utf-8")
    code = run_command(["estimate", "train", "--scenario", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert "bad.json: training.params (Parameters): must be greater than 0" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            [
                "estimate",
                "train",
                "--params",
                "200T",
                "--tokens",
                "1T",
                "--peak-tflops",  # no plan fits 200T on a catalog GPU: refused (issue 21)
                "989",
            ],
            "warning: parameters",
        ),
        (["estimate", "memory", "--params", "500T"], "warning: parameters: 500T is beyond"),
        (
            [
                "estimate",
                "inference",
                "--forward-flops",
                "1e9",
                "--params",
                "200T",
                "--accelerator",
                "h100-sxm",
            ],
            "warning: parameters: 200T is beyond",
        ),
        (["estimate", "tco", "--accelerator", "h100-sxm", "--gpus", "2000000"], "warning: devices"),
    ],
)
def test_inputs_beyond_any_real_system_warn_on_stderr(argv, expected, capsys):
    assert run_command(argv) == 0
    captured = capsys.readouterr()
    warnings = [line for line in captured.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(expected), captured.err
    assert "beyond any real system" in warnings[0]
    assert captured.out  # the estimate is still printed
    assert "warning" not in captured.out


def test_realistic_inputs_and_json_output_stay_quiet(capsys):
    argv = ["estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm"]
    assert run_command(argv) == 0
    assert capsys.readouterr().err == ""
    assert run_command(["estimate", "memory", "--params", "500T", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and json.loads(captured.out)


def test_the_shared_helper_checks_each_input_once():
    import io

    stream = io.StringIO()
    training = TrainingInputs(params=2e14, tokens=1e12, peak_tflops=100.0)
    memory = MemoryInputs(params=2e14)
    written = warn_implausible(training, memory, stream=stream)
    assert len(written) == 1 and stream.getvalue() == f"warning: {written[0]}\n"
    assert warn_implausible(TrainingInputs(params=7e9, tokens=1e12, peak_tflops=100.0)) == []


def test_warnings_spell_counts_as_people_do():
    """ "parameters 500 P" read as peta-something; a count reads as "500T" or a power of ten."""
    from desktopapp.model.measurement import plausibility_warnings

    assert plausibility_warnings({"params": 5e14})[0].startswith("parameters: 500T is beyond")
    assert plausibility_warnings({"tokens": 3e18})[0].startswith("training tokens: 3.00×10^18 is")
    assert plausibility_warnings({"gpus": 2e6})[0].startswith("devices: 2M is beyond")


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "memory", "--params", "7B", "--gpus", "1", "--accelerator", "h100-sxm"],
        ["estimate", "memory", "--params", "7B", "--gpus", "8", "--zero-stage", "3"],
        ["estimate", "inference", "--params", "405B", "--accelerator", "h100-sxm"],
        ["estimate", "inference", "--params", "7B", "--accelerator", "h100-sxm"],
        ["estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", "5k"],
        ["estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", "500"],
    ],
)
def test_counts_are_written_with_their_own_number(capsys, argv):
    """ "1 device", "8 devices", "2 servers": never "device(s)" (issue 25, grammar of counts)."""
    run_command(argv)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert text.strip()
    assert "(s)" not in text, [line for line in text.splitlines() if "(s)" in line]


@pytest.mark.parametrize(
    ("count", "expected"),
    [(1, "1 device"), (8, "8 devices"), (1024, "1,024 devices"), (1.0, "1 device")],
)
def test_plural(count, expected):
    from desktopapp.model.units import plural

    assert plural(count, "device") == expected


def test_no_text_writes_a_count_as_noun_s():
    """Every string literal of the app: a count takes units.plural ("1 device", "8 devices"),
    never "device(s)"."""
    import io
    import re
    import tokenize
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "desktopapp"
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}  # 3.12+
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in kinds and re.search(r"[a-z]\(s\)", token.string):
                found.append(f"{path.relative_to(root)}:{token.start[0]}")
    assert found == []
