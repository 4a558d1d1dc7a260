"""Memory per device: bytes per parameter, activations, KV cache, ZeRO, fit and suggestions."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model import catalog, units
from desktopapp.model.memory import (
    ADAM8BIT_BLOCK,
    MemoryInputs,
    bytes_per_param,
    estimate_memory,
    kv_cache_bytes,
    transformer_activation_bytes,
)

LLAMA7B: dict[str, Any] = {"layers": 32, "hidden": 4096, "heads": 32, "seq_len": 4096}


@pytest.mark.parametrize(
    ("precision", "optimizer", "total"),
    [
        ("mixed", "adamw", 16.0),  # 2 weights + 2 grads + 4 master + 4 + 4 moments
        ("fp32", "adamw", 16.0),
        ("bf16", "adamw", 8.0),
        ("fp16", "adamw", 8.0),
        ("mixed", "sgd", 12.0),
        ("fp32", "sgd", 12.0),
        ("bf16", "sgd", 6.0),
        ("mixed", "adam8bit", 10.0 + 8.0 / ADAM8BIT_BLOCK),
        ("bf16", "adam8bit", 6.0 + 8.0 / ADAM8BIT_BLOCK),
    ],
)
def test_bytes_per_parameter(precision, optimizer, total):
    assert bytes_per_param(precision, optimizer).total == pytest.approx(total)


def test_mixed_adamw_breakdown_is_the_standard_sixteen_bytes():
    b = bytes_per_param("mixed", "adamw")
    assert (b.weights, b.gradients, b.master, b.optimizer_states) == (2, 2, 4, 8)
    e = estimate_memory(MemoryInputs(params=1e9))
    assert e.weights_bytes == 2e9
    assert e.gradients_bytes == 2e9
    assert e.optimizer_bytes == 12e9
    assert e.master_weights_bytes == 4e9
    assert e.overhead_bytes == units.GIB
    assert e.fragmentation_bytes == pytest.approx(0.05 * 16e9)  # allocator allowance
    assert e.total_bytes == pytest.approx(16e9 * 1.05 + units.GIB)


def test_korthikanti_activation_formula_by_hand():
    # s=2, b=3, h=4, a=2: s·b·h = 24; 34 + 5·a·s/h = 39 → 936 bytes per layer.
    assert transformer_activation_bytes(5, 4, 2, 2, 3) == 5 * 936
    # Checkpointing keeps 2·s·b·h per layer plus one layer's full set.
    assert transformer_activation_bytes(5, 4, 2, 2, 3, checkpointing=True) == 5 * 48 + 936
    # FlashAttention drops the attention-score term.
    assert transformer_activation_bytes(5, 4, 2, 2, 3, flash_attention=True) == 5 * 24 * 34
    assert transformer_activation_bytes(5, 4, 2, 2, 3, bytes_scale=2.0) == 2 * 5 * 936


def test_activations_scale_with_micro_batch_and_width_follows_precision():
    one = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, batch_size=1))
    four = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, batch_size=4))
    assert four.activations_bytes == pytest.approx(4 * one.activations_bytes)
    fp32 = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, precision="fp32"))
    bf16 = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, precision="bf16"))
    # autocast keeps the residual stream in fp32: between pure 16-bit and fp32
    assert bf16.activations_bytes < one.activations_bytes < fp32.activations_bytes
    ckpt = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, checkpointing=True))
    assert ckpt.activations_bytes < one.activations_bytes


def test_kv_cache_of_a_llama_7b_sequence():
    # 2 × 32 layers × 32 heads × 128 head_dim × 4096 tokens × 2 bytes = 2 GiB
    assert kv_cache_bytes(32, 32, 128, 4096, 1, 2.0) == 2 * units.GIB
    e = estimate_memory(MemoryInputs(params=7e9, mode="inference", **LLAMA7B, batch_size=1))
    assert e.kv_cache_bytes == 2 * units.GIB
    assert e.weights_bytes == 14e9
    assert e.gradients_bytes == 0 and e.optimizer_bytes == 0 and e.activations_bytes == 0
    gqa = estimate_memory(
        MemoryInputs(params=7e9, mode="inference", **LLAMA7B, kv_heads=8, batch_size=1)
    )
    assert gqa.kv_cache_bytes == pytest.approx(e.kv_cache_bytes / 4)


@pytest.mark.parametrize(("precision", "per_param"), [("int4", 0.5), ("int8", 1.0), ("fp32", 4.0)])
def test_inference_weights_follow_the_precision(precision, per_param):
    e = estimate_memory(MemoryInputs(params=1e9, mode="inference", precision=precision))
    assert e.weights_bytes == per_param * 1e9


def test_zero_stages_shard_optimizer_then_gradients_then_weights():
    base = {"params": 8e9, "gpus": 8, **LLAMA7B}
    z = [estimate_memory(MemoryInputs(**base, zero_stage=s)) for s in range(4)]
    full = z[0]
    assert full.per_device_optimizer_bytes == full.optimizer_bytes
    assert z[1].per_device_optimizer_bytes == pytest.approx(full.optimizer_bytes / 8)
    assert z[1].per_device_gradients_bytes == full.gradients_bytes
    assert z[2].per_device_gradients_bytes == pytest.approx(full.gradients_bytes / 8)
    assert z[2].per_device_weights_bytes == full.weights_bytes
    assert z[3].per_device_weights_bytes == pytest.approx(full.weights_bytes / 8)
    # activations are per device, never sharded; with ZeRO ≥ 1 over several devices the model
    # runs in bf16 (Megatron distributed optimizer / FSDP), so the residual stream is 16-bit
    assert z[1].activations_bytes < full.activations_bytes
    for e in z:
        same = full if e.inputs.zero_stage == 0 else z[1]
        assert e.per_device_activations_bytes == same.activations_bytes
        # backward peak: weights + optimizer (+ ZeRO-3's layers in flight) + activations,
        # no gradients (a plain step allocates them during backward), × allocator allowance
        backward = (
            e.per_device_weights_bytes
            + e.per_device_optimizer_bytes
            + e.gathered_bytes
            + e.per_device_activations_bytes
        )
        assert e.peak_phase == "backward"
        assert e.per_device_bytes == pytest.approx(backward * 1.05 + e.overhead_bytes)
    assert [e.per_device_bytes for e in z] == sorted((e.per_device_bytes for e in z), reverse=True)


def test_inference_splits_weights_and_kv_over_devices():
    one = estimate_memory(MemoryInputs(params=70e9, mode="inference", **LLAMA7B, batch_size=4))
    four = estimate_memory(
        MemoryInputs(params=70e9, mode="inference", **LLAMA7B, batch_size=4, gpus=4)
    )
    assert four.per_device_bytes - four.overhead_bytes == pytest.approx(
        (one.per_device_bytes - one.overhead_bytes) / 4
    )


def test_fit_and_headroom_against_given_memory():
    e = estimate_memory(MemoryInputs(params=1e9, memory_gb=80))
    assert e.device_memory_bytes == 80 * units.GIB
    assert e.fits is True
    assert e.headroom_bytes == pytest.approx(80 * units.GIB - e.per_device_bytes)
    assert e.headroom_fraction == pytest.approx(e.headroom_bytes / (80 * units.GIB))
    assert e.suggestions == ()
    unknown = estimate_memory(MemoryInputs(params=1e9))
    assert unknown.fits is None and unknown.headroom_bytes is None
    assert unknown.to_dict()["fits"] is None


def test_fit_against_a_catalog_accelerator():
    acc = catalog.get_accelerator("h100-sxm")
    e = estimate_memory(MemoryInputs(params=7e9, accelerator="h100-sxm"))
    assert e.device_memory_bytes == acc.memory_bytes
    assert e.accelerator_name == acc.name
    assert e.fits is False  # 16 B × 7B = 112 GB of state


def test_suggestions_are_recomputed_and_each_helps():
    inputs = MemoryInputs(params=7e9, **LLAMA7B, batch_size=8, gpus=8, memory_gb=80)
    e = estimate_memory(inputs)
    assert e.fits is False
    kinds = {s.kind for s in e.suggestions}
    assert {"zero_stage", "checkpointing", "batch_size", "precision", "gpus"} <= kinds
    for s in e.suggestions:
        again = estimate_memory(dataclasses.replace(inputs, **s.changes))
        assert again.per_device_bytes == pytest.approx(s.per_device_bytes)
        assert s.per_device_bytes < e.per_device_bytes
        assert s.saving_bytes == pytest.approx(e.per_device_bytes - s.per_device_bytes)
        assert s.fits == again.fits
        assert s.description


def test_suggestion_picks_the_smallest_change_that_fits():
    # Mixed AdamW, 7B, ZeRO-0 on 8 × 80 GiB: ZeRO-1 (optimizer / 8) is enough.
    inputs = MemoryInputs(params=7e9, gpus=8, memory_gb=80)
    e = estimate_memory(inputs)
    zero = next(s for s in e.suggestions if s.kind == "zero_stage")
    assert dict(zero.changes) == {"zero_stage": 1, "gpus": 8}
    assert zero.fits is True
    # Batch only helps when there are activations; none without the shape.
    assert all(s.kind != "batch_size" for s in e.suggestions)


def test_a_suggested_device_count_has_thousands_separators():
    e = estimate_memory(MemoryInputs(params=10e12, gpus=8, memory_gb=80))
    texts = [s.description for s in e.suggestions if s.kind == "gpus"]
    assert texts and any("2,048 devices" in t for t in texts), texts
    assert not any("2048" in t for t in texts)


def test_no_suggestion_that_does_not_help():
    # Single device, no shape, ZeRO-0: sharding needs more devices; 8-bit Adam and pure bf16
    # help; checkpointing has nothing to act on.
    e = estimate_memory(MemoryInputs(params=70e9, memory_gb=24))
    kinds = [s.kind for s in e.suggestions]
    assert "checkpointing" not in kinds and "zero_stage" not in kinds
    assert "gpus" in kinds
    gpus = next(s for s in e.suggestions if s.kind == "gpus")
    assert gpus.changes["zero_stage"] == 3


def test_formula_and_assumptions_are_filled_in():
    e = estimate_memory(MemoryInputs(params=7e9, **LLAMA7B, zero_stage=3, gpus=8))
    assert "ZeRO-3" in e.formula and "N=8" in e.formula
    assert "swiglu MLP" in e.formula and "vocab 32,000" in e.formula
    sources = " ".join(a.source for a in e.assumptions)
    assert "saved tensors" in sources and "Llama 2 tokenizer" in sources
    overhead = next(a for a in e.assumptions if "overhead" in a.name)
    assert "1.00 GiB" in overhead.value and "CUDA context" in overhead.source


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params": 0}, "params"),
        ({"params": float("nan")}, "params"),
        ({"mode": "serve"}, "mode"),
        ({"precision": "int4"}, "precision"),  # not for training
        ({"optimizer": "lion"}, "optimizer"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"zero_stage": -1}, "zero_stage"),
        ({"gpus": 0}, "gpus"),
        ({"batch_size": 0}, "batch_size"),
        ({"layers": 32}, "hidden"),  # partial shape names the first missing field
        ({"layers": 2, "hidden": 10, "heads": 3, "seq_len": 8}, "hidden"),
        ({**LLAMA7B, "kv_heads": 5}, "kv_heads"),
        ({"memory_gb": -1}, "memory_gb"),
        ({"overhead_gib": -1}, "overhead_gib"),
        ({"checkpointing": "yes"}, "checkpointing"),
        ({"accelerator": "h10"}, "accelerator"),
    ],
)
def test_invalid_input_names_the_field(changes, field):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        MemoryInputs(**{"params": 7e9, **changes})


# --- properties -------------------------------------------------------------------------------


@st.composite
def memory_inputs(draw, mode=None):
    heads = draw(st.integers(1, 64))
    shape = draw(st.booleans())
    fields = {
        "params": draw(st.floats(min_value=1.0, max_value=1e13)),
        "mode": mode or draw(st.sampled_from(["train", "inference"])),
        "batch_size": draw(st.integers(1, 512)),
        "gpus": draw(st.integers(1, 4096)),
        "checkpointing": draw(st.booleans()),
        "flash_attention": draw(st.booleans()),
        "optimizer": draw(st.sampled_from(["adamw", "sgd", "adam8bit"])),
        "overhead_gib": draw(st.floats(min_value=0.0, max_value=4.0)),
        "memory_gb": draw(st.one_of(st.none(), st.floats(min_value=1.0, max_value=256.0))),
    }
    if fields["mode"] == "train":
        fields["precision"] = draw(st.sampled_from(["fp32", "mixed", "bf16", "fp16"]))
        fields["zero_stage"] = draw(st.integers(0, 3))
    else:
        fields["precision"] = draw(st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"]))
    if shape:
        fields.update(
            layers=draw(st.integers(1, 128)),
            heads=heads,
            hidden=heads * draw(st.integers(1, 256)),
            seq_len=draw(st.integers(1, 32768)),
        )
    return MemoryInputs(**fields)


@given(memory_inputs())
def test_results_are_finite_and_non_negative(inputs):
    e = estimate_memory(inputs)
    d = e.to_dict()
    for key in (
        "weights_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "activations_bytes",
        "kv_cache_bytes",
        "overhead_bytes",
        "total_bytes",
        "per_device_bytes",
    ):
        assert math.isfinite(d[key]) and d[key] >= 0, key
    assert e.per_device_bytes <= e.total_bytes * (1 + 1e-12)
    for s in e.suggestions:
        assert s.per_device_bytes < e.per_device_bytes


@given(memory_inputs(mode="train"), st.integers(0, 3), st.integers(0, 3))
def test_more_zero_sharding_never_grows_memory_per_device(inputs, s1, s2):
    low, high = sorted((s1, s2))
    a = estimate_memory(dataclasses.replace(inputs, zero_stage=low))
    b = estimate_memory(dataclasses.replace(inputs, zero_stage=high))
    assert b.per_device_bytes <= a.per_device_bytes


@given(memory_inputs(), st.integers(1, 4096), st.integers(1, 4096))
def test_more_devices_never_grow_memory_per_device(inputs, g1, g2):
    low, high = sorted((g1, g2))
    a = estimate_memory(dataclasses.replace(inputs, gpus=low))
    b = estimate_memory(dataclasses.replace(inputs, gpus=high))
    assert b.per_device_bytes <= a.per_device_bytes * (1 + 1e-12)


@given(
    st.sampled_from(["params", "batch_size", "gpus", "layers", "memory_gb"]),
    st.one_of(
        st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf")), st.text(max_size=3)
    ),
)
def test_invalid_numbers_always_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"^{field}: "):
        MemoryInputs(**{"params": 7e9, **LLAMA7B, field: value})


def test_a_partial_shape_is_refused_in_the_users_words():
    """The refusal named internal fields ("needs layers, hidden, heads and seq_len")."""
    from desktopapp.model.memory import MemoryInputs
    from desktopapp.model.validation import InputError

    with pytest.raises(InputError) as raised:
        MemoryInputs(params=7e9, layers=32, seq_len=2048)
    text = str(raised.value)
    assert "needs layers, hidden size, attention heads and sequence length together" in text
    assert text.endswith("(given: layers, sequence length)") and "seq_len" not in text
    with pytest.raises(InputError) as raised:
        MemoryInputs(params=7e9, kv_heads=8)
    assert "seq_len" not in str(raised.value)
