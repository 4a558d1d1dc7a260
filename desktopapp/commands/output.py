"""Output helpers shared by the subcommands: JSON (NaN → null) and aligned text tables."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

from desktopapp.model.jsonable import jsonable


class NonFiniteResultError(ValueError):
    """A result holds an infinity (an overflow): it must not pass as a result.
    ``where`` is the JSON path of the first one (``total_flops``, ``rows[3].cost``)."""

    def __init__(self, where: str) -> None:
        super().__init__(f"result: {where} is not a finite number")
        self.where = where


_REJECT_INFINITY: ContextVar[bool] = ContextVar("reject_infinity", default=False)


@contextmanager
def reject_infinity(active: bool = True) -> Iterator[None]:
    """While active, :func:`print_json` raises :class:`NonFiniteResultError` for a payload
    holding ±inf instead of printing it as null (NaN stays null: "not computable")."""
    token = _REJECT_INFINITY.set(active)
    try:
        yield
    finally:
        _REJECT_INFINITY.reset(token)


def find_infinity(value: Any, where: str = "") -> str | None:
    """JSON path of the first ±inf in ``value`` (dataclasses, mappings, sequences, numpy)."""
    if isinstance(value, float):
        return (where or "value") if math.isinf(value) else None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return find_infinity(value.to_dict(), where)
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        for key, item in value.items():
            found = find_infinity(item, f"{where}.{key}" if where else str(key))
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = find_infinity(item, f"{where}[{i}]")
            if found:
                return found
        return None
    if callable(getattr(value, "tolist", None)):  # numpy arrays and scalars
        return find_infinity(value.tolist(), where)
    return None


def print_json(payload: Any, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    if _REJECT_INFINITY.get():
        where = find_infinity(payload)
        if where is not None:
            raise NonFiniteResultError(where)
    json.dump(jsonable(payload), out, indent=2, allow_nan=False)
    out.write("\n")


def output_width(stream: TextIO | None = None) -> int | None:
    """Columns to fit: ``COLUMNS`` when set, else the terminal's width when writing to one;
    None (no limit) for a pipe or file, so scripts get whole values."""
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    out = stream or sys.stdout
    try:
        if out.isatty():
            return shutil.get_terminal_size((100, 24)).columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def fold_line(line: str, width: int) -> str:
    """One line folded at spaces to ``width`` columns, the continuation indented two spaces
    under the first line's own indent; a line that fits, or one word longer than the width (a
    path, a URL, which must stay whole to be copied), comes back as it is."""
    if len(line) <= width:
        return line
    indent = line[: len(line) - len(line.lstrip(" "))]
    parts = textwrap.wrap(
        line,
        width,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return "\n".join(parts) if parts else line


class FoldingStream:
    """A text stream (the CLI's standard error) whose lines wider than the terminal are
    folded at spaces, as the tables on standard output are sized: error and warning lines fit
    at 80 columns. Where the width is unknown (a pipe or file and no ``COLUMNS``) text passes
    unchanged, so a log keeps one line per message; so does text that redraws a line ("\\r",
    progress). A partial line waits for its end, or goes out as it is on :meth:`flush`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        width = output_width(self._stream)
        if width is None or "\r" in text:
            self._write_pending()
            return self._stream.write(text)
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        for line in lines:
            self._stream.write(fold_line(line, width) + "\n")
        return len(text)

    def _write_pending(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._stream.write(pending)

    def flush(self) -> None:
        self._write_pending()
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno …
        return getattr(self._stream, name)


@contextmanager
def folded_stderr() -> Iterator[None]:
    """``sys.stderr`` folds its lines to the terminal width inside the block (see
    :class:`FoldingStream`); whatever is left of a line is written at the end."""
    original = sys.stderr
    folding = FoldingStream(original)
    sys.stderr = folding
    try:
        yield
    finally:
        folding.flush()
        if sys.stderr is folding:
            sys.stderr = original


MIN_COLUMN = 6  # a squeezed column keeps at least this many characters ("ab…" is useless)
GAP = 2
SHORT_COLUMN = 14  # a column this narrow (figures with units, dates) is never wrapped
MIN_WRAP = 12  # a wrapped column keeps at least this many characters per line
WRAP_CAP = 30  # ... and at most this many when half its natural width is more
LONG_WORD = 20  # a longer word (a URL, a path) in a wrapped column may break across lines


def fit_widths(widths: Sequence[int], limit: int | None) -> list[int]:
    """Shrink the widest columns, one character at a time, until the row fits ``limit``."""
    fitted = list(widths)
    if limit is None:
        return fitted
    while sum(fitted) + GAP * (len(fitted) - 1) > limit:
        widest = max(range(len(fitted)), key=lambda i: fitted[i])
        if fitted[widest] <= MIN_COLUMN:
            break  # cannot fit without making columns unreadable: let the terminal wrap
        fitted[widest] -= 1
    return fitted


def wrap_text(
    text: str,
    width: int | None,
    indent: str = "",
    first: str | None = None,
    break_words: bool = False,
) -> list[str]:
    """``text`` as lines of at most ``width`` characters (one line when ``width`` is None),
    the first starting with ``first`` (default ``indent``), the rest with ``indent``.
    Words longer than a line (ids, paths) get a line of their own unless ``break_words``."""
    lead = indent if first is None else first
    if width is None:
        return [lead + " ".join(text.split())]
    return textwrap.wrap(
        text,
        max(width, len(lead) + 1, len(indent) + 1),
        initial_indent=lead,
        subsequent_indent=indent,
        break_long_words=break_words,
        break_on_hyphens=False,
    ) or [lead.rstrip()]


def print_paragraph(text: str, stream: TextIO | None = None, indent: str = "") -> None:
    """Prose wrapped to the terminal (whole lines for a pipe or file); ``indent`` starts
    every line (notes under a heading)."""
    out = stream or sys.stdout
    for line in wrap_text(text, output_width(out), indent):
        out.write(line + "\n")


def print_bullet(text: str, bullet: str = "  - ", stream: TextIO | None = None) -> None:
    """One list item (a problem, a note) wrapped under its own first word."""
    out = stream or sys.stdout
    for line in wrap_text(text, output_width(out), " " * len(bullet), first=bullet):
        out.write(line + "\n")


def print_labelled(label: str, text: str, stream: TextIO | None = None, gap: int = 2) -> None:
    """``label  text`` with ``text`` wrapped under itself (a hanging indent): notes,
    recommendations and other long values beside a short label. A label wider than a third
    of the terminal stands on its own line with the text indented below it."""
    out = stream or sys.stdout
    width = output_width(out)
    lead = label + " " * gap
    if width is not None and len(lead) > width // 3:
        out.write(label + "\n")
        lines = wrap_text(text, width, "    ")
    else:
        lines = wrap_text(text, width, " " * len(lead), first=lead)
    for line in lines:
        out.write(line + "\n")


@dataclass(frozen=True)
class Column:
    """How one table column behaves when the terminal is narrow.

    ``whole``: never wrapped, cut or dropped (ids a command takes back as input); columns of
    at most :data:`SHORT_COLUMN` characters (figures with units, dates) are never wrapped
    either. ``drop``: the column may be left out (lowest first) when the table cannot fit
    otherwise; the listing then says which columns it left out. ``label``: the name used in
    the one-block-per-row layout (default: the header); ``head``: shown on a block's first
    line beside the whole columns (a name). ``right``: right-aligned."""

    header: str
    whole: bool = False
    drop: int | None = None
    label: str | None = None
    right: bool = False
    head: bool = False


def _as_columns(headers: Sequence[str | Column] | None, count: int) -> list[Column]:
    given = list(headers or [])
    columns = [h if isinstance(h, Column) else Column(str(h)) for h in given]
    columns += [Column("") for _ in range(count - len(columns))]
    if not any(c.whole for c in columns) and columns:
        columns[0] = dataclasses.replace(columns[0], whole=True)  # the row's name: kept whole
    return columns


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def _min_width(column: Column, cells: list[str], with_header: bool) -> int:
    texts = cells + ([column.header] if with_header else [])
    natural = max((len(t) for t in texts), default=0)
    if column.whole or natural <= SHORT_COLUMN:
        return natural
    longest = max((_longest_word(t) for t in texts), default=0)
    # a word up to LONG_WORD characters keeps a line of its own; longer ones (URLs) are folded;
    # a short text column keeps half its width (two lines a cell) and a long one 30 characters
    word = longest if longest <= LONG_WORD else MIN_WRAP
    return min(natural, max(MIN_WRAP, word, min(WRAP_CAP, -(-natural // 2))))


def plan_table(
    rows: Sequence[Sequence[str]],
    columns: Sequence[Column],
    width: int | None,
    with_header: bool = True,
) -> tuple[list[int], bool]:
    """Which columns to show (indices) and whether they fit as a table at ``width``
    (False: print one block per row instead). Columns are left out lowest ``drop`` first."""
    shown = list(range(len(columns)))
    if width is None:
        return shown, True

    def minimum(indices: list[int]) -> int:
        widths = [
            _min_width(columns[i], [r[i] for r in rows if i < len(r)], with_header) for i in indices
        ]
        return sum(widths) + GAP * (len(widths) - 1) + 1  # + the last column's pad

    droppable = sorted(
        (i for i, c in enumerate(columns) if c.drop is not None and not c.whole),
        key=lambda i: (columns[i].drop, -i),
    )
    while minimum(shown) > width and droppable:
        shown.remove(droppable.pop(0))
    if minimum(shown) <= width:
        return shown, True
    return list(range(len(columns))), False


def allot_widths(
    rows: Sequence[Sequence[str]],
    columns: Sequence[Column],
    width: int | None,
    with_header: bool,
) -> list[int]:
    """Each column's width: its natural width, the widest wrapping column narrowed first (one
    character at a time, never under its minimum) until the row fits ``width``."""
    cells = [[r[i] for r in rows if i < len(r)] for i in range(len(columns))]
    natural = [
        max((len(t) for t in [*c, col.header] if with_header or t is not col.header), default=0)
        for c, col in zip(cells, columns, strict=True)
    ]
    if width is None:
        return natural
    minimum = [_min_width(col, c, with_header) for col, c in zip(columns, cells, strict=True)]
    sizes = list(natural)
    room = width - GAP * (len(sizes) - 1) - 1  # the last column keeps its one-space pad
    while sum(sizes) > room:
        slack = [i for i in range(len(sizes)) if sizes[i] > minimum[i]]
        if not slack:
            break
        widest = max(slack, key=lambda i: sizes[i])
        sizes[widest] -= 1
    return sizes


def _render_rich(
    rows: Sequence[Sequence[str]], columns: Sequence[Column], width: int | None, with_header: bool
) -> list[str]:
    import io

    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rule = box.Box("    \n    \n -  \n    \n    \n    \n    \n    \n", ascii=True)
    table = Table(
        box=rule if with_header else None,
        show_header=with_header,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0) if with_header else (0, GAP, 0, 0),
        expand=False,
    )
    widths = allot_widths(rows, columns, width, with_header)
    for column, size in zip(columns, widths, strict=True):
        table.add_column(
            Text(column.header),
            justify="right" if column.right else "left",
            no_wrap=False,
            overflow="fold",
            width=size,
        )
    for row in rows:
        table.add_row(*(Text(row[i]) if i < len(row) else Text("") for i in range(len(columns))))
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width or 1_000_000,
        color_system=None,
        highlight=False,
        emoji=False,
        markup=False,
        legacy_windows=False,
    )
    console.print(table, crop=False)
    return [line.rstrip() for line in buffer.getvalue().splitlines()]


def pack_items(items: Sequence[str], width: int | None, indent: str = "    ") -> list[str]:
    """``items`` joined by " · " into lines of at most ``width`` characters, never breaking
    an item across lines unless it is longer than a line on its own (then it wraps)."""
    lines: list[str] = []
    current = ""
    for item in items:
        candidate = f"{current} · {item}" if current else indent + item
        if width is None or len(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        if len(indent + item) <= width:
            current = indent + item
        else:
            wrapped = wrap_text(item, width, indent, break_words=True)
            lines.extend(wrapped[:-1])
            current = wrapped[-1]
    if current:
        lines.append(current)
    return lines


def _render_records(
    rows: Sequence[Sequence[str]], columns: Sequence[Column], width: int | None
) -> list[str]:
    """One block per row: the whole columns on its first line, the rest as "label value"
    items packed beneath it."""
    lines: list[str] = []
    for row in rows:
        cells = [row[i] if i < len(row) else "" for i in range(len(columns))]
        pairs = list(zip(columns, cells, strict=True))
        head = "  ".join(c for col, c in pairs if (col.whole or col.head) and c)
        items = [
            f"{col.label if col.label is not None else col.header} {c}".strip()
            for col, c in pairs
            if not (col.whole or col.head) and c
        ]
        lines.extend(wrap_text(head, width, "    ", first=""))
        lines.extend(pack_items(items, width))
    return lines


def format_table(
    rows: Iterable[Sequence[Any]],
    headers: Sequence[str | Column] | None = None,
    width: int | None = None,
) -> list[str]:
    """The lines of a table fitted to ``width`` characters (None: no limit, nothing
    wrapped). Long text columns wrap at word boundaries; columns marked ``whole`` (and the
    first column when none is marked) are never wrapped or shortened; when even the narrowest
    wrapping does not fit, droppable columns are left out (with a line saying which), then
    each row becomes a block of "label: value" lines."""
    body = [[str(c) for c in row] for row in rows]
    if not body and not headers:
        return []
    count = max([len(r) for r in body] + [len(headers or [])])
    columns = _as_columns(headers, count)
    with_header = bool(headers)
    shown, fits = plan_table(body, columns, width, with_header)
    if not fits:
        return _render_records(body, columns, width)
    picked = [columns[i] for i in shown]
    lines = _render_rich(
        [[r[i] if i < len(r) else "" for i in shown] for r in body], picked, width, with_header
    )
    left_out = [columns[i].header for i in range(len(columns)) if i not in shown]
    if left_out:
        lines.extend(
            wrap_text(
                f"(Not shown at {width} columns: {', '.join(left_out)}; a wider terminal "
                "or --json shows them.)",
                width,
            )
        )
    return lines


def print_table(
    rows: Iterable[Sequence[Any]],
    headers: Sequence[str | Column] | None = None,
    stream: TextIO | None = None,
) -> None:
    """A text table fitted to the terminal (see :func:`format_table`); numbers should
    already be formatted with units. Into a pipe or file every value is whole."""
    out = stream or sys.stdout
    for line in format_table(rows, headers, output_width(out)):
        out.write(line + "\n")


def print_key_values(pairs: Iterable[tuple[str, str]], stream: TextIO | None = None) -> None:
    """Two-column "label  value" listing for one result; long values wrap under themselves."""
    print_table(pairs, stream=stream)


def warn_implausible(
    *inputs: object, quiet: bool = False, stream: TextIO | None = None
) -> list[str]:
    """A ``warning:`` line on stderr for each input beyond any real system (see
    :func:`desktopapp.application.text.implausible_inputs`); the estimate is still printed.
    ``quiet`` (``--json``): nothing is written, the JSON on stdout is the whole answer and a
    successful run leaves stderr empty. Returns the sentences (written or not)."""
    from desktopapp.application.text import implausible_inputs

    warnings = implausible_inputs(*inputs)
    if quiet:
        return warnings
    out = stream or sys.stderr
    for warning in warnings:
        out.write(f"warning: {warning}\n")
    return warnings
