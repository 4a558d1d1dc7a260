"""One workload, one answer (issue 21): every face renders one immutable snapshot.

:class:`WorkloadRequest` holds all inputs of one workload (training, memory/shape, inference,
how it is served, the cost plan, which values the user gave). :func:`compute_snapshot` turns
it into a :class:`Snapshot`: the training headline (steady state × production factor ÷ goodput
= wall time; GPU-hours, cost and the likely range follow), the parallel plan, memory *for that
plan*, serving at the engine's operating point (and one request's latency as its own figure),
the typed rent/own/hybrid verdict, every refused input as a :class:`FieldError`, and
``current`` (False while some input is invalid: a view shows that state instead of stale
figures). :func:`snapshot_json` is the one JSON form (``report --json``, ``estimate … --json``).

How a view uses it (the Workload and Cost tabs, Compare, the report, the CLI):

1. build a :class:`WorkloadRequest` from the form (``user_given`` names the fields typed by the
   user, ``input_errors`` the fields that could not be read);
2. ``snap = compute_snapshot(request)`` (a few milliseconds; the GPU-count search when no
   count is given costs up to 17 modelled runs);
3. render ``snap.training`` / ``snap.memory`` / ``snap.serving`` / ``snap.verdict``; never call
   a model function for a figure the snapshot has. When ``snap.current`` is False, mark the
   panels stale and show ``snap.errors`` at their fields.

:func:`training_figures` is the training part alone (the "what to run on" ranking calls it per
option and gets the figures the snapshot would show).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from desktopapp.application.defaults import (
    DEADLINE_SOURCE,
    DEFAULT_DEADLINE_DAYS,
    FALLBACK_MFU_SHARE,
    GPU_CANDIDATES,
    MFU_TOLERANCE,
    ServingOptions,
    serving_inputs,
    single_request_inputs,
)
from desktopapp.application.training_view import (
    NOT_MODELLED_SIMPLE,
    ModelledRun,
    headline_estimate,
    measured_efficiency,
    model_run,
    shape_of,
)
from desktopapp.application.workload_compute import FieldError, MeasuredDevice
from desktopapp.model import perf_training, units
from desktopapp.model.inference import InferenceEstimate, InferenceInputs, estimate_inference
from desktopapp.model.memory import (
    MemoryEstimate,
    MemoryInputs,
    estimate_memory,
    expert_rank_params,
)
from desktopapp.model.sensitivity import (
    DEFAULT_STEP,
    Outcome,
    SensitivityResult,
    training_sensitivity,
    utilization_curve,
)
from desktopapp.model.training import (
    TrainingEstimate,
    TrainingInputs,
    TrainingSweep,
    estimate_training,
)
from desktopapp.model.training_defaults import fleet_outgrows_batch
from desktopapp.model.validation import error_field, user_message

if TYPE_CHECKING:
    # The cost and serving models: imported where a snapshot computes a cost or serves a
    # language model, not when the window starts.
    from desktopapp.model.planning import CostComparison, CostInputs, Verdict
    from desktopapp.model.serving import ServingEstimate

TRAINING, MEMORY, INFERENCE, SERVING, COST = "training", "memory", "inference", "serving", "cost"
SECONDS_PER_DAY = 86_400.0
SERVING_GPU_CANDIDATES = (2, 4, 8, 16, 32, 64)  # one node and a few (tensor/pipeline groups)
DEFAULT_RUNS_PER_MONTH = 1.0

__all__ = [
    "COST",
    "INFERENCE",
    "MEMORY",
    "SERVING",
    "TRAINING",
    "FieldError",
    "GpuChoice",
    "MeasuredDevice",
    "ServingOptions",
    "Snapshot",
    "TrainingFigures",
    "WorkloadRequest",
    "choose_gpus",
    "compute_snapshot",
    "plan_memory",
    "request_from_preset",
    "request_from_scenario",
    "snapshot_json",
    "training_figures",
]


# --- the request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkloadRequest:
    """All inputs of one workload.

    ``run_options``: the modelled run's options given for this request (shape, plan, global
    batch, stack, production factor: :data:`perf_training.RUN_OPTIONS`); they override the
    shape of ``memory``/the preset and the plan saved with ``training``; None values are
    ignored. ``user_given``: dotted names of the values the user typed ("training.gpus",
    "training.utilization", "inference.batch_size", …); a value not named there is a default.
    ``gpus_given`` False: choose the GPU count (:func:`choose_gpus`) within ``deadline_days``.
    ``cost``: the Cost tab's inputs (None: the defaults for the accelerator, demand from the
    training run). ``input_errors``: fields the form could not read (the snapshot is then not
    current)."""

    training: TrainingInputs | None = None
    memory: MemoryInputs | None = None
    inference: InferenceInputs | None = None
    serving: ServingOptions = field(default_factory=ServingOptions)
    run_options: tuple[tuple[str, Any], ...] = ()
    preset_id: str | None = None
    user_given: frozenset[str] = frozenset()
    utilization_user_set: bool | None = None  # None: set when training.utilization is given
    gpus_given: bool = True
    deadline_days: float | None = None
    measured_busbw: float | None = None
    measured: MeasuredDevice | None = None
    cost: CostInputs | None = None
    runs_per_month: float = DEFAULT_RUNS_PER_MONTH
    with_verdict: bool = True
    input_errors: tuple[FieldError, ...] = ()

    @staticmethod
    def options(values: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """``run_options`` from a mapping (None values dropped, a stable order)."""
        return tuple(sorted((k, v) for k, v in values.items() if v is not None))

    def given(self, name: str) -> bool:
        return name in self.user_given

    @property
    def utilization_is_user_set(self) -> bool:
        if self.utilization_user_set is not None:
            return self.utilization_user_set
        return self.training is not None and self.training.utilization is not None


# --- training --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuChoice:
    """The GPU count used: given, or assumed by ``rule`` (words)."""

    gpus: int
    assumed: bool
    rule: str
    deadline_days: float | None = None
    deadline_source: str = ""  # where a default deadline comes from ("" when given)


@dataclass(frozen=True)
class TrainingFigures:
    """The training headline. ``estimate`` is the headline estimate (the modelled run's figures
    when the model predicts the efficiency, else the flat ``C / (peak × U × devices)``);
    ``modelled`` the modelled run (its ``run`` None with a reason when not modelled). The chain
    ``steady_seconds × production_factor ÷ goodput = wall_seconds`` holds."""

    inputs: TrainingInputs
    estimate: TrainingEstimate
    modelled: ModelledRun
    gpus: GpuChoice
    steady_seconds: float
    production_factor: float
    goodput: float
    wall_seconds: float
    gpu_hours: float
    cost_usd: float | None
    gpu_hours_low: float | None
    gpu_hours_high: float | None
    cost_low_usd: float | None
    cost_high_usd: float | None
    mfu: float
    warnings: tuple[str, ...] = ()
    production_factor_source: str = ""  # fitted, given, or where the given factor came from

    @property
    def run(self) -> perf_training.RunEstimate | None:
        return self.modelled.run

    @property
    def plan(self) -> perf_training.Plan | None:
        return None if self.modelled.run is None else self.modelled.run.plan

    @property
    def plan_text(self) -> str:
        return "" if self.modelled.run is None else self.modelled.run.plan_reason

    @property
    def model(self) -> str:
        if self.modelled.run is None:
            return "simple: C / (peak × utilization × devices)"
        return "modelled run" + (
            " at your utilization" if self.modelled.run.utilization_override else ""
        )

    @property
    def wall_days(self) -> float:
        return self.wall_seconds / SECONDS_PER_DAY

    @property
    def steady_days(self) -> float:
        return self.steady_seconds / SECONDS_PER_DAY

    @property
    def chain(self) -> str:
        """ "steady 9.1 days × production 1.12 ÷ goodput 90% = wall 11.3 days; … GPU-h; $…"."""
        cost = "" if self.cost_usd is None else f"; cost {units.format_money(self.cost_usd)}"
        return (
            f"steady state {units.format_duration(self.steady_seconds)} × production factor "
            f"{self.production_factor:.3g} ÷ goodput {units.format_percent(self.goodput, 0)} = "
            f"wall time {units.format_duration(self.wall_seconds)} on "
            f"{units.plural(self.gpus.gpus, 'GPU')}; "
            f"{units.format_count(self.gpu_hours).replace(' ', '')} GPU-h{cost}"
        )


def _clean(options: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (options or {}).items() if v is not None}


def _figures(
    training: TrainingInputs,
    options: Mapping[str, Any],
    efficiency: float | None,
    utilization_user_set: bool,
    choice: GpuChoice,
) -> TrainingFigures:
    base = estimate_training(training)
    modelled = model_run(training, options, efficiency, utilization_user_set)
    if modelled.field is not None:
        raise _Refused(modelled.field, modelled.message)
    run = modelled.run
    warnings: list[str] = []
    if run is None:
        est = base
        goodput = 1.0 / (1.0 + training.wall_overhead)
        return TrainingFigures(
            inputs=training,
            estimate=est,
            modelled=modelled,
            gpus=choice,
            steady_seconds=est.compute_seconds,
            production_factor=1.0,
            goodput=goodput,
            wall_seconds=est.training_seconds,
            gpu_hours=est.gpu_hours,
            cost_usd=est.estimated_cost_usd,
            gpu_hours_low=None,
            gpu_hours_high=None,
            cost_low_usd=None,
            cost_high_usd=None,
            mfu=est.utilization,
            production_factor_source="1: not modelled (C / (peak × utilization × devices))",
            warnings=(modelled.reason,) if modelled.reason else (),
        )
    est = headline_estimate(base, modelled)
    if not modelled.sets_headline:
        # the flat rule stands (the user set the utilization); the band scales with its hours
        scale = est.gpu_hours / run.gpu_hours if run.gpu_hours > 0 else 1.0
        low, high = run.gpu_hours_low * scale, run.gpu_hours_high * scale
        wall = est.training_seconds
        steady = wall * run.goodput / run.production_factor
    else:
        low, high = run.gpu_hours_low, run.gpu_hours_high
        wall = run.training_seconds
        steady = run.steps * run.step_seconds
    assert modelled.inputs is not None
    if modelled.inputs.global_batch_tokens is None:
        outgrown = fleet_outgrows_batch(modelled.inputs.params, modelled.inputs.gpus)
        if outgrown:
            warnings.append(outgrown)
    warnings.extend(run.warnings)
    price = training.price
    return TrainingFigures(
        inputs=training,
        estimate=est,
        modelled=modelled,
        gpus=choice,
        steady_seconds=steady,
        production_factor=run.production_factor,
        goodput=run.goodput,
        wall_seconds=wall,
        gpu_hours=est.gpu_hours,
        cost_usd=est.estimated_cost_usd,
        gpu_hours_low=low,
        gpu_hours_high=high,
        cost_low_usd=None if price is None else low * price,
        cost_high_usd=None if price is None else high * price,
        mfu=run.mfu if modelled.sets_headline else est.utilization,
        warnings=tuple(warnings),
        production_factor_source=run.production_factor_source,
    )


class _Refused(ValueError):
    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


def choose_gpus(
    training: TrainingInputs,
    options: Mapping[str, Any] | None = None,
    *,
    deadline_days: float | None = None,
    measured_matmul_efficiency: float | None = None,
    utilization_user_set: bool = False,
) -> GpuChoice:
    """The GPU count for a question that gives none (rule: :mod:`.defaults`)."""
    deadline = DEFAULT_DEADLINE_DAYS if deadline_days is None else float(deadline_days)
    limit = deadline * SECONDS_PER_DAY
    source = "your deadline" if deadline_days is not None else "the default deadline"
    origin = "" if deadline_days is not None else DEADLINE_SOURCE
    opts = _clean(options)
    rows: list[tuple[int, float, float]] = []  # gpus, wall seconds, mfu
    refusals: set[tuple[str, str]] = set()  # inputs refused before any plan was tried
    for n in GPU_CANDIDATES:
        trial = replace(training, gpus=n)
        modelled = model_run(trial, opts, measured_matmul_efficiency, utilization_user_set)
        if modelled.run is not None and modelled.inputs is not None:
            run = modelled.run
            rows.append((n, run.training_seconds, run.mfu))
        elif modelled.reason == NOT_MODELLED_SIMPLE:
            # the simple rule (no catalog accelerator or the forward rule): linear in devices
            est = estimate_training(trial)
            rows.append((n, est.training_seconds, est.utilization))
        elif modelled.inputs is None and modelled.field is not None:
            refusals.add((modelled.field, modelled.message))
    days = f"{deadline:g} days ({source})"
    if not rows and len(refusals) == 1:
        # the same input refused at every fleet size (a partial shape, say): that input is
        # the cause, not the memory
        field_name, message = refusals.pop()
        raise _Refused(field_name, message)
    if not rows:
        raise _Refused(
            "params",
            f"no fleet of up to {GPU_CANDIDATES[-1]:,} GPUs has a parallel plan that fits this "
            "model in memory; give --gpus to see what one plan needs",
        )
    meets = [r for r in rows if r[1] <= limit]
    if meets:
        best = max(r[2] for r in meets)
        n = min(r[0] for r in meets if r[2] >= best * (1.0 - MFU_TOLERANCE))
        rule = (
            f"{n:,} GPUs assumed: the smallest fleet (powers of two) whose plan fits memory, "
            f"finishes within {days} and keeps MFU within {MFU_TOLERANCE:.0%} of the best such "
            "fleet; give --gpus to set it"
        )
        return GpuChoice(n, True, rule.replace("1 GPUs assumed", "1 GPU assumed"), deadline, origin)
    best = max(r[2] for r in rows)
    pool = [r for r in rows if r[2] >= best * FALLBACK_MFU_SHARE] or rows
    n = min(pool, key=lambda r: (r[1], r[0]))[0]
    rule = (
        f"{n:,} GPUs assumed: no fleet up to {GPU_CANDIDATES[-1]:,} GPUs finishes within "
        f"{days}; the fastest fleet whose MFU stays within {1 - FALLBACK_MFU_SHARE:.0%} of the "
        "best; give --gpus or --deadline-days to set it"
    )
    return GpuChoice(n, True, rule, deadline, origin)


def training_figures(
    training: TrainingInputs,
    options: Mapping[str, Any] | None = None,
    *,
    utilization_user_set: bool | None = None,
    measured_matmul_efficiency: float | None = None,
    gpus_given: bool = True,
    deadline_days: float | None = None,
) -> TrainingFigures:
    """The training figures of one run, exactly as the snapshot shows them. ``options``: run
    options (shape, plan, batch; None values ignored). Raises ``ValueError`` naming the field
    for inputs the models refuse (a plan that does not fit, a size beyond the interconnect)."""
    user_util = (
        training.utilization is not None
        if utilization_user_set is None
        else bool(utilization_user_set)
    )
    opts = _clean(options)
    if gpus_given:
        choice = GpuChoice(training.gpus, False, "given")
    else:
        choice = choose_gpus(
            training,
            opts,
            deadline_days=deadline_days,
            measured_matmul_efficiency=measured_matmul_efficiency,
            utilization_user_set=user_util,
        )
        training = replace(training, gpus=choice.gpus)
    return _figures(training, opts, measured_matmul_efficiency, user_util, choice)


def headline_outcome(figures: TrainingFigures) -> Outcome:
    """The headline as the sensitivity model reads it: wall time, cost, MFU and peak."""
    run = figures.run
    modelled = figures.modelled.sets_headline and run is not None
    peak = run.peak_tflops if modelled and run is not None else figures.estimate.peak_tflops
    return Outcome(
        figures.wall_seconds / units.SECONDS_PER_HOUR, figures.cost_usd, figures.mfu, peak
    )


def headline_sensitivity(
    snapshot: Snapshot, step: float = DEFAULT_STEP
) -> SensitivityResult | None:
    """The tornado of one snapshot: each input moved by ±step through :func:`training_figures`
    with the snapshot's own run options (shape, plan, batch, measured device), so the base is
    the headline (the modelled run where it sets the headline). None without training."""
    figures = snapshot.training
    if figures is None:
        return None
    request = snapshot.request
    options = _run_options(request)
    efficiency = _efficiency(request)
    user_util = request.utilization_is_user_set

    def evaluate(inputs: TrainingInputs) -> Outcome:
        if inputs is figures.inputs:
            return headline_outcome(figures)
        moved = training_figures(
            inputs,
            options,
            utilization_user_set=user_util,
            measured_matmul_efficiency=efficiency,
        )
        return headline_outcome(moved)

    return training_sensitivity(figures.inputs, step, evaluate)


def headline_utilization_curve(figures: TrainingFigures, utilizations: Any) -> TrainingSweep:
    """Wall time, GPU-hours and cost against the MFU for the headline's run (time ∝ 1 / MFU):
    the curve passes through the headline at its MFU, modelled or flat."""
    return utilization_curve(headline_outcome(figures), figures.gpus.gpus, utilizations)


# --- memory for the plan ---------------------------------------------------------------------


def plan_memory(
    figures: TrainingFigures, memory: MemoryInputs | None = None
) -> MemoryEstimate | None:
    """Memory per GPU for the modelled run's plan: its ZeRO stage, micro-batch, recompute and
    TP/PP/CP sharding (None when the run was not modelled)."""
    run = figures.modelled.run
    inp = figures.modelled.inputs
    if run is None or inp is None:
        return None
    plan = run.plan
    if inp.has_shape:
        layers, hidden, heads = inp.layers, inp.hidden, inp.heads
    else:
        layers, hidden, heads = perf_training.assumed_shape(inp.active_params or inp.params)
    assert layers is not None and hidden is not None and heads is not None
    seq = inp.seq_len or perf_training.DEFAULT_SEQ_LEN
    values: dict[str, Any] = {
        "params": expert_rank_params(
            inp.params, inp.active_params or inp.params, plan.expert_parallel
        ),
        "mode": "train",
        "optimizer": memory.optimizer if memory is not None else "adamw",
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": inp.kv_heads,
        "seq_len": seq,
        "batch_size": plan.micro_batch,
        "checkpointing": plan.recompute >= 1.0,
        "recompute": plan.recompute,
        "flash_attention": True,
        "zero_stage": plan.zero_stage,
        "tp": plan.tp,
        "pp": plan.pp,
        "cp": plan.cp,
        "virtual_stages": plan.virtual_stages,
        "gpus": plan.dp * plan.tp * plan.pp * plan.cp,
        "accelerator": inp.accelerator,
        # gradients persist across the step's micro-batches (accumulation, pipelining)
        "micro_batches": max(1, round(plan.micro_batches)),
        "vocab": inp.vocab,
        "mlp": inp.mlp or perf_training.DEFAULT_MLP,
        "ffn_hidden": inp.ffn_hidden,
    }
    if memory is not None:
        values["overhead_gib"] = memory.overhead_gib
        if memory.memory_gb is not None:
            values["memory_gb"] = memory.memory_gb
    return estimate_memory(MemoryInputs(**values))


# --- the snapshot ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything one workload's inputs give (None: not computable, see ``errors``)."""

    request: WorkloadRequest
    training: TrainingFigures | None
    memory: MemoryEstimate | None
    memory_for_plan: bool  # the memory is the training plan's (else the Memory inputs')
    inference: InferenceEstimate | None  # the roofline (non-language models; fallbacks)
    serving: ServingEstimate | None  # the engine's operating point (language models)
    single_request: ServingEstimate | None  # one request on an idle engine
    cost: CostComparison | None
    verdict: Verdict | None
    errors: tuple[FieldError, ...]
    current: bool

    @property
    def training_estimate(self) -> TrainingEstimate | None:
        return None if self.training is None else self.training.estimate


