"""Memory as measured (issue 22): per-term byte counts, the H200 rows, one rule for
``estimate memory`` and the training plan."""

from __future__ import annotations

import json

import pytest

from desktopapp.model import memory as m
from desktopapp.model import perf_training as pt
from desktopapp.model import units
from desktopapp.resources import resource_path


def _rows() -> list[dict]:
    with resource_path("measured_memory.json").open(encoding="utf-8") as handle:
        return json.load(handle)["measurements"]


def _params(r: dict) -> float:
    h, f, v, layers = r["hidden"], r["ffn_hidden"], r["vocab"], r["layers"]
    return layers * (4 * h * h + 3 * h * f + 2 * h) + 2 * v * h + h


def _inputs(r: dict, **kw) -> m.MemoryInputs:
    return m.MemoryInputs(
        params=_params(r),
        layers=r["layers"],
        hidden=r["hidden"],
        heads=r["heads"],
        kv_heads=r["kv_heads"],
        seq_len=r["seq_len"],
        ffn_hidden=r["ffn_hidden"],
        vocab=r["vocab"],
        mlp=r["mlp"],
        batch_size=r["micro_batch"],
        **kw,
    )


def test_the_h200_rows_are_in_resources_with_source_and_date():
    rows = _rows()
    assert [r["micro_batch"] for r in rows] == [1, 2, 4, 8]
    assert all(r["source"] and r["source_date"] == "2026-11-27" for r in rows)
    assert _params(rows[0]) == pytest.approx(1.364e9, rel=1e-3)


@pytest.mark.parametrize("index", range(4))
def test_h200_training_step_peaks_within_0_95_to_1_15(index):
    r = _rows()[index]
    e = m.estimate_memory(_inputs(r))
    ratio = e.per_device_bytes / (r["peak_allocated_gib"] * units.GIB)
    assert 0.95 <= ratio <= 1.15, ratio
    assert e.peak_phase == "backward"


def test_h200_slope_and_intercept_separately():
    rows = _rows()
    raw = [
        (lambda e: e.per_device_bytes - e.overhead_bytes - e.fragmentation_bytes)(
            m.estimate_memory(_inputs(r))
        )
        / units.GIB
        for r in rows
    ]
    meas = [r["peak_allocated_gib"] for r in rows]
    slope_p = (raw[-1] - raw[0]) / 7.0
    slope_m = (meas[-1] - meas[0]) / 7.0
    assert slope_m == pytest.approx(5.0, abs=0.05)
    assert 0.95 <= slope_p / slope_m <= 1.08  # per extra 2,048-token sequence
    icpt_p, icpt_m = raw[0] - slope_p, meas[0] - slope_m
    assert 0.95 <= icpt_p / icpt_m <= 1.05  # weights, master copy, states, autocast copies


def test_the_old_gelu_rule_would_miss_the_slope():
    r = _rows()[3]
    gelu = m.estimate_memory(_inputs(r | {"mlp": "gelu", "ffn_hidden": 4 * r["hidden"]}))
    swiglu = m.estimate_memory(_inputs(r))
    assert gelu.activations_bytes < swiglu.activations_bytes


def test_per_token_terms_by_hand():
    tiny = dict(hidden=8, heads=2, kv_heads=1, seq_len=4, ffn_hidden=16, vocab=10)
    t = m.activation_terms(**tiny, mlp="swiglu", precision="mixed", flash_attention=True)
    assert t.norms == 2 * (4 * 8 + 4)  # fp32 input + 1/rms, two norms
    # input, q, k (4 wide), QKV buffer (8 + 2·4), output; lse 4 B per head
    assert t.attention == 2 * (8 + 8 + 4 + 16 + 8) + 4 * 2
    assert t.mlp == 2 * 8 + 4 * 2 * 16
    assert t.output == 4 * 8 + 2 * 8 + 2 * 10 + 12 * 10
    gelu = m.activation_terms(**tiny, mlp="gelu", precision="mixed", flash_attention=True)
    assert gelu.mlp == 2 * 8 + 2 * 2 * 16
    eager = m.activation_terms(**tiny, mlp="swiglu", precision="mixed", flash_attention=False)
    assert eager.attention - t.attention == (4 + 2) * 2 * 4  # fp32 softmax + 16-bit copy


