"""Applied measurements are reviewed, never changed silently; implausible inputs are flagged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model.measurement import (
    PLAUSIBLE_LIMITS,
    SUSPECT_SHARE,
    plausibility_warnings,
    review_measurement,
)


def test_a_run_far_below_the_datasheet_is_suspect() -> None:
    review = review_measurement(0.0012, 0.3, dtype="fp32")  # 0.4% of a 300 GFLOP/s peak
    assert review.suspect and not review.ok
    assert review.share_of_peak == pytest.approx(0.004)
    text = review.message()
    assert "0.4%" in text and "far below" in text


def test_a_normal_run_has_nothing_to_say() -> None:
    review = review_measurement(0.25, 0.3)
    assert review.ok and review.message() == ""


def test_above_the_peak_is_reported_not_capped() -> None:
    review = review_measurement(0.36, 0.3)
    assert review.over_peak and review.share_of_peak == pytest.approx(1.2)
    assert "too low" in review.message()


def test_a_disturbed_run_says_so() -> None:
    review = review_measurement(0.25, 0.3, disturbed=True, conditions="other processes used 50%")
    assert not review.ok and "disturbed" in review.message() and "50%" in review.message()


def test_without_a_peak_there_is_no_share() -> None:
    review = review_measurement(1.0, None)
    assert review.share_of_peak is None and review.ok


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_measurements_are_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="measured"):
        review_measurement(bad, 1.0)


@given(st.floats(1e-6, 1e4), st.floats(1e-3, 1e4))
def test_suspect_exactly_below_the_threshold(measured: float, peak: float) -> None:
    review = review_measurement(measured, peak)
    assert review.suspect == (measured / peak < SUSPECT_SHARE)
    assert review.over_peak == (measured / peak > 1.0)


def test_plausibility_flags_only_values_beyond_real_systems() -> None:
    assert plausibility_warnings({"params": 7e9, "gpus": 4096, "tokens": 2e12}) == []
    warnings = plausibility_warnings({"params": 2e14, "gpus": 2e6, "other": 1e99, "tokens": None})
    assert len(warnings) == 2
    assert warnings[0].startswith("parameters 200T") or "parameters" in warnings[0]
    assert any("devices" in w and "beyond any real system" in w for w in warnings)
    for limit in PLAUSIBLE_LIMITS.values():
        assert limit.label and limit.example and limit.largest_real > 0


def test_a_count_without_its_suffix_is_flagged_as_too_small() -> None:
    # "7" typed for "7B": seven parameters is no model; the smallest preset network (500k)
    # and anything larger pass
    warnings = plausibility_warnings({"params": 7, "active_params": 2})
    assert len(warnings) == 2
    assert "parameters: 7 is below any real model" in warnings[0]
    assert "7B is 7 billion" in warnings[0]
    assert plausibility_warnings({"params": 5e5, "active_params": 1e3}) == []
    assert plausibility_warnings({"params": 0}) == []  # refused by the model, not warned
