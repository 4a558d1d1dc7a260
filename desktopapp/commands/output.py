"""Output helpers shared by the subcommands: JSON (NaN → null) and aligned text tables."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO


def jsonable(value: Any) -> Any:
    """Dataclasses, tuples, mappings and floats to plain JSON types; NaN/inf become None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return jsonable(value.to_dict())
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return jsonable(value.item())
    return value


def print_json(payload: Any, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    json.dump(jsonable(payload), out, indent=2, allow_nan=False)
    out.write("\n")


def print_table(
    rows: Iterable[Sequence[Any]],
    headers: Sequence[str] | None = None,
    stream: TextIO | None = None,
) -> None:
    """Left-aligned text columns; numbers should already be formatted with units."""
    out = stream or sys.stdout
    body = [[str(c) for c in row] for row in rows]
    table = ([list(headers)] if headers else []) + body
    if not table:
        return
    widths = [max(len(r[i]) for r in table if i < len(r)) for i in range(max(map(len, table)))]
    for n, row in enumerate(table):
        out.write("  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip() + "\n")
        if headers and n == 0:
            out.write("  ".join("-" * w for w in widths) + "\n")


def print_key_values(pairs: Iterable[tuple[str, str]], stream: TextIO | None = None) -> None:
    """Two-column "label  value" listing for one result."""
    print_table(pairs, stream=stream)
