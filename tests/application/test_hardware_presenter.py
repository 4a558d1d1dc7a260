"""The Hardware tab's presenter without widgets: the measured accelerator handed to the
Workload tab, dtype choices and CPU feature chips."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from fakes.hardware import GIB, fake_cpu, result

from desktopapp.application.hardware import (
    USE_AS_PEAK,
    USE_AS_UTILIZATION,
    MeasuredDevice,
    best_by_dtype,
    default_dtypes,
    dtype_availability,
    feature_chips,
    measured_accelerator,
)


def test_measured_accelerator_modes() -> None:
    device = MeasuredDevice("cpu", "Test CPU", {"fp32": 0.4}, "estimate: …", None, 8 * GIB)
    results = [result("fp32", 64, 0.1), result("fp32", 128, 0.3), result("bf16", 64, 0.05)]
    assert {d: r.size for d, r in best_by_dtype(results).items()} == {"fp32": 128, "bf16": 64}

    as_peak = measured_accelerator(results, device, USE_AS_PEAK, run_label="run #1")
    assert dict(as_peak.peak_tflops) == {"fp32": 0.3, "bf16": 0.05}
    assert "run #1" in as_peak.source

    as_share = measured_accelerator(results, device, USE_AS_UTILIZATION, precision="bf16")
    assert as_share.utilization == pytest.approx(0.75)  # bf16 has no peak: fp32 used
    assert dict(as_share.peak_tflops) == {"fp32": 0.4}

    over = measured_accelerator([result("fp32", 64, 0.6)], device, USE_AS_UTILIZATION)
    assert over.utilization == 1.0 and "capped" in over.source
    with pytest.raises(ValueError, match="results"):
        measured_accelerator([], device, USE_AS_PEAK)
    with pytest.raises(ValueError, match="results"):
        measured_accelerator([result("bf16", 64, 0.1)], device, USE_AS_UTILIZATION)


def test_dtype_choices_follow_the_device() -> None:
    assert dtype_availability("cpu", True)["tf32"]
    assert not dtype_availability("cuda:0", True)["fp8"]
    assert dtype_availability("cpu", False)["bf16"].startswith("needs PyTorch")
    assert default_dtypes("cpu", True, True) == ("fp32", "bf16")
    assert default_dtypes("cpu", True, False) == ("fp32",)
    assert default_dtypes("cuda:0", False, True) == ("fp32", "tf32", "bf16", "fp16", "fp8")


def test_feature_chips_name_bf16_support() -> None:
    cpu = fake_cpu()
    labels = [c.label for c in feature_chips(cpu)]
    assert labels[-1] == "no native bf16"
    amx = replace(cpu, features=(*cpu.features, "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"))
    chips = {c.label: c.tone for c in feature_chips(amx)}
    assert chips["AMX-BF16"] == "ml" and chips["AVX-512 BF16"] == "ml"
    assert "no native bf16" not in chips
    assert math.isclose(cpu.peak.tflops if cpu.peak else 0.0, 8 * 3.5 * 32 / 1000)
