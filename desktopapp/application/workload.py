"""The Workload tab's presenter, without Qt: estimates in, view-models out.

:class:`WorkloadResults` gathers what one recompute produced (inputs and estimates);
:func:`present` turns it into a :class:`WorkloadView`, one frozen view per results panel,
which ``ui/estimate`` renders without formatting anything itself. Tests check the views
without a display.

Adding a result (for example a step-time breakdown, a parallel-plan panel, or TTFT/TPOT cards
for serving):

1. add the inputs/estimate to :class:`WorkloadResults` (None while not computable);
2. write a ``*_view(...)`` function here returning a frozen dataclass of strings and numbers
   (``CardView`` for cards), and a field for it on :class:`WorkloadView` filled in
   :func:`present`;
3. add a panel in ``ui/estimate/results.py`` (or its own module) with ``show(view)`` and
   ``clear(reason)``, and call it from ``EstimateTab._show`` (one line).
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from desktopapp.application.text import CardView, assumption_rows, formula_tooltip
from desktopapp.application.workload_presets import params_text
from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.grids import distinct_sorted
from desktopapp.model.inference import InferenceEstimate, InferenceInputs, inference_sweep_batch
from desktopapp.model.memory import MemoryEstimate
from desktopapp.model.perf_training import RunEstimate, estimate_run
from desktopapp.model.sensitivity import Outcome, utilization_curve
from desktopapp.model.training import (
    TrainingEstimate,
    TrainingInputs,
    training_sweep_devices,
)
from desktopapp.model.units import plural

if TYPE_CHECKING:
    from desktopapp.application.snapshot import TrainingFigures
    from desktopapp.model.serving import ServingEstimate  # imported when a model is served

FloatArray = npt.NDArray[np.float64]

DEVICE_SWEEP = distinct_sorted(np.round(np.logspace(0.0, np.log10(4096.0), 160)))
UTILIZATION_SWEEP = np.linspace(0.05, 0.80, 76)
BATCH_SWEEP = distinct_sorted(np.round(np.logspace(0.0, 10.0, 41, base=2.0)))
PLANNING_NOTE = (
    "Low end: this estimate, compute only. High end: ×{margin:g} for the whole project "
    "(experiments, tuning, failed and repeated runs, evaluation)."
)
NO_PRICE = "No price per GPU-hour: type one to see the cost"


@dataclass(frozen=True)
class WorkloadResults:
    """What one recompute of the Workload tab produced (None: not computable)."""

    training_inputs: TrainingInputs | None = None
    training: TrainingEstimate | None = None
    memory: MemoryEstimate | None = None
    inference_inputs: InferenceInputs | None = None
    inference: InferenceEstimate | None = None
    # Serving latency targets (seconds; None: none): time to first token, per output token.
    serving_targets: tuple[float | None, float | None] = (None, None)
    # the serving model's operating point (language models; the snapshot's)
    serving: ServingEstimate | None = None


# --- training -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RangeView:
    """A planning range bar: from ``low`` to ``high``, ticks at the multiples, a formatter."""

    low: float
    high: float
    format: Callable[[float], str]
    ticks: tuple[float, ...]


@dataclass(frozen=True)
class TrainingCurves:
    """The scaling plots' data: against devices, and against utilization (in %)."""

    devices: FloatArray
    hours: FloatArray
    cost_by_devices: FloatArray | None
    current_devices: int
    current_hours: float
    current_cost: float | None
    utilization_pct: FloatArray
    cost_by_utilization: FloatArray | None
    current_utilization_pct: float

    def args(self) -> tuple[Any, ...]:
        return (
            self.devices,
            self.hours,
            self.cost_by_devices,
            self.current_devices,
            self.current_hours,
            self.current_cost,
            self.utilization_pct,
            self.cost_by_utilization,
            self.current_utilization_pct,
        )


@dataclass(frozen=True)
class TrainingView:
    """What the Training estimate panel shows: cards, planning range and its note."""

    compute: CardView
    time: CardView
    gpu_hours: CardView
    cost: CardView | None  # None: no price (the card says NO_PRICE)
    time_range: RangeView
    cost_range: RangeView | None
    range_note: str
    range_tooltip: str
    curves: TrainingCurves
    curves_tooltip: str


