"""Training compute, wall time and cost.

Total compute ``C`` comes from one of two rules:

- ``6nd``: ``C = 6 · N · D · epochs`` for transformers (N parameters, D tokens per epoch; 2 FLOPs
  per parameter per token forward, 4 backward; Kaplan et al. 2020, §2.1).
- ``forward``: ``C = 3 · F · samples · epochs`` for any network, F the forward FLOPs per sample
  (F = 2 × multiply-accumulates; backward ≈ 2 × forward).

Wall time is ``T = C / (peak × utilization × devices) × (1 + goodput_overhead)``. The same
:func:`wall_seconds` serves the single estimate and the numpy sweeps the GUI plots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import Accelerator, cheapest_offer, get_accelerator
from desktopapp.model.training_defaults import (
    MAX_POWER_CAP_W,
    MIN_POWER_CAP_SHARE,
    SOFTWARE_STACKS,
    moe_count,
)
from desktopapp.model.validation import (
    InputError,
    no_accelerator,
    require_choice,
    require_count,
    require_fraction,
    require_int,
    require_positive,
    require_range,
)

METHODS: tuple[str, ...] = ("auto", "6nd", "forward")
# Precisions training runs in (the compute mode whose dense peak sets the speed).
TRAINING_PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8")
# Default training precision: the first of these the accelerator has a peak for.
DEFAULT_PRECISION_ORDER: tuple[str, ...] = ("bf16", "fp16", "fp32", "tf32")

DEFAULT_UTILIZATION = 0.40
UTILIZATION_BAND: tuple[float, float] = (0.30, 0.50)
UTILIZATION_SOURCE = (
    "generic planning default; published model-FLOPs utilization of large training runs lies "
    "around 0.2-0.5 (Chowdhery et al. 2022, PaLM, Table 3: GPT-3 21.3%, Gopher 32.5%, "
    "MT-NLG 30.2%, PaLM 46.2%); well-tuned runs reach 0.3-0.5"
)
DEFAULT_PROJECT_MARGIN = 3.0
PROJECT_MARGIN_SOURCE = (
    "planning rule of thumb: a whole project (experiments, tuning, failed and repeated runs, "
    "evaluation) takes 2-3× the compute of the final run; 3 is the cautious end"
)
MAX_GPUS = 1_000_000
MAX_GOODPUT_OVERHEAD = 10.0
# a production run's wall time over the modelled steady state (model.perf_training)
PRODUCTION_FACTOR_RANGE = (1.0, 3.0)


def optional_production_factor(value: object) -> float | None:
    """None (the fitted default) or a factor within :data:`PRODUCTION_FACTOR_RANGE`."""
    if value is None:
        return None
    return require_range("production_factor", value, *PRODUCTION_FACTOR_RANGE)


MAX_FACTOR_SOURCE_CHARS = 300


def production_factor_source(source: object, factor: float | None) -> str:
    """Where a given production factor came from ("×1.23 from your 5 runs in runs.csv"): one
    line of text, kept only while a factor is given (without one the fitted default applies
    and its source is the fit)."""
    if not isinstance(source, str):
        raise InputError("production_factor_source", f"expected text, got {source!r}")
    text = " ".join(source.split())
    if len(text) > MAX_FACTOR_SOURCE_CHARS:
        raise InputError(
            "production_factor_source",
            f"at most {MAX_FACTOR_SOURCE_CHARS} characters, got {len(text):,}",
        )
    return text if factor is not None else ""


MAX_PROJECT_MARGIN = 100.0

FloatArray = npt.NDArray[np.float64]


def training_flops_6nd(params: float, tokens: float, epochs: float = 1.0) -> float:
    """``6 · N · D · epochs`` FLOPs for a transformer (2 forward + 4 backward per param-token)."""
    return 6.0 * params * tokens * epochs


def training_flops_forward(forward_flops: float, samples: float, epochs: float = 1.0) -> float:
    """``3 × forward FLOPs per sample × samples × epochs`` (backward ≈ 2 × forward)."""
    return 3.0 * forward_flops * samples * epochs


def wall_seconds(
    total_flops: float | FloatArray,
    peak_flops: float | FloatArray,
    utilization: float | FloatArray,
    devices: float | FloatArray,
    goodput_overhead: float = 0.0,
) -> Any:
    """Wall-clock seconds; scalars or numpy arrays (broadcast). The one time formula."""
    return (
        np.asarray(total_flops, dtype=float)
        / (
            np.asarray(peak_flops, dtype=float)
            * np.asarray(utilization, dtype=float)
            * np.asarray(devices, dtype=float)
        )
        * (1.0 + goodput_overhead)
    )


def device_hours(seconds: float | FloatArray, devices: float | FloatArray) -> Any:
    """GPU-hours: every device is held for the whole wall time."""
    hours = np.asarray(seconds, dtype=float) / units.SECONDS_PER_HOUR
    return hours * np.asarray(devices, dtype=float)


def default_precision(accelerator: Accelerator | None) -> str:
    """bf16, or the first of bf16/fp16/fp32/tf32 the accelerator publishes a peak for."""
    if accelerator is None:
        return "bf16"
    for precision in DEFAULT_PRECISION_ORDER:
        if precision in accelerator.peak_tflops:
            return precision
    return "bf16"  # nothing usable: the peak lookup then names the supported precisions


def _optional_positive(name: str, value: float | None) -> float | None:
    return None if value is None else require_positive(name, value)


def power_cap_floor(acc: Accelerator) -> float:
    """The lowest power cap, W, the accelerator's drivers accept (0 when its TDP is unknown)."""
    return MIN_POWER_CAP_SHARE * acc.tdp_w if acc.tdp_w else 0.0


