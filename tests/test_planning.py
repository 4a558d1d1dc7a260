"""model.planning without Qt: owning defaults, demand, price age, custom offers, the demand plan
and its recommendation, and the CLI giving the same TCO as the Cost tab's planning for every
catalog accelerator."""

from __future__ import annotations

import json
import math
from datetime import date

import pytest

from desktopapp.cli import run_command
from desktopapp.model import planning
from desktopapp.model import price_age as price_ages
from desktopapp.model.catalog import (
    CloudOffer,
    accelerator_catalog,
    cheapest_offer,
    estimated_server_power_kw,
    tco_defaults,
)
from desktopapp.model.tco import CloudInputs, OnPremInputs, estimate_tco, hybrid_plan

TODAY = date(2026, 11, 21)
ACCELERATORS = accelerator_catalog().ids
CLOUD_PRICE = 2.5  # USD per GPU-hour, typed in both places
QUOTE = 250_000.0  # USD per server, for accelerators with no catalog server price
POWER = 6.0  # kW per server, for accelerators with no published TDP


def cli_json(*args: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert run_command(["estimate", "tco", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def gui_side(acc_id: str, per_server: int, demand: float, months: int, profile: str):
    """What the Cost tab plans with for the accelerator's catalog defaults, the same typed
    cloud price and the same demand (fills in a quote/power only where the catalog has none,
    as a user must in the tab)."""
    defaults = planning.owning_defaults(acc_id, per_server)
    onprem = planning.default_onprem(acc_id, gpus_per_server=per_server)
    if onprem is None:
        values = tco_defaults()
        onprem = OnPremInputs(
            server_price=defaults.server_price or QUOTE,
            power_kw=defaults.power_kw or POWER,
            gpus=per_server,
            gpus_per_server=per_server,
            life_years=values.value("life_years"),
            pue=values.value("pue"),
            kwh_price=values.value("kwh_price"),
            ops_fraction=values.value("ops_fraction"),
            facility_usd_per_kw_month=values.value("facility_usd_per_kw_month"),
            utilization=values.value("utilization"),
        )
    offer = CloudOffer(
        id="custom/typed",
        provider="Typed",
        instance="price",
        accelerator_id=acc_id,
        gpus=1,
        region="",
        on_demand=CLOUD_PRICE,
        committed_1yr=None,
        committed_3yr=None,
        spot=None,
        price_date="2026",
        source="typed in",
        confidence="user",
        kind=planning.CUSTOM_OFFER_KIND,
    )
    inputs = planning.CostInputs(
        accelerator_id=acc_id,
        onprem=onprem,
        typed_gpu_hours=demand,
        horizon_months=months,
        profile=profile,
        compared=((offer.id, "on_demand"),),
        custom_offers=(offer,),
    )
    return defaults, planning.compare(inputs, None, 1.0)


@pytest.mark.parametrize("acc_id", ACCELERATORS)
def test_cli_and_cost_tab_planning_give_the_same_tco(
    acc_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog_server = tco_defaults().server_for(acc_id)
    sizes = {1, 4, 8} | ({catalog_server.gpus} if catalog_server else set())
    for per_server in sorted(sizes):
        defaults, comparison = gui_side(acc_id, per_server, 3000.0, 36, "growing")
        args = [
            "--accelerator", acc_id, "--gpus-per-server", str(per_server),
            "--cloud-price", str(CLOUD_PRICE), "--gpu-hours-per-month", "3000",
            "--horizon-months", "36", "--profile", "growing",
        ]  # fmt: skip
        if defaults.server_price is None:
            args += ["--server-price", str(QUOTE)]
        if defaults.power_kw is None:
            args += ["--power-kw", str(POWER)]
        data = cli_json(*args, capsys=capsys)
        onprem = comparison.onprem
        assert data["inputs"]["server_price"] == onprem.server_price, (acc_id, per_server)
        assert data["inputs"]["power_kw"] == onprem.power_kw, (acc_id, per_server)
        (option,) = comparison.options
        assert data["onprem_cost_per_gpu_hour"] == pytest.approx(
            option.at_utilization.onprem_cost_per_gpu_hour, rel=1e-12
        )
        assert data["break_even_utilization"] == pytest.approx(option.break_even, rel=1e-12)
        plan = data["plan"]
        assert comparison.fleet is not None and option.plan is not None
        assert plan["fleet"]["gpus"] == comparison.fleet.gpus
        assert plan["fleet_tco"]["onprem_horizon_usd"] == pytest.approx(
            option.plan.onprem_horizon_usd, rel=1e-12
        )
        assert plan["fleet_tco"]["cloud_horizon_usd"] == pytest.approx(
            option.plan.cloud_horizon_usd, rel=1e-12
        )
        assert comparison.hybrid is not None and comparison.recommendation is not None
        assert plan["hybrid"]["best_gpus"] == comparison.hybrid.best_gpus
        assert plan["hybrid"]["best_cost_usd"] == pytest.approx(comparison.hybrid.best_cost_usd)
        # The one recommendation the Cost tab leads with (one compared price here).
        verdict = comparison.verdict
        assert verdict is not None
        assert plan["recommendation"]["choice"] == verdict.choice
        assert plan["recommendation"]["cost_usd"] == pytest.approx(verdict.best.cost_usd)
        assert plan["recommendation"]["owned_gpus"] == verdict.best.owned_gpus


@pytest.mark.parametrize("acc_id", ACCELERATORS)
def test_estimated_power_keeps_three_figures_and_published_power_is_exact(acc_id: str) -> None:
    acc = accelerator_catalog().get(acc_id)
    for per_server in (1, 4, 8):
        defaults = planning.owning_defaults(acc_id, per_server)
        raw = estimated_server_power_kw(acc, per_server)
        if raw is None:
            assert defaults.power_kw is None
            continue
        assert defaults.power_kw is not None
        server = tco_defaults().server_for(acc_id)
        if server is not None and server.power_kw is not None and server.gpus == per_server:
            assert defaults.power_kw == raw
        else:
            assert defaults.power_kw == float(f"{raw:.3g}")
            assert defaults.power_source.startswith("estimated")


def test_plan_demand_is_the_model_on_the_sized_fleet() -> None:
    onprem = OnPremInputs(server_price=300_000, power_kw=10.2, gpus=8, utilization=0.6)
    cloud = CloudInputs(cloud_price=3.0)
    plan = planning.plan_demand(onprem, cloud, 10_000.0, 24, "flat")
    fleet = planning.size_fleet(10_000.0, 0.6, 8)
    assert (plan.fleet.servers, plan.fleet.gpus) == (fleet.servers, fleet.gpus)
    assert fleet.servers == math.ceil(10_000 / (0.6 * 730.5 * 8))
    expected = estimate_tco(plan.fleet_onprem, cloud, 24)
    assert plan.plan.onprem_horizon_usd == pytest.approx(expected.onprem_horizon_usd)
    hybrid = hybrid_plan(onprem, cloud, [10_000.0] * 24, gpu_step=8)
    assert plan.hybrid.best_gpus == hybrid.best_gpus


@pytest.mark.parametrize(("price", "choice"), [(0.2, planning.RENT), (40.0, planning.OWN)])
def test_recommendation_follows_the_hybrid_plan(price: float, choice: str) -> None:
    onprem = OnPremInputs(server_price=300_000, power_kw=10.2, gpus=8)
    plan = planning.plan_demand(onprem, CloudInputs(cloud_price=price), 4_000.0, 36, "flat")
    advice = planning.recommend(plan.hybrid, 8)
    assert advice.choice == choice
    assert advice.cost_usd == pytest.approx(plan.hybrid.best_cost_usd)
    assert advice.cost_usd <= min(advice.all_cloud_usd, advice.all_owned_usd) + 1e-6


def test_bursty_demand_can_recommend_owning_the_base_and_renting_bursts() -> None:
    onprem = OnPremInputs(server_price=300_000, power_kw=10.2, gpus=8)
    seen = set()
    for price in (3.0, 5.0, 8.0, 12.0):
        plan = planning.plan_demand(onprem, CloudInputs(price), 20_000.0, 48, "bursty")
        seen.add(planning.recommend(plan.hybrid, 8).choice)
    assert planning.HYBRID in seen


def test_cli_prints_the_recommendation_and_best_hybrid(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["estimate", "tco", "--accelerator", "h100-sxm", "--cloud-price", "6",
            "--gpu-hours-per-month", "4000", "--horizon-months", "36"]  # fmt: skip
    assert run_command(args) == 0
    out = capsys.readouterr().out
    assert "Recommendation" in out and "Best hybrid" in out and "Owned fleet" in out
    data = cli_json(*args[2:], capsys=capsys)
    assert data["inputs"]["months"] == 36
    assert data["plan"]["profile"] == "flat"
    assert data["plan"]["gpu_hours_per_month"] == 4000.0


def test_cli_without_demand_has_no_plan(capsys: pytest.CaptureFixture[str]) -> None:
    data = cli_json("--accelerator", "h100-sxm", "--cloud-price", "3", capsys=capsys)
    assert "plan" not in data


@pytest.mark.parametrize("value", ["0", "-5", "nan"])
def test_cli_rejects_a_bad_demand(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_command(
        ["estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", value]
    )
    assert code == 2
    assert "--gpu-hours-per-month" in capsys.readouterr().err


def test_default_onprem_rounds_gpus_up_to_whole_servers() -> None:
    onprem = planning.default_onprem("h100-sxm", 12)
    assert onprem is not None
    assert (onprem.gpus, onprem.gpus_per_server) == (16, 8)
    assert planning.default_onprem("tpu-v4") is None  # no catalog server price


# --- moved from tests/ui/test_cost_tab.py (no Qt needed) -----------------------------------


def test_make_custom_offer_validates() -> None:
    with pytest.raises(ValueError, match=r"^on_demand: give at least one price"):
        planning.make_custom_offer("h100-sxm", "X", "Y", 8, "", {}, "2026", "")
    with pytest.raises(ValueError, match=r"^spot: must be a price above 0"):
        planning.make_custom_offer("h100-sxm", "X", "Y", 8, "", {"spot": -1.0}, "2026", "")
    with pytest.raises(ValueError, match=r"^provider:"):
        planning.make_custom_offer("h100-sxm", " ", "Y", 8, "", {"spot": 1.0}, "2026", "")
    first = planning.make_custom_offer("h100-sxm", "X", "Y", 8, "r", {"spot": 1.0}, "2026", "")
    second = planning.make_custom_offer(
        "h100-sxm", "X", "Y", 8, "r", {"spot": 1.0}, "2026", "", existing_ids=[first.id]
    )
    assert first.id != second.id and isinstance(second, CloudOffer)


@pytest.mark.parametrize(
    ("price_date", "status"),
    [
        ("2025-06", price_ages.STALE),  # all of June 2025 is more than 12 months back
        ("2023-06-22", price_ages.STALE),
        ("2025-11-20", price_ages.STALE),  # 12 months and a day
        ("2025-11-21", price_ages.FRESH),  # exactly 12 months
        ("2025-11", price_ages.MAYBE_STALE),  # 1-20 Nov 2025 would be stale, 21-30 not
        ("2025", price_ages.MAYBE_STALE),
        ("2026", price_ages.FRESH),
        ("2026-04", price_ages.FRESH),
        ("not a date", price_ages.UNDATED),
        ("2025-02-30", price_ages.UNDATED),
    ],
)
def test_price_age_rule(price_date: str, status: str) -> None:
    age = price_ages.price_age(price_date, TODAY)
    assert age.status == status
    assert age.is_stale == (status == price_ages.STALE)


def test_monthly_demand_rules() -> None:
    typed = planning.monthly_demand(planning.DEMAND_TYPED, 1200.0, None, 1.0, 12)
    assert typed.gpu_hours_per_month == 1200.0
    runs = planning.monthly_demand(planning.DEMAND_RUNS, None, 500.0, 3.0, 12)
    assert runs.gpu_hours_per_month == 1500.0
    spread = planning.monthly_demand(planning.DEMAND_SPREAD, None, 1200.0, 1.0, 12)
    assert spread.gpu_hours_per_month == 100.0
    missing = planning.monthly_demand(planning.DEMAND_RUNS, None, None, 1.0, 12)
    assert missing.gpu_hours_per_month is None and "Workload" in missing.rule
    empty = planning.monthly_demand(planning.DEMAND_TYPED, None, None, 1.0, 12)
    assert empty.rule == "Type the GPU-hours you need each month."
    refused = planning.monthly_demand(planning.DEMAND_TYPED, None, None, 1.0, 12, "GPU-hours: no")
    assert refused.gpu_hours_per_month is None and refused.rule == "GPU-hours: no"
    assert cheapest_offer("h100-sxm", "on_demand") is not None


def _multi_price_comparison(profile: str = "flat", demand: float = 5e3) -> planning.CostComparison:
    onprem = planning.default_onprem("h100-sxm", gpus_per_server=8)
    assert onprem is not None
    offers = planning.offers_with_custom("h100-sxm", ())
    inputs = planning.CostInputs(
        accelerator_id="h100-sxm",
        onprem=onprem,
        typed_gpu_hours=demand,
        horizon_months=48,
        profile=profile,
        compared=planning.default_compared(offers),
    )
    return planning.compare(inputs, None, 1.0)


@pytest.mark.parametrize("profile", ["flat", "bursty", "growing"])
def test_verdict_is_the_cheapest_plan_and_rent_is_the_cheapest_price(profile: str) -> None:
    comparison = _multi_price_comparison(profile)
    verdict = comparison.verdict
    assert verdict is not None and comparison.fleet is not None
    plans = (verdict.best, *verdict.others)
    assert all(verdict.best.cost_usd <= p.cost_usd for p in plans)
    rent = next(p for p in plans if p.choice == planning.RENT)
    cheapest = comparison.cheapest_rent
    assert cheapest is not None and rent.label == cheapest.option.label
    total = float(comparison.profile_gpu_hours.sum())  # type: ignore[union-attr]
    assert rent.cost_usd == pytest.approx(total * cheapest.per_useful_hour)
    # one fleet size everywhere: owning in the verdict is the fleet of the table and cards
    own = next(p for p in plans if p.choice == planning.OWN)
    assert own.owned_gpus == comparison.fleet.gpus
    assert own.cost_usd == pytest.approx(comparison.owning_horizon_usd)
    hybrid = [p for p in plans if p.choice == planning.HYBRID]
    assert all(0 < p.owned_gpus < comparison.fleet.gpus for p in hybrid)


def test_verdict_headline_names_the_plan_and_the_differences() -> None:
    best = planning.PlanCost(planning.RENT, 374_400.0, 0, "Vast.ai H100")
    others = (
        planning.PlanCost(planning.HYBRID, 557_400.0, 8, "GCP"),
        planning.PlanCost(planning.OWN, 1_115_296.0, 16, ""),
    )
    text = planning.Verdict(best, others, 48).headline
    assert text.startswith("Rent: Vast.ai H100, $374,400 over 48 months")
    assert "$183,000 less than the best hybrid" in text
    assert "less than owning 16 GPUs" in text
