"""The plan one window shows, without Qt: workload inputs and estimates, the price in use, the
measured accelerator, the demand for the Cost tab and the cost plan with its comparison.

:class:`PlanState` holds *valid* model inputs only (while a field is invalid the last valid
inputs stay) and tells listeners what changed, once per real change: results are compared by
value (:func:`same_value`), so recomputing the same estimate notifies nobody. ``ui.state.AppState``
is a thin Qt adapter that turns these notifications into signals; tests and the CLI can use a
``PlanState`` directly.

Events (name, payload):

- ``workload`` (None): training/memory/inference inputs or the preset changed.
- ``accelerator`` (str): the training accelerator id changed ("" for none).
- ``estimate`` / ``memory_estimate`` / ``inference_estimate``: the new result or None.
- ``custom_accelerator``: a :class:`CustomAccelerator` or None.
- ``runs_per_month`` (float).
- ``price`` (:class:`PriceChoice`): the price in use changed. It is set before the estimate that
  used it, so a listener of ``estimate`` reads the matching price.
- ``cost_inputs`` (``model.planning.CostInputs``) and ``cost_result`` (``CostComparison`` or None).
- ``status`` ((text, timeout_ms)): a line for the status bar.
- ``validity`` (tuple of str): why the workload's figures are not current (a field is invalid;
  the state keeps the last valid inputs and estimates), or ``()`` once they are current again.
- ``measured_busbw`` (float or None): the all-reduce bus bandwidth measured on the Hardware
  tab and chosen for the estimates (bytes/s).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from desktopapp.model.scenario import DEFAULT_RUNS_PER_MONTH, CostPlan
from desktopapp.model.validation import InputError

if TYPE_CHECKING:
    from desktopapp.model.inference import InferenceEstimate, InferenceInputs
    from desktopapp.model.memory import MemoryEstimate, MemoryInputs
    from desktopapp.model.planning import CostComparison, CostInputs
    from desktopapp.model.training import TrainingEstimate, TrainingInputs

Listener = Callable[[str, Any], None]


class Keep:
    """Marker for "leave this part of the workload as it is"."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = Keep()


@dataclass(frozen=True)
class CustomAccelerator:
    """An accelerator measured on this machine (Hardware tab), usable in estimates.

    ``peak_tflops`` maps precision → measured sustained TFLOP/s per device; ``utilization`` is
    a measured achieved fraction of peak if known. ``based_on`` is the catalog id of the same
    model (for memory and prices), when the device was recognised.
    """

    name: str
    peak_tflops: Mapping[str, float]
    memory_bytes: float | None = None
    based_on: str | None = None
    utilization: float | None = None
    source: str = "measured on this machine"

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise InputError("name", "give the measured accelerator a name")
        clean: dict[str, float] = {}
        for precision, value in self.peak_tflops.items():
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise InputError("peak_tflops", f"{precision} must be a positive number")
            clean[str(precision)] = float(value)
        if not clean:
            raise InputError("peak_tflops", "give at least one measured precision")
        object.__setattr__(self, "peak_tflops", MappingProxyType(clean))
        if self.utilization is not None and not 0 < self.utilization <= 1:
            raise InputError("utilization", "must be in (0, 1]")

    @property
    def precisions(self) -> tuple[str, ...]:
        return tuple(self.peak_tflops)


@dataclass(frozen=True)
class PriceChoice:
    """The price per GPU-hour in use and where it came from."""

    usd_per_gpu_hour: float | None
    source: str = ""
    from_catalog: bool = False
    offer_name: str = ""
    offer_date: str = ""


