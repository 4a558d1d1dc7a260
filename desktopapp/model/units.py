"""Units and number formatting, in one place for the GUI, the CLI and reports.

FLOPs use SI prefixes (1 PFLOP = 1e15 FLOP), bytes use IEC prefixes (1 GiB = 2**30 B),
durations go from seconds to years, money is US dollars.

Never scientific notation ("1.5e+06", "x1e-06"): beyond the largest prefix (1,000 Y and up,
beyond any real system) and for vanishing fractions a number reads "1.98×10^50"
(:func:`format_power_of_ten`), never as 27 digits.
"""

from __future__ import annotations

import math
import re

# --- constants -------------------------------------------------------------------------------
KIB = 1024
MIB = 1024**2
GIB = 1024**3
TIB = 1024**4

TERA = 1e12
PETA = 1e15

SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0
HOURS_PER_DAY = 24.0
# Average Gregorian month/year, so "per month" figures agree with "per year" ones / 12.
HOURS_PER_YEAR = 365.25 * 24.0
HOURS_PER_MONTH = HOURS_PER_YEAR / 12.0
SECONDS_PER_YEAR = HOURS_PER_YEAR * SECONDS_PER_HOUR

DASH = "—"  # shown instead of a number that cannot be computed (never "nan")

_SI_PREFIXES = [
    (1e24, "Y"),
    (1e21, "Z"),
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
]

_IEC_PREFIXES = [
    (TIB * 1024**4, "YiB"),
    (TIB * 1024**3, "ZiB"),
    (TIB * 1024**2, "EiB"),
    (TIB * 1024, "PiB"),
    (TIB, "TiB"),
    (GIB, "GiB"),
    (MIB, "MiB"),
    (KIB, "KiB"),
]


def _finite(value: float | None) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


# Beyond these a mantissa switches to "×10^N": more digits than this are noise, not a figure.
PLAIN_LIMIT = 1e6  # a mantissa after its prefix never reaches a million ("1,000 Y" is the top)
SMALLEST_PLAIN = 1e-4  # below it a fraction would need more zeros than digits


def format_power_of_ten(value: float | None, digits: int = 3) -> str:
    """``1.98e50`` → ``"1.98×10^50"``, ``-3e-9`` → ``"-3.00×10^-9"`` (for numbers no prefix
    covers; never Python's ``1.98e+50``)."""
    if not _finite(value):
        return DASH
    assert value is not None
    if value == 0:
        return "0"
    # Python's own rounding picks mantissa and exponent together (9.9996e5 → 1.00e+06), and
    # works for subnormals where 10.0**exponent underflows to zero.
    mantissa_text, exponent_text = f"{abs(value):.{max(0, digits - 1)}e}".split("e")
    mantissa = float(mantissa_text)
    exponent = int(exponent_text)
    sign = "-" if value < 0 else ""
    return f"{sign}{mantissa:.{max(0, digits - 1)}f}×10^{exponent}"


def _sig(value: float, digits: int) -> str:
    """Format with ``digits`` significant figures, without scientific notation (thousands
    grouped from 10,000); outside 1e-4 … 1e6 as ``"1.23×10^N"`` (a number that large or small
    has no plain reading)."""
    if value == 0:
        return "0"
    if not SMALLEST_PLAIN <= abs(value) < PLAIN_LIMIT:
        return format_power_of_ten(value, digits)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, digits - 1 - magnitude)
    if decimals == 0 and abs(value) >= 10_000:  # "63,065 years", as the headline says it
        return f"{value:,.0f}"
    text = f"{value:.{decimals}f}"
    return text


def format_si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """``2.178e18, "FLOP"`` → ``"2.18 EFLOP"``. Non-finite values give the dash."""
    if not _finite(value):
        return DASH
    assert value is not None
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude >= 1000 * _SI_PREFIXES[0][0]:  # beyond 999 Y: no prefix left
        return f"{format_power_of_ten(value, digits)} {unit}".rstrip()
    for factor, prefix in _SI_PREFIXES:
        if magnitude >= factor:
            return f"{sign}{_sig(magnitude / factor, digits)} {prefix}{unit}".rstrip()
    return f"{sign}{_sig(magnitude, digits)} {unit}".rstrip()