def training_view(est: TrainingEstimate, inputs: TrainingInputs) -> TrainingView:
    lines = est.formula.splitlines()
    rows = assumption_rows(est.assumptions)

    def tip(title: str, *indices: int) -> str:
        chosen = "\n".join(lines[i] for i in indices if i < len(lines))
        return formula_tooltip(title, chosen, rows)

    method = "6·N·D" if est.method == "6nd" else "3 × forward × samples"
    devices = "device" if est.devices == 1 else "devices"
    cost = (
        None
        if est.estimated_cost_usd is None
        else CardView(
            units.format_money(est.estimated_cost_usd),
            f"at {units.format_money(est.price_per_gpu_hour)} per GPU-hour",
            tip("Cost", 3),
        )
    )
    ticks = tuple(float(m) for m in range(1, int(est.project_margin) + 1))
    cost_range = None
    if est.planning_low_cost_usd is not None and est.planning_high_cost_usd is not None:
        cost_range = RangeView(
            est.planning_low_cost_usd, est.planning_high_cost_usd, units.format_money, ticks
        )
    range_tip = formula_tooltip(
        "Planning range",
        f"low = estimate; high = estimate × {est.project_margin:g}",
        [
            (
                "wall time",
                f"{units.format_hours(est.planning_low_hours)} … "
                f"{units.format_hours(est.planning_high_hours)}",
            ),
            (
                "cost",
                f"{units.format_money(est.planning_low_cost_usd)} … "
                f"{units.format_money(est.planning_high_cost_usd)}",
            ),
        ],
    )
    return TrainingView(
        compute=CardView(
            units.format_flops(est.total_flops),
            f"{units.format_power_of_ten(est.total_flops)} FLOP · C = {method}",
            tip("Total compute", 0),
        ),
        time=CardView(
            units.format_duration(est.training_seconds),
            f"{est.devices:,} {devices} at {est.utilization:.0%} utilization",
            tip("Wall time", 1),
        ),
        gpu_hours=CardView(
            units.format_count(est.gpu_hours).replace(" ", ""),
            f"{units.format_flop_rate(est.achieved_flops_per_second)} achieved",
            tip("GPU-hours", 2),
            unit="GPU-h",
        ),
        cost=cost,
        time_range=RangeView(
            est.planning_low_hours, est.planning_high_hours, units.format_hours, ticks
        ),
        cost_range=cost_range,
        range_note=PLANNING_NOTE.format(margin=est.project_margin),
        range_tooltip=range_tip,
        curves=training_curves(est, inputs),
        curves_tooltip=formula_tooltip("Curves", "\n".join(lines[1:]), rows),
    )


def training_curves(est: TrainingEstimate, inputs: TrainingInputs) -> TrainingCurves:
    by_devices = training_sweep_devices(inputs, DEVICE_SWEEP)
    # through the headline (modelled or flat) at its MFU: time ∝ 1 / MFU
    headline = Outcome(est.training_hours, est.estimated_cost_usd, est.utilization, est.peak_tflops)
    by_util = utilization_curve(headline, est.devices, UTILIZATION_SWEEP)
    return TrainingCurves(
        devices=by_devices.values,
        hours=by_devices.training_hours,
        cost_by_devices=by_devices.cost_usd,
        current_devices=est.devices,
        current_hours=est.training_hours,
        current_cost=est.estimated_cost_usd,
        utilization_pct=by_util.values * 100.0,
        cost_by_utilization=by_util.cost_usd,
        current_utilization_pct=est.utilization * 100.0,
    )


def method_missing_reason(method: str, no_forward_flops: bool, no_samples: bool) -> str:
    """Why FLOPs × samples shows no estimate: which of its two inputs is still empty."""
    if method == "6nd":
        return ""
    missing = [
        name
        for name, empty in (
            ("forward FLOPs per sample", no_forward_flops),
            ("number of samples", no_samples),
        )
        if empty
    ]
    if not missing:
        return ""
    return "FLOPs × samples needs the " + " and the ".join(missing) + " (left, Training compute)."


def training_missing_reason(
    first_error: str, preset_name: str | None, preset_has_estimate: bool
) -> str:
    """Why the training cards show dashes."""
    if first_error:
        return first_error
    if preset_name is not None and not preset_has_estimate:
        return (
            f"{preset_name}: no FLOP-based estimate for this class. Enter parameters "
            "and tokens (or forward FLOPs and samples) to estimate anyway."
        )
    return ""


# --- memory ---------------------------------------------------------------------------------

MEMORY_PARTS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


@dataclass(frozen=True)
class MemoryView:
    """What the memory panel shows: the parts per device, the verdict and what would fit."""

    parts: Mapping[str, tuple[float, str]]  # part → (bytes per device, formatted)
    capacity: float | None
    bar_tooltip: str
    verdict: str
    tone: str  # good | bad | none
    advice: tuple[str, ...]  # rich text lines: the changes that would make it fit
    heading: str


