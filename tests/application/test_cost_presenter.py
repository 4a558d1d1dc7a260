"""The Cost tab's presenter and owning-fields policy, without Qt: texts and rows equal the
model's figures."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from desktopapp.application import cost as presenter
from desktopapp.application import cost_hybrid as hybrid_presenter
from desktopapp.application.text import break_even_text, busy_percent
from desktopapp.model import planning, units
from desktopapp.model.catalog import offers_for

COLORS = {"good": "#0a0", "warn": "#a60", "bad": "#a00", "muted": "#777"}


def comparison(
    compared: int = 4, gpu_hours: float | None = 5000.0, accelerator: str = "h100-sxm"
) -> planning.CostComparison:
    onprem = planning.default_onprem(accelerator)
    assert onprem is not None
    offers = offers_for(accelerator)
    keys = planning.default_compared(offers)[:compared]
    inputs = planning.CostInputs(
        accelerator_id=accelerator,
        onprem=onprem,
        typed_gpu_hours=gpu_hours,
        compared=keys,
    )
    return planning.compare(inputs, None, 1.0)


def test_table_lists_owning_then_prices_from_the_cheapest() -> None:
    result = comparison()
    view = presenter.table_view(result, COLORS)
    assert len(view.rows) == 1 + len(result.options)
    assert all(len(row) == presenter.TABLE_COLUMNS for row in view.rows)
    own = view.rows[0]
    # the owning row at the planned fleet's utilization: its rate × the demand is its month
    rate, busy = presenter.owning_rate(result)
    assert result.fleet is not None and busy == result.fleet.utilization
    assert own[0][0].startswith("Own ") and own[1][0] == units.format_money(rate)
    assert result.owning_monthly_usd == pytest.approx(rate * result.demand.gpu_hours_per_month)
    ordered = sorted(result.options, key=lambda r: r.per_useful_hour)
    for row, option in zip(view.rows[1:], ordered, strict=True):
        assert row[0][0] == option.option.label
        assert row[2][0] == break_even_text(option.break_even)
        saving = option.saving_usd
        assert saving is not None
        expected = COLORS["good"] if saving >= 0 else COLORS["warn"]
        assert row[6][2] == expected
        assert row[6][0].startswith("Own saves" if saving >= 0 else "Rent saves")
    assert view.colors[0] == presenter.OWNING_COLOR
    assert result.fleet is not None
    assert f"owning {result.fleet.gpus} GPUs busy" in view.note


def test_without_demand_the_table_says_what_is_missing() -> None:
    result = comparison(gpu_hours=None)
    view = presenter.table_view(result, COLORS)
    assert view.note.startswith("Totals need the demand per month")
    assert view.rows[1][3][0] == units.DASH
    assert presenter.total_card(result) is None
    assert isinstance(hybrid_presenter.hybrid_view(result, COLORS["muted"]), str)


def test_verdict_counts_the_prices_owning_beats() -> None:
    result = comparison()
    beaten = sum(1 for r in result.options if r.owning_cheaper)
    text = presenter.verdict_html(result)
    assert f"<b>{beaten} of {len(result.options)}</b>" in text
    none = dataclasses.replace(result, options=())
    assert "Tick at least one cloud price" in presenter.verdict_html(none)


def test_break_even_card_spans_the_paying_prices() -> None:
    result = comparison()
    card = presenter.break_even_card(result)
    paying = sorted(r.break_even for r in result.options if r.break_even <= 1.0)
    if paying:
        assert card.value.endswith(units.format_percent(paying[-1], 0))
    else:
        assert card.value == "never"


def test_hybrid_view_states_the_plan() -> None:
    """Issue 25: the hybrid saving compares like with like. The panel shows the verdict's hybrid
    (fewer owned GPUs than the fleet, the rest rented) and its saving against the cheaper of
    renting all of the same demand and owning the fleet sized for it, both named in words (it
    used to compare the unrestricted best hybrid with all-cloud only)."""
    result = comparison()
    view = hybrid_presenter.hybrid_view(result, COLORS["muted"])
    assert not isinstance(view, str)
    verdict, fleet = result.verdict, result.fleet
    assert verdict is not None and fleet is not None
    mixed, rent, own = (verdict.plan(c) for c in (planning.HYBRID, planning.RENT, planning.OWN))
    assert mixed is not None and rent is not None and own is not None
    assert 0 < mixed.owned_gpus < fleet.gpus and own.owned_gpus == fleet.gpus
    assert f"Own {mixed.owned_gpus} GPUs" in view.summary
    for total in (mixed.cost_usd, rent.cost_usd, own.cost_usd):
        assert units.format_money(total) in view.summary
    assert f"owning the {fleet.gpus}-GPU fleet sized for it" in view.summary
    saving = min(rent.cost_usd, own.cost_usd) - mixed.cost_usd
    assert view.saving.value == units.format_money(saving)
    assert "renting all of it" in view.saving.detail or "fleet sized for it" in view.saving.detail
    # the bars are the verdict's hybrid: at most its owned GPUs' hours each month
    assert result.profile_gpu_hours is not None
    assert np.allclose(view.owned_gpu_hours + view.rented_gpu_hours, result.profile_gpu_hours)
    assert float(view.owned_gpu_hours.max()) <= mixed.owned_gpus * units.HOURS_PER_MONTH + 1e-6
    advice = result.recommendation
    assert advice is not None and advice.choice == verdict.choice


def test_idle_texts() -> None:
    result = comparison()
    text, tip = hybrid_presenter.owned_idle_view(result)
    owned = result.owned_idle
    assert owned is not None
    assert units.format_money(owned.monthly_usd) in text and tip
    assert result.rented_idle is not None
    rented, _tip = hybrid_presenter.rented_idle_view(result.rented_idle, "H100 & co")
    assert "H100 &amp; co" in rented
    no_demand, _ = hybrid_presenter.owned_idle_view(comparison(gpu_hours=None))
    assert "enter the demand" in no_demand


def test_demand_rule_names_the_fleet() -> None:
    result = comparison()
    text, tip = presenter.demand_rule_view(result, planning.DEMAND_TYPED)
    assert result.fleet is not None
    assert busy_percent(result.fleet.utilization) in text and tip == ""
    _, tip = presenter.demand_rule_view(result, planning.DEMAND_RUNS)
    assert tip == "GPU-hours per run × runs per month"


def test_cloud_only_ranks_prices() -> None:
    offers = offers_for("h100-sxm")
    keys = planning.default_compared(offers)
    view = planning.cloud_only(offers, keys, 0.1)
    colors = {k: presenter.option_color(i) for i, k in enumerate(keys)}
    shown = presenter.cloud_only_view(view, "server_price: needed", colors, COLORS["bad"])
    assert shown is not None
    cheapest = min(price for _o, price in view.prices)
    assert shown.card.value == units.format_money(cheapest)
    assert len(shown.table.rows) == 1 + len(view.prices)
    empty = planning.cloud_only(offers, (), 0.1)
    assert presenter.cloud_only_view(empty, "x", {}, COLORS["bad"]) is None


@pytest.mark.parametrize("typed", [False, True])
def test_owning_fields_policy(typed: bool) -> None:
    defaults = planning.owning_defaults("h100-sxm")
    fields = presenter.OwningFields(price_typed=typed, power_typed=typed)
    view = fields.view(defaults, COLORS)
    assert view.show_price is (not typed) and view.show_power is (not typed)
    assert view.server_price_resettable is typed and view.power_resettable is typed
    assert (view.server_price_note == "Typed in by you.") is typed
    assert view.server_price_tooltip == defaults.server_price_source
    assert defaults.server_price is not None and defaults.power_kw is not None
    opened = presenter.OwningFields.for_values(defaults, defaults.server_price, 99.0)
    assert not opened.price_typed and opened.power_typed


def test_missing_catalog_price_asks_for_a_quote_in_red() -> None:
    defaults = planning.owning_defaults("tpu-v4")
    view = presenter.OwningFields().view(defaults, COLORS)
    assert defaults.server_price is None
    assert COLORS["bad"] in view.server_price_note
    assert not view.server_price_resettable


def test_capex_assumption_is_the_planned_fleets() -> None:
    """Issue 25: "capex $360,000 × 1 server" was shown for a 2-server fleet."""
    result = comparison()
    assert result.fleet is not None
    rows = {a.name: a.value for a in presenter.fleet_assumptions(result)}
    total = float(result.onprem.server_price) * result.fleet.servers
    assert "capex per server" not in rows
    assert f"{result.fleet.servers} server" in rows["capex"]
    assert rows["capex"].endswith(units.format_money(total))


def test_recommendation_is_the_one_verdict_rendering() -> None:
    """Issue 21: the Cost tab's sentence is application.verdict's, as the CLI prints it."""
    import re

    from desktopapp.application.verdict import verdict_text

    result = comparison()
    assert result.verdict is not None
    shown = presenter.recommendation_html(result)
    assert re.sub(r"<[^>]+>", "", shown) == verdict_text(result.verdict)


def test_fleet_counts_in_the_tabs_texts_group_their_thousands() -> None:
    """5M GPU-hours a month: "Your 13696 owned GPUs would be idle …" read as one number."""
    c = comparison(gpu_hours=5e6)
    assert c.fleet is not None and c.fleet.gpus >= 10_000
    text, _tip = hybrid_presenter.owned_idle_view(c)
    assert f"Your {c.fleet.gpus:,} owned GPUs" in text, text
    assert f"{c.fleet.gpus:,} GPUs" in presenter.utilization_note(c)


def test_a_demand_beyond_any_fleet_is_flagged_under_the_demand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """1e17 GPU-hours a month was planned without a word on the Cost tab and in estimate tco."""
    from desktopapp.cli import run_command

    text, _tip = presenter.demand_rule_view(comparison(gpu_hours=1e17), "typed")
    words = "GPU-hours a month: 1.00×10^17 is beyond any real system"
    assert f"Check this input: {words}" in text, text
    assert "Check this input" not in presenter.demand_rule_view(comparison(), "typed")[0]
    argv = ["estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", "1e17"]
    capsys.readouterr()
    assert run_command(argv) == 0
    assert f"warning: {words}" in " ".join(capsys.readouterr().err.split())
