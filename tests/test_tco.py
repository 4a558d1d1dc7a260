"""Owning against renting: closed forms, crossings, hybrid optimality and properties."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from desktopapp.model import tco
from desktopapp.model.catalog import cloud_defaults, tco_defaults
from desktopapp.model.tco import (
    CloudInputs,
    OnPremInputs,
    break_even_utilization,
    cloud_yearly,
    cost_curves,
    cumulative_costs,
    demand_profile,
    estimate_tco,
    hybrid_plan,
    idle_cost,
    monthly_idle_waste,
    onprem_cost_per_useful_hour,
    onprem_hourly,
    onprem_yearly,
    payback_month,
)
from desktopapp.model.units import HOURS_PER_MONTH, HOURS_PER_YEAR

DGX = {"server_price": 270000.0, "power_kw": 10.2, "pue": 1.5, "kwh_price": 0.08}


def dgx(**changes) -> OnPremInputs:
    return OnPremInputs(**{**DGX, **changes})


# --- closed forms ------------------------------------------------------------------------------


def test_hourly_cost_matches_the_written_out_formula():
    onprem = dgx(ops_fraction=0.1, life_years=4)
    capex = 270000 / 8 / (4 * 8766)
    ops = 0.1 * 270000 / 8 / 8766
    energy = 10.2 / 8 * 1.5 * 0.08
    hourly = onprem_hourly(onprem)
    assert hourly.capex == pytest.approx(capex)
    assert hourly.ops == pytest.approx(ops)
    assert hourly.energy == pytest.approx(energy)
    assert hourly.facility == 0
    assert hourly.total == pytest.approx(capex + ops + energy)
    assert pytest.approx(8766) == HOURS_PER_YEAR


def test_break_even_is_hourly_cost_over_cloud_price_when_power_is_flat():
    """The reference's rule u* = C / P (tco_facts.md §5), C = capex + opex per GPU-hour."""
    onprem = dgx(ops_fraction=0.1, facility_usd_per_kw_month=150.0)
    for price in (6.88, 12.29, 2.95, 1.2):
        cloud = CloudInputs(price)
        per_hour = onprem_hourly(onprem).total  # does not depend on utilization here
        assert onprem_hourly(onprem, 0.1).total == pytest.approx(per_hour)
        assert break_even_utilization(onprem, cloud) == pytest.approx(per_hour / price)


def test_worked_check_from_the_reference():
    """$360k server, 8 kW, PUE 1.5, $0.08/kWh, 10% ops: ≈ $1.85-1.92 per GPU-hour and
    break-even ≈ 27% against $6.88 and ≈ 62-65% against a $2.95 neocloud price."""
    onprem = OnPremInputs(server_price=360000, power_kw=8, pue=1.5, kwh_price=0.08)
    assert 1.8 < onprem_hourly(onprem).total < 1.95
    assert break_even_utilization(onprem, CloudInputs(6.88)) == pytest.approx(0.279, abs=0.005)
    assert 0.6 < break_even_utilization(onprem, CloudInputs(2.95)) < 0.67


def test_break_even_with_idle_power_solves_the_equality():
    onprem = dgx(power_kw_idle=3.0)
    cloud = CloudInputs(3.0)
    u_star = break_even_utilization(onprem, cloud)
    fixed = onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour
    load = onprem.energy_load_per_gpu_hour
    assert load > 0
    assert u_star == pytest.approx(fixed / (3.0 - load))
    assert onprem_cost_per_useful_hour(onprem, u_star)[0] == pytest.approx(3.0)