@dataclass(frozen=True)
class TrainingInputs:
    """What to train and on what. Give ``params`` + ``tokens`` (6ND) or ``forward_flops`` +
    ``samples`` (3 × forward); give ``accelerator`` (catalog id) or ``peak_tflops`` (per device
    dense peak; overrides the catalog figure when both are given)."""

    params: float | None = None
    tokens: float | None = None
    forward_flops: float | None = None  # FLOPs (= 2 × MACs) of one forward pass, one sample
    samples: float | None = None
    epochs: float = 1.0
    method: str = "auto"  # auto | 6nd | forward
    accelerator: str | None = None
    peak_tflops: float | None = None
    precision: str | None = None  # None: bf16, or the accelerator's best of bf16/fp16/fp32
    gpus: int = 1
    utilization: float | None = None  # None: catalog typical value or DEFAULT_UTILIZATION
    price: float | None = None  # USD per GPU-hour; None: no cost
    price_source: str = ""
    # extra wall time fraction: restarts, evaluation, failures (None: not given; the simple
    # rule then adds none and the modelled run takes the published goodput; 0: none at all)
    goodput_overhead: float | None = None
    project_margin: float = DEFAULT_PROJECT_MARGIN
    # Mixture of experts: parameters each token uses (compute: 6·N_active·D; memory: params).
    active_params: float | None = None
    # The user's parallel plan for the modelled run (None: the model picks the fastest plan
    # that fits); checked against the interconnect and memory by model.perf_training.
    tp: int | None = None
    pp: int | None = None
    micro_batch: int | None = None
    global_batch_tokens: float | None = None
    # None: the factor fitted to published runs (see model.perf_training.production_fit)
    production_factor: float | None = None
    # where a given factor came from (e.g. fitted to the team's own runs); "" = typed in
    production_factor_source: str = ""
    # the software stack of the modelled run (None: "typical", the stack unknown)
    software_stack: str | None = None
    # sustained board power limit per GPU, W (None: the TDP); slows the modelled run's matmuls
    power_cap_w: float | None = None
    # mixture of experts: experts each token is routed to (None: top-2)
    moe_top_k: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("forward_flops", "peak_tflops", "price", "global_batch_tokens"):
            set_(self, name, _optional_positive(name, getattr(self, name)))
        for name in ("params", "tokens", "samples", "active_params"):  # counts: at least 1
            value = getattr(self, name)
            set_(self, name, None if value is None else require_count(name, value))
        for name, top in (("tp", MAX_GPUS), ("pp", 4096), ("micro_batch", 1_000_000)):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, require_int(name, value, minimum=1, maximum=top))
        active, total = self.active_params, self.params
        if active is not None and total is not None and active > total:
            raise InputError(
                "active_params",
                "a mixture of experts uses at most all its parameters per token: give at "
                f"most the parameter count ({units.format_big_count(total)})",
            )
        set_(self, "production_factor", optional_production_factor(self.production_factor))
        set_(
            self,
            "production_factor_source",
            production_factor_source(self.production_factor_source, self.production_factor),
        )
        set_(self, "epochs", require_positive("epochs", self.epochs))
        if self.software_stack is not None:
            require_choice("software_stack", self.software_stack, SOFTWARE_STACKS)
        if self.power_cap_w is not None:
            cap = require_positive("power_cap_w", self.power_cap_w)
            if cap > MAX_POWER_CAP_W:
                raise InputError(
                    "power_cap_w",
                    f"must be at most {MAX_POWER_CAP_W:,.0f} W per GPU, got {cap:,.0f} W",
                )
            set_(self, "power_cap_w", cap)
        if self.moe_top_k is not None:
            set_(self, "moe_top_k", moe_count("moe_top_k", self.moe_top_k, self.active_params))
        require_choice("method", self.method, METHODS)
        set_(self, "gpus", require_int("gpus", self.gpus, minimum=1, maximum=MAX_GPUS))
        if self.utilization is not None:
            set_(self, "utilization", require_fraction("utilization", self.utilization))
        if self.goodput_overhead is not None:
            set_(
                self,
                "goodput_overhead",
                require_range("goodput_overhead", self.goodput_overhead, 0.0, MAX_GOODPUT_OVERHEAD),
            )
        set_(
            self,
            "project_margin",
            require_range("project_margin", self.project_margin, 1.0, MAX_PROJECT_MARGIN),
        )
        if self.accelerator is not None and not isinstance(self.accelerator, str):
            raise InputError("accelerator", f"expected a catalog id, got {self.accelerator!r}")
        self._check_method()
        if self.accelerator is None and self.peak_tflops is None:
            raise no_accelerator()
        acc = None if self.accelerator is None else get_accelerator(self.accelerator)
        if self.precision is None:
            set_(self, "precision", default_precision(acc if self.peak_tflops is None else None))
        require_choice("precision", self.precision, TRAINING_PRECISIONS)
        if acc is not None and self.peak_tflops is None:
            acc.peak_flops(self.resolved_precision)  # unsupported → "precision: …"
        if acc is not None and self.power_cap_w is not None:
            lowest = power_cap_floor(acc)
            if self.power_cap_w < lowest:
                raise InputError(
                    "power_cap_w",
                    f"must be at least {lowest:,.0f} W on the {acc.name} (a quarter of its "
                    f"{acc.tdp_w:,.0f} W TDP; drivers refuse lower caps), "
                    f"got {self.power_cap_w:,.4g} W",
                )

    @property
    def wall_overhead(self) -> float:
        """The goodput overhead the simple rule applies (0 when none is given)."""
        return self.goodput_overhead or 0.0

    def _auto_method(self) -> str:
        has_6nd = self.params is not None and self.tokens is not None
        has_fwd = self.forward_flops is not None and self.samples is not None
        if has_6nd and has_fwd:
            raise InputError(
                "method",
                "both params/tokens and forward_flops/samples given; choose 6nd or forward",
            )
        if has_6nd:
            return "6nd"
        if has_fwd:
            return "forward"
        partial_fwd = self.forward_flops is not None or self.samples is not None
        partial_6nd = self.params is not None or self.tokens is not None
        return "forward" if partial_fwd and not partial_6nd else "6nd"

    def _check_method(self) -> None:
        method = self._auto_method() if self.method == "auto" else self.method
        if method == "6nd":
            for name in ("params", "tokens"):
                if getattr(self, name) is None:
                    raise InputError(
                        name, "required for C = 6·N·D (or give forward_flops + samples)"
                    )
        else:
            for name in ("forward_flops", "samples"):
                if getattr(self, name) is None:
                    raise InputError(
                        name,
                        "required for C = 3 × forward × samples × epochs (or give params + tokens)",
                    )

    @property
    def resolved_precision(self) -> str:
        assert self.precision is not None  # set in __post_init__
        return self.precision

    @property
    def resolved_method(self) -> str:
        return self._auto_method() if self.method == "auto" else self.method

    @property
    def accelerator_row(self) -> Accelerator | None:
        return None if self.accelerator is None else get_accelerator(self.accelerator)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.resolved_method,
            "params": self.params,
            "tokens": self.tokens,
            "forward_flops": self.forward_flops,
            "samples": self.samples,
            "epochs": self.epochs,
            "accelerator": self.accelerator,
            "peak_tflops": self.peak_tflops,
            "precision": self.precision,
            "gpus": self.gpus,
            "utilization": self.utilization,
            "price": self.price,
            "price_source": self.price_source,
            "goodput_overhead": self.goodput_overhead,
            "project_margin": self.project_margin,
            "active_params": self.active_params,
            "tp": self.tp,
            "pp": self.pp,
            "micro_batch": self.micro_batch,
            "global_batch_tokens": self.global_batch_tokens,
            "production_factor": self.production_factor,
            "production_factor_source": self.production_factor_source,
            "software_stack": self.software_stack,
            "power_cap_w": self.power_cap_w,
            "moe_top_k": self.moe_top_k,
        }


