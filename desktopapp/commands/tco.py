"""``desktopapp estimate tco``: owning servers against renting cloud GPUs.

``commands/estimate.py`` creates the ``estimate`` group and calls :func:`register_tco`. Options
left out take catalog defaults (server price and power for the accelerator, the cheapest cloud
offer, PUE, $/kWh …); the output lists which ones, with their sources. The defaults and the
demand plan (``--gpu-hours-per-month``: fleet, recommendation, best hybrid) come from
``model.planning``, the code the Cost tab plans with, so both give the same figures.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field, replace
from typing import Any

from desktopapp.application.verdict import verdict_for_demand
from desktopapp.commands.options import add_command, add_json_option
from desktopapp.commands.output import (
    print_json,
    print_key_values,
    print_paragraph,
    warn_implausible,
)
from desktopapp.model import units
from desktopapp.model.catalog import (
    PRICING_MODELS,
    Accelerator,
    PriceEstimate,
    cheapest_price,
    cloud_defaults,
    get_accelerator,
    tco_defaults,
)
from desktopapp.model.planning import (
    PRICING_LABELS,
    PROFILE_LABELS,
    DemandPlan,
    format_gpu_hours,
    owning_defaults,
)
from desktopapp.model.tco import (
    DEFAULT_FACILITY_USD_PER_KW_MONTH,
    DEFAULT_GPUS_PER_SERVER,
    DEFAULT_KWH_PRICE,
    DEFAULT_LIFE_YEARS,
    DEFAULT_OPS_FRACTION,
    DEFAULT_PUE,
    DEFAULT_UTILIZATION,
    CloudInputs,
    OnPremInputs,
    TcoResult,
    estimate_tco,
)
from desktopapp.model.units import (
    NUMBER_EXAMPLES,
    parse_fraction,
    parse_money,
    parse_quantity,
    plural,
)
from desktopapp.model.validation import InputError, require_int

# option dest → (metavar, help)
_NUMBER_OPTIONS: dict[str, tuple[str, str]] = {
    "gpus": ("N", "GPUs owned in total (default: one server)"),
    "gpus_per_server": ("N", "GPUs per server (default: the catalog server's, else 8)"),
    "server_price": (
        "USD",
        "capex per server, all in (default: catalog server price + 20%% fabric/storage/install)",
    ),
    "life_years": ("Y", f"straight-line depreciation life (default {DEFAULT_LIFE_YEARS:g})"),
    "power_kw": ("KW", "server power at full load (default: catalog server or GPU TDP based)"),
    "power_kw_idle": ("KW", "server power when idle (default: same as --power-kw)"),
    "pue": ("X", f"data-center PUE (default {DEFAULT_PUE:g})"),
    "kwh_price": ("USD", f"electricity price per kWh (default {DEFAULT_KWH_PRICE:g})"),
    "ops_fraction": (
        "F",
        f"staff, maintenance and space per year, as a fraction of capex "
        f"(default {DEFAULT_OPS_FRACTION:g})",
    ),
    "facility_usd_per_kw_month": (
        "USD",
        f"colocation cost per kW-month (default {DEFAULT_FACILITY_USD_PER_KW_MONTH:g}: "
        "space is in --ops-fraction)",
    ),
    "utilization": (
        "F",
        f"fraction of hours the owned GPUs are busy (default {DEFAULT_UTILIZATION:g})",
    ),
    "cloud_price": ("USD", "cloud price per GPU-hour (default: cheapest catalog offer)"),
    "spot_overhead": ("F", "extra GPU-hours lost to spot interruptions (default 0.10)"),
    "months": ("N", "horizon of the cumulative comparison (default: the life)"),
    "gpu_hours_per_month": (
        "H",
        "GPU-hours needed each month: sizes the owned fleet and prints the recommendation "
        "(own, rent or both) and the best hybrid plan, as the Cost tab does",
    ),
}


def register_tco(estimate_subparsers: Any) -> None:
    """Add ``tco`` to the ``estimate`` subcommand group."""
    parser = add_command(
        estimate_subparsers,
        "tco",
        "cost of owning servers against renting cloud GPUs (break-even utilization)",
        "Compare owning servers with renting cloud GPUs: cost per GPU-hour, yearly totals, "
        "break-even utilization and payback month. With --gpu-hours-per-month: the owned "
        "fleet for that demand, the recommendation (own, rent or both) and the best hybrid "
        "plan over --horizon-months, as the Cost tab plans them. Options left out take "
        "catalog defaults, listed in the output with their sources.",
        run_tco,
    )
    parser.add_argument("--accelerator", metavar="ID", help="catalog id, e.g. h100-sxm")
    for dest, (metavar, text) in _NUMBER_OPTIONS.items():
        names = ["--" + dest.replace("_", "-")]
        if dest == "months":
            names.append("--horizon-months")  # the Cost tab's name for it
        parser.add_argument(*names, dest=dest, metavar=metavar, help=text)
    parser.add_argument(
        "--profile",
        choices=tuple(PROFILE_LABELS),
        default="flat",
        help="shape of the monthly demand for the hybrid plan (default flat; needs "
        "--gpu-hours-per-month)",
    )
    parser.add_argument(
        "--pricing",
        choices=PRICING_MODELS,
        default="on_demand",
        help="cloud pricing model (default on_demand)",
    )
    add_json_option(parser)


@dataclass
class ResolvedTco:
    """Inputs after defaults, with where each default came from."""

    onprem: OnPremInputs
    cloud: CloudInputs
    months: int | None
    gpu_hours_per_month: float | None
    accelerator: Accelerator | None
    price: PriceEstimate | None  # the catalog price used, when --cloud-price was left out
    defaults_used: list[str] = field(default_factory=list)


# Longest comparison horizon: servers are written off over 3-7 years; 100 years is far beyond
# any plan and keeps the month-by-month table small (a bound, not a planning figure).
MAX_MONTHS = 1200


def _number(args: argparse.Namespace, dest: str) -> float | None:
    raw = getattr(args, dest, None)
    if raw is None:
        return None
    # as the option reads: a share (0.4 or 40%), dollars (2.49 or $1.99) or a number
    parse = {"F": parse_fraction, "USD": parse_money}.get(_NUMBER_OPTIONS[dest][0])
    if parse is not None:
        return parse(raw, dest, maximum=units.MAX_INPUT_VALUE)
    return parse_quantity(raw, dest, maximum=units.MAX_INPUT_VALUE, examples=NUMBER_EXAMPLES)


def resolve(args: argparse.Namespace) -> ResolvedTco:
    """Turn the options into model inputs, filling the ones left out from the catalogs."""
    acc = get_accelerator(args.accelerator) if args.accelerator else None
    defaults = tco_defaults()
    server = defaults.server_for(acc.id) if acc else None
    used: list[str] = []

    def pick(dest: str, default: float) -> float:
        value = _number(args, dest)
        if value is None:
            used.append(dest)
            return default
        return value

    per_server = _number(args, "gpus_per_server")
    if per_server is None:
        used.append("gpus_per_server")
        per_server = float(server.gpus if server else DEFAULT_GPUS_PER_SERVER)
    per_server_count = require_int("gpus_per_server", per_server, minimum=1)
    gpus = pick("gpus", per_server)

    server_price = _number(args, "server_price")
    price_source = ""
    if server_price is None:
        server_price, price_source = _default_server_price(acc, per_server_count)
        used.append("server_price")

    power_kw = _number(args, "power_kw")
    power_source = ""
    if power_kw is None:
        power_kw, power_source = _default_power(acc, per_server_count)
        used.append("power_kw")

    onprem = OnPremInputs(
        server_price=server_price,
        power_kw=power_kw,
        gpus=require_int("gpus", gpus, minimum=1),
        gpus_per_server=per_server_count,
        life_years=pick("life_years", defaults.value("life_years")),
        power_kw_idle=_number(args, "power_kw_idle"),
        pue=pick("pue", defaults.value("pue")),
        kwh_price=pick("kwh_price", defaults.value("kwh_price")),
        ops_fraction=pick("ops_fraction", defaults.value("ops_fraction")),
        facility_usd_per_kw_month=pick(
            "facility_usd_per_kw_month", defaults.value("facility_usd_per_kw_month")
        ),
        utilization=pick("utilization", defaults.value("utilization")),
        server_price_source=price_source,
        power_source=power_source,
    )

    pricing = args.pricing
    cloud_price = _number(args, "cloud_price")
    estimate: PriceEstimate | None = None
    if cloud_price is None:
        estimate = _default_cloud_price(acc, pricing)
        cloud_price = estimate.price
        used.append("cloud_price")
    cloud = CloudInputs(
        cloud_price=cloud_price,
        pricing=pricing,
        spot_overhead=_spot_overhead(args, used),
        price_source=estimate.basis if estimate else "",
    )
    months_value = _number(args, "months")
    months = None
    if months_value is not None:
        if months_value != math.floor(months_value) or months_value < 1:
            raise InputError("months", f"must be a whole number of at least 1, got {args.months!r}")
        if months_value > MAX_MONTHS:
            raise InputError(
                "months", f"must be at most {MAX_MONTHS} (100 years), got {args.months!r}"
            )
        months = int(months_value)
    demand = _number(args, "gpu_hours_per_month")
    if demand is not None and not (math.isfinite(demand) and demand > 0):
        raise InputError(
            "gpu_hours_per_month", f"must be more than 0, got {args.gpu_hours_per_month!r}"
        )
    return ResolvedTco(onprem, cloud, months, demand, acc, estimate, used)


def _spot_overhead(args: argparse.Namespace, used: list[str]) -> float:
    value = _number(args, "spot_overhead")
    if value is not None:
        return value
    if args.pricing == "spot":
        used.append("spot_overhead")
    return cloud_defaults().spot_overhead.value


def _default_server_price(acc: Accelerator | None, per_server: int) -> tuple[float, str]:
    if acc is None:
        raise InputError("server_price", "required without --accelerator (USD per server)")
    defaults = owning_defaults(acc.id, per_server)
    server = tco_defaults().server_for(acc.id)
    if defaults.server_price is None or server is None:
        quotes = ""
        if server is not None and server.quotes:
            quotes = " (catalog quotes: " + "; ".join(
                f"{q.name} {units.format_money(q.price_usd)}" for q in server.quotes
            )
            quotes += f"; {server.notes})" if server.notes else ")"
        raise InputError(
            "server_price", f"no catalog server price for {acc.id}{quotes}; pass --server-price USD"
        )
    overhead = tco_defaults().get("install_overhead_fraction")
    return defaults.server_price, (
        f"catalog: {defaults.server_price_source} ({server.source}; {overhead.source})"
    )


def _default_power(acc: Accelerator | None, per_server: int) -> tuple[float, str]:
    if acc is None:
        raise InputError("power_kw", "required without --accelerator (kW per server at full load)")
    defaults = owning_defaults(acc.id, per_server)
    if defaults.power_kw is None:
        raise InputError("power_kw", f"{acc.id} has no published TDP; pass --power-kw KW")
    if defaults.power_source.startswith("estimated"):
        ratio = tco_defaults().get("server_power_per_gpu_tdp")
        return defaults.power_kw, f"{defaults.power_source} ({ratio.source})"
    return defaults.power_kw, f"catalog: {defaults.power_source}"


def _default_cloud_price(acc: Accelerator | None, pricing: str) -> PriceEstimate:
    if acc is None:
        raise InputError("cloud_price", "required without --accelerator (USD per GPU-hour)")
    found = cheapest_price(acc.id, pricing)
    if found is None:
        raise InputError(
            "cloud_price",
            f"the catalog has no {pricing} price for {acc.id}; pass --cloud-price USD",
        )
    return found


def payload(resolved: ResolvedTco, result: TcoResult) -> dict[str, Any]:
    """The JSON object printed by ``estimate tco --json``."""
    onprem, cloud = resolved.onprem, resolved.cloud
    acc = resolved.accelerator
    if resolved.price is not None:
        price_source: dict[str, Any] = {
            "kind": "derived" if resolved.price.derived else "catalog",
            **resolved.price.to_dict(),
        }
    else:
        price_source = {"kind": "input", "price": float(cloud.cloud_price)}
    return {
        "accelerator": None if acc is None else {"id": acc.id, "name": acc.name},
        "inputs": {
            "gpus": onprem.gpus,
            "gpus_per_server": onprem.gpus_per_server,
            "servers": onprem.servers,
            "server_price": float(onprem.server_price),
            "life_years": float(onprem.life_years),
            "power_kw": float(onprem.power_kw),
            "power_kw_idle": onprem.idle_kw,
            "pue": float(onprem.pue),
            "kwh_price": float(onprem.kwh_price),
            "ops_fraction": float(onprem.ops_fraction),
            "facility_usd_per_kw_month": float(onprem.facility_usd_per_kw_month),
            "utilization": float(onprem.utilization),
            "cloud_price": float(cloud.cloud_price),
            "pricing": cloud.pricing,
            "spot_overhead": float(cloud.spot_overhead),
            "months": result.horizon_months,
        },
        "defaults_used": resolved.defaults_used,
        "cloud_price_source": price_source,
        **result.to_dict(),
    }


def demand_plan(resolved: ResolvedTco, result: TcoResult, profile: str) -> DemandPlan | None:
    """The fleet, its comparison and the hybrid plan for ``--gpu-hours-per-month`` (None
    without it), over the same horizon as ``result``."""
    if resolved.gpu_hours_per_month is None:
        return None
    from desktopapp.application.verdict import plan_for_demand

    return plan_for_demand(
        resolved.onprem,
        resolved.cloud,
        resolved.gpu_hours_per_month,
        result.horizon_months,
        profile,
    )


def _verdict_text(
    plan: DemandPlan, gpus_per_server: int, cloud_label: str
) -> tuple[str, str, int, float]:
    """(choice, sentence, owned GPUs, cost) of the one verdict
    (:func:`desktopapp.model.planning.make_verdict`, rendered by
    :mod:`desktopapp.application.verdict`), as the Cost tab and the report lead with it."""
    from desktopapp.application.verdict import verdict_text

    verdict = verdict_for_demand(plan, cloud_label)
    if verdict is None:  # nothing to compare: renting everything is the only plan
        hybrid = plan.hybrid
        return "rent", "Rent everything.", 0, hybrid.all_cloud_cost_usd
    best = verdict.best
    return best.choice, verdict_text(verdict), best.owned_gpus, best.cost_usd


def plan_payload(
    plan: DemandPlan, gpus_per_server: int, profile: str, cloud_label: str = "the cloud price"
) -> dict[str, Any]:
    """The ``plan`` object of ``estimate tco --gpu-hours-per-month … --json``."""
    choice, headline, owned, cost = _verdict_text(plan, gpus_per_server, cloud_label)
    return {
        "gpu_hours_per_month": plan.demand_gpu_hours,
        "profile_gpu_hours": plan.profile_gpu_hours.tolist(),
        "profile": profile,
        "fleet": {
            "servers": plan.fleet.servers,
            "gpus": plan.fleet.gpus,
            "utilization": plan.fleet.utilization,
        },
        "recommendation": {
            "choice": choice,
            "text": headline,
            "owned_gpus": owned,
            "owned_servers": -(-owned // gpus_per_server),
            "cost_usd": cost,
        },
        "renting_usd": plan.hybrid.all_cloud_cost_usd,  # the one renting total of the demand
        "fleet_tco": plan.plan.to_dict(),
        "hybrid": plan.hybrid.to_dict(),
    }


def plan_rows(
    plan: DemandPlan, gpus_per_server: int, profile: str, cloud_label: str = "the cloud price"
) -> list[tuple[str, str]]:
    """Text rows for the demand plan: fleet, its totals, the recommendation and best hybrid."""
    fleet, tco = plan.fleet, plan.plan
    headline = _verdict_text(plan, gpus_per_server, cloud_label)[1]
    months = tco.horizon_months
    renting = plan.hybrid.all_cloud_cost_usd  # the one renting total for this demand
    saving = renting - tco.onprem_horizon_usd
    demand = format_gpu_hours(plan.demand_gpu_hours)
    return [
        ("Demand", f"{demand} a month; hybrid plan: {PROFILE_LABELS[profile]}"),
        (
            "Owned fleet",
            f"{plural(fleet.servers, 'server')} of {gpus_per_server} GPUs ({fleet.gpus:,} GPUs), "
            f"busy {units.format_percent(fleet.utilization)} of hours",
        ),
        (
            f"Fleet over {months} months",
            f"owning {units.format_money(tco.onprem_horizon_usd)}, renting "
            f"{units.format_money(renting)}, "
            + (
                f"owning saves {units.format_money(saving)}"
                if saving >= 0
                else f"renting saves {units.format_money(-saving)}"
            ),
        ),
        ("Recommendation", headline),
        ("Best hybrid", _hybrid_text(plan, cloud_label)),
    ]


def _hybrid_text(plan: DemandPlan, cloud_label: str) -> str:
    """The best plan that owns some GPUs (fewer than the fleet) and rents the rest."""
    hybrid, months = plan.hybrid, plan.plan.horizon_months
    verdict = verdict_for_demand(plan, cloud_label)
    mixed = None
    if verdict is not None:
        mixed = next((p for p in (verdict.best, *verdict.others) if p.choice == "hybrid"), None)
    if mixed is None:
        return "no mix of owned and rented GPUs is possible for this fleet"
    return (
        f"own {mixed.owned_gpus:,} GPUs, rent the rest: {units.format_money(mixed.cost_usd)} over "
        f"{months} months, against {units.format_money(hybrid.all_cloud_cost_usd)} renting "
        f"everything and {units.format_money(plan.plan.onprem_horizon_usd)} owning the "
        f"{plan.fleet.gpus:,}-GPU fleet"
    )


def _breakdown(parts: dict[str, float]) -> str:
    return ", ".join(f"{name} {units.format_money(value)}" for name, value in parts.items())


def _break_even_text(result: TcoResult) -> str:
    u_star = result.break_even_utilization
    if math.isinf(u_star):
        return "never: energy under load alone costs more than the cloud price"
    if result.pays_off:
        return f"{units.format_percent(u_star)} (owning is cheaper above this)"
    return f"{units.format_percent(u_star)} (above 100%: owning never pays off)"


def text_rows(
    resolved: ResolvedTco,
    result: TcoResult,
    with_totals: bool = True,
    utilization_cap: float | None = None,
) -> list[tuple[str, str]]:
    """The text output: inputs after defaults, then the results. ``with_totals`` False (a
    demand is given): the yearly and horizon totals are left out, so that one demand has one
    renting total (the demand plan's). ``utilization_cap``: ``resolved`` is the fleet sized to
    the demand at the utilization the demand gives it, sized to be busy at most this much (the
    Cost tab's figures for the same plan)."""
    onprem, cloud = resolved.onprem, resolved.cloud
    acc = resolved.accelerator
    u = onprem.utilization
    busy = units.format_percent(u)
    if utilization_cap is not None:
        busy += (
            f" of hours: the demand on this fleet, sized to be busy at most "
            f"{units.format_percent(utilization_cap, 0)}"
        )
    verdict = _break_even_text(result)
    payback = (
        f"month {result.payback_month}"
        if result.payback_month is not None
        else f"not within the {units.format_plain(onprem.life_years)}-year life"
    )
    idle = "same" if onprem.power_kw_idle is None else f"{units.format_plain(onprem.idle_kw, 4)} kW"
    saving = result.cloud_horizon_usd - result.onprem_horizon_usd
    rows = [
        ("Accelerator", f"{acc.name} ({acc.id})" if acc else units.DASH),
        (
            "Fleet",
            f"{onprem.gpus:,} GPUs in {plural(onprem.servers, 'server')} of "
            f"{onprem.gpus_per_server}",
        ),
        (
            "Capex",
            f"{units.format_money(float(onprem.server_price))} per server, "
            f"{units.format_money(onprem.capex_usd)} in total",
        ),
        ("Life", f"{units.format_plain(onprem.life_years)} years, straight line"),
        (
            "Power per server",
            f"{units.format_plain(float(onprem.power_kw), 4)} kW full load, idle {idle}",
        ),
        (
            "PUE / electricity",
            f"{units.format_plain(onprem.pue)} / ${units.format_plain(onprem.kwh_price)} per kWh",
        ),
        (
            "Ops / facility",
            f"{units.format_percent(onprem.ops_fraction)} of capex per year / "
            f"${units.format_plain(onprem.facility_usd_per_kw_month)} per kW-month",
        ),
        ("Utilization", busy),
        (
            "Cloud price",
            f"{units.format_money(float(cloud.cloud_price))}/GPU-hour ({cloud.pricing})"
            + (f"; {resolved.price.basis}" if resolved.price else ""),
        ),
        (
            "Owning per GPU-hour",
            f"{units.format_money(result.onprem_cost_per_gpu_hour)} ({_breakdown(_parts(result))})",
        ),
        (
            f"Owning per useful GPU-hour at {units.format_percent(u, 0)}",
            units.format_money(result.onprem_cost_per_useful_gpu_hour),
        ),
        (
            "Cloud per useful GPU-hour",
            units.format_money(result.cloud_cost_per_gpu_hour)
            + (
                f" (incl. {units.format_percent(cloud.overhead, 0)} spot overhead)"
                if cloud.overhead
                else ""
            ),
        ),
        ("Break-even utilization", verdict),
        (
            "Owning per year",
            f"{units.format_money(result.onprem_yearly.total)} "
            f"({_breakdown(result.onprem_yearly.to_dict())})",
        ),
        (
            "Cloud per year",
            f"{units.format_money(result.cloud_yearly.total)} (same useful GPU-hours)",
        ),
        (
            f"Over {result.horizon_months} months",
            f"owning {units.format_money(result.onprem_horizon_usd)}, cloud "
            f"{units.format_money(result.cloud_horizon_usd)}, "
            + (
                f"owning saves {units.format_money(saving)}"
                if saving >= 0
                else f"cloud saves {units.format_money(-saving)}"
            ),
        ),
        ("Payback", payback),
    ]
    if not with_totals:
        totals = {"Owning per year", "Cloud per year", f"Over {result.horizon_months} months"}
        rows = [row for row in rows if row[0] not in totals and row[0] != "Payback"]
    return rows


def _parts(result: TcoResult) -> dict[str, float]:
    parts = result.hourly.to_dict()
    parts.pop("total")
    return parts


def _cloud_label(resolved: ResolvedTco) -> str:
    """The rented price in the user's words: the catalog offer, or the price typed in."""
    price = resolved.price
    if price is not None and price.offer is not None:
        # the Cost tab's label for the same price (``CloudOption.label``), so that both write
        # the same verdict sentence
        pricing = PRICING_LABELS.get(price.pricing, price.pricing)
        return f"{price.offer.provider} {price.offer.instance} · {pricing}"
    return f"the cloud at {units.format_money(float(resolved.cloud.cloud_price))}/GPU-h"


def run_tco(args: argparse.Namespace) -> int:
    resolved = resolve(args)
    warn_implausible(resolved.onprem, resolved, quiet=args.json)
    result = estimate_tco(resolved.onprem, resolved.cloud, resolved.months)
    plan = demand_plan(resolved, result, args.profile)
    per_server = resolved.onprem.gpus_per_server
    if args.json:
        data = payload(resolved, result)
        if plan is not None:
            data["plan"] = plan_payload(plan, per_server, args.profile, _cloud_label(resolved))
        print_json(data)
        return 0
    if plan is None:
        rows = text_rows(resolved, result)
        shown = result
    else:
        # One plan, one set of figures: the fleet sized to the demand at the utilization the
        # demand gives it (as the Cost tab's cards and assumptions show it), not the
        # one-server reference at --utilization.
        fleet = replace(resolved, onprem=plan.fleet_onprem)
        rows = text_rows(fleet, plan.plan, False, resolved.onprem.utilization)
        rows += plan_rows(plan, per_server, args.profile, _cloud_label(resolved))
        shown = plan.plan
    print_key_values(rows)
    print("\nAssumptions")
    for assumption in shown.assumptions:
        print_paragraph(f"{assumption.name}: {assumption.value}", indent="  ")
        print_paragraph(f"source: {assumption.source or 'input'}", indent="      ")
    if resolved.defaults_used:
        names = ", ".join("--" + d.replace("_", "-") for d in resolved.defaults_used)
        print()
        print_paragraph(f"Defaults used for: {names}")
    print()
    print_paragraph(f"Formula: {result.formula}")
    return 0
