"""The Cost tab's policy and presenter, without Qt.

Policy (:class:`OwningFields`): which server price and power the tab shows, catalog default or
typed in, and where each came from. Presenter (the ``*_view`` functions): the texts, table rows
and card values the tab shows for a :class:`~desktopapp.model.planning.CostComparison`. The tab
(``ui/cost/tab.py``) only puts these into widgets; tests check them without a display.

Colours are passed in (``colors``: the theme's ``good``, ``warn``, ``bad``, ``muted``), so the
presenter follows the light or dark theme without importing it. Option colours are fixed.

Next to it (issue 12): :mod:`.cost_hybrid` (hybrid plan, idle cost), :mod:`.cost_offers` (the
cloud-price table and the add-offer dialog) and :mod:`.cost_plots` (what the plots mark).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass

from desktopapp.application.text import (
    CardView,
    assumption_rows,
    break_even_text,
    busy_percent,
    formula_tooltip,
    implausible_inputs,
)
from desktopapp.application.verdict import lead, verdict_text
from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.planning import (
    DEMAND_RUNS,
    DEMAND_SPREAD,
    DEMAND_TYPED,
    CloudOnly,
    CostComparison,
    OptionResult,
    OwningDefaults,
    format_gpu_hours,
)
from desktopapp.model.tco import TCO_FORMULA, onprem_cost_per_useful_hour
from desktopapp.model.units import DASH, plural

OWNING_COLOR = "#1E2733"
OPTION_COLORS: tuple[str, ...] = (
    "#E0812E",
    "#2F6FEB",
    "#2A9D8F",
    "#8E5CD9",
    "#C2478A",
    "#B8860B",
    "#4BA3C3",
    "#7A8B2E",
    "#D0555A",
    "#6B7785",
)
TABLE_COLUMNS = 7

Cell = tuple[str, str, str | None]  # text, tooltip, colour (None: the table's own)


def option_color(index: int) -> str:
    return OPTION_COLORS[index % len(OPTION_COLORS)]


@dataclass(frozen=True)
class TableView:
    rows: tuple[tuple[Cell, ...], ...]
    colors: tuple[str, ...]  # swatch per row
    note: str


# --- policy: the owning fields --------------------------------------------------------------


@dataclass(frozen=True)
class OwningFieldsView:
    """The server price and power fields: value to show (None: leave the typed one), the note
    under each field (rich text), its tooltip (the full source) and whether reset is offered."""

    server_price: float | None
    server_price_note: str
    server_price_tooltip: str
    server_price_resettable: bool
    power_kw: float | None
    power_note: str
    power_tooltip: str
    power_resettable: bool
    show_price: bool  # write server_price into the field (not typed by the user)
    show_power: bool


@dataclass(frozen=True)
class OwningFields:
    """Catalog default or typed in, for the server price and the power: the tab's policy."""

    price_typed: bool = False
    power_typed: bool = False

    def view(self, defaults: OwningDefaults, colors: Mapping[str, str]) -> OwningFieldsView:
        price_note = html.escape(defaults.server_price_source)
        if defaults.server_price is None:  # nothing to fall back on: ask for a quote
            price_note = f"<span style='color:{colors['bad']}'>{price_note}</span>"
        return OwningFieldsView(
            server_price=defaults.server_price,
            server_price_note="Typed in by you." if self.price_typed else price_note,
            server_price_tooltip=defaults.server_price_source,
            server_price_resettable=self.price_typed and defaults.server_price is not None,
            power_kw=defaults.power_kw,
            power_note="Typed in by you." if self.power_typed else html.escape(defaults.power_note),
            power_tooltip=defaults.power_source,
            power_resettable=self.power_typed and defaults.power_kw is not None,
            show_price=not self.price_typed,
            show_power=not self.power_typed,
        )

    @staticmethod
    def for_values(defaults: OwningDefaults, server_price: float, power_kw: float) -> OwningFields:
        """Values opened from a scenario count as typed unless they equal the defaults."""
        return OwningFields(
            price_typed=defaults.server_price is None
            or not math.isclose(server_price, defaults.server_price),
            power_typed=defaults.power_kw is None or not math.isclose(power_kw, defaults.power_kw),
        )


# --- presenter ------------------------------------------------------------------------------


