"""What to run on (issue 24): constraints, ranking, Pareto fronts and the recommendation.

Pure functions over already-computed options. :mod:`desktopapp.application.advisor` searches
the catalog (accelerators × fleet sizes × pricing kinds, or serving replicas) with the same
modelled run the Workload tab and ``desktopapp estimate`` show, and hands the options here:

- :func:`rank_training` / :func:`rank_serving` mark which options meet the constraints, mark
  the Pareto front (training: wall time against cost; serving: cost per month against latency)
  and order them: by cost among those that meet the constraints (by time under a budget
  without a deadline), then the rest;
- :func:`training_recommendation` / :func:`serving_recommendation` say it in one paragraph
  from the top of the ranking and its runner-up, or say that nothing meets the constraints and
  which one binds;
- prices older than :data:`~desktopapp.model.price_age.STALE_AFTER_MONTHS` are marked stale.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from desktopapp.model import units
from desktopapp.model.catalog import PRICING_MODELS
from desktopapp.model.validation import InputError, require_int, require_positive

OWNED = "owned"
PRICING_KINDS: tuple[str, ...] = (*PRICING_MODELS, OWNED)
PRICING_WORDS: dict[str, str] = {
    "on_demand": "on-demand",
    "committed_1yr": "1-year committed",
    "committed_3yr": "3-year committed",
    "spot": "spot",
    OWNED: "owned",
}
PRICING_ALIASES: dict[str, str] = {
    "on-demand": "on_demand",
    "ondemand": "on_demand",
    "committed": "committed_1yr",
    "committed-1yr": "committed_1yr",
    "committed-3yr": "committed_3yr",
    "1yr": "committed_1yr",
    "3yr": "committed_3yr",
    "own": OWNED,
}

# Why an option is not listed (``Excluded.kind``).
MEMORY = "memory"
SCALE_UP = "scale-up domain"
GLOBAL_BATCH = "global batch"
TARGETS = "latency targets"
NO_PRICE = "no price"
NOT_MODELLED = "not modelled"
USER = "excluded by you"


def short_name(name: str, vendor: str = "") -> str:
    """``NVIDIA B200 (HGX, 1000W)`` → ``B200``: the name a sentence can carry."""
    core = name.split(" (")[0].strip()
    if vendor and core.lower().startswith(vendor.lower() + " "):
        core = core[len(vendor) + 1 :]
    return core or name


def pricing_kind(text: str) -> str:
    """``on-demand``/``on_demand``/``spot``/``owned``… → the kind; InputError naming --pricing."""
    key = text.strip().lower()
    key = PRICING_ALIASES.get(key, key.replace("-", "_"))
    if key not in PRICING_KINDS:
        allowed = ", ".join(k.replace("_", "-") for k in PRICING_KINDS)
        raise InputError("pricing", f"must be among {allowed}; got {text!r}")
    return key


@dataclass(frozen=True)
class Constraints:
    """What the user asked for. ``budget_usd``: the whole run (training) or per month
    (serving). ``include``/``exclude``: catalog accelerator ids or cloud providers (already
    resolved to their catalog spelling). ``pricing``: the kinds searched."""

    deadline_days: float | None = None
    budget_usd: float | None = None
    max_gpus: int | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    pricing: tuple[str, ...] = PRICING_KINDS

    def __post_init__(self) -> None:
        if self.deadline_days is not None:
            value = _positive("deadline_days", self.deadline_days, "days")
            object.__setattr__(self, "deadline_days", value)
        if self.budget_usd is not None:
            object.__setattr__(self, "budget_usd", _positive("budget", self.budget_usd, "USD"))
        if self.max_gpus is not None:
            object.__setattr__(
                self,
                "max_gpus",
                require_int("max_gpus", self.max_gpus, minimum=1, maximum=1_000_000),
            )
        kinds = tuple(dict.fromkeys(pricing_kind(p) for p in self.pricing))
        if not kinds:
            raise InputError("pricing", "give at least one pricing kind")
        object.__setattr__(self, "pricing", kinds)
        inc = {i.lower() for i in self.include}
        both = [e for e in self.exclude if e.lower() in inc]
        if both:
            raise InputError("exclude", f"{both[0]!r} is also in --include: name it in one of them")

    def to_dict(self) -> dict[str, Any]:
        return {
            "deadline_days": self.deadline_days,
            "budget_usd": self.budget_usd,
            "max_gpus": self.max_gpus,
            "include": list(self.include),
            "exclude": list(self.exclude),
            "pricing": list(self.pricing),
        }

    @classmethod
    def from_dict(cls, raw: Any) -> Constraints:
        if not isinstance(raw, dict):
            raise InputError("constraints", f"expected an object, got {type(raw).__name__}")
        return cls(
            deadline_days=raw.get("deadline_days"),
            budget_usd=raw.get("budget_usd"),
            max_gpus=raw.get("max_gpus"),
            include=tuple(raw.get("include") or ()),
            exclude=tuple(raw.get("exclude") or ()),
            pricing=tuple(raw.get("pricing") or PRICING_KINDS),
        )


def _positive(name: str, value: Any, unit: str) -> float:
    number = require_positive(name, value)
    if not math.isfinite(number):
        raise InputError(name, f"must be a finite number of {unit}, got {value!r}")
    return number


@dataclass(frozen=True)
class OfferRef:
    """The price an option uses: a catalog offer (provider, region, date) or owning."""

    pricing: str
    provider: str  # "Lambda", or "owned" for servers bought
    name: str  # "Lambda 8x H100 SXM" or the server ("DGX H100")
    region: str
    price_date: str
    offer_id: str  # catalog id (provider/instance/region), or "owned:<accelerator>"
    source: str
    stale: bool = False
    basis: str = ""  # how the price per GPU-hour was made (owning: the TCO figures)

    @property
    def year(self) -> str:
        return (self.price_date or "undated")[:4]

    def label(self) -> str:
        """``Lambda, 2026 price`` (``stale`` added when older than a year)."""
        if self.pricing == OWNED:
            return f"{self.name}, {self.year} price" + (", stale" if self.stale else "")
        where = self.provider + (f" {self.region}" if self.region and self.region != "-" else "")
        return f"{where}, {self.year} price" + (" (stale: over a year old)" if self.stale else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "pricing": self.pricing,
            "provider": self.provider,
            "name": self.name,
            "region": self.region,
            "price_date": self.price_date,
            "id": self.offer_id,
            "source": self.source,
            "stale": self.stale,
            "basis": self.basis,
        }


def is_stale(price_date: str, today: date) -> bool:
    """Older than a year (planning's rule for catalog prices)."""
    from desktopapp.model.price_age import price_age

    return price_age(price_date, today).is_stale


@dataclass(frozen=True)
class Excluded:
    """An option (or a whole accelerator / pricing kind, ``gpus`` None) left out, and why."""

    accelerator: str
    gpus: int | None
    pricing: str | None
    kind: str  # MEMORY, SCALE_UP, GLOBAL_BATCH, TARGETS, NO_PRICE, NOT_MODELLED, USER
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "accelerator": self.accelerator,
            "gpus": self.gpus,
            "pricing": self.pricing,
            "kind": self.kind,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class TrainOption:
    accelerator: str
    accelerator_name: str
    gpus: int
    precision: str
    offer: OfferRef
    price_usd_per_gpu_hour: float
    wall_days: float
    gpu_hours: float
    cost_usd: float
    cost_low_usd: float
    cost_high_usd: float
    plan: str
    meets_constraints: bool = True
    misses: str = ""  # the constraint missed, in words
    pareto: bool = False

    @property
    def pricing(self) -> str:
        return self.offer.pricing

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.accelerator, self.gpus, self.pricing)

    def short(self) -> str:
        """``256 H100 SXM on-demand``."""
        return f"{self.gpus:,} {self.accelerator_name} {PRICING_WORDS[self.pricing]}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "accelerator": self.accelerator,
            "accelerator_name": self.accelerator_name,
            "gpus": self.gpus,
            "precision": self.precision,
            "pricing": self.pricing,
            "offer": self.offer.to_dict(),
            "price_usd_per_gpu_hour": self.price_usd_per_gpu_hour,
            "wall_days": self.wall_days,
            "gpu_hours": self.gpu_hours,
            "cost_usd": self.cost_usd,
            "cost_low_usd": self.cost_low_usd,
            "cost_high_usd": self.cost_high_usd,
            "plan": self.plan,
            "meets_constraints": self.meets_constraints,
            "misses": self.misses,
            "pareto": self.pareto,
        }


