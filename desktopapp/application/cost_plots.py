"""What the Cost tab's two plots mark, without Qt: the axis tops, the labelled crossings and
paybacks (labels alternate above and below so close prices stay legible), whether the fleet's
own utilization gets a marker, and the legend's entries. ``ui/cost/plots.py`` draws them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktopapp.model import units

# A fleet marker this close to the chosen utilization would sit on the owning marker.
FLEET_MARK_MIN_GAP = 0.005
# The utilization caption moves to the left of its line from this utilization on.
CAPTION_LEFT_FROM = 0.75

CurveOption = tuple[str, str, float, float]  # short label, colour, price per useful h, break-even u


@dataclass(frozen=True)
class PlotMark:
    """A dot with a caption: at (``x``, ``y``) in the plot's units, in ``color``."""

    x: float
    y: float
    label: str  # the option's short label
    color: str
    text: str  # the caption drawn next to the dot
    above: bool  # caption above the dot (else below)
    narrow_text: str = ""  # the same caption on more, shorter lines (where ``text`` is cut)


def curve_top(prices: Sequence[float], owning_floor: float, current_cost: float) -> float:
    """The top of the cost-per-hour axis: room above the dearest price, twice owning's floor
    and the owning cost at the chosen utilization."""
    current = current_cost * 1.1 if math.isfinite(current_cost) else 0.0
    top = max([*prices, owning_floor * 2.2, current])
    return top * 1.18 if top > 0 else 1.0


def crossing_marks(options: Sequence[CurveOption]) -> list[PlotMark]:
    """Where owning's curve crosses each price (break-even within 100 %), cheapest first."""
    crossing = sorted(
        ((b * 100.0, p, label, color) for label, color, p, b in options if b <= 1.0),
        key=lambda t: t[1],
    )
    return [
        PlotMark(x, y, label, color, f"{x:.0f}%", above=i % 2 == 0)
        for i, (x, y, label, color) in enumerate(crossing)
    ]


def shows_fleet(fleet_u: float | None, current_u: float) -> bool:
    """Whether the fleet's own utilization gets its marker (not on top of the chosen one)."""
    return fleet_u is not None and abs(fleet_u - current_u) > FLEET_MARK_MIN_GAP


def utilization_caption(current_u: float, current_cost: float) -> str:
    return f"{current_u:.0%}: {units.format_money(current_cost)}"


def caption_on_left(current_u: float) -> bool:
    """The caption goes left of the utilization line near the right edge."""
    return current_u >= CAPTION_LEFT_FROM


@dataclass(frozen=True)
class LegendEntry:
    text: str
    color: str | None  # a swatch in this colour; None: no swatch (a symbol in the text)
    bold: bool = False


def curve_legend(
    options: Sequence[CurveOption], owning_color: str, fleet_u: float | None, current_u: float
) -> list[LegendEntry]:
    """Owning, the fleet's utilization when it is marked, then every compared price."""
    entries = [LegendEntry("Owning", owning_color, bold=True)]
    if fleet_u is not None and shows_fleet(fleet_u, current_u):
        busy = units.format_percent(fleet_u, 0 if fleet_u >= 0.1 else 2)
        entries.append(LegendEntry(f"◇ your fleet: {busy} busy", None))
    entries += [LegendEntry(label, color) for label, color, _p, _b in options]
    return entries


def payback_marks(
    options: Sequence[tuple[str, str, int | None]], owning: Sequence[float]
) -> list[PlotMark]:
    """``options``: (short label, colour, payback month or None). One mark per payback on
    owning's cumulative line, earliest first; the first says it in words (below the line),
    the next ones alternate above and below. The first names the price it pays back against,
    as colour alone does not say it (a projector, a grey-scale print, colour blindness); the
    next ones are short (``m<month>``) and the table's Payback column names them."""
    marked = sorted(
        ((m, label, color) for label, color, m in options if m is not None), key=lambda t: t[0]
    )
    marks = []
    for i, (month, label, color) in enumerate(marked):
        y = float(owning[min(month, len(owning) - 1)]) if len(owning) else 0.0
        text = f"pays back in month {month}\nagainst {label}" if i == 0 else f"m{month}"
        narrow = ""
        if i == 0 and " · " in label:  # "GCP a3-highgpu-8g · On-demand": the pricing below
            offer, pricing = label.rsplit(" · ", 1)
            narrow = f"pays back in month {month}\nagainst {offer}\n({pricing})"
        marks.append(PlotMark(float(month), y, label, color, text, i % 2 == 1, narrow))
    return marks


def cumulative_top(owning: Sequence[float], options: Sequence[Sequence[float]]) -> float:
    """The top of the cumulative-cost axis (1 when everything is 0)."""
    top = max([0.0, *(float(v) for v in owning), *(float(v) for vs in options for v in vs)])
    return top * 1.08 if top > 0 else 1.0