def owning_tooltip(comparison: CostComparison, title: str) -> str:
    return formula_tooltip(title, TCO_FORMULA, assumption_rows(comparison.assumptions))


def option_tooltip(result: OptionResult, title: str) -> str:
    return formula_tooltip(
        title, result.at_utilization.formula, assumption_rows(result.at_utilization.assumptions)
    )


def demand_rule_view(comparison: CostComparison, source: str) -> tuple[str, str]:
    """The note under the demand fields (rich text) and its tooltip."""
    demand = comparison.demand
    text = "" if source == DEMAND_TYPED else html.escape(demand.rule) + "<br>"
    fleet = comparison.fleet
    if fleet is not None:
        text += (
            f"Owning: <b>{plural(fleet.servers, 'server')}</b> of "
            f"{comparison.onprem.gpus_per_server} GPUs, busy "
            f"{busy_percent(fleet.utilization)} of hours."
        )
    for warning in implausible_inputs(demand):  # planned all the same
        text += f"<br>Check this input: {html.escape(warning)}"
    tips = {
        DEMAND_SPREAD: "GPU-hours of the run ÷ horizon months",
        DEMAND_RUNS: "GPU-hours per run × runs per month",
    }
    return text, tips.get(source, "")


def recommendation_html(comparison: CostComparison) -> str:
    """The one recommendation the tab leads with (rich text), or "" without a demand: the
    verdict's one renderer (``application.verdict``, as the CLI and the report write it), its
    lead in bold."""
    verdict = comparison.verdict
    if verdict is None:
        return ""
    text, head = verdict_text(verdict), lead(verdict)
    return f"<b>{html.escape(head)}</b>{html.escape(text[len(head) :])}"


def owning_rate(comparison: CostComparison) -> tuple[float, float]:
    """(owning cost per useful GPU-hour, how busy) for the fleet the tab plans: at the
    utilization the demand gives the sized fleet (so that rate × the demand's GPU-hours is the
    fleet's monthly total), or at the slider's cap before the demand is known."""
    fleet = comparison.fleet
    if fleet is None or not fleet.utilization > 0:
        return comparison.owning_per_useful_hour, comparison.onprem.utilization
    rate = float(onprem_cost_per_useful_hour(comparison.onprem, fleet.utilization)[0])
    return rate, fleet.utilization


def fleet_assumptions(comparison: CostComparison) -> tuple[Assumption, ...]:
    """The comparison's assumptions with the capex line for the planned fleet (its number of
    servers and their total), not the one-server reference the per-GPU rates use."""
    fleet = comparison.fleet
    onprem = comparison.onprem
    out = []
    for item in comparison.assumptions:
        if item.name == "capex per server" and fleet is not None:
            total = float(onprem.server_price) * fleet.servers
            item = Assumption(
                "capex",
                f"{units.format_money(float(onprem.server_price))} × "
                f"{plural(fleet.servers, 'server')} of {onprem.gpus_per_server} GPUs = "
                f"{units.format_money(total)}",
                item.source,
            )
        out.append(item)
    return tuple(out)


def utilization_note(comparison: CostComparison) -> str:
    """How the slider relates to the demand: it caps how busy the owned fleet may be; the demand
    then sets how busy it actually is."""
    cap = units.format_percent(comparison.onprem.utilization, 0)
    fleet = comparison.fleet
    if fleet is None:
        return (
            f"Owned GPUs busy {cap} of hours. Enter the demand to size the fleet: it is then "
            "sized to be busy at most this much."
        )
    return (
        f"Fleet sized to be busy at most {cap}: {plural(fleet.servers, 'server')}, "
        f"{fleet.gpus:,} GPUs. Your demand keeps them {busy_percent(fleet.utilization)} busy; "
        f"break-even and the curve below use {cap}."
    )


def owning_card(comparison: CostComparison) -> CardView:
    rate, u = owning_rate(comparison)  # the fleet's own utilization (issue 25)
    return CardView(
        units.format_money(rate),
        f"at {busy_percent(u)} busy; {units.format_money(comparison.hourly.total)}"
        " per hour it runs",
        owning_tooltip(comparison, "Owning per useful GPU-hour = C(u) / u"),
    )


