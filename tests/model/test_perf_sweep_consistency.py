"""The scaling sweep (one vectorised plan search over every GPU count) and the single estimate
(one plan search at one GPU count) share the step model: at any GPU count they must agree."""

from __future__ import annotations

import math

import numpy as np
import pytest

from desktopapp.model.perf_training import RunInputs, estimate_run, scaling_sweep
from tests.model.perf_cases import FOUR_HUNDRED_FIVE_B_SHAPE, SEVEN_B, SEVENTY_B_SHAPE

RUNS = {
    "dense 7B": RunInputs(**SEVEN_B, gpus=1),
    "70B GQA, 8k": RunInputs(
        **SEVENTY_B_SHAPE, tokens=1e12, accelerator="h100-sxm", gpus=1, seq_len=8192
    ),
    "MoE": RunInputs(
        params=47e9,
        active_params=13e9,
        tokens=1e12,
        accelerator="h100-sxm",
        gpus=1,
        seq_len=4096,
        layers=32,
        hidden=4096,
        heads=32,
        kv_heads=8,
    ),
    "405B (pipeline parallel)": RunInputs(
        **FOUR_HUNDRED_FIVE_B_SHAPE, tokens=1e12, accelerator="h100-sxm", gpus=1, seq_len=8192
    ),
    "long sequence (context parallel)": RunInputs(**{**SEVEN_B, "seq_len": 32_768}, gpus=1),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_sweep_agrees_with_the_estimate_at_every_sampled_count(name):
    inp = RUNS[name]
    sweep = scaling_sweep(inp, max_gpus=512)
    checked = 0
    for gpus in (1, 8, 24, 64, 96, 128, 192, 256, 384, 512):
        swept = float(sweep.gpu_hours[gpus - 1])
        if math.isnan(swept):  # no plan fits at this count: the estimate refuses it too
            with pytest.raises(ValueError):
                estimate_run(RunInputs(**{**inp.__dict__, "gpus": gpus}))
            continue
        est = estimate_run(RunInputs(**{**inp.__dict__, "gpus": gpus}))
        assert est.gpu_hours == pytest.approx(swept, rel=1e-9), gpus
        assert est.step_seconds == pytest.approx(float(sweep.step_seconds[gpus - 1]), rel=1e-9)
        assert est.mfu == pytest.approx(float(sweep.mfu[gpus - 1]), rel=1e-9)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_sweep_of_chosen_counts_gives_the_full_sweep_s_figures_there(name):
    # The Workload tab and Compare plot 13 counts (2^k up to 4,096): only those are
    # searched, and every figure there is the full sweep's, NaN where no plan fits.
    from desktopapp.application.training_view import PLOT_GPUS

    full = scaling_sweep(RUNS[name])
    some = scaling_sweep(RUNS[name], counts=[*PLOT_GPUS[::-1], 8.0])  # any order, repeats
    assert some.gpus.tolist() == sorted(set(PLOT_GPUS.tolist()))
    at = some.gpus.astype(int) - 1
    for field in ("training_hours", "gpu_hours", "mfu", "step_seconds", "tp", "pp", "dp"):
        assert np.array_equal(getattr(some, field), getattr(full, field)[at], equal_nan=True)
    assert (some.knee_gpus, some.knee_text) == (full.knee_gpus, full.knee_text)


@pytest.mark.parametrize("counts", [[], [0], [1.5], [4097]])
def test_counts_outside_the_sweep_are_refused_naming_the_field(counts):
    with pytest.raises(ValueError, match=r"^counts: whole numbers from 1 to 4,096"):
        scaling_sweep(RUNS["dense 7B"], counts=counts)