@dataclass(frozen=True)
class ServeOption:
    accelerator: str
    accelerator_name: str
    gpus_per_replica: int  # TP × PP of one replica
    precision: str
    offer: OfferRef
    price_usd_per_gpu_hour: float
    concurrency: int  # sequences per replica that meet the targets
    replicas: int
    replicas_low: int  # if the model under-predicts throughput like its worst fitted rows
    replicas_high: int
    tokens_per_second_per_replica: float
    ttft_seconds: float
    tpot_seconds: float
    cost_per_month_usd: float
    cost_low_usd: float
    cost_high_usd: float
    cost_per_million_tokens: float
    pipeline_stages: int = 1  # PP: the replica's GPUs are TP = gpus_per_replica / PP
    meets_constraints: bool = True
    misses: str = ""
    pareto: bool = False

    @property
    def pricing(self) -> str:
        return self.offer.pricing

    @property
    def gpus(self) -> int:
        return self.gpus_per_replica * self.replicas

    @property
    def latency_seconds(self) -> float:
        """What the latency axis shows: time per output token (the decode latency)."""
        return self.tpot_seconds

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.accelerator, self.gpus_per_replica, self.precision, self.pricing)

    def short(self) -> str:
        return (
            f"{self.replicas:,} × {self.gpus_per_replica} {self.accelerator_name} "
            f"{self.precision} {PRICING_WORDS[self.pricing]}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "accelerator": self.accelerator,
            "accelerator_name": self.accelerator_name,
            "gpus": self.gpus,
            "gpus_per_replica": self.gpus_per_replica,
            "tp": self.gpus_per_replica // self.pipeline_stages,
            "pp": self.pipeline_stages,
            "precision": self.precision,
            "pricing": self.pricing,
            "offer": self.offer.to_dict(),
            "price_usd_per_gpu_hour": self.price_usd_per_gpu_hour,
            "concurrency_per_replica": self.concurrency,
            "replicas": self.replicas,
            "replicas_low": self.replicas_low,
            "replicas_high": self.replicas_high,
            "tokens_per_second_per_replica": self.tokens_per_second_per_replica,
            "ttft_seconds": self.ttft_seconds,
            "tpot_seconds": self.tpot_seconds,
            "cost_per_month_usd": self.cost_per_month_usd,
            "cost_low_usd": self.cost_low_usd,
            "cost_high_usd": self.cost_high_usd,
            "cost_per_million_tokens": self.cost_per_million_tokens,
            "meets_constraints": self.meets_constraints,
            "misses": self.misses,
            "pareto": self.pareto,
        }


