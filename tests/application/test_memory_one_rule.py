"""Issue 22: `estimate memory` and `estimate train`'s plan memory are one rule.

The plan search keeps plans whose memory per GPU fits (``perf_training``'s vectorised
``training_peak``); the snapshot shows the plan's memory through ``estimate_memory``; `estimate
memory` given the same plan (TP, PP, ZeRO stage, micro-batch and micro-batches per step, the
MLP, its width and the vocabulary) prints it. All three must be the same number: a fit verdict
computed by one rule and shown by another says "fits" for runs that do not.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktopapp.application.snapshot import WorkloadRequest, compute_snapshot
from desktopapp.model.memory import MemoryInputs, estimate_memory
from desktopapp.model.presets import get_preset
from desktopapp.model.validation import InputError
from tests.application.cli_run import cli_json


def _compute(preset: str, gpus: int, options: dict):
    p = get_preset(preset)
    request = WorkloadRequest(
        training=p.to_training_inputs(gpus=gpus),
        memory=p.to_memory_inputs(),
        preset_id=preset,
        run_options=WorkloadRequest.options(options),
    )
    return compute_snapshot(request)


def _snapshot(preset: str, gpus: int, options: dict) -> tuple:
    snap = _compute(preset, gpus, options)
    assert snap.training is not None, snap.errors
    run = snap.training.modelled.run
    assert run is not None, snap.training.modelled.reason
    assert snap.memory is not None and snap.memory_for_plan
    return run, snap.memory


CASES = [
    ("llm-7b", 8, {}),  # ZeRO-1 with gradient accumulation (128 micro-batches)
    ("llm-7b", 8, {"micro_batch": 4, "tp": 1, "pp": 1}),  # partial recompute chosen
    ("llm-7b", 16, {"tp": 2, "pp": 2}),
    ("llm-7b", 8, {"ffn_hidden": 14336, "vocab": 128256}),
    ("llm-7b", 8, {"mlp": "gelu"}),
    ("foundation-175b", 256, {}),  # TP × PP plan: 1F1B keeps PP micro-batches
    ("foundation-175b", 1024, {}),
]


@pytest.mark.parametrize(("preset", "gpus", "options"), CASES)
def test_the_shown_memory_is_the_memory_the_plan_was_chosen_by(preset, gpus, options):
    run, memory = _snapshot(preset, gpus, options)
    assert memory.per_device_bytes == pytest.approx(run.plan.memory_bytes, rel=1e-9)
    assert memory.inputs.tp == run.plan.tp and memory.inputs.pp == run.plan.pp


def test_a_mixture_of_experts_plan_shows_its_own_memory():
    run, memory = _snapshot("llm-7b", 64, {"active_params": 2e9, "moe_top_k": 2})
    assert run.plan.expert_parallel > 1
    assert memory.per_device_bytes == pytest.approx(run.plan.memory_bytes, rel=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(["llm-7b", "foundation-175b"]),
    gpus=st.sampled_from([16, 32, 64, 128, 512]),
    seq=st.sampled_from([1024, 2048, 4096, 8192]),
    vocab=st.sampled_from([None, 32000, 50257, 128256]),
    mlp=st.sampled_from([None, "gelu", "swiglu"]),
)
def test_plan_and_shown_memory_agree_for_any_run(preset, gpus, seq, vocab, mlp):
    snap = _compute(preset, gpus, {"seq_len": seq, "vocab": vocab, "mlp": mlp})
    run = None if snap.training is None else snap.training.modelled.run
    if run is None:  # no plan of this many GPUs fits: refused, nothing shown
        assert snap.memory is None or not snap.memory_for_plan
        return
    assert snap.memory is not None
    assert snap.memory.per_device_bytes == pytest.approx(run.plan.memory_bytes, rel=1e-9)


def _memory_argv(plan: dict, accelerator: str) -> list[str]:
    argv = [
        "--gpus",
        str(plan["tp"] * plan["pp"] * plan["cp"] * plan["dp"]),
        "--tp",
        str(plan["tp"]),
        "--pp",
        str(plan["pp"]),
        "--cp",
        str(plan["cp"]),
        "--zero-stage",
        str(plan["zero_stage"]),
        "--batch-size",
        str(plan["micro_batch"]),
        "--micro-batches",
        str(round(plan["micro_batches_per_step"])),
        "--accelerator",
        accelerator,
    ]
    argv.append("--checkpointing" if plan["recompute"] == "full" else "--no-checkpointing")
    return argv


@pytest.mark.parametrize(
    ("preset", "gpus", "extra"),
    [
        ("llm-7b", 8, []),
        ("llm-7b", 16, ["--tp", "2", "--pp", "2"]),
        ("llm-7b", 8, ["--vocab", "128256", "--ffn-hidden", "14336", "--mlp", "swiglu"]),
        ("foundation-175b", 256, []),
    ],
)
def test_estimate_memory_prints_estimate_trains_plan_memory(capsys, preset, gpus, extra):
    train = cli_json(
        capsys, ["estimate", "train", "--preset", preset, "--gpus", str(gpus), *extra, "--json"]
    )
    plan = train["parallel_plan"]
    assert plan["recompute"] in ("none", "full"), plan  # partial recompute: no CLI option
    shape = [a for a in extra if a not in ("--tp", "--pp", "2")]
    memory = cli_json(
        capsys,
        [
            "estimate",
            "memory",
            "--preset",
            preset,
            *shape,
            *_memory_argv(plan, train["accelerator"]),
            "--json",
        ],
    )
    assert memory["per_device_bytes"] == pytest.approx(plan["memory_per_gpu_bytes"], rel=1e-6)
    assert train["memory"]["per_device_bytes"] == pytest.approx(
        plan["memory_per_gpu_bytes"], rel=1e-6
    )


def test_tensor_and_pipeline_parallel_split_weights_and_activations():
    base = dict(params=7e9, layers=32, hidden=4096, heads=32, seq_len=4096, zero_stage=1)
    alone = estimate_memory(MemoryInputs(**base, gpus=8))
    split = estimate_memory(MemoryInputs(**base, gpus=8, tp=2, pp=2))
    assert split.per_device_weights_bytes == pytest.approx(alone.per_device_weights_bytes / 4)
    # TP splits a micro-batch's activations; the first of PP stages keeps PP micro-batches of
    # its L/PP layers in flight (1F1B): all L layers' worth
    assert split.per_device_activations_bytes == pytest.approx(
        alone.per_device_activations_bytes / 2
    )
    interleaved = estimate_memory(MemoryInputs(**base, gpus=8, tp=2, pp=2, virtual_stages=2))
    layers_only = split.per_device_activations_bytes - split.logits_bytes
    assert interleaved.logits_bytes == pytest.approx(split.logits_bytes)  # the output side once
    assert interleaved.per_device_activations_bytes - interleaved.logits_bytes == pytest.approx(
        layers_only * 1.25  # 1 + (PP - 1) / (PP · V) = 1 + 1/4
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"gpus": 6, "tp": 4}, "gpus"),
        ({"gpus": 8, "pp": 0}, "pp"),
        ({"gpus": 8, "virtual_stages": 2}, "virtual_stages"),
        ({"mode": "inference", "tp": 2, "gpus": 2}, "tp"),
        ({"gpus": 8, "recompute": 1.5}, "recompute"),
    ],
)
def test_a_plan_that_cannot_be_is_refused_naming_its_field(changes, field):
    with pytest.raises(InputError) as err:
        MemoryInputs(params=7e9, **changes)
    assert err.value.field == field


def test_the_cli_names_the_gpu_count_that_does_not_divide(capsys):
    from desktopapp.cli import run_command

    status = run_command(["estimate", "memory", "--params", "7B", "--gpus", "6", "--tp", "4"])
    err = capsys.readouterr().err
    assert status != 0
    assert "--gpus" in err and "TP × PP × CP = 4" in err
    assert "Traceback" not in err
