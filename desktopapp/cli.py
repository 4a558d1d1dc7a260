"""Command line: ``desktopapp`` with no arguments opens the GUI; subcommands are headless.

Every subcommand lives in ``desktopapp/commands/<area>.py`` with a ``register(subparsers)``
function; each handler returns an exit status. A ``ValueError`` from the model becomes one line
on stderr naming the option, with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from desktopapp import APP_NAME, __version__

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2

# Modules under desktopapp.commands that add subcommands, imported on demand so that
# `desktopapp --version` and the GUI start stay fast.
COMMAND_MODULES: tuple[str, ...] = ("estimate", "catalog", "devices", "monitor")
SUBCOMMANDS: tuple[str, ...] = ("estimate", "catalog", "detect", "bench", "monitor")


# A value such as "-7B" or "-1.5e9" is a (bad) quantity for the option before it, not an option:
# argparse's own rule only knows plain negative numbers and would say "expected one argument".
NEGATIVE_QUANTITY = re.compile(r"^-(\d[\d.,_]*|\.\d+)([eE][-+]?\d+)?\s*[kKmMbBgGtTpP]?$")


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse prints usage plus the error; we print only one line naming the problem."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_QUANTITY

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


GUI_HELP = """\
desktop app (no COMMAND):
  desktopapp [SCENARIO.json] [options]   open the window (desktopapp-gui does the same
                                         without a terminal window on Windows)
  --scenario FILE          open a scenario file
  --tab NAME               tab to show first: estimate, cost, hardware, monitor
  --compare FILE           pin a scenario in the Compare dialog (repeat for more, at most 3)
  --theme MODE             system, light or dark for this run (default: the remembered one)
  --presentation           start in presentation mode (F11 toggles, Esc leaves)
  --screenshot FILE.png    render the window into a PNG without a screen and exit
  --size WxH               window size, e.g. 1400x900 (default 1400x900 for screenshots)

Every COMMAND takes --json for machine-readable output; `desktopapp COMMAND --help` lists
its options with their defaults.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="desktopapp",
        description=f"{APP_NAME}: compute, cost and memory planning for ML work. "
        "Run with no arguments to open the desktop app.",
        epilog=GUI_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"desktopapp {__version__}")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=OneLineErrorParser
    )
    import importlib

    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"desktopapp.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"desktopapp.commands.{name}":
                raise
            continue  # an area not built yet
        module.register(subparsers)
    return parser


def option_name(field: str, args: argparse.Namespace) -> str:
    """Model field ``gpus`` → CLI option ``--gpus`` when the command has such an option."""
    dest = field.strip().replace("-", "_")
    if dest in vars(args):
        return "--" + dest.replace("_", "-")
    return field


def format_value_error(exc: ValueError, args: argparse.Namespace) -> str:
    message = str(exc).splitlines()[0] if str(exc) else "invalid input"
    field, sep, rest = message.partition(": ")
    if sep and " " not in field.strip():
        return f"{option_name(field, args)}: {rest}"
    return message


def run_command(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        status: int = handler(args)
    except ValueError as exc:
        prog = f"desktopapp {args.command}" if getattr(args, "command", None) else "desktopapp"
        sys.stderr.write(f"{prog}: error: {format_value_error(exc, args)}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # `desktopapp catalog … | head`
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return status


def is_gui_invocation(argv: Sequence[str]) -> bool:
    """No arguments, GUI options (--tab, --screenshot …) or a scenario file path."""
    if not argv:
        return True
    first = argv[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return False
    return first.startswith("-") or first.endswith(".json")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if is_gui_invocation(args):
        from desktopapp.app import main as gui_main

        return gui_main(args)
    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