# --- Pareto front -------------------------------------------------------------------------------


def pareto_mask(xs: Sequence[float], ys: Sequence[float]) -> list[bool]:
    """True for each point no other point beats on both axes (lower is better on both; a
    point equal on one axis and better on the other dominates)."""
    order = sorted(range(len(xs)), key=lambda i: (xs[i], ys[i]))
    mask = [False] * len(xs)
    best_y = math.inf
    last: tuple[float, float] | None = None
    for i in order:
        point = (xs[i], ys[i])
        if ys[i] < best_y or point == last:
            mask[i] = True
            if ys[i] < best_y:
                best_y = ys[i]
                last = point
    return mask


# --- ranking ------------------------------------------------------------------------------------


def _train_misses(o: TrainOption, c: Constraints) -> str:
    missed = []
    if c.deadline_days is not None and o.wall_days > c.deadline_days:
        missed.append(f"takes {o.wall_days:.3g} days, over the {c.deadline_days:g}-day deadline")
    if c.budget_usd is not None and o.cost_usd > c.budget_usd:
        missed.append(
            f"costs {units.format_money(o.cost_usd)}, over the "
            f"{units.format_money(c.budget_usd)} budget"
        )
    return "; ".join(missed)


def rank_training(options: Iterable[TrainOption], c: Constraints) -> tuple[TrainOption, ...]:
    """Options with ``meets_constraints``, ``misses`` and ``pareto`` set, best first."""
    marked = [
        replace(o, meets_constraints=not (m := _train_misses(o, c)), misses=m) for o in options
    ]
    front = pareto_mask([o.wall_days for o in marked], [o.cost_usd for o in marked])
    marked = [replace(o, pareto=p) for o, p in zip(marked, front, strict=True)]
    by_time = c.budget_usd is not None and c.deadline_days is None

    def order(o: TrainOption) -> tuple[Any, ...]:
        main = (o.wall_days, o.cost_usd) if by_time else (o.cost_usd, o.wall_days)
        return (not o.meets_constraints, *main, o.accelerator, o.gpus, o.pricing)

    return tuple(sorted(marked, key=order))


