"""Run several suites as one job with overall progress and ETA.

``run_benchmarks(config)`` validates the configuration and the device *before* returning its
generator (so a bad ``--device`` fails at once with ``ValueError("device: …")``), then yields
:class:`ProgressEvent` s whose ``fraction``/``eta_s`` cover the whole run. The GUI worker and
the CLI both consume it; :func:`run_and_collect` gathers a finished :class:`BenchRun`.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from desktopapp.devices.bench.conditions import ConditionsProbe
from desktopapp.devices.bench.core import (
    DTYPES,
    SUITES,
    BenchResult,
    Cancelled,
    CancelToken,
    ProgressEvent,
)
from desktopapp.devices.bench.matmul import DEFAULT_SIZES, QUICK_CPU_SIZES, QUICK_GPU_SIZES
from desktopapp.devices.bench.target import BenchDevice, parse_device, resolve_device
from desktopapp.devices.torch_info import install_hint
from desktopapp.model.validation import require_choice, require_int, require_range

DEFAULT_SUITES: tuple[str, ...] = ("matmul", "bandwidth", "amp", "batching", "quantization")
QUICK_BUDGET_S = 0.4
FULL_BUDGET_S = 2.0


@dataclass(frozen=True)
class BenchConfig:
    """What to run. ``None`` fields take device- and mode-dependent defaults."""

    device: str = "cpu"
    suites: tuple[str, ...] = DEFAULT_SUITES
    dtypes: tuple[str, ...] | None = None
    sizes: tuple[int, ...] | None = None  # matmul sizes; default sweep when None
    max_size: int | None = None
    budget_s: float | None = None  # per measurement step
    quick: bool = False

    def __post_init__(self) -> None:
        parse_device(self.device)
        if not self.suites:
            raise ValueError(f"suite: name at least one of {', '.join(SUITES)}")
        for suite in self.suites:
            require_choice("suite", suite, SUITES)
        for dtype in self.dtypes or ():
            require_choice("dtype", dtype, DTYPES)
        for size in self.sizes or ():
            require_int("sizes", size, minimum=16, maximum=65536)
        if self.max_size is not None:
            require_int("max_size", self.max_size, minimum=16, maximum=65536)
        if self.budget_s is not None:
            require_range("budget_s", self.budget_s, 0.01, 600.0)

    @property
    def budget(self) -> float:
        if self.budget_s is not None:
            return float(self.budget_s)
        return QUICK_BUDGET_S if self.quick else FULL_BUDGET_S

    def matmul_sizes(self, target: BenchDevice) -> tuple[int, ...]:
        if self.sizes:
            sizes = tuple(sorted(set(self.sizes)))
        elif self.quick:
            sizes = QUICK_CPU_SIZES if target.kind == "cpu" else QUICK_GPU_SIZES
        else:
            sizes = DEFAULT_SIZES
        if self.max_size is not None:
            kept = tuple(s for s in sizes if s <= self.max_size)
            sizes = kept or (self.max_size,)
        return sizes

    def matmul_dtypes(self, target: BenchDevice) -> tuple[str, ...]:
        if self.dtypes:
            return self.dtypes
        if target.kind == "cpu":
            return ("fp32", "bf16") if self.quick else ("fp32", "bf16", "fp16")
        if target.kind == "cuda":
            return ("fp32", "tf32", "bf16", "fp16", "fp8")
        return ("fp32", "fp16", "bf16")

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "suites": list(self.suites),
            "dtypes": list(self.dtypes) if self.dtypes else None,
            "sizes": list(self.sizes) if self.sizes else None,
            "max_size": self.max_size,
            "budget_s": self.budget,
            "quick": self.quick,
        }


def versions() -> dict[str, str | None]:
    """Software versions a result depends on (stored with each run)."""
    from desktopapp import __version__

    info: dict[str, str | None] = {
        "desktopapp": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "torch": None,
        "cuda": None,
        "numpy": None,
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        info["torch"] = str(torch.__version__)
        info["cuda"] = getattr(torch.version, "cuda", None)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        info["numpy"] = str(numpy.__version__)
    return info


def _suite_cost(name: str, config: BenchConfig, target: BenchDevice) -> float:
    """Rough seconds a suite takes, to weigh overall progress before it has run."""
    b = config.budget
    if name == "matmul":
        dtypes = config.matmul_dtypes(target)
        extra = sum(1 for d in dtypes if d in ("bf16", "fp16")) if target.kind == "cpu" else 0
        return (len(dtypes) + extra) * len(config.matmul_sizes(target)) * b * 0.6
    return {
        "bandwidth": b * (5 if target.kind == "cuda" else 1),
        "amp": b * 15,  # amp.BUDGET_FACTOR: sizing the model and ≥5 steps per precision
        "batching": b * 3,
        "quantization": b * 2.5,
        "profile": b * 3,
        "memory": b * 3,
    }.get(name, b)


def _suite_events(
    name: str, config: BenchConfig, target: BenchDevice, token: CancelToken
) -> Iterator[ProgressEvent]:
    budget = config.budget
    if name == "matmul":
        from desktopapp.devices.bench.matmul import matmul_suite

        return matmul_suite(
            target,
            dtypes=config.matmul_dtypes(target),
            sizes=config.matmul_sizes(target),
            budget_s=budget,
            token=token,
        )
    if name == "bandwidth":
        from desktopapp.devices.bench.bandwidth import bandwidth_suite

        return bandwidth_suite(target, budget_s=budget, quick=config.quick, token=token)
    if name == "amp":
        from desktopapp.devices.bench.amp import amp_suite

        return amp_suite(target, budget_s=budget, quick=config.quick, token=token)
    if name == "batching":
        from desktopapp.devices.bench.batching import batching_suite

        return batching_suite(target, budget_s=budget, quick=config.quick, token=token)
    if name == "quantization":
        from desktopapp.devices.bench.batching import quantization_suite

        return quantization_suite(target, budget_s=budget, quick=config.quick, token=token)
    if name == "memory":
        from desktopapp.devices.bench.memory import memory_suite

        return memory_suite(target, budget_s=budget, quick=config.quick, token=token)
    if name == "profile":
        from desktopapp.devices.bench.profile import profile_suite

        return profile_suite(target, budget_s=budget, quick=config.quick, token=token)
    raise ValueError(f"suite: unknown suite {name!r}")


def busy_warning(load: float | None = None, cpus: int | None = None) -> str | None:
    """A warning when other processes keep the CPUs busy (results would understate)."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows
            return None
    cpus = cpus or os.cpu_count() or 1
    if load < max(1.0, 0.3 * cpus):
        return None
    return (
        f"other processes are using the CPU (1-minute load average {load:.1f} on {cpus} "
        "logical CPUs): CPU results will understate, and multi-threaded kernels can slow down "
        "badly when a core is taken; close other work and re-run for clean figures"
    )


