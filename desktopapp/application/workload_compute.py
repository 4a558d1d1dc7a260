"""One recompute of the Workload tab, without Qt: the inputs the form read in, the estimates
out, and every refused input named by section and field (issue 12: views never compute).

:func:`compute_workload` runs the training, memory and inference models, the modelled training
run (plan, communication, efficiency; :mod:`desktopapp.application.training_view`) and puts
the modelled figures into the training estimate unless the user set the utilization. The tab
maps each :class:`FieldError` to its widget and renders the results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from desktopapp.application.plan import KEEP, Keep, PriceChoice
from desktopapp.application.training_view import (
    ModelledRun,
    headline_estimate,
    measured_efficiency,
    model_run,
    shape_of,
)
from desktopapp.model.inference import InferenceEstimate, InferenceInputs, estimate_inference
from desktopapp.model.memory import MemoryEstimate, MemoryInputs, estimate_memory
from desktopapp.model.training import TrainingEstimate, TrainingInputs, estimate_training
from desktopapp.model.validation import error_field, user_message

T = TypeVar("T")
R = TypeVar("R")

TRAINING, MEMORY, INFERENCE = "training", "memory", "inference"


@dataclass(frozen=True)
class FieldError:
    """An input a model refused: its section, its field (``""``: none named) and the message
    in the user's words."""

    section: str
    field: str
    message: str


@dataclass(frozen=True)
class MeasuredDevice:
    """The Hardware tab's measured accelerator, as the modelled run needs it."""

    peak_tflops: Mapping[str, float]
    based_on: str | None


@dataclass(frozen=True)
class WorkloadComputation:
    """One recompute's estimates (training, memory, serving, modelled run) and field errors."""

    training: TrainingEstimate | None  # the headline: modelled when the model predicts it
    memory: MemoryEstimate | None
    inference: InferenceEstimate | None
    modelled: ModelledRun | None  # None without a valid training estimate
    errors: tuple[FieldError, ...]


def _run(
    section: str, fn: Callable[[T], R], inputs: T | None, errors: list[FieldError]
) -> R | None:
    if inputs is None:
        return None
    try:
        return fn(inputs)
    except ValueError as exc:
        errors.append(FieldError(section, error_field(exc), user_message(exc)))
        return None


def compute_workload(
    training: TrainingInputs | None,
    memory: MemoryInputs | None,
    inference: InferenceInputs | None,
    *,
    preset: Any = None,
    measured_busbw: float | None = None,
    measured: MeasuredDevice | None = None,
    utilization_user_set: bool = False,
) -> WorkloadComputation:
    """Every estimate of the tab for one set of inputs. ``preset``: the preset whose shape the
    run uses when the Shape fields are empty; ``measured_busbw``: the Collectives page's bus
    bandwidth (bytes/s) for the estimates; ``measured``: the measured accelerator selected."""
    errors: list[FieldError] = []
    t_est = _run(TRAINING, estimate_training, training, errors)
    modelled = None
    if training is not None and t_est is not None:
        shape = shape_of(memory, preset)
        if measured_busbw is not None:
            shape = {**shape, "measured_busbw": measured_busbw}
        efficiency = (
            None
            if measured is None
            else measured_efficiency(
                measured.peak_tflops, measured.based_on, training.resolved_precision
            )
        )
        modelled = model_run(training, shape, efficiency, utilization_user_set)
        if modelled.field is not None:  # a plan or size the model refused
            errors.append(FieldError(TRAINING, modelled.field, modelled.message))
        t_est = headline_estimate(t_est, modelled)  # the modelled run, as the CLI prints it
    m_est = _run(MEMORY, estimate_memory, memory, errors)
    i_est = _run(INFERENCE, estimate_inference, inference, errors)
    return WorkloadComputation(t_est, m_est, i_est, modelled, tuple(errors))


class WorkloadSink(Protocol):
    """Where the tab publishes (``application.plan.PlanState``, or ``ui.state.AppState``, its
    Qt signal adapter)."""

    def set_workload(
        self,
        training: TrainingInputs | Keep | None = ...,
        memory: MemoryInputs | Keep | None = ...,
        inference: InferenceInputs | Keep | None = ...,
        preset_id: str | Keep | None = ...,
    ) -> Any: ...

    def set_price(self, price: PriceChoice) -> Any: ...

    def set_estimate(self, estimate: TrainingEstimate | None) -> Any: ...

    def set_memory_estimate(self, estimate: MemoryEstimate | None) -> Any: ...

    def set_inference_estimate(self, estimate: InferenceEstimate | None) -> Any: ...


def _keep_if(invalid: bool, value: T | None) -> T | Keep | None:
    """``KEEP`` (leave the state's last valid value) for a part missing because of an error."""
    return KEEP if value is None and invalid else value


def publish_workload(
    state: WorkloadSink,
    inputs: tuple[TrainingInputs | None, MemoryInputs | None, InferenceInputs | None],
    done: WorkloadComputation,
    *,
    invalid: bool,
    preset_id: str | None,
    price: PriceChoice | None,
) -> None:
    """Write one recompute to the shared state. While some input is invalid the state keeps
    the last valid inputs and estimates (other tabs keep showing them); a part that does not
    apply (a preset without a FLOP rule, no parameter count) is cleared. ``price``: the
    training price and where it came from (None: leave the state's)."""
    training, memory, inference = inputs
    state.set_workload(
        training=_keep_if(invalid, training),
        memory=_keep_if(invalid, memory),
        inference=_keep_if(invalid, inference),
        preset_id=preset_id,
    )
    if price is not None and not (invalid and training is None):
        state.set_price(price)
    if done.training is not None or not invalid:
        state.set_estimate(done.training)
    if done.memory is not None or not invalid:
        state.set_memory_estimate(done.memory)
    if done.inference is not None or not invalid:
        state.set_inference_estimate(done.inference)
