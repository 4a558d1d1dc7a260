"""argparse pieces the command modules share: a subcommand with its handler, and ``--json``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace], int]
JSON_HELP = "print one JSON object"


def add_command(
    subparsers: Any,
    name: str,
    summary: str,
    description: str,
    handler: Handler | None = None,
) -> argparse.ArgumentParser:
    """A subcommand: ``summary`` is its line in the parent's ``--help``, ``description`` heads
    its own; ``handler(args)`` runs it and returns the exit status."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=summary, description=description
    )
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def add_json_option(parser: argparse.ArgumentParser, text: str = JSON_HELP) -> None:
    """``--json``: machine-readable output instead of text."""
    parser.add_argument("--json", action="store_true", help=text)
