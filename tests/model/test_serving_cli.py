"""``desktopapp estimate inference``: the serving contract of issue 14 from the outside."""

from __future__ import annotations

import json
import math

import pytest

from desktopapp.cli import run_command

NEW_KEYS = (
    "ttft_seconds",
    "tpot_seconds",
    "tokens_per_second",
    "tokens_per_second_per_gpu",
    "max_concurrency",
    "concurrency",
)
OLD_KEYS = (
    "step_seconds",
    "decode_tokens_per_second",
    "cost_per_million_tokens",
    "bound",
    "latency_seconds",
    "prefill_seconds",
    "throughput_per_second",
)
BASE = [
    "estimate",
    "inference",
    "--params",
    "70B",
    "--accelerator",
    "h100-sxm",
    "--gpus",
    "2",
    "--layers",
    "80",
    "--hidden",
    "8192",
    "--heads",
    "64",
    "--kv-heads",
    "8",
]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_contract_keys_are_present_and_finite(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, BASE)
    for key in (*NEW_KEYS, *OLD_KEYS):
        assert key in doc, key
        assert doc[key] is not None and (not isinstance(doc[key], float) or math.isfinite(doc[key]))
    assert doc["batching"] == "continuous"
    assert doc["concurrency"] <= doc["max_concurrency"]
    assert doc["tokens_per_second_per_gpu"] == pytest.approx(doc["tokens_per_second"] / 2)
    assert doc["throughput_per_second"] == doc["tokens_per_second"]


def test_latency_targets_choose_the_concurrency(capsys: pytest.CaptureFixture[str]) -> None:
    free = _json(capsys, BASE)
    held = _json(capsys, [*BASE, "--tpot-slo-ms", "45", "--ttft-slo-ms", "2000"])
    assert held["slo_met"] is True and held["tpot_seconds"] <= 0.045
    assert held["concurrency"] < free["concurrency"]
    assert held["tokens_per_second"] < free["tokens_per_second"]


def test_batch_size_is_the_concurrency_as_in_the_gui(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 21: --batch-size means what the Workload tab's batch field means (sequences at once,
    # continuous batching); a static batch only when asked for
    doc = _json(capsys, [*BASE, "--batch-size", "16"])
    assert doc["batching"] == "continuous" and doc["concurrency"] == 16
    static = _json(capsys, [*BASE, "--batch-size", "16", "--batching", "static"])
    assert static["batching"] == "static" and static["concurrency"] == 16
    cont = _json(capsys, [*BASE, "--batching", "continuous", "--concurrency", "16"])
    assert cont["batching"] == "continuous" and cont["concurrency"] == 16


def test_moe_and_quantization_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "estimate",
        "inference",
        "--params",
        "46.7B",
        "--active-params",
        "12.9B",
        "--experts",
        "8",
        "--moe-top-k",
        "2",
        "--accelerator",
        "h100-sxm",
        "--precision",
        "fp8",
        "--kv-precision",
        "fp8",
        "--concurrency",
        "1",
    ]
    moe = _json(capsys, argv)
    moe_flags = ("--active-params", "12.9B", "--experts", "8", "--moe-top-k", "2")
    dense = _json(capsys, [a for a in argv if a not in moe_flags])
    assert moe["tokens_per_second"] > dense["tokens_per_second"]  # reads 2 of 8 experts
    assert any(a["name"] == "mixture of experts" for a in moe["assumptions"])
    # routing without active parameters describes no mixture of experts: refused, not ignored
    routed_dense = [a for a in argv if a not in ("--active-params", "12.9B")]
    assert run_command([*routed_dense, "--json"]) == 2
    assert "--experts: applies to a mixture of experts" in capsys.readouterr().err


def test_text_output_leads_with_ttft_and_tpot(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command([*BASE, "--tpot-slo-ms", "45"]) == 0
    out = capsys.readouterr().out
    assert "time to first token" in out and "time per output token" in out
    assert "latency targets" in out and "met" in out
    assert "Formula:" in out and "KV cache bound" in out


def test_forward_flops_models_keep_the_roofline(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(
        capsys,
        [
            "estimate",
            "inference",
            "--params",
            "25M",
            "--forward-flops",
            "8G",
            "--accelerator",
            "a10",
            "--batch-size",
            "64",
        ],
    )
    assert doc["unit"] == "prediction" and "ttft_seconds" not in doc


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--tpot-slo-ms", "0"], "--tpot-slo-ms"),
        (["--ttft-slo-ms", "-5"], "--ttft-slo-ms"),
        (["--active-params", "80B"], "--active-params"),
        (["--pp", "3"], "--pp"),
        (["--moe-top-k", "9", "--experts", "8", "--active-params", "20B"], "--moe-top-k"),
    ],
)
def test_bad_serving_values_name_the_option(
    capsys: pytest.CaptureFixture[str], extra: list[str], option: str
) -> None:
    assert run_command([*BASE, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0], err
