"""The Cost tab's hybrid plan and idle-cost warning, without Qt (moved out of
``application/cost.py``, issue 12): the hybrid summary and saving card, what idle owned and
rented GPUs cost, and owning per useful hour at the fleet's own utilization."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktopapp.application.text import CardView, assumption_rows, formula_tooltip
from desktopapp.model import units
from desktopapp.model.planning import (
    HYBRID,
    OWN,
    PROFILE_LABELS,
    RENT,
    CostComparison,
    format_gpu_hours,
)
from desktopapp.model.tco import IdleWaste, onprem_cost_per_useful_hour
from desktopapp.model.units import HOURS_PER_MONTH, plural

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class HybridView:
    summary: str  # rich text
    tooltip: str
    saving: CardView
    owned_gpu_hours: FloatArray  # per month, for the bars: the hybrid's owned GPUs
    rented_gpu_hours: FloatArray  # per month: the rest, rented


def hybrid_view(comparison: CostComparison, muted: str) -> HybridView | str:
    """The hybrid plan the verdict weighs (own K whole servers, fewer than the fleet, and rent
    the rest) and its saving, like with like: against renting all of the same demand and
    against owning the fleet sized for the same demand (issue 25), or the reason it cannot be
    shown."""
    chosen = comparison.hybrid_option
    hybrid = comparison.hybrid
    verdict = comparison.verdict
    profile = comparison.profile_gpu_hours
    fleet = comparison.fleet
    if hybrid is None or chosen is None or verdict is None or profile is None or fleet is None:
        if chosen is None:
            return "Needs the demand per month and at least one cloud price."
        return comparison.demand.rule
    mixed, rent, own = verdict.plan(HYBRID), verdict.plan(RENT), verdict.plan(OWN)
    if mixed is None or rent is None or own is None:
        return (
            f"No mix of owned and rented GPUs for this demand: the fleet sized for it is "
            f"{plural(fleet.servers, 'server')} ({fleet.gpus:,} GPUs), and owning means whole "
            "servers."
        )
    months = comparison.inputs.horizon_months
    per_server = comparison.onprem.gpus_per_server
    owned = np.minimum(profile, mixed.owned_gpus * HOURS_PER_MONTH)
    tip = formula_tooltip("Hybrid plan", hybrid.formula, assumption_rows(hybrid.assumptions))
    demand = format_gpu_hours(comparison.demand.gpu_hours_per_month)
    shape = PROFILE_LABELS.get(comparison.inputs.profile, comparison.inputs.profile)
    rent_words = f"renting all of it on {rent.label}"
    own_words = f"owning the {fleet.gpus:,}-GPU fleet sized for it"
    servers = plural(mixed.owned_gpus // per_server, "server")
    rented = float(np.sum(profile - owned))
    rest = (
        f" and rent the rest on {html.escape(mixed.label)}"
        if rented > 0
        else ": they serve every month, nothing is left to rent"
    )
    summary = (
        f"<b>Own {mixed.owned_gpus:,} GPUs</b> ({servers}){rest}: "
        f"<b>{units.format_money(mixed.cost_usd)}</b> over {months} months."
        f"<br><span style='color:{muted}'>The same demand ({html.escape(demand)} a month, "
        f"{html.escape(shape.split(':')[0].lower())}): {html.escape(rent_words)} "
        f"{units.format_money(rent.cost_usd)}; {html.escape(own_words)} "
        f"{units.format_money(own.cost_usd)}.</span>"
    )
    what = f"{mixed.owned_gpus:,} owned GPUs" + (" + rented bursts" if rented > 0 else "")
    other, other_words = (rent, rent_words) if rent.cost_usd <= own.cost_usd else (own, own_words)
    saving_usd = other.cost_usd - mixed.cost_usd
    if saving_usd >= 0:
        detail = f"the hybrid ({what}) costs less than {other_words}, the cheaper of the two"
    else:
        detail = (
            f"the hybrid ({what}) costs {units.format_money(-saving_usd)} more than {other_words}"
        )
    saving = CardView(units.format_money(saving_usd), detail, tip)
    return HybridView(summary, tip, saving, owned, profile - owned)


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
        f"Your {owned.gpus:,} owned GPUs would be idle {idle_pct} of the time. An idle owned "
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