def cloud_card(cheapest: OptionResult) -> CardView:
    spot = " incl. spot overhead" if cheapest.option.cloud.overhead else ""
    return CardView(
        units.format_money(cheapest.per_useful_hour),
        f"per useful hour: {cheapest.option.short_label}{spot}",
        option_tooltip(cheapest, "Cloud per useful GPU-hour"),
    )


def total_card(comparison: CostComparison) -> CardView | None:
    """Owning the planned fleet over the horizon (None: the demand is not known)."""
    if comparison.owning_horizon_usd is None or comparison.fleet is None:
        return None
    detail = f"{comparison.fleet.gpus:,} GPUs, {comparison.inputs.horizon_months} months"
    cheapest = comparison.cheapest
    if cheapest is not None and cheapest.horizon_usd is not None:
        detail += f"; cheapest renting {units.format_money(cheapest.horizon_usd)}"
    return CardView(
        units.format_money(comparison.owning_horizon_usd),
        detail,
        owning_tooltip(comparison, "Owning the planned fleet over the horizon"),
    )


def break_even_card(comparison: CostComparison) -> CardView:
    """The range of break-even utilizations across the compared prices."""
    values = [r.break_even for r in comparison.options]
    paying = sorted(v for v in values if v <= 1.0)
    never = len(values) - len(paying)
    lines = [
        (r.option.label, break_even_text(r.break_even))
        for r in sorted(comparison.options, key=lambda r: r.break_even)
    ]
    tip = formula_tooltip(
        "Break-even utilization u* = (fixed + idle energy) / (P − load energy)",
        TCO_FORMULA,
        lines,
    )
    if not paying:
        return CardView("never", "owning costs more than every price compared", tip, unit="")
    low, high = paying[0], paying[-1]
    value = (
        units.format_percent(low, 0)
        if math.isclose(low, high, abs_tol=0.005)
        else f"{low * 100:.0f}–{units.format_percent(high, 0)}"
    )
    detail = f"busy hours, across {plural(len(paying), 'price')}"
    if never:
        detail += f"; never against {never}"
    return CardView(value, detail, tip, unit="")


def verdict_html(comparison: CostComparison) -> str:
    """The headline sentence: how many prices owning beats, and where it pays off."""
    owning, u = owning_rate(comparison)
    options = comparison.options
    if not options:
        reason = "Tick at least one cloud price in the table below to compare."
        return (
            f"Owning costs <b>{units.format_money(owning)}</b> per useful GPU-hour at "
            f"{units.format_percent(u, 0)} utilization. {html.escape(reason)}"
        )
    beaten = sum(1 for r in options if r.owning_cheaper)
    first = (
        f"At <b>{units.format_percent(u, 0)}</b> utilization owning costs "
        f"<b>{units.format_money(owning)}</b> per useful GPU-hour: cheaper than "
        f"<b>{beaten} of {len(options)}</b> cloud price{'s' if len(options) != 1 else ''} "
        "compared."
    )
    ordered = sorted(options, key=lambda r: r.break_even)
    paying = [r for r in ordered if r.break_even <= 1.0]
    never = [r for r in ordered if r.break_even > 1.0]
    parts = []
    if paying:
        low = paying[0]
        parts.append(
            f"Owning pays off above <b>{break_even_text(low.break_even)}</b> against "
            f"{html.escape(low.option.label)}"
        )
        if len(paying) > 1:
            high = paying[-1]
            parts.append(
                f"but needs <b>{break_even_text(high.break_even)}</b> against "
                f"{html.escape(high.option.label)}"
            )
    if never:
        names = ", ".join(html.escape(r.option.label) for r in never[:2])
        more = f" and {len(never) - 2} more" if len(never) > 2 else ""
        parts.append(f"it never pays off against {names}{more}")
    second = ("; ".join(parts) + ".") if parts else ""
    if second:
        second = second[0].upper() + second[1:]
    return f"{first} {second}".strip()


def _payback_text(result: OptionResult) -> str:
    if result.plan is None:
        return DASH
    if result.payback_month is not None:
        return f"month {result.payback_month}"
    return "beyond life"


