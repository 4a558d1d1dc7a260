"""``desktopapp calibrate FILE``: the production allowance fitted to your own finished runs.

Prints each run against the model's steady state, the fitted allowance, how well it predicts
each run from the others, and the ``estimate train`` option that applies it
(:mod:`desktopapp.application.own_runs`, the same view the Workload tab shows).
"""

from __future__ import annotations

import argparse
from typing import Any

from desktopapp.cli_base import ParagraphHelpFormatter
from desktopapp.commands.options import add_command, add_json_option
from desktopapp.model.perf_training import SOFTWARE_STACKS


def register(subparsers: Any) -> None:
    from desktopapp.model.own_runs import (
        EXAMPLE_CSV,
        HOURS_COLUMNS,
        OPTIONAL_COLUMNS,
        REQUIRED_COLUMNS,
    )

    p = add_command(
        subparsers,
        "calibrate",
        "fit the production allowance to your own finished training runs",
        "Fit the production allowance (a production run's wall time over the model's steady "
        "state) to runs your team has finished, instead of the default fitted to published "
        "runs of other organisations. FILE is CSV with a header row: columns "
        f"{', '.join(REQUIRED_COLUMNS)} and {' or '.join(HOURS_COLUMNS)} (what the run "
        f"took), optionally {', '.join(OPTIONAL_COLUMNS)}. Counts take suffixes (7B, 2T, "
        "160k). An example file:\n\n" + "\n".join("  " + line for line in EXAMPLE_CSV.splitlines()),
        run,
        formatter_class=ParagraphHelpFormatter,  # the example's lines as written
    )
    p.add_argument("file", metavar="FILE", help="CSV file of finished runs, one per row")
    p.add_argument(
        "--software-stack",
        choices=SOFTWARE_STACKS,
        help="stack the runs used, as in estimate train (default typical); a row may name "
        "its own in a software_stack column",
    )
    add_json_option(p)


def run(args: argparse.Namespace) -> int:
    from desktopapp.application.own_runs import HEADERS, own_runs_view
    from desktopapp.commands.output import (
        print_json,
        print_labelled,
        print_paragraph,
        print_table,
    )

    view = own_runs_view(args.file, args.software_stack)
    if args.json:
        print_json(view.to_dict())
        return 0
    print_paragraph(view.headline)
    print()
    print_table(view.rows, headers=list(HEADERS))
    print()
    for line in view.lines:
        print_paragraph(line)
    print()
    print_labelled("use it", f"desktopapp estimate train … {view.option}")
    return 0


def add_past_runs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--past-runs",
        metavar="FILE",
        help="use the production factor fitted to your own finished runs in FILE (the CSV "
        "of `desktopapp calibrate`, fitted on the same --software-stack); instead of "
        "--production-factor",
    )


def apply_past_runs(args: argparse.Namespace) -> None:
    """``--past-runs FILE``: the factor ``calibrate FILE`` prints becomes the run's production
    factor, with where it came from (the assumption and the JSON name the file and its runs)."""
    path = getattr(args, "past_runs", None)
    if path is None:
        return
    from desktopapp.model.validation import InputError

    if args.production_factor is not None:
        raise InputError(
            "past_runs", "give --past-runs or --production-factor, not both (one factor)"
        )
    from desktopapp.application.own_runs import own_runs_view

    view = own_runs_view(path, getattr(args, "software_stack", None))
    args.production_factor = view.applied
    args.production_factor_source = view.field_note
