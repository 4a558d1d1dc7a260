"""A scenario's inputs, results and sources as labelled rows, for the compare view and the report.

Everything here is computed by the model layer (``estimate_training``, ``estimate_memory``,
``estimate_inference``, ``estimate_tco``, the sweeps and :mod:`desktopapp.model.sensitivity`);
this module only picks what to show and formats it with ``model.units``. No Qt.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktopapp.application.snapshot import headline_sensitivity, headline_utilization_curve
from desktopapp.application.text import implausible_inputs
from desktopapp.application.workload import DEVICE_SWEEP, UTILIZATION_SWEEP
from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import (
    Accelerator,
    CloudOffer,
    accelerator_catalog,
    cloud_offers,
    offer_named_in,
)
from desktopapp.model.inference import InferenceEstimate
from desktopapp.model.memory import MemoryEstimate
from desktopapp.model.scenario import Scenario
from desktopapp.model.sensitivity import SensitivityResult, training_sensitivity
from desktopapp.model.serving import ServingEstimate
from desktopapp.model.tco import (
    OnPremInputs,
    TcoResult,
    estimate_tco,
    onprem_cost_per_useful_hour,
)
from desktopapp.model.training import (
    TrainingEstimate,
    TrainingInputs,
    TrainingSweep,
    training_sweep_devices,
    training_sweep_utilization,
)
from desktopapp.model.training_defaults import MOE_TOP_K, STACK_LABELS
from desktopapp.model.validation import user_message

DASH = units.DASH
FLEET_UTILIZATION_SWEEP = np.linspace(0.05, 1.0, 96)
PRICING_LABELS = {
    "on_demand": "on-demand",
    "committed_1yr": "1-yr commit",
    "committed_3yr": "3-yr commit",
    "spot": "spot",
}


@dataclass(frozen=True)
class Row:
    """One line of the summary: ``text`` as shown, ``value`` for numeric comparison (None for
    text), ``better`` "lower" / "higher" / "" tells whether a difference is good or bad."""

    section: str
    label: str
    text: str
    value: float | None = None
    better: str = ""
    detail: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.section, self.label)


@dataclass(frozen=True)
class Source:
    """A catalog figure (or a typed one) the results relied on, with its origin and date."""

    what: str
    value: str
    source: str
    date: str = ""
    confidence: str = ""


@dataclass(frozen=True)
class Curves:
    """The sweeps plotted for one scenario (``None`` where not computable)."""

    devices: TrainingSweep | None = None
    utilization: TrainingSweep | None = None
    fleet_utilization: np.ndarray | None = None
    onprem_per_useful_hour: np.ndarray | None = None


@dataclass(frozen=True)
class RentOrBuy:
    """Owning against renting as the Cost tab shows it (one answer for the tab, Compare, the
    report and its PDF): owning per useful GPU-hour at how busy the planned fleet is, the
    cheapest compared price per useful GPU-hour, and the break-even utilizations."""

    owning_rate: float  # USD per useful GPU-hour
    owning_busy: float  # how busy the owned GPUs are (fraction)
    renting_rate: float | None  # the cheapest compared price per useful GPU-hour
    renting_label: str
    break_even: str  # as the Cost tab's card: "28–53%", "36%", "never"
    break_even_value: float | None  # the lowest, for comparing scenarios
    break_even_detail: str
    fleet_gpus: int | None = None  # the fleet the demand sizes (None: the file's owned GPUs)
    fleet_servers: int | None = None


def rent_or_buy_of(snapshot: Any, tco: TcoResult | None) -> RentOrBuy | None:
    """The snapshot's cost comparison as the Cost tab shows it; without one (no demand, or a
    cost section the comparison refused), the file's own owning and renting inputs."""
    comparison = None if snapshot is None else snapshot.cost
    if comparison is not None:
        from desktopapp.application.cost import break_even_card, owning_rate

        rate, busy = owning_rate(comparison)
        cheapest = comparison.cheapest
        card = break_even_card(comparison)
        paying = [r.break_even for r in comparison.options if r.break_even <= 1.0]
        fleet = comparison.fleet
        spot = "" if cheapest is None or not cheapest.option.cloud.overhead else ", spot overhead"
        return RentOrBuy(
            owning_rate=rate,
            owning_busy=busy,
            renting_rate=None if cheapest is None else cheapest.per_useful_hour,
            renting_label="" if cheapest is None else f"{cheapest.option.short_label}{spot}",
            break_even=card.value,
            break_even_value=min(paying) if paying else None,
            break_even_detail=card.detail,
            fleet_gpus=None if fleet is None else fleet.gpus,
            fleet_servers=None if fleet is None else fleet.servers,
        )
    if tco is None:
        return None
    u_star = tco.break_even_utilization
    return RentOrBuy(
        owning_rate=tco.onprem_cost_per_useful_gpu_hour,
        owning_busy=tco.onprem.utilization,
        renting_rate=tco.cloud_cost_per_gpu_hour,
        renting_label="the file's cloud price",
        break_even=units.format_percent(u_star, 0) if tco.pays_off else "never",
        break_even_value=u_star if tco.pays_off and math.isfinite(u_star) else None,
        break_even_detail=tco.formula,
    )


