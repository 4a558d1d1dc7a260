"""Issue 16: "Use in estimates" reviews a measurement before it is applied (suspect, out of
range, disturbed) and the history names disturbed runs with the reason; no widgets."""

from __future__ import annotations

from fakes.hardware import CPU_PEAK, result

from desktopapp.application.hardware import (
    MeasuredDevice,
    disturbance,
    history_row,
    measured_accelerator,
    review_use,
)

DEVICE = MeasuredDevice("cpu", "Test CPU", {"fp32": CPU_PEAK})
DISTURBED = {
    "conditions": {
        "disturbed": True,
        "summary": "disturbed run: other processes used 40% of the 8 CPUs",
    }
}


def test_a_run_far_below_the_datasheet_is_suspect_and_needs_confirmation() -> None:
    review = review_use([result("fp32", 64, 0.02 * CPU_PEAK)], DEVICE, {})
    assert review.needs_confirmation and review.suspect == ("fp32",)
    assert "far below" in review.warning


def test_a_plausible_clean_run_goes_straight_through() -> None:
    review = review_use([result("fp32", 64, 0.4 * CPU_PEAK)], DEVICE, {})
    assert not review.needs_confirmation and review.warning == ""


def test_above_the_peak_is_out_of_range_and_the_measured_value_is_kept() -> None:
    results = [result("fp32", 64, 1.5 * CPU_PEAK)]
    review = review_use(results, DEVICE, {})
    assert review.needs_confirmation and "peak estimate is too low" in review.warning
    custom = measured_accelerator(results, DEVICE)
    assert dict(custom.peak_tflops) == {"fp32": 1.5 * CPU_PEAK}  # as measured


def test_a_disturbed_run_needs_confirmation_and_the_history_says_why() -> None:
    results = [result("fp32", 64, 0.4 * CPU_PEAK)]
    review = review_use(results, DEVICE, DISTURBED)
    assert review.needs_confirmation and "40% of the 8 CPUs" in review.warning
    assert disturbance({}) == "" and disturbance({"conditions": {"disturbed": False}}) == ""
    row = history_row(1, "2026-11-24T10:00:00+00:00", "cpu", DISTURBED, {}, results, False)
    assert row.status == "complete · disturbed"
    assert "40% of the 8 CPUs" in row.disturbed
    clean = history_row(2, "2026-11-24T10:00:00+00:00", "cpu", {}, {}, results, False)
    assert clean.status == "complete" and clean.disturbed == ""
