"""One number format everywhere (issue 16, "Formatting"): SI prefixes, then "×10^N" beyond the
largest prefix; never Python's scientific notation or a 27-digit mantissa."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.application.compare import big_count
from desktopapp.model import units
from desktopapp.ui.common.axes import si_tick_label, si_tick_strings

SCIENTIFIC = re.compile(r"\d[eE][-+]?\d")  # "1.5e+06", "1e-06"
LONG_DIGITS = re.compile(r"\d{8,}")  # "198000000000000023521656832" (groups of 3 are fine)

FORMATTERS = [
    units.format_flops,
    units.format_flop_rate,
    units.format_bytes,
    units.format_duration,
    units.format_hours,
    units.format_money,
    units.format_number,
    units.format_count,
    units.format_plain,
    big_count,
    lambda v: units.format_percent(v / 100),
    lambda v: si_tick_label(v, "FLOP"),
    lambda v: si_tick_label(v, ""),
    lambda v: si_tick_label(v, "s"),
    lambda v: si_tick_label(v, "$"),
]


def _readable(text: str) -> bool:
    return not SCIENTIFIC.search(text) and not LONG_DIGITS.search(text)


def test_the_absurd_input_of_the_issue_reads_as_a_power_of_ten() -> None:
    assert units.format_flops(1.98e50) == "1.98×10^50 FLOP"
    assert units.format_flops(1.98e26) == "198 YFLOP"  # the largest prefix still serves
    assert units.format_flops(999e24) == "999 YFLOP"
    assert units.format_flops(1e27) == "1.00×10^27 FLOP"
    assert units.format_money(2.5e12) == "$2.50T"
    assert units.format_money(3e18) == "$3.00×10^18"
    assert units.format_bytes(2.0**100) == "1.27×10^30 B"
    assert units.format_bytes(2.0**70) == "1.00 ZiB"
    assert big_count(2e18) == "2.00×10^18"
    assert big_count(7e9) == "7B" and big_count(1.5e12) == "1.5T" and big_count(0.5) == "0.5"


def test_power_of_ten_rounds_its_mantissa_into_range() -> None:
    assert units.format_power_of_ten(9.9996e5) == "1.00×10^6"
    assert units.format_power_of_ten(-3e-9) == "-3.00×10^-9"
    assert units.format_power_of_ten(0) == "0"
    assert units.format_power_of_ten(float("nan")) == units.DASH


def test_format_plain_echoes_typed_figures() -> None:
    assert [units.format_plain(v) for v in (4, 1.5, 0.1, 12345.6, 1.58, 0)] == [
        "4",
        "1.5",
        "0.1",
        "12,346",
        "1.58",
        "0",
    ]
    assert units.format_plain(1e18) == "1.00×10^18"
    assert units.format_plain(3e-9) == "3.00×10^-9"


@pytest.mark.parametrize("formatter", FORMATTERS)
@pytest.mark.parametrize("value", [0.0, 3e-30, 1e-7, 0.5, 42.0, 1.5e6, 8.4e22, 1.98e50, -7e40])
def test_no_formatter_writes_scientific_notation_or_long_digit_runs(formatter, value) -> None:
    text = formatter(value)
    assert _readable(text), text


@given(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_any_finite_value_reads_without_exponent_notation(value: float) -> None:
    for formatter in (units.format_flops, units.format_money, units.format_number, big_count):
        assert _readable(formatter(value)), (formatter, value)


@pytest.mark.parametrize(
    ("values", "spacing", "unit"),
    [
        ([0, 5e-7, 1e-6], 5e-7, ""),  # pyqtgraph's own axis: "x1e-06"
        ([0, 5e5, 1e6, 1.5e6], 5e5, ""),  # "1.5e+06"
        ([0, 4e22, 8.4e22], 4e22, "FLOP"),  # "8.4e+07 PFLOP"
        ([0, 5e49, 1e50], 5e49, "FLOP"),  # beyond yotta
        ([0, 5e-20, 1e-19], 5e-20, "s"),  # below atto
        ([0, 5e29, 1e30], 5e29, "FLOP"),  # a million yotta
        ([0, 5e17, 1e18], 5e17, "$"),
        ([0, 5e12, 1e13], 5e12, "$"),
    ],
)
def test_linear_axis_ticks_never_use_exponents(values, spacing, unit) -> None:
    ticks = si_tick_strings(values, spacing, unit)
    assert all(_readable(t) for t in ticks), ticks
    assert len(set(ticks)) == len(ticks), ticks  # ticks stay apart


def test_axis_ticks_beyond_the_prefixes_share_one_style() -> None:
    assert si_tick_strings([0, 5e49, 1e50], 5e49, "FLOP") == [
        "0 FLOP",
        "5.00×10^49 FLOP",
        "1.00×10^50 FLOP",
    ]
    assert si_tick_strings([0, 5e12, 1e13], 5e12, "$") == ["$0T", "$5T", "$10T"]
    assert si_tick_label(1e40, "FLOP") == "1.00×10^40 FLOP"
