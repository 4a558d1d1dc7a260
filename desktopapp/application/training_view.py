"""The Workload tab's modelled training run (issue 13), without Qt.

:func:`modelled_view` turns the tab's :class:`~desktopapp.model.training.TrainingInputs` (and
the preset's model shape) into :class:`ModelledView`: cards for predicted MFU, step time and
the GPU-hours band, the parallel plan in words, the step-time breakdown parts and the scaling
sweep over 1..4096 GPUs with its knee. When the run cannot be modelled it returns a
:class:`NotModelled` with the reason in the user's words (never a blank panel).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.application.text import CardView, as_sentence, formula_tooltip
from desktopapp.model import perf_training, units
from desktopapp.model.memory import SHAPE_TERMS
from desktopapp.model.training import TrainingEstimate, TrainingInputs
from desktopapp.model.validation import error_field, error_text, user_message

FloatArray = npt.NDArray[np.float64]

SHAPE_FIELDS = ("seq_len", "layers", "hidden", "heads", "kv_heads", "active_params")
PLAN_FIELDS = ("tp", "pp", "dp", "micro_batch", "global_batch_tokens")
# The scaling plots' GPU counts: powers of two, 1 … 4,096. A count of 3·2^k cannot split a
# power-of-two global batch evenly (the default batch is one) without a pipeline of 3, so its
# MFU dips and the curves zigzagged between neighbours; a count typed in Devices is still
# modelled as it is (the plot's marker sits at it).
PLOT_GPUS = np.array([2.0**k for k in range(13)])
NOT_MODELLED_SIMPLE = (
    "Not modelled: the parallel-plan model needs a catalog accelerator and the 6·N·D rule "
    "(the cards above use C / (peak × utilization × devices))."
)


@dataclass(frozen=True)
class BreakdownPart:
    """One part of the modelled step time, with its share and its text."""

    key: str  # StepBreakdown field
    label: str
    seconds: float
    share: float  # of the step
    text: str  # "compute 1.2 s (71%)"


@dataclass(frozen=True)
class ScalingView:
    """The scaling curves against the GPU count, the current count and the knee sentence."""

    gpus: FloatArray
    hours: FloatArray
    cost: FloatArray | None
    mfu_pct: FloatArray
    current_gpus: int
    knee_gpus: float | None
    knee_text: str  # the knee sentence, capitalised


@dataclass(frozen=True)
class ModelledView:
    """What the Modelled run panel shows: cards, plan, step breakdown and scaling."""

    mfu: CardView
    step: CardView
    band: CardView
    plan_text: str  # "TP 8 inside each node, PP 4 (1F1B interleaved ×2), DP 32 …"
    plan_reason: str  # why this plan
    plan_tooltip: str
    breakdown: tuple[BreakdownPart, ...]
    breakdown_tooltip: str
    scaling: ScalingView
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class NotModelled:
    """Why there is no modelled run for these inputs."""

    reason: str


@dataclass(frozen=True)
class FieldHint:
    """A field's placeholder and its tooltip."""

    placeholder: str
    tooltip: str


def production_factor_hint() -> FieldHint:
    """The Production factor field's placeholder (the fitted default) and its explanation."""
    fit = perf_training.production_fit()
    if not fit.runs:
        return FieldHint("auto (1)", "No published runs fitted: a run as fast as a benchmark.")
    org = fit.organisation_split or {}
    judged = (
        f"predicting each organisation's runs with the factor fitted to the other "
        f"organisations misses by a median ×{org['fitted_median_error']:.2f}"
        if org.get("fitted_median_error") is not None
        else f"predicting each run with the factor fitted to the others misses by a median "
        f"×{fit.loo_median_error:.2f}"
    )
    if org.get("checked_median_error") is not None:
        judged += (
            f" (×{org['checked_median_error']:.2f} on {org['checked_runs']} runs never used in "
            "the fit)"
        )
    return FieldHint(
        f"auto (×{fit.factor:.2f})",
        "Wall time of a production run over the modelled steady state. Published GPU-hours "
        f"of {fit.runs} large training runs took ×{fit.factor:.2f} the model's steady state "
        f"(at goodput {perf_training.DEFAULT_GOODPUT:.0%}); {judged}: it depends most on who "
        "runs the job, so 'From past runs…' fits it to your own finished runs. Fitted on "
        f"{fit.fitted_on or 'large runs'}; for a small job it is an extrapolation. Give 1 for a "
        "run as fast as a tuned benchmark, up to 3. Empty: the fitted value.",
    )


