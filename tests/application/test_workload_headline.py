"""The Workload tab's headline sentence and chain, the scaling charts' extras, infeasible serving
and the grammar of counts (issues 21 and 25), checked on the presenter without a display."""

from __future__ import annotations

import math

import numpy as np
import pytest

from desktopapp.application import workload
from desktopapp.application.snapshot import compute_snapshot, request_from_preset
from desktopapp.application.training_view import modelled_view
from desktopapp.model import units
from desktopapp.model.inference import InferenceInputs, estimate_inference


def test_the_headline_adds_up() -> None:
    snap = compute_snapshot(request_from_preset("foundation-175b", with_verdict=False))
    figures = snap.training
    assert figures is not None and figures.run is not None
    hero = workload.hero_view(figures.estimate, figures.run)
    assert hero.sentence.startswith("175B on 1,024 H100: about ")
    assert workload.about_duration(figures.wall_seconds) in hero.sentence
    assert figures.cost_low_usd is not None and "likely" in hero.sentence
    # steady state × production factor ÷ goodput = wall time; GPU-hours and cost follow
    run = figures.run
    steady = run.training_seconds * run.goodput / run.production_factor
    assert steady * run.production_factor / run.goodput == pytest.approx(figures.wall_seconds)
    assert units.format_duration(figures.wall_seconds) in hero.chain
    assert f"{units.format_count(figures.gpu_hours).replace(' ', '')} GPU-hours" in hero.chain
    assert figures.cost_usd is not None
    assert hero.chain.endswith(units.format_money(figures.cost_usd))
    assert figures.wall_seconds * 1024 / 3600 == pytest.approx(figures.gpu_hours, rel=1e-9)


def test_spoken_durations_and_money() -> None:
    assert workload.about_duration(39 * 60) == "39 minutes"
    assert workload.about_duration(60) == "1 minute"
    assert workload.about_duration(5.3 * 3600) == "5.3 hours"
    assert workload.about_duration(10.2 * 86400) == "10 days"
    assert workload.money_short(390_000) == "$390k"
    assert workload.money_short(1.23e6) == "$1.2M"
    # a run beyond two years reads in years, never a 30-digit count of days (a typed 1e40
    # tokens once gave "about 160,827,634,280,339,500,326,184,812,544 days")
    assert workload.about_duration(729 * 86400) == "729 days"
    assert workload.about_duration(800 * 86400) == "2.2 years"
    assert workload.about_duration(264 * units.SECONDS_PER_YEAR) == "264 years"
    assert workload.about_duration(4.4e26 * units.SECONDS_PER_YEAR) == "4.4×10^26 years"
    assert workload.money_short(7.4e12) == "$7.4T"
    assert workload.money_short(9.9e32) == units.format_money(9.9e32)
    assert "B" not in workload.money_short(9.9e32)
    assert workload._money_range(4.4e12, 1.4e13) == "$4.4-14T"
    # the scaling charts keep the headline's unit
    assert workload.time_unit_for(800 * 86400)[0] == "years"
    assert workload.time_unit_for(700 * 86400)[0] == "days"
    assert workload.accelerator_short_name("NVIDIA H100 SXM5 80GB") == "H100"
    assert workload.accelerator_short_name("AMD Instinct MI300X") == "MI300X"
    assert workload.plural(1, "sequence") == "1 sequence"
    assert workload.plural(154, "sequence") == "154 sequences"


def test_scaling_charts_mark_the_current_count_in_the_headlines_unit() -> None:
    snap = compute_snapshot(request_from_preset("foundation-175b", with_verdict=False))
    assert snap.training is not None and snap.training.run is not None
    view = modelled_view(snap.training.modelled)
    assert not isinstance(view, str) and hasattr(view, "scaling")
    extras = workload.scaling_plots(view.scaling, snap.training.run)
    assert extras.time_title == "wall time (days)"  # the headline says days
    assert extras.current is not None and extras.current[0] == 1024
    assert extras.current[1] == pytest.approx(snap.training.wall_seconds / 86400)
    assert np.allclose(extras.time, view.scaling.hours / 24, equal_nan=True)
    assert extras.cost_top is not None and extras.cost_top >= np.nanmax(view.scaling.cost)
    assert 2 <= len(extras.time_ticks) <= 7  # uncrowded
    short = compute_snapshot(request_from_preset("bert-base", with_verdict=False))
    assert short.training is not None and short.training.run is not None
    short_view = modelled_view(short.training.modelled)
    sentence = workload.scaling_plots(short_view.scaling, short.training.run).sentence  # type: ignore[union-attr]
    assert "minutes" in sentence and "30%" not in sentence


@pytest.mark.parametrize(("low", "high"), [(0.012, 1.8), (2.0, 4000.0), (800.0, 1000.0)])
def test_log_ticks_stay_within_the_range_and_few(low: float, high: float) -> None:
    ticks = workload.log_ticks(low, high, "h")
    assert 2 <= len(ticks) <= 7
    assert all(low * 0.999 <= v <= high * 1.001 for v, _ in ticks)
    assert all(text.endswith(" h") for _, text in ticks)


def test_a_model_that_does_not_fit_shows_why_not_figures() -> None:
    est = estimate_inference(
        InferenceInputs(params=175e9, accelerator="h100-sxm", layers=96, hidden=12288, heads=96)
    )
    assert est.fits is False
    view = workload.inference_view(est, est.inputs)
    assert view.infeasible.startswith("Does not fit: needs ")
    assert units.format_bytes(est.memory_per_device_bytes) in view.infeasible
    assert view.cost is None and view.throughput.value == "—"
    needed = int(view.infeasible.split("at least ")[1].split(" ")[0])
    assert needed * 0.9 * (est.device_memory_bytes or 0) >= est.memory_per_device_bytes
    assert not math.isnan(needed)


def test_large_durations_group_their_thousands() -> None:
    """The Wall time card and the chain said "63065 years" under a headline of "63,065 years"."""
    assert units.format_duration(63_065 * units.SECONDS_PER_YEAR) == "63,065 years"
    assert units.format_duration(1_234 * 3600) == "51.4 days"
    assert units.format_duration(9_999) == "2.78 h"