@dataclass(frozen=True)
class TrainingEstimate:
    """Compute, wall time, GPU-hours and cost of a training run (see ``estimate_training``)."""

    inputs: TrainingInputs
    method: str  # "6nd" | "forward"
    total_flops: float
    peak_tflops: float  # per device, dense, at the chosen precision
    utilization: float
    utilization_source: str
    devices: int
    compute_seconds: float  # C / (peak × U × devices), before goodput overhead
    training_seconds: float  # compute_seconds × (1 + goodput_overhead)
    gpu_hours: float
    price_per_gpu_hour: float | None
    price_source: str
    estimated_cost_usd: float | None
    project_margin: float
    planning_low_hours: float
    planning_high_hours: float
    planning_low_cost_usd: float | None
    planning_high_cost_usd: float | None
    accelerator_name: str | None
    formula: str
    assumptions: tuple[Assumption, ...] = field(default=())

    @property
    def total_pflops(self) -> float:
        return self.total_flops / units.PETA

    @property
    def training_hours(self) -> float:
        return self.training_seconds / units.SECONDS_PER_HOUR

    @property
    def training_days(self) -> float:
        return self.training_seconds / units.SECONDS_PER_DAY

    @property
    def achieved_flops_per_second(self) -> float:
        """Cluster throughput: peak × utilization × devices."""
        return self.peak_tflops * 1e12 * self.utilization * self.devices

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "total_flops": self.total_flops,
            "total_pflops": self.total_pflops,
            "training_seconds": self.training_seconds,
            "training_hours": self.training_hours,
            "training_days": self.training_days,
            "compute_seconds": self.compute_seconds,
            "gpu_hours": self.gpu_hours,
            "estimated_cost_usd": self.estimated_cost_usd,
            "price_per_gpu_hour": self.price_per_gpu_hour,
            "price_source": self.price_source,
            "peak_tflops": self.peak_tflops,
            "utilization": self.utilization,
            "utilization_source": self.utilization_source,
            "devices": self.devices,
            "accelerator": self.inputs.accelerator,
            "accelerator_name": self.accelerator_name,
            "precision": self.inputs.resolved_precision,
            "goodput_overhead": self.inputs.goodput_overhead,
            "planning_range": {
                "margin": self.project_margin,
                "low_hours": self.planning_low_hours,
                "high_hours": self.planning_high_hours,
                "low_cost_usd": self.planning_low_cost_usd,
                "high_cost_usd": self.planning_high_cost_usd,
                "note": "low = this estimate (compute only); high = × margin for the whole "
                "project (rule of thumb 2-3×)",
            },
            "formula": self.formula,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "inputs": self.inputs.to_dict(),
        }


