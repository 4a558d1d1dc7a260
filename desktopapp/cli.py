"""Command line: ``desktopapp`` with no arguments opens the GUI; subcommands are headless.

Every subcommand lives in ``desktopapp/commands/<area>.py`` with a ``register(subparsers)``
function; each handler returns an exit status. A ``ValueError`` from the model becomes one line
on stderr naming the option, with exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktopapp import APP_NAME, __version__
from desktopapp.cli_base import (  # noqa: F401  (re-exported: tests and app use them)
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    NEGATIVE_QUANTITY,
    FittingHelpFormatter,
    OneLineErrorParser,
    ParagraphHelpFormatter,
    flag,
)

# Modules under desktopapp.commands that add subcommands, imported on demand so that
# `desktopapp --version` and the GUI start stay fast.
COMMAND_MODULES: tuple[str, ...] = (
    "estimate",
    "catalog",
    "devices",
    "monitor",
    "cluster",
    "plan",
    "report",
    "calibrate",
)
SUBCOMMANDS: tuple[str, ...] = (
    "estimate",
    "catalog",
    "detect",
    "bench",
    "monitor",
    "cluster",
    "plan",
    "report",
    "calibrate",
)


GUI_HELP = """\
desktop app (no COMMAND):
  desktopapp [SCENARIO.json] [options]
                        open the window (desktopapp-gui does the same without a
                        terminal window on Windows)
  --scenario FILE       open a scenario file
  --tab NAME            tab to show first: estimate, cost, hardware, monitor
  --compare FILE        pin a scenario in the Compare dialog (up to 3 times)
  --theme MODE          system, light or dark (default: the remembered one)
  --presentation        start in presentation mode (F11 toggles, Esc leaves)
  --screenshot FILE.png render the window into a PNG without a screen and exit
  --size WxH            window size, e.g. 1400x900 (the default for screenshots)

Every COMMAND takes --json for machine-readable output; `desktopapp COMMAND
--help` lists its options with their defaults.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="desktopapp",
        description=f"{APP_NAME}: compute, cost and memory planning for ML work. "
        "Run with no arguments to open the desktop app.",
        epilog=GUI_HELP,
        formatter_class=ParagraphHelpFormatter,
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
        if name == "report":
            module.PDF_WRITER = write_pdf_report  # type: ignore[attr-defined]
    return parser


def write_pdf_report(path: Path, summaries: Sequence[Any], file_name: str) -> int:
    """``report --pdf``: the window's PDF writer, offscreen (Qt is loaded only here, so the
    commands stay Qt-free). Raises ImportError when Qt cannot be loaded."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.scenario.report import write_report

    _app = QApplication.instance() or QApplication([])
    return write_report(path, summaries, file_name=file_name).page_count


def option_name(field: str, args: argparse.Namespace) -> str:
    """Model field ``gpus`` → CLI option ``--gpus`` when the command has such an option;
    otherwise the field's label as the user knows it (``"GPU-hours per month"``, see
    ``model.validation.FIELD_LABELS``), never the internal name."""
    from desktopapp.model.validation import field_label

    dest = field.strip().replace("-", "_")
    if dest in vars(args):
        return flag(dest, args)
    return field_label(field)


def format_value_error(exc: ValueError, args: argparse.Namespace) -> str:
    """One line naming the option: ``InputError("gpus", …)`` → ``--gpus: …``."""
    from desktopapp.model.validation import error_field, error_text, is_file_error, user_message

    if is_file_error(exc):  # a scenario file's: "plan.json: training.params (Parameters): …"
        return user_message(exc)
    field = error_field(exc)
    if field:
        return f"{option_name(field, args)}: {error_text(exc)}"
    return str(exc).splitlines()[0] if str(exc) else "invalid input"


MAX_ERROR_CHARS = 500  # an error line echoes the user's value; a huge one is cut


def _cut(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tolerant_streams() -> None:
    """Output never fails on a terminal or pipe that cannot show "—", "µ", "×"
    (``PYTHONIOENCODING=ascii``, a C locale): such characters become "?"."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if encoding.startswith("utf") or reconfigure is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="replace")


def run_command(argv: Sequence[str]) -> int:
    """Runs one subcommand; its error lines fold to the terminal width (issue 25)."""
    from desktopapp.commands.output import folded_stderr

    tolerant_streams()
    with folded_stderr():
        return _run_command(argv)


def _run_command(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        status: int = handler(args)
    except UnicodeEncodeError as exc:  # a ValueError, but not the user's input
        sys.stderr.write(f"desktopapp: error: the output cannot be encoded ({exc.reason})\n")
        return EXIT_FAILURE
    except ValueError as exc:
        prog = f"desktopapp {args.command}" if getattr(args, "command", None) else "desktopapp"
        sys.stderr.write(f"{prog}: error: {_cut(format_value_error(exc, args))}\n")
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