def table_view(comparison: CostComparison, colors: Mapping[str, str]) -> TableView:
    """The comparison table: owning first, then every price from the cheapest."""
    months = comparison.inputs.horizon_months
    owning_tip = owning_tooltip(comparison, "Owning")
    fleet = comparison.fleet
    own_label = (
        f"Own {fleet.servers:,} × {comparison.onprem.gpus_per_server}-GPU server"
        f"{'s' if fleet.servers != 1 else ''}"
        if fleet is not None
        else "Own"
    )
    rows: list[tuple[Cell, ...]] = [
        (
            (own_label, owning_tip, None),
            (units.format_money(owning_rate(comparison)[0]), owning_tip, None),
            (DASH, "Owning is the reference", None),
            (units.format_money(comparison.owning_monthly_usd), owning_tip, None),
            (units.format_money(comparison.owning_horizon_usd), owning_tip, None),
            ("", "", None),
            ("", "", None),
        )
    ]
    swatches = [OWNING_COLOR]
    for result in sorted(comparison.options, key=lambda r: r.per_useful_hour):
        tip = option_tooltip(result, result.option.label)
        plan_tip = (
            formula_tooltip(
                f"{result.option.label}: the plan over {months} months",
                result.plan.formula,
                assumption_rows(result.plan.assumptions),
            )
            if result.plan is not None
            else comparison.demand.rule
        )
        saving = result.saving_usd
        if saving is None:
            verdict: Cell = (DASH, comparison.demand.rule, None)
        elif saving >= 0:
            verdict = (f"Own saves {units.format_money(saving)}", plan_tip, colors["good"])
        else:
            verdict = (f"Rent saves {units.format_money(-saving)}", plan_tip, colors["warn"])
        rows.append(
            (
                (result.option.label, tip, None),
                (units.format_money(result.per_useful_hour), tip, None),
                (break_even_text(result.break_even), tip, None),
                (units.format_money(result.monthly_usd), plan_tip, None),
                (units.format_money(result.horizon_usd), plan_tip, None),
                (_payback_text(result), plan_tip, None),
                verdict,
            )
        )
        swatches.append(option_color(result.color_index))
    if fleet is None:
        note = f"Totals need the demand per month: {comparison.demand.rule}"
    else:
        demand = format_gpu_hours(comparison.demand.gpu_hours_per_month)
        note = (
            f"Per useful GPU-hour × {demand} a month = the monthly total (owning at the "
            f"fleet's {busy_percent(fleet.utilization)} utilization); totals for {demand}"
            f" a month, owning {fleet.gpus:,} GPUs busy "
            f"{busy_percent(fleet.utilization)} of hours. Owning pays for the "
            "servers up front (again at the end of their life); payback is the first month "
            "owning has cost no more than renting."
        )
    return TableView(tuple(rows), tuple(swatches), note)


@dataclass(frozen=True)
class CloudOnlyView:
    """What the tab shows while owning cannot be computed (None parts: nothing to show)."""

    card: CardView
    verdict: str
    table: TableView


def cloud_only_view(
    view: CloudOnly, reason: str, key_colors: Mapping[tuple[str, str], str], bad: str
) -> CloudOnlyView | None:
    """Rank the compared cloud prices when owning has no figure (None: nothing compared)."""
    if not view.prices:
        return None
    ranked = sorted(view.prices, key=lambda item: item[1])
    option, price = ranked[0]
    card = CardView(
        units.format_money(price),
        f"per useful hour: {option.short_label}",
        formula_tooltip(
            "Cloud per useful GPU-hour = price × (1 + spot overhead, spot only)",
            option.cloud.price_source,
        ),
    )
    verdict = (
        f"<span style='color:{bad}'>{html.escape(reason)}</span><br>"
        f"Owning needs that figure. Renting, the cheapest of the {len(ranked)} prices "
        f"compared is <b>{units.format_money(price)}</b> per useful GPU-hour "
        f"({html.escape(option.label)})."
    )
    dash: Cell = (DASH, reason, None)
    blank: Cell = ("", "", None)
    rows: list[tuple[Cell, ...]] = [(("Own", reason, None), dash, dash, dash, dash, blank, blank)]
    for item, per_hour in ranked:
        tip = formula_tooltip(item.label, "price × (1 + spot overhead, spot only)")
        rows.append(
            ((item.label, tip, None), (units.format_money(per_hour), tip, None), *([dash] * 5))
        )
    colors = (OWNING_COLOR, *(key_colors[i.key] for i, _p in ranked))
    table = TableView(tuple(rows), colors, f"Owning cannot be computed: {reason}")
    return CloudOnlyView(card, verdict, table)