@dataclass(frozen=True)
class _Resolved:
    """The peak and utilization a training estimate uses, with their sources."""

    peak_flops: float
    peak_source: str
    utilization: float
    utilization_source: str
    accelerator: Accelerator | None


def _resolve(inputs: TrainingInputs) -> _Resolved:
    acc = inputs.accelerator_row
    if inputs.peak_tflops is not None:
        peak = inputs.peak_tflops * 1e12
        peak_source = "given"
    else:
        assert acc is not None  # checked in TrainingInputs
        peak = acc.peak_flops(inputs.resolved_precision)
        peak_source = f"{acc.name} datasheet, dense {inputs.resolved_precision}: {acc.source}"
    if inputs.utilization is not None:
        util, util_source = inputs.utilization, "given"
    elif acc is not None and acc.typical_utilization is not None:
        util = acc.typical_utilization
        util_source = (
            f"typical achieved utilization for {acc.name}: "
            f"{acc.typical_utilization_source or 'catalog'}"
        )
    else:
        util, util_source = DEFAULT_UTILIZATION, UTILIZATION_SOURCE
    return _Resolved(peak, peak_source, util, util_source, acc)


def total_training_flops(inputs: TrainingInputs) -> float:
    if inputs.resolved_method == "6nd":
        assert inputs.params is not None and inputs.tokens is not None
        # a mixture of experts computes with the parameters each token uses
        n = inputs.active_params if inputs.active_params is not None else inputs.params
        return training_flops_6nd(n, inputs.tokens, inputs.epochs)
    assert inputs.forward_flops is not None and inputs.samples is not None
    return training_flops_forward(inputs.forward_flops, inputs.samples, inputs.epochs)


