"""One-at-a-time sensitivity of a training estimate, for the tornado chart.

Each input the estimate depends on is moved down and up by a relative step (25% by default)
while every other input stays as given; :func:`estimate_training` is run for both and the
wall time and cost are compared with the unchanged estimate. No formula is repeated here: the
swings are whatever the training model gives.

Rules for the inputs that cannot take any value:

- ``gpus`` is a whole number of at least 1: down is ``⌊g·(1−step)⌋`` (at least 1), up is
  ``⌈g·(1+step)⌉``; for one device that is 1 → 2, so the bar says what was really tried.
- ``utilization`` is a fraction in (0, 1]: up is capped at 1.
- An input that is not set (no price) or is 0 (no goodput overhead) has nothing to move and
  is left out.
- The peak is moved through ``peak_tflops`` (the resolved datasheet peak when none is given).

With ``evaluate`` (the application's headline function, e.g. the modelled run the snapshot
shows) the base and every moved input go through it instead of the flat
``estimate_training``, so the tornado's base is the headline. The utilization (MFU) and the
peak are rates, not inputs of the modelled run: wall time = C / (devices × peak × MFU) ×
production ÷ goodput, so moving either by ±step scales the base's time and cost by
1 / (1 ± step) exactly. A moved input the headline function refuses (a plan that no longer
fits, say) leaves its bar out, with the reason in ``left_out``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from desktopapp.model import units
from desktopapp.model.training import (
    TrainingInputs,
    TrainingSweep,
    estimate_training,
)
from desktopapp.model.validation import InputError

DEFAULT_STEP = 0.25
METRICS: tuple[str, ...] = ("cost", "hours")

LABELS: dict[str, str] = {
    "params": "Parameters",
    "tokens": "Training tokens",
    "forward_flops": "Forward FLOPs per sample",
    "samples": "Samples",
    "epochs": "Epochs",
    "gpus": "Devices",
    "utilization": "Utilization (MFU)",
    "peak_tflops": "Peak per device",
    "price": "Price per GPU-hour",
    "goodput_overhead": "Goodput overhead",
}


RATE_FIELDS = ("utilization", "peak_tflops")


@dataclass(frozen=True)
class Outcome:
    """What one evaluation of the training headline gives: wall time, cost (None without a
    price), and the rates the time follows (MFU and peak per device, TFLOP/s)."""

    hours: float
    cost: float | None
    utilization: float
    peak_tflops: float


Evaluate = Callable[[TrainingInputs], Outcome]


def flat_outcome(inputs: TrainingInputs) -> Outcome:
    """The flat ``C / (peak × U × devices)`` rule of :func:`estimate_training`."""
    est = estimate_training(inputs)
    return Outcome(est.training_hours, est.estimated_cost_usd, est.utilization, est.peak_tflops)


@dataclass(frozen=True)
class SensitivityBar:
    """One input moved down and up; hours and cost of both estimates."""

    name: str  # TrainingInputs field
    label: str
    base_value: float
    low_value: float
    high_value: float
    low_text: str  # the values formatted with their unit
    high_text: str
    base_text: str
    low_hours: float
    high_hours: float
    low_cost: float | None
    high_cost: float | None

    def change(self, metric: str, base: float | None, side: str) -> float | None:
        """Relative change of ``metric`` ("cost" | "hours") on one ``side`` ("low" | "high")
        against ``base`` (e.g. +0.33 for a third more); None without a cost."""
        value = getattr(self, f"{side}_{'cost' if metric == 'cost' else 'hours'}")
        if value is None or base is None or base == 0:
            return None
        return float(value) / base - 1.0

    def swing(self, metric: str, base: float | None) -> float:
        """Width of the bar: |high − low| as a fraction of the base (0 without a cost)."""
        low = self.change(metric, base, "low")
        high = self.change(metric, base, "high")
        if low is None or high is None:
            return 0.0
        return abs(high - low)


@dataclass(frozen=True)
class SensitivityResult:
    """How much the headline moves when each input moves by one step (the tornado)."""

    inputs: TrainingInputs
    base_outcome: Outcome  # the headline the bars move away from
    step: float
    bars: tuple[SensitivityBar, ...]  # in input order; see ranked()
    left_out: tuple[str, ...] = ()  # "Label: why" of inputs whose moved run was refused

    @property
    def base_hours(self) -> float:
        return self.base_outcome.hours

    @property
    def base_cost(self) -> float | None:
        return self.base_outcome.cost

    def base(self, metric: str) -> float | None:
        _check_metric(metric)
        return self.base_cost if metric == "cost" else self.base_hours

    def ranked(self, metric: str) -> tuple[SensitivityBar, ...]:
        """Bars by decreasing swing of ``metric`` (ties keep input order): a tornado."""
        base = self.base(metric)
        order = sorted(
            enumerate(self.bars),
            key=lambda pair: (-round(pair[1].swing(metric, base), 12), pair[0]),
        )
        return tuple(bar for _i, bar in order)


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise InputError("metric", f"must be one of {', '.join(METRICS)}, got {metric!r}")


def _moved(name: str, value: float, step: float) -> tuple[float, float]:
    if name == "gpus":
        low = max(1, math.floor(value * (1.0 - step)))
        high = max(low + 1, math.ceil(value * (1.0 + step)))
        return float(low), float(high)
    if name == "utilization":
        return value * (1.0 - step), min(1.0, value * (1.0 + step))
    return value * (1.0 - step), value * (1.0 + step)


def _formatter(name: str) -> Callable[[float], str]:
    if name in ("params", "tokens", "samples"):
        return lambda v: units.format_count(v)
    if name == "forward_flops":
        return lambda v: units.format_flops(v)
    if name == "peak_tflops":
        return lambda v: units.format_flop_rate(v * 1e12)
    if name == "price":
        return lambda v: f"{units.format_money(v)}/GPU-h"
    if name in ("utilization", "goodput_overhead"):
        return lambda v: units.format_percent(v, 0)
    if name == "gpus":
        return lambda v: f"{v:,.0f}"
    return lambda v: f"{v:g}"


def _varied_fields(inputs: TrainingInputs, estimate: Outcome) -> list[tuple[str, float]]:
    """(field, current value) of every input worth moving, in a fixed order."""
    method = inputs._auto_method() if inputs.method == "auto" else inputs.method
    rule = ("params", "tokens") if method == "6nd" else ("forward_flops", "samples")
    out: list[tuple[str, float]] = []
    for name in rule:
        value = getattr(inputs, name)
        if value is not None:
            out.append((name, float(value)))
    out.append(("epochs", float(inputs.epochs)))
    out.append(("gpus", float(inputs.gpus)))
    out.append(("utilization", float(estimate.utilization)))
    out.append(("peak_tflops", float(estimate.peak_tflops)))
    if inputs.price is not None:
        out.append(("price", float(inputs.price)))
    if inputs.wall_overhead > 0:
        out.append(("goodput_overhead", inputs.wall_overhead))
    return out


def training_sensitivity(
    inputs: TrainingInputs, step: float = DEFAULT_STEP, evaluate: Evaluate | None = None
) -> SensitivityResult:
    """Move each input by ``±step`` (a fraction, 0 < step < 1) and re-run ``evaluate`` (the
    flat :func:`estimate_training` when None; see the module docstring).

    Raises ``ValueError("step: …")`` for a bad step and the model's own ``ValueError`` when the
    inputs cannot be estimated.
    """
    if isinstance(step, bool) or not isinstance(step, int | float) or not 0 < step < 1:
        raise InputError("step", f"must be a fraction between 0 and 1, got {step!r}")
    flat = evaluate is None
    run: Evaluate = flat_outcome if evaluate is None else evaluate
    base = run(inputs)
    bars: list[SensitivityBar] = []
    left_out: list[str] = []
    for name, value in _varied_fields(inputs, base):
        low_value, high_value = _moved(name, value, float(step))
        outcomes: list[Outcome] = []
        for moved in (low_value, high_value):
            if not flat and name in RATE_FIELDS:
                ratio = value / moved  # time ∝ 1 / (peak × MFU)
                cost = None if base.cost is None else base.cost * ratio
                outcomes.append(replace(base, hours=base.hours * ratio, cost=cost))
                continue
            changes: dict[str, Any] = {name: int(moved) if name == "gpus" else moved}
            try:
                outcomes.append(run(replace(inputs, **changes)))
            except ValueError as exc:
                left_out.append(f"{LABELS[name]}: {exc}")
                break
        if len(outcomes) < 2:
            continue
        fmt = _formatter(name)
        bars.append(
            SensitivityBar(
                name=name,
                label=LABELS[name],
                base_value=value,
                low_value=low_value,
                high_value=high_value,
                low_text=fmt(low_value),
                high_text=fmt(high_value),
                base_text=fmt(value),
                low_hours=outcomes[0].hours,
                high_hours=outcomes[1].hours,
                low_cost=outcomes[0].cost,
                high_cost=outcomes[1].cost,
            )
        )
    return SensitivityResult(inputs, base, float(step), tuple(bars), tuple(left_out))


def utilization_curve(base: Outcome, gpus: int, utilizations: Any) -> TrainingSweep:
    """Wall time, GPU-hours and cost of the headline ``base`` at each MFU in (0, 1], the rest
    of the run unchanged (time ∝ 1 / MFU): the curve passes through the headline at its MFU."""
    from desktopapp.model.training import _sweep_array

    utils = _sweep_array("utilization", utilizations)
    if (utils <= 0).any() or (utils > 1).any():
        raise InputError("utilization", "sweep values must be in (0, 1]")
    ratio = base.utilization / utils
    hours = base.hours * ratio
    cost = None if base.cost is None else base.cost * ratio
    return TrainingSweep("utilization", utils, hours, hours * gpus, cost)
