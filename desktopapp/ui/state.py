"""Qt adapter over the window's plan (:class:`desktopapp.application.plan.PlanState`).

The plan itself, with its rules (valid inputs only, notify only on a real change), lives in the
Qt-free application layer; :class:`AppState` forwards reads and writes to it and re-emits its
notifications as Qt signals on the GUI thread, for the tabs' widgets. :class:`CostState` is the
same adapter for the cost part of the plan (``AppState.cost``).

Signals (emitted only when something actually changed):

- ``workload_changed()``: training/memory/inference inputs or the preset changed.
- ``accelerator_changed(str)``: the chosen accelerator id changed.
- ``estimate_changed(object)``: new ``TrainingEstimate`` (or ``None`` when not computable); a
  recompute giving the same figures emits nothing.
- ``memory_estimate_changed(object)``, ``inference_estimate_changed(object)``.
- ``custom_accelerator_changed(object)``: a ``CustomAccelerator`` was set or cleared (``None``).
- ``runs_per_month_changed(float)``.
- ``status_message(str, int)``: text for the status bar and a timeout in ms (0 = until replaced).
- ``measured_busbw_changed(object)``: the all-reduce bus bandwidth measured on the Hardware tab's
  Collectives page and chosen "Use in estimates" (bytes/s, float), or ``None`` when cleared
  (held by the plan, ``PlanState.measured_busbw``).
- ``validity_changed(object)``: why the workload's figures are not current (tuple of str; empty:
  current again).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktopapp.application.plan import KEEP, CustomAccelerator, Keep, PlanState, PriceChoice
from desktopapp.model.scenario import DEFAULT_RUNS_PER_MONTH, CostPlan

if TYPE_CHECKING:
    from desktopapp.model.inference import InferenceEstimate, InferenceInputs
    from desktopapp.model.memory import MemoryEstimate, MemoryInputs
    from desktopapp.model.planning import CostComparison, CostInputs
    from desktopapp.model.training import TrainingEstimate, TrainingInputs

__all__ = ["KEEP", "AppState", "CostState", "CustomAccelerator", "Keep", "PriceChoice"]


class CostState(QObject):
    """The cost part of the plan with Qt signals: ``inputs_changed(object)`` (new
    ``CostInputs``) and ``result_changed(object)`` (new ``CostComparison`` or None)."""

    inputs_changed = Signal(object)
    result_changed = Signal(object)

    def __init__(self, plan: PlanState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cost_state")
        self._plan = plan

    @property
    def inputs(self) -> CostInputs | None:
        return self._plan.cost_inputs

    def set_inputs(self, inputs: CostInputs) -> bool:
        """Replace the inputs; returns whether they changed."""
        return self._plan.set_cost_inputs(inputs)

    @property
    def result(self) -> CostComparison | None:
        return self._plan.cost_result

    def set_result(self, result: CostComparison | None) -> None:
        self._plan.set_cost_result(result)

    def plan(self, runs_per_month: float = DEFAULT_RUNS_PER_MONTH) -> CostPlan | None:
        """The cost section of a scenario file (None before the tab set any inputs)."""
        return self._plan.cost_plan(runs_per_month)


class AppState(QObject):
    """The planning state shared by the tabs of one window: a Qt face on :class:`PlanState`."""

    workload_changed = Signal()
    accelerator_changed = Signal(str)
    estimate_changed = Signal(object)
    memory_estimate_changed = Signal(object)
    inference_estimate_changed = Signal(object)
    custom_accelerator_changed = Signal(object)
    runs_per_month_changed = Signal(float)
    status_message = Signal(str, int)
    measured_busbw_changed = Signal(object)
    validity_changed = Signal(object)

    def __init__(self, parent: QObject | None = None, plan: PlanState | None = None) -> None:
        super().__init__(parent)
        self.plan = plan if plan is not None else PlanState()
        self.cost = CostState(self.plan, self)
        self.plan.subscribe(self._relay)

    def _relay(self, event: str, payload: Any) -> None:
        if event == "workload":
            self.workload_changed.emit()
        elif event == "accelerator":
            self.accelerator_changed.emit(payload)
        elif event == "estimate":
            self.estimate_changed.emit(payload)
        elif event == "memory_estimate":
            self.memory_estimate_changed.emit(payload)
        elif event == "inference_estimate":
            self.inference_estimate_changed.emit(payload)
        elif event == "custom_accelerator":
            self.custom_accelerator_changed.emit(payload)
        elif event == "runs_per_month":
            self.runs_per_month_changed.emit(payload)
        elif event == "status":
            self.status_message.emit(*payload)
        elif event == "cost_inputs":
            self.cost.inputs_changed.emit(payload)
        elif event == "cost_result":
            self.cost.result_changed.emit(payload)
        elif event == "validity":
            self.validity_changed.emit(payload)
        elif event == "measured_busbw":
            self.measured_busbw_changed.emit(payload)

    # --- workload ---------------------------------------------------------------------------
    @property
    def training(self) -> TrainingInputs | None:
        return self.plan.training

    @property
    def memory(self) -> MemoryInputs | None:
        return self.plan.memory

    @property
    def inference(self) -> InferenceInputs | None:
        return self.plan.inference

    @property
    def preset_id(self) -> str | None:
        return self.plan.preset_id

    def set_workload(
        self,
        training: TrainingInputs | Keep | None = KEEP,
        memory: MemoryInputs | Keep | None = KEEP,
        inference: InferenceInputs | Keep | None = KEEP,
        preset_id: str | Keep | None = KEEP,
    ) -> bool:
        """Replace any part of the workload (``KEEP`` leaves a part alone)."""
        return self.plan.set_workload(training, memory, inference, preset_id)

    @property
    def accelerator_id(self) -> str | None:
        return self.plan.accelerator_id

    @property
    def precision(self) -> str | None:
        return self.plan.precision

    @property
    def devices(self) -> int | None:
        return self.plan.devices

    @property
    def price(self) -> PriceChoice:
        return self.plan.price

    def set_price(self, price: PriceChoice) -> None:
        self.plan.set_price(price)

    @property
    def price_per_gpu_hour(self) -> float | None:
        return self.plan.price.usd_per_gpu_hour

    @property
    def price_source(self) -> str:
        return self.plan.price.source

    # --- results ----------------------------------------------------------------------------
    @property
    def estimate(self) -> TrainingEstimate | None:
        return self.plan.estimate

    def set_estimate(self, estimate: TrainingEstimate | None) -> None:
        self.plan.set_estimate(estimate)

    @property
    def memory_estimate(self) -> MemoryEstimate | None:
        return self.plan.memory_estimate

    def set_memory_estimate(self, estimate: MemoryEstimate | None) -> None:
        self.plan.set_memory_estimate(estimate)

    @property
    def inference_estimate(self) -> InferenceEstimate | None:
        return self.plan.inference_estimate

    def set_inference_estimate(self, estimate: InferenceEstimate | None) -> None:
        self.plan.set_inference_estimate(estimate)

    # --- demand for the Cost tab ------------------------------------------------------------
    @property
    def runs_per_month(self) -> float:
        return self.plan.runs_per_month

    def set_runs_per_month(self, runs: float) -> None:
        self.plan.set_runs_per_month(runs)

    @property
    def gpu_hours_per_month(self) -> float | None:
        return self.plan.gpu_hours_per_month

    # --- measured hardware ------------------------------------------------------------------
    @property
    def custom_accelerator(self) -> CustomAccelerator | None:
        return self.plan.custom_accelerator

    def set_custom_accelerator(self, custom: CustomAccelerator | None) -> None:
        self.plan.set_custom_accelerator(custom)

    @property
    def measured_busbw(self) -> float | None:
        """Measured all-reduce bus bandwidth in bytes/s chosen for the estimates, or None."""
        return self.plan.measured_busbw

    def set_measured_busbw(self, value: float | None) -> None:
        """See ``PlanState.set_measured_busbw``; ``measured_busbw_changed`` follows a change."""
        self.plan.set_measured_busbw(value)

    # --- whether the figures are current ----------------------------------------------------
    @property
    def not_current(self) -> tuple[str, ...]:
        return self.plan.not_current

    def set_not_current(self, reasons: tuple[str, ...] | list[str]) -> None:
        self.plan.set_not_current(reasons)

    # --- status bar -------------------------------------------------------------------------
    def show_status(self, message: str, timeout_ms: int = 6000) -> None:
        self.plan.show_status(message, timeout_ms)
