"""argparse pieces the CLI (``cli.py``) and the GUI entry (``app.py``) share: exit statuses and
a parser whose errors are one line. Both import from here, so neither imports the other at
module level (``app`` must not import ``cli``: import-linter contract in pyproject.toml)."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
MAX_MESSAGE_CHARS = 500  # longest error line: values echoed in it are cut

# A value such as "-7B" or "-1.5e9" is a (bad) quantity for the option before it, not an option:
# argparse's own rule only knows plain negative numbers and would say "expected one argument".
NEGATIVE_QUANTITY = re.compile(r"^-(\d[\d.,_]*|\.\d+)([eE][-+]?\d+)?\s*[kKmMbBgGtTpP]?$")


class FittingHelpFormatter(argparse.HelpFormatter):
    """argparse's help, with a usage line that fits the terminal: when argparse's own
    wrapping (which indents under the program name) leaves a line too wide, the usage is
    packed again under a four-space indent, never splitting an ``[--option VALUE]`` group."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        # "--long, --alias VALUE" (the value once, as Python 3.13 writes it), not
        # "--long VALUE, --alias VALUE", which runs past 80 columns with two long names.
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        default = self._get_default_metavar_for_optional(action)
        return f"{', '.join(action.option_strings)} {self._format_args(action, default)}"

    def add_argument(self, action: argparse.Action) -> None:
        # argparse measures a subcommand's name without the indent it is printed at, so the
        # longest name ("calibrate") fell past the help column and its line wrapped alone
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction) and action.help is not argparse.SUPPRESS:
            for sub in action._get_subactions():
                width = len(self._format_action_invocation(sub))
                width += self._current_indent + self._indent_increment
                self._action_max_length = max(self._action_max_length, width)

    def _format_usage(self, usage: Any, actions: Any, groups: Any, prefix: Any) -> str:
        text = super()._format_usage(usage, actions, groups, prefix)
        lines = text.rstrip("\n").splitlines()
        if all(len(line) <= self._width for line in lines):
            return text
        tokens = re.findall(r"\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]|\S+", " ".join(lines))
        packed: list[str] = []
        current = ""
        for token in tokens:
            if current and len(current) + 1 + len(token) > self._width:
                packed.append(current)
                current = "    " + token
            else:
                current = f"{current} {token}" if current else token
        packed.append(current)
        return "\n".join(packed) + "\n\n"


class ParagraphHelpFormatter(FittingHelpFormatter):
    """Description and epilog: a paragraph of plain lines is wrapped to the terminal, one
    whose lines are indented (an option list) is kept as written (written to fit 80)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.strip("\n").split("\n\n")
        out = []
        for paragraph in paragraphs:
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines[1:]):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(out)


# Parsed arguments' map of option names that differ from ``--<dest>`` (see flag()).
OPTION_NAMES = "_option_names"


def flag(dest: str, args: argparse.Namespace) -> str:
    """The option that stores ``dest``, as its command lists it first: ``--micro-batch`` for
    ``batch_size`` in ``estimate memory``, else ``--<dest>``."""
    names = getattr(args, OPTION_NAMES, None) or {}
    return str(names.get(dest) or "--" + dest.replace("_", "-"))


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse prints usage plus the error; we print only one line naming the problem."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", FittingHelpFormatter)
        # No prefix matching: `--micro-batch` must not quietly become `--micro-batches` (a
        # different quantity) where a command has only the longer option.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_QUANTITY

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """As argparse's; an option whose first name is not ``--<dest>`` (``--micro-batch``
        stored as ``batch_size``) is recorded, so a message names it as the command lists it."""
        action = super().add_argument(*args, **kwargs)
        longs = [name for name in action.option_strings if name.startswith("--")]
        if longs and longs[0] != "--" + action.dest.replace("_", "-"):
            names = dict(self.get_default(OPTION_NAMES) or {})
            names[action.dest] = longs[0]
            self.set_defaults(**{OPTION_NAMES: names})
        return action

    def error(self, message: str) -> NoReturn:
        first = (message.splitlines() or [""])[0]
        if len(first) > MAX_MESSAGE_CHARS:  # an echoed 100 kB value is cut
            first = first[: MAX_MESSAGE_CHARS - 1] + "…"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {first}\n")