@dataclass(frozen=True, eq=False)
class ScenarioSummary:
    label: str
    scenario: Scenario
    training: TrainingEstimate | None
    memory: MemoryEstimate | None
    inference: InferenceEstimate | None
    rows: tuple[Row, ...]
    sources: tuple[Source, ...]
    assumptions: tuple[tuple[str, tuple[Assumption, ...]], ...]
    problems: tuple[str, ...] = field(default=())
    # Inputs beyond any real system (still computed): shown in the compare view and report.
    warnings: tuple[str, ...] = field(default=())
    file_name: str = ""  # the scenario's file ("a.json"), "" when it has none
    # Language models: the serving model (continuous batching, TTFT/TPOT), as the Workload tab.
    serving: ServingEstimate | None = None
    snapshot: Any = None  # the application.snapshot.Snapshot every figure comes from
    rent_or_buy: RentOrBuy | None = None  # owning against renting, as the Cost tab shows it

    def row(self, section: str, label: str) -> Row | None:
        return next((r for r in self.rows if r.key == (section, label)), None)

    def curves(self) -> Curves:
        training = self.scenario.training
        by_devices = by_util = None
        if training is not None and self.training is not None:
            by_devices = _modelled_sweep(self.snapshot) or training_sweep_devices(
                training, DEVICE_SWEEP
            )
            fig = None if self.snapshot is None else self.snapshot.training
            by_util = (
                training_sweep_utilization(training, UTILIZATION_SWEEP)
                if fig is None
                else headline_utilization_curve(fig, UTILIZATION_SWEEP)
            )
        onprem_curve = None
        plan = self.scenario.cost
        if plan.on_prem is not None:
            onprem_curve = onprem_cost_per_useful_hour(plan.on_prem, FLEET_UTILIZATION_SWEEP)
        return Curves(
            by_devices,
            by_util,
            FLEET_UTILIZATION_SWEEP if onprem_curve is not None else None,
            onprem_curve,
        )

    def sensitivity(self) -> SensitivityResult | None:
        if self.scenario.training is None or self.training is None:
            return None
        try:
            if self.snapshot is not None and self.snapshot.training is not None:
                return headline_sensitivity(self.snapshot)
            return training_sensitivity(self.scenario.training)
        except ValueError:
            return None


def _modelled_sweep(snap: Any) -> TrainingSweep | None:
    """Wall time, GPU-hours and cost against the GPU count from the modelled run (best plan at
    each count), as the Workload tab's scaling plot; None when the run was not modelled."""
    fig = None if snap is None else snap.training
    modelled = None if fig is None else fig.modelled
    if modelled is None or modelled.run is None or modelled.inputs is None:
        return None
    if not modelled.sets_headline:
        return None  # the user's utilization: the flat rule's curve is the headline's
    from desktopapp.application.training_view import PLOT_GPUS
    from desktopapp.model.perf_training import scaling_sweep

    try:
        sweep = scaling_sweep(modelled.inputs, counts=PLOT_GPUS)
    except ValueError:
        return None
    pick = np.isfinite(sweep.training_hours)
    return TrainingSweep(
        "gpus",
        sweep.gpus[pick],
        sweep.training_hours[pick],
        sweep.gpu_hours[pick],
        None if sweep.cost_usd is None else sweep.cost_usd[pick],
    )


# --- formatting helpers -------------------------------------------------------------------------


