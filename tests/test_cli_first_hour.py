"""A new user's first hour: help that tells the defaults, one-line errors, output that fits.

No Qt is started here: the display check runs before Qt, and the rest is the command line.
"""

from __future__ import annotations

import io
import re
import sys
import tomllib
from pathlib import Path

import pytest

from desktopapp import cli
from desktopapp.commands.output import fit_widths, print_table
from desktopapp.model import units
from desktopapp.model.presets import preset_ids

REPO = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:  # --help exits through argparse
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_top_level_help_lists_every_gui_option(capsys: pytest.CaptureFixture[str]) -> None:
    from desktopapp.app import build_parser as gui_parser

    status, out, _ = run(capsys, "--help")
    assert status == 0
    options = {
        opt
        for action in gui_parser()._actions
        for opt in action.option_strings
        if opt.startswith("--") and opt not in ("--help", "--version")
    }
    assert {"--tab", "--screenshot", "--scenario", "--compare", "--theme"} <= options
    for option in options:
        assert option in out, f"{option} missing from desktopapp --help"
    assert "desktopapp-gui" in out


@pytest.mark.parametrize(
    ("argv", "option", "words"),
    [
        (("estimate", "train"), "--utilization", "default"),
        (("estimate", "train"), "--price", "default"),
        (("estimate", "train"), "--accelerator", "required"),
        (("estimate", "train"), "--peak-tflops", "required"),
        (("estimate", "inference"), "--price", "default"),
        (("estimate", "inference"), "--utilization", "default"),
        (("estimate", "memory"), "--layers", "no default"),
        (("bench",), "--budget-s", "default"),
        (("bench",), "--max-size", "default"),
        (("monitor",), "--duration", "default"),
    ],
)
def test_help_says_defaults_and_what_is_required(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], option: str, words: str
) -> None:
    status, out, _ = run(capsys, *argv, "--help")
    assert status == 0
    entries = re.split(r"\n  (?=-)", out.split("options:", 1)[1])
    entry = next(e for e in entries if e.startswith((option + " ", option + ",")))
    text = " ".join(entry.split())
    assert words in text, f"{option}: {text!r}"


def test_preset_help_lists_the_ids(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "estimate", "train", "--help")
    flat = "".join(out.split())
    for preset in preset_ids():
        assert preset in flat


@pytest.mark.parametrize("value", ["-7B", "-1.5e9", "-3", "-.5"])
def test_negative_quantity_is_a_field_error_not_an_argparse_puzzle(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    status, out, err = run(
        capsys, "estimate", "train", "--params", value, "--tokens", "1B", "--peak-tflops", "100"
    )
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "--params" in err
    assert "expected one argument" not in err


def test_tables_fit_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    rows = [["an-id", "x" * 80, "$1.00", "a very long source text " * 4] for _ in range(3)]
    out = io.StringIO()
    print_table(rows, ["ID", "NAME", "PRICE", "SOURCE"], stream=out)
    lines = out.getvalue().splitlines()
    assert lines and all(len(line) <= 60 for line in lines)
    text = out.getvalue()
    assert "an-id" in text and "$1.00" in text  # short columns survive whole
    assert "…" not in text and text.replace("\n", "").count("x") >= 3 * 80  # wrapped, not cut


def test_tables_keep_whole_values_into_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()  # not a terminal
    print_table([["a" * 300]], stream=out)
    assert out.getvalue().strip() == "a" * 300


def test_fit_widths_never_squeezes_below_readable() -> None:
    assert fit_widths([10, 10], None) == [10, 10]
    assert fit_widths([50, 8], 40) == [30, 8]
    assert min(fit_widths([9, 9, 9, 9], 5)) >= 6


def test_catalog_listing_fits_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    status, out, _ = run(capsys, "catalog", "cloud")
    assert status == 0
    assert max(len(line) for line in out.splitlines()) <= 100


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (58958.2, "58,958"),
        (921.24, "921"),
        (4.852, "4.85"),
        (0.01234, "0.0123"),
        (0.0, "0"),
        (-1234.5, "-1,234"),
        (None, units.DASH),
        (float("nan"), units.DASH),
    ],
)
def test_format_number_has_no_exponent(value: float | None, text: str) -> None:
    assert units.format_number(value) == text


def test_training_text_says_each_unit_once(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "estimate", "train", "--params", "7B", "--tokens", "2T", "--peak-tflops", "989",
        "--utilization", "0.4", "--gpus", "64", "--price", "1.56",
    )  # fmt: skip
    assert status == 0
    lines = {line.split("  ")[0]: line for line in out.splitlines() if "  " in line}
    time_line = next(v for k, v in lines.items() if k.startswith("training time"))
    assert time_line.count("days") == 1
    gpu_hours = next(v for k, v in lines.items() if k.startswith("GPU-hours"))
    assert "e+" not in gpu_hours and "," in gpu_hours


def test_no_display_is_one_line_before_qt() -> None:
    from desktopapp.app import display_problem

    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for X11")
    problem = display_problem({})
    assert problem is not None and "no display" in problem
    assert "--screenshot" in problem and "QT_QPA_PLATFORM=offscreen" in problem
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}) is None


def test_gui_without_display_exits_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for X11")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    status, _out, err = run(capsys, "--tab", "cost")
    assert status == 1
    assert err.count("\n") == 1 and "no display found" in err


def test_torch_is_an_extra_not_a_hard_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[\s<>=!~\[;(]", d, maxsplit=1)[0].lower() for d in project["dependencies"]]
    assert "torch" not in names
    assert any(d.startswith("torch") for d in project["optional-dependencies"]["bench"])


def test_setup_installs_the_x11_libraries_the_readme_lists() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = (REPO / "scripts" / "setup.sh").read_text(encoding="utf-8")
    listed = re.search(r"sudo apt-get install (libegl1[^`]*)`", readme)
    assert listed is not None
    for package in listed.group(1).split():
        assert package in setup, package