def format_flops(flops: float | None, digits: int = 3) -> str:
    """Total floating-point operations, e.g. ``"2.18 EFLOP"``."""
    return format_si(flops, "FLOP", digits)


def format_flop_rate(flop_per_second: float | None, digits: int = 3) -> str:
    """Throughput in FLOP/s, e.g. ``"312 TFLOP/s"``."""
    return format_si(flop_per_second, "FLOP/s", digits)


def format_bytes(num_bytes: float | None, digits: int = 3) -> str:
    """Bytes with IEC prefixes: ``"13.0 GiB"``."""
    if not _finite(num_bytes):
        return DASH
    assert num_bytes is not None
    sign = "-" if num_bytes < 0 else ""
    magnitude = abs(num_bytes)
    if magnitude >= 1024 * _IEC_PREFIXES[0][0]:  # beyond 1,023 YiB: no prefix left
        return f"{format_power_of_ten(num_bytes, digits)} B"
    for factor, suffix in _IEC_PREFIXES:
        if magnitude >= factor:
            return f"{sign}{_sig(magnitude / factor, digits)} {suffix}"
    return f"{sign}{magnitude:.0f} B"


def format_duration(seconds: float | None) -> str:
    """Seconds to the most readable unit: ``"36.4 min"``, ``"3.2 days"``, ``"1.4 years"``."""
    if not _finite(seconds):
        return DASH
    assert seconds is not None
    s = abs(seconds)
    sign = "-" if seconds < 0 else ""
    if s < 1e-3:
        return f"{sign}{_sig(s * 1e6, 3)} µs"
    if s < 1:
        return f"{sign}{_sig(s * 1e3, 3)} ms"
    if s < 60:
        return f"{sign}{_sig(s, 3)} s"
    if s < 3600:
        return f"{sign}{_sig(s / 60, 3)} min"
    if s < 2 * SECONDS_PER_DAY:
        return f"{sign}{_sig(s / 3600, 3)} h"
    if s < 2 * SECONDS_PER_YEAR / 12 * 3:  # below ~6 months, days read best
        return f"{sign}{_sig(s / SECONDS_PER_DAY, 3)} days"
    return f"{sign}{_sig(s / SECONDS_PER_YEAR, 3)} years"


def format_hours(hours: float | None) -> str:
    """A duration given in hours."""
    if not _finite(hours):
        return DASH
    assert hours is not None
    return format_duration(hours * SECONDS_PER_HOUR)


def format_money(usd: float | None, digits: int = 3) -> str:
    """US dollars: ``$9.70``, ``$1,234``, ``$2.35M``, ``$0.0042``, ``<$0.0001``."""
    if not _finite(usd):
        return DASH
    assert usd is not None
    sign = "-" if usd < 0 else ""
    v = abs(usd)
    if v >= 1e15:  # beyond any budget: "$1.23×10^18", not "$1230000000B"
        return f"{sign}${format_power_of_ten(v, digits)}"
    if v >= 1e12:
        return f"{sign}${_sig(v / 1e12, digits)}T"
    if v >= 1e9:
        return f"{sign}${_sig(v / 1e9, digits)}B"
    if v >= 1e6:
        return f"{sign}${_sig(v / 1e6, digits)}M"
    if v >= 1000:
        return f"{sign}${v:,.0f}"
    if v >= 1:
        return f"{sign}${v:,.2f}"
    if v == 0:
        return "$0.00"
    if v < SMALLEST_PLAIN:  # "<$0.0001", not "$5.5×10^-5": nobody budgets below that
        return f"{sign}<${SMALLEST_PLAIN:.4f}"
    return f"{sign}${_sig(v, 2)}"