def test_curves_cross_at_the_reported_break_even():
    onprem = dgx(power_kw_idle=4.0, ops_fraction=0.12)
    cloud = CloudInputs(4.5)
    curves = cost_curves(onprem, cloud, np.linspace(0.05, 1.0, 200))
    u_star = curves.break_even_utilization
    assert 0.05 < u_star < 1.0
    gap = curves.onprem_per_useful_hour - curves.cloud_per_useful_hour
    assert np.all(gap[curves.utilization < u_star] > 0)
    assert np.all(gap[curves.utilization > u_star] < 0)
    crossing = np.interp(0.0, -gap, curves.utilization)  # gap falls through zero
    assert crossing == pytest.approx(u_star, abs=2e-3)
    at = cost_curves(onprem, cloud, [u_star])
    assert at.onprem_per_useful_hour[0] == pytest.approx(at.cloud_per_useful_hour[0])


def test_cheap_cloud_never_pays_off():
    onprem = dgx()
    result = estimate_tco(onprem, CloudInputs(1.0))
    assert result.break_even_utilization > 1
    assert not result.pays_off and not result.owning_cheaper
    assert result.payback_month is None
    # energy under load alone dearer than the cloud: no break-even at all
    power_hungry = dgx(power_kw_idle=0.0, kwh_price=2.0)
    assert math.isinf(break_even_utilization(power_hungry, CloudInputs(1.0)))


def test_spot_overhead_applies_to_spot_only():
    assert CloudInputs(2.0, "on_demand", 0.2).effective_price == pytest.approx(2.0)
    assert CloudInputs(2.0, "committed_1yr", 0.2).effective_price == pytest.approx(2.0)
    assert CloudInputs(2.0, "spot", 0.2).effective_price == pytest.approx(2.4)
    yearly = cloud_yearly(dgx(utilization=0.5), CloudInputs(2.0, "spot", 0.1))
    assert yearly.spot_overhead == pytest.approx(0.1 * yearly.compute)
    assert yearly.compute == pytest.approx(8 * 0.5 * HOURS_PER_YEAR * 2.0)


def test_yearly_and_horizon_totals_add_up():
    onprem = dgx(gpus=16, utilization=0.6, power_kw_idle=5.0, facility_usd_per_kw_month=100)
    cloud = CloudInputs(3.5)
    result = estimate_tco(onprem, cloud)
    yearly = result.onprem_yearly
    assert yearly.total == pytest.approx(
        yearly.capex + yearly.energy + yearly.ops + yearly.facility
    )
    assert yearly.total == pytest.approx(result.onprem_cost_per_gpu_hour * 16 * HOURS_PER_YEAR)
    assert yearly.capex == pytest.approx(2 * 270000 / 4)
    assert yearly.facility == pytest.approx(100 * 10.2 * 2 * 12)
    assert result.cloud_yearly.total == pytest.approx(16 * 0.6 * HOURS_PER_YEAR * 3.5)
    assert result.horizon_months == 48
    assert result.onprem_horizon_usd == pytest.approx(4 * yearly.total)
    assert result.cloud_horizon_usd == pytest.approx(4 * result.cloud_yearly.total)
    data = result.to_dict()
    for key in (
        "break_even_utilization",
        "onprem_cost_per_gpu_hour",
        "cloud_cost_per_gpu_hour",
        "onprem_yearly_usd",
        "cloud_yearly_usd",
        "onprem_yearly_breakdown_usd",
        "cloud_yearly_breakdown_usd",
        "payback_month",
        "assumptions",
        "formula",
    ):
        assert key in data


def test_payback_exists_exactly_above_the_break_even():
    cloud = CloudInputs(4.0)
    u_star = break_even_utilization(dgx(), cloud)
    assert 0 < u_star < 1
    above = dgx(utilization=min(1.0, u_star * 1.05))
    below = dgx(utilization=u_star * 0.95)
    month = payback_month(above, cloud)
    assert month is not None and month <= 48
    assert payback_month(below, cloud) is None
    at_full = payback_month(dgx(utilization=1.0), cloud)
    assert at_full is not None and at_full <= month