def memory_view(est: MemoryEstimate, colors: Mapping[str, str]) -> MemoryView:
    fb = units.format_bytes
    values = {
        "weights": est.per_device_weights_bytes,
        "gradients": est.per_device_gradients_bytes,
        "optimizer": est.per_device_optimizer_bytes,
        "activations": est.per_device_activations_bytes,
        "kv_cache": est.per_device_kv_cache_bytes,
        # the allocator's allowance and ZeRO-3's gathered layers count with the overhead
        "overhead": est.overhead_bytes + est.fragmentation_bytes + est.gathered_bytes,
    }
    parts = {name: (value, fb(value)) for name, value in values.items()}
    tip = formula_tooltip("Memory per device", est.formula, assumption_rows(est.assumptions))
    capacity = est.device_memory_bytes
    if est.fits is None or capacity is None:
        heading = f"{fb(est.per_device_bytes)} per device."
        return MemoryView(parts, capacity, tip, "No device memory known", "none", (), heading)
    if est.fits:
        free = est.headroom_fraction or 0.0
        heading = (
            f"{fb(est.per_device_bytes)} of {fb(capacity)} per device "
            f"({fb(est.headroom_bytes)} free)."
        )
        return MemoryView(parts, capacity, tip, f"✓ Fits · {free:.0%} free", "good", (), heading)
    lines = []
    for suggestion in est.suggestions:
        mark = (
            f"<span style='color:{colors['good']}'>✓ fits</span>"
            if suggestion.fits
            else f"<span style='color:{colors['muted']}'>still too big</span>"
        )
        lines.append(
            f"{html.escape(suggestion.description)} → <b>{fb(suggestion.per_device_bytes)}"
            f"</b> per device, {mark}"
        )
    heading = f"Needs {fb(est.per_device_bytes)} per device, {fb(capacity)} available. " + (
        "What would make it fit:" if lines else "No single change makes it fit."
    )
    return MemoryView(parts, capacity, tip, "✗ Does not fit", "bad", tuple(lines), heading)


MEMORY_MISSING = "Memory needs the parameter count."


# --- inference ------------------------------------------------------------------------------


@dataclass(frozen=True)
class InferenceCurve:
    """The panel's plot: ``throughput`` against ``x`` (batch size, or time per output token as
    the concurrency grows), the current point and an optional vertical target line."""

    x: FloatArray
    throughput: FloatArray
    unit: str
    current: tuple[float, float]
    title: str = "Throughput vs batch size"
    x_label: str = "batch size"
    log_x: bool = True
    target_x: float | None = None
    # a few points labelled on the curve (x, y, text): the serving curve's concurrency
    labels: tuple[tuple[float, float, str], ...] = ()

    @property
    def batch_size(self) -> FloatArray:
        return self.x


ROOFLINE_CAPTIONS = ("Throughput", "Latency per request", "Cost per million", "Roofline bound")
# an encoder (BERT): one forward pass per request; no token timings
ENCODER_CAPTIONS = (
    "Sequences per second",
    "Latency per request",
    "Cost per million",
    "Roofline bound",
)
SERVING_CAPTIONS = (
    "Throughput",
    "Time to first token",
    "Cost per million",
    "Time per output token",
)


@dataclass(frozen=True)
class InferenceView:
    """What the serving panel shows: cards, note, curve and assumptions."""

    throughput: CardView
    latency: CardView  # language models: time to first token
    cost: CardView | None  # None: no price
    bound: CardView  # language models: time per output token
    note: str
    curve: InferenceCurve
    captions: tuple[str, str, str, str] = ROOFLINE_CAPTIONS
    assumptions: tuple[Assumption, ...] | None = None  # None: the estimate's own
    # a headline for the hero sentence ("540 tokens/s at 44 ms per token, $0.42 per million
    # tokens"); "" when none
    headline: str = ""
    # why nothing is shown ("does not fit: needs 330 GiB per device …"); the cards stay empty
    infeasible: str = ""


def _target_text(value: float, target: float | None) -> str:
    if target is None:
        return ""
    mark = "✓" if value <= target else "✗"
    return f" · target {units.format_duration(target)} {mark}"


def _concurrency_labels(curve: Any) -> tuple[tuple[float, float, str], ...]:
    """Labels at concurrency 1, 4, 16, 64, … on the serving curve (x: ms per token)."""
    out: list[tuple[float, float, str]] = []
    conc = np.asarray(curve.concurrency, dtype=float)
    if conc.size == 0:
        return ()
    used: set[int] = set()
    for target in (1, 4, 16, 64, 256, 1024, 4096):
        k = int(np.argmin(np.abs(np.log(np.maximum(conc, 1e-9)) - np.log(target))))
        if k in used or abs(np.log(conc[k] / target)) > np.log(1.5):
            continue
        used.add(k)
        out.append(
            (
                float(curve.tpot_seconds[k] * 1e3),
                float(curve.tokens_per_second[k]),
                f"{int(conc[k]):,}",
            )
        )
    return tuple(out)


