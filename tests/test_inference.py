"""Inference roofline: compute vs memory bound, latency, throughput, cost, batch sweep."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model import catalog
from desktopapp.model.inference import (
    DEFAULT_BANDWIDTH_EFFICIENCY,
    InferenceInputs,
    estimate_inference,
    inference_sweep_batch,
    kv_bytes_per_token,
    with_catalog_price,
)

# 7B in bf16 on a 1000 TFLOP/s, 2000 GB/s device at 50% compute and 100% bandwidth efficiency.
SIMPLE: dict[str, Any] = {
    "params": 7e9,
    "peak_tflops": 1000,
    "bandwidth_gbs": 2000,
    "utilization": 0.5,
    "bandwidth_efficiency": 1.0,
    "prompt_tokens": 100,
    "output_tokens": 10,
}


def test_decode_step_at_batch_one_is_memory_bound():
    e = estimate_inference(InferenceInputs(**SIMPLE))
    assert e.compute_seconds == pytest.approx(2 * 7e9 / (1000e12 * 0.5))
    assert e.memory_seconds == pytest.approx(14e9 / 2000e9)  # 7 ms to read the weights
    assert e.step_seconds == e.memory_seconds
    assert e.bound == "memory"
    # Prefill of 100 tokens: 2.8 ms of compute, 7 ms to read the weights once.
    assert e.prefill_seconds == pytest.approx(7e-3)
    assert e.latency_seconds == pytest.approx(7e-3 + 10 * 7e-3)
    assert e.tokens_per_second == pytest.approx(10 / e.latency_seconds)
    assert e.decode_tokens_per_second == pytest.approx(1 / 7e-3)
    assert e.unit == "token"
    assert e.predictions_per_second is None


def test_large_batch_turns_compute_bound_where_predicted():
    inputs = InferenceInputs(**SIMPLE)
    e = estimate_inference(inputs)
    b_star = e.compute_bound_batch_size
    assert b_star is not None
    # Without a KV cache: 2·N·B / (peak·U) = W / bandwidth → B* = 7e-3 / 2.8e-5 = 250.
    assert b_star == pytest.approx(250)
    above = estimate_inference(InferenceInputs(**{**SIMPLE, "batch_size": 251}))
    below = estimate_inference(InferenceInputs(**{**SIMPLE, "batch_size": 249}))
    assert above.bound == "compute" and below.bound == "memory"


def test_kv_cache_adds_bytes_per_step():
    shape = {"layers": 32, "hidden": 4096, "heads": 32}
    e = estimate_inference(InferenceInputs(**SIMPLE, **shape, batch_size=4))
    per_token = 2 * 32 * 4096 * 2  # K and V, all heads, bf16
    assert e.kv_cache_bytes_per_token == per_token
    assert e.bytes_per_step == pytest.approx(14e9 + per_token * (100 + 10 / 2) * 4)
    gqa = InferenceInputs(**SIMPLE, **shape, kv_heads=8)
    assert kv_bytes_per_token(gqa) == per_token / 4


def test_lower_precision_reads_fewer_bytes():
    bf16 = estimate_inference(InferenceInputs(**SIMPLE, precision="bf16"))
    int8 = estimate_inference(InferenceInputs(**SIMPLE, precision="int8"))
    int4 = estimate_inference(InferenceInputs(**SIMPLE, precision="int4"))
    assert int8.memory_seconds == pytest.approx(bf16.memory_seconds / 2)
    assert int4.memory_seconds == pytest.approx(bf16.memory_seconds / 4)
    assert int4.weights_bytes == 3.5e9


def test_per_sample_models_give_predictions():
    e = estimate_inference(
        InferenceInputs(
            params=25.6e6, forward_flops=8.2e9, peak_tflops=100, bandwidth_gbs=1000, batch_size=64
        )
    )
    assert e.unit == "prediction"
    assert e.flops_per_step == pytest.approx(8.2e9 * 64)
    assert e.bound == "compute"
    assert e.latency_seconds == e.step_seconds
    assert e.predictions_per_second == pytest.approx(64 / e.step_seconds)
    assert e.tokens_per_second is None and e.cost_per_million_tokens is None
    assert e.prefill_seconds == 0


def test_cost_per_million_from_price_per_hour():
    e = estimate_inference(InferenceInputs(**SIMPLE, price=3.6, gpus=2))
    # $7.20 per hour for two devices = $0.002 per second.
    assert e.cost_per_million == pytest.approx(0.002 / e.tokens_per_second * 1e6)
    assert e.cost_per_million_tokens == e.cost_per_million
    assert "cost per million tokens" in e.formula
    assert estimate_inference(InferenceInputs(**SIMPLE)).cost_per_million is None


def test_devices_split_the_work_ideally():
    one = estimate_inference(InferenceInputs(**SIMPLE))
    four = estimate_inference(InferenceInputs(**SIMPLE, gpus=4))
    assert four.step_seconds == pytest.approx(one.step_seconds / 4)


def test_batch_sweep_matches_the_single_estimate():
    inputs = InferenceInputs(**SIMPLE, layers=32, hidden=4096, heads=32, price=2.0)
    batches = 2 ** np.arange(0, 11)
    sweep = inference_sweep_batch(inputs, batches)
    for i, b in enumerate(batches.tolist()):
        e = estimate_inference(
            InferenceInputs(
                **{**SIMPLE, "batch_size": b}, layers=32, hidden=4096, heads=32, price=2.0
            )
        )
        assert sweep.step_seconds[i] == pytest.approx(e.step_seconds, rel=1e-12)
        assert sweep.throughput_per_second[i] == pytest.approx(e.throughput_per_second)
        assert sweep.cost_per_million is not None
        assert sweep.cost_per_million[i] == pytest.approx(e.cost_per_million)
        assert bool(sweep.compute_bound[i]) == (e.bound == "compute")
    assert np.all(np.diff(sweep.throughput_per_second) >= 0)


@pytest.mark.parametrize("values", [[0], [1.5], [], [float("nan")]])
def test_sweep_rejects_invalid_batch_sizes(values):
    with pytest.raises(ValueError, match=r"^batch_size: "):
        inference_sweep_batch(InferenceInputs(**SIMPLE), values)


def test_defaults_are_stated_as_assumptions():
    e = estimate_inference(InferenceInputs(params=7e9, peak_tflops=100, bandwidth_gbs=1000))
    assert e.bandwidth_efficiency == DEFAULT_BANDWIDTH_EFFICIENCY == 0.8
    text = " | ".join(f"{a.name}: {a.value} [{a.source}]" for a in e.assumptions)
    assert "bandwidth efficiency: 80%" in text
    assert "compute utilization: 40%" in text
    assert "512 prompt + 256 output" in text
    assert "KV cache: left out" in text


# --- catalog ----------------------------------------------------------------------------------


def test_catalog_accelerator_gives_peak_and_bandwidth():
    acc = catalog.get_accelerator("h100-sxm")
    e = estimate_inference(InferenceInputs(params=7e9, accelerator="h100-sxm"))
    assert e.peak_tflops == acc.peak_tflops["bf16"]
    assert e.bandwidth_gbs == acc.memory_bandwidth_gbs
    assert e.device_memory_bytes == acc.memory_bytes
    assert e.fits is True


def test_weight_only_int4_computes_at_sixteen_bit_when_no_int4_peak():
    acc = next(
        a
        for a in catalog.accelerator_catalog().accelerators
        if "int4" not in a.peak_tflops and "bf16" in a.peak_tflops and a.memory_bandwidth_gbs
    )
    e = estimate_inference(InferenceInputs(params=7e9, accelerator=acc.id, precision="int4"))
    assert e.compute_precision == "bf16"
    assert e.peak_tflops == acc.peak_tflops["bf16"]
    assert e.weights_bytes == 3.5e9
    peak = next(a for a in e.assumptions if a.name == "peak per device")
    assert "int4" in peak.source


def test_catalog_price_fills_the_price():
    inputs = with_catalog_price(InferenceInputs(params=7e9, accelerator="h100-sxm"))
    offer = catalog.cheapest_offer("h100-sxm")
    assert offer is not None and inputs.price == offer.on_demand
    assert offer.id in inputs.price_source


# --- invalid input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params": 0}, "params"),
        ({"params": float("nan")}, "params"),
        ({"batch_size": 0}, "batch_size"),
        ({"prompt_tokens": -1}, "prompt_tokens"),
        ({"output_tokens": 0}, "output_tokens"),
        ({"precision": "fp64"}, "precision"),
        ({"utilization": 1.5}, "utilization"),
        ({"bandwidth_efficiency": 0}, "bandwidth_efficiency"),
        ({"price": -1}, "price"),
        ({"bandwidth_gbs": None}, "bandwidth_gbs"),
        ({"peak_tflops": None}, "accelerator"),
        ({"layers": 32}, "hidden"),
        ({"gpus": 0}, "gpus"),
        ({"accelerator": "nope-9000"}, "accelerator"),
    ],
)
def test_invalid_input_names_the_field(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        InferenceInputs(**{**SIMPLE, **changes})


# --- properties -------------------------------------------------------------------------------


@st.composite
def inference_inputs(draw):
    fields = {
        "params": draw(st.floats(min_value=1e3, max_value=1e13)),
        "peak_tflops": draw(st.floats(min_value=1e-2, max_value=1e4)),
        "bandwidth_gbs": draw(st.floats(min_value=1.0, max_value=1e5)),
        "precision": draw(st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"])),
        "batch_size": draw(st.integers(1, 4096)),
        "prompt_tokens": draw(st.integers(0, 100_000)),
        "output_tokens": draw(st.integers(1, 10_000)),
        "gpus": draw(st.integers(1, 64)),
        "utilization": draw(st.floats(min_value=1e-3, max_value=1.0)),
        "price": draw(st.one_of(st.none(), st.floats(min_value=1e-3, max_value=100.0))),
    }
    if draw(st.booleans()):
        heads = draw(st.integers(1, 64))
        fields.update(
            layers=draw(st.integers(1, 128)), heads=heads, hidden=heads * draw(st.integers(1, 256))
        )
    if draw(st.booleans()):
        fields["forward_flops"] = draw(st.floats(min_value=1.0, max_value=1e13))
    return InferenceInputs(**fields)


@given(inference_inputs())
def test_results_are_finite_and_non_negative(inputs):
    e = estimate_inference(inputs)
    for value in (
        e.step_seconds,
        e.latency_seconds,
        e.throughput_per_second,
        e.requests_per_second,
        e.memory_per_device_bytes,
        e.prefill_seconds,
    ):
        assert math.isfinite(value) and value >= 0
    assert e.step_seconds == max(e.compute_seconds, e.memory_seconds)
    if inputs.price is not None:
        assert e.cost_per_million is not None and math.isfinite(e.cost_per_million)


@given(inference_inputs())
def test_throughput_never_drops_with_a_bigger_batch(inputs):
    sweep = inference_sweep_batch(inputs, [1, 2, 4, 16, 64, 256, 1024])
    assert np.all(np.diff(sweep.throughput_per_second) >= -1e-9 * sweep.throughput_per_second[1:])


@given(
    st.sampled_from(["params", "batch_size", "output_tokens", "peak_tflops", "bandwidth_gbs"]),
    st.one_of(
        st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf")), st.text(max_size=3)
    ),
)
def test_invalid_numbers_always_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        InferenceInputs(**{**SIMPLE, field: value})
