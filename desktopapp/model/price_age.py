"""How old a catalog price is: the rule the Cost tab, the CLI and the advisor share.

A price dated ``2025-06`` is from some day of June 2025. It is *stale* when even the last day
of that period is more than :data:`STALE_AFTER_MONTHS` months before today, *possibly stale*
(``maybe``) when only part of the period is, *undated* when the date cannot be read.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

STALE_AFTER_MONTHS = 12

_DATE_RE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$")

FRESH = "fresh"
STALE = "stale"
MAYBE_STALE = "maybe"
UNDATED = "undated"


def date_period(text: str) -> tuple[date, date] | None:
    """First and last day a ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` date can stand for."""
    match = _DATE_RE.match(text or "")
    if not match:
        return None
    year = int(match.group(1))
    month = int(match.group(2)) if match.group(2) else None
    day = int(match.group(3)) if match.group(3) else None
    try:
        if month is None:
            return date(year, 1, 1), date(year, 12, 31)
        if day is None:
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        single = date(year, month, day)
    except ValueError:
        return None
    return single, single


def _add_months(day: date, months: int) -> date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _months_between(earlier: date, later: date) -> int:
    """Whole months from ``earlier`` to ``later`` (0 if later is not after)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    if later.day < earlier.day:
        months -= 1
    return max(0, months)


@dataclass(frozen=True)
class PriceAge:
    status: str  # fresh | stale | maybe | undated
    months: int | None  # whole months since the latest day the date can stand for
    explanation: str

    @property
    def is_stale(self) -> bool:
        return self.status == STALE


def price_age(price_date: str, today: date, limit_months: int = STALE_AFTER_MONTHS) -> PriceAge:
    """How old a catalog price is relative to ``today`` (rule in the module docstring)."""
    period = date_period(price_date)
    if period is None:
        return PriceAge(UNDATED, None, "No usable date: check the price before relying on it.")
    first, last = period
    months = _months_between(last, today)
    if _add_months(last, limit_months) < today:
        return PriceAge(
            STALE,
            months,
            f"Price of {price_date}: {months} months before {today.isoformat()}, older than "
            f"{limit_months} months. Check the provider's current price.",
        )
    if _add_months(first, limit_months) < today:
        return PriceAge(
            MAYBE_STALE,
            months,
            f"Price of {price_date}: the date gives only the year or month, so it may be more "
            f"than {limit_months} months old on {today.isoformat()}.",
        )
    return PriceAge(FRESH, months, f"Price of {price_date}, within {limit_months} months.")