def serving_view(
    est: ServingEstimate, targets: tuple[float | None, float | None] = (None, None)
) -> InferenceView:
    """Cards, note and throughput-against-latency curve of the serving model's operating
    point (the snapshot's: the one rule of every face)."""
    tip = formula_tooltip("Serving", est.formula, assumption_rows(est.assumptions))
    ttft_target, tpot_target = targets
    kv = (
        f"the KV cache holds {est.max_concurrency:,}"
        if est.max_concurrency is not None
        else "KV cache bound unknown (no device memory)"
    )
    note = (
        f"{plural(est.concurrency, 'sequence')} at once ({est.concurrency_reason}); {kv}. "
        + " ".join(n[0].upper() + n[1:] + "." for n in est.notes)
    )
    curve = est.curve
    return InferenceView(
        throughput=CardView(
            units.format_count(est.tokens_per_second).replace(" ", ""),
            f"{units.format_count(est.tokens_per_second_per_gpu)} per GPU · "
            f"{plural(est.concurrency, 'sequence')}",
            tip,
            unit="tokens/s",
        ),
        latency=CardView(
            units.format_duration(est.ttft_seconds),
            f"prefill {est.prefill_bound}-bound" + _target_text(est.ttft_seconds, ttft_target),
            tip,
        ),
        cost=None
        if est.cost_per_million_tokens is None
        else CardView(
            units.format_money(est.cost_per_million_tokens),
            f"per million output tokens at {plural(est.concurrency, 'sequence')}",
            tip,
        ),
        bound=CardView(
            units.format_duration(est.tpot_seconds),
            f"decode {est.decode_bound}-bound" + _target_text(est.tpot_seconds, tpot_target),
            tip,
        ),
        note=note,
        curve=InferenceCurve(
            curve.tpot_seconds * 1e3,
            curve.tokens_per_second,
            "token",
            (est.tpot_seconds * 1e3, est.tokens_per_second),
            title="Throughput vs time per output token (concurrency 1 … "
            f"{int(curve.concurrency[-1]):,})",
            x_label="time per output token (ms)",
            log_x=False,
            target_x=None if tpot_target is None else tpot_target * 1e3,
            labels=_concurrency_labels(curve),
        ),
        captions=SERVING_CAPTIONS,
        assumptions=est.assumptions,
        headline=(
            f"{units.format_count(est.tokens_per_second).replace(' ', '')} tokens/s at "
            f"{units.format_duration(est.tpot_seconds)} per token"
            + (
                ""
                if est.cost_per_million_tokens is None
                else f", {units.format_money(est.cost_per_million_tokens)} per million tokens"
            )
        ),
    )


def infeasible_reason(est: InferenceEstimate) -> str:
    """Why a model cannot be served as set up, and what would serve it ("" when it fits or
    the device memory is unknown)."""
    if est.fits is not False or not est.device_memory_bytes:
        return ""
    need = est.memory_per_device_bytes
    have = est.device_memory_bytes
    gpus = est.inputs.gpus
    devices = int(np.ceil(need * gpus / (have * 0.9)))
    name = accelerator_short_name(est.accelerator_name) if est.accelerator_name else "device"
    return (
        f"Does not fit: needs {units.format_bytes(need)} per device, the {name} has "
        f"{units.format_bytes(have)}. Serve it on at least {plural(devices, 'device')} "
        "(tensor parallel), or at lower precision (int8, fp8 or int4 weights)."
    )


def _infeasible_view(est: InferenceEstimate, reason: str) -> InferenceView:
    empty = CardView("—", "", reason)
    curve = InferenceCurve(np.zeros(0), np.zeros(0), est.unit, (float("nan"), float("nan")))
    return InferenceView(empty, empty, None, empty, reason, curve, infeasible=reason)


def inference_view(
    est: InferenceEstimate,
    inputs: InferenceInputs,
    targets: tuple[float | None, float | None] = (None, None),
    served: ServingEstimate | None = None,
) -> InferenceView:
    """``served``: the serving model's operating point (language models; the snapshot's),
    else the roofline's cards. A model that does not fit shows why, not figures."""
    unreachable = infeasible_reason(est)
    if unreachable:
        return _infeasible_view(est, unreachable)
    if served is not None:
        return serving_view(served, targets)
    unit = est.unit
    tip = formula_tooltip("Inference (roofline)", est.formula, assumption_rows(est.assumptions))
    if unit == "token":
        detail = (
            f"prefill {units.format_duration(est.prefill_seconds)} + "
            f"{inputs.output_tokens} × {units.format_duration(est.step_seconds)}"
        )
    elif unit == "sequence":
        detail = (
            f"one forward pass of {plural(inputs.prompt_tokens, 'token')} × "
            f"{plural(inputs.batch_size, 'sequence')}"
        )
    else:
        detail = f"one step of {plural(inputs.batch_size, 'sample')}"
    switch = (
        f"compute-bound from batch ≈ {est.compute_bound_batch_size:,.0f}"
        if est.compute_bound_batch_size is not None
        else "memory-bound at every batch size"
    )
    note = f"{units.format_bytes(est.memory_per_device_bytes)} per device"
    if est.fits is False and est.device_memory_bytes is not None:
        note += (
            f", more than the {units.format_bytes(est.device_memory_bytes)} available: "
            "add serving devices or quantize."
        )
    elif est.fits:
        note += f" of {units.format_bytes(est.device_memory_bytes)}."
    sweep = inference_sweep_batch(inputs, distinct_sorted([*BATCH_SWEEP, inputs.batch_size]))
    rate = units.format_count(est.throughput_per_second).replace(" ", "")
    headline = ""
    if unit == "sequence" and est.input_tokens_per_second is not None:
        # an encoder: sequences (requests) per second and the tokens they read, no decoding
        tokens_rate = units.format_count(est.input_tokens_per_second).replace(" ", "")
        rate_detail = f"{tokens_rate} tokens/s read · batch {inputs.batch_size:,}"
        headline = (
            f"{rate} sequences/s ({tokens_rate} tokens/s) "
            f"at {units.format_duration(est.latency_seconds)} per request"
            + (
                ""
                if est.cost_per_million is None
                else f", {units.format_money(est.cost_per_million)} per million sequences"
            )
        )
    else:
        rate_detail = f"{units.format_plain(est.requests_per_second, 3)} requests/s"
    return InferenceView(
        throughput=CardView(rate, rate_detail, tip, unit=f"{unit}s/s"),
        latency=CardView(units.format_duration(est.latency_seconds), detail, tip),
        cost=None
        if est.cost_per_million is None
        else CardView(units.format_money(est.cost_per_million), f"per million {unit}s", tip),
        bound=CardView(est.bound.capitalize(), switch, tip, unit="bound"),
        note=(
            f"Batch of {inputs.batch_size}, {est.compute_precision} compute on {inputs.gpus:,} × "
            f"{est.accelerator_name or 'device'}; {note}"
        ),
        curve=InferenceCurve(
            sweep.batch_size,
            sweep.throughput_per_second,
            unit,
            (float(inputs.batch_size), est.throughput_per_second),
        ),
        captions=ENCODER_CAPTIONS if unit == "sequence" else ROOFLINE_CAPTIONS,
        headline=headline,
    )


