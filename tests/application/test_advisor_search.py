"""application/advisor.py (issue 24): the search over the catalog, its parity with
``desktopapp estimate train`` / ``estimate inference``, and its monotone properties."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktopapp.application import advisor as app
from desktopapp.cli import run_command
from desktopapp.model import advisor as adv

TODAY = date(2026, 11, 28)
# a 7B dense model (Llama 2 7B's shape) on a few accelerators with different interconnects
TRAIN = app.TrainWorkload(params=7e9, tokens=1e12, layers=32, hidden=4096, heads=32, seq_len=4096)
SHAPE_ARGS = ["--layers", "32", "--hidden", "4096", "--heads", "32", "--seq-len", "4096"]
SOME = ("h100-sxm", "a100-sxm-80gb", "tpu-v6e", "gb200", "b200")
SERVE = app.ServeWorkload(
    params=8e9,
    requests_per_s=5.0,
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    precisions=("bf16", "fp8"),
    ttft_slo_s=2.0,
    tpot_slo_s=0.05,
)
SERVE_ARGS = [
    "--params", "8B", "--layers", "32", "--hidden", "4096", "--heads", "32", "--kv-heads", "8",
    "--ttft-slo-ms", "2000", "--tpot-slo-ms", "50", "--prompt-tokens", "512",
    "--output-tokens", "256",
]  # fmt: skip


def _search(**kw):
    return app.search_training(TRAIN, adv.Constraints(include=SOME, **kw), today=TODAY)


def _sample(options, n):
    step = max(1, len(options) // n)
    return list(options[::step])[:n]


def _cli_json(capsys, argv):
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_training_options_equal_estimate_train(capsys):
    ranking = _search()
    assert len(ranking.options) > 20
    kinds = {o.pricing for o in ranking.options}
    assert {"on_demand", "spot", "owned"} <= kinds
    picked = _sample(ranking.options, 8)
    # one of each pricing kind at least
    for kind in kinds:
        if not any(o.pricing == kind for o in picked):
            picked.append(next(o for o in ranking.options if o.pricing == kind))
    for o in picked:
        argv = [
            "estimate", "train", "--params", "7B", "--tokens", "1T", *SHAPE_ARGS,
            "--accelerator", o.accelerator, "--gpus", str(o.gpus),
        ]  # fmt: skip
        if o.pricing == adv.OWNED:
            argv += ["--price", repr(o.price_usd_per_gpu_hour)]
        else:
            argv += ["--pricing", o.pricing]
        doc = _cli_json(capsys, argv)
        assert doc["model"] == "modelled run", o
        assert doc["price_per_gpu_hour"] == pytest.approx(o.price_usd_per_gpu_hour, rel=1e-12)
        assert doc["training_days"] == pytest.approx(o.wall_days, rel=1e-9)
        assert doc["gpu_hours"] == pytest.approx(o.gpu_hours, rel=1e-9)
        assert doc["estimated_cost_usd"] == pytest.approx(o.cost_usd, rel=1e-9)
        assert doc["cost_low_usd"] == pytest.approx(o.cost_low_usd, rel=1e-9)
        assert doc["cost_high_usd"] == pytest.approx(o.cost_high_usd, rel=1e-9)
        if o.pricing != adv.OWNED:
            assert o.offer.offer_id in doc["price_source"]


def test_serving_options_equal_estimate_inference(capsys):
    ranking = app.search_serving(SERVE, adv.Constraints(include=SOME), today=TODAY)
    assert ranking.options
    for o in _sample([o for o in ranking.options if o.pricing != adv.OWNED], 6):
        argv = [
            "estimate", "inference", *SERVE_ARGS, "--accelerator", o.accelerator,
            "--gpus", str(o.gpus_per_replica), "--pp", str(o.pipeline_stages),
            "--precision", o.precision, "--pricing", o.pricing, "--replicas", str(o.replicas),
        ]  # fmt: skip
        doc = _cli_json(capsys, argv)
        assert doc["concurrency"] == o.concurrency
        assert doc["slo_met"] is True
        assert doc["ttft_seconds"] == pytest.approx(o.ttft_seconds, rel=1e-9)
        assert doc["tpot_seconds"] == pytest.approx(o.tpot_seconds, rel=1e-9)
        assert doc["tokens_per_second"] == pytest.approx(
            o.tokens_per_second_per_replica * o.replicas, rel=1e-9
        )
        assert doc["cost_per_million_tokens"] == pytest.approx(o.cost_per_million_tokens, rel=1e-9)
        # the fleet carries the load with its headroom
        assert o.replicas * o.tokens_per_second_per_replica >= SERVE.output_tokens_per_second
        # one answer: the replica range is the replicas the estimate's likely throughput
        # range asks for (it used the fit's leave-one-out error, narrower and symmetric)
        low_tps = doc["tokens_per_second_low"] / o.replicas
        high_tps = doc["tokens_per_second_high"] / o.replicas
        needed = SERVE.output_tokens_per_second * (1.0 + SERVE.headroom)
        for got, rate in ((o.replicas_low, high_tps), (o.replicas_high, low_tps)):
            x = needed / rate  # the count, to float precision
            assert max(1, math.ceil(x - 1e-6)) <= got <= max(1, math.ceil(x + 1e-6))
    assert any("did not use" in note for note in ranking.notes)


def test_excluded_options_keep_their_reason():
    big = app.TrainWorkload(params=70e9, tokens=2e12, layers=80, hidden=8192, heads=64, kv_heads=8)
    ranking = app.search_training(big, adv.Constraints(include=("h100-sxm",)), today=TODAY)
    one = [e for e in ranking.excluded if e.gpus == 1]
    assert one and one[0].kind == adv.MEMORY and "memory" in one[0].reason
    assert all(o.gpus > 1 for o in ranking.options)
    for e in ranking.excluded:  # each fleet left out (some without modelling) cannot run
        if e.gpus is not None:
            with pytest.raises(ValueError):
                app.training_figures(big, "h100-sxm", e.gpus, "bf16")
    nothing = app.search_serving(
        app.ServeWorkload(params=8e9, requests_per_s=1, tpot_slo_s=1e-4),
        adv.Constraints(include=("h100-sxm",)),
        today=TODAY,
    )
    assert not nothing.options
    assert {e.kind for e in nothing.excluded} >= {adv.TARGETS}
    assert nothing.recommendation.startswith("No option serves this load")


def test_a_power_cap_below_an_accelerators_floor_leaves_it_out_once():
    """A 200 W cap is allowed on an H100 (200-700 W) but below what a 1,000 W B200 accepts:
    the B200 is left out with one row saying why (not one refusal per fleet size), and the
    H100 is still ranked with the cap."""
    import dataclasses

    capped = dataclasses.replace(TRAIN, power_cap_w=200.0)
    ranking = app.search_training(
        capped, adv.Constraints(include=("h100-sxm", "b200")), today=TODAY
    )
    rows = [e for e in ranking.excluded if e.accelerator == "b200" and e.kind != adv.NO_PRICE]
    assert len(rows) == 1 and rows[0].gpus is None, rows
    assert "cannot be capped below 250 W" in rows[0].reason and "200 W" in rows[0].reason
    assert {o.accelerator for o in ranking.options} == {"h100-sxm"}


def test_serving_fleets_past_the_stated_default_miss_the_constraints():
    """Both faces say the largest fleet considered is 16,384 GPUs by default, but serving
    applied no limit: 1e9 requests/s 'met the constraints' with 88 million H100s."""
    huge = app.ServeWorkload(params=8e9, requests_per_s=1e9)
    ranking = app.search_serving(huge, adv.Constraints(include=("h100-sxm",)), today=TODAY)
    assert ranking.options and not any(o.meets_constraints for o in ranking.options)
    assert "over the maximum of 16,384" in ranking.options[0].misses
    assert "16,384 GPUs binds" in ranking.recommendation
    raised = app.search_serving(
        huge, adv.Constraints(include=("h100-sxm",), max_gpus=1_000_000), today=TODAY
    )
    assert "over the maximum of 1,000,000" in raised.options[0].misses
    small = app.ServeWorkload(params=8e9, requests_per_s=5.0)
    ranked = app.search_serving(small, adv.Constraints(include=("h100-sxm",)), today=TODAY)
    assert ranked.options[0].meets_constraints


def test_owning_uses_the_cost_tabs_overrides():
    base = _search(pricing=("owned",))
    longer = app.search_training(
        TRAIN,
        adv.Constraints(include=SOME, pricing=("owned",)),
        owning=app.OwningOverrides(life_years=6),
        today=TODAY,
    )
    assert base.options and longer.options
    assert longer.options[0].price_usd_per_gpu_hour < base.options[0].price_usd_per_gpu_hour


def test_fleet_sizes_are_powers_of_two_and_whole_domains():
    assert app.fleet_sizes(8, 64) == (1, 2, 4, 8, 16, 32, 64)
    assert app.fleet_sizes(72, 300) == (1, 2, 4, 8, 16, 32, 64, 72, 128, 144, 256, 288)


def test_include_resolves_names_and_suggests():
    assert app.resolve_names(["H100", "lambda"], "include") == ("h100-sxm", "Lambda")
    with pytest.raises(ValueError, match=r"did you mean.*h100-sxm"):
        app.resolve_names(["h100-sxn"], "include")


def test_cancel_stops_the_search():
    with pytest.raises(app.SearchCancelled):
        app.search_training(TRAIN, adv.Constraints(include=SOME), cancelled=lambda: True)
    seen = []
    _search_progress = app.search_training(
        TRAIN, adv.Constraints(include=SOME), progress=lambda i, n: seen.append((i, n))
    )
    assert _search_progress.options
    assert seen[-1][0] == seen[-1][1] > 0


# --- monotone properties ----------------------------------------------------------------------


def _best_cost(ranking):
    best = ranking.best
    return None if best is None else best.cost_usd


@settings(max_examples=15, deadline=None)
@given(st.floats(1.0, 200.0), st.floats(0.05, 0.95))
def test_tighter_deadline_never_lowers_cost(deadline, shrink):
    loose = _best_cost(_search(deadline_days=deadline))
    tight = _best_cost(_search(deadline_days=deadline * shrink))
    if tight is not None:
        assert loose is not None and tight >= loose


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(SOME), st.none() | st.floats(1.0, 100.0))
def test_removing_an_accelerator_never_improves_the_best(removed, deadline):
    full = _best_cost(_search(deadline_days=deadline))
    fewer = app.search_training(
        TRAIN,
        adv.Constraints(include=tuple(a for a in SOME if a != removed), deadline_days=deadline),
        today=TODAY,
    )
    if fewer.best is not None:
        assert full is not None and fewer.best.cost_usd >= full


@settings(max_examples=8, deadline=None)
@given(st.floats(0.1, 50.0), st.floats(1.01, 20.0))
def test_higher_request_rate_never_needs_fewer_replicas(rate, factor):
    c = adv.Constraints(include=("h100-sxm", "a100-sxm-80gb"))
    low = app.search_serving(
        app.ServeWorkload(**{**SERVE.to_dict(), "requests_per_s": rate}), c, today=TODAY
    )
    high = app.search_serving(
        app.ServeWorkload(**{**SERVE.to_dict(), "requests_per_s": rate * factor}), c, today=TODAY
    )
    at_low = {o.key: o.replicas for o in low.options}
    assert at_low
    for o in high.options:
        assert o.replicas >= at_low[o.key]
    assert high.options[0].cost_per_month_usd >= low.options[0].cost_per_month_usd


def test_report_page_when_asked():
    from desktopapp.application.compare import summarize
    from desktopapp.application.report_html import standalone_html
    from desktopapp.model.scenario import Scenario
    from desktopapp.model.training import TrainingInputs

    training = TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=64)
    plain = Scenario(name="plain", training=training)
    assert app.report_section(plain) == ""
    assert "What to run on" not in standalone_html([summarize(plain, "plain", "")])
    choice = adv.AdvisorChoice(
        deadline_days=30, include=SOME, accelerator="h100-sxm", gpus=64, chosen_pricing="spot"
    )
    asked = Scenario(name="asked", training=training, advisor=choice)
    ranking = app.ranking_for_scenario(asked)
    assert ranking is not None and ranking.options
    page = standalone_html([summarize(asked, "asked", "")])
    assert "<h2>What to run on</h2>" in page
    import html

    assert html.escape(ranking.recommendation, quote=True) in page
    assert ranking.options[0].accelerator in page


def test_owned_fleets_are_whole_servers():
    from desktopapp.model.units import HOURS_PER_MONTH

    ranking = _search(pricing=("owned",))
    assert ranking.options
    for o in ranking.options:
        onprem = app.owned_inputs(o.accelerator, 8, None)
        assert onprem is not None and o.gpus % onprem.gpus_per_server == 0
    serving = app.search_serving(
        SERVE, adv.Constraints(include=("gb200",), pricing=("owned",)), today=TODAY
    )
    assert serving.options
    for o in serving.options:  # an NVL72 rack is bought whole, even for one replica of 1 GPU
        assert o.cost_per_month_usd >= 72 * o.price_usd_per_gpu_hour * HOURS_PER_MONTH * 0.999


def test_tab_precision_default_follows_each_accelerator():
    from desktopapp.model.training import TrainingInputs

    default = TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=8)
    assert app.train_workload_of(default, None, None).precision is None
    fp8 = TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=8, precision="fp8")
    assert app.train_workload_of(fp8, None, None).precision == "fp8"
    ranking = app.search_training(
        app.train_workload_of(fp8, None, None),
        adv.Constraints(include=("h100-sxm", "a100-sxm-80gb")),
        today=TODAY,
    )
    assert {o.accelerator for o in ranking.options} == {"h100-sxm"}
    assert any("fp8" in e.reason for e in ranking.excluded if e.accelerator == "a100-sxm-80gb")