def _attempt(section: str, errors: list[FieldError], fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except _Refused as exc:
        errors.append(FieldError(section, exc.field, exc.message))
    except ValueError as exc:
        errors.append(FieldError(section, error_field(exc), user_message(exc)))
    return None


def _run_options(request: WorkloadRequest) -> dict[str, Any]:
    preset = None
    if request.preset_id is not None:
        from desktopapp.model.presets import get_preset

        try:
            preset = get_preset(request.preset_id)
        except ValueError:
            preset = None
    shape = shape_of(request.memory, preset)
    given = _clean(dict(request.run_options))
    if any(given.get(n) is not None for n in ("layers", "hidden", "heads")):
        shape = {}  # a given shape replaces the Memory section's (a partial one is refused)
    options = {**shape, **given}
    if request.measured_busbw is not None:
        options["measured_busbw"] = request.measured_busbw
    return options


def _efficiency(request: WorkloadRequest) -> float | None:
    if request.measured is None or request.training is None:
        return None
    return measured_efficiency(
        request.measured.peak_tflops,
        request.measured.based_on,
        request.training.resolved_precision,
    )


def _serving(
    request: WorkloadRequest, errors: list[FieldError]
) -> tuple[InferenceEstimate | None, ServingEstimate | None, ServingEstimate | None]:
    inference = request.inference
    if inference is None:
        return None, None, None
    roofline = _attempt(INFERENCE, errors, estimate_inference, inference)
    if roofline is None or not inference.is_language_model:
        return roofline, None, None
    from desktopapp.model.serving import estimate_serving

    inputs = _attempt(SERVING, errors, serving_inputs, inference, request.serving)
    served = None if inputs is None else _attempt(SERVING, [], estimate_serving, inputs)
    if inputs is not None and served is None and not request.given("inference.gpus"):
        # the model does not fit one device: the smallest tensor-parallel group that holds it
        for gpus in SERVING_GPU_CANDIDATES:
            if gpus <= inputs.gpus or gpus % inputs.pp:
                continue
            served = _attempt(SERVING, [], estimate_serving, replace(inputs, gpus=gpus))
            if served is not None:
                note = (
                    f"{gpus:,} GPUs per replica assumed: the fewest (powers of two) whose memory "
                    "holds the weights and the KV cache; give --gpus to set it"
                )
                served = replace(served, notes=(note, *served.notes))
                break
    if inputs is not None and served is None:
        _attempt(SERVING, errors, estimate_serving, inputs)  # the refusal, as it is
    if served is None:  # e.g. no room for the KV cache: refused, never another model's figure
        return roofline, None, None
    single = _attempt(SERVING, [], estimate_serving, single_request_inputs(served.inputs))
    return roofline, served, single


def _cost(
    request: WorkloadRequest, training: TrainingFigures | None, errors: list[FieldError]
) -> CostComparison | None:
    if not request.with_verdict:
        return None
    inputs = request.cost
    if inputs is None:
        if training is None:
            return None
        from desktopapp.application.cost_plan import cost_inputs_from_plan
        from desktopapp.model.scenario import CostPlan

        inputs = _attempt(COST, errors, cost_inputs_from_plan, CostPlan(), training.inputs)
        if inputs is None:
            return None
    from desktopapp.model.planning import compare

    run_hours = None if training is None else training.gpu_hours
    result: CostComparison | None = _attempt(
        COST, errors, compare, inputs, run_hours, request.runs_per_month
    )
    return result


def compute_snapshot(request: WorkloadRequest) -> Snapshot:
    """Every figure of one workload, computed once (see the module docstring)."""
    errors: list[FieldError] = list(request.input_errors)
    figures: TrainingFigures | None = None
    if request.training is not None:
        figures = _attempt(
            TRAINING,
            errors,
            training_figures,
            request.training,
            _run_options(request),
            utilization_user_set=request.utilization_is_user_set,
            measured_matmul_efficiency=_efficiency(request),
            gpus_given=request.gpus_given,
            deadline_days=request.deadline_days,
        )
    memory: MemoryEstimate | None = None
    for_plan = False
    if figures is not None and figures.modelled.run is not None:
        memory = _attempt(MEMORY, errors, plan_memory, figures, request.memory)
        for_plan = memory is not None
    if memory is None and request.memory is not None:
        memory = _attempt(MEMORY, errors, estimate_memory, request.memory)
    roofline, served, single = _serving(request, errors)
    cost = _cost(request, figures, errors)
    verdict = None if cost is None else cost.verdict
    return Snapshot(
        request=request,
        training=figures,
        memory=memory,
        memory_for_plan=for_plan,
        inference=roofline,
        serving=served,
        single_request=single,
        cost=cost,
        verdict=verdict,
        errors=tuple(errors),
        current=not errors,
    )


# --- JSON ------------------------------------------------------------------------------------


def training_json(t: TrainingFigures) -> dict[str, Any]:
    est = t.estimate
    run = t.modelled.run
    plan = None
    if run is not None:
        plan = {**run.plan.to_dict(), "text": run.plan_reason, "plans_tried": run.plans_tried}
    return {
        "model": t.model,
        "method": est.method,
        "total_flops": est.total_flops,
        "gpus": t.gpus.gpus,
        "gpus_assumed": t.gpus.assumed,
        "gpus_rule": t.gpus.rule,
        "deadline_days": t.gpus.deadline_days,
        "deadline_source": t.gpus.deadline_source,
        "accelerator": est.inputs.accelerator,
        "accelerator_name": est.accelerator_name,
        "peak_tflops": est.peak_tflops,
        "mfu": t.mfu,
        "utilization_source": est.utilization_source,
        "steady_seconds": t.steady_seconds,
        "steady_days": t.steady_days,
        "production_factor": t.production_factor,
        "production_factor_source": t.production_factor_source,
        "goodput": t.goodput,
        "wall_seconds": t.wall_seconds,
        "wall_days": t.wall_days,
        "gpu_hours": t.gpu_hours,
        "gpu_hours_low": t.gpu_hours_low,
        "gpu_hours_high": t.gpu_hours_high,
        "price_per_gpu_hour": est.price_per_gpu_hour,
        "price_source": est.price_source,
        "cost_usd": t.cost_usd,
        "cost_low_usd": t.cost_low_usd,
        "cost_high_usd": t.cost_high_usd,
        "range_meaning": None if run is None else run.range_meaning,
        "step_seconds": None if run is None else run.step_seconds,
        "plan": plan,
        "chain": t.chain,
        "warnings": list(t.warnings),
        "not_modelled": "" if run is not None else t.modelled.reason,
    }


def memory_json(m: MemoryEstimate, for_plan: bool) -> dict[str, Any]:
    return {
        "for_plan": for_plan,
        "per_device_bytes": m.per_device_bytes,
        "per_device_gib": m.per_device_bytes / units.GIB,
        "weights_bytes": m.per_device_weights_bytes,
        "gradients_bytes": m.per_device_gradients_bytes,
        "optimizer_bytes": m.per_device_optimizer_bytes,
        "activations_bytes": m.per_device_activations_bytes,
        "kv_cache_bytes": m.per_device_kv_cache_bytes,
        "overhead_bytes": m.overhead_bytes,
        "device_memory_bytes": m.device_memory_bytes,
        "fits": m.fits,
        "zero_stage": m.inputs.zero_stage,
        "micro_batch": m.inputs.batch_size,
        "inputs": m.inputs.to_dict(),
    }


def serving_json(
    s: ServingEstimate | None, single: ServingEstimate | None, roofline: InferenceEstimate | None
) -> dict[str, Any]:
    if s is None:
        if roofline is None:
            return {}
        return {
            "model": "roofline",
            "unit": roofline.unit,
            "throughput_per_second": roofline.throughput_per_second,
            "tokens_per_second": roofline.throughput_per_second
            if roofline.unit == "token"
            else None,
            "latency_seconds": roofline.latency_seconds,
            "cost_per_million": roofline.cost_per_million,
            "batch_size": roofline.inputs.batch_size,
            "architecture": roofline.inputs.architecture,
            "sequences_per_second": roofline.sequences_per_second,
            "input_tokens_per_second": roofline.input_tokens_per_second,
        }
    return {
        "model": "serving engine",
        "batching": s.batching,
        "concurrency": s.concurrency,
        "max_concurrency": s.max_concurrency,
        "concurrency_reason": s.concurrency_reason,
        "tokens_per_second": s.tokens_per_second,
        "tokens_per_second_per_gpu": s.tokens_per_second_per_gpu,
        "ttft_seconds": s.ttft_seconds,
        "tpot_seconds": s.tpot_seconds,
        "latency_seconds": s.latency_seconds,
        "requests_per_second": s.requests_per_second,
        "cost_per_million_tokens": s.cost_per_million_tokens,
        "price_per_gpu_hour": s.price_per_gpu_hour,
        "slo_met": s.slo_met,
        "gpus": s.total_gpus,
        "single_request_latency_seconds": None if single is None else single.latency_seconds,
        "single_request_ttft_seconds": None if single is None else single.ttft_seconds,
    }


def verdict_json(v: Verdict | None) -> dict[str, Any] | None:
    if v is None:
        return None
    from desktopapp.application.verdict import verdict_text

    def plan(p: Any) -> dict[str, Any]:
        return {
            "choice": p.choice,
            "cost_usd": p.cost_usd,
            "owned_gpus": p.owned_gpus,
            "label": p.label,
        }

    return {
        "choice": v.choice,
        "horizon_months": v.horizon_months,
        "best": plan(v.best),
        "others": [plan(p) for p in v.others],
        "text": verdict_text(v),
    }


def snapshot_json(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot as plain JSON types (``report --json``)."""
    req = snapshot.request
    doc: dict[str, Any] = {
        "current": snapshot.current,
        "preset": req.preset_id,
        "errors": [
            {"section": e.section, "field": e.field, "message": e.message} for e in snapshot.errors
        ],
        "training": None if snapshot.training is None else training_json(snapshot.training),
        "memory": None
        if snapshot.memory is None
        else memory_json(snapshot.memory, snapshot.memory_for_plan),
        "serving": serving_json(snapshot.serving, snapshot.single_request, snapshot.inference)
        or None,
        "verdict": verdict_json(snapshot.verdict),
    }
    if snapshot.cost is not None and snapshot.cost.demand is not None:
        doc["demand"] = {
            "gpu_hours_per_month": snapshot.cost.demand.gpu_hours_per_month,
            "rule": snapshot.cost.demand.rule,
        }
    return doc


# --- requests from a scenario or a preset ----------------------------------------------------


def request_from_scenario(scenario: Any, *, with_verdict: bool = True) -> WorkloadRequest:
    """The request for a saved scenario (``model.scenario.Scenario``): its sections, its cost
    plan (demand, compared prices, owning inputs) and runs per month. A saved batch size other
    than 1 (the default) counts as the user's concurrency."""
    from desktopapp.application.cost_plan import cost_inputs_from_plan

    cost: CostInputs | None = None
    if with_verdict:
        try:
            cost = cost_inputs_from_plan(scenario.cost, scenario.training)
        except ValueError:
            cost = None
    inference = scenario.inference
    given = set()
    if inference is not None and inference.batch_size != 1:
        given.add("inference.batch_size")
    return WorkloadRequest(
        training=scenario.training,
        memory=scenario.memory,
        inference=inference,
        serving=ServingOptions(batch_size_given=bool(given)),
        user_given=frozenset(given),
        cost=cost,
        runs_per_month=scenario.cost.demand.runs_per_month,
        with_verdict=with_verdict,
    )


def request_from_preset(
    preset_id: str, pricing: str = "on_demand", *, with_verdict: bool = True
) -> WorkloadRequest:
    """The request for a workload preset: its training, memory and inference inputs (priced
    from the catalog under ``pricing``), as the Workload tab and ``--preset`` start."""
    from desktopapp.model.inference import with_catalog_price as inference_price
    from desktopapp.model.presets import get_preset
    from desktopapp.model.training import with_catalog_price

    preset = get_preset(preset_id)
    training = None
    if preset.has_training_estimate:
        training = with_catalog_price(preset.to_training_inputs(), pricing)
    memory = preset.to_memory_inputs() if preset.has_memory_estimate else None
    inference = None
    if preset.params is not None and preset.accelerator is not None:
        base = preset.inference_fields()
        try:
            inference = inference_price(InferenceInputs(**base), pricing)
        except ValueError:
            inference = None
    return WorkloadRequest(
        training=training,
        memory=memory,
        inference=inference,
        preset_id=preset.id,
        with_verdict=with_verdict,
    )


def scenario_from_preset(preset_id: str, pricing: str = "on_demand") -> Any:
    """A scenario (``model.scenario.Scenario``) holding a preset's inputs, as the Workload tab
    starts from it; its report and snapshot are those of :func:`request_from_preset`."""
    from desktopapp.model.presets import get_preset
    from desktopapp.model.scenario import Scenario

    request = request_from_preset(preset_id, pricing, with_verdict=False)
    return Scenario(
        name=get_preset(preset_id).name,
        training=request.training,
        memory=request.memory,
        inference=request.inference,
    )