# --- the headline: one sentence a room can read, and the chain that produces it ------------

_VENDOR_WORDS = ("NVIDIA", "AMD", "Google", "AWS", "Intel", "Apple", "Instinct", "GeForce")
_VARIANT = re.compile(r"^(SXM\d*|PCIe|HGX|Grace|Hopper|Generation|Ada|\d+GB|\(.*)$", re.I)


def accelerator_short_name(name: str | None) -> str:
    """What people call the device: "NVIDIA H100 SXM5 80GB" → "H100", "AMD Instinct MI300X" →
    "MI300X", "Google TPU v5e" → "TPU v5e"."""
    if not name:
        return "GPUs"
    words = [w for w in re.sub(r"\(.*?\)", "", name).split() if w not in _VENDOR_WORDS]
    kept: list[str] = []
    for word in words:
        if _VARIANT.match(word) or len(kept) == 2:
            break
        kept.append(word)
    return " ".join(kept) or name


def about_duration(seconds: float) -> str:
    """A duration rounded as it is said aloud: "39 minutes", "5.3 hours", "10 days"."""
    minutes = seconds / 60.0
    if minutes < 90:
        whole = max(1, round(minutes))
        return f"{whole} minute{'s' if whole != 1 else ''}"
    hours = seconds / 3600.0
    if hours < 48:
        return f"{units.format_plain(hours, 2)} hours"
    days = hours / 24.0
    if days < 730:
        shown = f"{round(days):,}" if days >= 10 else units.format_plain(days, 2)
        return f"{shown} days"
    # two years on: years, as they are said ("3.2 years", "264 years", "4.4×10^26 years"),
    # never a 30-digit count of days
    return f"{units.format_plain(seconds / units.SECONDS_PER_YEAR, 2)} years"


def money_short(usd: float) -> str:
    """$850, $39k, $390k, $1.2M: two or three significant figures."""
    if usd >= 1e15:  # beyond any budget: "$9.90×10^32", not "$9.90×10^23B"
        return units.format_money(usd)
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if usd >= scale:
            return f"${units.format_plain(usd / scale, 2 if usd / scale < 100 else 3)}{suffix}"
    return f"${usd:,.2f}" if usd < 100 else f"${usd:,.0f}"


def _money_range(low: float, high: float) -> str:
    """ "$300-520k": one unit when both share it."""
    a, b = money_short(low), money_short(high)
    if a[-1] == b[-1] and a[-1] in "kMBT":
        return f"{a[:-1]}-{b[1:]}"
    return f"{a}-{b}"


@dataclass(frozen=True)
class HeroView:
    """The Workload tab's headline: the answer in one sentence, and the chain of figures that
    produces it (each step multiplies out to the next)."""

    sentence: str
    chain: str
    tooltip: str = ""


def _subject(est: TrainingEstimate) -> str:
    params = est.inputs.params
    who = "The run" if not params else params_text(params)
    devices = est.devices
    name = accelerator_short_name(est.accelerator_name)
    return f"{who} on {devices:,} {name}"


