"""Input checks shared by every model dataclass.

Each check raises ``ValueError("<field>: <what is allowed>, got <value>")`` so the GUI can mark
the field and the CLI can print one line naming the option.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def _as_float(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{field}: expected a number, got {value!r}")
    number = float(value)
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{field}: must be a finite number, got {value!r}")
    return number


def require_finite(field: str, value: object) -> float:
    return _as_float(field, value)


def require_positive(field: str, value: object) -> float:
    """Strictly greater than zero."""
    number = _as_float(field, value)
    if number <= 0:
        raise ValueError(f"{field}: must be greater than 0, got {value!r}")
    return number


def require_non_negative(field: str, value: object) -> float:
    number = _as_float(field, value)
    if number < 0:
        raise ValueError(f"{field}: must be 0 or more, got {value!r}")
    return number


def require_fraction(field: str, value: object, *, allow_zero: bool = False) -> float:
    """In (0, 1], or [0, 1] with ``allow_zero``."""
    number = _as_float(field, value)
    low_ok = number >= 0 if allow_zero else number > 0
    if not low_ok or number > 1:
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{field}: must be in {interval}, got {value!r}")
    return number


def require_range(field: str, value: object, low: float, high: float) -> float:
    """Inclusive range check."""
    number = _as_float(field, value)
    if not low <= number <= high:
        raise ValueError(f"{field}: must be between {low:g} and {high:g}, got {value!r}")
    return number


def require_int(field: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number (ints, or floats with no fractional part) within bounds."""
    number = _as_float(field, value)
    if number != int(number):
        raise ValueError(f"{field}: must be a whole number, got {value!r}")
    whole = int(number)
    if whole < minimum:
        raise ValueError(f"{field}: must be at least {minimum}, got {value!r}")
    if maximum is not None and whole > maximum:
        raise ValueError(f"{field}: must be at most {maximum}, got {value!r}")
    return whole


def require_choice(field: str, value: object, allowed: Iterable[str]) -> str:
    options = list(allowed)
    if value not in options:
        raise ValueError(f"{field}: must be one of {', '.join(options)}, got {value!r}")
    return str(value)