def _serve_misses(o: ServeOption, c: Constraints) -> str:
    missed = []
    if c.budget_usd is not None and o.cost_per_month_usd > c.budget_usd:
        missed.append(
            f"costs {units.format_money(o.cost_per_month_usd)} a month, over the "
            f"{units.format_money(c.budget_usd)} budget"
        )
    if c.max_gpus is not None and o.gpus > c.max_gpus:
        missed.append(f"needs {o.gpus:,} GPUs, over the maximum of {c.max_gpus:,}")
    return "; ".join(missed)


def rank_serving(options: Iterable[ServeOption], c: Constraints) -> tuple[ServeOption, ...]:
    """Serving options marked and ordered by cost per month among those that meet the
    constraints; Pareto front of cost per month against time per output token."""
    marked = [
        replace(o, meets_constraints=not (m := _serve_misses(o, c)), misses=m) for o in options
    ]
    front = pareto_mask([o.cost_per_month_usd for o in marked], [o.latency_seconds for o in marked])
    marked = [replace(o, pareto=p) for o, p in zip(marked, front, strict=True)]
    return tuple(
        sorted(
            marked,
            key=lambda o: (
                not o.meets_constraints,
                o.cost_per_month_usd,
                o.tpot_seconds,
                o.key,
            ),
        )
    )


# --- recommendation -----------------------------------------------------------------------------


@dataclass(frozen=True)
class OwningNote:
    """Where owning the top option's accelerator breaks even with renting it."""

    break_even_utilization: float  # inf: never; nan: no server price to compare
    life_years: float
    assumed_utilization: float


def _days(days: float) -> str:
    return f"{days:.3g} days" if days >= 2 else units.format_duration(days * units.SECONDS_PER_DAY)


def _money(usd: float) -> str:
    return units.format_money(usd, 2)


