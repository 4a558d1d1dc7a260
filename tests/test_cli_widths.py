"""Issue 25: at 80 and 120 columns no output line is wider than the terminal and no catalog
id is shortened (ids are what ``--accelerator`` and ``--offer`` take back)."""

from __future__ import annotations

import argparse
import io

import pytest

from desktopapp import cli
from desktopapp.commands.output import Column, format_table, print_table
from desktopapp.model.catalog import accelerator_catalog, cloud_offers

WIDTHS = (80, 120)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:  # --help exits through argparse
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out + err


def too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


def every_help(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple]:
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += every_help(sub, (*prefix, name))
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_every_help_fits(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    commands = every_help(cli.build_parser())
    assert len(commands) > 8
    for command in commands:
        status, out = run(capsys, *command, "--help")
        assert status == 0, command
        assert too_wide(out, width) == [], command


@pytest.mark.parametrize("width", WIDTHS)
def test_catalog_accelerators_fits_with_whole_ids(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    status, out = run(capsys, "catalog", "accelerators")
    assert status == 0
    assert too_wide(out, width) == []
    words = set(out.split())
    for acc in accelerator_catalog().accelerators:
        assert acc.id in words, acc.id


@pytest.mark.parametrize("width", WIDTHS)
def test_catalog_cloud_fits_with_whole_ids_markers_and_providers(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    status, out = run(capsys, "catalog", "cloud")
    assert status == 0
    assert too_wide(out, width) == []
    lines = out.splitlines()
    for offer in cloud_offers():
        line = next((x for x in lines if x.split()[:1] == [offer.id]), None)
        assert line is not None, offer.id
        assert offer.provider in line  # the provider is shown on the id's line
        assert (" * " in f"{line} " or line.endswith(" *")) == (not offer.rentable), line


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("argv", [("detect",), ("monitor", "--once")])
def test_machine_commands_fit(width, argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    status, out = run(capsys, *argv)
    assert status == 0
    assert too_wide(out, width) == []


def test_a_table_wraps_text_and_keeps_ids_whole():
    rows = [["an-id-that-is-long", "word " * 30, "$1.00"]]
    lines = format_table(rows, ["ID", "NOTES", "PRICE"], 60)
    assert all(len(line) <= 60 for line in lines)
    assert lines[2].startswith("an-id-that-is-long")
    assert " ".join(lines).count("word") == 30  # wrapped, nothing cut
    assert "…" not in "".join(lines)


def test_a_table_leaves_out_droppable_columns_and_says_so():
    rows = [["id-1", "x " * 10, "a long remark " * 6, "$2.00"]]
    headers = [Column("ID", whole=True), Column("NAME", drop=1), Column("REMARK"), "PRICE"]
    assert "NAME" in format_table(rows, headers, 60)[0]  # fits once REMARK wraps
    lines = format_table(rows, headers, 50)
    assert all(len(line) <= 50 for line in lines)
    assert "NAME" not in lines[0] and "REMARK" in lines[0]
    assert any("Not shown at 50 columns: NAME" in line for line in lines)


def test_a_table_that_cannot_fit_becomes_one_block_per_row():
    rows = [["x" * 50 + "-id", "a" * 15, "b" * 15, "c" * 15]]
    lines = format_table(rows, [Column("ID", whole=True), "A", "B", "C"], 60)
    assert lines[0] == "x" * 50 + "-id"
    assert all(len(line) <= 60 for line in lines)
    assert "A " + "a" * 15 in lines[1]


def test_into_a_pipe_nothing_is_wrapped(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    print_table([["id", "word " * 40]], ["ID", "NOTES"], stream=out)
    assert len(out.getvalue().splitlines()) == 3


ESTIMATES = [
    ("estimate", "train", "--preset", "llm-7b"),
    ("estimate", "train", "--preset", "foundation-175b"),
    ("estimate", "train", "--preset", "bert-base"),
    ("estimate", "memory", "--preset", "llm-7b"),
    ("estimate", "memory", "--preset", "llm-7b", "--mode", "inference"),
    # does not fit: the verdict and the suggestions wrap (a 92-character one was printed whole)
    ("estimate", "memory", "--params", "7B", "--micro-batch", "2", "--gpus", "8",
     "--accelerator", "h100-sxm"),
    ("estimate", "memory", "--preset", "foundation-175b", "--gpus", "1024", "--tp", "2",
     "--pp", "16", "--zero-stage", "1", "--micro-batches", "64", "--accelerator", "h100-sxm"),
    ("estimate", "inference", "--preset", "llm-7b"),
    ("estimate", "inference", "--preset", "bert-base"),
    ("estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", "5000"),
    ("plan", "train", "--preset", "llm-7b"),
    ("report", "--preset", "llm-7b"),
]  # fmt: skip


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("argv", ESTIMATES, ids=lambda a: "-".join(a[:2] + a[3:4]))
def test_estimates_plans_and_reports_fit(width, argv, capsys, monkeypatch):
    # the printers wrap notes, headlines, chains and formulas (a 132-character chain line or
    # a 125-character serving note was printed whole)
    monkeypatch.setenv("COLUMNS", str(width))
    status, out = run(capsys, *argv)
    assert status == 0, out[-500:]
    assert too_wide(out, width) == []


ERRORS = [
    ("estimate", "tco"),  # --server-price is required without --accelerator
    ("estimate", "serve"),  # argparse's own "invalid choice" line
    ("estimate", "train", "--params", "7B", "--tokens", "1T", "--gpus", "8", "--accelerator",
     "no-such-accelerator-id-anywhere"),
]  # fmt: skip


@pytest.mark.parametrize("argv", ERRORS, ids=lambda a: "-".join(a[:3]))
def test_error_lines_fold_to_the_terminal(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, _ = run(capsys, *argv)
    monkeypatch.setenv("COLUMNS", "60")
    status_narrow, text = run(capsys, *argv)
    assert status == status_narrow == 2
    lines = text.splitlines()
    assert len(lines) >= 2, text  # each message is longer than 60 columns
    assert too_wide(text, 60) == []
    assert lines[0].startswith("desktopapp") and "error:" in lines[0]
    assert all(line.startswith("  ") for line in lines[1:])  # continuation, indented


@pytest.mark.parametrize("argv", ERRORS, ids=lambda a: "-".join(a[:3]))
def test_into_a_pipe_an_error_stays_one_line(argv, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    status, text = run(capsys, *argv)
    assert status == 2
    assert len(text.splitlines()) == 1, text


def test_folding_keeps_every_word_and_passes_progress_and_partial_lines(monkeypatch):
    from desktopapp.commands.output import FoldingStream, fold_line

    line = "    warning: " + " ".join(f"word{i}" for i in range(30))
    folded = fold_line(line, 40).splitlines()
    assert all(len(part) <= 40 for part in folded)
    assert folded[0].startswith("    warning:") and folded[1].startswith("      word")
    assert " ".join(part.strip() for part in folded) == line.strip()
    assert fold_line("x" * 90, 40) == "x" * 90  # one long word (a path) stays whole

    monkeypatch.setenv("COLUMNS", "40")
    under = io.StringIO()
    stream = FoldingStream(under)
    stream.write("\rstep 3 of 9 " + "." * 60)  # a progress line redraws itself: untouched
    stream.write("partial ")
    assert under.getvalue().endswith("." * 60)  # the partial line waits for its end ...
    stream.flush()
    assert under.getvalue().endswith("partial ")  # ... or for a flush
    stream.write(line + "\n")
    assert under.getvalue().endswith(fold_line(line, 40) + "\n")


@pytest.mark.parametrize("width", WIDTHS)
def test_each_subcommand_summary_starts_on_its_names_line(width, capsys, monkeypatch):
    """argparse measured subcommand names without their indent: the longest one
    ("calibrate") fell past the help column and its summary wrapped onto a line of its own."""
    monkeypatch.setenv("COLUMNS", str(width))
    _, out = run(capsys, "--help")
    lines = out.splitlines()
    for name in cli.SUBCOMMANDS:
        line = next(li for li in lines if li.split()[:1] == [name])
        assert len(line.split()) > 1, f"{name!r} stands alone: {line!r}"