def test_cumulative_costs_buy_again_at_end_of_life():
    onprem = dgx(life_years=3)
    cumulative = cumulative_costs(onprem, CloudInputs(4.0), months=80)
    assert cumulative.months[0] == 0 and cumulative.months[-1] == 80
    jumps = np.diff(cumulative.onprem_usd)
    running = jumps[0]
    assert np.allclose(np.delete(jumps, [36, 72]), running)
    assert jumps[36] == pytest.approx(running + 270000)
    assert jumps[72] == pytest.approx(running + 270000)
    assert cumulative.cloud_usd[0] == 0 and np.all(np.diff(cumulative.cloud_usd) > 0)
    assert cumulative.onprem_usd[0] == pytest.approx(270000)
    assert cumulative.assumptions and "payback" in cumulative.formula
    curves = cost_curves(onprem, CloudInputs(4.0))
    assert curves.assumptions and curves.formula
    assert curves.utilization[0] > 0 and curves.utilization[-1] == pytest.approx(1.0)


def test_assumptions_name_their_sources():
    result = estimate_tco(dgx(), CloudInputs(2.0, "spot"))
    names = {a.name for a in result.assumptions}
    assert {"PUE", "electricity", "depreciation", "spot interruption overhead"} <= names
    sources = {a.name: a.source for a in result.assumptions}
    assert sources["electricity"] == "input"  # 0.08 given, not the default
    assert sources["depreciation"].startswith("default: ")
    # Sources read as sources (issue 16), not as the file they were built from.
    assert "tco_facts.md" not in sources["depreciation"] and "§" not in sources["depreciation"]
    assert len(sources["depreciation"]) > len("default: ") + 20
    assert "8766" in result.formula


def test_defaults_equal_the_bundled_defaults():
    values = tco_defaults()
    assert values.value("pue") == tco.DEFAULT_PUE
    assert values.value("kwh_price") == tco.DEFAULT_KWH_PRICE
    assert values.value("life_years") == tco.DEFAULT_LIFE_YEARS
    assert values.value("ops_fraction") == tco.DEFAULT_OPS_FRACTION
    assert values.value("facility_usd_per_kw_month") == tco.DEFAULT_FACILITY_USD_PER_KW_MONTH
    assert values.value("utilization") == tco.DEFAULT_UTILIZATION
    assert cloud_defaults().spot_overhead.value == tco.DEFAULT_SPOT_OVERHEAD


# --- idle cost ---------------------------------------------------------------------------------


def test_idle_a100_costs_about_1400_to_2800_a_month():
    assert pytest.approx(730.5) == HOURS_PER_MONTH
    low, high = monthly_idle_waste(2.0), monthly_idle_waste(4.0)
    assert low.monthly_usd == pytest.approx(1461.0)
    assert high.monthly_usd == pytest.approx(2922.0)
    assert high.yearly_usd == pytest.approx(12 * 2922.0)
    assert monthly_idle_waste(3.0, idle_fraction=0.5, gpus=8).monthly_usd == pytest.approx(
        3.0 * 730.5 * 0.5 * 8
    )
    assert idle_cost(2.5, 10) == pytest.approx(25.0)
    assert low.assumptions and "730.5" in low.formula


# --- hybrid ------------------------------------------------------------------------------------


def test_demand_profiles():
    flat = demand_profile("flat", 12, 10)
    assert np.allclose(flat, 10 * HOURS_PER_MONTH)
    growing = demand_profile("growing", 12, 10, growth=0.1)
    assert growing[0] == pytest.approx(10 * HOURS_PER_MONTH)
    assert np.all(np.diff(growing) > 0)
    bursty = demand_profile("bursty", 60, 10, burst_probability=0.3, burst_multiplier=4, seed=7)
    assert set(np.round(bursty / HOURS_PER_MONTH, 9)) <= {10.0, 40.0}
    assert 0 < np.count_nonzero(bursty > 10 * HOURS_PER_MONTH + 1) < 60
    again = demand_profile("bursty", 60, 10, burst_probability=0.3, burst_multiplier=4, seed=7)
    assert np.array_equal(bursty, again)
    other = demand_profile("bursty", 60, 10, burst_probability=0.3, burst_multiplier=4, seed=8)
    assert not np.array_equal(bursty, other)
    with pytest.raises(ValueError, match=r"^shape: must be one of flat, growing, bursty"):
        demand_profile("spiky", 12, 10)