def _range(low: float, high: float) -> str:
    """``$1.0-1.6M``: both ends in the unit of the high end, two significant figures."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= 0 or high >= 1e15:
        # beyond any budget: "$3.5×10^19-$1.0×10^20", not "$34821733148-104795809838B"
        return f"{_money(low)}-{_money(high)}"
    scale, suffix = next(
        ((s, u) for s, u in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")) if high >= s),
        (1.0, ""),
    )

    def fig(v: float) -> str:
        v /= scale
        if v <= 0:
            return "0"
        return f"{v:.{max(0, 1 - math.floor(math.log10(v)))}f}"

    lo, hi = fig(low), fig(high)
    return f"${hi}{suffix}" if lo == hi else f"${lo}-{hi}{suffix}"


def _verb(o: TrainOption | ServeOption) -> str:
    return "Own" if o.pricing == OWNED else "Rent"


def _what(o: TrainOption) -> str:
    pricing = "" if o.pricing == OWNED else f" {PRICING_WORDS[o.pricing]}"
    return f"{o.gpus:,} {o.accelerator_name}{pricing} ({o.offer.label()})"


def _compare_train(top: TrainOption, other: TrainOption) -> str:
    dt = top.wall_days - other.wall_days
    dc = other.cost_usd / top.cost_usd - 1.0 if top.cost_usd > 0 else 0.0
    who = f"{other.gpus:,} {other.accelerator_name} {PRICING_WORDS[other.pricing]}"
    time_words = (
        f"{_days(abs(dt))} {'faster' if dt > 0 else 'slower'}" if abs(dt) > 1e-9 else "as fast"
    )
    cost_words = (
        f"for {abs(dc):.0%} {'more' if dc >= 0 else 'less'}"
        if abs(dc) >= 0.005
        else "for the same cost"
    )
    return f"{who} is {time_words} {cost_words}."


def _owning_words(note: OwningNote | None, top: TrainOption | ServeOption) -> str:
    if note is None:
        return ""
    if math.isnan(note.break_even_utilization):
        return (
            f"Owning {top.accelerator_name} is not compared: the catalog has no server price "
            "for it."
        )
    years = f"{note.life_years:g} years"
    if top.pricing == OWNED:
        return (
            f"Owning wins at the assumed {note.assumed_utilization:.0%} utilization over {years}"
            + (
                f"; below {note.break_even_utilization:.0%} renting is cheaper."
                if math.isfinite(note.break_even_utilization)
                else "."
            )
        )
    if not math.isfinite(note.break_even_utilization) or note.break_even_utilization > 1:
        return f"Owning does not pay off at any utilization over {years} at this price."
    return f"Owning pays off only above {note.break_even_utilization:.0%} utilization over {years}."


def _binding(
    options: Sequence[Any],
    c: Constraints,
    time_of: Any,
    cost_of: Any,
    cost_words: str,
) -> str:
    """Which constraint rules every option out, in words."""
    deadline_ok = [o for o in options if c.deadline_days is None or time_of(o) <= c.deadline_days]
    budget_ok = [o for o in options if c.budget_usd is None or cost_of(o) <= c.budget_usd]
    fastest = min(options, key=time_of)
    cheapest = min(options, key=cost_of)
    parts = []
    if c.deadline_days is not None and not deadline_ok:
        parts.append(
            f"the {c.deadline_days:g}-day deadline binds: the fastest option takes "
            f"{_days(time_of(fastest))}"
        )
    if c.budget_usd is not None and not budget_ok:
        parts.append(
            f"the {_money(c.budget_usd)} budget binds: the cheapest option costs "
            f"{_money(cost_of(cheapest))}{cost_words}"
        )
    if not parts:
        parts.append(
            "the deadline and the budget together bind: each holds alone, but no option meets both"
        )
    return "; ".join(parts)


def training_recommendation(
    ranked: Sequence[TrainOption],
    c: Constraints,
    owning: OwningNote | None = None,
    excluded: Sequence[Excluded] = (),
) -> str:
    """One paragraph from the top of the ranking and its runner-up (see the module doc)."""
    if not ranked:
        return "No option can run this workload: " + _why_none(excluded)
    top = ranked[0]
    if not top.meets_constraints:
        binds = _binding(ranked, c, lambda o: o.wall_days, lambda o: o.cost_usd, "")
        return (
            f"No option meets the constraints: {binds}. Closest: {_what(top)}: "
            f"{_days(top.wall_days)}, {_money(top.cost_usd)}."
        )
    text = (
        f"{_verb(top)} {_what(top)}: {_days(top.wall_days)}, {_money(top.cost_usd)} "
        f"(likely {_range(top.cost_low_usd, top.cost_high_usd)})."
    )
    meeting = [o for o in ranked[1:] if o.meets_constraints]
    faster = [o for o in meeting if o.pareto and o.wall_days < top.wall_days]
    other = [o for o in meeting if (o.accelerator, o.gpus) != (top.accelerator, top.gpus)]
    runner: TrainOption | None = None
    if faster:
        runner = min(faster, key=lambda o: o.cost_usd)
    elif other or meeting:
        runner = (other or meeting)[0]
    if runner is not None:
        text += " " + _compare_train(top, runner)
    owning_words = _owning_words(owning, top)
    text += " " + owning_words if owning_words else ""
    if c.deadline_days is None and c.budget_usd is None:
        text += " No deadline was given: the cheapest run is ranked first, however long."
    return text


def serving_recommendation(
    ranked: Sequence[ServeOption],
    c: Constraints,
    owning: OwningNote | None = None,
    excluded: Sequence[Excluded] = (),
) -> str:
    if not ranked:
        return "No option serves this load: " + _why_none(excluded)
    top = ranked[0]
    what = (
        f"{top.replicas:,} {'replica' if top.replicas == 1 else 'replicas'} of "
        f"{top.gpus_per_replica} {top.accelerator_name} "
        f"({top.precision}, {units.plural(top.concurrency, 'sequence')} each"
        + ("" if top.pricing == OWNED else f", {PRICING_WORDS[top.pricing]}")
        + f"; {top.offer.label()})"
    )
    if not top.meets_constraints:
        binds = []
        if c.budget_usd is not None and all(o.cost_per_month_usd > c.budget_usd for o in ranked):
            cheapest = min(o.cost_per_month_usd for o in ranked)
            binds.append(
                f"the {_money(c.budget_usd)} budget binds: the cheapest fleet costs "
                f"{_money(cheapest)} a month"
            )
        if c.max_gpus is not None and all(o.gpus > c.max_gpus for o in ranked):
            fewest = min(o.gpus for o in ranked)
            binds.append(
                f"the maximum of {c.max_gpus:,} GPUs binds: the smallest fleet needs {fewest:,}"
            )
        if not binds:
            binds.append(
                "the budget and the maximum fleet together bind: each holds alone, but no "
                "fleet meets both"
            )
        return (
            f"No option meets the constraints: {'; '.join(binds)}. Closest: {what}, "
            f"{_money(top.cost_per_month_usd)} a month."
        )
    text = (
        f"{_verb(top)} {what}: {_money(top.cost_per_month_usd)} a month "
        f"(likely {_range(top.cost_low_usd, top.cost_high_usd)}), "
        f"{_money(top.cost_per_million_tokens)} per million output tokens, time per output "
        f"token {units.format_duration(top.tpot_seconds)}."
    )
    meeting = [o for o in ranked[1:] if o.meets_constraints]
    quicker = [o for o in meeting if o.pareto and o.tpot_seconds < top.tpot_seconds]
    runner = min(quicker, key=lambda o: o.cost_per_month_usd) if quicker else None
    if runner is None and meeting:
        runner = meeting[0]
    if runner is not None:
        dc = runner.cost_per_month_usd / top.cost_per_month_usd - 1.0
        text += (
            f" {runner.replicas:,} × {runner.gpus_per_replica} {runner.accelerator_name} "
            f"{runner.precision} {PRICING_WORDS[runner.pricing]} answers at "
            f"{units.format_duration(runner.tpot_seconds)} per token for "
            f"{abs(dc):.0%} {'more' if dc >= 0 else 'less'}."
        )
    owning_words = _owning_words(owning, top)
    return text + (" " + owning_words if owning_words else "")


def _cause(e: Excluded) -> str:
    """An exclusion's reason without the fleet it names ("8 × NVIDIA T4: …" → "…")."""
    head, sep, rest = e.reason.partition(": ")
    return rest if sep and " × " in head else e.reason