def _serving_rows(section: str, est: ServingEstimate) -> list[Row]:
    """Throughput, TTFT, TPOT and cost per million output tokens at the chosen concurrency."""
    at = f" ({est.concurrency:,} sequence{'' if est.concurrency == 1 else 's'})"
    rows = [
        Row(
            section,
            "Serving throughput",
            f"{big_count(est.tokens_per_second)} tokens/s{at}",
            est.tokens_per_second,
            "higher",
            detail=est.concurrency_reason,
        ),
        Row(
            section,
            "Time to first token",
            units.format_duration(est.ttft_seconds),
            est.ttft_seconds,
            "lower",
        ),
        Row(
            section,
            "Time per output token",
            units.format_duration(est.tpot_seconds),
            est.tpot_seconds,
            "lower",
        ),
    ]
    if est.cost_per_million_tokens is not None:
        rows.append(
            Row(
                section,
                "Cost per million output tokens",
                units.format_money(est.cost_per_million_tokens),
                est.cost_per_million_tokens,
                "lower",
            )
        )
    return rows


big_count = units.format_big_count  # one spelling of "7B" for Compare, PDF and warnings


def _money_rate(value: float | None) -> str:
    return DASH if value is None else f"{units.format_money(value)}/GPU-h"


def accelerator_of(scenario: Scenario) -> Accelerator | None:
    catalog = accelerator_catalog()
    for section in (scenario.training, scenario.memory, scenario.inference):
        acc_id = None if section is None else section.accelerator
        if acc_id:
            found = catalog.find(acc_id)
            if found is not None:
                return found
    if scenario.cost.accelerator:
        return catalog.find(scenario.cost.accelerator)
    return None


def offer_for(scenario: Scenario, offer_id: str | None) -> CloudOffer | None:
    if not offer_id:
        return None
    custom = scenario.cost.custom_offer(offer_id)
    if custom is not None:
        return custom
    return next((o for o in cloud_offers() if o.id == offer_id), None)


# --- the summary --------------------------------------------------------------------------------


def summarize(scenario: Scenario, label: str | None = None, file_name: str = "") -> ScenarioSummary:
    """Lay out what the compare view and report show for a scenario: every figure is the
    scenario's :class:`~desktopapp.application.snapshot.Snapshot` (the modelled training run,
    memory for its plan, serving at the engine's operating point, the rent/own/hybrid verdict),
    as the Workload and Cost tabs and ``report --json`` show them. ``file_name`` (the scenario's
    file, if any) tells scenarios of the same name apart."""
    from desktopapp.application.snapshot import compute_snapshot, request_from_scenario

    snap = compute_snapshot(request_from_scenario(scenario))
    titles = {
        "training": "Training",
        "memory": "Memory",
        "inference": "Inference",
        "serving": "Serving",
        "cost": "Rent or buy",
    }
    problems = [f"{titles.get(e.section, e.section)}: {e.message}" for e in snap.errors]
    t_est = None if snap.training is None else snap.training.estimate
    m_est, i_est, s_est = snap.memory, snap.inference, snap.serving
    tco = None
    plan = scenario.cost
    if plan.on_prem is not None and plan.cloud is not None:
        try:
            tco = estimate_tco(plan.on_prem, plan.cloud)
        except ValueError as exc:
            problems.append(f"Rent or buy: {user_message(exc)}")
    figures = rent_or_buy_of(snap, tco)
    rows = _rows(scenario, t_est, m_est, i_est, figures, s_est)
    rows += _snapshot_rows(snap)
    groups: list[tuple[str, tuple[Assumption, ...]]] = []
    serving_or_roofline = ("Serving", s_est) if s_est is not None else ("Inference", i_est)
    for title, est in (("Training", t_est), ("Memory", m_est), serving_or_roofline):
        if est is not None:
            groups.append((title, tuple(est.assumptions)))
    if snap.cost is not None:  # the Cost tab's: the fleet sized to the demand, the compared prices
        from desktopapp.application.cost import fleet_assumptions

        groups.append(("Rent or buy", fleet_assumptions(snap.cost)))
    elif tco is not None:
        groups.append(("Rent or buy", tuple(tco.assumptions)))
    return ScenarioSummary(
        label=label or scenario.name,
        scenario=scenario,
        training=t_est,
        memory=m_est,
        inference=i_est,
        rows=tuple(rows),
        sources=tuple(_sources(scenario, t_est)),
        assumptions=tuple(groups),
        problems=tuple(problems),
        warnings=tuple(
            implausible_inputs(scenario.training, scenario.memory, scenario.inference, plan.on_prem)
        ),
        file_name=file_name,
        serving=s_est,
        snapshot=snap,
        rent_or_buy=figures,
    )


