"""Text pieces the presenters share (no Qt): formula tooltips, assumption rows, percentages.

Strings are Qt rich text (a small HTML subset) where a view shows them in a label or tooltip.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption

MUTED_NOTE_COLOR = "#5E6A7A"


@dataclass(frozen=True)
class CardView:
    """What a result card shows: the value, a detail line and the tooltip. ``unit`` None: the
    value is one formatted string ("2.18 EFLOP") the card splits into number and unit."""

    value: str
    detail: str
    tooltip: str
    unit: str | None = None


def as_sentence(text: str) -> str:
    """``text`` with a capital first letter and a closing full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def formula_tooltip(
    title: str,
    formula: str = "",
    inputs: Iterable[tuple[str, str]] = (),
    note: str = "",
) -> str:
    """Rich-text tooltip: the result's name, its formula and the numbers that went into it."""
    parts = [f"<b>{html.escape(title)}</b>"]
    if formula:
        formula_html = html.escape(formula).replace("\n", "<br>")
        parts.append(f"<div style='font-family:monospace; margin-top:4px'>{formula_html}</div>")
    rows = [
        f"<tr><td style='padding-right:10px'>{html.escape(name)}</td>"
        f"<td><b>{html.escape(value)}</b></td></tr>"
        for name, value in inputs
    ]
    if rows:
        parts.append(f"<table style='margin-top:6px'>{''.join(rows)}</table>")
    if note:
        parts.append(
            f"<div style='margin-top:6px; color:{MUTED_NOTE_COLOR}'>{html.escape(note)}</div>"
        )
    return "".join(parts)


def assumption_rows(assumptions: Sequence[Assumption]) -> list[tuple[str, str]]:
    return [(a.name, a.value) for a in assumptions]


def break_even_text(value: float) -> str:
    """``0.38`` → ``38%``; above 100%: ``never (112%)``; infinite: ``never``."""
    if math.isinf(value):
        return "never"
    if value > 1.0:
        return f"never ({units.format_percent(value, 0)})"
    return units.format_percent(value, 0)


def busy_percent(fraction: float) -> str:
    """A utilization with enough digits to tell a nearly idle fleet from an idle one."""
    digits = 0 if fraction >= 0.1 else (1 if fraction >= 0.01 else 2)
    return units.format_percent(fraction, digits)


def implausible_inputs(*inputs: object) -> list[str]:
    """One sentence per typed input beyond any real system (more than 100T parameters, more
    than 1M devices, …; the limits and their sources are
    :data:`desktopapp.model.measurement.PLAUSIBLE_LIMITS`). ``inputs`` are the model's input
    dataclasses (training, memory, inference, owning; None is skipped); a field they share is
    checked once. The figures are still computed: these are warnings, not errors."""
    from desktopapp.model.measurement import PLAUSIBLE_LIMITS, plausibility_warnings

    values: dict[str, float | int | None] = {}
    for item in inputs:
        if item is None:
            continue
        for name in PLAUSIBLE_LIMITS:
            value = getattr(item, name, None)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values.setdefault(name, value)
    if "gpus" in values and "devices" in values:  # the same limit under two names
        del values["devices"]
    return plausibility_warnings(values)