def hero_view(est: TrainingEstimate, run: RunEstimate | None = None) -> HeroView:
    """The training headline. ``run``: the modelled run when it sets the headline (its likely
    range and the chain steady state × production factor ÷ goodput = wall time); else the
    flat rule's chain C ÷ (peak × utilization × devices)."""
    wall = about_duration(est.training_seconds)
    parts = [f"about {wall}"]
    if est.estimated_cost_usd is not None:
        money = money_short(est.estimated_cost_usd)
        if run is not None and run.cost_low_usd is not None and run.cost_high_usd is not None:
            money += f" (likely {_money_range(run.cost_low_usd, run.cost_high_usd)})"
        parts.append(money)
    else:
        hours = f"{units.format_count(est.gpu_hours).replace(' ', '')} GPU-hours"
        if run is not None:
            hours += (
                f" (likely {units.format_count(run.gpu_hours_low).replace(' ', '')}-"
                f"{units.format_count(run.gpu_hours_high).replace(' ', '')})"
            )
        parts.append(hours)
    sentence = f"{_subject(est)}: {', '.join(parts)}"
    wall_text = units.format_duration(est.training_seconds)
    devices = f"{est.devices:,} {'GPU' if est.devices == 1 else 'GPUs'}"
    if run is not None:
        steady = run.training_seconds * run.goodput / run.production_factor
        first = (
            f"Steady state {units.format_duration(steady)} × production factor "
            f"{units.format_plain(run.production_factor, 3)} ÷ goodput "
            f"{units.format_percent(run.goodput, 0)} = {wall_text} wall time"
        )
        tooltip = (
            "Steady state: the modelled steps × step time at the plan's MFU "
            f"({units.format_percent(run.mfu, 0)}). Production factor: what published runs took "
            "beyond that (restarts, evaluation, slower stretches). Goodput: the share of wall "
            "time spent training (checkpoints and failures take the rest)."
        )
    else:
        first = (
            f"{units.format_flops(est.total_flops)} ÷ ({units.format_plain(est.peak_tflops, 4)} "
            f"TFLOP/s × {units.format_percent(est.utilization, 0)} utilization × {devices})"
            f" = {wall_text} wall time"
        )
        tooltip = "The flat rule: compute over peak × utilization × devices."
    chain = [first, f"× {devices} = {units.format_count(est.gpu_hours).replace(' ', '')} GPU-hours"]
    if est.estimated_cost_usd is not None and est.price_per_gpu_hour is not None:
        chain.append(
            f"× {units.format_money(est.price_per_gpu_hour)} per GPU-hour = "
            f"{units.format_money(est.estimated_cost_usd)}"
        )
    return HeroView(sentence, " · ".join(chain), tooltip)


def training_headline(figures: TrainingFigures) -> str:
    """The hero sentence of a snapshot's training figures, as
    the Workload tab, ``desktopapp estimate train`` and the scenario report say it."""
    run = figures.run if figures.modelled.sets_headline else None
    return hero_view(figures.estimate, run).sentence


# --- the modelled scaling charts: units, ticks, "you are here" (issue 25) -------------------

_TIME_UNITS = (
    ("years", units.SECONDS_PER_YEAR, "y"),
    ("days", 86400.0, "d"),
    ("hours", 3600.0, "h"),
    ("minutes", 60.0, "min"),
)


def time_unit_for(seconds: float) -> tuple[str, float, str]:
    """(name, seconds per unit, short label) matching how the headline says ``seconds``
    (:func:`about_duration`)."""
    if seconds >= 730 * 86400.0:
        return _TIME_UNITS[0]
    if seconds >= 48 * 3600.0:
        return _TIME_UNITS[1]
    if seconds >= 90 * 60.0:
        return _TIME_UNITS[2]
    return _TIME_UNITS[3]


def log_ticks(low: float, high: float, suffix: str = "") -> tuple[tuple[float, str], ...]:
    """Uncrowded ticks for a log axis over [low, high]: decades, with 2 and 5 between them only
    while the range spans fewer than three decades."""
    if not (low > 0 and high > 0 and np.isfinite(low) and np.isfinite(high)):
        return ()
    low, high = min(low, high), max(low, high)
    first, last = int(np.floor(np.log10(low))), int(np.ceil(np.log10(high)))
    steps = (1.0,) if np.log10(high / low) >= 2.5 else (1.0, 2.0, 5.0)
    values = [
        m * 10.0**e
        for e in range(first, last + 1)
        for m in steps
        if low * 0.999 <= m * 10.0**e <= high * 1.001
    ]
    if len(values) < 2:  # a narrow range: its ends
        values = [low, high]
    return tuple((v, f"{units.format_plain(v, 2)}{' ' + suffix if suffix else ''}") for v in values)


@dataclass(frozen=True)
class ScalingPlots:
    """What the modelled scaling charts draw beyond the curves: the time in the headline's unit
    with its ticks, the cost axis from zero, the current GPU count marked, one sentence."""

    time_title: str  # "wall time (days)"
    time: FloatArray  # in that unit
    time_ticks: tuple[tuple[float, str], ...]
    cost_top: float | None  # the cost axis runs from 0 to this
    current: tuple[float, float, float | None, float] | None  # GPUs, time, cost, MFU %
    sentence: str