_NEEDS_TORCH = frozenset({"amp", "batching", "quantization", "profile", "memory"})


def run_benchmarks(
    config: BenchConfig,
    token: CancelToken | None = None,
    target: BenchDevice | None = None,
) -> Generator[ProgressEvent, None, None]:
    """Validate now (``ValueError("device: …")``), then return the progress generator.

    Stop it with ``token.cancel()`` (takes effect within about a second; the last event then
    has ``cancelled=True``) or by closing the generator.
    """
    target = target or resolve_device(config.device)
    return _run(config, target, token or CancelToken())


def _run(
    config: BenchConfig, target: BenchDevice, token: CancelToken
) -> Generator[ProgressEvent, None, None]:
    start = time.perf_counter()
    probe = ConditionsProbe(
        gpu_index=target.index if target.kind == "cuda" else None, gpu_interval_s=1.0
    ).start()
    suites = list(dict.fromkeys(config.suites))
    costs = {name: _suite_cost(name, config, target) for name in suites}
    total = sum(costs.values()) or 1.0
    done = 0.0
    last = 0.0  # fraction last reported: progress never goes backwards
    yield ProgressEvent(
        0.0,
        f"benchmarking {target.name} ({target.spec})",
        total,
        warning=busy_warning(),
        suite="",
    )
    for name in suites:
        weight = costs[name]
        remaining_after = sum(costs[s] for s in suites[suites.index(name) + 1 :])
        if name in _NEEDS_TORCH and not target.torch_available:
            done += weight
            yield ProgressEvent(
                done / total,
                f"{name} skipped",
                None,
                warning=f"{name} skipped: torch not installed ({install_hint()})",
                suite=name,
            )
            continue
        if not target.torch_available and name == "matmul":
            yield ProgressEvent(
                done / total,
                "matmul with numpy (fp32 only)",
                None,
                warning=f"torch not installed: matmul measured with numpy, fp32 only "
                f"({install_hint()})",
                suite=name,
            )
        events = _suite_events(name, config, target, token)
        try:
            for event in events:
                elapsed = time.perf_counter() - start
                fraction = min(1.0, (done + event.fraction * weight) / total)
                # Later suites: their estimate, scaled by how fast estimates have held so far.
                pace = elapsed / (done + event.fraction * weight) if done > 0 else 1.0
                later = remaining_after * min(max(pace, 0.25), 4.0)
                eta = (event.eta_s or 0.0) + later
                last = max(last, fraction)
                yield replace(event, fraction=last, eta_s=eta, suite=name)
        except Cancelled:
            conditions = probe.finish()
            yield ProgressEvent(
                last,
                f"cancelled during {name}",
                0.0,
                warning=conditions.summary() if conditions.disturbed else None,
                suite=name,
                done=True,
                cancelled=True,
                conditions=conditions.to_dict(),
            )
            return
        except Exception as exc:  # one broken suite must not end the run
            yield ProgressEvent(
                (done + weight) / total,
                f"{name} failed",
                None,
                warning=f"{name} failed: {type(exc).__name__}: {exc}",
                suite=name,
            )
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()
        done += weight
    seconds = time.perf_counter() - start
    conditions = probe.finish()
    yield ProgressEvent(
        1.0,
        f"done in {seconds:.1f} s",
        0.0,
        warning=conditions.summary() if conditions.disturbed else None,
        suite="",
        done=True,
        conditions=conditions.to_dict(),
    )


