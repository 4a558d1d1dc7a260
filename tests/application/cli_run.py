"""Running the CLI inside a test and reading its JSON, shared by the tests in
``tests/application``."""

from __future__ import annotations

import json

import pytest

from desktopapp.cli import run_command


def cli_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    """The JSON the command ``argv`` prints (it must exit 0; its stderr shows when not)."""
    capsys.readouterr()
    status = run_command(argv)
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)