def _at(gpus: FloatArray, values: FloatArray, count: float) -> float:
    """``values`` at ``count`` GPUs, interpolated in log-log between plotted counts."""
    keep = np.isfinite(values) & (values > 0)
    if not keep.any():
        return float("nan")
    logs = np.log(values[keep])
    return float(np.exp(np.interp(np.log(count), np.log(gpus[keep]), logs)))


def scaling_plots(scaling: Any, run: RunEstimate | None) -> ScalingPlots:
    """``scaling``: ``training_view.ScalingView``; ``run``: the modelled run at the current GPU
    count (its own figures mark "you are here")."""
    gpus = np.asarray(scaling.gpus, dtype=float)
    hours = np.asarray(scaling.hours, dtype=float)
    current_gpus = float(scaling.current_gpus)
    here_s = run.training_seconds if run is not None else _at(gpus, hours, current_gpus) * 3600
    name, per, short = time_unit_for(here_s)
    time = hours * 3600.0 / per
    finite = time[np.isfinite(time) & (time > 0)]
    ticks = log_ticks(float(finite.min()), float(finite.max()), short) if finite.size else ()
    cost = None if scaling.cost is None else np.asarray(scaling.cost, dtype=float)
    cost_top = None
    if cost is not None and np.isfinite(cost).any():
        cost_top = float(np.nanmax(cost)) * 1.08
    current = None
    if run is not None:
        current = (
            current_gpus,
            run.training_seconds / per,
            run.cost_usd,
            run.mfu * 100.0,
        )
    return ScalingPlots(
        f"wall time ({name})", time, ticks, cost_top, current, _scaling_sentence(scaling, run)
    )


def _scaling_sentence(scaling: Any, run: RunEstimate | None) -> str:
    """What doubling the GPUs would do to this job, in its own size (a 39-minute job saves
    minutes), then the knee."""
    gpus = np.asarray(scaling.gpus, dtype=float)
    hours = np.asarray(scaling.hours, dtype=float)
    here = float(scaling.current_gpus)
    knee = str(scaling.knee_text or "")
    if run is None or here * 2 > gpus.max() or gpus.size < 2:
        return knee
    now_s = run.training_seconds
    doubled_s = _at(gpus, hours, here * 2) * 3600.0
    if not math.isfinite(doubled_s):
        return knee
    saved = now_s - doubled_s
    more_hours = (doubled_s * here * 2) / (now_s * here) - 1.0
    devices = f"{int(here * 2):,} GPUs"
    sentence = (
        f"Doubling to {devices}: {about_duration(doubled_s)} instead of "
        f"{about_duration(now_s)} (saves {about_duration(max(saved, 0.0))}) for "
        f"{units.format_percent(max(more_hours, 0.0), 0)} more GPU-hours."
    )
    if now_s < 24 * 3600.0:
        return f"{sentence} A job this short gains little from more GPUs."
    return f"{sentence} {knee}".strip()


# --- a given plan: what it forced, in words (issue 21) ---------------------------------------

PLAN_FIELDS_GIVEN = ("tp", "pp", "micro_batch")


def _plan_words(plan: Any) -> str:
    words = [f"TP {plan.tp}" if plan.tp > 1 else "no tensor parallel"]
    if plan.pp > 1:
        interleave = f" interleaved ×{plan.virtual_stages}" if plan.virtual_stages > 1 else ""
        words.append(f"PP {plan.pp}{interleave}")
    words.append(f"DP {plan.dp}")
    return ", ".join(words)


def _recompute_words(share: float) -> str:
    if share >= 1.0:
        return "full activation recompute"
    if share > 0:
        return f"recompute of {units.format_percent(share, 0)} of the activations"
    return "no recompute"


def plan_change_text(given: RunEstimate, auto: RunEstimate, inputs: TrainingInputs) -> str:
    """What a plan the user gave (TP, PP or micro-batch) forced, against the automatic plan
    for the same run: "" when nothing differs in a way that matters."""
    named = [
        f"{label} {getattr(inputs, name)}"
        for name, label in (("tp", "TP"), ("pp", "PP"), ("micro_batch", "micro-batch"))
        if getattr(inputs, name)
    ]
    g, a = given.plan, auto.plan
    changes: list[str] = []
    if not inputs.tp and g.tp != a.tp:
        changes.append(
            ("no tensor parallel" if g.tp == 1 else f"TP {g.tp}")
            + f" (the automatic plan uses TP {a.tp})"
        )
    if not inputs.pp and g.pp != a.pp:
        changes.append(f"PP {g.pp} (the automatic plan uses PP {a.pp})")
    if g.recompute > a.recompute:
        changes.append(
            f"{_recompute_words(g.recompute)} to fit memory (the automatic plan needs "
            f"{_recompute_words(a.recompute).replace('no recompute', 'none')})"
        )
    if g.pp > 1 and g.virtual_stages < a.virtual_stages and a.pp > 1:
        changes.append(f"no interleaving (the automatic plan interleaves ×{a.virtual_stages})")
    if not inputs.micro_batch and g.micro_batch != a.micro_batch:
        changes.append(f"micro-batch {g.micro_batch} (automatic: {a.micro_batch})")
    if not changes and given.training_seconds <= auto.training_seconds * 1.005:
        return ""
    forced = f"it brings {'; '.join(changes)}. " if changes else ""
    return (
        f"With {' and '.join(named) or 'your plan'} as given, {forced}Wall time "
        f"{units.format_duration(given.training_seconds)} against "
        f"{units.format_duration(auto.training_seconds)} for the automatic plan "
        f"({_plan_words(a)}). Clear the plan fields to use the automatic plan."
    )


