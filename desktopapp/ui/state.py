"""Shared planning state of one main window, read and written by every tab.

The Workload tab writes the workload (model input dataclasses) and the latest estimate; the
Cost tab reads GPU-hours per month, the accelerator and the price; the Hardware tab adds a
measured accelerator (:meth:`AppState.set_custom_accelerator`) that the Workload tab can plan
with. State holds *valid* model inputs only: while a field is invalid the last valid inputs stay.

Signals (all emitted on the GUI thread, only when something actually changed):

- ``workload_changed()``: training/memory/inference inputs or the preset changed.
- ``accelerator_changed(str)``: the chosen accelerator id changed.
- ``estimate_changed(object)``: new ``TrainingEstimate`` (or ``None`` when not computable).
- ``custom_accelerator_changed(object)``: a ``CustomAccelerator`` was set or cleared (``None``).
- ``runs_per_month_changed(float)``.
- ``status_message(str, int)``: text for the status bar and a timeout in ms (0 = until replaced).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from desktopapp.model.inference import InferenceEstimate, InferenceInputs
    from desktopapp.model.memory import MemoryEstimate, MemoryInputs
    from desktopapp.model.training import TrainingEstimate, TrainingInputs


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
            raise ValueError("name: give the measured accelerator a name")
        clean: dict[str, float] = {}
        for precision, value in self.peak_tflops.items():
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"peak_tflops: {precision} must be a positive number")
            clean[str(precision)] = float(value)
        if not clean:
            raise ValueError("peak_tflops: give at least one measured precision")
        object.__setattr__(self, "peak_tflops", MappingProxyType(clean))
        if self.utilization is not None and not 0 < self.utilization <= 1:
            raise ValueError("utilization: must be in (0, 1]")

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


class AppState(QObject):
    """The planning state shared by the tabs of one window."""

    workload_changed = Signal()
    accelerator_changed = Signal(str)
    estimate_changed = Signal(object)
    memory_estimate_changed = Signal(object)
    inference_estimate_changed = Signal(object)
    custom_accelerator_changed = Signal(object)
    runs_per_month_changed = Signal(float)
    status_message = Signal(str, int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._training: TrainingInputs | None = None
        self._memory: MemoryInputs | None = None
        self._inference: InferenceInputs | None = None
        self._preset_id: str | None = None
        self._estimate: TrainingEstimate | None = None
        self._memory_estimate: MemoryEstimate | None = None
        self._inference_estimate: InferenceEstimate | None = None
        self._custom: CustomAccelerator | None = None
        self._runs_per_month = 1.0
        self._price = PriceChoice(None)

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
        """Replace any part of the workload (``KEEP`` leaves a part alone).

        Emits ``workload_changed`` once if anything changed, and ``accelerator_changed`` when
        the training accelerator differs. Returns whether anything changed.
        """
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
            self.workload_changed.emit()
        if self.accelerator_id != old_acc:
            self.accelerator_changed.emit(self.accelerator_id or "")
        return changed

    # --- convenience views of the training inputs ---------------------------------------------
    @property
    def accelerator_id(self) -> str | None:
        return None if self._training is None else self._training.accelerator

    @property
    def precision(self) -> str | None:
        return None if self._training is None else self._training.precision

    @property
    def devices(self) -> int | None:
        return None if self._training is None else self._training.gpus

    @property
    def price(self) -> PriceChoice:
        return self._price

    def set_price(self, price: PriceChoice) -> None:
        """Record the price in use (the Workload tab keeps it in step with its inputs)."""
        self._price = price

    @property
    def price_per_gpu_hour(self) -> float | None:
        return self._price.usd_per_gpu_hour

    @property
    def price_source(self) -> str:
        return self._price.source

    # --- results --------------------------------------------------------------------------
    @property
    def estimate(self) -> TrainingEstimate | None:
        """The latest training estimate for the current workload (``None``: not computable)."""
        return self._estimate

    def set_estimate(self, estimate: TrainingEstimate | None) -> None:
        if estimate is self._estimate:
            return
        self._estimate = estimate
        self.estimate_changed.emit(estimate)

    @property
    def memory_estimate(self) -> MemoryEstimate | None:
        return self._memory_estimate

    def set_memory_estimate(self, estimate: MemoryEstimate | None) -> None:
        if estimate is self._memory_estimate:
            return
        self._memory_estimate = estimate
        self.memory_estimate_changed.emit(estimate)

    @property
    def inference_estimate(self) -> InferenceEstimate | None:
        return self._inference_estimate

    def set_inference_estimate(self, estimate: InferenceEstimate | None) -> None:
        if estimate is self._inference_estimate:
            return
        self._inference_estimate = estimate
        self.inference_estimate_changed.emit(estimate)

    # --- demand for the Cost tab ----------------------------------------------------------------
    @property
    def runs_per_month(self) -> float:
        """How many times a month the training run is repeated (for GPU-hours per month)."""
        return self._runs_per_month

    def set_runs_per_month(self, runs: float) -> None:
        if not (isinstance(runs, int | float) and math.isfinite(runs) and runs >= 0):
            raise ValueError(f"runs_per_month: must be 0 or more, got {runs!r}")
        if float(runs) != self._runs_per_month:
            self._runs_per_month = float(runs)
            self.runs_per_month_changed.emit(self._runs_per_month)

    @property
    def gpu_hours_per_month(self) -> float | None:
        """GPU-hours of the current estimate × runs per month (``None`` without an estimate)."""
        if self._estimate is None:
            return None
        return self._estimate.gpu_hours * self._runs_per_month

    # --- measured hardware ----------------------------------------------------------------
    @property
    def custom_accelerator(self) -> CustomAccelerator | None:
        return self._custom

    def set_custom_accelerator(self, custom: CustomAccelerator | None) -> None:
        """Offer a measured accelerator to the other tabs (``None`` removes it)."""
        if custom == self._custom:
            return
        self._custom = custom
        self.custom_accelerator_changed.emit(custom)

    # --- status bar -----------------------------------------------------------------------
    def show_status(self, message: str, timeout_ms: int = 6000) -> None:
        self.status_message.emit(message, timeout_ms)