def _commonest(excluded: Iterable[Excluded]) -> Excluded:
    """The first exclusion of the most frequent cause: the example a summary gives (one
    accelerator's missing data must not stand for a hundred options refused alike)."""
    items = list(excluded)
    counts = Counter(_cause(e) for e in items)
    top = max(counts.values())
    return next(e for e in items if counts[_cause(e)] == top)


def _why_none(excluded: Sequence[Excluded]) -> str:
    if not excluded:
        return "no accelerator was searched (check --include, --exclude and --pricing)."
    kinds: dict[str, int] = {}
    for e in excluded:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    # An option without a catalog price is never tried: what ruled out the priced ones is the
    # cause (an impossible latency target must not read as "no price", however many unpriced
    # options the catalog has).
    priced = {k: n for k, n in kinds.items() if k != NO_PRICE}
    kind = max(priced or kinds, key=lambda k: kinds[k])
    example = _commonest(e for e in excluded if e.kind == kind)
    count = kinds[kind]
    text = (
        f"{count:,} {'option was' if count == 1 else 'options were'} left out for {kind}, "
        f"e.g. {example.reason}."
    )
    if kind != NO_PRICE and NO_PRICE in kinds:
        text += f" {kinds[NO_PRICE]:,} more have no catalog price for the pricing searched."
    return text


