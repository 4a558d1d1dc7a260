"""Shared pieces of the benchmark suites: results, progress events, cancel token, timing.

A suite is a generator of :class:`ProgressEvent`. It checks its :class:`CancelToken` between
steps and keeps every step inside its time budget (predicting a step's time before starting
it), so that cancelling takes effect within about a second; a consumer may also simply close
the generator.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

DTYPES: tuple[str, ...] = ("fp32", "tf32", "fp16", "bf16", "fp8")
SUITES: tuple[str, ...] = (
    "matmul",
    "bandwidth",
    "amp",
    "batching",
    "quantization",
    "profile",
    "memory",
)
NAN = math.nan


class Cancelled(Exception):
    """Raised inside a suite when its cancel token was set; the runner turns it into an event."""


class CancelToken:
    """Thread-safe flag the GUI sets from its thread; suites check it between steps."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled")


@dataclass(frozen=True)
class BenchResult:
    """One measurement. ``tflops`` is set for FLOP-counted work (matmul, training steps)."""

    suite: str
    device: str  # "cpu", "cuda:0", "mps"
    dtype: str
    size: int  # matrix side n, bytes moved, batch size or tokens per step (see ``extra``)
    tflops: float | None
    seconds: float  # median time of one operation (one matmul, one copy, one step)
    peak_tflops: float | None  # datasheet (GPU) or estimated (CPU) peak; None when unknown
    percent_of_peak: float | None  # 0-100
    extra: Mapping[str, Any] = field(default_factory=dict)
    variant: str = ""  # "a@b.T", "h2d pinned", "autocast+GradScaler" …; part of the identity
    metric: str = ""  # headline figure name: "TFLOP/s", "GB/s", "samples/s", "speed-up" …
    value: float | None = None  # headline figure, in ``metric`` units

    @property
    def key(self) -> tuple[str, str, str, int]:
        """Identity for comparing runs: suite, dtype, variant and size (not the device)."""
        return (self.suite, self.dtype, self.variant, self.size)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "device": self.device,
            "dtype": self.dtype,
            "size": self.size,
            "variant": self.variant,
            "tflops": _finite_or_none(self.tflops),
            "seconds": _finite_or_none(self.seconds),
            "peak_tflops": _finite_or_none(self.peak_tflops),
            "percent_of_peak": _finite_or_none(self.percent_of_peak),
            "metric": self.metric,
            "value": _finite_or_none(self.value),
            "extra": dict(self.extra),
        } | (
            # peak beside the sustained ``tflops`` (median) for FLOP-counted work
            {"tflops_best": _finite_or_none(self.extra["tflops_best"])}
            if self.extra.get("tflops_best") is not None
            else {}
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BenchResult:
        def num(key: str) -> float | None:
            value = data.get(key)
            return float(value) if value is not None else None

        return cls(
            suite=str(data["suite"]),
            device=str(data.get("device", "")),
            dtype=str(data.get("dtype", "")),
            size=int(data.get("size", 0)),
            tflops=num("tflops"),
            seconds=_nan_if_none(num("seconds")),
            peak_tflops=num("peak_tflops"),
            percent_of_peak=num("percent_of_peak"),
            extra=dict(data.get("extra") or {}),
            variant=str(data.get("variant", "")),
            metric=str(data.get("metric", "")),
            value=num("value"),
        )


def _nan_if_none(value: float | None) -> float:
    return NAN if value is None else value


def _finite_or_none(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True)
class ProgressEvent:
    """What a suite (or the runner) reports after each step."""

    fraction: float  # 0..1 done
    message: str
    eta_s: float | None = None  # seconds left, None when unknown
    result: BenchResult | None = None  # a new measurement, if this step produced one
    warning: str | None = None  # a plain-language finding or problem worth showing
    suite: str = ""
    done: bool = False  # last event of a run
    cancelled: bool = False
    # On the last event of a run: the conditions it ran under (RunConditions.to_dict()).
    conditions: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fraction": self.fraction,
            "message": self.message,
            "eta_s": self.eta_s,
            "result": self.result.to_dict() if self.result else None,
            "warning": self.warning,
            "suite": self.suite,
            "done": self.done,
            "cancelled": self.cancelled,
            "conditions": self.conditions,
        }


def percent(tflops: float | None, peak: float | None) -> float | None:
    if tflops is None or peak is None or peak <= 0 or not math.isfinite(tflops):
        return None
    return 100.0 * tflops / peak