def _cost(gpu_hours: Any, price: float | None) -> Any:
    return None if price is None else gpu_hours * price


def estimate_training(inputs: TrainingInputs) -> TrainingEstimate:
    res = _resolve(inputs)
    method = inputs.resolved_method
    flops = total_training_flops(inputs)
    compute_s = float(wall_seconds(flops, res.peak_flops, res.utilization, inputs.gpus))
    seconds = float(
        wall_seconds(flops, res.peak_flops, res.utilization, inputs.gpus, inputs.wall_overhead)
    )
    gpu_h = float(device_hours(seconds, inputs.gpus))
    cost = _cost(gpu_h, inputs.price)
    hours = seconds / units.SECONDS_PER_HOUR
    margin = inputs.project_margin
    price_source = inputs.price_source or ("given" if inputs.price is not None else "")

    formula = _formula(inputs, method, flops, res, seconds, gpu_h, cost)
    assumptions = _assumptions(inputs, method, res, price_source)
    return TrainingEstimate(
        inputs=inputs,
        method=method,
        total_flops=flops,
        peak_tflops=res.peak_flops / 1e12,
        utilization=res.utilization,
        utilization_source=res.utilization_source,
        devices=inputs.gpus,
        compute_seconds=compute_s,
        training_seconds=seconds,
        gpu_hours=gpu_h,
        price_per_gpu_hour=inputs.price,
        price_source=price_source,
        estimated_cost_usd=None if cost is None else float(cost),
        project_margin=margin,
        planning_low_hours=hours,
        planning_high_hours=hours * margin,
        planning_low_cost_usd=None if cost is None else float(cost),
        planning_high_cost_usd=None if cost is None else float(cost) * margin,
        accelerator_name=None if res.accelerator is None else res.accelerator.name,
        formula=formula,
        assumptions=tuple(assumptions),
    )


