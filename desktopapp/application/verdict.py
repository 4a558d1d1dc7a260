"""The rent/own/hybrid verdict, rendered once (issue 21): the plain sentence for the CLI and the
report's text, and the HTML for the Cost tab and the report. The verdict itself comes from one
rule, :func:`desktopapp.model.planning.make_verdict`.
"""

from __future__ import annotations

import html

from desktopapp.model import units
from desktopapp.model.planning import (
    HYBRID,
    OWN,
    RENT,
    DemandPlan,
    PlanCost,
    Verdict,
    demand_verdict,
    plan_demand,
)
from desktopapp.model.tco import CloudInputs, OnPremInputs

CHOICE_WORDS = {RENT: "Rent", OWN: "Own", HYBRID: "Own some, rent the rest"}


def lead(verdict: Verdict) -> str:
    """ "Rent on <price>" / "Own 16 GPUs" / "Own 8 GPUs and rent the rest on <price>"."""
    best = verdict.best
    if best.choice == RENT:
        return f"Rent on {best.label}"
    if best.choice == HYBRID:
        return f"Own {best.owned_gpus:,} GPUs and rent the rest on {best.label}"
    return f"Own {best.owned_gpus:,} GPUs"


def _other(verdict: Verdict, other: PlanCost) -> str:
    gap = units.format_money(other.cost_usd - verdict.best.cost_usd)
    return f"{gap} less than {verdict.describe(other)}"


def verdict_text(verdict: Verdict) -> str:
    """One plain sentence: the choice, its total over the horizon and what it saves against
    each other plan."""
    best = verdict.best
    parts = [
        f"{lead(verdict)}: {units.format_money(best.cost_usd)} over {verdict.horizon_months} months"
    ]
    parts.extend(_other(verdict, other) for other in verdict.others)
    return ", ".join(parts) + "."


def verdict_rows(verdict: Verdict) -> list[tuple[str, str]]:
    """(plan, total over the horizon) rows, the cheapest first."""
    rows = []
    for plan in (verdict.best, *verdict.others):
        rows.append((verdict.describe(plan), units.format_money(plan.cost_usd)))
    return rows


def verdict_html(verdict: Verdict) -> str:
    """The verdict as HTML: the sentence's lead in bold and the plans as a small table."""
    best = verdict.best
    head = (
        f"<p><b>{html.escape(lead(verdict))}</b>: {html.escape(units.format_money(best.cost_usd))}"
        f" over {verdict.horizon_months} months.</p>"
    )
    cells = "".join(
        f"<tr><td>{html.escape(name)}</td><td align='right'>{html.escape(total)}</td></tr>"
        for name, total in verdict_rows(verdict)
    )
    months = f"<th>over {verdict.horizon_months} months</th>"
    return f"{head}<table><tr><th>plan</th>{months}</tr>{cells}</table>"


# --- the demand plan of ``estimate tco`` (the model's one rule, reached through here) ---------


def plan_for_demand(
    onprem: OnPremInputs,
    cloud: CloudInputs,
    demand_gpu_hours: float,
    horizon_months: int,
    profile: str = "flat",
) -> DemandPlan:
    """Owning against one cloud price for a monthly demand (``model.planning.plan_demand``)."""
    return plan_demand(onprem, cloud, demand_gpu_hours, horizon_months, profile)


def verdict_for_demand(plan: DemandPlan, cloud_label: str) -> Verdict | None:
    """The one verdict for a demand planned against one price (``make_verdict``'s rule)."""
    return demand_verdict(plan, cloud_label)
