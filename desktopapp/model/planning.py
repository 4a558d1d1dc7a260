"""Capacity planning over ``model.tco``: pure Python + numpy (tested without a display).

The Cost tab and ``desktopapp estimate tco`` both plan through this module, so the GUI and the
CLI give the same TCO for the same inputs (``tests/test_planning.py`` checks it for every catalog
accelerator). It turns planning inputs into ``model.tco`` inputs and gathers the model's results
for every cloud price being compared. It adds no cost formula of its own; the few rules it
owns are about *planning* and each one is stated where it is used:

- **Demand** (GPU-hours per month) is typed in, or comes from the Workload tab's estimate:
  ``GPU-hours per run × runs per month``, or ``GPU-hours of the run ÷ horizon months``.
- **Fleet**: buying means whole servers. The owned fleet is the fewest servers whose GPUs serve
  the demand without being busier than the chosen utilization:
  ``servers = ⌈demand ÷ (utilization × 730.5 h × GPUs per server)⌉``; the fleet's own utilization
  is then ``demand ÷ (fleet GPUs × 730.5 h)`` (at most the chosen one).
- **Catalog defaults** for the servers: the catalog server's price per GPU × GPUs per server,
  plus the install/fabric overhead from ``tco_defaults.json`` (the same rule as
  ``desktopapp estimate tco``), and ``catalog.estimated_server_power_kw`` for the power; an
  estimated power (no published server figure for that GPU count) is kept to three significant
  figures, all the estimate has, in the Cost tab and the CLI alike.
- **Price age** (:mod:`desktopapp.model.price_age`): a price dated ``2025-06`` is from some day
  of June 2025, *stale* when even the last day of that period is more than 12 months back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import (
    PRICING_MODELS,
    CloudOffer,
    accelerator_catalog,
    cloud_defaults,
    estimated_server_power_kw,
    offers_for,
    tco_defaults,
)
from desktopapp.model.price_age import date_period
from desktopapp.model.scenario import (
    DEFAULT_GPU_HOURS_PER_MONTH,
    DEFAULT_HORIZON_MONTHS,
    DEFAULT_RUNS_PER_MONTH,
    DEMAND_RUNS,
    DEMAND_SPREAD,
    DEMAND_TYPED,
    ComparedPrice,
    CostDemand,
    CostPlan,
    check_custom_offer,
)
from desktopapp.model.tco import (
    DEFAULT_GPUS_PER_SERVER,
    DEMAND_SHAPES,
    CloudInputs,
    HourlyCost,
    HybridResult,
    IdleWaste,
    OnPremInputs,
    TcoResult,
    cloud_cost_per_useful_hour,
    demand_profile,
    estimate_tco,
    hybrid_plan,
    monthly_idle_waste,
    onprem_cost_per_useful_hour,
    onprem_hourly,
)
from desktopapp.model.units import HOURS_PER_MONTH
from desktopapp.model.validation import InputError

FloatArray = npt.NDArray[np.float64]
OptionKey = tuple[str, str]  # (offer id, pricing model)
CUSTOM_OFFER_KIND = "custom"  # CloudOffer.kind of an offer the user typed in

DEFAULT_ACCELERATOR = "h100-sxm"
# DEFAULT_GPU_HOURS_PER_MONTH, DEFAULT_HORIZON_MONTHS and the DEMAND_* sources come from
# model.scenario (a scenario file stores the demand).
LIFE_CHOICES: tuple[int, ...] = (3, 4, 5, 6)
MAX_GPUS_PER_SERVER = 72
CURVE_UTILIZATION = np.linspace(0.02, 1.0, 99)

DEMAND_SOURCES: tuple[tuple[str, str], ...] = (
    (DEMAND_TYPED, "Typed in"),
    (DEMAND_RUNS, "Workload estimate × runs per month"),
    (DEMAND_SPREAD, "Workload estimate spread over the horizon"),
)
PROFILE_LABELS: Mapping[str, str] = {
    "flat": "Flat: the same every month",
    "growing": "Growing 5% a month",
    "bursty": "Bursty: some months ×3",
}
PRICING_LABELS: Mapping[str, str] = {
    "on_demand": "On-demand",
    "committed_1yr": "1-yr commit",
    "committed_3yr": "3-yr commit",
    "spot": "Spot",
}
KIND_LABELS: Mapping[str, str] = {
    "hyperscaler": "Hyperscaler",
    "neocloud": "Neocloud",
    "marketplace": "Marketplace",
    CUSTOM_OFFER_KIND: "Your offers",
}
assert set(PROFILE_LABELS) == set(DEMAND_SHAPES)
assert set(PRICING_LABELS) == set(PRICING_MODELS)


# --- catalog defaults ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OwningDefaults:
    """Catalog figures for owning servers of one accelerator (None where the catalog has none)."""

    accelerator_id: str
    accelerator_name: str
    gpus_per_server: int
    server_price: float | None
    server_price_source: str
    power_kw: float | None
    power_source: str
    server_name: str = ""
    power_note: str = ""  # one short line for under the field; power_source has it all


def owning_defaults(accelerator_id: str, gpus_per_server: int | None = None) -> OwningDefaults:
    """Server price (with the install/fabric overhead) and power for ``gpus_per_server`` GPUs
    (default: the catalog server's count, else 8)."""
    acc = accelerator_catalog().find(accelerator_id)
    defaults = tco_defaults()
    server = defaults.server_for(acc.id) if acc is not None else None
    per_server = gpus_per_server or (server.gpus if server else DEFAULT_GPUS_PER_SERVER)
    name = acc.name if acc is not None else accelerator_id
    price: float | None = None
    price_source = f"No catalog server price for {name}: type your quote."
    if server is not None and server.price_usd is not None:
        overhead = defaults.get("install_overhead_fraction")
        price = server.price_usd / server.gpus * per_server * (1.0 + overhead.value)
        scaled = "" if per_server == server.gpus else f", scaled to {per_server} GPUs"
        price_source = (
            f"{server.name} {units.format_money(server.price_usd)} ({server.price_date}){scaled}"
            f" + {overhead.value:.0%} fabric, storage and install"
        )
    power: float | None = None
    power_source = f"No published power for {name}: type the server's draw."
    power_note = power_source
    if acc is not None:
        power = estimated_server_power_kw(acc, per_server)
        if power is not None:
            if server is not None and server.power_kw is not None and server.gpus == per_server:
                power_source = f"{server.name}, {server.power_source}"
                power_note = f"{server.name}, maximum draw."
            else:
                power = float(f"{power:.3g}")  # an estimate: three figures are all it has
                power_note = f"Estimated from {per_server} × {acc.tdp_w:g} W GPU TDP."
                ratio = defaults.get("server_power_per_gpu_tdp")
                power_source = (
                    f"estimated: {per_server} × {acc.tdp_w:g} W TDP × {ratio.value:g} "
                    "for the rest of the server"
                )
    return OwningDefaults(
        accelerator_id=acc.id if acc is not None else accelerator_id,
        accelerator_name=name,
        gpus_per_server=per_server,
        server_price=price,
        server_price_source=price_source,
        power_kw=power,
        power_source=power_source,
        server_name="" if server is None else server.name,
        power_note=power_note,
    )


def default_onprem(
    accelerator_id: str, gpus: int | None = None, gpus_per_server: int | None = None
) -> OnPremInputs | None:
    """Owning inputs from the catalog defaults: ``gpus`` rounded up to whole servers (default
    one server), every other figure from ``tco_defaults.json`` with its source. None when the
    catalog has no server price or power for the accelerator."""
    defaults = owning_defaults(accelerator_id, gpus_per_server)
    if defaults.server_price is None or defaults.power_kw is None:
        return None
    per_server = defaults.gpus_per_server
    servers = 1 if gpus is None else max(1, -(-gpus // per_server))
    return OnPremInputs(
        server_price=defaults.server_price,
        power_kw=defaults.power_kw,
        gpus=servers * per_server,
        gpus_per_server=per_server,
        life_years=default_value("life_years"),
        pue=default_value("pue"),
        kwh_price=default_value("kwh_price"),
        ops_fraction=default_value("ops_fraction"),
        facility_usd_per_kw_month=default_value("facility_usd_per_kw_month"),
        utilization=default_value("utilization"),
        server_price_source=defaults.server_price_source,
        power_source=defaults.power_source,
    )


def default_spot_overhead() -> float:
    return cloud_defaults().spot_overhead.value


def default_value(name: str) -> float:
    """An on-prem default from ``tco_defaults.json`` (pue, kwh_price, ops_fraction …)."""
    return tco_defaults().value(name)


def default_source(name: str) -> str:
    return tco_defaults().get(name).source


# --- demand -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Demand:
    """GPU-hours needed per month (None: not known) and the rule that gave it, in words."""

    gpu_hours_per_month: float | None
    rule: str


def format_gpu_hours(hours: float | None) -> str:
    if hours is None or not math.isfinite(hours):
        return units.DASH
    return f"{units.format_count(hours).replace(' ', '')} GPU-h"


def monthly_demand(
    source: str,
    typed: float | None,
    run_gpu_hours: float | None,
    runs_per_month: float,
    horizon_months: int,
    typed_problem: str | None = None,
) -> Demand:
    """Demand per month from the chosen source (see the module docstring for the rules).
    ``typed_problem``: why the typed figure was refused (it then is the rule, not a request to
    type one)."""
    if source == DEMAND_TYPED:
        if typed is None:
            return Demand(None, typed_problem or "Type the GPU-hours you need each month.")
        return Demand(typed, "Typed in.")
    if run_gpu_hours is None:
        return Demand(None, "The Workload tab has no estimate yet: open it, or type a figure.")
    if source == DEMAND_RUNS:
        value = run_gpu_hours * runs_per_month
        runs = f"{runs_per_month:g} run{'' if runs_per_month == 1 else 's'}"
        return Demand(
            value if value > 0 else None,
            f"{format_gpu_hours(run_gpu_hours)} per run × {runs} a month "
            f"= {format_gpu_hours(value)} a month.",
        )
    if source == DEMAND_SPREAD:
        value = run_gpu_hours / horizon_months
        return Demand(
            value,
            f"{format_gpu_hours(run_gpu_hours)} for the run ÷ {horizon_months} months "
            f"= {format_gpu_hours(value)} a month.",
        )
    raise InputError("demand_source", f"must be one of typed, runs, spread, got {source!r}")


@dataclass(frozen=True)
class Fleet:
    """Whole servers sized to a demand (see the module docstring)."""

    servers: int
    gpus: int
    utilization: float  # demand ÷ (gpus × 730.5 h)


def size_fleet(demand_gpu_hours: float, utilization: float, gpus_per_server: int) -> Fleet:
    if demand_gpu_hours <= 0 or not math.isfinite(demand_gpu_hours):
        raise InputError("demand", f"must be more than 0 GPU-hours a month, got {demand_gpu_hours}")
    per_server_hours = utilization * HOURS_PER_MONTH * gpus_per_server
    servers = max(1, math.ceil(demand_gpu_hours / per_server_hours - 1e-9))
    gpus = servers * gpus_per_server
    return Fleet(servers, gpus, min(1.0, demand_gpu_hours / (gpus * HOURS_PER_MONTH)))


@dataclass(frozen=True, eq=False)
class DemandPlan:
    """Owning against one cloud price for a monthly demand over a horizon: the fleet sized to
    the demand, the model's comparison for that fleet, and the hybrid plan (own some, rent the
    rest) over the demand profile. The Cost tab and ``estimate tco`` both make it here."""

    demand_gpu_hours: float  # per month, the figure the fleet is sized to
    fleet: Fleet
    fleet_onprem: OnPremInputs  # the fleet at its own utilization
    plan: TcoResult
    profile_gpu_hours: FloatArray  # GPU-hours per month of the horizon
    hybrid: HybridResult


def fleet_inputs(onprem: OnPremInputs, demand_gpu_hours: float) -> tuple[Fleet, OnPremInputs]:
    """The fleet for the demand (whole servers at most ``onprem.utilization`` busy) and the
    owning inputs for it."""
    fleet = size_fleet(demand_gpu_hours, onprem.utilization, onprem.gpus_per_server)
    return fleet, replace(onprem, gpus=fleet.gpus, utilization=fleet.utilization)


def monthly_profile(profile: str, horizon_months: int, demand_gpu_hours: float) -> FloatArray:
    """GPU-hours per month over the horizon for a demand shape (``model.tco.demand_profile``)."""
    return demand_profile(profile, horizon_months, demand_gpu_hours / HOURS_PER_MONTH)


def hybrid_for(onprem: OnPremInputs, cloud: CloudInputs, profile: FloatArray) -> HybridResult:
    """Best whole servers to own, renting the rest of each month at ``cloud``."""
    return hybrid_plan(onprem, cloud, profile, gpu_step=onprem.gpus_per_server)


def demand_verdict(plan: DemandPlan, cloud_label: str) -> Verdict | None:
    """The one recommendation for a demand planned against one cloud price (``estimate
    tco``): the cheapest of renting everything, the best hybrid and owning the fleet, chosen
    as the Cost tab chooses among its compared prices."""
    return make_verdict(
        [(cloud_label, plan.hybrid.all_cloud_cost_usd)],
        plan.hybrid,
        cloud_label,
        plan.fleet,
        plan.plan.onprem_horizon_usd,
        plan.plan.horizon_months,
    )


def plan_demand(
    onprem: OnPremInputs,
    cloud: CloudInputs,
    demand_gpu_hours: float,
    horizon_months: int,
    profile: str = "flat",
) -> DemandPlan:
    """Plan a demand (GPU-hours per month) against one cloud price (ValueError names a field)."""
    fleet, fleet_onprem = fleet_inputs(onprem, demand_gpu_hours)
    plan = estimate_tco(fleet_onprem, cloud, horizon_months)
    gpu_hours = monthly_profile(profile, horizon_months, demand_gpu_hours)
    hybrid = hybrid_for(onprem, cloud, gpu_hours)
    return DemandPlan(demand_gpu_hours, fleet, fleet_onprem, plan, gpu_hours, hybrid)


OWN = "own"
RENT = "rent"
HYBRID = "hybrid"


@dataclass(frozen=True)
class Recommendation:
    """Own, rent or both, from the hybrid plan (the cheapest number of owned GPUs)."""

    choice: str  # own | rent | hybrid
    owned_gpus: int
    owned_servers: int
    cost_usd: float  # over the horizon, the cheapest plan
    all_cloud_usd: float
    all_owned_usd: float
    all_owned_gpus: int

    @property
    def headline(self) -> str:
        """One plain sentence (no markup) for the CLI and the report."""
        servers = f"{self.owned_servers:,} server{'s' if self.owned_servers != 1 else ''}"
        if self.choice == RENT:
            return "Rent everything: owned GPUs would sit idle too often for this demand."
        if self.choice == OWN:
            return f"Own it all: {self.owned_gpus:,} GPUs ({servers}) cover even the busiest month."
        return f"Own {self.owned_gpus:,} GPUs ({servers}) and rent the rest."


def recommend(hybrid: HybridResult, gpus_per_server: int) -> Recommendation:
    """Rent when owning nothing is cheapest, own when owning the peak is, else both."""
    if hybrid.best_gpus == 0:
        choice = RENT
    elif hybrid.best_gpus >= hybrid.all_owned_gpus:
        choice = OWN
    else:
        choice = HYBRID
    return Recommendation(
        choice=choice,
        owned_gpus=hybrid.best_gpus,
        owned_servers=hybrid.best_gpus // gpus_per_server,
        cost_usd=hybrid.best_cost_usd,
        all_cloud_usd=hybrid.all_cloud_cost_usd,
        all_owned_usd=hybrid.all_owned_cost_usd,
        all_owned_gpus=hybrid.all_owned_gpus,
    )


def recommendation_of(
    verdict: Verdict, hybrid: HybridResult, gpus_per_server: int
) -> Recommendation:
    """The :class:`Recommendation` a verdict makes (its choice, owned GPUs and totals), so that
    a hybrid panel never says "own 8 GPUs" beside a "rent" verdict."""
    plans = {p.choice: p for p in (verdict.best, *verdict.others)}
    rent, own = plans.get(RENT), plans.get(OWN)
    best = verdict.best
    return Recommendation(
        choice=best.choice,
        owned_gpus=best.owned_gpus,
        owned_servers=best.owned_gpus // gpus_per_server,
        cost_usd=best.cost_usd,
        all_cloud_usd=rent.cost_usd if rent is not None else hybrid.all_cloud_cost_usd,
        all_owned_usd=own.cost_usd if own is not None else hybrid.all_owned_cost_usd,
        all_owned_gpus=own.owned_gpus if own is not None else hybrid.all_owned_gpus,
    )


@dataclass(frozen=True)
class PlanCost:
    """One way to serve the demand over the horizon: rent it all at one price, own some GPUs and
    rent the rest (hybrid), or own the sized fleet."""

    choice: str  # rent | hybrid | own
    cost_usd: float
    owned_gpus: int
    label: str  # the cloud price rented (rent, hybrid), "" for own


@dataclass(frozen=True)
class Verdict:
    """The one recommendation the Cost tab leads with: the cheapest of the cheapest all-cloud
    plan, the best hybrid (own whole servers, rent the rest at the hybrid price) and owning the
    fleet sized to the demand, each over the horizon for the demand profile."""

    best: PlanCost
    others: tuple[PlanCost, ...]  # the other plans, cheapest first
    horizon_months: int

    @property
    def choice(self) -> str:
        return self.best.choice

    def plan(self, choice: str) -> PlanCost | None:
        """The plan of one kind (rent, hybrid, own) among the compared ones, or None."""
        return next((p for p in (self.best, *self.others) if p.choice == choice), None)

    def describe(self, plan: PlanCost) -> str:
        if plan.choice == RENT:
            return f"renting on {plan.label}"
        if plan.choice == HYBRID:
            return f"the best hybrid (own {plan.owned_gpus:,} GPUs, rent the rest on {plan.label})"
        return f"owning {plan.owned_gpus:,} GPUs"

    @property
    def headline(self) -> str:
        """ "Rent: <price>, $374k over 48 months, $183k less than the best hybrid, …"."""
        best = self.best
        if best.choice == RENT:
            lead = f"Rent: {best.label}"
        elif best.choice == HYBRID:
            lead = f"Own {best.owned_gpus:,} GPUs and rent the rest on {best.label}"
        else:
            lead = f"Own {best.owned_gpus:,} GPUs"
        parts = [f"{lead}, {units.format_money(best.cost_usd)} over {self.horizon_months} months"]
        for other in self.others:
            what = "the best hybrid" if other.choice == HYBRID else self.describe(other)
            parts.append(f"{units.format_money(other.cost_usd - best.cost_usd)} less than {what}")
        return ", ".join(parts)


def make_verdict(
    rent_options: Sequence[tuple[str, float]],
    hybrid: HybridResult | None,
    hybrid_label: str,
    fleet: Fleet | None,
    owning_horizon_usd: float | None,
    horizon_months: int,
) -> Verdict | None:
    """The cheapest of: renting everything at the cheapest price (``rent_options``: label and
    cost over the horizon), the best hybrid owning fewer GPUs than the fleet, and owning the
    fleet. None when nothing can be compared."""
    plans: list[PlanCost] = []
    if rent_options:
        label, cost = min(rent_options, key=lambda item: item[1])
        plans.append(PlanCost(RENT, float(cost), 0, label))
    if hybrid is not None:
        limit = fleet.gpus if fleet is not None else hybrid.all_owned_gpus
        mixed = [
            (float(c), int(g))
            for g, c in zip(hybrid.gpus_grid, hybrid.cost_grid, strict=True)
            if 0 < g < limit
        ]
        if mixed:
            cost, gpus = min(mixed)
            plans.append(PlanCost(HYBRID, cost, gpus, hybrid_label))
    if fleet is not None and owning_horizon_usd is not None:
        plans.append(PlanCost(OWN, float(owning_horizon_usd), fleet.gpus, ""))
    if not plans:
        return None
    plans.sort(key=lambda plan: plan.cost_usd)
    return Verdict(plans[0], tuple(plans[1:]), horizon_months)


# --- offers -------------------------------------------------------------------------------------


def offers_with_custom(accelerator_id: str, custom: Iterable[CloudOffer]) -> list[CloudOffer]:
    """Catalog offers for the accelerator, then the user's own offers for it."""
    mine = [o for o in custom if o.accelerator_id == accelerator_id]
    return [*offers_for(accelerator_id), *mine]


def default_compared(offers: Sequence[CloudOffer]) -> tuple[OptionKey, ...]:
    """A spread of prices to compare by default: for every kind of provider (hyperscaler,
    neocloud, marketplace) and pricing model, the cheapest rentable offer that lists it."""
    chosen: list[OptionKey] = []
    for kind in ("hyperscaler", "neocloud", "marketplace"):
        for pricing in PRICING_MODELS:
            priced = [
                o for o in offers if o.kind == kind and o.rentable and (o.price(pricing) or 0.0) > 0
            ]
            if priced:
                best = min(priced, key=lambda o: (o.price(pricing) or 0.0, o.id))
                chosen.append((best.id, pricing))
    return tuple(chosen)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "offer"


def make_custom_offer(
    accelerator_id: str,
    provider: str,
    instance: str,
    gpus: int,
    region: str,
    prices: Mapping[str, float | None],
    price_date: str,
    source: str,
    existing_ids: Iterable[str] = (),
) -> CloudOffer:
    """A user-typed offer, checked like a scenario file's (raises :class:`InputError`)."""
    if not provider.strip():
        raise InputError("provider", "give the provider's name")
    if not instance.strip():
        raise InputError("instance", "give the instance or product name")
    listed = {p: prices.get(p) for p in PRICING_MODELS}
    for pricing, value in listed.items():
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InputError(pricing, f"must be a price above 0 per GPU-hour, got {value!r}")
    if all(value is None for value in listed.values()):
        raise InputError("on_demand", "give at least one price per GPU-hour")
    if date_period(price_date) is None:
        raise InputError("price_date", f"use YYYY, YYYY-MM or YYYY-MM-DD, got {price_date!r}")
    taken = set(existing_ids)
    base = f"custom/{slug(provider)}-{slug(instance)}/{slug(region or 'any')}"
    offer_id, n = base, 2
    while offer_id in taken:
        offer_id, n = f"{base}-{n}", n + 1
    offer = CloudOffer(
        id=offer_id,
        provider=provider.strip(),
        instance=instance.strip(),
        accelerator_id=accelerator_id,
        gpus=gpus,
        region=region.strip(),
        on_demand=listed["on_demand"],
        committed_1yr=listed["committed_1yr"],
        committed_3yr=listed["committed_3yr"],
        spot=listed["spot"],
        price_date=price_date.strip(),
        source=source.strip() or "typed in",
        confidence="user",
        kind=CUSTOM_OFFER_KIND,
    )
    return check_custom_offer(offer)


@dataclass(frozen=True)
class CloudOption:
    """One price being compared: an offer under one pricing model."""

    offer: CloudOffer
    pricing: str
    cloud: CloudInputs

    @property
    def key(self) -> OptionKey:
        return (self.offer.id, self.pricing)

    @property
    def label(self) -> str:
        return f"{self.offer.provider} {self.offer.instance} · {PRICING_LABELS[self.pricing]}"

    @property
    def short_label(self) -> str:
        return f"{self.offer.provider} · {PRICING_LABELS[self.pricing]}"


def cloud_options(
    offers: Sequence[CloudOffer], keys: Iterable[OptionKey], spot_overhead: float
) -> list[CloudOption]:
    """The compared prices that exist among ``offers``, in ``keys`` order (ValueError for a bad
    spot overhead, naming ``spot_overhead``)."""
    by_id = {o.id: o for o in offers}
    out: list[CloudOption] = []
    for offer_id, pricing in keys:
        offer = by_id.get(offer_id)
        price = None if offer is None or pricing not in PRICING_MODELS else offer.price(pricing)
        if offer is None or price is None or price <= 0:
            continue
        basis = (
            f"{offer.name} ({offer.region or 'any region'}) {PRICING_LABELS[pricing]}, "
            f"{offer.price_date}; {offer.source}"
        )
        cloud = CloudInputs(
            cloud_price=price, pricing=pricing, spot_overhead=spot_overhead, price_source=basis
        )
        out.append(CloudOption(offer, pricing, cloud))
    return out


@dataclass(frozen=True)
class CloudOnly:
    """What can be shown while owning cannot be computed: each compared price per useful
    GPU-hour and what an idle rented GPU costs a month (both from the model)."""

    prices: tuple[tuple[CloudOption, float], ...]  # (option, per useful GPU-hour)
    idle: tuple[IdleWaste, IdleWaste] | None  # cheapest and dearest list price


def cloud_only(
    offers: Sequence[CloudOffer], keys: Iterable[OptionKey], spot_overhead: float
) -> CloudOnly:
    options = cloud_options(offers, keys, spot_overhead)
    prices = tuple((o, cloud_cost_per_useful_hour(o.cloud)) for o in options)
    listed = sorted(o.cloud.cloud_price for o in options)
    idle = (monthly_idle_waste(listed[0]), monthly_idle_waste(listed[-1])) if listed else None
    return CloudOnly(prices, idle)


# --- the whole comparison -------------------------------------------------------------------


@dataclass(frozen=True)
class CostInputs:
    """Everything the Cost tab plans with (valid model inputs only).

    ``onprem`` is one server at the chosen utilization; the fleet is sized from the demand when
    the comparison is made. ``hybrid_option`` None means the cheapest compared price per
    useful GPU-hour, the one renting everything is costed at (``estimate tco`` rents at its
    one price, so both give the same hybrid for the same prices).
    """

    accelerator_id: str
    onprem: OnPremInputs
    demand_source: str = DEMAND_TYPED
    typed_gpu_hours: float | None = DEFAULT_GPU_HOURS_PER_MONTH
    horizon_months: int = DEFAULT_HORIZON_MONTHS
    profile: str = "flat"
    spot_overhead: float = 0.10
    compared: tuple[OptionKey, ...] = ()
    custom_offers: tuple[CloudOffer, ...] = ()
    hybrid_option: OptionKey | None = None

    def offers(self) -> list[CloudOffer]:
        return offers_with_custom(self.accelerator_id, self.custom_offers)

    def to_plan(
        self, hybrid: OptionKey | None = None, runs_per_month: float = DEFAULT_RUNS_PER_MONTH
    ) -> CostPlan:
        """The scenario file's cost section (``model.scenario.CostPlan``); ``runs_per_month``
        is the shared state's (``AppState.runs_per_month``)."""
        key = hybrid or self.hybrid_option
        options = cloud_options(self.offers(), [key] if key else [], self.spot_overhead)
        option = options[0] if options else None
        return CostPlan(
            accelerator=self.accelerator_id,
            offer=None if option is None else option.offer.id,
            pricing="on_demand" if option is None else option.pricing,
            demand=CostDemand(
                source=self.demand_source,
                gpu_hours_per_month=self.typed_gpu_hours,
                runs_per_month=runs_per_month,
                horizon_months=self.horizon_months,
                profile=self.profile,
            ),
            compared=tuple(ComparedPrice(offer, pricing) for offer, pricing in self.compared),
            custom_offers=self.custom_offers,
            on_prem=self.onprem,
            cloud=None if option is None else option.cloud,
        )


@dataclass(frozen=True, eq=False)
class OptionResult:
    """One compared price against owning: at the chosen utilization (``at_utilization``) and,
    when the demand is known, for the planned fleet over the horizon (``plan``)."""

    option: CloudOption
    color_index: int
    at_utilization: TcoResult
    plan: TcoResult | None

    @property
    def per_useful_hour(self) -> float:
        return self.at_utilization.cloud_cost_per_gpu_hour

    @property
    def break_even(self) -> float:
        return self.at_utilization.break_even_utilization

    @property
    def owning_cheaper(self) -> bool:
        return self.at_utilization.owning_cheaper

    @property
    def monthly_usd(self) -> float | None:
        return None if self.plan is None else self.plan.cloud_yearly.total / 12.0

    @property
    def horizon_usd(self) -> float | None:
        return None if self.plan is None else self.plan.cloud_horizon_usd

    @property
    def saving_usd(self) -> float | None:
        """Renting minus owning over the horizon (positive: owning saves)."""
        if self.plan is None:
            return None
        return self.plan.cloud_horizon_usd - self.plan.onprem_horizon_usd

    @property
    def payback_month(self) -> int | None:
        return None if self.plan is None else self.plan.payback_month


@dataclass(frozen=True, eq=False)
class CostComparison:
    inputs: CostInputs
    onprem: OnPremInputs  # one server at the chosen utilization
    hourly: HourlyCost  # owning per wall GPU-hour at the chosen utilization
    owning_per_useful_hour: float
    curve_utilization: FloatArray
    owning_curve: FloatArray
    options: tuple[OptionResult, ...]
    demand: Demand
    fleet: Fleet | None
    fleet_onprem: OnPremInputs | None
    owning_monthly_usd: float | None
    owning_horizon_usd: float | None
    months: npt.NDArray[np.int64] | None
    owning_cumulative: FloatArray | None
    hybrid: HybridResult | None
    hybrid_option: OptionResult | None
    profile_gpu_hours: FloatArray | None
    owned_idle: IdleWaste | None
    rented_idle: tuple[IdleWaste, IdleWaste] | None  # cheapest and dearest list price
    assumptions: tuple[Assumption, ...] = field(default=())
    verdict: Verdict | None = None  # the one recommendation (None without a demand)
    cheapest_rent: OptionResult | None = None  # the cheapest all-cloud plan for the demand

    @property
    def recommendation(self) -> Recommendation | None:
        """Own, rent or both: the one verdict's (``make_verdict``), so that the hybrid panel,
        the headline, the CLI and the report agree (None without a demand)."""
        if self.hybrid is None:
            return None
        if self.verdict is None:
            return recommend(self.hybrid, self.onprem.gpus_per_server)
        return recommendation_of(self.verdict, self.hybrid, self.onprem.gpus_per_server)

    @property
    def cheapest(self) -> OptionResult | None:
        return min(self.options, key=lambda r: r.per_useful_hour, default=None)

    def option(self, key: OptionKey) -> OptionResult | None:
        return next((r for r in self.options if r.option.key == key), None)


def _pick_hybrid(options: Sequence[OptionResult], wanted: OptionKey | None) -> OptionResult | None:
    """The price the hybrid rents its bursts at: the one the user picked, else the cheapest
    compared price per useful GPU-hour, the price renting everything is costed at. One rule
    for the Cost tab, the report and ``estimate tco`` (which rents at its one price)."""
    if wanted is not None:
        found = next((r for r in options if r.option.key == wanted), None)
        if found is not None:
            return found
    return min(options, key=lambda r: r.per_useful_hour, default=None)


def compare(
    inputs: CostInputs,
    run_gpu_hours: float | None,
    runs_per_month: float,
    typed_problem: str | None = None,
) -> CostComparison:
    """Run the model for owning against every compared price (ValueError names a field).
    ``typed_problem``: why a typed demand was refused (see :func:`monthly_demand`)."""
    onprem = inputs.onprem
    options = cloud_options(inputs.offers(), inputs.compared, inputs.spot_overhead)
    demand = monthly_demand(
        inputs.demand_source,
        inputs.typed_gpu_hours,
        run_gpu_hours,
        runs_per_month,
        inputs.horizon_months,
        typed_problem,
    )
    fleet: Fleet | None = None
    fleet_onprem: OnPremInputs | None = None
    if demand.gpu_hours_per_month is not None and demand.gpu_hours_per_month > 0:
        fleet, fleet_onprem = fleet_inputs(onprem, demand.gpu_hours_per_month)

    results: list[OptionResult] = []
    for index, option in enumerate(options):
        at_u = estimate_tco(onprem, option.cloud)
        plan = (
            None
            if fleet_onprem is None
            else estimate_tco(fleet_onprem, option.cloud, inputs.horizon_months)
        )
        results.append(OptionResult(option, index, at_u, plan))

    hourly = onprem_hourly(onprem)
    owning_monthly = owning_horizon = None
    months = owning_cumulative = None
    if fleet_onprem is not None:
        reference = _owning_reference(results, fleet_onprem, inputs.horizon_months)
        owning_monthly = reference.onprem_yearly.total / 12.0
        owning_horizon = reference.onprem_horizon_usd
        months = reference.cumulative.months
        owning_cumulative = reference.cumulative.onprem_usd

    hybrid_choice = _pick_hybrid(results, inputs.hybrid_option)
    hybrid: HybridResult | None = None
    profile: FloatArray | None = None
    if demand.gpu_hours_per_month is not None and demand.gpu_hours_per_month > 0:
        profile = monthly_profile(inputs.profile, inputs.horizon_months, demand.gpu_hours_per_month)
        if hybrid_choice is not None:
            hybrid = hybrid_for(onprem, hybrid_choice.option.cloud, profile)

    owned_idle, rented_idle = _idle_costs(onprem, fleet, fleet_onprem, results)
    assumptions = _assumptions(inputs, onprem, results, demand, fleet)
    verdict: Verdict | None = None
    cheapest_rent: OptionResult | None = None
    if profile is not None:
        total_hours = float(np.sum(profile))
        cheapest_rent = min(results, key=lambda r: r.per_useful_hour, default=None)
        verdict = make_verdict(
            [(r.option.label, total_hours * r.per_useful_hour) for r in results],
            hybrid,
            "" if hybrid_choice is None else hybrid_choice.option.label,
            fleet,
            owning_horizon,
            inputs.horizon_months,
        )
    return CostComparison(
        inputs=inputs,
        onprem=onprem,
        hourly=hourly,
        owning_per_useful_hour=hourly.total / onprem.utilization,
        curve_utilization=CURVE_UTILIZATION,
        owning_curve=onprem_cost_per_useful_hour(onprem, CURVE_UTILIZATION),
        options=tuple(results),
        demand=demand,
        fleet=fleet,
        fleet_onprem=fleet_onprem,
        owning_monthly_usd=owning_monthly,
        owning_horizon_usd=owning_horizon,
        months=months,
        owning_cumulative=owning_cumulative,
        hybrid=hybrid,
        hybrid_option=hybrid_choice,
        profile_gpu_hours=profile,
        owned_idle=owned_idle,
        rented_idle=rented_idle,
        assumptions=assumptions,
        verdict=verdict,
        cheapest_rent=cheapest_rent,
    )


def _owning_reference(
    results: Sequence[OptionResult], fleet_onprem: OnPremInputs, horizon_months: int
) -> TcoResult:
    """A plan whose owning side is the fleet's: the first compared price's, or (no price to
    compare) one at a placeholder price, since owning's cumulative cost does not depend on it."""
    reference = results[0].plan if results else None
    if reference is not None:
        return reference
    return estimate_tco(fleet_onprem, CloudInputs(cloud_price=1.0), horizon_months)


def _idle_costs(
    onprem: OnPremInputs,
    fleet: Fleet | None,
    fleet_onprem: OnPremInputs | None,
    results: Sequence[OptionResult],
) -> tuple[IdleWaste | None, tuple[IdleWaste, IdleWaste] | None]:
    """What the owned fleet's idle hours cost a month, and an idle rented GPU at the cheapest
    and dearest compared list price."""
    owned_idle = None
    if fleet is not None and fleet_onprem is not None:
        idle_rate = onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour
        owned_idle = monthly_idle_waste(idle_rate, 1.0 - fleet_onprem.utilization, fleet.gpus)
    rented_idle = None
    if results:
        prices = sorted(r.option.cloud.cloud_price for r in results)
        rented_idle = (monthly_idle_waste(prices[0]), monthly_idle_waste(prices[-1]))
    return owned_idle, rented_idle


def _assumptions(
    inputs: CostInputs,
    onprem: OnPremInputs,
    results: Sequence[OptionResult],
    demand: Demand,
    fleet: Fleet | None,
) -> tuple[Assumption, ...]:
    out: list[Assumption] = []
    if results:
        shared = [a for a in results[0].at_utilization.assumptions if a.name != "cloud price"]
        out.extend(a for a in shared if a.name != "spot interruption overhead")
        if any(r.option.pricing == "spot" for r in results):
            out.append(
                Assumption(
                    "spot interruption overhead",
                    f"{units.format_percent(inputs.spot_overhead)} extra GPU-hours on spot prices",
                    cloud_defaults().spot_overhead.source
                    if math.isclose(inputs.spot_overhead, default_spot_overhead())
                    else "input",
                )
            )
    out.append(
        Assumption(
            "demand",
            format_gpu_hours(demand.gpu_hours_per_month) + " a month",
            demand.rule,
        )
    )
    if fleet is not None:
        out.append(
            Assumption(
                "owned fleet",
                f"{units.plural(fleet.servers, 'server')} of {onprem.gpus_per_server} GPUs, busy "
                f"{units.format_percent(fleet.utilization)} of hours",
                "fewest whole servers that serve the demand at or below the chosen utilization",
            )
        )
    out.append(
        Assumption(
            "demand profile",
            PROFILE_LABELS.get(inputs.profile, inputs.profile),
            "hybrid plan only; model.tco.demand_profile",
        )
    )
    return tuple(out)
