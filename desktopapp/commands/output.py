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


MIN_COLUMN = 6  # a squeezed column keeps at least this many characters ("ab…" is useless)
GAP = 2


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


def print_paragraph(text: str, stream: TextIO | None = None) -> None:
    """Prose wrapped to the terminal (whole lines for a pipe or file)."""
    out = stream or sys.stdout
    width = output_width(out)
    out.write((textwrap.fill(text, width) if width else text) + "\n")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)].rstrip() + "…"


def print_table(
    rows: Iterable[Sequence[Any]],
    headers: Sequence[str] | None = None,
    stream: TextIO | None = None,
) -> None:
    """Left-aligned text columns fitted to the terminal (long cells end in "…"); numbers
    should already be formatted with units."""
    out = stream or sys.stdout
    body = [[str(c) for c in row] for row in rows]
    table = ([list(headers)] if headers else []) + body
    if not table:
        return
    natural = [max(len(r[i]) for r in table if i < len(r)) for i in range(max(map(len, table)))]
    widths = fit_widths(natural, output_width(out))
    sep = " " * GAP
    for n, row in enumerate(table):
        cells = [_cut(c, widths[i]).ljust(widths[i]) for i, c in enumerate(row)]
        out.write(sep.join(cells).rstrip() + "\n")
        if headers and n == 0:
            out.write(sep.join("-" * w for w in widths) + "\n")


def print_key_values(pairs: Iterable[tuple[str, str]], stream: TextIO | None = None) -> None:
    """Two-column "label  value" listing for one result."""
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