def _snapshot_rows(snap: Any) -> list[Row]:
    """The training chain, the parallel plan and the verdict, from the snapshot."""
    from desktopapp.application.verdict import verdict_text

    rows: list[Row] = []
    fig = snap.training
    if fig is not None:
        rows.append(
            Row(
                "Results",
                "Steady state",
                units.format_duration(fig.steady_seconds),
                fig.steady_seconds / 3600.0,
                "lower",
            )
        )
        rows.append(
            Row(
                "Results",
                "Production factor · goodput",
                f"× {units.format_plain(fig.production_factor, 3)} · "
                f"{units.format_percent(fig.goodput, 0)}",
                detail=f"production factor: {fig.production_factor_source}"
                if fig.production_factor_source
                else "",
            )
        )
        if fig.gpu_hours_low is not None and fig.gpu_hours_high is not None:
            rows.append(
                Row(
                    "Results",
                    "Likely GPU-hours",
                    f"{big_count(fig.gpu_hours_low)} … {big_count(fig.gpu_hours_high)} GPU-h",
                    detail="" if fig.run is None else fig.run.range_meaning,
                )
            )
        if fig.plan_text:
            rows.append(Row("Results", "Parallel plan", fig.plan_text.partition(" — ")[0]))
    if snap.verdict is not None:
        rows.append(Row("Results", "Rent or buy verdict", verdict_text(snap.verdict)))
    return rows


def _rows(
    scenario: Scenario,
    t_est: TrainingEstimate | None,
    m_est: MemoryEstimate | None,
    i_est: InferenceEstimate | None,
    figures: RentOrBuy | None,
    serving: ServingEstimate | None = None,
) -> list[Row]:
    """The summary rows, section by section: workload, hardware and price (training only),
    rent or buy, then the results."""
    rows: list[Row] = []
    training = scenario.training
    if training is not None:
        rows += _workload_rows(training)
        rows += _hardware_rows(training, t_est, accelerator_of(scenario))
        rows += _price_rows(training)
    rows += _rent_or_buy_rows(scenario, figures)
    rows += _result_rows(t_est, m_est, i_est, figures, serving)
    return rows


def _workload_rows(training: TrainingInputs) -> list[Row]:
    """The compute rule and the counts it multiplies."""
    section = "Workload"
    rule = training.resolved_method
    rows = [
        Row(section, "Compute rule", "C = 6·N·D" if rule == "6nd" else "C = 3 × forward × samples")
    ]
    if rule == "6nd":
        rows.append(Row(section, "Parameters", big_count(training.params), training.params))
        active = training.active_params
        if active is not None:  # a mixture of experts: what each token uses, and its routing
            top_k = training.moe_top_k or MOE_TOP_K
            given = "" if training.moe_top_k else " (default)"
            text = f"{big_count(active)}, top-{top_k}{given}"
            rows.append(Row(section, "Active parameters (MoE)", text, active))
        rows.append(Row(section, "Training tokens", big_count(training.tokens), training.tokens))
    else:
        flops = training.forward_flops
        rows.append(Row(section, "Forward FLOPs per sample", units.format_flops(flops), flops))
        rows.append(Row(section, "Samples", big_count(training.samples), training.samples))
    rows.append(Row(section, "Epochs", units.format_plain(training.epochs), training.epochs))
    return rows


def _hardware_rows(
    training: TrainingInputs, t_est: TrainingEstimate | None, acc: Accelerator | None
) -> list[Row]:
    """Accelerator, devices and precision; peak and utilization once the estimate ran."""
    section = "Hardware"
    rows = [
        Row(section, "Accelerator", acc.name if acc is not None else "given peak"),
        Row(section, "Devices", f"{training.gpus:,}", float(training.gpus)),
        Row(section, "Precision", training.resolved_precision),
    ]
    # the run's own inputs beyond the catalog, shown only where a scenario sets them
    if training.power_cap_w is not None:
        cap = f"{units.format_plain(training.power_cap_w)} W per GPU"
        rows.append(Row(section, "Power cap", cap, training.power_cap_w))
    if training.software_stack is not None:
        rows.append(Row(section, "Software stack", STACK_LABELS[training.software_stack]))
    if t_est is None:
        return rows
    peak = units.format_flop_rate(t_est.peak_tflops * 1e12)
    rows.append(Row(section, "Peak per device", peak, t_est.peak_tflops))
    origin = "given" if training.utilization is not None else "default"
    rows.append(
        Row(
            section,
            "Utilization (MFU)",
            f"{units.format_percent(t_est.utilization, 0)} ({origin})",
            t_est.utilization,
            detail="" if t_est.utilization_source == "given" else t_est.utilization_source,
        )
    )
    return rows


