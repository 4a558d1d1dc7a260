"""``desktopapp report``: the scenario report without the window (issue 21).

``desktopapp report SCENARIO.json --json`` (or ``--preset NAME``) prints the scenario's
snapshot (:func:`desktopapp.application.snapshot.snapshot_json`): the training figures under
``training`` (``gpu_hours``, ``cost_usd``, ``wall_days``, …), memory for the plan under
``memory``, serving under ``serving`` (``tokens_per_second``, …) and the rent/own/hybrid verdict
under ``verdict``, the figures the Workload and Cost tabs, Compare and the PDF show.
``--html FILE`` writes the report's text as a web page; ``--pdf FILE`` the PDF the window
exports (it needs Qt, reached through :data:`PDF_WRITER`, which ``desktopapp.cli`` sets).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktopapp.commands.options import add_command, add_json_option
from desktopapp.commands.output import print_json, print_key_values, print_paragraph
from desktopapp.model import units

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

# (path, summaries, file name) → page count; set by desktopapp.cli (the Qt part lives in ui/)
PdfWriter = Callable[[Path, Sequence[Any], str], int]
PDF_WRITER: PdfWriter | None = None


def register(subparsers: Any) -> None:
    from desktopapp.model.presets import preset_ids

    p = add_command(
        subparsers,
        "report",
        "a scenario's report: every figure of the window, as JSON, HTML or PDF",
        "The report the window exports, without the window: training (the modelled run and "
        "the chain steady state × production factor ÷ goodput = wall time), memory for its "
        "parallel plan, serving at the engine's operating point and the rent-or-buy verdict.",
        run_report,
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="a saved scenario (.json)")
    p.add_argument(
        "--scenario",
        dest="scenario_option",
        metavar="FILE",
        help="the same, as the estimate commands take it",
    )
    p.add_argument("--preset", help="report on a workload preset: " + ", ".join(preset_ids()))
    p.add_argument("--html", metavar="FILE", help="write the report as a web page (no plots)")
    p.add_argument("--pdf", metavar="FILE", help="write the PDF report (needs Qt)")
    add_json_option(p, "print the snapshot as one JSON object")


def _summary(args: argparse.Namespace) -> tuple[Any, str]:
    from desktopapp.application.compare import summarize
    from desktopapp.application.snapshot import scenario_from_preset
    from desktopapp.model.scenario import load_scenario

    if args.scenario is not None:
        path = Path(args.scenario)
        scenario = load_scenario(path).scenario
        return summarize(scenario, file_name=path.name), path.name
    scenario = scenario_from_preset(args.preset)
    return summarize(scenario), ""


def _unwritable(name: str | None) -> str | None:
    """Why a report file cannot be written there (``None``: it can be tried)."""
    if name is None:
        return None
    target = Path(name)
    folder = target.parent
    try:
        if target.is_dir():
            return f"{name} is a folder; give a file name in it"
        if folder.exists() and not folder.is_dir():
            return f"{folder} is a file, not a folder"
        if not folder.is_dir():
            return f"the folder {folder} does not exist"
    except OSError as exc:  # a name too long for the file system, no permission to look …
        return f"cannot be written there ({exc.strerror or type(exc).__name__})"
    return None


def run_report(args: argparse.Namespace) -> int:
    from desktopapp.application.snapshot import snapshot_json

    given = args.scenario_option
    if given is not None and args.scenario is not None and given != args.scenario:
        sys.stderr.write(
            "desktopapp report: error: --scenario: give one scenario file (also given: "
            f"{args.scenario})\n"
        )
        return EXIT_USAGE
    if given is not None:
        args.scenario = given
    if (args.scenario is None) == (args.preset is None):
        sys.stderr.write(
            "desktopapp report: error: give a SCENARIO file or --preset NAME (one of them)\n"
        )
        return EXIT_USAGE
    for option in ("html", "pdf"):  # before any work: a file that cannot be written
        problem = _unwritable(getattr(args, option))
        if problem is not None:
            sys.stderr.write(f"desktopapp report: error: --{option}: {problem}\n")
            return EXIT_USAGE
    summary, file_name = _summary(args)
    snap = summary.snapshot
    written: list[tuple[str, str]] = []
    if args.html is not None:
        from desktopapp.application.report_html import standalone_html
        from desktopapp.model.atomic import atomic_write_bytes

        target = Path(args.html)
        try:
            atomic_write_bytes(target, standalone_html([summary], file_name=file_name).encode())
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            sys.stderr.write(f"desktopapp report: error: --html: cannot write the file: {reason}\n")
            return EXIT_USAGE
        written.append(("HTML report", str(target)))
    if args.pdf is not None:
        if PDF_WRITER is None:
            sys.stderr.write(
                "desktopapp report: error: --pdf: the PDF writer needs Qt (PySide6), which "
                "cannot be loaded here; use --html or --json\n"
            )
            return EXIT_FAILURE
        target = Path(args.pdf)
        try:
            pages = PDF_WRITER(target, [summary], file_name)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            sys.stderr.write(f"desktopapp report: error: --pdf: cannot write the file: {reason}\n")
            return EXIT_USAGE
        except ImportError:
            sys.stderr.write(
                "desktopapp report: error: --pdf: the PDF writer needs Qt (PySide6), which "
                "cannot be loaded here; use --html or --json\n"
            )
            return EXIT_FAILURE
        written.append(("PDF report", f"{target} ({pages} pages)"))
    if args.json:
        doc = snapshot_json(snap)
        doc["preset"] = args.preset
        doc["scenario"] = file_name or None
        print_json(doc)
        return EXIT_OK
    _print_text(summary)
    if written:
        print()
        print_key_values(written)
    return EXIT_OK


# rows whose figure needs its condition beside it (how busy, which price, across what)
WITH_DETAIL = frozenset(
    ("Owning per useful GPU-hour", "Renting per useful GPU-hour", "Break-even utilization")
)


def _print_text(summary: Any) -> None:
    print(summary.label)
    snap = summary.snapshot
    if not snap.current:
        for error in snap.errors:
            print(f"  not computable ({error.section}): {error.message}")
    rows = [
        (row.label, f"{row.text} ({row.detail})" if row.label in WITH_DETAIL else row.text)
        for row in summary.rows
        if row.section == "Results"
    ]
    print_key_values(rows)
    if snap.training is not None:
        print()
        print_paragraph(f"Training: {snap.training.chain}")
        fig = snap.training
        if fig.inputs.production_factor is not None and fig.inputs.utilization is None:
            given = f"×{units.format_plain(fig.production_factor, 3)} (given)"
            source = fig.production_factor_source
            print_paragraph(f"Production factor: {given if source == 'given' else source}")