def is_oom(exc: BaseException) -> bool:
    """Out-of-memory from torch (CUDA/MPS/CPU allocator) or numpy."""
    if isinstance(exc, MemoryError):
        return True
    name = type(exc).__name__
    if name in ("OutOfMemoryError", "OutOfResources"):
        return True
    text = str(exc).lower()
    return any(
        marker in text
        for marker in (
            "out of memory",
            "can't allocate memory",
            "cannot allocate memory",
            "failed to allocate",
            "mps backend out of memory",
        )
    )


@dataclass(frozen=True)
class Timing:
    """Per-operation times from :func:`time_op`."""

    median_s: float
    min_s: float
    samples: tuple[float, ...]  # per-operation time of each timed sample
    inner: int  # operations per timed sample
    warmup_s: float  # the first (cold) call
    total_s: float  # wall time spent, warm-up included
    over_budget: bool  # this step took clearly (25%) longer than its budget

    @property
    def repeats(self) -> int:
        return len(self.samples)

    @property
    def spread_pct(self) -> float:
        """Slowest minus fastest repeat as a percentage of the median."""
        if not self.samples or self.median_s <= 0:
            return NAN
        return (max(self.samples) - min(self.samples)) / self.median_s * 100.0


def time_op(
    op: Callable[[], object],
    sync: Callable[[], None],
    *,
    budget_s: float,
    token: CancelToken | None = None,
    max_repeats: int = 15,
    min_sample_s: float = 0.005,
    warmups: int = 2,
    clock: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Warm up, then time repeats of ``op`` and return the median per-operation time.

    Fast ops are run ``inner`` times per timed sample so timer and launch overhead stay small;
    the number of samples adapts to ``budget_s``. The token is checked between samples.
    """
    start = clock()
    op()
    sync()
    first = clock() - start
    estimate = first
    for _ in range(max(0, warmups - 1)):
        if token is not None:
            token.raise_if_cancelled()
        if clock() - start + estimate > budget_s * 0.5:
            break
        t0 = clock()
        op()
        sync()
        estimate = clock() - t0
    estimate = max(estimate, 1e-7)
    inner = 1 if estimate >= min_sample_s else min(10_000, math.ceil(min_sample_s / estimate))
    remaining = budget_s - (clock() - start)
    repeats = int(0.9 * remaining / (estimate * inner)) if remaining > 0 else 0
    repeats = max(1, min(max_repeats, repeats))
    samples: list[float] = []
    for _ in range(repeats):
        if token is not None:
            token.raise_if_cancelled()
        t0 = clock()
        for _ in range(inner):
            op()
        sync()
        samples.append((clock() - t0) / inner)
        if len(samples) >= 3 and clock() - start > budget_s:
            break
    total = clock() - start
    return Timing(
        median_s=statistics.median(samples),
        min_s=min(samples),
        samples=tuple(samples),
        inner=inner,
        warmup_s=first,
        total_s=total,
        over_budget=total > budget_s * 1.25,
    )


class EtaTracker:
    """Progress bookkeeping for a suite: fraction done and seconds left.

    Each step has a predicted cost in seconds; the ETA is the sum of predicted costs of the
    steps not yet done, scaled by how the measured steps compared with their predictions.
    """

    def __init__(self, costs: list[float]) -> None:
        self._costs = [max(c, 1e-3) for c in costs]
        self._done = 0
        self._start = time.perf_counter()
        self._predicted_done = 0.0
        self._reported = 0.0

    @property
    def total(self) -> int:
        return len(self._costs)

    def set_cost(self, index: int, cost: float) -> None:
        if index < len(self._costs):
            self._costs[index] = max(cost, 1e-3)

    def step_done(self) -> None:
        if self._done < len(self._costs):
            self._predicted_done += self._costs[self._done]
            self._done += 1

    @property
    def fraction(self) -> float:
        """Share of the predicted work done; never goes backwards when predictions change."""
        total = sum(self._costs)
        value = 1.0 if total <= 0 else min(1.0, sum(self._costs[: self._done]) / total)
        self._reported = max(self._reported, value)
        return self._reported

    @property
    def eta_s(self) -> float | None:
        left = sum(self._costs[self._done :])
        if self._done == 0:
            return left
        elapsed = time.perf_counter() - self._start
        scale = elapsed / self._predicted_done if self._predicted_done > 0 else 1.0
        return max(0.0, left * min(max(scale, 0.25), 4.0))
