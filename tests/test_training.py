"""Training compute, time and cost: the worked example, the formulas, sweeps and properties."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model import catalog
from desktopapp.model.training import (
    DEFAULT_PROJECT_MARGIN,
    DEFAULT_UTILIZATION,
    TrainingInputs,
    estimate_training,
    training_flops_6nd,
    training_flops_forward,
    training_sweep_devices,
    training_sweep_utilization,
    with_catalog_price,
)
from desktopapp.model.validation import InputError

WORKED: dict[str, Any] = {
    "params": 110e6,
    "tokens": 3.3e9,
    "peak_tflops": 312,
    "utilization": 0.4,
    "gpus": 8,
    "price": 2.0,
}


def test_worked_example_from_the_brief():
    e = estimate_training(TrainingInputs(**WORKED))
    assert e.total_flops == pytest.approx(2.178e18, rel=1e-12)
    assert e.total_pflops == pytest.approx(2178.0)
    assert round(e.training_hours, 3) == 0.606
    assert e.gpu_hours == pytest.approx(e.training_hours * 8)
    assert e.estimated_cost_usd == pytest.approx(9.70, abs=0.005)
    assert e.training_days == pytest.approx(e.training_hours / 24)
    assert e.peak_tflops == 312
    assert e.utilization == 0.4
    assert e.devices == 8
    assert e.method == "6nd"


def test_formula_text_has_the_numbers_filled_in():
    e = estimate_training(TrainingInputs(**WORKED))
    assert "6 × N × D" in e.formula
    assert "6 × 110M params × 3.3B tokens = 2.178 EFLOP" in e.formula
    assert "= 2,181 s = 36.4 min" in e.formula
    assert "312 TFLOP/s" in e.formula
    assert "0.40" in e.formula
    assert "$9.70" in e.formula


def test_formulas_never_print_scientific_notation():
    """Issue 16: "2.178e+18" in a tooltip reads as a typo to most people."""
    import re

    from desktopapp.model.inference import InferenceInputs, estimate_inference
    from desktopapp.model.perf_training import RunInputs, estimate_run

    scientific = re.compile(r"\d[eE][-+]?\d")
    huge = estimate_training(TrainingInputs(params=1.8e12, tokens=3e13, peak_tflops=989, gpus=8192))
    run = estimate_run(RunInputs(params=70e9, tokens=15e12, accelerator="h100-sxm", gpus=4096))
    serve = estimate_inference(InferenceInputs(params=4e11, peak_tflops=989, bandwidth_gbs=3350))
    for text in (huge.formula, run.formula, serve.formula):
        assert not scientific.search(text), text


def test_planning_range_is_estimate_times_margin():
    e = estimate_training(TrainingInputs(**WORKED))
    assert e.project_margin == DEFAULT_PROJECT_MARGIN == 3.0
    assert e.planning_low_hours == pytest.approx(e.training_hours)
    assert e.planning_high_hours == pytest.approx(3 * e.training_hours)
    assert e.planning_low_cost_usd == pytest.approx(e.estimated_cost_usd)
    assert e.planning_high_cost_usd == pytest.approx(3 * e.estimated_cost_usd)
    margin = next(a for a in e.assumptions if "margin" in a.name)
    assert "2-3" in margin.value
    e2 = estimate_training(TrainingInputs(**WORKED, project_margin=2))
    assert e2.planning_high_hours == pytest.approx(2 * e.training_hours)


def test_forward_rule_is_three_forward_passes():
    inputs = TrainingInputs(forward_flops=8.2e9, samples=1_281_167, epochs=90, peak_tflops=312)
    e = estimate_training(inputs)
    assert e.method == "forward"
    assert e.total_flops == pytest.approx(3 * 8.2e9 * 1_281_167 * 90)
    assert training_flops_forward(2.0, 5.0, 7.0) == 210.0
    assert "3 × forward" in e.formula


def test_epochs_multiply_the_6nd_rule():
    one = estimate_training(TrainingInputs(params=1e9, tokens=1e10, peak_tflops=100))
    three = estimate_training(TrainingInputs(params=1e9, tokens=1e10, epochs=3, peak_tflops=100))
    assert three.total_flops == pytest.approx(3 * one.total_flops)
    assert training_flops_6nd(2.0, 3.0) == 36.0


def test_time_formula_by_hand():
    e = estimate_training(TrainingInputs(params=1e9, tokens=1e9, peak_tflops=100, gpus=4))
    expected = 6e18 / (100e12 * DEFAULT_UTILIZATION * 4)
    assert e.training_seconds == pytest.approx(expected)


def test_goodput_overhead_adds_wall_time_and_cost():
    base = estimate_training(TrainingInputs(**WORKED))
    slow = estimate_training(TrainingInputs(**WORKED, goodput_overhead=0.25))
    assert slow.compute_seconds == pytest.approx(base.training_seconds)
    assert slow.training_seconds == pytest.approx(1.25 * base.training_seconds)
    assert slow.estimated_cost_usd == pytest.approx(1.25 * base.estimated_cost_usd)
    assert "1 + 0.25" in slow.formula


def test_default_utilization_and_its_band_are_stated():
    e = estimate_training(TrainingInputs(params=1e9, tokens=1e9, peak_tflops=100))
    assert e.utilization == DEFAULT_UTILIZATION == 0.40
    util = next(a for a in e.assumptions if a.name.startswith("utilization"))
    assert "30%-50%" in util.value
    assert util.source and util.source != "given"


def test_no_price_means_no_cost():
    e = estimate_training(TrainingInputs(params=1e9, tokens=1e9, peak_tflops=100))
    assert e.estimated_cost_usd is None
    assert e.planning_low_cost_usd is None and e.planning_high_cost_usd is None
    assert "cost =" not in e.formula
    payload = e.to_dict()
    assert payload["estimated_cost_usd"] is None


def test_every_default_appears_as_an_assumption():
    e = estimate_training(TrainingInputs(params=1e9, tokens=1e9, peak_tflops=100))
    names = " | ".join(a.name for a in e.assumptions)
    for word in ("FLOPs per parameter", "peak", "utilization", "scaling", "goodput", "price"):
        assert word in names
    assert "margin" in names


# --- catalog-backed ---------------------------------------------------------------------------


def test_accelerator_peak_comes_from_the_catalog():
    acc = catalog.get_accelerator("h100-sxm")
    e = estimate_training(TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm"))
    assert e.peak_tflops == pytest.approx(acc.peak_tflops["bf16"])
    assert e.accelerator_name == acc.name
    peak = next(a for a in e.assumptions if a.name == "peak per device")
    assert acc.name in peak.source


def test_typical_utilization_from_the_catalog_becomes_the_default():
    with_typical = [
        a for a in catalog.accelerator_catalog().accelerators if a.typical_utilization is not None
    ]
    assert with_typical, "catalog has no typical utilization at all"
    acc = with_typical[0]
    precision = next(p for p in ("bf16", "fp16", "fp32") if p in acc.peak_tflops)
    e = estimate_training(
        TrainingInputs(params=1e9, tokens=1e9, accelerator=acc.id, precision=precision)
    )
    assert e.utilization == acc.typical_utilization
    assert acc.name in e.utilization_source
    given_util = estimate_training(
        TrainingInputs(
            params=1e9, tokens=1e9, accelerator=acc.id, precision=precision, utilization=0.5
        )
    )
    assert given_util.utilization == 0.5


def test_peak_tflops_overrides_the_catalog_peak():
    e = estimate_training(
        TrainingInputs(params=1e9, tokens=1e9, accelerator="h100-sxm", peak_tflops=500)
    )
    assert e.peak_tflops == 500


def test_default_precision_follows_the_accelerator():
    no_bf16 = next(
        a
        for a in catalog.accelerator_catalog().accelerators
        if "bf16" not in a.peak_tflops and "fp16" in a.peak_tflops
    )
    inputs = TrainingInputs(params=1e9, tokens=1e9, accelerator=no_bf16.id)
    assert inputs.precision == "fp16"
    assert TrainingInputs(params=1e9, tokens=1e9, peak_tflops=1).precision == "bf16"


def test_unsupported_precision_and_unknown_accelerator_name_the_field():
    no_fp8 = next(
        a for a in catalog.accelerator_catalog().accelerators if "fp8" not in a.peak_tflops
    )
    with pytest.raises(ValueError, match=r"^precision: "):
        TrainingInputs(params=1e9, tokens=1e9, accelerator=no_fp8.id, precision="fp8")
    with pytest.raises(ValueError, match=r"^accelerator: unknown id 'h10'; did you mean .*h100"):
        TrainingInputs(params=1e9, tokens=1e9, accelerator="h10")


def test_catalog_price_is_the_cheapest_on_demand_offer():
    inputs = with_catalog_price(TrainingInputs(params=1e9, tokens=1e9, accelerator="h100-sxm"))
    offer = catalog.cheapest_offer("h100-sxm", "on_demand")
    assert offer is not None
    assert inputs.price == offer.on_demand
    assert offer.id in inputs.price_source
    e = estimate_training(inputs)
    assert e.estimated_cost_usd == pytest.approx(e.gpu_hours * offer.on_demand)
    assert e.price_source == inputs.price_source
    # A given price is kept.
    kept = with_catalog_price(
        TrainingInputs(params=1e9, tokens=1e9, accelerator="h100-sxm", price=9.0)
    )
    assert kept.price == 9.0


# --- sweeps -----------------------------------------------------------------------------------


def test_device_sweep_uses_the_same_formula_as_the_estimate():
    inputs = TrainingInputs(**WORKED)
    devices = np.arange(1, 4097)
    sweep = training_sweep_devices(inputs, devices)
    assert sweep.parameter == "gpus"
    assert sweep.training_hours.shape == (4096,)
    for g in (1, 8, 100, 4096):
        e = estimate_training(TrainingInputs(**{**WORKED, "gpus": g}))
        assert sweep.training_hours[g - 1] == pytest.approx(e.training_hours, rel=1e-12)
        assert sweep.cost_usd is not None
        assert sweep.cost_usd[g - 1] == pytest.approx(e.estimated_cost_usd, rel=1e-12)
    assert np.all(np.diff(sweep.training_hours) < 0)


def test_utilization_sweep_cost_never_rises():
    inputs = TrainingInputs(**WORKED)
    utils = np.linspace(0.05, 1.0, 96)
    sweep = training_sweep_utilization(inputs, utils)
    assert sweep.cost_usd is not None
    assert np.all(np.diff(sweep.cost_usd) <= 0)
    idx = int(np.argmin(abs(utils - 0.4)))
    e = estimate_training(TrainingInputs(**{**WORKED, "utilization": float(utils[idx])}))
    assert sweep.cost_usd[idx] == pytest.approx(e.estimated_cost_usd, rel=1e-12)


def test_sweep_without_price_has_no_cost_curve():
    sweep = training_sweep_devices(TrainingInputs(params=1e9, tokens=1e9, peak_tflops=1), [1, 2])
    assert sweep.cost_usd is None


@pytest.mark.parametrize(
    ("func", "values", "field"),
    [
        (training_sweep_devices, [0, 1], "gpus"),
        (training_sweep_devices, [1.5], "gpus"),
        (training_sweep_devices, [], "gpus"),
        (training_sweep_utilization, [0.0, 0.5], "utilization"),
        (training_sweep_utilization, [1.2], "utilization"),
        (training_sweep_utilization, [float("nan")], "utilization"),
    ],
)
def test_sweep_rejects_invalid_values(func, values, field):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        func(TrainingInputs(**WORKED), values)


# --- invalid input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params": 0}, "params"),
        ({"params": -1.0}, "params"),
        ({"params": float("nan")}, "params"),
        ({"params": "7B"}, "params"),
        ({"tokens": float("inf")}, "tokens"),
        ({"gpus": 0}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"utilization": 0}, "utilization"),
        ({"utilization": 1.01}, "utilization"),
        ({"price": 0}, "price"),
        ({"price": -2}, "price"),
        ({"peak_tflops": 0}, "peak_tflops"),
        ({"goodput_overhead": -0.1}, "goodput_overhead"),
        ({"project_margin": 0.5}, "project_margin"),
        ({"epochs": 0}, "epochs"),
        ({"precision": "int4"}, "precision"),
        ({"method": "magic"}, "method"),
        ({"peak_tflops": None}, "accelerator"),
        ({"tokens": None}, "tokens"),
        ({"forward_flops": 1e9, "samples": 1e6}, "method"),
    ],
)
def test_invalid_input_names_the_field(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        TrainingInputs(**{**WORKED, **changes})


def test_forward_rule_needs_both_fields():
    with pytest.raises(ValueError, match=r"^samples: "):
        TrainingInputs(forward_flops=1e9, peak_tflops=1)
    with pytest.raises(ValueError, match=r"^params: "):
        TrainingInputs(peak_tflops=1)


# --- properties -------------------------------------------------------------------------------

positive = st.floats(min_value=1e-3, max_value=1e15, allow_nan=False, allow_infinity=False)
counts = st.floats(min_value=1, max_value=1e15, allow_nan=False, allow_infinity=False)
fractions = st.floats(min_value=1e-3, max_value=1.0)
devices = st.integers(min_value=1, max_value=100_000)


@st.composite
def training_inputs(draw):
    forward = draw(st.booleans())
    common = {
        "peak_tflops": draw(st.floats(min_value=1e-3, max_value=1e5)),
        "utilization": draw(fractions),
        "gpus": draw(devices),
        "price": draw(st.one_of(st.none(), st.floats(min_value=1e-3, max_value=1e3))),
        "goodput_overhead": draw(st.floats(min_value=0.0, max_value=10.0)),
        "epochs": draw(st.floats(min_value=1e-2, max_value=1e3)),
    }
    if forward:
        return TrainingInputs(forward_flops=draw(positive), samples=draw(counts), **common)
    return TrainingInputs(params=draw(counts), tokens=draw(counts), **common)


@given(training_inputs())
def test_results_are_finite_and_non_negative(inputs):
    e = estimate_training(inputs)
    numbers = [
        e.total_flops,
        e.training_seconds,
        e.training_hours,
        e.training_days,
        e.gpu_hours,
        e.planning_low_hours,
        e.planning_high_hours,
    ]
    if inputs.price is not None:
        numbers += [e.estimated_cost_usd, e.planning_low_cost_usd, e.planning_high_cost_usd]
    for value in numbers:
        assert value is not None and math.isfinite(value) and value >= 0
    assert e.planning_high_hours >= e.planning_low_hours


@given(training_inputs(), devices, devices)
def test_more_devices_are_never_slower(inputs, g1, g2):
    low, high = sorted((g1, g2))
    slow = estimate_training(TrainingInputs(**{**_fields(inputs), "gpus": low}))
    fast = estimate_training(TrainingInputs(**{**_fields(inputs), "gpus": high}))
    assert fast.training_seconds <= slow.training_seconds


@given(training_inputs(), fractions, fractions)
def test_higher_utilization_is_never_costlier(inputs, u1, u2):
    low, high = sorted((u1, u2))
    fields = {**_fields(inputs), "price": inputs.price or 1.0}
    cheap = estimate_training(TrainingInputs(**{**fields, "utilization": high}))
    dear = estimate_training(TrainingInputs(**{**fields, "utilization": low}))
    assert cheap.estimated_cost_usd is not None and dear.estimated_cost_usd is not None
    assert cheap.estimated_cost_usd <= dear.estimated_cost_usd
    assert cheap.training_seconds <= dear.training_seconds


bad_numbers = st.one_of(
    st.floats(max_value=0.0),
    st.just(float("nan")),
    st.just(float("inf")),
    st.just(float("-inf")),
    st.text(max_size=5),
    st.booleans(),
)


@given(st.sampled_from(["params", "tokens", "peak_tflops", "price", "epochs"]), bad_numbers)
def test_invalid_numbers_always_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        TrainingInputs(**{**WORKED, field: value})


@given(st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0001), st.just(float("nan"))))
def test_utilization_outside_the_unit_interval_raises(value):
    with pytest.raises(ValueError, match=r"^utilization: "):
        TrainingInputs(**{**WORKED, "utilization": value})


def _fields(inputs: TrainingInputs) -> dict:
    d = inputs.to_dict()
    d.pop("method")
    return d


def test_a_mixture_of_experts_computes_with_its_active_parameters():
    """Issue 13: compute uses active parameters, memory the total (`--active-params`)."""
    moe = estimate_training(
        TrainingInputs(params=47e9, active_params=13e9, tokens=1e12, peak_tflops=989, gpus=8)
    )
    assert moe.total_flops == pytest.approx(6 * 13e9 * 1e12)
    assert "6 × N_active × D" in moe.formula and "13B active params" in moe.formula
    with pytest.raises(ValueError, match="active_params"):
        TrainingInputs(params=7e9, active_params=8e9, tokens=1e12, peak_tflops=989)


def test_the_users_parallel_plan_is_saved_with_the_inputs_and_reaches_the_model():
    from desktopapp.model.perf_training import estimate_run, run_inputs_from_training
    from desktopapp.model.scenario import Scenario

    planned = TrainingInputs(
        params=70e9, tokens=2e12, accelerator="h100-sxm", gpus=1024, tp=8, pp=4, micro_batch=1
    )
    assert Scenario.from_json(Scenario(training=planned).to_json()).training == planned
    run_inputs = run_inputs_from_training(planned)
    assert run_inputs is not None and (run_inputs.tp, run_inputs.pp) == (8, 4)
    run = estimate_run(run_inputs)
    assert (run.plan.tp, run.plan.pp, run.plan.micro_batch) == (8, 4, 1)
    assert run_inputs_from_training(planned, tp=4).tp == 4  # an option given wins
    for bad in ({"tp": 0}, {"pp": -1}, {"micro_batch": 1.5}, {"global_batch_tokens": -4e6}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", **bad)


def test_a_production_factor_source_is_one_line_kept_only_with_a_factor() -> None:
    base = {"params": 7e9, "tokens": 1e12, "accelerator": "h100-sxm", "gpus": 8}
    noted = TrainingInputs(
        **base, production_factor=1.4, production_factor_source="×1.4 from\n your  runs"
    )
    assert noted.production_factor_source == "×1.4 from your runs"
    assert noted.to_dict()["production_factor_source"] == "×1.4 from your runs"
    # without a factor the fitted default applies: a note about a factor would be stale
    assert TrainingInputs(**base, production_factor_source="x").production_factor_source == ""
    with pytest.raises(InputError) as long:
        TrainingInputs(**base, production_factor=1.4, production_factor_source="x" * 301)
    assert long.value.field == "production_factor_source" and "300" in str(long.value)
    with pytest.raises(InputError) as kind:
        TrainingInputs(**base, production_factor=1.4, production_factor_source=3)  # type: ignore[arg-type]
    assert kind.value.field == "production_factor_source"


def test_the_software_stack_is_one_of_the_models_and_none_is_the_default() -> None:
    base = {"params": 7e9, "tokens": 1e12, "accelerator": "h100-sxm", "gpus": 8}
    assert TrainingInputs(**base).software_stack is None
    assert TrainingInputs(**base, software_stack="fsdp").to_dict()["software_stack"] == "fsdp"
    with pytest.raises(InputError) as info:
        TrainingInputs(**base, software_stack="deepspeed")
    assert info.value.field == "software_stack" and "megatron" in str(info.value)


def test_a_power_cap_is_watts_per_gpu_and_top_k_needs_a_mixture_of_experts() -> None:
    base = {"params": 47e9, "tokens": 1e12, "accelerator": "h100-sxm", "gpus": 64}
    moe = {**base, "active_params": 13e9}
    inputs = TrainingInputs(**moe, power_cap_w=450, moe_top_k=8.0)
    assert (inputs.power_cap_w, inputs.moe_top_k) == (450.0, 8)
    assert isinstance(inputs.moe_top_k, int)
    assert {k: inputs.to_dict()[k] for k in ("power_cap_w", "moe_top_k")} == {
        "power_cap_w": 450.0,
        "moe_top_k": 8,
    }
    assert TrainingInputs(**base).power_cap_w is None and TrainingInputs(**base).moe_top_k is None
    # below a quarter of the TDP drivers refuse the cap (H100 SXM: 200-700 W); 1e-300 W gave
    # a run of 5.6×10^100 years
    low = "at least 175 W on the NVIDIA H100 SXM5 80GB"
    for cap, words in (
        (0, "greater than 0"),
        (-300, "greater than 0"),
        (9000, "at most 5,000 W"),
        (1e-300, low),
        (174, low),
    ):
        with pytest.raises(InputError) as info:
            TrainingInputs(**base, power_cap_w=cap)
        assert info.value.field == "power_cap_w" and words in str(info.value), info.value
    assert TrainingInputs(**base, power_cap_w=175).power_cap_w == 175.0
    for top_k in (0, 2.5, 5000):
        with pytest.raises(InputError) as info:
            TrainingInputs(**moe, moe_top_k=top_k)
        assert info.value.field == "moe_top_k"
    with pytest.raises(InputError) as dense:  # a dense model routes nothing
        TrainingInputs(**base, moe_top_k=2)
    assert dense.value.field == "moe_top_k" and "active parameters" in str(dense.value)
