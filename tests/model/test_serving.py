"""The serving model (issue 14): prefill/decode, continuous batching bounded by the KV cache,
tensor-parallel communication, mixture-of-experts reads, quantization, latency targets."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktopapp.model import serving
from desktopapp.model.serving import ServingInputs, estimate_serving
from desktopapp.model.validation import InputError

ROOT = Path(__file__).resolve().parents[2]
LLAMA7 = {"params": 6.74e9, "layers": 32, "hidden": 4096, "heads": 32}
LLAMA70 = {"params": 69e9, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}
MIXTRAL = {
    "params": 46.7e9,
    "active_params": 12.9e9,
    "experts": 8,
    "moe_top_k": 2,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
}


def _decode_rate(gpus: int, shape: dict) -> float:
    inp = ServingInputs(
        accelerator="h100-sxm", gpus=gpus, prompt_tokens=5, output_tokens=200, **shape
    )
    return float(serving.predict_decode_rate(inp))


@pytest.mark.parametrize("shape", [LLAMA7, LLAMA70], ids=["7B", "70B"])
def test_batch_one_decode_on_more_gpus_gains_less_than_linearly(shape: dict) -> None:
    rates = {g: _decode_rate(g, shape) for g in (1, 2, 4, 8)}
    for g in (2, 4, 8):
        assert rates[g] < g * rates[1] * 0.95, (g, rates)
    assert rates[2] / rates[1] < 2.0 and rates[8] / rates[4] < rates[2] / rates[1] + 1e-9


def test_a_large_batch_moe_decode_reads_more_bytes_than_a_small_batch() -> None:
    s = serving._setup(ServingInputs(accelerator="h100-sxm", gpus=2, **MIXTRAL))
    small, large = serving.weight_bytes_read(s, 1.0), serving.weight_bytes_read(s, 64.0)
    assert float(large) > 2.0 * float(small)
    dense_all = MIXTRAL["params"] * 2.0
    assert float(large) == pytest.approx(dense_all, rel=0.01)  # nearly every expert is touched
    assert float(small) == pytest.approx(MIXTRAL["active_params"] * 2.0, rel=0.01)


def test_distinct_experts_grows_from_top_k_to_all() -> None:
    assert serving.distinct_experts(8, 2, 1) == pytest.approx(2.0)
    assert 7.9 < serving.distinct_experts(8, 2, 32) <= 8.0
    assert serving.distinct_experts(128, 8, 4) < 32.0


@settings(max_examples=60, deadline=None)
@given(
    params=st.sampled_from([1e9, 7e9, 13e9, 34e9, 70e9]),
    prompt=st.integers(1, 16_000),
    output=st.integers(1, 8_000),
    gpus=st.sampled_from([1, 2, 4, 8]),
    precision=st.sampled_from(["bf16", "fp8", "int4"]),
)
def test_concurrency_never_exceeds_what_the_kv_cache_allows(
    params: float, prompt: int, output: int, gpus: int, precision: str
) -> None:
    inp = ServingInputs(
        params=params,
        accelerator="h100-sxm",
        gpus=gpus,
        precision=precision,
        prompt_tokens=prompt,
        output_tokens=output,
        max_running=100_000,
    )
    try:
        est = estimate_serving(inp)
    except InputError as exc:
        assert exc.field == "gpus"  # the weights leave no room for one sequence
        return
    assert est.max_concurrency is not None and est.concurrency <= est.max_concurrency
    per_seq = est.kv_bytes_per_token * (prompt + output)
    assert est.concurrency * per_seq <= (est.kv_free_bytes or 0.0) + 1.0


@settings(max_examples=40, deadline=None)
@given(
    ttft=st.floats(5.0, 5_000.0),
    tpot=st.floats(5.0, 500.0),
    tighter=st.floats(0.1, 1.0),
)
def test_tighter_latency_targets_never_raise_throughput(
    ttft: float, tpot: float, tighter: float
) -> None:
    base = {
        "accelerator": "h100-sxm",
        "gpus": 2,
        "prompt_tokens": 1000,
        "output_tokens": 300,
        **LLAMA70,
    }
    loose = estimate_serving(ServingInputs(ttft_slo_s=ttft / 1e3, tpot_slo_s=tpot / 1e3, **base))
    tight = estimate_serving(
        ServingInputs(ttft_slo_s=ttft * tighter / 1e3, tpot_slo_s=tpot * tighter / 1e3, **base)
    )
    assert tight.tokens_per_second <= loose.tokens_per_second * (1 + 1e-9)
    assert tight.concurrency <= loose.concurrency


def test_targets_pick_the_highest_concurrency_that_meets_them() -> None:
    base = {
        "accelerator": "h100-sxm",
        "gpus": 2,
        "prompt_tokens": 1000,
        "output_tokens": 300,
        **LLAMA70,
    }
    free = estimate_serving(ServingInputs(**base))
    target = estimate_serving(ServingInputs(tpot_slo_s=0.045, **base))
    assert target.slo_met and target.tpot_seconds <= 0.045
    assert target.concurrency < free.concurrency
    above = target.curve.concurrency > target.concurrency
    assert not target.curve.meets_slo[above].any()


def test_an_unreachable_target_says_so() -> None:
    est = estimate_serving(
        ServingInputs(tpot_slo_s=0.001, accelerator="h100-sxm", gpus=2, **LLAMA70)
    )
    assert est.slo_met is False and est.concurrency == 1
    assert any("targets missed" in n for n in est.notes)


def test_continuous_ttft_is_prefill_plus_one_step_and_tpot_grows_with_load() -> None:
    one = estimate_serving(ServingInputs(concurrency=1, accelerator="h100-sxm", **LLAMA7))
    many = estimate_serving(ServingInputs(concurrency=64, accelerator="h100-sxm", **LLAMA7))
    assert one.ttft_seconds == pytest.approx(one.prefill_seconds + one.step_seconds)
    assert many.tpot_seconds > one.tpot_seconds
    assert many.tokens_per_second > 10 * one.tokens_per_second


def test_weight_only_int4_reads_a_quarter_but_gains_less_than_four_times() -> None:
    kw = {"accelerator": "a100-sxm-80gb", "prompt_tokens": 5, "output_tokens": 200, **LLAMA7}
    bf16 = float(serving.predict_decode_rate(ServingInputs(**kw)))
    int4 = float(serving.predict_decode_rate(ServingInputs(precision="int4", **kw)))
    assert bf16 < int4 < 4 * bf16


def test_static_batching_is_available_for_batch_jobs() -> None:
    est = estimate_serving(
        ServingInputs(batching="static", batch_size=32, accelerator="h100-sxm", **LLAMA7)
    )
    assert est.batching == "static" and est.concurrency == 32
    assert est.tokens_per_second > 0 and math.isfinite(est.latency_seconds)


def test_weights_that_do_not_fit_name_the_devices() -> None:
    with pytest.raises(InputError) as info:
        estimate_serving(ServingInputs(params=405e9, accelerator="h100-sxm", gpus=4))
    assert info.value.field == "gpus" and "no room" in str(info.value)


def test_active_params_above_params_is_refused() -> None:
    with pytest.raises(InputError) as info:
        ServingInputs(params=7e9, active_params=8e9, accelerator="h100-sxm")
    assert info.value.field == "active_params"


def test_more_bandwidth_never_slows_decode() -> None:
    kw = {"peak_tflops": 500.0, "memory_gb": 80.0, "gpus": 4, **LLAMA70}
    slow = estimate_serving(ServingInputs(bandwidth_gbs=2000, **kw))
    fast = estimate_serving(ServingInputs(bandwidth_gbs=4000, **kw))
    assert fast.step_seconds <= slow.step_seconds


def test_calibration_file_is_current_and_meets_its_targets() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "serving_catalog.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads((ROOT / "resources" / "serving_calibration.json").read_text("utf-8"))
    assert all(row["source"] for row in doc["rows"]) and len(doc["rows"]) >= 20
    assert all(row["engine"] and len(row["date"]) == 7 for row in doc["rows"])
    fit = doc["fit"]
    assert fit["loo_within_1_5"] >= 0.80 and fit["loo_median_error"] <= 1.25
    cal = serving.calibration()
    assert cal.rows == len(doc["rows"]) and cal.bandwidth_share == fit["bandwidth_share"]


def test_an_accelerator_outside_the_measured_rows_is_flagged() -> None:
    def coverage(acc: str) -> list[str]:
        est = estimate_serving(ServingInputs(accelerator=acc, **LLAMA7))
        return [a.value for a in est.assumptions if a.name == "calibration coverage"]

    assert coverage("h100-sxm") == []
    (text,) = coverage("mi300x")
    assert "MI300X" in text and "h100-sxm" in text


def test_latency_targets_travel_from_the_saved_inputs_to_the_serving_model():
    from desktopapp.model.inference import InferenceInputs
    from desktopapp.model.scenario import Scenario
    from desktopapp.model.serving import from_inference

    saved = InferenceInputs(params=7e9, accelerator="h100-sxm", ttft_target_s=0.5)
    scenario = Scenario(inference=saved)
    assert Scenario.from_json(scenario.to_json()).inference == saved
    serving = from_inference(saved)
    assert serving.ttft_slo_s == 0.5 and serving.tpot_slo_s is None
    assert from_inference(saved, ttft_slo_s=0.2).ttft_slo_s == 0.2  # the CLI flag wins
    with pytest.raises(ValueError, match="tpot_target_s"):
        InferenceInputs(params=7e9, accelerator="h100-sxm", tpot_target_s=-1.0)


def test_the_saved_active_parameters_make_the_served_model_a_mixture_of_experts():
    from desktopapp.model.inference import InferenceInputs, estimate_inference
    from desktopapp.model.serving import from_inference

    dense = InferenceInputs(params=47e9, accelerator="h100-sxm", gpus=2, batch_size=64)
    moe = InferenceInputs(
        params=47e9, active_params=13e9, accelerator="h100-sxm", gpus=2, batch_size=64
    )
    assert from_inference(moe).active_params == 13e9 and from_inference(moe).is_moe
    assert estimate_inference(moe).flops_per_step == pytest.approx(
        estimate_inference(dense).flops_per_step * 13 / 47
    )
    assert moe.prompt_tokens == dense.prompt_tokens == 512
    # one sequence: the MoE step reads the shared weights and 2 of 8 experts, the dense one all
    fast = estimate_serving(from_inference(moe, concurrency=1))
    slow = estimate_serving(from_inference(dense, concurrency=1))
    assert fast.bytes_per_step < 0.5 * slow.bytes_per_step
    assert fast.tokens_per_second > 2.0 * slow.tokens_per_second
    # 64 sequences: every expert is read, and each sees only ~1/4 of the step's tokens, yet the
    # MoE does 13/47 of the FLOPs and its experts' small-GEMM cost is at most the dense model's
    # (4 devices: on 2 the KV cache of the assumed shape holds only 36 sequences)
    moe4 = InferenceInputs(params=47e9, active_params=13e9, accelerator="h100-sxm", gpus=4)
    fast = estimate_serving(from_inference(moe4, concurrency=64))
    slow = estimate_serving(
        from_inference(InferenceInputs(params=47e9, accelerator="h100-sxm", gpus=4), concurrency=64)
    )
    assert fast.concurrency == slow.concurrency == 64 and fast.decode_bound == "memory"
    assert fast.tokens_per_second > 1.05 * slow.tokens_per_second
    assert fast.ttft_seconds < slow.ttft_seconds
    with pytest.raises(ValueError, match="active_params"):
        InferenceInputs(params=7e9, active_params=8e9, accelerator="h100-sxm")


def test_expert_gemm_efficiency_rises_with_the_tokens_each_expert_sees():
    inp = ServingInputs(accelerator="h100-sxm", gpus=2, precision="fp8", **MIXTRAL)
    s = serving._setup(inp)
    sh = serving._shares(inp, s)
    half = float(sh.half_ridge * serving.ridge_rows(s, sh))
    assert half > 0.0  # fitted: small GEMMs run below the compute share
    tokens = [1.0, 8.0, 64.0, 512.0, 4096.0]
    rows = [float(serving.expert_rows(s, t)) for t in tokens]
    assert rows[0] == pytest.approx(1.0)  # one token: its 2 experts each see it once
    assert rows[-1] == pytest.approx(4096 * 2 / 8, rel=1e-6)  # all 8 experts touched: T·k/E
    assert all(a < b for a, b in itertools.pairwise(rows))
    eff = [float(serving.gemm_efficiency(m, half)) for m in rows]
    assert all(0.0 < a < b < 1.0 for a, b in itertools.pairwise(eff))
    assert float(serving.gemm_efficiency(half, half)) == pytest.approx(0.5)
    # matmul time per token falls as the step carries more tokens
    per_token = [float(serving._linear_seconds(s, sh, t, 2)) / t for t in tokens]
    assert all(a > b for a, b in itertools.pairwise(per_token))
    # the same step through a dense model: its matmuls see all T rows, the experts T·k/E
    assert float(serving.gemm_efficiency(512.0, half)) > eff[3]


def test_matmul_time_by_hand_dense_rows_and_routed_expert_rows():
    dense = ServingInputs(accelerator="h100-sxm", gpus=2, precision="fp8", **LLAMA70)
    s = serving._setup(dense)
    sh = serving.make_shares(0.7, 0.5, 0.0, 16e-6, 1.0)
    ridge = 0.5 * s.peak_linear * 1.0 / (2.0 * s.bandwidth * 0.7)  # fp8: 1 byte per weight
    assert float(serving.ridge_rows(s, sh)) == pytest.approx(ridge)
    # dense: 2·N·T FLOPs at the share × T / (T + M½)  ⇔  2·N·(T + M½) at the share
    want = 2.0 * 69e9 * (100.0 + ridge) / (2 * s.peak_linear * 0.5)
    assert float(serving._linear_seconds(s, sh, 100.0, 2)) == pytest.approx(want)
    # M½ = 0: every matmul at the full share, MoE or not
    flat = serving.make_shares(0.7, 0.5, 0.0, 16e-6, 0.0)
    m = serving._setup(ServingInputs(accelerator="h100-sxm", gpus=2, precision="fp8", **MIXTRAL))
    assert float(serving._linear_seconds(m, flat, 64.0, 2)) == pytest.approx(
        2.0 * 12.9e9 * 64.0 / (2 * m.peak_linear * 0.5)
    )
    # MoE at 64 tokens: shared weights see 64 rows, each of the touched experts 64·2/touched
    touched = float(serving.distinct_experts(8, 2, 64.0))
    e_rows = 64.0 * 2 / touched
    half = float(serving.ridge_rows(m, sh))
    want = (
        2.0 * m.shared * (64.0 + half) + 2.0 * 2 * m.expert_params * 64.0 * (e_rows + half) / e_rows
    ) / (2 * m.peak_linear * 0.5)
    assert float(serving._linear_seconds(m, sh, 64.0, 2)) == pytest.approx(want)
    # never above the dense model of the same total size on the same step
    big = serving._setup(
        ServingInputs(
            accelerator="h100-sxm", gpus=2, precision="fp8", **{**MIXTRAL, "active_params": None}
        )
    )
    for t in (1.0, 16.0, 64.0, 512.0, 8192.0):
        assert float(serving._linear_seconds(m, sh, t, 2)) < float(
            serving._linear_seconds(big, sh, t, 2)
        )
