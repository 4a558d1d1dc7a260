"""Axis tick labels in the app's one number format: SI prefixes and units, never exponents.

pyqtgraph's own axis writes ``1.5e+06`` for large ticks, ``1e-06`` for small ones and, with
its automatic SI prefix, a ``(x1e-06)`` scale into the label. :class:`SIAxis` writes
``1.5 M``/``1.5 MFLOP``, ``1 µs``, ``500 m`` instead: one prefix for all ticks of a linear axis
(picked from the largest tick, so the labels line up), each tick its own prefix on a log axis.
Fractions take milli/micro/nano only for units that use them (seconds, watts: ``1 µs``); a bare
number or an hour stays a decimal (``0.1``). The digits come from :mod:`desktopapp.model.units`
(``format_number``), so axes read like the cards, tables and CLI.

The tick logic (:func:`si_tick_strings`, :func:`si_tick_label`) is plain Python, testable
without a display; :func:`make_axis` builds the pyqtgraph item (pyqtgraph is imported lazily).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from desktopapp.model import units

# (factor, prefix), largest first; "" is 1. Beyond yotta the mantissa grows (1,000 Y) up to a
# million yotta; from there (and below the smallest fraction a unit reads) ticks read
# "1.00×10^30", as units.format_power_of_ten writes them, never "1e+30".
SI_TICK_PREFIXES: tuple[tuple[float, str], ...] = (
    (1e24, "Y"),
    (1e21, "Z"),
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
    (1.0, ""),
    (1e-3, "m"),
    (1e-6, "µ"),
    (1e-9, "n"),
    (1e-12, "p"),
    (1e-15, "f"),
    (1e-18, "a"),
)
MAX_DECIMALS = 12
# Units read naturally with milli, micro, nano… ("1.5 ms", "200 mW"). Any other unit, and a
# bare number, shows fractions as plain decimals: "0.1" hours, not "100 m" (read as minutes
# or metres), "$0.05", not "50 m$".
MONEY_UNIT = "$"  # formatted by units.format_money ($500, $1.2M), never "k$"
SUBMULTIPLE_UNITS: frozenset[str] = frozenset({"s", "W", "J", "Hz", "V", "A", "F", "m", "g"})
# Units that never take a multiple prefix: "1,500 h", not "1.5 kh"; "120 %", not "0.12 k%".
PLAIN_UNITS: frozenset[str] = frozenset({"h", "%", "min", "d"})


def si_prefix(magnitude: float, submultiples: bool = True) -> tuple[float, str]:
    """The (factor, prefix) to show ``magnitude`` (≥ 0) with 1 to 999 before the prefix
    (``submultiples=False``: never below 1, so fractions stay decimals)."""
    if not math.isfinite(magnitude) or magnitude <= 0:
        return 1.0, ""
    for factor, prefix in SI_TICK_PREFIXES:
        if factor < 1 and not submultiples:
            return 1.0, ""
        # A hair of tolerance: 999.9999999 from float noise still reads as 1 k.
        if magnitude >= factor * (1 - 1e-9):
            return factor, prefix
    return SI_TICK_PREFIXES[-1]


def allows_submultiples(unit: str) -> bool:
    """Whether ``unit`` takes milli, micro, nano… prefixes (``s``, ``W``), see
    :data:`SUBMULTIPLE_UNITS`."""
    return unit in SUBMULTIPLE_UNITS


def _join(number: str, prefix: str, unit: str) -> str:
    suffix = f"{prefix}{unit}"
    return f"{number} {suffix}" if suffix else number


def _decimals_for(step: float) -> int:
    """Decimals that tell ticks ``step`` apart (0.25 → 2, 0.5 → 1, 20 → 0)."""
    if not math.isfinite(step) or step <= 0:
        return 0
    for decimals in range(MAX_DECIMALS + 1):
        scaled = step * 10**decimals
        if round(scaled) >= 1 and abs(scaled - round(scaled)) < 1e-6 * scaled:
            return decimals
    return MAX_DECIMALS


def _plain(value: float, decimals: int) -> str:
    text = f"{value:,.{decimals}f}"
    if text.lstrip("-").strip("0.,") == "":  # -0.0 → 0
        return "0"
    return text


def si_tick_strings(values: Sequence[float], spacing: float, unit: str = "") -> list[str]:
    """Labels for the ticks of a linear axis: one SI prefix (from the largest tick), as many
    decimals as the tick ``spacing`` needs, the ``unit`` after the prefix.

    ``[0, 5e-7, 1e-6], 5e-7, "s"`` → ``["0 µs", "0.5 µs", "1.0 µs"]``; ``[0, 0.05, 0.1], 0.05``
    → ``["0.00", "0.05", "0.10"]``.
    """
    if unit == MONEY_UNIT:
        return _money_ticks(values, spacing)
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return [units.DASH for _ in values]
    largest = max(abs(v) for v in finite)
    if _beyond_prefixes(largest, unit):
        return [_power_of_ten(v, unit) for v in values]
    factor, prefix = si_prefix(largest if largest > 0 else abs(spacing), allows_submultiples(unit))
    if unit in PLAIN_UNITS and factor >= 1:
        factor, prefix = 1.0, ""
    decimals = _decimals_for(abs(spacing) / factor)
    return [
        _join(_plain(v / factor, decimals), prefix, unit) if math.isfinite(v) else units.DASH
        for v in values
    ]


def _beyond_prefixes(magnitude: float, unit: str) -> bool:
    """Past what a prefix and a readable mantissa can show: a million yotta and up (up to
    there the mantissa grows, "1,000 YFLOP"), or a fraction smaller than the smallest prefix
    (a unit without submultiples: than :data:`MAX_DECIMALS` decimals can show)."""
    if magnitude >= units.PLAIN_LIMIT * SI_TICK_PREFIXES[0][0]:
        return True
    if allows_submultiples(unit):
        return 0 < magnitude < SI_TICK_PREFIXES[-1][0]
    return 0 < magnitude < 10.0**-MAX_DECIMALS


def _power_of_ten(value: float, unit: str) -> str:
    if not math.isfinite(value):
        return units.DASH
    return _join(units.format_power_of_ten(value, 3), "", unit)


def _money_ticks(values: Sequence[float], spacing: float) -> list[str]:
    """Money ticks in one style: ``units.format_money`` below a million; from a million on,
    every tick in millions (or billions) with the decimals the spacing needs, so ``$900,000``
    never stands next to ``$1.00M``."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    largest = max(finite, default=0.0)
    if largest < 1e6 or largest >= 1e15:  # beyond 1e15: "$1.00×10^18" per tick
        return [units.format_money(v) for v in values]
    factor, suffix = (
        (1e12, "T") if largest >= 1e12 else (1e9, "B") if largest >= 1e9 else (1e6, "M")
    )
    decimals = _decimals_for(abs(spacing) / factor)
    return [
        f"{'-' if v < 0 else ''}${abs(v) / factor:,.{decimals}f}{suffix}"
        if math.isfinite(v)
        else units.DASH
        for v in values
    ]


