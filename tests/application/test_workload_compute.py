"""The Workload tab's recompute without Qt: estimates and refused inputs by section/field."""

from __future__ import annotations

import pytest

from desktopapp.application.workload_compute import (
    MEMORY,
    TRAINING,
    MeasuredDevice,
    compute_workload,
)
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.perf_training import MODELLED_SOURCE
from desktopapp.model.presets import get_preset
from desktopapp.model.training import TrainingInputs, estimate_training

LLAMA = TrainingInputs(
    params=7e9, tokens=2e12, accelerator="h100-sxm", gpus=64, utilization=0.4, price=2.0
)


def test_the_headline_is_the_modelled_run_unless_the_user_set_the_utilization() -> None:
    done = compute_workload(LLAMA, None, None, preset=get_preset("llm-7b"))
    assert done.modelled is not None and done.modelled.run is not None
    assert done.training is not None and done.training.utilization_source == MODELLED_SOURCE
    assert done.training.gpu_hours == pytest.approx(done.modelled.run.gpu_hours)
    assert done.errors == ()
    own = compute_workload(LLAMA, None, None, utilization_user_set=True)
    assert own.training == estimate_training(LLAMA)  # the flat rule, the user's 40%


def test_a_refused_plan_names_its_field_and_the_flat_estimate_stands() -> None:
    done = compute_workload(
        TrainingInputs(**{**LLAMA.__dict__, "tp": 16}), None, None, utilization_user_set=False
    )
    assert [(e.section, e.field) for e in done.errors] == [(TRAINING, "tp")]
    assert "scale-up domain" in done.errors[0].message
    assert done.training is not None and done.training.utilization == 0.4


def test_model_errors_are_reported_per_section(monkeypatch: pytest.MonkeyPatch) -> None:
    from desktopapp.application import workload_compute
    from desktopapp.model.validation import InputError

    def refuse(_inputs: object) -> None:
        raise InputError("hidden", "must be divisible by heads (32), got 770")

    monkeypatch.setattr(workload_compute, "estimate_memory", refuse)
    done = compute_workload(LLAMA, MemoryInputs(params=7e9), None)
    assert [(e.section, e.field) for e in done.errors] == [(MEMORY, "hidden")]
    assert done.errors[0].message.startswith("Hidden size:")
    assert done.memory is None and done.training is not None


def test_a_measured_device_models_with_its_matmul_efficiency() -> None:
    measured = compute_workload(
        TrainingInputs(**{**LLAMA.__dict__, "peak_tflops": 400.0}),
        None,
        None,
        measured=MeasuredDevice({"bf16": 400.0}, "h100-sxm"),
    )
    catalog = compute_workload(LLAMA, None, None)
    assert measured.modelled is not None and measured.modelled.run is not None
    assert catalog.modelled is not None and catalog.modelled.run is not None
    assert measured.modelled.run.step_seconds > catalog.modelled.run.step_seconds


def test_publishing_keeps_the_last_valid_parts_while_an_input_is_invalid() -> None:
    from desktopapp.application.plan import PlanState, PriceChoice
    from desktopapp.application.workload_compute import publish_workload

    state = PlanState()
    done = compute_workload(LLAMA, None, None)
    price = PriceChoice(2.0, "typed")
    publish_workload(state, (LLAMA, None, None), done, invalid=False, preset_id=None, price=price)
    assert state.training == LLAMA and state.estimate == done.training
    assert state.price.usd_per_gpu_hour == 2.0
    # an invalid edit: the training part is missing, the state keeps the last valid one
    broken = compute_workload(None, None, None)
    publish_workload(state, (None, None, None), broken, invalid=True, preset_id=None, price=None)
    assert state.training == LLAMA and state.estimate == done.training
    # a part that no longer applies (no error) is cleared
    publish_workload(state, (None, None, None), broken, invalid=False, preset_id=None, price=None)
    assert state.training is None and state.estimate is None
