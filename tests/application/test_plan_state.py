"""PlanState without Qt: notifications only on real changes, value equality for results, the
cost plan, and the typed errors."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from desktopapp.application.plan import (
    KEEP,
    CustomAccelerator,
    PlanState,
    PriceChoice,
    same_value,
)
from desktopapp.model import planning
from desktopapp.model.training import TrainingInputs, estimate_training
from desktopapp.model.validation import InputError

INPUTS = TrainingInputs(params=7e9, tokens=1e11, accelerator="h100-sxm", gpus=8, price=2.0)


def recorder(state: PlanState) -> list[tuple[str, object]]:
    events: list[tuple[str, object]] = []
    state.subscribe(lambda event, payload: events.append((event, payload)))
    return events


def test_the_application_layer_imports_without_qt() -> None:
    code = (
        "import sys, desktopapp.application.plan, desktopapp.application.cost, "
        "desktopapp.model.planning; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_recomputed_equal_estimate_notifies_nobody() -> None:
    state = PlanState()
    events = recorder(state)
    first = estimate_training(INPUTS)
    assert state.set_estimate(first)
    again = estimate_training(INPUTS)  # a new object with the same figures
    assert again is not first
    assert not state.set_estimate(again)
    assert [e for e, _ in events] == ["estimate"]
    other = estimate_training(dataclasses.replace(INPUTS, gpus=16))
    assert state.set_estimate(other)
    assert state.set_estimate(None)
    assert [e for e, _ in events] == ["estimate", "estimate", "estimate"]


def test_workload_then_accelerator_are_notified_once() -> None:
    state = PlanState()
    events = recorder(state)
    assert state.set_workload(training=INPUTS)
    assert events == [("workload", None), ("accelerator", "h100-sxm")]
    assert not state.set_workload(training=dataclasses.replace(INPUTS))
    assert not state.set_workload(memory=KEEP)
    assert len(events) == 2
    assert state.accelerator_id == "h100-sxm" and state.devices == 8


def test_runs_per_month_are_checked_and_give_monthly_demand() -> None:
    state = PlanState()
    with pytest.raises(InputError) as caught:
        state.set_runs_per_month(-1)
    assert caught.value.field == "runs_per_month"
    assert state.gpu_hours_per_month is None
    state.set_estimate(estimate_training(INPUTS))
    state.set_runs_per_month(3)
    estimate = state.estimate
    assert estimate is not None
    assert state.gpu_hours_per_month == pytest.approx(estimate.gpu_hours * 3)


def test_price_is_notified_before_an_estimate_using_it() -> None:
    state = PlanState()
    events = recorder(state)
    state.set_price(PriceChoice(2.0, "typed in"))
    state.set_estimate(estimate_training(INPUTS))
    assert [e for e, _ in events] == ["price", "estimate"]
    state.set_price(PriceChoice(2.0, "typed in"))
    assert len(events) == 2


def test_cost_plan_round_trip() -> None:
    state = PlanState()
    onprem = planning.default_onprem("h100-sxm")
    assert onprem is not None
    inputs = planning.CostInputs(accelerator_id="h100-sxm", onprem=onprem)
    assert state.cost_plan() is None
    assert state.set_cost_inputs(inputs)
    assert not state.set_cost_inputs(dataclasses.replace(inputs))
    plan = state.cost_plan(2.0)
    assert plan is not None and plan.accelerator == "h100-sxm"
    assert plan.demand.runs_per_month == 2.0


def test_custom_accelerator_errors_carry_the_field() -> None:
    with pytest.raises(InputError) as caught:
        CustomAccelerator("gpu", {"bf16": -1.0})
    assert caught.value.field == "peak_tflops"
    with pytest.raises(ValueError, match=r"^name: "):
        CustomAccelerator(" ", {"bf16": 1.0})


def test_same_value_handles_arrays_and_nan() -> None:
    assert same_value(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert not same_value(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert same_value(float("nan"), float("nan"))
    assert not same_value(1.0, None)
    assert same_value((1, np.arange(3)), (1, np.arange(3)))
