"""The Cost tab's hybrid plan and idle-cost warning, without Qt (moved out of
``application/cost.py``, issue 12): the hybrid summary and saving card, what idle owned and
rented GPUs cost, and owning per useful hour at the fleet's own utilization."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktopapp.application.text import CardView, assumption_rows, formula_tooltip, plural
from desktopapp.model import units
from desktopapp.model.planning import CostComparison
from desktopapp.model.tco import IdleWaste, onprem_cost_per_useful_hour


@dataclass(frozen=True)
class HybridView:
    summary: str  # rich text
    tooltip: str
    saving: CardView


def hybrid_view(comparison: CostComparison, muted: str) -> HybridView | str:
    """The hybrid plan's summary and saving card, or the reason it cannot be shown."""
    chosen = comparison.hybrid_option
    hybrid = comparison.hybrid
    if hybrid is None or chosen is None:
        if chosen is None:
            return "Needs the demand per month and at least one cloud price."
        return comparison.demand.rule
    months = comparison.inputs.horizon_months
    servers = hybrid.best_gpus // comparison.onprem.gpus_per_server
    # Measured against the CHEAPEST all-cloud plan, not all-cloud at the hybrid's own price.
    cheapest = comparison.cheapest_rent
    profile = comparison.profile_gpu_hours
    if cheapest is not None and profile is not None:
        all_cloud = float(profile.sum()) * cheapest.per_useful_hour
        all_cloud_label = html.escape(cheapest.option.label)
    else:
        all_cloud, all_cloud_label = hybrid.all_cloud_cost_usd, html.escape(chosen.option.label)
    tip = formula_tooltip("Hybrid plan", hybrid.formula, assumption_rows(hybrid.assumptions))
    label = html.escape(chosen.option.label)
    if hybrid.best_gpus == 0:
        lead = (
            f"<b>Rent everything</b> on {label}: owned GPUs would "
            f"sit idle too often for this demand profile."
        )
        detail = "renting everything is cheapest"
    elif hybrid.best_gpus >= hybrid.all_owned_gpus:
        lead = (
            f"<b>Own it all: {hybrid.best_gpus} GPUs</b> ({plural(servers, 'server')}) cover "
            "even the busiest month."
        )
        detail = "owning for the busiest month is cheapest"
    else:
        lead = (
            f"<b>Own {hybrid.best_gpus} GPUs</b> ({plural(servers, 'server')}) and rent the "
            f"rest on {label}."
        )
        detail = (
            f"and {units.format_money(hybrid.saving_vs_all_owned_usd)} less than owning "
            "for the busiest month"
        )
    owning = comparison.owning_horizon_usd
    fleet = comparison.fleet
    own_text = (
        f" and {units.format_money(owning)} owning the fleet ({fleet.gpus} GPUs)"
        if owning is not None and fleet is not None
        else ""
    )
    summary = (
        f"{lead}<br><span style='color:{muted}'>Over {months} months: "
        f"<b>{units.format_money(hybrid.best_cost_usd)}</b>, against "
        f"{units.format_money(all_cloud)} renting everything on {all_cloud_label} "
        f"(the cheapest price){own_text}.</span>"
    )
    saving_usd = all_cloud - hybrid.best_cost_usd
    if saving_usd < 0:
        detail = f"renting everything on {all_cloud_label} costs less"
    saving = CardView(units.format_money(saving_usd), detail, tip)
    return HybridView(summary, tip, saving)


def owned_idle_view(comparison: CostComparison) -> tuple[str, str]:
    """The owned-fleet idle warning (rich text) and its tooltip."""
    owned = comparison.owned_idle
    if owned is None or comparison.fleet is None:
        return (
            "Owned GPUs cost the same whether busy or not: enter the demand to see how "
            "much of your fleet would sit idle.",
            "",
        )
    idle_pct = units.format_percent(owned.idle_fraction, 0 if owned.idle_fraction < 0.99 else 1)
    text = (
        f"Your {owned.gpus} owned GPUs would be idle {idle_pct} of the time. An idle owned "
        f"GPU still costs {units.format_money(owned.price_per_hour)} an hour (depreciation, "
        f"operations, idle power): <b>{units.format_money(owned.monthly_usd)} a month</b> "
        "for the fleet."
    )
    tip = formula_tooltip(
        "Idle owned GPUs",
        f"{owned.formula}; price = fixed + idle energy per GPU-hour",
        assumption_rows(owned.assumptions),
    )
    return text, tip


def rented_idle_view(rented: Sequence[IdleWaste], accelerator_name: str) -> tuple[str, str]:
    """What an idle rented GPU costs a month (cheapest and dearest price), and the tooltip."""
    low, high = rented[0], rented[-1]
    if math.isclose(low.price_per_hour, high.price_per_hour):
        prices = units.format_money(low.price_per_hour)
        monthly = units.format_money(low.monthly_usd)
    else:
        prices = (
            f"{units.format_money(low.price_per_hour)}–{units.format_money(high.price_per_hour)}"
        )
        monthly = f"{units.format_money(low.monthly_usd)}–{units.format_money(high.monthly_usd)}"
    text = (
        f"A rented {html.escape(accelerator_name)} left running idle is billed in full: at "
        f"{prices} per GPU-hour that is <b>{monthly} a month</b> per GPU. Stop instances "
        "nobody is using."
    )
    tip = formula_tooltip("Idle cloud GPU", high.formula, assumption_rows(high.assumptions))
    return text, tip


def fleet_cost_per_useful_hour(comparison: CostComparison) -> float | None:
    """Owning per useful GPU-hour at the fleet's own utilization (None: no fleet)."""
    fleet = comparison.fleet
    if fleet is None:
        return None
    return float(onprem_cost_per_useful_hour(comparison.onprem, fleet.utilization)[0])
