"""What the Cost tab's plots mark, without Qt (moved out of ui/cost/results.py, issue 12)."""

from __future__ import annotations

import math

import pytest

from desktopapp.application import cost_plots as marks
from desktopapp.model import units


def test_curve_top_leaves_room_above_every_price_and_owning() -> None:
    assert marks.curve_top([2.0, 3.0], 1.0, 2.5) == pytest.approx(3.0 * 1.18)
    assert marks.curve_top([1.0], 2.0, 1.0) == pytest.approx(4.4 * 1.18)  # 2.2 × the floor
    assert marks.curve_top([1.0], 0.1, 10.0) == pytest.approx(11.0 * 1.18)
    assert marks.curve_top([1.0], 0.1, math.inf) == pytest.approx(1.18)  # inf is not a top
    assert marks.curve_top([], 0.0, math.nan) == 1.0


def test_crossings_cheapest_first_alternating_and_only_within_100_percent() -> None:
    options = [
        ("B", "#2", 3.0, 0.6),
        ("A", "#1", 2.0, 0.8),
        ("never", "#3", 1.0, math.inf),
        ("C", "#4", 4.0, 0.4),
    ]
    found = marks.crossing_marks(options)
    assert [m.label for m in found] == ["A", "B", "C"]
    assert [m.above for m in found] == [True, False, True]
    assert (found[0].x, found[0].y, found[0].text) == (pytest.approx(80.0), 2.0, "80%")
    assert found[1].color == "#2"


def test_fleet_marker_and_caption_side() -> None:
    assert marks.shows_fleet(0.40, 0.50)
    assert not marks.shows_fleet(0.502, 0.50)  # on top of the chosen utilization
    assert not marks.shows_fleet(None, 0.50)
    assert marks.caption_on_left(0.80) and not marks.caption_on_left(0.50)
    assert marks.utilization_caption(0.5, 3.98) == f"50%: {units.format_money(3.98)}"


def test_legend_lists_owning_the_fleet_then_prices() -> None:
    options = [("GCP · On-demand", "#1", 3.0, 0.4)]
    entries = marks.curve_legend(options, "#000", 0.43, 0.50)
    assert [(e.text, e.color, e.bold) for e in entries] == [
        ("Owning", "#000", True),
        (f"◇ your fleet: {units.format_percent(0.43, 0)} busy", None, False),
        ("GCP · On-demand", "#1", False),
    ]
    tiny = marks.curve_legend(options, "#000", 0.05, 0.50)[1].text
    assert units.format_percent(0.05, 2) in tiny
    assert len(marks.curve_legend(options, "#000", 0.5, 0.5)) == 2  # no fleet entry


def test_paybacks_earliest_first_on_owning_line() -> None:
    owning = [0.0, 10.0, 20.0, 30.0]
    found = marks.payback_marks(
        [("late", "#1", 9), ("never", "#2", None), ("soon", "#3", 2)], owning
    )
    assert [m.label for m in found] == ["soon", "late"]
    assert found[0].text == "pays back in month 2\nagainst soon" and found[1].text == "m9"
    assert (found[0].x, found[0].y) == (2.0, 20.0)
    assert found[1].y == 30.0  # past the end: the last month's figure
    assert [m.above for m in found] == [False, True]
    assert marks.payback_marks([("x", "#1", 1)], [])[0].y == 0.0
    # a narrower form of the worded caption, for a plot too small for the offer's full name
    long = marks.payback_marks([("GCP a3-highgpu-8g · On-demand", "#1", 14)], owning)[0]
    assert long.narrow_text == "pays back in month 14\nagainst GCP a3-highgpu-8g\n(On-demand)"
    assert found[1].narrow_text == ""  # the short captions have none


def test_cumulative_top() -> None:
    assert marks.cumulative_top([0.0, 5.0], [[1.0, 10.0]]) == pytest.approx(10.8)
    assert marks.cumulative_top([], []) == 1.0
    assert marks.cumulative_top([0.0], [[0.0]]) == 1.0
