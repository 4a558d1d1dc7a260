"""argparse pieces the command modules share: a subcommand with its handler, and ``--json``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from desktopapp.cli_base import EXIT_USAGE
from desktopapp.model import units

Handler = Callable[[argparse.Namespace], int]
JSON_HELP = "print one JSON object"


def _option_value(parse: Callable[..., float], text: str) -> float:
    try:
        return parse(text, "value", maximum=units.MAX_INPUT_VALUE)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value: ")) from None


def option_number(text: str) -> float:
    """An option's number (``8``, ``0.5``, ``2k``, ``1.5e9``, ``1,000``) as an argparse type:
    NaN, inf, ``1,5`` and values above :data:`desktopapp.model.units.MAX_INPUT_VALUE` (the
    window refuses the same) are an argparse error (exit 2)."""
    from desktopapp.model.units import NUMBER_EXAMPLES, parse_quantity

    return _option_value(partial(parse_quantity, examples=NUMBER_EXAMPLES), text)


def option_size(text: str) -> float:
    """A parameter or token count (``110M``, ``7B``, ``3.3T``): :func:`option_number` whose
    errors give such examples."""
    from desktopapp.model.units import parse_quantity

    return _option_value(parse_quantity, text)


def option_fraction(text: str) -> float:
    """A share: ``0.4`` or ``40%``."""
    from desktopapp.model.units import parse_fraction

    return _option_value(parse_fraction, text)


def option_count(text: str) -> float | int:
    """Like :func:`option_number`, but a whole number comes back as ``int`` (``8``, ``1k``)."""
    value = option_number(text)
    return int(value) if value.is_integer() else value


def add_run_terms(p: argparse.ArgumentParser) -> None:
    """The modelled run's terms beyond its size and plan (``estimate train`` and ``plan
    train``; saved with a scenario's training inputs)."""
    from desktopapp.model.training_defaults import SOFTWARE_STACKS

    p.add_argument(
        "--goodput-overhead",
        type=option_fraction,
        help="extra wall-time fraction for restarts, evaluation, failures (default: the "
        "published goodput of 90%%, about 0.11, in the modelled run, none in the flat "
        "--utilization rule; 0: none)",
    )
    p.add_argument(
        "--software-stack",
        choices=SOFTWARE_STACKS,
        help="training stack: megatron (fused kernels), fsdp (eager PyTorch), typical (default)",
    )
    p.add_argument(
        "--power-cap-w",
        type=option_number,
        help="GPU power cap, W, from a quarter of the TDP up (default: the TDP)",
    )
    p.add_argument(
        "--moe-top-k", type=option_count, help="experts per token, mixture of experts (2)"
    )


def option_money(text: str) -> float:
    """US dollars: ``2.49``, ``$1.99``, ``300k``."""
    from desktopapp.model.units import parse_money

    return _option_value(parse_money, text)


def add_command(
    subparsers: Any,
    name: str,
    summary: str,
    description: str,
    handler: Handler | None = None,
    formatter_class: type[argparse.HelpFormatter] | None = None,
) -> argparse.ArgumentParser:
    """A subcommand: ``summary`` is its line in the parent's ``--help``, ``description`` heads
    its own; ``handler(args)`` runs it and returns the exit status. ``formatter_class``
    replaces the parent's help formatter (``ParagraphHelpFormatter`` keeps indented lines)."""
    extra = {} if formatter_class is None else {"formatter_class": formatter_class}
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=summary, description=description, **extra
    )
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def ask_for_subcommand(parser: argparse.ArgumentParser, message: Callable[[], str]) -> None:
    """``desktopapp COMMAND`` without its subcommand: one line, ``desktopapp COMMAND: error:
    <message()>``, exit 2 (``message`` is called then, when every subcommand is registered)."""

    def handler(_args: argparse.Namespace) -> int:
        sys.stderr.write(f"{parser.prog}: error: {message()}\n")
        return EXIT_USAGE

    parser.set_defaults(handler=handler)


def add_json_option(parser: argparse.ArgumentParser, text: str = JSON_HELP) -> None:
    """``--json``: machine-readable output instead of text."""
    parser.add_argument("--json", action="store_true", help=text)