def _plain_label(value: float, digits: int) -> str:
    """``value`` with thousands separators and up to ``digits`` significant digits below
    ``10**digits`` (1,500; 2.5; 12,345), trailing decimal zeros dropped."""
    whole = len(str(int(abs(value))))
    decimals = max(0, digits - whole)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def si_tick_label(value: float, unit: str = "", digits: int = 3) -> str:
    """One value with its own prefix, trailing zeros dropped: ``2e6`` → ``"2 M"``,
    ``1.5e-6, "s"`` → ``"1.5 µs"``, ``0.01`` → ``"0.01"`` (log axes, where every tick has its
    own magnitude)."""
    if unit == MONEY_UNIT:
        return units.format_money(value)
    if not math.isfinite(value):
        return units.DASH
    if value == 0:
        return _join("0", "", unit)
    if _beyond_prefixes(abs(value), unit):
        return _power_of_ten(value, unit)
    factor, prefix = si_prefix(abs(value), allows_submultiples(unit))
    if unit in PLAIN_UNITS and abs(value) >= 1:
        return _join(_plain_label(value, digits), "", unit)
    mantissa = units.format_number(value / factor, digits)
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return _join(mantissa, prefix, unit)


def make_axis(
    orientation: str,
    unit: str = "",
    formatter: Callable[[float], str] | None = None,
) -> Any:
    """A pyqtgraph ``AxisItem`` whose ticks are SI-prefixed with ``unit`` (or go through
    ``formatter``, e.g. ``units.format_money``, on a linear axis); no automatic SI scale in
    the label, no exponents on a log axis."""
    from PySide6.QtWidgets import QGraphicsItem

    from desktopapp.ui.common.pyqtgraph_module import pg

    module = pg()

    class SIAxis(module.AxisItem):  # type: ignore[name-defined]
        """Ticks in the app's number format (see :mod:`desktopapp.ui.common.axes`)."""

        def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            if self.logMode:
                return self.logTickStrings(values, scale, spacing)
            if formatter is not None:
                return [formatter(v * scale) for v in values]
            return si_tick_strings([v * scale for v in values], spacing * scale, self.si_unit)

        def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
            out = []
            for exponent in values:
                try:
                    real = 10.0 ** float(exponent) * scale
                except OverflowError:
                    real = math.inf
                out.append(si_tick_label(real, self.si_unit))
            return out

    axis = SIAxis(orientation)
    axis.si_unit = unit
    axis.enableAutoSIPrefix(False)
    # Drawn once into a pixmap and redrawn only when the axis changes (its range, ticks, pens,
    # fonts or size): pyqtgraph replays the axis' recorded labels and grid on every paint of
    # the plot, a few ms per axis, and a live plot repaints with every new point (issue 25
    # item 10, benchmarks/gui_responsiveness.py).
    axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    return axis


def tick_strings_of(axis: Any, low: float, high: float, size_px: int = 400) -> list[str]:
    """The tick labels ``axis`` draws for the range ``low``…``high`` (for tests and checks):
    pyqtgraph's own tick placement, then the axis' ``tickStrings``."""
    axis.setRange(low, high)
    strings: list[str] = []
    log = bool(getattr(axis, "logMode", False))
    lo, hi = (math.log10(low), math.log10(high)) if log else (low, high)
    for spacing, values in axis.tickValues(lo, hi, size_px):
        strings.extend(axis.tickStrings(list(values), 1.0, spacing))
    return strings
