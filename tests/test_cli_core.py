"""The CLI dispatcher: GUI vs subcommand routing, one-line errors, --version."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from desktopapp import __version__, cli


@pytest.mark.parametrize(
    ("argv", "gui"),
    [
        ([], True),
        (["--tab", "cost"], True),
        (["--screenshot", "x.png"], True),
        (["plan.json"], True),
        (["estimate", "train"], False),
        (["catalog", "accelerators"], False),
        (["--version"], False),
        (["--help"], False),
    ],
)
def test_routes_gui_and_subcommands(argv, gui):
    assert cli.is_gui_invocation(argv) is gui


def test_value_error_names_the_option():
    args = argparse.Namespace(gpus=0, zero_stage=1)
    assert cli.format_value_error(ValueError("gpus: must be at least 1, got 0"), args) == (
        "--gpus: must be at least 1, got 0"
    )
    assert cli.format_value_error(ValueError("zero_stage: bad"), args) == "--zero-stage: bad"
    # A field with no matching option keeps its name.
    assert cli.format_value_error(ValueError("memory: too big"), args) == "memory: too big"


def test_version_subprocess():
    done = subprocess.run(
        [sys.executable, "-m", "desktopapp", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"desktopapp {__version__}"


def test_unknown_subcommand_option_is_one_line_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "desktopapp", "catalog", "--no-such-option"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