def test_hybrid_on_a_bursty_profile_beats_both_extremes():
    onprem = dgx()
    cloud = CloudInputs(6.88)
    demand = demand_profile("bursty", 48, 16, burst_probability=0.2, burst_multiplier=4, seed=3)
    plan = hybrid_plan(onprem, cloud, demand)
    assert plan.all_owned_gpus == 64
    assert plan.all_cloud_cost_usd == pytest.approx(6.88 * demand.sum())
    assert plan.best_cost_usd <= min(plan.all_cloud_cost_usd, plan.all_owned_cost_usd) + 1e-6
    assert 0 < plan.best_gpus < plan.all_owned_gpus  # own the base, rent the bursts
    assert plan.saving_vs_all_cloud_usd > 0 and plan.saving_vs_all_owned_usd > 0
    assert np.allclose(plan.owned_gpu_hours + plan.cloud_gpu_hours, demand)
    # the exact optimum: nothing on the full grid is cheaper
    assert plan.cost_grid.min() == pytest.approx(plan.best_cost_usd)
    assert plan.gpus_grid[np.argmin(plan.cost_grid)] == plan.best_gpus


def test_hybrid_extremes():
    demand = demand_profile("flat", 24, 8)
    assert hybrid_plan(dgx(), CloudInputs(20.0), demand).best_gpus == 8  # cloud dear: own all
    assert hybrid_plan(dgx(), CloudInputs(0.5), demand).best_gpus == 0  # cloud cheap: rent all
    whole = hybrid_plan(dgx(), CloudInputs(6.88), demand_profile("flat", 24, 13), gpu_step=8)
    assert whole.best_gpus % 8 == 0 and whole.all_owned_gpus == 16
    assert hybrid_plan(dgx(), CloudInputs(1.0), np.zeros(6)).best_cost_usd == 0


@given(
    demand=st.lists(st.floats(0, 40 * HOURS_PER_MONTH), min_size=1, max_size=36),
    price=st.floats(0.2, 15.0),
    idle=st.floats(0.0, 1.0),
    step=st.sampled_from([1, 4, 8]),
)
def test_hybrid_never_costs_more_than_either_extreme(demand, price, idle, step):
    onprem = dgx(power_kw_idle=idle * 10.2)
    plan = hybrid_plan(onprem, CloudInputs(price), demand, gpu_step=step)
    tolerance = 1e-9 * max(1.0, plan.all_cloud_cost_usd, plan.all_owned_cost_usd)
    assert plan.best_cost_usd <= plan.all_cloud_cost_usd + tolerance
    assert plan.best_cost_usd <= plan.all_owned_cost_usd + tolerance
    assert plan.best_cost_usd <= plan.cost_grid.min() + tolerance
    assert plan.best_gpus % step == 0 and 0 <= plan.best_gpus <= plan.all_owned_gpus


# --- properties over the input domain ---------------------------------------------------------

onprem_inputs = st.builds(
    OnPremInputs,
    server_price=st.floats(0, 5e6),
    power_kw=st.floats(0, 150),
    gpus=st.just(8),
    gpus_per_server=st.sampled_from([1, 2, 4, 8]),
    life_years=st.floats(1, 10),
    pue=st.floats(1, 3),
    kwh_price=st.floats(0, 1),
    ops_fraction=st.floats(0, 1),
    facility_usd_per_kw_month=st.floats(0, 500),
    utilization=st.floats(0.01, 1),
)
cloud_inputs = st.builds(
    CloudInputs,
    cloud_price=st.floats(0.05, 100),
    pricing=st.sampled_from(["on_demand", "committed_1yr", "committed_3yr", "spot"]),
    spot_overhead=st.floats(0, 1),
)


