"""The Workload tab's presenter without Qt: cards, ranges, curves, memory verdicts and the
inference cards equal the model's figures, formatted by model.units."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from desktopapp.application import workload
from desktopapp.model import units
from desktopapp.model.inference import InferenceInputs, estimate_inference
from desktopapp.model.memory import MemoryInputs, estimate_memory
from desktopapp.model.training import TrainingInputs, estimate_training

COLORS = {"good": "#0a0", "muted": "#777"}
TRAINING = TrainingInputs(params=7e9, tokens=1e11, accelerator="h100-sxm", gpus=8, price=2.5)


def test_training_cards_and_range() -> None:
    est = estimate_training(TRAINING)
    view = workload.training_view(est, TRAINING)
    assert view.compute.value == units.format_flops(est.total_flops)
    assert "6·N·D" in view.compute.detail
    assert view.time.value == units.format_duration(est.training_seconds)
    assert view.gpu_hours.unit == "GPU-h"
    assert view.cost is not None
    assert view.cost.value == units.format_money(est.estimated_cost_usd)
    assert view.time_range.high == pytest.approx(est.planning_high_hours)
    assert view.cost_range is not None
    assert view.time_range.ticks == tuple(float(m) for m in range(1, int(est.project_margin) + 1))
    curves = view.curves
    assert curves.current_devices == 8
    i = int(np.argmin(np.abs(curves.devices - 8)))
    assert curves.hours[i] == pytest.approx(est.training_hours, rel=1e-9)


def test_training_without_price_has_no_cost_card() -> None:
    inputs = TrainingInputs(params=7e9, tokens=1e11, accelerator="h100-sxm", gpus=8)
    view = workload.training_view(estimate_training(inputs), inputs)
    assert view.cost is None and view.cost_range is None
    assert view.curves.cost_by_devices is None or np.all(np.isnan(view.curves.cost_by_devices))


def test_missing_training_reasons() -> None:
    assert workload.training_missing_reason("gpus: must be …", "ResNet", False) == "gpus: must be …"
    assert "no FLOP-based estimate" in workload.training_missing_reason("", "Retrieval", False)
    assert workload.training_missing_reason("", None, True) == ""


@pytest.mark.parametrize(("gpus", "tone"), [(64, "good"), (1, "bad")])
def test_memory_verdicts(gpus: int, tone: str) -> None:
    inputs = MemoryInputs(
        params=7e9, accelerator="h100-sxm", gpus=gpus, zero_stage=3 if gpus > 1 else 0
    )
    est = estimate_memory(inputs)
    view = workload.memory_view(est, COLORS)
    assert view.tone == tone
    assert set(view.parts) == set(workload.MEMORY_PARTS)
    assert view.parts["weights"] == (
        est.per_device_weights_bytes,
        units.format_bytes(est.per_device_weights_bytes),
    )
    if tone == "bad":
        assert view.verdict.startswith("✗") and view.heading.startswith("Needs")
    else:
        assert view.verdict.startswith("✓ Fits") and not view.advice


def test_inference_cards_of_a_per_sample_model_show_the_roofline() -> None:
    inputs = InferenceInputs(
        params=25e6, forward_flops=8e9, accelerator="h100-sxm", batch_size=8, price=2.0
    )
    est = estimate_inference(inputs)
    view = workload.inference_view(est, inputs)
    assert view.captions == workload.ROOFLINE_CAPTIONS
    assert view.throughput.unit == f"{est.unit}s/s"
    assert view.latency.value == units.format_duration(est.latency_seconds)
    assert view.cost is not None and view.cost.detail == f"per million {est.unit}s"
    assert view.bound.value == est.bound.capitalize()
    assert view.curve.current == (8.0, est.throughput_per_second)
    assert 8.0 in view.curve.batch_size
    assert "Batch of 8" in view.note


def test_inference_cards_of_a_language_model_show_serving() -> None:
    from desktopapp.model.serving import estimate_serving

    inputs = InferenceInputs(params=7e9, accelerator="h100-sxm", batch_size=8, price=2.0)
    from desktopapp.application.defaults import serving_inputs

    serving = estimate_serving(serving_inputs(replace(inputs, tpot_target_s=0.040)))
    # the view renders the snapshot's serving point (issue 21: one answer), it no longer
    # computes one of its own; without it the roofline's cards are shown
    view = workload.inference_view(
        estimate_inference(inputs), inputs, (None, 0.040), served=serving
    )
    assert view.captions == workload.SERVING_CAPTIONS
    assert view.latency.value == units.format_duration(serving.ttft_seconds)
    assert view.bound.value == units.format_duration(serving.tpot_seconds)
    assert view.bound.detail.endswith("✓") and serving.tpot_seconds <= 0.040
    assert view.curve.target_x == 40.0 and not view.curve.log_x
    assert view.curve.current == (serving.tpot_seconds * 1e3, serving.tokens_per_second)
    assert view.assumptions == serving.assumptions
    assert f"{serving.concurrency} sequences" in view.note


def test_present_gathers_every_panel() -> None:
    memory = MemoryInputs(params=7e9, accelerator="h100-sxm")
    results = workload.WorkloadResults(
        TRAINING, estimate_training(TRAINING), estimate_memory(memory), None, None
    )
    view = workload.present(results, COLORS)
    assert view.training is not None and view.memory is not None and view.inference is None
    assert [name for name, _a in view.assumptions] == ["Training", "Memory"]
    empty = workload.present(workload.WorkloadResults(), COLORS)
    assert empty.training is None and empty.assumptions == ()
    assert "memory bandwidth" in workload.inference_missing_reason(True)


def test_the_utilization_note_says_when_the_model_sets_the_figure() -> None:
    from desktopapp.application.workload_policy import WorkloadController
    from desktopapp.model.catalog import get_accelerator

    policy = WorkloadController()
    acc = get_accelerator("h100-sxm")
    assert policy.utilization_note(acc, None, None).startswith("Default")
    modelled = policy.utilization_note(acc, None, 0.423)
    assert modelled.startswith("Modelled: 42% of peak") and "move the slider" in modelled
    assert modelled.endswith(policy.utilization_field(acc, None).note)
    policy.utilization_moved()  # the user's figure overrides the model
    assert policy.utilization_note(acc, None, 0.423).startswith("Set by you")


def test_no_card_of_a_huge_run_writes_scientific_notation() -> None:
    """Issue 16: "8.4e+07 PFLOP" under the Total compute card."""
    import dataclasses
    import re

    huge = TrainingInputs(params=1.8e12, tokens=3e13, accelerator="h100-sxm", gpus=65536, price=2.0)
    view = workload.present(workload.WorkloadResults(huge, estimate_training(huge)), COLORS)
    assert view.training is not None
    texts = [
        str(value)
        for card in dataclasses.astuple(view.training)
        if isinstance(card, tuple)
        for value in card
        if isinstance(value, str)
    ]
    assert texts and not [t for t in texts if re.search(r"\d[eE][-+]?\d", t)]
    assert view.training.compute.detail.startswith("3.24×10^26 FLOP")  # 6 × 1.8T × 30T
