"""Modelled training estimates (issue 13): plan, breakdown, scaling, properties, interconnect."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktopapp.model.interconnect import (
    bus_bandwidth,
    bus_factor,
    collective_seconds,
    interconnect_for,
)
from desktopapp.model.perf_training import (
    BREAKDOWN_PARTS,
    PlanError,
    RunInputs,
    _problem,
    estimate_run,
    knee_sentence,
    predicted_mfu,
    scaling_sweep,
)
from tests.model.perf_cases import SEVEN_B, SEVENTY_B_SHAPE

REPO = Path(__file__).resolve().parents[2]


def test_bus_bandwidth_factors_follow_nccl_tests():
    assert bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert bus_factor("all_gather", 8) == pytest.approx(7 / 8)
    assert bus_factor("reduce_scatter", 4) == pytest.approx(3 / 4)
    assert bus_factor("broadcast", 8) == 1.0
    t = collective_seconds("all_reduce", 1e9, 8, 100e9, 0.0, 1.0)
    assert t == pytest.approx(1e9 * 1.75 / 100e9)
    assert bus_bandwidth("all_reduce", 1e9, 8, t) == pytest.approx(100e9)
    assert collective_seconds("all_reduce", 1e9, 1, 100e9, 1e-5) == 0.0
    with pytest.raises(ValueError, match=r"^collective"):
        collective_seconds("gossip", 1, 2, 1.0)


def test_interconnect_catalog_domains_and_sources():
    assert interconnect_for("h100").scale_up_domain == 8
    assert interconnect_for("gb200").scale_up_domain == 72
    assert interconnect_for("l40s").scale_up_domain == 1
    h100 = interconnect_for("h100-sxm")
    assert h100.scale_up_bandwidth == pytest.approx(450e9)  # 900 GB/s bidirectional / 2
    assert 0.7 <= h100.achieved_fraction <= 0.85
    doc = json.loads((REPO / "resources" / "interconnect.json").read_text(encoding="utf-8"))
    for row in doc["interconnects"]:
        assert row["source"] and row["date"], row["accelerator_id"]


def test_estimate_has_breakdown_plan_and_range():
    e = estimate_run(RunInputs(**SEVEN_B, gpus=64))
    assert e.breakdown.total == pytest.approx(e.step_seconds)
    assert set(e.breakdown.to_dict()) == set(BREAKDOWN_PARTS)
    assert 0.05 < e.mfu < 0.8 and e.hfu >= e.mfu
    assert e.gpu_hours_low < e.gpu_hours < e.gpu_hours_high
    assert e.plan.tp * e.plan.pp * e.plan.dp * e.plan.cp == 64
    assert e.plan.memory_bytes <= e.plan.memory_capacity_bytes
    d = e.to_dict()
    for key in (
        "mfu",
        "hfu",
        "step_seconds",
        "step_breakdown",
        "parallel_plan",
        "gpu_hours_low",
        "gpu_hours_high",
    ):
        assert key in d
    assert {"tp", "pp", "dp", "micro_batch"} <= d["parallel_plan"].keys()


def test_more_gpus_past_the_knee_cost_more_gpu_hours():
    e64 = estimate_run(RunInputs(**SEVEN_B, gpus=64))
    e4096 = estimate_run(RunInputs(**SEVEN_B, gpus=4096))
    assert e4096.gpu_hours > e64.gpu_hours
    assert e4096.training_seconds < e64.training_seconds
    sweep = scaling_sweep(RunInputs(**SEVEN_B, gpus=64))
    assert sweep.gpus.shape == (4096,)
    assert sweep.gpu_hours[4095] > sweep.gpu_hours[63]
    assert "doubling" in sweep.knee_text
    # the sweep agrees with the single estimate at the same count
    assert sweep.training_hours[63] == pytest.approx(e64.training_hours, rel=1e-9)


def test_knee_sentence_names_the_first_doubling_that_stops_paying():
    gpus = np.arange(1, 65, dtype=float)
    hours = 1000.0 / np.minimum(gpus, 16.0) ** 0.9 * np.maximum(1.0, gpus / 16.0) ** 0.6
    knee, text = knee_sentence(gpus, hours, hours * gpus)
    assert knee == 16.0
    assert text.startswith("past 16 GPUs each doubling saves")
    assert "more GPU-hours" in text


def _knee_by_dicts(gpus, hours, gpu_hours, time_saving=0.30):
    """The rule of knee_sentence written the plain way (a dict of every count)."""
    doublings = [2**i for i in range(0, 31) if 2 ** (i + 1) <= gpus[-1]]
    at = {int(g): float(h) for g, h in zip(gpus, hours, strict=True)}
    for g in doublings:
        finite = all(np.isfinite(at.get(x, np.nan)) for x in (g, 2 * g))
        if finite and 1.0 - at[2 * g] / at[g] < time_saving:
            return float(g)
    return None


@settings(max_examples=80, deadline=None)
@given(
    extra=st.lists(st.integers(1, 300), max_size=40),
    dropped=st.sets(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256])),
    data=st.data(),
)
def test_knee_sentence_reads_the_powers_of_two_wherever_they_are(extra, dropped, data):
    # GPU counts in any order, with gaps (NaN) and some powers of two missing: the knee is the
    # one the plain rule finds
    powers = {1, 2, 4, 8, 16, 32, 64, 128, 256} - dropped
    counts = data.draw(st.permutations(sorted(powers | set(extra))))
    if not counts:
        return
    gpus = np.asarray(counts, dtype=float)
    value = st.floats(0.1, 1e4) | st.just(np.nan)
    hours = np.asarray(data.draw(st.lists(value, min_size=len(counts), max_size=len(counts))))
    knee, text = knee_sentence(gpus, hours, hours * gpus)
    assert knee == _knee_by_dicts(gpus, hours, hours * gpus)
    assert text


def test_no_shape_falls_back_to_6nd_and_says_so():
    e = estimate_run(RunInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=8))
    assert e.model_flops == pytest.approx(6 * 7e9 * 1e12)
    assert "6·N" in e.flops_rule
    assert any("no shape" in w for w in e.warnings)


def test_moe_compute_uses_active_and_memory_total():
    dense = estimate_run(RunInputs(params=47e9, tokens=1e12, accelerator="h100-sxm", gpus=64))
    moe = estimate_run(
        RunInputs(params=47e9, active_params=13e9, tokens=1e12, accelerator="h100-sxm", gpus=64)
    )
    assert moe.model_flops == pytest.approx(6 * 13e9 * 1e12)
    assert moe.gpu_hours < dense.gpu_hours
    assert moe.plan.memory_bytes > 47e9 * 16 / 64 / 8  # total params held somewhere


def test_fp8_reaches_a_small_share_of_the_fp8_peak():
    bf16 = estimate_run(RunInputs(**SEVEN_B, gpus=64))
    fp8 = estimate_run(RunInputs(**SEVEN_B, gpus=64, precision="fp8"))
    assert fp8.step_seconds < bf16.step_seconds  # faster ...
    assert fp8.step_seconds > bf16.step_seconds / 2  # ... but far from twice as fast
    assert fp8.mfu < bf16.mfu  # MFU against the fp8 peak is lower


def test_utilization_override_restores_the_flat_rule():
    e = estimate_run(RunInputs(**SEVEN_B, gpus=64, utilization=0.4, goodput=1.0))
    flops = e.model_flops
    assert e.mfu == 0.4
    assert e.training_seconds == pytest.approx(flops / (989.4e12 * 0.4 * 64), rel=1e-9)


def test_user_plan_is_used_as_given():
    e = estimate_run(RunInputs(**SEVEN_B, gpus=64, tp=2, pp=2, dp=16, micro_batch=1))
    assert (e.plan.tp, e.plan.pp, e.plan.dp, e.plan.micro_batch) == (2, 2, 16, 1)
    assert "given" in e.plan_reason


@pytest.mark.parametrize(
    ("plan", "field"),
    [
        (dict(tp=16, pp=1, dp=4), "tp"),  # beyond the 8-GPU NVLink domain
        (dict(tp=2, pp=2, dp=8), "dp"),  # 32 ≠ 64 GPUs
        (dict(tp=1, pp=1, dp=64, micro_batch=64), "dp"),  # more sequences than the batch
    ],
)
def test_user_plan_is_refused_with_a_reason(plan, field):
    with pytest.raises(PlanError, match=rf"^{field}: "):
        estimate_run(RunInputs(**SEVEN_B, gpus=64, **plan))


def test_user_plan_that_does_not_fit_is_refused():
    with pytest.raises(PlanError, match="memory"):
        estimate_run(
            RunInputs(
                **SEVENTY_B_SHAPE,
                tokens=1e12,
                accelerator="h100-sxm",
                gpus=8,
                seq_len=4096,
                tp=1,
                pp=1,
                dp=8,
                zero_stage=1,
                recompute=False,
            )
        )


def test_invalid_inputs_name_the_field():
    with pytest.raises(ValueError, match=r"^active_params: "):
        RunInputs(params=7e9, active_params=8e9, tokens=1e12, accelerator="h100-sxm")
    with pytest.raises(ValueError, match=r"^precision: "):
        RunInputs(params=7e9, tokens=1e12, accelerator="a100-sxm-80gb", precision="fp8")
    # a partial shape names the first missing part, the one to fill in
    with pytest.raises(ValueError, match=r"^hidden: .*\(given: layers\)"):
        RunInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", layers=32)


# --- properties -------------------------------------------------------------------------------

runs = st.fixed_dictionaries(
    {
        "params": st.sampled_from([1e9, 7e9, 13e9, 70e9]),
        "gpus": st.sampled_from([8, 16, 64, 256, 1024]),
        "accelerator": st.sampled_from(["h100-sxm", "a100-sxm-80gb", "b200", "gb200"]),
        "seq_len": st.sampled_from([2048, 4096, 8192]),
    }
)


@settings(max_examples=40, deadline=None)
@given(runs, st.floats(0.5, 4.0))
def test_more_bandwidth_never_slows_a_step(run, factor):
    inp = RunInputs(tokens=1e12, **run)
    ic = interconnect_for(inp.accelerator)
    faster = dataclasses.replace(
        ic,
        scale_up_bandwidth=ic.scale_up_bandwidth * max(factor, 1.0),
        scale_out_bandwidth=ic.scale_out_bandwidth * max(factor, 1.0),
    )
    try:
        slow, _ = predicted_mfu(inp, 0.3, 0.5, ic)
    except PlanError:
        return
    fast, _ = predicted_mfu(inp, 0.3, 0.5, faster)
    assert fast >= slow * (1 - 1e-12)


@settings(max_examples=40, deadline=None)
@given(runs, st.floats(0.3, 0.95), st.floats(1.0, 1.3))
def test_higher_matmul_efficiency_never_slows_a_step(run, eff, gain):
    low = RunInputs(tokens=1e12, measured_matmul_efficiency=eff, **run)
    high = RunInputs(tokens=1e12, measured_matmul_efficiency=min(1.0, eff * gain), **run)
    try:
        a = estimate_run(low)
    except PlanError:
        return
    b = estimate_run(high)
    assert b.step_seconds <= a.step_seconds * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(runs)
def test_chosen_plan_always_fits_memory(run):
    inp = RunInputs(tokens=1e12, **run)
    try:
        e = estimate_run(inp)
    except PlanError as exc:
        assert "memory" in str(exc) or "batch" in str(exc)
        return
    pb = _problem(inp)
    assert e.plan.memory_bytes <= pb.capacity
    assert e.plan.tp <= pb.domain


def test_build_check_covers_the_new_resources(fresh_catalogs):
    # (the committed files equal a fresh build: tests/test_catalog.py's drift test)
    docs = fresh_catalogs
    assert {"interconnect.json", "published_throughput.json"} <= docs.keys()
    runs_ = docs["published_throughput.json"]["runs"]
    assert all(r["source"] and r["date"] and r["gpu_hours"] > 0 for r in runs_)
    assert np.isfinite(docs["published_throughput.json"]["calibration"]["loo_within_1_25"])


# --- software stack, power cap, MoE top-k (fidelity work on issue 13) -------------------------

EIGHT_B_H100 = dict(
    params=8e9,
    tokens=1e12,
    accelerator="h100-sxm",
    gpus=8,
    seq_len=8192,
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
)


def test_power_cap_below_tdp_lowers_mfu_and_at_tdp_changes_nothing():
    free = predicted_mfu(RunInputs(**EIGHT_B_H100), 0.4, 0.5)[0]
    at_tdp = predicted_mfu(RunInputs(**EIGHT_B_H100, power_cap_w=700.0), 0.4, 0.5)[0]
    capped = predicted_mfu(RunInputs(**EIGHT_B_H100, power_cap_w=500.0), 0.4, 0.5)[0]
    harder = predicted_mfu(RunInputs(**EIGHT_B_H100, power_cap_w=350.0), 0.4, 0.5)[0]
    assert at_tdp == pytest.approx(free)
    assert harder < capped < free
    # compute-bound here, so MFU falls by about the clock factor (500/700)^(1/3) ≈ 0.894
    assert 0.85 < capped / free < 0.95


def test_fsdp_stack_scales_non_matmul_time_with_memory_bandwidth():
    def mfu(acc: str, stack: str) -> float:
        inp = RunInputs(**{**EIGHT_B_H100, "accelerator": acc}, software_stack=stack)
        return predicted_mfu(inp, 0.4, 0.5)[0]

    # H100 has about 2× the FLOP per byte of memory bandwidth of A100 80GB: eager kernels cost more
    assert mfu("h100-sxm", "fsdp") < 0.95 * mfu("h100-sxm", "megatron")
    # on the reference accelerator the two rules coincide
    assert mfu("a100-sxm-80gb", "fsdp") == pytest.approx(mfu("a100-sxm-80gb", "megatron"))


def test_fsdp_stack_slows_attention_by_the_flop_per_byte_ratio_and_megatron_keeps_it():
    from desktopapp.model.perf_training import _fsdp_balance_ref, _problem

    h100 = RunInputs(**EIGHT_B_H100, software_stack="fsdp")
    ratio = 989e12 / 3.35e12 / _fsdp_balance_ref()  # H100 SXM bf16 peak per byte of HBM3
    assert _problem(h100, 0.4, 0.5).a_attn == pytest.approx(0.5 / ratio, rel=0.02)
    mega = RunInputs(**EIGHT_B_H100, software_stack="megatron")
    assert _problem(mega, 0.4, 0.5).a_attn == 0.5
    a100 = RunInputs(**{**EIGHT_B_H100, "accelerator": "a100-sxm-80gb"}, software_stack="fsdp")
    assert _problem(a100, 0.4, 0.5).a_attn == pytest.approx(0.5)
    # at 8192 tokens attention is a real share of the step: the slower rate lowers MFU
    assert predicted_mfu(h100, 0.0, 0.5)[0] < 0.95 * predicted_mfu(mega, 0.0, 0.5)[0]


def test_stack_picks_its_own_fit():
    from desktopapp.model.perf_training import calibration

    typical, aware = calibration(), calibration("megatron")
    assert "stack-blind" in typical.source and "stack-aware" in aware.source
    assert calibration("fsdp") == aware
    est = estimate_run(RunInputs(**EIGHT_B_H100, software_stack="megatron"))
    assert any(a.name == "software stack" and a.value == "megatron" for a in est.assumptions)


def test_more_experts_per_token_never_speed_up_a_moe_step():
    moe = dict(
        params=120e9, active_params=6e9, tokens=1e12, accelerator="h100-sxm", gpus=64,
        seq_len=4096, layers=36, hidden=2880, heads=64, kv_heads=8, tp=1, pp=4, dp=16,
        micro_batch=1,
    )  # fmt: skip
    steps = [estimate_run(RunInputs(**moe, moe_top_k=k)) for k in (1, 2, 4, 8)]
    comm = [s.breakdown.expert_parallel_comm for s in steps]
    assert comm == sorted(comm) and comm[-1] > comm[0] > 0
    assert [s.step_seconds for s in steps] == sorted(s.step_seconds for s in steps)


@pytest.mark.parametrize(
    ("field", "value"),
    [("software_stack", "deepspeed"), ("power_cap_w", -5.0), ("moe_top_k", 0)],
)
def test_new_inputs_are_validated_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        RunInputs(**EIGHT_B_H100, **{field: value})


def test_every_calibration_row_names_its_stack():
    doc = json.loads((REPO / "resources" / "published_throughput.json").read_text("utf-8"))
    stacks = {row["software_stack"] for row in doc["training"]}
    assert stacks == {"megatron", "fsdp"}
    capped = [row for row in doc["training"] if row["power_cap_w"]]
    # the cap is stated in the reference's accelerator name: "H100 SXM (500 W cap)"
    assert capped and all(row["power_cap_w"] == 500 and row["gpus"] in (8, 128) for row in capped)
    moe = [row for row in doc["training"] if row["active_params"]]
    assert moe and all(row["moe_top_k"] and row["moe_top_k_source"] for row in moe)
    aware = doc["calibration"]["stack_aware"]
    assert aware["rows"] == doc["calibration"]["rows"] == len(doc["training"])


def test_a_fleet_refused_names_the_cause_it_has():
    # memory: one GPU for 70B; the batch (1 sequence on 1 GPU) is no cause and is not named
    with pytest.raises(PlanError) as memory:
        estimate_run(RunInputs(params=70e9, tokens=1e12, accelerator="h100-sxm", gpus=1))
    text = str(memory.value)
    assert "no parallel plan of 1 GPU fits the model in memory" in text
    assert "global batch" not in text
    # the batch: one sequence cannot be split across 4,096 GPUs, though a 1B model fits
    fleet = {"params": 1e9, "tokens": 1e12, "accelerator": "h100-sxm", "gpus": 4096}
    with pytest.raises(PlanError) as batch:
        estimate_run(RunInputs(**fleet, seq_len=4096, global_batch_tokens=4096))
    assert str(batch.value).startswith("gpus: the global batch of 1 sequence is smaller")
    assert "fits the model in memory" not in str(batch.value)
