"""The Workload tab's modelled-run view-model (issue 13 item 7), without Qt."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from desktopapp.application.training_view import (
    PLOT_GPUS,
    ModelledView,
    NotModelled,
    modelled_view,
)
from desktopapp.model.presets import get_preset


def _preset(pid: str, **overrides: object) -> tuple[object, dict[str, object]]:
    p = get_preset(pid)
    shape = {n: getattr(p, n) for n in ("layers", "hidden", "heads", "seq_len")}
    return p.to_training_inputs(**overrides), shape


def test_llm_preset_gives_plan_breakdown_and_cards() -> None:
    training, shape = _preset("llm-7b")
    view = modelled_view(training, shape, utilization_user_set=False)
    assert isinstance(view, ModelledView)
    assert view.mfu.value.endswith("%") and "modelled" in view.mfu.detail
    assert "DP" in view.plan_text and view.plan_reason
    assert "…" in view.band.value and view.band.unit == "GPU-h"
    assert sum(p.share for p in view.breakdown) == pytest.approx(1.0)
    for card in (view.mfu, view.step, view.band):
        assert card.tooltip  # every number has its formula
    assert "e+" not in view.band.value and "e+" not in view.step.value


def test_typed_utilization_overrides_the_modelled_mfu() -> None:
    training, shape = _preset("llm-7b")
    training = dataclasses.replace(training, utilization=0.33)
    typed = modelled_view(training, shape, utilization_user_set=True)
    default = modelled_view(training, shape, utilization_user_set=False)
    assert isinstance(typed, ModelledView) and isinstance(default, ModelledView)
    assert typed.mfu.value == "33.0%" and "your utilization" in typed.mfu.detail
    assert default.mfu.value != typed.mfu.value


def test_measured_matmul_efficiency_changes_the_prediction() -> None:
    training, shape = _preset("llm-7b")
    base = modelled_view(training, shape, utilization_user_set=False)
    slow = modelled_view(training, shape, 0.3, utilization_user_set=False)
    assert isinstance(base, ModelledView) and isinstance(slow, ModelledView)
    assert slow.mfu.value != base.mfu.value


def test_scaling_bends_and_is_plotted_on_nice_counts() -> None:
    training, shape = _preset("foundation-175b")
    view = modelled_view(training, shape, utilization_user_set=False)
    assert isinstance(view, ModelledView)
    sc = view.scaling
    assert set(sc.gpus.tolist()) <= set(PLOT_GPUS.tolist())
    assert sc.gpus[-1] == 4096
    mfu = sc.mfu_pct[np.isfinite(sc.mfu_pct)]
    assert mfu.max() - mfu.min() > 1.0  # not a flat (fixed-utilization) line
    assert sc.knee_text and sc.knee_text[0].isupper()


def test_nothing_fits_is_a_clear_message() -> None:
    training, shape = _preset("foundation-175b", gpus=1)
    view = modelled_view(training, {**shape, "tp": 1, "pp": 1}, utilization_user_set=False)
    assert isinstance(view, NotModelled)
    assert view.reason.startswith("No parallel plan fits")


def test_flops_times_samples_says_why_it_is_not_modelled() -> None:
    p = get_preset("cnn-imagenet")
    view = modelled_view(p.to_training_inputs())
    assert isinstance(view, NotModelled) and "6·N·D" in view.reason


def test_a_measured_device_is_modelled_with_its_matmul_efficiency() -> None:
    from desktopapp.application.training_view import measured_efficiency
    from desktopapp.model.catalog import get_accelerator

    training, shape = _preset("llm-7b")
    acc = get_accelerator(training.accelerator)
    peak = acc.peak_flops("bf16") / 1e12
    eff = measured_efficiency({"bf16": 0.5 * peak}, acc.id, "bf16")
    assert eff == pytest.approx(0.5)
    assert measured_efficiency({"bf16": 100.0}, None, "bf16") is None
    measured = dataclasses.replace(training, peak_tflops=0.5 * peak)
    view = modelled_view(measured, shape, eff, utilization_user_set=False)
    assert isinstance(view, ModelledView)  # not refused for the measured peak
    plain = modelled_view(training, shape, utilization_user_set=False)
    assert isinstance(plain, ModelledView) and view.mfu.value != plain.mfu.value


def test_band_tooltip_names_the_production_factor_and_its_hint() -> None:
    """Issue 13: the GPU-hours band says which production factor and goodput it used; the
    field's placeholder shows the fitted factor and where it was fitted."""
    from desktopapp.application.training_view import production_factor_hint
    from desktopapp.model.perf_training import production_fit

    training, shape = _preset("llm-7b")
    given = modelled_view(
        dataclasses.replace(training, production_factor=2.5), shape, utilization_user_set=False
    )
    assert isinstance(given, ModelledView)
    assert "production factor" in given.band.tooltip and "× 2.5" in given.band.tooltip
    # the band's formula names what it is built from, not the leave-one-out fit it left
    assert "leave-one-out error quantiles" not in given.band.tooltip
    assert "fitted to its own organisation" in given.band.tooltip
    fit = production_fit()
    hint = production_factor_hint()
    assert f"{fit.factor:.2f}" in hint.placeholder
    assert f"{fit.gpus_range[0]:,}" in hint.tooltip and "leave" not in hint.placeholder
    # the out-of-sample figure (issue 22), not the one-parameter leave-one-out one
    org = fit.organisation_split
    assert org is not None
    assert f"×{org['fitted_median_error']:.2f}" in hint.tooltip
    assert f"×{fit.loo_median_error:.2f}" not in hint.tooltip
    assert "From past runs" in hint.tooltip


@pytest.mark.parametrize("preset", ["llm-7b", "foundation-175b", "bert-base"])
def test_the_scaling_plot_does_not_zigzag(preset: str) -> None:
    """At 3·2^k GPUs a power-of-two global batch splits only with a pipeline of 3, so the
    plotted MFU dipped there and rose again at the next power of two (57% → 51% → 57% on
    llm-7b): a sawtooth people read as noise. The plot's counts are powers of two; along them
    the modelled MFU falls, or rises by at most a point or so where a larger fleet can shard
    further."""
    from desktopapp.application.snapshot import compute_snapshot, request_from_scenario
    from tests.application.test_one_answer import scenario_from_preset

    snap = compute_snapshot(request_from_scenario(scenario_from_preset(preset)))
    assert snap.training is not None and snap.training.modelled is not None
    view = modelled_view(snap.training.modelled)
    assert isinstance(view, ModelledView)
    mfu = view.scaling.mfu_pct[np.isfinite(view.scaling.mfu_pct)]
    assert mfu.size >= 5
    assert np.diff(mfu).max() <= 1.5, np.round(mfu, 1).tolist()