@given(onprem=onprem_inputs, cloud=cloud_inputs)
def test_results_are_finite_and_non_negative(onprem, cloud):
    result = estimate_tco(onprem, cloud)
    values = [
        result.onprem_cost_per_gpu_hour,
        result.onprem_cost_per_useful_gpu_hour,
        result.cloud_cost_per_gpu_hour,
        result.onprem_yearly.total,
        result.cloud_yearly.total,
        result.onprem_horizon_usd,
        result.cloud_horizon_usd,
        *result.hourly.to_dict().values(),
        *result.onprem_yearly.to_dict().values(),
    ]
    assert all(math.isfinite(v) and v >= 0 for v in values)
    assert result.break_even_utilization >= 0  # may be inf: "never"
    assert result.pays_off == (result.break_even_utilization <= 1)
    assert np.all(np.isfinite(result.cumulative.onprem_usd))
    assert np.all(np.diff(result.cumulative.cloud_usd) >= 0)
    if result.pays_off and onprem.utilization >= result.break_even_utilization * (1 + 1e-9):
        assert result.owning_cheaper


@given(onprem=onprem_inputs, u1=st.floats(0.01, 1), u2=st.floats(0.01, 1))
def test_higher_utilization_never_raises_owning_cost_per_useful_hour(onprem, u1, u2):
    low, high = sorted((u1, u2))
    costs = onprem_cost_per_useful_hour(onprem, [low, high])
    assert costs[1] <= costs[0] * (1 + 1e-12) + 1e-12


@given(onprem=onprem_inputs, p1=st.floats(0.05, 100), p2=st.floats(0.05, 100))
def test_higher_cloud_price_never_raises_break_even(onprem, p1, p2):
    low, high = sorted((p1, p2))
    cheap = break_even_utilization(onprem, CloudInputs(low))
    dear = break_even_utilization(onprem, CloudInputs(high))
    assert dear <= cheap or math.isclose(dear, cheap, rel_tol=1e-12)


@given(
    onprem=onprem_inputs,
    cloud=cloud_inputs,
    extra_capex=st.floats(0, 1e6),
    extra_kwh=st.floats(0, 1),
)
def test_dearer_hardware_or_power_never_lowers_break_even(onprem, cloud, extra_capex, extra_kwh):
    base = break_even_utilization(onprem, cloud)
    pricier = OnPremInputs(
        **{
            **{f: getattr(onprem, f) for f in ("power_kw", "gpus", "gpus_per_server")},
            "server_price": onprem.server_price + extra_capex,
            "life_years": onprem.life_years,
            "pue": onprem.pue,
            "kwh_price": onprem.kwh_price + extra_kwh,
            "ops_fraction": onprem.ops_fraction,
            "facility_usd_per_kw_month": onprem.facility_usd_per_kw_month,
        }
    )
    assert break_even_utilization(pricier, cloud) >= base * (1 - 1e-12)