def run_inputs(
    training: TrainingInputs,
    shape: Mapping[str, Any] | None = None,
    measured_matmul_efficiency: float | None = None,
) -> perf_training.RunInputs | None:
    """RunInputs for the tab's inputs; ``shape`` holds SHAPE_FIELDS/PLAN_FIELDS (None: auto)."""
    extra = {k: v for k, v in (shape or {}).items() if v is not None}
    if measured_matmul_efficiency is not None:
        extra["measured_matmul_efficiency"] = measured_matmul_efficiency
    return perf_training.run_inputs_from_training(training, **extra)


def measured_efficiency(
    measured_tflops: Mapping[str, float], catalog_id: str | None, precision: str
) -> float | None:
    """Hardware tab's "Use in estimates": measured sustained matmul TFLOP/s over the catalog
    accelerator's dense peak at ``precision`` (None: no catalog match or precision)."""
    if catalog_id is None or precision not in measured_tflops:
        return None
    from desktopapp.model.catalog import get_accelerator

    try:
        peak = get_accelerator(catalog_id).peak_flops(precision) / 1e12
    except ValueError:
        return None
    return min(1.0, measured_tflops[precision] / peak) if peak > 0 else None


def shape_of(memory: Any, preset: Any = None) -> dict[str, Any]:
    """The model shape for the run: the tab's shape inputs (``MemoryInputs``; a preset fills
    them), else the preset's, with its MLP kind and width and its vocabulary where known, so
    the plan's memory is `estimate memory`'s. Only a complete shape (layers, hidden, heads) is
    passed; a partial one would describe another model."""
    for source in (memory, preset):
        if source is None:
            continue
        shape = {n: getattr(source, n, None) for n in ("layers", "hidden", "heads", "seq_len")}
        # GQA and the memory terms of the shape (MLP kind and width, vocabulary), where known
        for name in ("kv_heads", *SHAPE_TERMS):
            value = getattr(source, name, None)
            if value:
                shape[name] = value
        if all(shape[n] for n in ("layers", "hidden", "heads")):
            return {k: v for k, v in shape.items() if v}
    return {}


@dataclass(frozen=True)
class ModelledRun:
    """One modelled run for the tab: ``run`` (None with ``reason`` when it cannot be modelled)
    and the inputs it came from. Computed on every edit (well under a millisecond once the
    calibration is loaded); the scaling sweep is left to :func:`modelled_view`."""

    inputs: perf_training.RunInputs | None
    run: perf_training.RunEstimate | None
    reason: str = ""
    # an input the model refused (a plan beyond the interconnect, or that does not fit): its
    # field and the message for it, so the tab marks the field the user typed
    field: str | None = None
    message: str = ""

    @property
    def sets_headline(self) -> bool:
        """Whether the headline shows this run: it was modelled and the model predicted the
        efficiency (no utilization set by the user)."""
        return self.run is not None and self.inputs is not None and self.inputs.utilization is None


def model_run(
    training: TrainingInputs,
    shape: Mapping[str, Any] | None = None,
    measured_matmul_efficiency: float | None = None,
    utilization_user_set: bool = True,
) -> ModelledRun:
    """The modelled run. ``utilization_user_set`` False: the utilization field only shows the
    catalog default, so the model predicts MFU; True: the typed utilization overrides it (as
    ``--utilization`` does on the command line)."""
    if not utilization_user_set and training.utilization is not None:
        training = replace(training, utilization=None)
    if measured_matmul_efficiency is not None and training.peak_tflops is not None:
        # a measured device: the catalog's peak with the measured matmul efficiency
        training = replace(training, peak_tflops=None)
    try:
        inp = run_inputs(training, shape, measured_matmul_efficiency)
    except ValueError as exc:
        message = user_message(exc)
        return ModelledRun(
            None, None, f"Not modelled: {message}", error_field(exc) or None, message
        )
    if inp is None:
        return ModelledRun(None, None, NOT_MODELLED_SIMPLE)
    try:
        return ModelledRun(inp, perf_training.estimate_run(inp))
    except perf_training.PlanError as exc:
        return ModelledRun(
            inp,
            None,
            f"No parallel plan fits: {error_text(exc)}",
            error_field(exc) or None,
            user_message(exc),
        )
    except ValueError as exc:
        message = user_message(exc)
        return ModelledRun(inp, None, f"Not modelled: {message}", error_field(exc) or None, message)


def headline_estimate(estimate: TrainingEstimate, modelled: ModelledRun) -> TrainingEstimate:
    """The estimate the headline cards, the Cost tab and saved comparisons use: the modelled
    run's time, GPU-hours and cost when the model predicts the efficiency (as the CLI prints
    them); the flat ``C / (peak × utilization × devices)`` when the user set the utilization
    or the run cannot be modelled."""
    if not modelled.sets_headline or modelled.run is None:
        return estimate
    return perf_training.with_run(estimate, modelled.run)