def same_value(a: object, b: object) -> bool:
    """Value equality that also works for results holding numpy arrays (NaN equals NaN)."""
    if a is b:
        return True
    if a is None or b is None or type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(
            same_value(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


class PlanState:
    """The planning state shared by the tabs of one window (no Qt; see the module docstring)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._training: TrainingInputs | None = None
        self._memory: MemoryInputs | None = None
        self._inference: InferenceInputs | None = None
        self._preset_id: str | None = None
        self._estimate: TrainingEstimate | None = None
        self._memory_estimate: MemoryEstimate | None = None
        self._inference_estimate: InferenceEstimate | None = None
        self._custom: CustomAccelerator | None = None
        self._runs_per_month = DEFAULT_RUNS_PER_MONTH
        self._price = PriceChoice(None)
        self._cost_inputs: CostInputs | None = None
        self._cost_result: CostComparison | None = None
        self._not_current: tuple[str, ...] = ()
        self._measured_busbw: float | None = None
        # the What to run on view's constraints and chosen option (model.advisor.AdvisorChoice)
        self.advisor_choice: Any = None

    # --- listeners --------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event, payload)`` on every change; returns the unsubscribe call."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _notify(self, event: str, payload: Any = None) -> None:
        for listener in list(self._listeners):
            listener(event, payload)

    # --- workload ---------------------------------------------------------------------------
    @property
    def training(self) -> TrainingInputs | None:
        return self._training

    @property
    def memory(self) -> MemoryInputs | None:
        return self._memory

    @property
    def inference(self) -> InferenceInputs | None:
        return self._inference

    @property
    def preset_id(self) -> str | None:
        return self._preset_id

    def set_workload(
        self,
        training: TrainingInputs | Keep | None = KEEP,
        memory: MemoryInputs | Keep | None = KEEP,
        inference: InferenceInputs | Keep | None = KEEP,
        preset_id: str | Keep | None = KEEP,
    ) -> bool:
        """Replace any part of the workload (``KEEP`` leaves a part alone). Notifies
        ``workload`` once if anything changed, then ``accelerator`` when the training
        accelerator differs. Returns whether anything changed."""
        old_acc = self.accelerator_id
        changed = False
        if not isinstance(training, Keep) and training != self._training:
            self._training, changed = training, True
        if not isinstance(memory, Keep) and memory != self._memory:
            self._memory, changed = memory, True
        if not isinstance(inference, Keep) and inference != self._inference:
            self._inference, changed = inference, True
        if not isinstance(preset_id, Keep) and preset_id != self._preset_id:
            self._preset_id, changed = preset_id, True
        if changed:
            self._notify("workload")
        if self.accelerator_id != old_acc:
            self._notify("accelerator", self.accelerator_id or "")
        return changed

    @property
    def accelerator_id(self) -> str | None:
        return None if self._training is None else self._training.accelerator

    @property
    def precision(self) -> str | None:
        return None if self._training is None else self._training.precision

    @property
    def devices(self) -> int | None:
        return None if self._training is None else self._training.gpus

    # --- price ------------------------------------------------------------------------------
    @property
    def price(self) -> PriceChoice:
        return self._price

    def set_price(self, price: PriceChoice) -> None:
        """Record the price in use (the Workload tab sets it before the estimate using it)."""
        if price != self._price:
            self._price = price
            self._notify("price", price)

    # --- results ----------------------------------------------------------------------------
    @property
    def estimate(self) -> TrainingEstimate | None:
        return self._estimate

    def set_estimate(self, estimate: TrainingEstimate | None) -> bool:
        """Store the training estimate; notifies (and returns True) only when its value
        changed, so recomputing the same figures does not make the Cost tab recompute."""
        if same_value(estimate, self._estimate):
            return False
        self._estimate = estimate
        self._notify("estimate", estimate)
        return True

    @property
    def memory_estimate(self) -> MemoryEstimate | None:
        return self._memory_estimate

    def set_memory_estimate(self, estimate: MemoryEstimate | None) -> bool:
        if same_value(estimate, self._memory_estimate):
            return False
        self._memory_estimate = estimate
        self._notify("memory_estimate", estimate)
        return True

    @property
    def inference_estimate(self) -> InferenceEstimate | None:
        return self._inference_estimate

    def set_inference_estimate(self, estimate: InferenceEstimate | None) -> bool:
        if same_value(estimate, self._inference_estimate):
            return False
        self._inference_estimate = estimate
        self._notify("inference_estimate", estimate)
        return True

    # --- demand for the Cost tab ------------------------------------------------------------
    @property
    def runs_per_month(self) -> float:
        """How many times a month the training run is repeated (for GPU-hours per month)."""
        return self._runs_per_month

    def set_runs_per_month(self, runs: float) -> None:
        if not (isinstance(runs, int | float) and math.isfinite(runs) and runs >= 0):
            raise InputError("runs_per_month", f"must be 0 or more, got {runs!r}")
        if float(runs) != self._runs_per_month:
            self._runs_per_month = float(runs)
            self._notify("runs_per_month", self._runs_per_month)

    @property
    def gpu_hours_per_month(self) -> float | None:
        """GPU-hours of the current estimate × runs per month (None without an estimate)."""
        if self._estimate is None:
            return None
        return self._estimate.gpu_hours * self._runs_per_month

    # --- measured hardware ------------------------------------------------------------------
    @property
    def custom_accelerator(self) -> CustomAccelerator | None:
        return self._custom

    def set_custom_accelerator(self, custom: CustomAccelerator | None) -> None:
        if custom == self._custom:
            return
        self._custom = custom
        self._notify("custom_accelerator", custom)

    # --- the cost plan ----------------------------------------------------------------------
    @property
    def cost_inputs(self) -> CostInputs | None:
        return self._cost_inputs

    def set_cost_inputs(self, inputs: CostInputs) -> bool:
        """Replace the cost inputs; returns whether they changed."""
        if inputs == self._cost_inputs:
            return False
        self._cost_inputs = inputs
        self._notify("cost_inputs", inputs)
        return True

    @property
    def cost_result(self) -> CostComparison | None:
        return self._cost_result

    def set_cost_result(self, result: CostComparison | None) -> None:
        if result is self._cost_result:
            return
        self._cost_result = result
        self._notify("cost_result", result)

    def cost_plan(self, runs_per_month: float | None = None) -> CostPlan | None:
        """The cost section of a scenario file (None before the Cost tab set any inputs)."""
        if self._cost_inputs is None:
            return None
        hybrid = None
        if self._cost_result is not None and self._cost_result.hybrid_option is not None:
            hybrid = self._cost_result.hybrid_option.option.key
        runs = self._runs_per_month if runs_per_month is None else runs_per_month
        return self._cost_inputs.to_plan(hybrid, runs)

    # --- whether the figures are current -----------------------------------------------------
    @property
    def not_current(self) -> tuple[str, ...]:
        """Why the workload's figures are not current (each invalid field's message), or
        ``()``. While not empty the state holds the last valid inputs: other faces (Cost tab,
        Compare, export, save) say so or refuse, never show those figures silently."""
        return self._not_current

    @property
    def is_current(self) -> bool:
        return not self._not_current

    def set_not_current(self, reasons: tuple[str, ...] | list[str]) -> None:
        reasons = tuple(dict.fromkeys(r for r in reasons if r))
        if reasons == self._not_current:
            return
        self._not_current = reasons
        self._notify("validity", reasons)

    def not_current_text(self) -> str:
        """One line for a banner or a refusal: the first reason, and how many more."""
        if not self._not_current:
            return ""
        more = len(self._not_current) - 1
        extra = f" (and {more} more invalid field{'s' if more != 1 else ''})" if more else ""
        return f"The Workload tab has an invalid input: {self._not_current[0]}{extra}"

    # --- measured hardware ------------------------------------------------------------------
    @property
    def measured_busbw(self) -> float | None:
        """Measured all-reduce bus bandwidth in bytes/s chosen for the estimates, or None."""
        return self._measured_busbw

    def set_measured_busbw(self, value: float | None) -> None:
        """Set (bytes/s, > 0) or clear (None); notifies ``measured_busbw`` on a real change. A
        non-positive or non-finite value is refused with a ValueError naming the field."""
        if value is not None:
            value = float(value)
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"measured all-reduce bus bandwidth must be > 0 B/s, got {value}")
        if value == self._measured_busbw:
            return
        self._measured_busbw = value
        self._notify("measured_busbw", value)

    # --- status bar -------------------------------------------------------------------------
    def show_status(self, message: str, timeout_ms: int = 6000) -> None:
        self._notify("status", (message, timeout_ms))