@given(onprem=onprem_inputs, target=st.floats(0.02, 1.0))
def test_curves_cross_where_reported(onprem, target):
    """Pick the cloud price whose break-even is ``target``: the model must report ``target``
    and both costs must be equal there, per useful hour and per year."""
    fixed = onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour
    assume(fixed > 1e-3)
    price = fixed / target + onprem.energy_load_per_gpu_hour
    cloud = CloudInputs(price)
    u_star = break_even_utilization(onprem, cloud)
    assert u_star == pytest.approx(target, rel=1e-9)
    own = onprem_cost_per_useful_hour(onprem, u_star)[0]
    assert own == pytest.approx(cloud.effective_price, rel=1e-9)
    assert onprem_yearly(onprem, u_star).total == pytest.approx(
        cloud_yearly(onprem, cloud, u_star).total, rel=1e-9
    )


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"server_price": -1}, "server_price"),
        ({"server_price": math.nan}, "server_price"),
        ({"power_kw": -0.1}, "power_kw"),
        ({"gpus": 0}, "gpus"),
        ({"gpus": 12}, "gpus"),
        ({"gpus": 8.5}, "gpus"),
        ({"gpus_per_server": 0}, "gpus_per_server"),
        ({"life_years": 0.5}, "life_years"),
        ({"life_years": 30}, "life_years"),
        ({"power_kw_idle": 11.0}, "power_kw_idle"),
        ({"power_kw_idle": -1.0}, "power_kw_idle"),
        ({"pue": 0.9}, "pue"),
        ({"kwh_price": -0.01}, "kwh_price"),
        ({"ops_fraction": 1.5}, "ops_fraction"),
        ({"facility_usd_per_kw_month": -5}, "facility_usd_per_kw_month"),
        ({"utilization": 0}, "utilization"),
        ({"utilization": 1.2}, "utilization"),
        ({"utilization": "high"}, "utilization"),
    ],
)
def test_invalid_onprem_input_names_the_field(changes, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        dgx(**changes)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"cloud_price": 0}, "cloud_price"),
        ({"cloud_price": math.inf}, "cloud_price"),
        ({"cloud_price": 2.0, "pricing": "hourly"}, "pricing"),
        ({"cloud_price": 2.0, "spot_overhead": -0.1}, "spot_overhead"),
        ({"cloud_price": 2.0, "spot_overhead": 2}, "spot_overhead"),
    ],
)
def test_invalid_cloud_input_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}: "):
        CloudInputs(**kwargs)


def test_invalid_function_arguments_name_the_field():
    with pytest.raises(ValueError, match=r"^utilization: "):
        onprem_cost_per_useful_hour(dgx(), [0.5, 0.0])
    with pytest.raises(ValueError, match=r"^months: "):
        cumulative_costs(dgx(), CloudInputs(2.0), months=0)
    with pytest.raises(ValueError, match=r"^demand: "):
        hybrid_plan(dgx(), CloudInputs(2.0), [100.0, -1.0])
    with pytest.raises(ValueError, match=r"^demand: "):
        hybrid_plan(dgx(), CloudInputs(2.0), [])
    with pytest.raises(ValueError, match=r"^gpu_step: "):
        hybrid_plan(dgx(), CloudInputs(2.0), [100.0], gpu_step=0)
    with pytest.raises(ValueError, match=r"^idle_hours: "):
        idle_cost(2.0, -1)
    with pytest.raises(ValueError, match=r"^idle_fraction: "):
        monthly_idle_waste(2.0, idle_fraction=1.5)
    with pytest.raises(ValueError, match=r"^growth: "):
        demand_profile("growing", 12, 4, growth=5)


def test_whole_number_floats_are_accepted_as_counts():
    sixteen: Any = 16.0  # e.g. parsed from a text field
    eight: Any = 8.0
    onprem = OnPremInputs(server_price=1e5, power_kw=5, gpus=sixteen, gpus_per_server=eight)
    assert onprem.gpus == 16 and isinstance(onprem.gpus, int) and onprem.servers == 2


def test_refusals_name_other_fields_in_the_users_words():
    """The idle-power refusal named the internal field ("at most power_kw (10.2)")."""
    from desktopapp.model.tco import OnPremInputs
    from desktopapp.model.validation import InputError

    with pytest.raises(InputError) as raised:
        OnPremInputs(server_price=300e3, gpus_per_server=8, power_kw=10.2, power_kw_idle=99)
    assert "at most the power at full load (10.2 kW), got 99" in str(raised.value)
    assert "power_kw " not in str(raised.value) and "(power_kw" not in str(raised.value)
    with pytest.raises(InputError) as raised:
        OnPremInputs(server_price=300e3, gpus_per_server=8, gpus=12, power_kw=10.2)
    assert "whole number of servers of 8 GPUs, got 12" in str(raised.value)
    assert "gpus_per_server" not in str(raised.value)
