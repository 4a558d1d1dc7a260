"""What to run on (issue 24): the search behind ``desktopapp plan`` and the Workload tab's
"What to run on" view, without Qt.

Training: every catalog accelerator (filtered by the constraints) × fleet sizes (powers of two
and multiples of the scale-up domain up to ``max_gpus``) × the pricing kinds that have offers
(on-demand, committed, spot, and owning through the Cost tab's TCO model). Each (accelerator,
GPU count) is modelled once by :func:`training_figures`, the same modelled run the Workload
tab and ``desktopapp estimate train`` show (pricing does not change the plan, so it is cached);
every price then gives one option. Serving: every accelerator × precision × GPUs per replica
is sized with the serving model ``desktopapp estimate inference`` uses, at the highest
concurrency that meets the latency targets, and replicated for the load with headroom.

:mod:`desktopapp.model.advisor` ranks, marks the Pareto fronts and writes the recommendation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Any

from desktopapp.model import advisor as adv
from desktopapp.model import units
from desktopapp.model.catalog import (
    PRICING_MODELS,
    Accelerator,
    CloudOffer,
    accelerator_catalog,
    cloud_offers,
    offers_for,
)
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.interconnect import interconnect_for
from desktopapp.model.memory import SHAPE_TERMS
from desktopapp.model.perf_training import TRAINING_PLAN_FIELDS
from desktopapp.model.planning import default_onprem, default_spot_overhead
from desktopapp.model.tco import (
    CloudInputs,
    OnPremInputs,
    break_even_utilization,
    onprem_cost_per_useful_hour,
)
from desktopapp.model.training import TrainingInputs, default_precision, power_cap_floor
from desktopapp.model.training_defaults import DEFAULT_STACK
from desktopapp.model.validation import InputError, error_text, require_range, require_shape

DEFAULT_MAX_GPUS = 16_384
MAX_GPUS_SOURCE = (
    "Llama 3 405B was trained on up to 16,384 H100 GPUs (Meta, 'The Llama 3 Herd of Models', "
    "arXiv 2407.21783, 2024): the largest published training fleet"
)
SERVING_GPUS_PER_REPLICA: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
DEFAULT_HEADROOM = 0.2
HEADROOM_SOURCE = (
    "assumed: 20% spare throughput per fleet for bursts within the hour and a replica lost "
    "to a failure (change with --headroom)"
)
DEFAULT_PEAK_TO_MEAN = 1.0

Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


class SearchCancelled(Exception):
    """The caller asked the search to stop (the GUI's Cancel)."""


# --- inputs -------------------------------------------------------------------------------------


# the shape a training workload carries to the modelled run (training_view.shape_of)
SHAPE_NAMES = ("seq_len", "layers", "hidden", "heads", "kv_heads", *SHAPE_TERMS)
# the training inputs a workload carries to every option it ranks, by the TrainingInputs name:
# the plan fields a scenario saves except the parallel layout each option searches, with the
# epochs and the goodput (one list, so a new term reaches the ranking, its checks and the
# dialog's workload at once)
SEARCHED_PLAN = ("tp", "pp", "micro_batch")
RUN_TERMS = (
    "epochs",
    "goodput_overhead",
    *(name for name in TRAINING_PLAN_FIELDS if name not in SEARCHED_PLAN),
)


@dataclass(frozen=True)
class TrainWorkload:
    """What to train, as the Workload tab takes it (without the hardware)."""

    params: float
    tokens: float
    active_params: float | None = None
    precision: str | None = None  # None: each accelerator's default (bf16 where it has it)
    epochs: float = 1.0
    seq_len: int | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    global_batch_tokens: float | None = None
    production_factor: float | None = None
    production_factor_source: str = ""  # where a given factor came from (your own runs)
    software_stack: str | None = None  # None: the default ("typical")
    power_cap_w: float | None = None  # per GPU, W (None: each accelerator's TDP)
    moe_top_k: int | None = None  # experts per token (None: top-2)
    goodput_overhead: float | None = None  # extra wall time (None: the published goodput)
    # the memory terms of the shape (MLP kind and width, vocabulary), as the Workload tab has
    ffn_hidden: int | None = None
    vocab: int | None = None
    mlp: str | None = None

    def __post_init__(self) -> None:
        # the same checks as the Workload tab's (one accelerator stands in for the catalog); a
        # broken shape is the workload's error, not one for each accelerator in the ranking
        require_shape(self.layers, self.hidden, self.heads, self.kv_heads)
        TrainingInputs(params=self.params, tokens=self.tokens, peak_tflops=1.0, **self._run_terms())

    def _run_terms(self) -> dict[str, Any]:
        """The training inputs beyond the size, device and price (RUN_TERMS)."""
        return {name: getattr(self, name) for name in RUN_TERMS}

    def shape(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in SHAPE_NAMES if getattr(self, n) is not None}

    def training_inputs(
        self, accelerator: str, gpus: int, precision: str, price: float | None = None
    ) -> TrainingInputs:
        return TrainingInputs(
            params=self.params,
            tokens=self.tokens,
            accelerator=accelerator,
            gpus=gpus,
            precision=precision,
            price=price,
            **self._run_terms(),
        )

    @classmethod
    def from_training(cls, training: TrainingInputs, shape: Mapping[str, Any]) -> TrainWorkload:
        if training.params is None or training.tokens is None:
            raise InputError("params", "the search needs the parameter count and the tokens")
        terms: dict[str, Any] = {name: getattr(training, name) for name in RUN_TERMS}
        terms.update((k, shape.get(k)) for k in SHAPE_NAMES)
        return cls(
            params=training.params, tokens=training.tokens, precision=training.precision, **terms
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class ServeWorkload:
    """The model served and the traffic."""

    params: float
    requests_per_s: float
    prompt_tokens: int = 512
    output_tokens: int = 256
    active_params: float | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    precisions: tuple[str, ...] = ("bf16",)
    ttft_slo_s: float | None = None
    tpot_slo_s: float | None = None
    peak_to_mean: float = DEFAULT_PEAK_TO_MEAN
    headroom: float = DEFAULT_HEADROOM
    # mixture of experts routing and the KV-cache format (None: the serving model's defaults)
    experts: int | None = None
    moe_top_k: int | None = None
    kv_precision: str | None = None

    def __post_init__(self) -> None:
        from desktopapp.model.serving import WEIGHT_PRECISIONS, ServingInputs

        rate = self.requests_per_s
        if not isinstance(rate, int | float) or not math.isfinite(rate) or rate <= 0:
            shown = f"{rate:g}" if isinstance(rate, int | float) else repr(rate)
            raise InputError("requests_per_s", f"must be a rate above 0 requests/s, got {shown}")
        require_range("peak_to_mean", self.peak_to_mean, 1.0, 100.0)
        require_range("headroom", self.headroom, 0.0, 10.0)
        if not self.precisions:
            raise InputError("precision", "give at least one precision")
        for p in self.precisions:
            if p not in WEIGHT_PRECISIONS:
                raise InputError(
                    "precision", f"must be among {', '.join(WEIGHT_PRECISIONS)}, got {p!r}"
                )
        require_shape(self.layers, self.hidden, self.heads, self.kv_heads)  # the KV cache's
        InferenceInputs(  # the workload's checks (routing only for a mixture of experts)
            params=self.params,
            peak_tflops=1.0,
            bandwidth_gbs=1.0,
            active_params=self.active_params,
            experts=self.experts,
            moe_top_k=self.moe_top_k,
            kv_precision=self.kv_precision,
        )
        ServingInputs(  # the serving model's own checks, on a stand-in device
            params=self.params,
            peak_tflops=1.0,
            bandwidth_gbs=1.0,
            active_params=self.active_params,
            layers=self.layers,
            hidden=self.hidden,
            heads=self.heads,
            kv_heads=self.kv_heads,
            prompt_tokens=self.prompt_tokens,
            output_tokens=self.output_tokens,
            ttft_slo_s=self.ttft_slo_s,
            tpot_slo_s=self.tpot_slo_s,
        )

    @property
    def output_tokens_per_second(self) -> float:
        """The peak output-token rate the fleet must serve."""
        return self.requests_per_s * self.peak_to_mean * self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class OwningOverrides:
    """The Cost tab's owning figures the user changed (None: the catalog default)."""

    life_years: float | None = None
    pue: float | None = None
    kwh_price: float | None = None
    ops_fraction: float | None = None
    facility_usd_per_kw_month: float | None = None
    utilization: float | None = None

    @classmethod
    def from_onprem(cls, onprem: OnPremInputs) -> OwningOverrides:
        return cls(
            onprem.life_years,
            onprem.pue,
            onprem.kwh_price,
            onprem.ops_fraction,
            onprem.facility_usd_per_kw_month,
            onprem.utilization,
        )


# --- the adapter: one modelled run ----------------------------------------------------------


@dataclass(frozen=True)
class TrainFigures:
    """What the Workload tab's headline shows for one accelerator and GPU count."""

    training_seconds: float
    gpu_hours: float
    gpu_hours_low: float
    gpu_hours_high: float
    plan: str


def training_figures(
    workload: TrainWorkload, accelerator: str, gpus: int, precision: str
) -> TrainFigures:
    """The modelled run for one choice, as the Workload tab computes it (application/
    training_view.model_run, the model predicting the efficiency) and ``estimate train``
    prints it (perf_training.with_run); a PlanError or InputError when nothing fits."""
    return _training_figures(workload, accelerator, gpus, precision)


@lru_cache(maxsize=8192)
def _training_figures(
    workload: TrainWorkload, accelerator: str, gpus: int, precision: str
) -> TrainFigures:
    from desktopapp.application.snapshot import training_figures as snapshot_figures

    training = workload.training_inputs(accelerator, gpus, precision)
    # the snapshot's training figures (issue 21): what the Workload tab and `estimate train`
    # show for this choice, the model predicting the efficiency
    fig = snapshot_figures(training, workload.shape(), utilization_user_set=False)
    run = fig.modelled.run
    if run is None or fig.gpu_hours_low is None or fig.gpu_hours_high is None:
        text = fig.modelled.reason.removeprefix("Not modelled: ").removeprefix(
            "No parallel plan fits: "
        )
        raise InputError(fig.modelled.field or "gpus", text or "cannot be modelled")
    plan, _, _ = run.plan_reason.partition(" — ")
    return TrainFigures(
        fig.wall_seconds, fig.gpu_hours, fig.gpu_hours_low, fig.gpu_hours_high, plan
    )


# --- catalog pieces -----------------------------------------------------------------------------


def fleet_sizes(domain: int, max_gpus: int) -> tuple[int, ...]:
    """Powers of two, and multiples of the scale-up domain (×2^k) where it is not one."""
    sizes = {2**k for k in range(31) if 2**k <= max_gpus}
    if domain > 1:
        sizes |= {domain * 2**k for k in range(31) if domain * 2**k <= max_gpus}
    return tuple(sorted(sizes))


def providers() -> tuple[str, ...]:
    return tuple(dict.fromkeys(o.provider for o in cloud_offers()))


def budget_usd(value: float | None) -> float | None:
    """The budget as both faces check it: an amount in USD above 0 (None: no budget)."""
    if value is not None and not value > 0:
        raise InputError("budget", f"must be an amount in USD above 0, got {value:g}")
    return value


def parse_budget(text: str) -> float | None:
    """A budget as typed in the window: "$1.5M", "300k"; empty is no budget. Refused as the
    command line's --budget is (the same parser and bound, the same check)."""
    text = text.strip()
    if not text:
        return None
    return budget_usd(units.parse_money(text, "budget", maximum=units.MAX_INPUT_VALUE))


def parse_rate(text: str) -> float:
    """Requests per second as typed in the window ("20", "1.5k"), refused as the command
    line's --requests-per-s is (the same parser and bound)."""
    return units.parse_quantity(  # above 0: ServeWorkload's check, the command line's too
        text.strip() or "0",
        "requests_per_s",
        maximum=units.MAX_INPUT_VALUE,
        examples=units.NUMBER_EXAMPLES,
    )


def resolve_names(names: Iterable[str], field_name: str) -> tuple[str, ...]:
    """Accelerator ids (any catalog spelling or alias) or cloud providers → their catalog
    spelling; an unknown name is refused naming the option, with the closest names."""
    import difflib

    catalog = accelerator_catalog()
    known_providers = {p.lower(): p for p in providers()}
    out: list[str] = []
    for raw in names:
        for name in (n.strip() for n in str(raw).split(",")):
            if not name:
                continue
            acc = catalog.find(name)
            if acc is not None:
                out.append(acc.id)
                continue
            if name.lower() in known_providers:
                out.append(known_providers[name.lower()])
                continue
            close = catalog.suggest(name) + difflib.get_close_matches(
                name.lower(), list(known_providers), n=2, cutoff=0.6
            )
            hint = f"; did you mean {', '.join(close[:3])}?" if close else ""
            raise InputError(
                field_name,
                f"unknown accelerator or cloud {name!r}{hint} (`desktopapp catalog "
                "accelerators` and `desktopapp catalog cloud` list them)",
            )
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class _Filter:
    accelerators_in: frozenset[str]
    accelerators_out: frozenset[str]
    providers_in: frozenset[str]
    providers_out: frozenset[str]

    @classmethod
    def of(cls, c: adv.Constraints) -> _Filter:
        ids = set(accelerator_catalog().ids)
        return cls(
            frozenset(n for n in c.include if n in ids),
            frozenset(n for n in c.exclude if n in ids),
            frozenset(n for n in c.include if n not in ids),
            frozenset(n for n in c.exclude if n not in ids),
        )

    def accelerator(self, acc_id: str) -> bool:
        if acc_id in self.accelerators_out:
            return False
        return not self.accelerators_in or acc_id in self.accelerators_in

    def offer(self, offer: CloudOffer) -> bool:
        if offer.provider in self.providers_out:
            return False
        return not self.providers_in or offer.provider in self.providers_in

    def owning(self) -> bool:
        return not self.providers_in  # "only these clouds" leaves owning out


def cheapest_listed(acc_id: str, pricing: str, flt: _Filter) -> CloudOffer | None:
    """The offer ``estimate train --pricing`` uses (``catalog.cheapest_offer``: rentable first,
    then the lowest listed price), among the clouds the constraints allow."""
    priced = [o for o in offers_for(acc_id) if o.price(pricing) is not None and flt.offer(o)]
    pool = [o for o in priced if o.rentable] or priced
    if not pool:
        return None
    return min(pool, key=lambda o: (o.price(pricing) or 0.0, o.id))


def owned_inputs(acc_id: str, gpus: int, overrides: OwningOverrides | None) -> OnPremInputs | None:
    """The Cost tab's owning inputs for ``gpus`` of one accelerator (whole servers): catalog
    defaults with the user's overrides; None without a catalog server price or power."""
    base = default_onprem(acc_id, gpus)
    if base is None:
        return None
    if overrides is None:
        return base
    changes = {k: v for k, v in vars(overrides).items() if v is not None}
    return replace(base, **changes)


def owned_price(onprem: OnPremInputs) -> float:
    """Owning cost per useful GPU-hour at the assumed utilization: C(u)/u (model/tco.py)."""
    return float(onprem_cost_per_useful_hour(onprem, onprem.utilization)[0])


def _offer_ref(offer: CloudOffer, pricing: str, today: date) -> adv.OfferRef:
    return adv.OfferRef(
        pricing=pricing,
        provider=offer.provider,
        name=offer.name,
        region=offer.region,
        price_date=offer.price_date,
        offer_id=offer.id,
        source=offer.source,
        stale=adv.is_stale(offer.price_date, today),
        basis=f"{offer.name} ({offer.region}) {pricing.replace('_', '-')} "
        f"${offer.price(pricing):.4g}/GPU-h, {offer.price_date}",
    )


def _owned_ref(acc: Accelerator, onprem: OnPremInputs, today: date) -> adv.OfferRef:
    from desktopapp.model.catalog import tco_defaults

    server = tco_defaults().server_for(acc.id)
    name = server.name if server is not None else f"{acc.name} servers"
    price_date = server.price_date if server is not None else ""
    return adv.OfferRef(
        pricing=adv.OWNED,
        provider="owned",
        name=name,
        region="",
        price_date=price_date,
        offer_id=f"owned:{acc.id}",
        source=onprem.server_price_source,
        stale=adv.is_stale(price_date, today),
        basis=(
            f"owning whole {onprem.gpus_per_server}-GPU servers at "
            f"{units.format_money(float(onprem.server_price))}: {onprem.life_years:g}-year life, "
            f"PUE {onprem.pue:g}, ${onprem.kwh_price:g}/kWh, operations "
            f"{onprem.ops_fraction:.0%} of capex a year, {onprem.utilization:.0%} utilization "
            "over the life: cost per useful GPU-hour = C(u)/u"
        ),
    )


_NEED = re.compile(r"need ([\d.]+) GiB per GPU against ([\d.]+) GiB usable")


def _classify(text: str) -> str:
    low = text.lower()
    need = _NEED.search(text)
    if need is not None and float(need.group(1)) > float(need.group(2)):
        return adv.MEMORY
    if "global batch" in low:
        return adv.GLOBAL_BATCH
    if "scale-up" in low or "interconnect" in low or "domain" in low:
        return adv.SCALE_UP
    if "memory" in low or "fit" in low or "kv cache" in low:
        return adv.MEMORY
    return adv.NOT_MODELLED


def _precision_for(acc: Accelerator, wanted: str | None) -> str:
    return wanted if wanted is not None else default_precision(acc)


# --- training search ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    acc: Accelerator
    precision: str | None  # None: not checked here (serving tries each precision)
    sizes: tuple[int, ...]
    prices: tuple[tuple[float, adv.OfferRef], ...]
    owned_per_server: int = 1  # owned fleets are whole servers of this many GPUs


def _candidates(
    c: adv.Constraints,
    precision_of: Callable[[Accelerator], str | None],
    sizes_of: Callable[[Accelerator, int], tuple[int, ...]],
    owning: OwningOverrides | None,
    today: date,
    excluded: list[adv.Excluded],
    owned_gpus: int | None = None,
) -> list[_Candidate]:
    flt = _Filter.of(c)
    out = []
    for acc in accelerator_catalog().accelerators:
        if not flt.accelerator(acc.id):
            if acc.id in flt.accelerators_out:
                excluded.append(adv.Excluded(acc.id, None, None, adv.USER, "excluded by you"))
            continue
        precision = precision_of(acc)
        if precision is not None and precision not in acc.peak_tflops:
            excluded.append(
                adv.Excluded(
                    acc.id,
                    None,
                    None,
                    adv.NOT_MODELLED,
                    f"{acc.name} has no published {precision} peak",
                )
            )
            continue
        try:
            domain = interconnect_for(acc.id).scale_up_domain
        except ValueError as exc:
            excluded.append(adv.Excluded(acc.id, None, None, adv.NOT_MODELLED, error_text(exc)))
            continue
        prices: list[tuple[float, adv.OfferRef]] = []
        per_server = 1
        for pricing in c.pricing:
            if pricing == adv.OWNED:
                onprem = owned_inputs(acc.id, owned_gpus or 8, owning) if flt.owning() else None
                if onprem is None:
                    why = (
                        "owning is left out when only clouds are included"
                        if not flt.owning()
                        else f"no catalog server price or power for {acc.name}"
                    )
                    excluded.append(adv.Excluded(acc.id, None, pricing, adv.NO_PRICE, why))
                    continue
                prices.append((owned_price(onprem), _owned_ref(acc, onprem, today)))
                per_server = onprem.gpus_per_server
                continue
            offer = cheapest_listed(acc.id, pricing, flt)
            if offer is None:
                excluded.append(
                    adv.Excluded(
                        acc.id,
                        None,
                        pricing,
                        adv.NO_PRICE,
                        f"no {adv.PRICING_WORDS[pricing]} catalog offer for {acc.name}",
                    )
                )
                continue
            price = offer.price(pricing)
            assert price is not None
            prices.append((price, _offer_ref(offer, pricing, today)))
        if not prices:
            continue
        out.append(_Candidate(acc, precision, sizes_of(acc, domain), tuple(prices), per_server))
    return out


def _stepping(
    candidates: list[_Candidate], progress: Progress | None, cancelled: Cancelled | None
) -> Iterator[_Candidate]:
    """Each candidate in turn: stops with SearchCancelled when asked to, reports progress before
    each one and once more when all are done."""
    for step, cand in enumerate(candidates):
        if cancelled is not None and cancelled():
            raise SearchCancelled
        if progress is not None:
            progress(step, len(candidates))
        yield cand
    if progress is not None:
        progress(len(candidates), len(candidates))


def search_training(
    workload: TrainWorkload,
    constraints: adv.Constraints,
    *,
    owning: OwningOverrides | None = None,
    today: date | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> adv.Ranking:
    """Every option for the training run, ranked (see the module docstring)."""
    today = today or date.today()
    max_gpus = constraints.max_gpus or DEFAULT_MAX_GPUS
    excluded: list[adv.Excluded] = []
    candidates = _candidates(
        constraints,
        lambda acc: _precision_for(acc, workload.precision),
        lambda acc, domain: fleet_sizes(domain, max_gpus),
        owning,
        today,
        excluded,
    )
    options: list[adv.TrainOption] = []
    searched = 0
    for cand in _stepping(candidates, progress, cancelled):
        lowest_cap = power_cap_floor(cand.acc)
        if workload.power_cap_w is not None and workload.power_cap_w < lowest_cap:
            excluded.append(  # one row for the accelerator, not one per fleet size
                adv.Excluded(
                    cand.acc.id,
                    None,
                    None,
                    adv.NOT_MODELLED,
                    f"{cand.acc.name} cannot be capped below {lowest_cap:,.0f} W (a quarter of "
                    f"its {cand.acc.tdp_w:,.0f} W TDP): the cap is {workload.power_cap_w:,.0f} W",
                )
            )
            continue
        failures: list[tuple[int, str]] = []
        memory_bound: int | None = None  # the largest fleet found too small for the memory
        # largest fleets first: once a fleet cannot hold the model, no smaller one can
        for gpus in sorted(cand.sizes, reverse=True):
            if memory_bound is not None:
                failures.append(
                    (gpus, f"fewer GPUs than {memory_bound:,}, which already lack the memory")
                )
                continue
            searched += 1
            assert cand.precision is not None
            try:
                fig = training_figures(workload, cand.acc.id, gpus, cand.precision)
            except ValueError as exc:
                text = error_text(exc)
                failures.append((gpus, text))
                if _classify(text) == adv.MEMORY:
                    memory_bound = gpus
                continue
            for price, ref in cand.prices:
                if ref.pricing == adv.OWNED and gpus % cand.owned_per_server:
                    continue  # owned fleets are whole servers
                options.append(
                    adv.TrainOption(
                        accelerator=cand.acc.id,
                        accelerator_name=adv.short_name(cand.acc.name, cand.acc.vendor),
                        gpus=gpus,
                        precision=cand.precision,
                        offer=ref,
                        price_usd_per_gpu_hour=price,
                        wall_days=fig.training_seconds / units.SECONDS_PER_DAY,
                        gpu_hours=fig.gpu_hours,
                        cost_usd=fig.gpu_hours * price,
                        cost_low_usd=fig.gpu_hours_low * price,
                        cost_high_usd=fig.gpu_hours_high * price,
                        plan=fig.plan,
                    )
                )
        excluded.extend(_fold_failures(cand.acc, failures))
    ranked = adv.rank_training(options, constraints)
    note = _owning_note(ranked, owning, constraints)
    text = adv.training_recommendation(ranked, constraints, note, excluded)
    notes: tuple[str, ...] = (f"fleet sizes up to {max_gpus:,} GPUs ({MAX_GPUS_SOURCE})",)
    if workload.software_stack not in (None, DEFAULT_STACK):
        notes += (f"every option modelled on the {workload.software_stack} software stack",)
    if workload.goodput_overhead is not None:
        goodput = 1.0 / (1.0 + workload.goodput_overhead)
        notes += (f"every option at goodput {units.format_percent(goodput, 0)} (given)",)
    if workload.power_cap_w is not None:
        notes += (
            f"every GPU capped at {workload.power_cap_w:,.0f} W (those with a higher TDP run "
            "at a lower clock)",
        )
    if workload.production_factor is not None:
        given = f"×{units.format_plain(workload.production_factor, 3)} (given)"
        notes += (
            f"production factor for every option: {workload.production_factor_source or given}",
        )
    return adv.Ranking("train", ranked, tuple(excluded), text, constraints, searched, notes)


def _fold_failures(acc: Accelerator, failures: list[tuple[int, str]]) -> list[adv.Excluded]:
    """One excluded row per GPU count that cannot run, with the model's reason."""
    return [
        adv.Excluded(
            acc.id,
            gpus,
            None,
            adv.MEMORY if "lack the memory" in text else _classify(text),
            f"{gpus:,} × {acc.name}: {text}",
        )
        for gpus, text in sorted(failures)
    ]


def _owning_note(
    ranked: tuple[Any, ...], owning: OwningOverrides | None, c: adv.Constraints
) -> adv.OwningNote | None:
    """Break-even utilization of owning the top option's accelerator against renting it at
    the top's price (or, when the top is owned, against the cheapest rented option of it)."""
    if not ranked or not ranked[0].meets_constraints or adv.OWNED not in c.pricing:
        return None
    top = ranked[0]
    onprem = owned_inputs(top.accelerator, 8, owning)
    if onprem is None:
        return adv.OwningNote(math.nan, 0.0, 0.0)  # no catalog server price to compare
    if top.pricing == adv.OWNED:
        rented = [o for o in ranked if o.accelerator == top.accelerator and o.pricing != adv.OWNED]
        if not rented:
            return None
        ref = min(rented, key=lambda o: o.price_usd_per_gpu_hour)
    else:
        ref = top
    cloud = CloudInputs(
        ref.price_usd_per_gpu_hour,
        ref.pricing if ref.pricing in PRICING_MODELS else "on_demand",
        default_spot_overhead(),
    )
    return adv.OwningNote(
        break_even_utilization(onprem, cloud), onprem.life_years, onprem.utilization
    )


# --- serving search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ServeFigures:
    """One replica at the operating point ``estimate inference`` picks."""

    concurrency: int
    tokens_per_second: float  # output tokens/s, one replica
    ttft_seconds: float
    tpot_seconds: float
    cost_per_million_tokens: float | None
    slo_met: bool | None
    notes: tuple[str, ...]
    # the estimate's likely throughput range (its out-of-sample errors; None: none stated)
    tokens_per_second_low: float | None = None
    tokens_per_second_high: float | None = None


def replica_layout(gpus: int, domain: int) -> tuple[int, int]:
    """(TP, PP) for ``gpus`` per replica: tensor parallel inside the scale-up domain (a power
    of two), pipeline stages across it."""
    tp = 1
    while tp * 2 <= min(gpus, domain) and gpus % (tp * 2) == 0:
        tp *= 2
    return tp, gpus // tp


def serving_inputs(
    workload: ServeWorkload,
    accelerator: str,
    gpus: int,
    pp: int,
    precision: str,
    price: float | None,
    replicas: int = 1,
) -> Any:
    """The serving model's inputs, built as ``estimate inference`` builds them."""
    from desktopapp.model.serving import from_inference

    base = InferenceInputs(
        params=workload.params,
        accelerator=accelerator,
        precision=precision,
        prompt_tokens=workload.prompt_tokens,
        output_tokens=workload.output_tokens,
        layers=workload.layers,
        hidden=workload.hidden,
        heads=workload.heads,
        kv_heads=workload.kv_heads,
        gpus=gpus,
        price=price,
        active_params=workload.active_params,
        experts=workload.experts,
        moe_top_k=workload.moe_top_k,
        kv_precision=workload.kv_precision,
    )
    extra: dict[str, Any] = {"pp": pp, "replicas": replicas}
    if workload.ttft_slo_s is not None:
        extra["ttft_slo_s"] = workload.ttft_slo_s
    if workload.tpot_slo_s is not None:
        extra["tpot_slo_s"] = workload.tpot_slo_s
    return from_inference(base, batching="continuous", concurrency=None, batch_size=1, **extra)


@lru_cache(maxsize=4096)
def serving_figures(
    workload: ServeWorkload, accelerator: str, gpus: int, pp: int, precision: str
) -> ServeFigures:
    from desktopapp.model.serving import estimate_serving

    est = estimate_serving(serving_inputs(workload, accelerator, gpus, pp, precision, None))
    return ServeFigures(
        est.concurrency,
        est.tokens_per_second,
        est.ttft_seconds,
        est.tpot_seconds,
        est.cost_per_million_tokens,
        est.slo_met,
        est.notes,
        est.tokens_per_second_low,
        est.tokens_per_second_high,
    )


def replica_range_note() -> str:
    """What the replica range of a serving option means (the serving estimate's range)."""
    from desktopapp.model.serving import calibration

    cal = calibration()
    if not cal.range_rows:
        err = max(cal.loo_median_error or 1.0, 1.0)
        return (
            f"replica range: the serving model's leave-one-out median error (×{err:.2f}) on "
            "published throughput either way (no out-of-sample figures stored)"
        )
    low, high = cal.range_ratio
    return (
        "replica range: the replicas for the serving estimate's likely throughput, which is "
        f"predicted ÷ {high:.2f} … ÷ {low:.2f} (10-90% of predicted/measured on "
        f"{cal.range_rows} published measurements the calibration did not use), wider on GPUs "
        "without serving measurements"
    )


def search_serving(
    workload: ServeWorkload,
    constraints: adv.Constraints,
    *,
    owning: OwningOverrides | None = None,
    today: date | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> adv.Ranking:
    """Every accelerator × precision × GPUs per replica that meets the latency targets, sized
    for the load with headroom, ranked by cost per month."""
    from desktopapp.model.serving import calibration

    today = today or date.today()
    excluded: list[adv.Excluded] = []
    # without a stated throughput range: the fit's own median error either way
    err = max(calibration().loo_median_error or 1.0, 1.0)
    needed = workload.output_tokens_per_second * (1.0 + workload.headroom)
    options: list[adv.ServeOption] = []
    searched = 0
    accs = _candidates(
        constraints,
        lambda acc: None,  # each precision is tried below
        lambda acc, domain: (),
        owning,
        today,
        excluded,
        owned_gpus=8,
    )
    for cand in _stepping(accs, progress, cancelled):
        domain = interconnect_for(cand.acc.id).scale_up_domain
        for precision in workload.precisions:
            fitted = False
            for gpus in SERVING_GPUS_PER_REPLICA:
                if constraints.max_gpus is not None and gpus > constraints.max_gpus:
                    break
                _, pp = replica_layout(gpus, domain)
                searched += 1
                try:
                    fig = serving_figures(workload, cand.acc.id, gpus, pp, precision)
                except ValueError as exc:
                    text = error_text(exc)
                    if not fitted:
                        excluded.append(
                            adv.Excluded(
                                cand.acc.id,
                                gpus,
                                None,
                                _classify(text),
                                f"{gpus} × {cand.acc.name} {precision}: {text}",
                            )
                        )
                    continue
                if fig.slo_met is False:
                    miss = next((n for n in fig.notes if n.startswith("targets missed")), "")
                    excluded.append(
                        adv.Excluded(
                            cand.acc.id,
                            gpus,
                            None,
                            adv.TARGETS,
                            f"{gpus} × {cand.acc.name} {precision}: "
                            + (miss or "misses the latency targets"),
                        )
                    )
                    continue
                fitted = True
                rate = fig.tokens_per_second
                replicas = max(1, math.ceil(needed / rate))
                # the replicas the estimate's likely throughput range asks for
                low = max(1, math.ceil(needed / (fig.tokens_per_second_high or rate * err)))
                high = max(1, math.ceil(needed / (fig.tokens_per_second_low or rate / err)))
                for price, ref in cand.prices:
                    per_server = 1  # rented by the GPU; owned by the whole server
                    if ref.pricing == adv.OWNED:
                        onprem = owned_inputs(cand.acc.id, 8, owning)
                        assert onprem is not None
                        per_server = onprem.gpus_per_server
                        # a serving fleet is held all month: its cost per wall-clock hour
                        price = float(onprem_cost_per_useful_hour(onprem, 1.0)[0])
                        ref = replace(
                            ref,
                            basis=ref.basis.split(":")[0]
                            + f": held all month, bought in whole {per_server}-GPU servers",
                        )

                    def month(
                        n: int, gpus: int = gpus, per: int = per_server, p: float = price
                    ) -> float:
                        """Cost of ``n`` replicas a month (owned: whole servers)."""
                        return units.HOURS_PER_MONTH * p * per * math.ceil(n * gpus / per)

                    options.append(
                        adv.ServeOption(
                            accelerator=cand.acc.id,
                            accelerator_name=adv.short_name(cand.acc.name, cand.acc.vendor),
                            gpus_per_replica=gpus,
                            precision=precision,
                            offer=ref,
                            price_usd_per_gpu_hour=price,
                            concurrency=fig.concurrency,
                            replicas=replicas,
                            replicas_low=low,
                            replicas_high=high,
                            tokens_per_second_per_replica=rate,
                            ttft_seconds=fig.ttft_seconds,
                            tpot_seconds=fig.tpot_seconds,
                            cost_per_month_usd=month(replicas),
                            cost_low_usd=month(low),
                            cost_high_usd=month(high),
                            cost_per_million_tokens=price
                            * gpus
                            / units.SECONDS_PER_HOUR
                            / rate
                            * 1e6,
                            pipeline_stages=pp,
                        )
                    )
    # the same largest fleet as training's search (the default both faces state): a fleet past it
    # is ranked but misses the constraints, so a load no real fleet serves is not "met"
    limit = constraints.max_gpus or DEFAULT_MAX_GPUS
    bounded = replace(constraints, max_gpus=limit)
    ranked = adv.rank_serving(options, bounded)
    note = _owning_note(ranked, owning, constraints)
    text = adv.serving_recommendation(ranked, bounded, note, excluded)
    notes: tuple[str, ...] = (
        f"fleets up to {limit:,} GPUs in all ({MAX_GPUS_SOURCE}); larger ones are listed as "
        "missing the constraints",
        f"load: {workload.requests_per_s:g} requests/s × peak-to-mean {workload.peak_to_mean:g} "
        f"× {workload.output_tokens} output tokens, + {workload.headroom:.0%} headroom "
        f"({HEADROOM_SOURCE})",
        replica_range_note(),
    )
    if workload.kv_precision is not None:
        notes += (f"every option keeps its KV cache in {workload.kv_precision}",)
    return adv.Ranking("serve", ranked, tuple(excluded), text, constraints, searched, notes)


# --- for the Workload tab's "What to run on" view ---------------------------------------------


def note_lines(ranking: adv.Ranking) -> tuple[str, ...]:
    """The ranking's notes as both faces print them ("Note: fleet sizes up to …")."""
    return tuple(f"Note: {note}." for note in ranking.notes)


def train_workload_of(training: TrainingInputs | None, memory: Any, preset: Any) -> TrainWorkload:
    """The search's workload from the Workload tab's inputs (the shape as the modelled run
    takes it: the tab's fields, else the preset's)."""
    from desktopapp.application.training_view import shape_of

    if training is None:
        raise InputError("params", "the Workload tab has no valid training inputs yet")
    if training.resolved_method != "6nd":
        raise InputError("params", "the search needs parameters × tokens (the 6·N·D rule)")
    workload = TrainWorkload.from_training(training, shape_of(memory, preset))
    acc = training.accelerator_row
    if acc is not None and training.precision == default_precision(acc):
        # the tab's default precision belongs to its accelerator: each gets its own default
        workload = replace(workload, precision=None)
    return workload


def serve_workload_of(
    inference: Any, requests_per_s: float, headroom: float | None = None
) -> ServeWorkload:
    """The serving search's workload from the Workload tab's inference inputs."""
    if inference is None or inference.forward_flops is not None:
        raise InputError("params", "the serving search needs a language model (parameters)")
    return ServeWorkload(
        params=inference.params,
        requests_per_s=requests_per_s,
        prompt_tokens=inference.prompt_tokens,
        output_tokens=inference.output_tokens,
        active_params=inference.active_params,
        layers=inference.layers,
        hidden=inference.hidden,
        heads=inference.heads,
        kv_heads=inference.kv_heads,
        precisions=tuple(dict.fromkeys((inference.precision, "bf16", "fp8"))),
        ttft_slo_s=inference.ttft_target_s,
        tpot_slo_s=inference.tpot_target_s,
        headroom=DEFAULT_HEADROOM if headroom is None else headroom,
        experts=inference.experts,
        moe_top_k=inference.moe_top_k,
        kv_precision=inference.kv_precision,
    )


def price_source(offer: adv.OfferRef, price: float) -> str:
    """The price's source as the Workload tab shows it; a catalog offer's id ends it in
    brackets (as ``training.catalog_price`` writes it), so the Cost tab finds the offer."""
    if offer.pricing == adv.OWNED:
        return f"owning, chosen in What to run on: {offer.basis}"
    return (
        f"{adv.PRICING_WORDS[offer.pricing]} catalog offer chosen in What to run on: "
        f"{offer.name}, {offer.region} ({units.format_money(price)}/GPU-hour, "
        f"{offer.price_date}) [{offer.offer_id}]"
    )


def apply_training(training: TrainingInputs, option: adv.TrainOption) -> TrainingInputs:
    """The Workload tab's training inputs with the option's accelerator, fleet and price."""
    return replace(
        training,
        accelerator=option.accelerator,
        peak_tflops=None,
        gpus=option.gpus,
        precision=option.precision,
        price=option.price_usd_per_gpu_hour,
        price_source=price_source(option.offer, option.price_usd_per_gpu_hour),
        tp=None,
        pp=None,
        micro_batch=None,
    )


def apply_serving(
    training: TrainingInputs | None, inference: Any, option: adv.ServeOption
) -> tuple[TrainingInputs | None, Any]:
    """The Workload tab's inputs with the serving option's accelerator, precision, GPUs per
    replica and price (the tab has one accelerator for training and serving)."""
    source = price_source(option.offer, option.price_usd_per_gpu_hour)
    new_training = None
    if training is not None:
        new_training = replace(
            training,
            accelerator=option.accelerator,
            peak_tflops=None,
            price=option.price_usd_per_gpu_hour,
            price_source=source,
            precision=None,
        )
    new_inference = replace(
        inference,
        accelerator=option.accelerator,
        peak_tflops=None,
        bandwidth_gbs=None,
        precision=option.precision,
        gpus=option.gpus_per_replica,
        price=option.price_usd_per_gpu_hour,
        price_source=source,
    )
    return new_training, new_inference


def is_current(option: Any, training: TrainingInputs | None) -> bool:
    """Whether a training option is what the Workload tab shows now (same accelerator, fleet
    and price per GPU-hour)."""
    if training is None or not isinstance(option, adv.TrainOption):
        return False
    return (
        training.accelerator == option.accelerator
        and training.gpus == option.gpus
        and training.price is not None
        and math.isclose(training.price, option.price_usd_per_gpu_hour, rel_tol=1e-9)
    )


# --- the report's page ------------------------------------------------------------------------


def _esc(text: object) -> str:
    import html

    return html.escape(str(text), quote=True)


REPORT_ROWS = 12


def ranking_for_scenario(scenario: Any) -> adv.Ranking | None:
    """The search a scenario asked for (its ``advisor`` section), rerun on its workload; None
    when it asked for none or its workload cannot be searched. The report's text and its plot
    ask for the same ranking: it is computed once per set of inputs."""
    choice = getattr(scenario, "advisor", None)
    if not isinstance(choice, adv.AdvisorChoice):
        return None
    try:
        return _scenario_ranking(choice, scenario.training, scenario.memory, scenario.inference)
    except TypeError:  # inputs that cannot be a cache key: search without the cache
        return _scenario_ranking.__wrapped__(
            choice, scenario.training, scenario.memory, scenario.inference
        )


@lru_cache(maxsize=4)
def _scenario_ranking(
    choice: adv.AdvisorChoice, training: Any, memory: Any, inference: Any
) -> adv.Ranking | None:
    try:
        if choice.kind == "serve":
            if choice.requests_per_s is None:
                return None
            workload: Any = serve_workload_of(inference, choice.requests_per_s)
            return search_serving(workload, choice.constraints())
        workload = train_workload_of(training, memory, None)
        return search_training(workload, choice.constraints())
    except ValueError:
        return None


def is_chosen(option: Any, choice: adv.AdvisorChoice | None) -> bool:
    """Whether ``option`` is the one the scenario's advisor section chose."""
    if choice is None:
        return False
    gpus = option.gpus_per_replica if isinstance(option, adv.ServeOption) else option.gpus
    return (option.accelerator, gpus, option.pricing) == (
        choice.accelerator,
        choice.gpus,
        choice.chosen_pricing,
    )


REPORT_PLOT = "advisor-pareto"  # the report's image resource (img://advisor-pareto)


def report_section(scenario: Any, with_plot: bool = False, width_px: float = 640.0) -> str:
    """The report's "What to run on" page as HTML: the recommendation, the Pareto plot (an
    ``img://advisor-pareto`` resource when ``with_plot``) and the top of the ranking, the
    chosen option marked ("" when the scenario asked for no ranking)."""
    ranking = ranking_for_scenario(scenario)
    if ranking is None:
        return ""
    choice = scenario.advisor
    train = ranking.kind == "train"
    heads = (
        ("#", "Accelerator", "GPUs", "Pricing", "$/GPU-h", "Days", "Cost", "Likely cost", "")
        if train
        else ("#", "Accelerator", "Precision", "GPUs/replica", "Replicas", "Pricing", "$/month",
              "TPOT", "")
    )  # fmt: skip
    rows = []
    for i, o in enumerate(ranking.options[:REPORT_ROWS], 1):
        pricing = adv.PRICING_WORDS[o.pricing] + (" (stale price)" if o.offer.stale else "")
        mark = "chosen" if is_chosen(o, choice) else ""
        mark += (" · " if mark else "") + ("meets" if o.meets_constraints else "misses")
        if o.pareto:
            mark += " · Pareto"
        if train:
            cells = (
                i, o.accelerator, f"{o.gpus:,}", pricing, f"${o.price_usd_per_gpu_hour:.3g}",
                f"{o.wall_days:.3g}", units.format_money(o.cost_usd),
                f"{units.format_money(o.cost_low_usd)} … {units.format_money(o.cost_high_usd)}",
                mark,
            )  # fmt: skip
        else:
            cells = (
                i, o.accelerator, o.precision, o.gpus_per_replica, f"{o.replicas:,}", pricing,
                units.format_money(o.cost_per_month_usd), units.format_duration(o.tpot_seconds),
                mark,
            )  # fmt: skip
        rows.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in cells) + "</tr>")
    asked = []
    c = ranking.constraints
    if c.deadline_days is not None:
        asked.append(f"deadline {c.deadline_days:g} days")
    if c.budget_usd is not None:
        asked.append(f"budget {units.format_money(c.budget_usd)}" + ("" if train else " a month"))
    if c.max_gpus is not None:
        asked.append(f"at most {c.max_gpus:,} GPUs")
    asked.append("pricing: " + ", ".join(adv.PRICING_WORDS[p] for p in c.pricing))
    more = len(ranking.options) - min(len(ranking.options), REPORT_ROWS)
    return (
        "<h2>What to run on</h2>"
        f"<p>{_esc(ranking.recommendation)}</p>"
        f"<p class='muted'>Asked: {_esc('; '.join(asked))}. Ranked by "
        + ("cost" if train else "cost per month")
        + " among the options that meet the constraints; Pareto: no other option is both "
        + ("faster and cheaper" if train else "quicker per token and cheaper")
        + ".</p>"
        + (
            f"<p><img src='img://{REPORT_PLOT}' width='{int(width_px)}'></p>"
            "<p class='small'>One marker per option; blue: the Pareto front; the star: the "
            "chosen option.</p>"
            if with_plot
            else ""
        )
        + "<table cellspacing='0' cellpadding='3'><tr>"
        + "".join(f"<th>{_esc(h)}</th>" for h in heads)
        + "</tr>"
        + "".join(rows)
        + "</table>"
        + (f"<p class='small'>{more:,} more options and {len(ranking.excluded):,} left out "
           "(`desktopapp plan` lists them).</p>")
    )  # fmt: skip
