"""Units and parsing: one place for every number the app shows."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model import units


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("110M", 110e6),
        ("7B", 7e9),
        ("7b", 7e9),
        ("1.5e9", 1.5e9),
        ("3.3T", 3.3e12),
        ("3.3 T", 3.3e12),
        (" 42 ", 42.0),
        ("1,000,000", 1e6),
        ("2k", 2000.0),
        ("1_000", 1000.0),
        (".5", 0.5),
        (12, 12.0),
        (2.5, 2.5),
    ],
)
def test_parse_quantity_accepts_common_spellings(text, expected):
    assert units.parse_quantity(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text", ["", "abc", "7 billion", "nan", "inf", "1e400", "--3", "7BB", True]
)
def test_parse_quantity_rejects_with_field_name(text):
    with pytest.raises(ValueError, match=r"^params: "):
        units.parse_quantity(text, field="params")


@given(st.floats(min_value=1e-3, max_value=1e30, allow_nan=False))
def test_parse_round_trips_plain_repr(value):
    assert units.parse_quantity(repr(value)) == value


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.178e18, "2.18 EFLOP"), (312e12, "312 TFLOP"), (999.0, "999 FLOP"), (0.0, "0 FLOP")],
)
def test_format_flops(value, expected):
    assert units.format_flops(value) == expected


def test_format_bytes_uses_iec_prefixes():
    assert units.format_bytes(80 * units.GIB) == "80.0 GiB"
    assert units.format_bytes(1536) == "1.50 KiB"
    assert units.format_bytes(12) == "12 B"


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0.0005, "500 µs"),
        (0.25, "250 ms"),
        (42, "42.0 s"),
        (0.606 * 3600, "36.4 min"),
        (5 * 3600, "5.00 h"),
        (10 * 86400, "10.0 days"),
        (3 * units.SECONDS_PER_YEAR, "3.00 years"),
    ],
)
def test_format_duration_picks_readable_unit(seconds, expected):
    assert units.format_duration(seconds) == expected


@pytest.mark.parametrize(
    ("usd", "expected"),
    [
        (9.7, "$9.70"),
        (1234.4, "$1,234"),
        (2.35e6, "$2.35M"),
        (0.0042, "$0.0042"),
        (0.0001, "$0.00010"),
        (5.5e-5, "<$0.0001"),  # not "$5.5×10^-5"
        (-5.5e-5, "-<$0.0001"),
        (0, "$0.00"),
    ],
)
def test_format_money(usd, expected):
    assert units.format_money(usd) == expected


@pytest.mark.parametrize("bad", [math.nan, math.inf, None])
def test_non_finite_values_render_as_dash_never_nan(bad):
    for fmt in (
        units.format_flops,
        units.format_bytes,
        units.format_duration,
        units.format_money,
        units.format_percent,
    ):
        assert fmt(bad) == units.DASH


def test_large_percentages_group_their_thousands():
    """A model 1,955× too large for the device printed "headroom … (-195479.0%)"."""
    assert units.format_percent(-1954.79) == "-195,479.0%"
    assert units.format_percent(12.744) == "1,274.4%"
    assert units.format_percent(0.4) == "40.0%"


def test_month_is_a_twelfth_of_a_year():
    assert pytest.approx(units.HOURS_PER_YEAR) == units.HOURS_PER_MONTH * 12
    assert pytest.approx(730.5) == units.HOURS_PER_MONTH


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.4", 0.4), ("40%", 0.4), (" 12.5 % ", 0.125), ("100%", 1.0), (0.3, 0.3), ("40", 40.0)],
)
def test_a_share_is_read_as_a_fraction_or_a_percentage(text, expected):
    assert units.parse_fraction(text, "utilization") == pytest.approx(expected)


@pytest.mark.parametrize("text", ["abc", "4%5", "%", "7B%", "40%%"])
def test_a_share_that_is_no_number_gives_share_examples(text):
    with pytest.raises(ValueError, match=r"^utilization: .*examples: (0\.4, 40%|40%, 0\.4)"):
        units.parse_fraction(text, "utilization")


@pytest.mark.parametrize(("text", "expected"), [("2.49", 2.49), ("$1.99", 1.99), ("$ 300k", 3e5)])
def test_an_amount_may_carry_a_dollar_sign(text, expected):
    assert units.parse_money(text, "budget") == pytest.approx(expected)


def test_an_amount_that_is_no_number_gives_price_examples():
    with pytest.raises(ValueError, match=r"^budget: 'lots' is not a number \(examples: 2\.49"):
        units.parse_money("lots", "budget")