def given_plan_note(modelled: Any, inputs: TrainingInputs | None) -> str:
    """For a modelled run (``training_view.ModelledRun``) whose plan the user gave: what that
    forced, against the automatic plan of the same run ("" when no plan field was given)."""
    run = getattr(modelled, "run", None)
    run_inputs = getattr(modelled, "inputs", None)
    if run is None or run_inputs is None or inputs is None:
        return ""
    if not any(getattr(inputs, name, None) for name in PLAN_FIELDS_GIVEN):
        return ""
    auto_inputs = dataclasses.replace(run_inputs, tp=None, pp=None, dp=None, micro_batch=None)
    try:
        auto = estimate_run(auto_inputs)
    except ValueError:
        return ""
    return plan_change_text(run, auto, inputs)


def serving_sentence(est: InferenceEstimate, headline: str) -> str:
    """The serving line under the training headline: "Serving 70B on 2 H100: 540 tokens/s at
    44 ms per token, $0.42 per million tokens"."""
    params = est.inputs.params
    who = params_text(params) if params else "the model"
    name = accelerator_short_name(est.accelerator_name)
    return f"Serving {who} on {est.inputs.gpus:,} {name}: {headline}"


def inference_headline(est: InferenceEstimate, served: ServingEstimate | None = None) -> str:
    """The Workload tab's serving line for these figures (``served``: the serving model's
    operating point, language models), as ``desktopapp estimate inference`` prints it; ""
    when the tab shows none (a model that does not fit says why instead)."""
    headline = inference_view(est, est.inputs, served=served).headline
    return serving_sentence(est, headline) if headline else ""


def memory_origin(for_plan: bool, modelled: Any) -> str:
    """Which memory the panel shows: the modelled plan's (its ZeRO stage, micro-batch and
    sharding), or the Memory inputs' (no modelled run)."""
    run = getattr(modelled, "run", None)
    if not for_plan or run is None:
        return "For the Memory inputs on the left (ZeRO stage, micro-batch, shape)."
    plan = run.plan
    parts = [f"ZeRO-{plan.zero_stage}", plural(plan.micro_batch, "sequence") + " per micro-batch"]
    if plan.tp > 1:
        parts.append(f"TP {plan.tp}")
    if plan.pp > 1:
        parts.append(f"PP {plan.pp}")
    if plan.recompute >= 1.0:
        parts.append("full activation recompute")
    return (
        f"For the modelled plan: {', '.join(parts)}. The ZeRO stage and micro-batch on the left "
        "apply only when the run is not modelled."
    )


def inference_missing_reason(measured_without_catalog_match: bool) -> str:
    if measured_without_catalog_match:
        return (
            "The measured accelerator matches no catalog entry, so its memory bandwidth "
            "is unknown: pick a catalog accelerator to plan inference."
        )
    return "Inference needs the parameter count and an accelerator."


# --- all panels -----------------------------------------------------------------------------


def assumption_groups(results: WorkloadResults) -> list[tuple[str, tuple[Assumption, ...]]]:
    groups: list[tuple[str, tuple[Assumption, ...]]] = []
    if results.training is not None:
        groups.append(("Training", results.training.assumptions))
    if results.memory is not None:
        groups.append(("Memory", results.memory.assumptions))
    if results.inference is not None:
        groups.append(("Inference", results.inference.assumptions))
    return groups


@dataclass(frozen=True)
class WorkloadView:
    """One view per results panel (None: the panel shows why it has nothing)."""

    training: TrainingView | None
    memory: MemoryView | None
    inference: InferenceView | None
    assumptions: Sequence[tuple[str, tuple[Assumption, ...]]] = field(default=())


def present(results: WorkloadResults, colors: Mapping[str, str]) -> WorkloadView:
    training = (
        None
        if results.training is None or results.training_inputs is None
        else training_view(results.training, results.training_inputs)
    )
    memory = None if results.memory is None else memory_view(results.memory, colors)
    inference = (
        None
        if results.inference is None or results.inference_inputs is None
        else inference_view(
            results.inference, results.inference_inputs, results.serving_targets, results.serving
        )
    )
    groups = assumption_groups(results)
    if inference is not None and inference.assumptions is not None:
        groups = [
            (name, inference.assumptions if name == "Inference" else items)
            for name, items in groups
        ]
    return WorkloadView(training, memory, inference, tuple(groups))