@dataclass(frozen=True)
class Ranking:
    """A finished search: ranked options, what was left out and the recommendation."""

    kind: str  # "train" | "serve"
    options: tuple[Any, ...]
    excluded: tuple[Excluded, ...]
    recommendation: str
    constraints: Constraints
    searched: int = 0  # plans or serving setups evaluated
    notes: tuple[str, ...] = field(default=())

    @property
    def best(self) -> Any:
        return self.options[0] if self.options and self.options[0].meets_constraints else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "constraints": self.constraints.to_dict(),
            "recommendation": self.recommendation,
            "options": [o.to_dict() for o in self.options],
            "excluded": [e.to_dict() for e in self.excluded],
            "searched": self.searched,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class AdvisorChoice:
    """What a scenario file keeps of the "What to run on" view: the constraints asked and the
    option chosen (``accelerator``/``gpus``/``chosen_pricing``; ``gpus`` per replica when
    serving)."""

    kind: str = "train"  # "train" | "serve"
    deadline_days: float | None = None
    budget_usd: float | None = None
    max_gpus: int | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    pricing: tuple[str, ...] = PRICING_KINDS
    requests_per_s: float | None = None
    accelerator: str | None = None
    gpus: int | None = None
    chosen_pricing: str | None = None
    offer: str | None = None  # catalog offer id, or owned:<accelerator>
    replicas: int | None = None  # serving

    def __post_init__(self) -> None:
        if self.kind not in ("train", "serve"):
            raise InputError("kind", f"must be train or serve, got {self.kind!r}")
        c = self.constraints()  # the same checks as a search's
        object.__setattr__(self, "pricing", c.pricing)
        if self.requests_per_s is not None:
            _positive("requests_per_s", self.requests_per_s, "requests per second")
        if self.gpus is not None:
            object.__setattr__(
                self, "gpus", require_int("gpus", self.gpus, minimum=1, maximum=1_000_000)
            )
        if self.replicas is not None:
            object.__setattr__(
                self, "replicas", require_int("replicas", self.replicas, minimum=1, maximum=10**7)
            )
        if self.chosen_pricing is not None:
            object.__setattr__(self, "chosen_pricing", pricing_kind(self.chosen_pricing))

    def constraints(self) -> Constraints:
        return Constraints(
            deadline_days=self.deadline_days,
            budget_usd=self.budget_usd,
            max_gpus=self.max_gpus,
            include=self.include,
            exclude=self.exclude,
            pricing=self.pricing,
        )

    @classmethod
    def of(
        cls, kind: str, c: Constraints, option: Any = None, requests_per_s: float | None = None
    ) -> AdvisorChoice:
        serving = isinstance(option, ServeOption)
        return cls(
            kind=kind,
            deadline_days=c.deadline_days,
            budget_usd=c.budget_usd,
            max_gpus=c.max_gpus,
            include=c.include,
            exclude=c.exclude,
            pricing=c.pricing,
            requests_per_s=requests_per_s,
            accelerator=None if option is None else option.accelerator,
            gpus=None if option is None else (option.gpus_per_replica if serving else option.gpus),
            chosen_pricing=None if option is None else option.pricing,
            offer=None if option is None else option.offer.offer_id,
            replicas=option.replicas if serving else None,
        )