def test_flash_is_the_default_and_defaults_follow_the_shape():
    i = m.MemoryInputs(params=7e9, layers=32, hidden=4096, heads=32, seq_len=4096)
    assert i.flash_attention is True
    assert i.resolved_ffn_hidden == 11008  # Llama 2 7B
    bert = m.MemoryInputs(params=1e8, layers=12, hidden=768, heads=12, seq_len=512, mlp="gelu")
    assert bert.resolved_ffn_hidden == 3072


def test_gradient_accumulation_keeps_gradients_at_the_backward_peak():
    base = dict(params=1e9, layers=16, hidden=2048, heads=16, seq_len=2048)
    one = m.estimate_memory(m.MemoryInputs(**base))
    acc = m.estimate_memory(m.MemoryInputs(**base, micro_batches=4))
    assert acc.per_device_bytes - one.per_device_bytes == pytest.approx(2e9 * 1.05)


@pytest.mark.parametrize(("b", "gpus", "zero"), [(1, 1, 3), (8, 1, 3), (2, 8, 3), (2, 8, 1)])
def test_estimate_memory_equals_the_training_plan_memory(b, gpus, zero):
    r = _rows()[0]
    n = _params(r)
    run = pt.estimate_run(
        pt.RunInputs(
            params=n,
            tokens=1e9,
            accelerator="h200-sxm",
            gpus=gpus,
            seq_len=2048,
            layers=24,
            hidden=2048,
            heads=16,
            vocab=32000,
            micro_batch=b,
            dp=gpus,
            tp=1,
            zero_stage=zero,
            global_batch_tokens=b * 2048 * gpus,
        )
    )
    est = m.estimate_memory(
        m.MemoryInputs(
            params=n,
            layers=24,
            hidden=2048,
            heads=16,
            seq_len=2048,
            vocab=32000,
            batch_size=b,
            gpus=gpus,
            zero_stage=zero,
            accelerator="h200-sxm",
        )
    )
    assert run.plan.memory_bytes == pytest.approx(est.per_device_bytes, rel=1e-9)


@pytest.mark.parametrize(("field", "value"), [("mlp", "relu"), ("vocab", 0), ("ffn_hidden", -1)])
def test_bad_new_fields_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        m.MemoryInputs(params=1e9, **{field: value})


def test_sharded_training_runs_a_bf16_model():
    """ZeRO ≥ 1 over several GPUs (Megatron distributed optimizer, FSDP param_dtype=bf16) keeps
    a 16-bit residual stream; one GPU with autocast keeps it in fp32."""
    base = dict(params=7e9, layers=32, hidden=4096, heads=32, seq_len=4096)
    one = m.estimate_memory(m.MemoryInputs(**base))
    sharded = m.estimate_memory(m.MemoryInputs(**base, gpus=8, zero_stage=1))
    ddp = m.estimate_memory(m.MemoryInputs(**base, gpus=8, zero_stage=0))
    assert sharded.activations_bytes < one.activations_bytes == ddp.activations_bytes


def test_cli_estimate_memory_and_estimate_train_agree(capsys):
    from desktopapp.cli import run_command

    shape = ["--params", "1.364B", "--layers", "24", "--hidden", "2048", "--heads", "16",
             "--seq-len", "2048"]  # fmt: skip
    assert run_command(["estimate", "memory", *shape, "--batch-size", "8", "--json"]) == 0
    memory = json.loads(capsys.readouterr().out)
    train = ["estimate", "train", *shape, "--tokens", "1B", "--accelerator", "h200-sxm",
             "--micro-batch", "8", "--global-batch-tokens", "16384", "--json"]  # fmt: skip
    assert run_command(train) == 0
    plan = json.loads(capsys.readouterr().out)["parallel_plan"]
    assert plan["memory_per_gpu_bytes"] == pytest.approx(memory["per_device_bytes"], rel=1e-9)
    # the measured H200 peak at micro-batch 8 was 57.78 GiB: within 0.95-1.15×
    assert 0.95 <= memory["per_device_bytes"] / (57.78 * units.GIB) <= 1.15