@dataclass(frozen=True)
class BenchRun:
    """A finished (or cancelled) run: what the store saves and the CLI prints."""

    config: BenchConfig
    device: BenchDevice
    results: tuple[BenchResult, ...]
    warnings: tuple[str, ...]
    started: str  # ISO 8601, UTC
    seconds: float
    cancelled: bool
    conditions: dict[str, Any] | None = None  # RunConditions.to_dict() of the run

    @property
    def device_info(self) -> dict[str, Any]:
        info = self.device.to_dict()
        if self.conditions is not None:
            info["conditions"] = self.conditions
        return info

    @property
    def disturbed(self) -> bool:
        return bool(self.conditions and self.conditions.get("disturbed"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "started": self.started,
            "seconds": self.seconds,
            "cancelled": self.cancelled,
            "config": self.config.to_dict(),
            "device_info": self.device_info,
            "results": [r.to_dict() for r in self.results],
            "notes": list(self.warnings),
            "versions": versions(),
            "conditions": self.conditions,
            "disturbed": self.disturbed,
        }


def run_and_collect(
    config: BenchConfig,
    token: CancelToken | None = None,
    on_event: Callable[[ProgressEvent], None] | None = None,
    target: BenchDevice | None = None,
) -> BenchRun:
    """Run to the end (or cancel) and gather results and warnings."""
    target = target or resolve_device(config.device)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    start = time.perf_counter()
    results: list[BenchResult] = []
    warnings: list[str] = []
    cancelled = False
    conditions: dict[str, Any] | None = None
    for event in run_benchmarks(config, token, target):
        if on_event is not None:
            on_event(event)
        if event.result is not None:
            results.append(event.result)
        if event.warning:
            warnings.append(event.warning)
        if event.conditions is not None:
            conditions = event.conditions
        cancelled = cancelled or event.cancelled
    return BenchRun(
        config,
        target,
        tuple(results),
        tuple(warnings),
        started,
        time.perf_counter() - start,
        cancelled,
        conditions,
    )


def filter_results(
    results: Sequence[BenchResult], suite: str | None = None, dtype: str | None = None
) -> list[BenchResult]:
    return [
        r
        for r in results
        if (suite is None or r.suite == suite) and (dtype is None or r.dtype == dtype)
    ]