def format_percent(fraction: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.4`` → ``"40.0%"``."""
    if not _finite(fraction):
        return DASH
    assert fraction is not None
    if abs(fraction) * 100 >= PLAIN_LIMIT:
        return f"{format_power_of_ten(fraction * 100, 3)}%"
    return f"{fraction * 100:,.{digits}f}%"


def format_number(value: float | None, digits: int = 3) -> str:
    """A plain number people read without exponents: ``58,960``, ``921``, ``4.85``, ``0.0123``.

    At least ``digits`` significant digits, thousands grouped, never scientific notation in the
    range a planner meets (below 1e-4 or at 1e15 and above it falls back to SI prefixes).
    """
    if not _finite(value):
        return DASH
    assert value is not None
    magnitude = abs(value)
    if magnitude >= 1e15 or (0 < magnitude < 1e-4):
        return format_si(value, "", digits)
    if magnitude >= 10 ** (digits - 1) or magnitude == 0:
        return f"{value:,.0f}"
    decimals = digits - 1 - math.floor(math.log10(magnitude))
    return f"{value:,.{decimals}f}"


def format_count(value: float | None, digits: int = 3) -> str:
    """A plain count with SI prefix and no unit: ``7e9`` → ``"7.00 G"``; params read as ``7B``."""
    return format_si(value, "", digits)


def format_big_count(value: float | None) -> str:
    """A count as people say it: ``7e9`` → ``"7B"``, ``1.5e12`` → ``"1.5T"``, ``110e6`` →
    ``"110M"``; from 1,000T up ``"1.00×10^18"`` (never ``"1e+03T"``); below 1,000 a plain
    number (``"0.5"``, ``"42"``)."""
    if not _finite(value):
        return DASH
    assert value is not None
    if abs(value) >= 1e15:
        return format_power_of_ten(value)
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{format_plain(value / scale)}{suffix}"
    return format_plain(value)


_SCALE_WORDS = {
    "": 1.0,
    "k": 1e3,
    "K": 1e3,
    "m": 1e6,  # "110m params" is common shorthand for million
    "M": 1e6,
    "b": 1e9,
    "B": 1e9,
    "g": 1e9,
    "G": 1e9,
    "t": 1e12,
    "T": 1e12,
    "p": 1e15,
    "P": 1e15,
}

# A number: digits with optional "_" groups (1_000), or "," thousands groups of exactly three
# digits (1,000,000: "1,5" is refused, it is a decimal comma in many languages), or ".5".
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+)"
_QUANTITY_RE = re.compile(rf"^\s*([-+]?{_NUMBER}(?:[eE][-+]?\d+)?)\s*([kKmMbBgGtTpP]?)\s*$")
_SHOWN_CHARS = 40  # a value echoed in an error is cut to this many characters


def shown_value(text: object, limit: int = _SHOWN_CHARS) -> str:
    """``repr`` of a value for an error message, cut to ``limit`` characters ("…" marks it)."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


# Plausibility bound on every typed number (command-line options and the window's fields alike):
# far above any real input (the largest training runs have ~1e12-1e13 parameters and
# ~1e13-1e14 tokens, Epoch AI "Notable AI models", 2024), and low enough that a product of 17
# inputs stays below float64's 1.8e308, so no estimate overflows to infinity.
MAX_INPUT_VALUE = 1e18

# What a quantity field accepts, for messages (a price field says its own: "2.49, $1.99").
QUANTITY_EXAMPLES = "110M, 7B, 1.5e9, 3.3T"
PRICE_EXAMPLES = "2.49, $1.99, 300k"
NUMBER_EXAMPLES = "8, 0.5, 2k, 1.5e9"  # any other number (a rate, a count, a length)
FRACTION_EXAMPLES = "0.4, 40%"


def parse_quantity(
    text: str | float | int,
    field: str = "value",
    maximum: float | None = None,
    examples: str = QUANTITY_EXAMPLES,
) -> float:
    """Parse ``"110M"``, ``"7B"``, ``"1.5e9"``, ``"3.3 T"`` or a number into a float.

    Suffixes: k=1e3, M=1e6, B/G=1e9, T=1e12, P=1e15 (case-insensitive). Thousands separators
    only in groups of three (``1,000``; ``1,5`` is refused rather than read as 15). ``-0`` is 0.
    Raises ``ValueError`` naming ``field`` for anything else, including NaN, infinities and,
    when ``maximum`` is given, magnitudes above it. Long values are cut in the message.
    """
    if isinstance(text, bool):
        raise ValueError(f"{field}: expected a number, got {text!r}")
    if isinstance(text, int | float):
        try:
            value = float(text)
        except OverflowError:
            raise ValueError(f"{field}: must be a finite number, got {shown_value(text)}") from None
    else:
        match = _QUANTITY_RE.match(str(text))
        if not match:
            if "," in str(text) and re.fullmatch(r"\s*[-+]?[\d.,]+\s*[a-zA-Z]?\s*", str(text)):
                raise ValueError(
                    f"{field}: {shown_value(text)} is not a number: a comma only separates "
                    "thousands (1,000); write decimals with a dot (1.5)"
                )
            raise ValueError(f"{field}: {shown_value(text)} is not a number (examples: {examples})")
        number, suffix = match.groups()
        number = number.replace("_", "").replace(",", "")
        try:
            value = float(number) * _SCALE_WORDS[suffix]
        except ValueError as exc:
            raise ValueError(f"{field}: {shown_value(text)} is not a number") from exc
    if not math.isfinite(value):
        raise ValueError(f"{field}: must be a finite number, got {shown_value(text)}")
    if maximum is not None and abs(value) > maximum:
        raise ValueError(f"{field}: {shown_value(text)} is too large (at most {maximum:g})")
    return value + 0.0  # -0.0 becomes 0.0


def parse_money(
    text: str | float | int, field: str = "value", maximum: float | None = None
) -> float:
    """A US-dollar amount as people type it: :func:`parse_quantity` with a leading ``$``
    allowed (``$1.99``, ``$300k``); errors give price examples."""
    if isinstance(text, str):
        text = text.strip().removeprefix("$").strip()
    return parse_quantity(text, field, maximum, examples=PRICE_EXAMPLES)


def parse_fraction(
    text: str | float | int, field: str = "value", maximum: float | None = None
) -> float:
    """A share as people type it: ``0.4`` or ``40%`` (→ 0.4). A bare number is taken as given
    (``40`` stays 40: the range check of the field says how to write it)."""
    if isinstance(text, str) and text.strip().endswith("%"):
        number = text.strip().removesuffix("%")
        if _QUANTITY_RE.match(number) and not number.strip()[-1:].isalpha():
            return parse_quantity(number, field, maximum, examples=FRACTION_EXAMPLES) / 100.0
        raise ValueError(
            f"{field}: {shown_value(text)} is not a percentage (examples: {FRACTION_EXAMPLES})"
        )
    return parse_quantity(text, field, maximum, examples=FRACTION_EXAMPLES)


def plural(count: float, noun: str, plural_form: str | None = None) -> str:
    """A count with its noun: "1 sequence", "8 sequences", "1,024 devices"."""
    whole = int(count) if float(count).is_integer() else count
    word = noun if whole == 1 else (plural_form or f"{noun}s")
    return f"{whole:,} {word}"


def format_plain(value: float | None, digits: int = 3) -> str:
    """A typed figure as people write it: ``4``, ``1.5``, ``0.1``, ``12,346`` (trailing zeros
    dropped, thousands grouped); never ``1e+06``: from 1e15 up, and below 1e-4,
    ``"1.00×10^18"``. For echoing inputs (life, PUE, epochs) where ``"4.00"`` would read odd."""
    if not _finite(value):
        return DASH
    assert value is not None
    magnitude = abs(value)
    if magnitude >= 1e15 or 0 < magnitude < SMALLEST_PLAIN:
        return format_power_of_ten(value, digits)
    text = format_number(value, digits)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
