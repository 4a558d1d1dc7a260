"""model.sensitivity: one input at a time ±25%, through the training model."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model.sensitivity import SensitivityBar, SensitivityResult, training_sensitivity
from desktopapp.model.training import TrainingInputs, estimate_training

BASE = TrainingInputs(
    params=7e9,
    tokens=150e9,
    accelerator="h100-sxm",
    gpus=8,
    utilization=0.4,
    price=4.0,
    goodput_overhead=0.1,
)


def by_name(result: SensitivityResult) -> dict[str, SensitivityBar]:
    return {bar.name: bar for bar in result.bars}


def test_each_input_moves_by_a_quarter_and_the_model_gives_the_swing() -> None:
    result = training_sensitivity(BASE)
    bars = by_name(result)
    assert set(bars) == {
        "params",
        "tokens",
        "epochs",
        "gpus",
        "utilization",
        "peak_tflops",
        "price",
        "goodput_overhead",
    }
    base = estimate_training(BASE)
    assert result.base_hours == pytest.approx(base.training_hours)
    assert result.base_cost == pytest.approx(base.estimated_cost_usd)
    # Compute scales linearly: params ±25% → time and cost ±25%.
    params = bars["params"]
    assert (params.low_value, params.high_value) == (pytest.approx(5.25e9), pytest.approx(8.75e9))
    assert params.change("hours", result.base_hours, "low") == pytest.approx(-0.25)
    assert params.change("cost", result.base_cost, "high") == pytest.approx(0.25)
    # Time is inverse in utilization: 0.3 → ×4/3, 0.5 → ×0.8.
    util = bars["utilization"]
    assert util.change("hours", result.base_hours, "low") == pytest.approx(1 / 0.75 - 1)
    assert util.change("hours", result.base_hours, "high") == pytest.approx(1 / 1.25 - 1)
    # More devices: shorter, but the same GPU-hours and cost (linear scaling).
    gpus = bars["gpus"]
    assert (gpus.low_value, gpus.high_value) == (6, 10)
    assert gpus.change("hours", result.base_hours, "high") == pytest.approx(8 / 10 - 1)
    assert gpus.change("cost", result.base_cost, "high") == pytest.approx(0.0, abs=1e-12)
    # The price moves the cost only.
    price = bars["price"]
    assert price.change("hours", result.base_hours, "low") == pytest.approx(0.0, abs=1e-12)
    assert price.change("cost", result.base_cost, "low") == pytest.approx(-0.25)
    # Each swing is what the model gives for the changed input (no formula of its own).
    moved = estimate_training(replace(BASE, tokens=150e9 * 1.25))
    assert bars["tokens"].high_hours == pytest.approx(moved.training_hours)
    assert bars["peak_tflops"].base_value == pytest.approx(base.peak_tflops)


def test_ranking_puts_the_biggest_swing_first() -> None:
    result = training_sensitivity(BASE)
    cost_order = [bar.name for bar in result.ranked("cost")]
    time_order = [bar.name for bar in result.ranked("hours")]
    assert cost_order[0] in ("utilization", "peak_tflops")  # +33% / −20% beats ±25%
    assert cost_order[-1] == "gpus"  # devices do not change the cost
    assert time_order[-1] == "price"  # the price does not change the time
    swings = [round(bar.swing("cost", result.base_cost), 9) for bar in result.ranked("cost")]
    assert swings == sorted(swings, reverse=True)


def test_edges_one_device_full_utilization_no_price() -> None:
    inputs = TrainingInputs(params=1e9, tokens=1e10, peak_tflops=100, gpus=1, utilization=0.9)
    result = training_sensitivity(inputs)
    bars = by_name(result)
    assert (bars["gpus"].low_value, bars["gpus"].high_value) == (1, 2)
    assert bars["utilization"].high_value == 1.0  # capped
    assert "price" not in bars and "goodput_overhead" not in bars
    assert result.base_cost is None
    assert all(bar.swing("cost", result.base_cost) == 0.0 for bar in result.bars)
    forward = TrainingInputs(forward_flops=1e9, samples=1e6, peak_tflops=50)
    names = set(by_name(training_sensitivity(forward)))
    assert {"forward_flops", "samples"} <= names and "params" not in names


@pytest.mark.parametrize("step", [0, 1, -0.1, 1.5, float("nan"), True])
def test_bad_step_names_the_field(step: float) -> None:
    with pytest.raises(ValueError, match=r"^step:"):
        training_sensitivity(BASE, step)
    with pytest.raises(ValueError, match=r"^metric:"):
        training_sensitivity(BASE).base("dollars")


@given(
    params=st.floats(1e6, 1e12),
    tokens=st.floats(1e6, 1e13),
    gpus=st.integers(1, 4096),
    utilization=st.floats(0.05, 1.0),
    step=st.floats(0.01, 0.9),
)
def test_low_and_high_bracket_the_base(
    params: float, tokens: float, gpus: int, utilization: float, step: float
) -> None:
    inputs = TrainingInputs(
        params=params, tokens=tokens, peak_tflops=300, gpus=gpus, utilization=utilization, price=2
    )
    result = training_sensitivity(inputs, step)
    for bar in result.bars:
        assert bar.low_value <= bar.base_value <= bar.high_value
        for hours in (bar.low_hours, bar.high_hours):
            assert math.isfinite(hours) and hours > 0
        low = bar.change("hours", result.base_hours, "low")
        high = bar.change("hours", result.base_hours, "high")
        assert low is not None and high is not None
        # Time grows with the workload and shrinks with the hardware, never both ways.
        assert low * high <= 1e-12