def _price_rows(training: TrainingInputs) -> list[Row]:
    """The training run's price per GPU-hour and where it came from."""
    source = training.price_source
    return [
        Row("Price", "Price per GPU-hour", _money_rate(training.price), training.price),
        Row("Price", "Price source", _short_source(source), detail=source),
    ]


def _rent_or_buy_rows(scenario: Scenario, figures: RentOrBuy | None = None) -> list[Row]:
    """The Cost tab's inputs: the cloud offer and price, then the owned fleet (the one the
    demand sizes, as the Cost tab and the verdict plan it)."""
    plan = scenario.cost
    section = "Rent or buy"
    rows: list[Row] = []
    cloud = plan.cloud
    if cloud is not None:
        offer = offer_for(scenario, plan.offer)
        name = offer.name if offer is not None else "typed price"
        pricing = PRICING_LABELS.get(plan.pricing, plan.pricing)
        rows.append(Row(section, "Cloud offer", f"{name} · {pricing}"))
        price = _money_rate(cloud.cloud_price)
        rows.append(
            Row(section, "Cloud price", price, cloud.cloud_price, detail=cloud.price_source)
        )
    if plan.on_prem is not None:
        rows += _owned_fleet_rows(section, plan.on_prem, figures)
    return rows


def _owned_fleet_rows(
    section: str, onprem: OnPremInputs, figures: RentOrBuy | None = None
) -> list[Row]:
    gpus, servers = onprem.gpus, onprem.servers
    sized = figures is not None and figures.fleet_gpus is not None
    if figures is not None and figures.fleet_gpus is not None:
        gpus, servers = figures.fleet_gpus, figures.fleet_servers or servers
    fleet = f"{units.plural(gpus, 'GPU')} in {units.plural(servers, 'server')}"
    money = units.format_money(onprem.server_price)
    power = f"{units.format_plain(onprem.power_kw)} kW"
    life = units.format_plain(onprem.life_years)
    pue, kwh = units.format_plain(onprem.pue), units.format_plain(onprem.kwh_price)
    utilization = units.format_percent(onprem.utilization, 0)
    return [
        Row(
            section,
            "Owned fleet",
            fleet,
            float(gpus),
            detail=f"sized to the demand: busy at most {utilization} of hours" if sized else "",
        ),
        Row(
            section,
            "Server price",
            money,
            float(onprem.server_price),
            detail=onprem.server_price_source,
        ),
        Row(section, "Server power", power, float(onprem.power_kw), detail=onprem.power_source),
        Row(section, "Life", f"{life} years", float(onprem.life_years)),
        Row(section, "PUE · electricity", f"{pue} · ${kwh}/kWh"),
        Row(section, "Owned GPUs busy at most", utilization, onprem.utilization),
    ]


def _result_rows(
    t_est: TrainingEstimate | None,
    m_est: MemoryEstimate | None,
    i_est: InferenceEstimate | None,
    figures: RentOrBuy | None,
    serving: ServingEstimate | None,
) -> list[Row]:
    """What the model computed: training, memory, serving or inference, rent or buy."""
    section = "Results"
    rows: list[Row] = []
    if t_est is not None:
        rows += _training_result_rows(section, t_est)
    if m_est is not None:
        fits = m_est.fits
        verdict = "" if fits is None else (" · fits" if fits else " · does not fit")
        text = units.format_bytes(m_est.per_device_bytes) + verdict
        rows.append(Row(section, "Memory per device", text, m_est.per_device_bytes, "lower"))
    if serving is not None:
        rows += _serving_rows(section, serving)
    elif i_est is not None:
        rows += _inference_rows(section, i_est)
    if figures is not None:
        rows += _tco_rows(section, figures)
    return rows