def _formula(
    inputs: TrainingInputs,
    method: str,
    flops: float,
    res: _Resolved,
    seconds: float,
    gpu_h: float,
    cost: float | None,
) -> str:
    epochs = "" if inputs.epochs == 1 else f" × {inputs.epochs:g} epochs"
    if method == "6nd":
        rule = "6 × N × D × epochs" if epochs else "6 × N × D"
        n_text = f"{units.format_big_count(inputs.params)} params"
        if inputs.active_params is not None:
            rule = rule.replace("N", "N_active")
            n_text = f"{units.format_big_count(inputs.active_params)} active params"
        compute = (
            f"C = {rule} = 6 × {n_text} × "
            f"{units.format_big_count(inputs.tokens)} tokens{epochs} = "
            f"{units.format_flops(flops, 4)}"
        )
    else:
        compute = (
            f"C = 3 × forward × samples × epochs = 3 × "
            f"{units.format_flops(inputs.forward_flops)} × {units.format_count(inputs.samples)}"
            f" × {inputs.epochs:g} = {units.format_flops(flops, 4)}"
        )
    overhead = (
        f" × (1 + {inputs.goodput_overhead:g} goodput overhead)" if inputs.goodput_overhead else ""
    )
    time = (
        f"T = C / (peak × utilization × devices){' × (1 + overhead)' if overhead else ''} = "
        f"{units.format_flops(flops, 4)} / ({units.format_flop_rate(res.peak_flops)} × "
        f"{res.utilization:.2f} × {inputs.gpus}){overhead} = {units.format_plain(seconds, 4)} s = "
        f"{units.format_duration(seconds)}"
    )
    gpu = f"GPU-hours = T × devices = {units.format_plain(gpu_h, 4)}"
    lines = [compute, time, gpu]
    if cost is not None and inputs.price is not None:
        lines.append(
            f"cost = GPU-hours × price = {units.format_plain(gpu_h, 4)} × "
            f"{units.format_money(inputs.price)}/GPU-h "
            f"= {units.format_money(cost)}"
        )
    return "\n".join(lines)


def _assumptions(
    inputs: TrainingInputs, method: str, res: _Resolved, price_source: str
) -> list[Assumption]:
    out: list[Assumption] = []
    if method == "6nd":
        out.append(
            Assumption(
                "FLOPs per parameter per token",
                "6 (2 forward + 4 backward)",
                "Kaplan et al. 2020, Scaling Laws for Neural Language Models, §2.1; attention "
                "FLOPs over the context are left out (small while seq_len ≪ 6 × hidden)",
            )
        )
    else:
        out.append(
            Assumption(
                "training FLOPs per sample",
                "3 × forward (backward ≈ 2 × forward); forward FLOPs = 2 × MACs",
                "standard backprop accounting (e.g. Kaplan et al. 2020 §2.1; Epoch AI, "
                "'Estimating training compute')",
            )
        )
    out.append(
        Assumption(
            "peak per device",
            f"{units.format_flop_rate(res.peak_flops)} dense {inputs.resolved_precision}",
            res.peak_source,
        )
    )
    low, high = UTILIZATION_BAND
    generic = res.utilization_source == UTILIZATION_SOURCE
    band = f" (typical band {low:.0%}-{high:.0%})" if generic else ""
    out.append(
        Assumption(
            "utilization (model FLOPs utilization)",
            f"{units.format_percent(res.utilization, 0)}{band}",
            res.utilization_source,
        )
    )
    out.append(
        Assumption(
            "scaling across devices",
            "linear in the device count",
            "communication and pipeline bubbles are assumed to be covered by the utilization",
        )
    )
    out.append(
        Assumption(
            "goodput overhead",
            f"{units.format_percent(inputs.wall_overhead, 0)} extra wall time",
            "restarts, checkpoints, evaluation and failures; 0 unless given",
        )
    )
    if inputs.price is not None:
        out.append(
            Assumption(
                "price per GPU-hour", f"{units.format_money(inputs.price)}", price_source or "given"
            )
        )
    else:
        out.append(Assumption("price per GPU-hour", "none given: cost not computed", price_source))
    out.append(
        Assumption(
            "whole-project margin",
            f"× {inputs.project_margin:g} (rule of thumb: 2-3×)",
            PROJECT_MARGIN_SOURCE,
        )
    )
    return out