def modelled_view(
    training: TrainingInputs | ModelledRun,
    shape: Mapping[str, Any] | None = None,
    measured_matmul_efficiency: float | None = None,
    utilization_user_set: bool = True,
) -> ModelledView | NotModelled:
    """Cards, plan, breakdown and the 1-4,096 GPU scaling sweep of a modelled run (given, or
    modelled here from the tab's inputs as :func:`model_run` does)."""
    modelled = (
        training
        if isinstance(training, ModelledRun)
        else model_run(training, shape, measured_matmul_efficiency, utilization_user_set)
    )
    if modelled.run is None or modelled.inputs is None:
        return NotModelled(modelled.reason or NOT_MODELLED_SIMPLE)
    # plotted at 1, 2, 4, … 4,096 (PLOT_GPUS): only those counts are searched
    sweep = perf_training.scaling_sweep(modelled.inputs, counts=PLOT_GPUS)
    return _view(modelled.run, sweep, modelled.inputs)


def _view(
    run: perf_training.RunEstimate, sweep: perf_training.ScalingSweep, inp: Any
) -> ModelledView:
    formula = run.formula
    rows = [
        ("plan", run.plan_reason),
        ("peak", f"{units.format_plain(run.peak_tflops, 4)} TFLOP/s per GPU"),
        ("step", units.format_duration(run.step_seconds)),
        ("steps", units.format_count(run.steps)),
    ]
    mfu_source = (
        "your utilization (overrides the model)"
        if run.utilization_override
        else "modelled: model FLOPs / (step time × GPUs × peak)"
    )
    mfu = CardView(
        units.format_percent(run.mfu),
        f"HFU {units.format_percent(run.hfu)} · "
        + ("your utilization" if run.utilization_override else "modelled"),
        formula_tooltip(
            "Predicted MFU",
            "MFU = model FLOPs per step / (step time × GPUs × peak)",
            [("source", mfu_source), *rows],
        ),
    )
    step = CardView(
        units.format_duration(run.step_seconds),
        f"{units.format_count(run.steps)} steps",
        formula_tooltip("Step time", "step = compute + recompute + exposed comm + bubble", rows),
    )
    band = CardView(
        f"{units.format_count(run.gpu_hours_low)} … {units.format_count(run.gpu_hours_high)}",
        f"estimate {units.format_count(run.gpu_hours)} GPU-h · wall time "
        f"{units.format_duration(run.training_seconds)}",
        formula_tooltip(
            "GPU-hours band",
            "GPU-h = steps × step × production factor / goodput × GPUs; band = estimate ÷ "
            f"the out-of-sample predicted/published quantiles (see band)\n{formula}",
            [
                *rows,
                ("goodput", units.format_percent(run.goodput, 0)),
                ("production factor", f"× {units.format_plain(run.production_factor, 3)}"),
                ("estimate", f"{units.format_count(run.gpu_hours)} GPU-h"),
                ("band", run.range_meaning),
            ],
        ),
        unit="GPU-h",
    )
    labels = perf_training.breakdown_parts()
    total = run.breakdown.total or 1.0
    parts = []
    for key, seconds in run.breakdown.to_dict().items():
        if key not in labels or seconds <= 0:
            continue
        share = seconds / total
        parts.append(
            BreakdownPart(
                key,
                labels[key],
                seconds,
                share,
                f"{labels[key]} {units.format_duration(seconds)} "
                f"({units.format_percent(share, 0)})",
            )
        )
    plan_text, _, why = run.plan_reason.partition(" — ")
    return ModelledView(
        mfu=mfu,
        step=step,
        band=band,
        plan_text=plan_text,
        plan_reason=as_sentence(why) if why else "",
        plan_tooltip=formula_tooltip(
            "Parallel plan", f"best of {run.plans_tried:,} plans that fit memory", rows
        ),
        breakdown=tuple(parts),
        breakdown_tooltip=formula_tooltip(
            "Step-time breakdown",
            "step = compute + recompute + exposed TP/CP/EP/DP comm + pipeline sends + bubble",
            [(p.label, units.format_duration(p.seconds)) for p in parts],
        ),
        scaling=ScalingView(
            gpus=sweep.gpus,
            hours=sweep.training_hours,
            cost=sweep.cost_usd,
            mfu_pct=sweep.mfu * 100.0,
            current_gpus=int(inp.gpus),
            knee_gpus=sweep.knee_gpus,
            knee_text=as_sentence(sweep.knee_text),
        ),
        warnings=tuple(run.warnings),
    )