def _training_result_rows(section: str, t_est: TrainingEstimate) -> list[Row]:
    flops, hours = t_est.total_flops, t_est.gpu_hours
    cost, project = t_est.estimated_cost_usd, t_est.planning_high_cost_usd
    wall = units.format_duration(t_est.training_seconds)
    return [
        Row(section, "Total compute", units.format_flops(flops), flops, "lower"),
        Row(section, "Wall time", wall, t_est.training_hours, "lower"),
        Row(section, "GPU-hours", f"{big_count(hours)} GPU-h", hours, "lower"),
        Row(section, "Cost of the run", units.format_money(cost), cost, "lower"),
        Row(
            section,
            f"Whole project (×{t_est.project_margin:g})",
            units.format_money(project),
            project,
            "lower",
        ),
    ]


def _inference_rows(section: str, i_est: InferenceEstimate) -> list[Row]:
    """The one-step roofline's throughput and cost (models without a serving model)."""
    rate = i_est.throughput_per_second
    rows = [
        Row(
            section,
            "Inference throughput",
            f"{big_count(rate)} {i_est.unit}s/s",
            rate,
            "higher",
            detail=""
            if i_est.input_tokens_per_second is None
            else f"{big_count(i_est.input_tokens_per_second)} tokens/s read, one forward pass "
            "per sequence (an encoder: no token generation)",
        )
    ]
    if i_est.unit == "sequence":  # an encoder answers a request in one forward pass
        latency = i_est.latency_seconds
        rows.append(
            Row(
                section,
                "Latency per request",
                units.format_duration(latency),
                latency,
                "lower",
            )
        )
    cost = i_est.cost_per_million
    if cost is not None:
        label = f"Cost per million {i_est.unit}s"
        rows.append(Row(section, label, units.format_money(cost), cost, "lower"))
    return rows


def _tco_rows(section: str, figures: RentOrBuy) -> list[Row]:
    """Owning against renting per useful GPU-hour and the break-even utilization, as the Cost
    tab's cards show them."""
    busy = units.format_percent(figures.owning_busy, 0)
    fleet = (
        ""
        if figures.fleet_gpus is None
        else f"; {units.plural(figures.fleet_gpus, 'GPU')} sized to the demand"
    )
    rows = [
        Row(
            section,
            "Owning per useful GPU-hour",
            _money_rate(figures.owning_rate),
            figures.owning_rate,
            "lower",
            detail=f"at {busy} busy{fleet}",
        )
    ]
    if figures.renting_rate is not None:
        rows.append(
            Row(
                section,
                "Renting per useful GPU-hour",
                _money_rate(figures.renting_rate),
                figures.renting_rate,
                "lower",
                detail=f"cheapest compared: {figures.renting_label}",
            )
        )
    rows.append(
        Row(
            section,
            "Break-even utilization",
            "owning never pays off" if figures.break_even == "never" else figures.break_even,
            figures.break_even_value,
            detail=figures.break_even_detail,
        )
    )
    return rows


def _short_source(text: str) -> str:
    if not text:
        return "none given"
    offer = offer_named_in(text)
    if offer is not None:
        return f"catalog: {offer.name} ({offer.price_date})"
    return text if len(text) <= 60 else text[:59] + "…"


def _sources(scenario: Scenario, t_est: TrainingEstimate | None) -> list[Source]:
    """The catalog figures the results used (accelerators, prices, the owned server), once."""
    out: list[Source] = []
    seen: set[tuple[str, str]] = set()
    for source in _accelerator_sources(scenario, t_est) + _price_sources(scenario):
        key = (source.value, source.source)
        if key not in seen:
            seen.add(key)
            out.append(source)
    return out