def catalog_price(accelerator: str, pricing: str = "on_demand") -> tuple[float, str] | None:
    """Cheapest catalog price per GPU-hour for an accelerator, with a text naming the offer."""
    acc = get_accelerator(accelerator)
    offer = cheapest_offer(acc.id, pricing)
    price = None if offer is None else offer.price(pricing)
    if offer is None or price is None or not math.isfinite(price) or price <= 0:
        return None
    kind = pricing.replace("_", "-")
    source = (
        f"cheapest {kind} catalog offer: {offer.name}, {offer.region} "
        f"({units.format_money(price)}/GPU-hour, {offer.price_date}; {offer.source}) [{offer.id}]"
    )
    return price, source


def with_catalog_price(inputs: TrainingInputs, pricing: str = "on_demand") -> TrainingInputs:
    """Fill ``price`` from the cheapest catalog offer for the accelerator, if none was given.

    Unchanged when a price is set, no accelerator is given or the catalog has no such offer.
    """
    if inputs.price is not None or inputs.accelerator is None:
        return inputs
    found = catalog_price(inputs.accelerator, pricing)
    if found is None:
        return inputs
    return replace(inputs, price=found[0], price_source=found[1])


# --- sweeps for the GUI plots ----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TrainingSweep:
    """Curves against one swept input; ``cost_usd`` is None when no price is set."""

    parameter: str  # "gpus" | "utilization"
    values: FloatArray
    training_hours: FloatArray
    gpu_hours: FloatArray
    cost_usd: FloatArray | None


def _sweep_array(name: str, values: Any) -> FloatArray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise InputError(name, "give at least one value to sweep")
    if not np.all(np.isfinite(arr)):
        raise InputError(name, "sweep values must be finite numbers")
    return arr


def training_sweep_devices(inputs: TrainingInputs, devices: Any) -> TrainingSweep:
    """Wall time, GPU-hours and cost for each device count (e.g. ``np.arange(1, 4097)``)."""
    counts = _sweep_array("gpus", devices)
    if np.any(counts < 1) or np.any(counts != np.floor(counts)):
        raise InputError("gpus", "sweep values must be whole numbers of at least 1")
    res = _resolve(inputs)
    flops = total_training_flops(inputs)
    seconds = wall_seconds(flops, res.peak_flops, res.utilization, counts, inputs.wall_overhead)
    gpu_h = device_hours(seconds, counts)
    return TrainingSweep(
        "gpus", counts, seconds / units.SECONDS_PER_HOUR, gpu_h, _cost(gpu_h, inputs.price)
    )


def training_sweep_utilization(inputs: TrainingInputs, utilizations: Any) -> TrainingSweep:
    """Wall time, GPU-hours and cost for each utilization in (0, 1]."""
    utils = _sweep_array("utilization", utilizations)
    if np.any(utils <= 0) or np.any(utils > 1):
        raise InputError("utilization", "sweep values must be in (0, 1]")
    res = _resolve(inputs)
    flops = total_training_flops(inputs)
    seconds = wall_seconds(flops, res.peak_flops, utils, inputs.gpus, inputs.wall_overhead)
    gpu_h = device_hours(seconds, inputs.gpus)
    return TrainingSweep(
        "utilization", utils, seconds / units.SECONDS_PER_HOUR, gpu_h, _cost(gpu_h, inputs.price)
    )
