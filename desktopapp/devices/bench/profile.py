"""Top operators of one training step (torch.profiler): where the time goes.

The result's ``extra["operators"]`` lists ``{"name", "self_seconds", "percent", "calls"}``
sorted by self time (device time on a GPU, CPU time otherwise).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.bench.core import (
    BenchResult,
    Cancelled,
    CancelToken,
    ProgressEvent,
)
from desktopapp.devices.bench.models import block_shape, make_training_step
from desktopapp.devices.bench.target import BenchDevice, empty_cache, synchronizer


@dataclass(frozen=True)
class OperatorTime:
    name: str
    self_seconds: float
    percent: float  # of the total self time in the step
    calls: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "self_seconds": self.self_seconds,
            "percent": self.percent,
            "calls": self.calls,
        }


def top_operators(averages: Any, device: bool, limit: int = 10) -> list[OperatorTime]:
    """Rank ``profiler.key_averages()`` rows by self time (µs in torch → seconds)."""

    def self_time(row: Any) -> float:
        if device:
            for attr in ("self_device_time_total", "self_cuda_time_total"):
                value = getattr(row, attr, None)
                if value:
                    return float(value)
            return 0.0
        return float(getattr(row, "self_cpu_time_total", 0.0) or 0.0)

    rows = [(row, self_time(row)) for row in averages]
    total = sum(t for _, t in rows)
    if total <= 0:
        return []
    rows.sort(key=lambda item: item[1], reverse=True)
    return [
        OperatorTime(str(row.key), t / 1e6, 100.0 * t / total, int(getattr(row, "count", 0)))
        for row, t in rows[:limit]
        if t > 0
    ]


def profile_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
    limit: int = 10,
) -> Iterator[ProgressEvent]:
    """Profile one fp32 training step of the transformer block after a warm-up step."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    shape = block_shape(target, quick)
    yield ProgressEvent(0.0, "profile: warming up…", budget_s, suite="profile")
    sync = synchronizer(target)
    try:
        train = make_training_step(target, shape)
        start = time.perf_counter()
        train.step()
        sync()
        warm = time.perf_counter() - start
        if warm * 3 > budget_s and shape.batch > 1:  # keep the profiled step inside the budget
            batch = max(1, int(shape.batch * budget_s / (3 * warm)))
            shape = shape.with_batch(batch)
            train = make_training_step(target, shape)
            train.step()
            sync()
        if token is not None:
            token.raise_if_cancelled()
        yield ProgressEvent(0.5, "profile: recording one step…", warm, suite="profile")
        activities = [ProfilerActivity.CPU]
        on_device = target.kind == "cuda" and torch.cuda.is_available()
        if on_device:
            activities.append(ProfilerActivity.CUDA)
        start = time.perf_counter()
        with profile(activities=activities) as prof:
            train.step()
            sync()
        seconds = time.perf_counter() - start
        operators = top_operators(prof.key_averages(), on_device, limit)
    except Cancelled:
        raise
    except Exception as exc:
        yield ProgressEvent(
            1.0,
            "profile failed",
            0.0,
            warning=f"profile: torch.profiler failed ({type(exc).__name__}: {exc})",
            suite="profile",
        )
        return
    finally:
        empty_cache(target)
    result = BenchResult(
        suite="profile",
        device=target.spec,
        dtype="fp32",
        size=shape.tokens,
        tflops=None,
        seconds=seconds,
        peak_tflops=None,
        percent_of_peak=None,
        extra={
            "model": shape.describe(),
            "sorted_by": "self device time" if on_device else "self CPU time",
            "operators": [op.to_dict() for op in operators],
            "note": "profiled step includes profiler overhead",
        },
        metric="operators",
        value=float(len(operators)),
    )
    top = ", ".join(f"{op.name} {op.percent:.0f}%" for op in operators[:3])
    yield ProgressEvent(1.0, f"profile: {top}", 0.0, result=result, suite="profile")