def _accelerator_sources(scenario: Scenario, t_est: TrainingEstimate | None) -> list[Source]:
    """Each accelerator named in a section: its peaks and memory, and the typical utilization
    when training used it."""
    catalog = accelerator_catalog()
    acc_ids = [
        s.accelerator
        for s in (scenario.training, scenario.memory, scenario.inference)
        if s is not None and s.accelerator
    ]
    if scenario.cost.accelerator:
        acc_ids.append(scenario.cost.accelerator)
    training = scenario.training
    typical_used = t_est is not None and training is not None and training.utilization is None
    out: list[Source] = []
    for acc_id in acc_ids:
        acc = catalog.find(acc_id)
        if acc is None:
            continue
        peaks = ", ".join(f"{p} {units.format_plain(acc.peak_tflops[p])}" for p in acc.precisions)
        out.append(
            Source(
                f"Accelerator: {acc.name}",
                f"dense peak TFLOP/s {peaks}; {units.format_plain(acc.memory_gb)} GB",
                acc.source,
                acc.source_date,
                acc.confidence,
            )
        )
        if typical_used and acc.typical_utilization is not None:
            out.append(
                Source(
                    f"Typical utilization: {acc.name}",
                    units.format_percent(acc.typical_utilization, 0),
                    acc.typical_utilization_source,
                    acc.source_date,
                    acc.confidence,
                )
            )
    return out


def _price_sources(scenario: Scenario) -> list[Source]:
    """The training price, the cloud offer and the owned server's price and power."""
    out: list[Source] = []
    training = scenario.training
    if training is not None and training.price is not None:
        offer = offer_named_in(training.price_source)
        if offer is not None:
            out.append(_offer_source("Training price", offer, "on_demand"))
        else:
            rate, source = _money_rate(training.price), training.price_source or "typed in"
            out.append(Source("Training price per GPU-hour", rate, source))
    plan = scenario.cost
    offer = offer_for(scenario, plan.offer)
    if offer is not None:
        out.append(_offer_source("Cloud offer", offer, plan.pricing))
    onprem = plan.on_prem
    if onprem is not None and onprem.server_price_source:
        money = units.format_money(onprem.server_price)
        out.append(Source("Server price", money, onprem.server_price_source))
    if onprem is not None and onprem.power_source:
        power = f"{units.format_plain(onprem.power_kw)} kW"
        out.append(Source("Server power", power, onprem.power_source))
    return out


def _offer_source(what: str, offer: CloudOffer, pricing: str) -> Source:
    price = offer.price(pricing)
    return Source(
        f"{what}: {offer.name} ({offer.region or 'any region'})",
        f"{_money_rate(price)} {PRICING_LABELS.get(pricing, pricing)}",
        offer.source,
        offer.price_date,
        offer.confidence,
    )


def union_keys(summaries: Sequence[ScenarioSummary]) -> list[tuple[str, str]]:
    """Row keys of all summaries grouped by section, results first, then in order of first
    appearance."""
    sections: list[str] = []
    keys: dict[str, list[str]] = {}
    for summary in summaries:
        for row in summary.rows:
            if row.section not in keys:
                sections.append(row.section)
                keys[row.section] = []
            if row.label not in keys[row.section]:
                keys[row.section].append(row.label)
    if "Results" in sections:  # what a meeting asks first
        sections.remove("Results")
        sections.insert(0, "Results")
    return [(s, label) for s in sections for label in keys[s]]


def relative_change(value: float | None, reference: float | None) -> float | None:
    """``value / reference − 1`` (None when either is missing or the reference is 0)."""
    if value is None or reference is None or reference == 0:
        return None
    return value / reference - 1.0


def delta_text(change: float | None) -> str:
    """A change against the reference as people say it: ``"+12%"``, ``"-0.4%"``; from ten
    times up a ratio, ``"×22,038"`` (``"+2203757%"`` is not read, it is counted); ``""`` for no
    change or none known."""
    if change is None or not math.isfinite(change) or abs(change) < 0.0005:
        return ""
    if change >= 9.0:  # ten times the reference or more
        return f"×{units.format_number(1.0 + change)}"
    return f"{change * 100:+.0f}%" if abs(change) >= 0.01 else f"{change * 100:+.1f}%"


def legend_labels(summaries: Sequence[ScenarioSummary]) -> list[str]:
    """What each scenario is called in a legend, all different: its name; where names repeat
    (three files saved as copies all named "a"), its file name, else its label; still repeated
    (one file pinned twice), numbered: ``"a.json (2)"``."""
    names = [s.scenario.name or s.label for s in summaries]
    chosen = [
        (s.file_name or s.label) if names.count(name) > 1 else name
        for s, name in zip(summaries, names, strict=True)
    ]
    seen: dict[str, int] = {}
    out = []
    for name in chosen:
        if chosen.count(name) > 1:
            seen[name] = seen.get(name, 0) + 1
            name = f"{name} ({seen[name]})"
        out.append(name)
    return out
