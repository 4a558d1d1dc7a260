"""CLI contract of the modelled train estimate, and the calibration's leave-one-out mechanics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from desktopapp.cli import run_command
from desktopapp.model.perf_calibration import fit
from desktopapp.model.perf_training import calibration

SEVEN_B = ["estimate", "train", "--params", "7B", "--tokens", "2T", "--accelerator", "h100"]
SHAPE = ["--seq-len", "4096", "--layers", "32", "--hidden", "4096", "--heads", "32"]


def _json(capsys, argv):
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_train_json_has_the_modelled_keys(capsys):
    doc = _json(capsys, [*SEVEN_B, *SHAPE, "--gpus", "64"])
    for key in (
        "mfu",
        "hfu",
        "step_seconds",
        "step_breakdown",
        "parallel_plan",
        "gpu_hours_low",
        "gpu_hours_high",
    ):
        assert key in doc, key
    assert {"tp", "pp", "dp", "micro_batch"} <= doc["parallel_plan"].keys()
    assert sum(doc["step_breakdown"].values()) == pytest.approx(doc["step_seconds"])
    assert doc["gpu_hours_low"] < doc["gpu_hours"] < doc["gpu_hours_high"]
    assert doc["utilization"] == pytest.approx(doc["mfu"])
    assert doc["total_flops"] == pytest.approx(6 * 7e9 * 2e12)  # the C = 6ND headline stays
    assert doc["model_flops"] > doc["total_flops"]  # attention counted on top


def test_train_user_plan_and_batch_options(capsys):
    doc = _json(
        capsys,
        [
            *SEVEN_B,
            *SHAPE,
            "--gpus",
            "64",
            "--tp",
            "2",
            "--pp",
            "2",
            "--dp",
            "16",
            "--micro-batch",
            "2",
            "--global-batch-tokens",
            "8M",
        ],
    )
    plan = doc["parallel_plan"]
    assert (plan["tp"], plan["pp"], plan["dp"], plan["micro_batch"]) == (2, 2, 16, 2)


def test_train_refuses_tp_beyond_the_nvlink_domain(capsys):
    assert run_command([*SEVEN_B, *SHAPE, "--gpus", "64", "--tp", "16"]) == 2
    err = capsys.readouterr().err
    assert "--tp" in err and "scale-up domain" in err


def test_utilization_still_overrides(capsys):
    doc = _json(capsys, [*SEVEN_B, "--gpus", "64", "--utilization", "0.4"])
    assert doc["utilization"] == 0.4 and doc["mfu"] == 0.4
    assert doc["gpu_hours"] == pytest.approx(6 * 7e9 * 2e12 / (989.4e12 * 0.4) / 3600)


def test_moe_active_params(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "train",
            "--params",
            "47B",
            "--active-params",
            "13B",
            "--tokens",
            "1T",
            "--accelerator",
            "h100",
            "--gpus",
            "64",
        ],
    )
    assert doc["model_flops"] == pytest.approx(6 * 13e9 * 1e12)


def test_peak_only_estimates_carry_the_keys_as_null(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "train",
            "--params",
            "110M",
            "--tokens",
            "3.3B",
            "--peak-tflops",
            "312",
            "--utilization",
            "0.4",
            "--gpus",
            "8",
        ],
    )
    assert doc["total_flops"] == pytest.approx(2.178e18)
    assert doc["mfu"] == 0.4 and doc["step_seconds"] is None


def test_fit_leaves_the_row_out():
    # row 0 strongly wants grid point (0, 0), rows 1-2 want (1, 1): without row 0 the fit moves
    grid = np.full((3, 2, 2), 1.0)
    grid[0, 0, 0] = 0.0
    grid[1:, 1, 1] = 0.0
    grid[0, 1, 1] = 5.0
    assert fit(grid) == (0, 0)
    assert fit(grid, np.array([False, True, True])) == (1, 1)


def test_stored_calibration_is_in_range_and_states_its_band():
    cal = calibration()
    assert 0 <= cal.kernel_overhead <= 1 and 0 < cal.attention_efficiency <= 1
    assert cal.band_low < 1 < cal.band_high
    assert 0 <= cal.loo_within_125 <= 1 and cal.rows >= 20


def test_calibrate_fits_stack_blind_and_stack_aware(monkeypatch):
    from desktopapp.model import perf_calibration as pc
    from desktopapp.model.perf_training import _throughput_document

    rows = pc.cal_rows(
        [
            r
            for r in _throughput_document()["training"]
            if r["software_stack"] == "megatron" and r["accelerator_id"] == "h100-sxm"
        ][:3]
    )
    assert {r.inputs.software_stack for r in rows} == {"megatron"}
    monkeypatch.setattr(pc, "K_GRID", (0.2, 0.6))
    monkeypatch.setattr(pc, "A_GRID", (0.4, 0.8))
    seen: list[set[str]] = []
    real = pc.error_grid

    def spy(rows_, *args):
        seen.append({r.inputs.software_stack for r in rows_})
        return real(rows_, *args)

    monkeypatch.setattr(pc, "error_grid", spy)
    out = pc.calibrate(rows)
    assert seen == [{"typical"}, {"megatron"}]  # blind first, then each row on its own stack
    assert "stack-blind" in out["source"] and "stack-aware" in out["stack_aware"]["source"]
    assert out["rows"] == out["stack_aware"]["rows"] == len(rows)
    # H100 rows: 'typical' scales the non-matmul share by FLOP per byte, 'megatron' does not
    assert out["per_row"] != out["stack_aware"]["per_row"]


def test_cli_takes_stack_power_cap_and_top_k(capsys):
    base = _json(capsys, [*SEVEN_B, *SHAPE, "--gpus", "64"])
    capped = _json(capsys, [*SEVEN_B, *SHAPE, "--gpus", "64", "--power-cap-w", "500"])
    fsdp = _json(capsys, [*SEVEN_B, *SHAPE, "--gpus", "64", "--software-stack", "fsdp"])
    assert capped["mfu"] < base["mfu"] and fsdp["mfu"] < base["mfu"]
    assert capped["gpu_hours_low"] > base["gpu_hours_low"]


def test_a_measured_bus_bandwidth_replaces_the_catalog_figure(capsys) -> None:
    """``--busbw-gbs`` (e.g. from ``bench --suite allreduce``) feeds the modelled run: a slow
    measured fabric lengthens the step and lowers MFU; 0 is refused naming the option."""
    from desktopapp.cli import run_command

    base = [
        "estimate",
        "train",
        "--params",
        "7B",
        "--tokens",
        "2T",
        "--accelerator",
        "h100-sxm",
        "--gpus",
        "512",
        "--json",
    ]
    assert run_command(base) == 0
    catalog = json.loads(capsys.readouterr().out)
    assert run_command([*base, "--busbw-gbs", "50"]) == 0
    slow = json.loads(capsys.readouterr().out)
    assert slow["step_seconds"] > catalog["step_seconds"] and slow["mfu"] < catalog["mfu"]
    assert run_command([*base, "--busbw-gbs", "0"]) == 2
    assert "--busbw-gbs" in capsys.readouterr().err
