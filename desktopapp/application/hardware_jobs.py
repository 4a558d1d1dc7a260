"""The Hardware tab's work outside the GUI thread, and the seams tests replace.

:class:`HardwareServices` bundles every call into the device layer the tab makes (detection,
torch probe, starting a benchmark, opening the results store). The defaults call
:mod:`desktopapp.devices`; tests pass fakes (a canned ``SystemReport``, a tiny suite).

:func:`run_benchmark_job` is the body of the benchmark worker thread: it consumes the progress
generator, stops it when asked, collects results and warnings, and saves the run (partial runs
marked as cancelled). It has no Qt in it; the worker wraps it in signals.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from desktopapp.application.hardware import HistoryRow, history_row
from desktopapp.devices.bench.core import BenchResult, CancelToken, ProgressEvent

if TYPE_CHECKING:
    from desktopapp.devices.bench.runner import BenchConfig
    from desktopapp.devices.cpu import CpuInfo, MemoryInfo
    from desktopapp.devices.detect import SystemReport
    from desktopapp.devices.results_store import ResultsStore

# After a cancel the generator gets this long to wind down before it is closed outright.
CANCEL_GRACE_S = 0.8
HISTORY_LIMIT = 200


@dataclass(frozen=True)
class BenchStart:
    """A resolved benchmark: the device (``BenchDevice.to_dict()``) and its progress events."""

    device_info: Mapping[str, Any]
    events: Iterator[ProgressEvent]


def _detect_cpu() -> tuple[CpuInfo, MemoryInfo]:
    from desktopapp.devices.cpu import detect_cpu, detect_memory

    return detect_cpu(), detect_memory()


def _detect_system() -> SystemReport:
    from desktopapp.devices.detect import detect_system

    return detect_system(include_torch=False)


def _add_torch(report: SystemReport) -> SystemReport:
    return report.with_torch()


def _start_benchmark(config: BenchConfig, token: CancelToken) -> BenchStart:
    """Start the run in a child process (``devices.bench.child``): the benchmark's Python and
    torch work then never competes with the GUI thread for the interpreter lock, and Cancel
    ends the child if its current step does not stop within a second. Raises ValueError
    ("device: …") when the device cannot be used."""
    from desktopapp.devices.bench.child import ChildRun

    child = ChildRun(config, token)
    return BenchStart(child.device_info, child.events())


def start_benchmark_in_process(config: BenchConfig, token: CancelToken) -> BenchStart:
    """Resolve the device (imports torch for GPUs) and start the runner's generator here."""
    from desktopapp.devices.bench.runner import run_benchmarks
    from desktopapp.devices.bench.target import resolve_device

    target = resolve_device(config.device)
    return BenchStart(target.to_dict(), run_benchmarks(config, token, target))


def _no_warm_up() -> bool:
    """Nothing to load ahead (the tab passes one that imports its plotting library)."""
    return True


def _open_store() -> ResultsStore:
    from desktopapp.devices.results_store import ResultsStore

    return ResultsStore()


def _versions() -> dict[str, str | None]:
    from desktopapp.devices.bench.runner import versions

    return versions()


@dataclass(frozen=True)
class HardwareServices:
    """Everything the tab asks of the device layer (swap any of these in tests)."""

    detect_cpu: Callable[[], tuple[CpuInfo, MemoryInfo]] = _detect_cpu
    detect_system: Callable[[], SystemReport] = _detect_system
    add_torch: Callable[[SystemReport], SystemReport] = _add_torch
    start_benchmark: Callable[[BenchConfig, CancelToken], BenchStart] = _start_benchmark
    open_store: Callable[[], ResultsStore] = _open_store
    versions: Callable[[], Mapping[str, Any]] = _versions
    warm_up: Callable[[], object] = _no_warm_up  # run on the GUI thread once first shown


@dataclass(frozen=True)
class Machine:
    """Who ran a benchmark: the fingerprint and host name saved with each run."""

    fingerprint: str
    hostname: str


@dataclass(frozen=True)
class BenchOutcome:
    """What a benchmark job produced; ``run_id`` is None when nothing was saved."""

    results: tuple[BenchResult, ...]
    warnings: tuple[str, ...]
    cancelled: bool
    started: str
    seconds: float
    device_info: Mapping[str, Any] = field(default_factory=dict)
    run_id: int | None = None
    save_error: str = ""
    error: str = ""  # the run could not start (bad device, torch missing for a GPU …)


def run_benchmark_job(
    config: BenchConfig,
    token: CancelToken,
    services: HardwareServices,
    machine: Machine,
    on_start: Callable[[Mapping[str, Any]], None],
    on_event: Callable[[ProgressEvent], None],
    stop_requested: Callable[[], bool],
    save: bool = True,
) -> BenchOutcome:
    """Run one benchmark to its end (or until cancelled) and save it. Runs in a worker thread.

    ``stop_requested`` (the thread's interruption flag) is polled between events and sets the
    token; if the generator has not wound down :data:`CANCEL_GRACE_S` after that, it is closed.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.perf_counter()
    try:
        start = services.start_benchmark(config, token)
    except ValueError as exc:
        return BenchOutcome((), (), False, started, 0.0, error=str(exc))
    on_start(start.device_info)
    results: list[BenchResult] = []
    warnings: list[str] = []
    cancelled = False
    cancel_at: float | None = None
    conditions: Mapping[str, Any] | None = None  # RunConditions.to_dict(), on the last event
    events = start.events
    try:
        for event in events:
            on_event(event)
            if event.conditions:
                conditions = event.conditions
            if event.result is not None:
                results.append(event.result)
            if event.warning and event.warning not in warnings:
                warnings.append(event.warning)
            cancelled = cancelled or event.cancelled
            if stop_requested() and not token.cancelled:
                token.cancel()
            if token.cancelled:
                cancel_at = cancel_at or time.perf_counter()
                if time.perf_counter() - cancel_at > CANCEL_GRACE_S:
                    break
    finally:
        close = getattr(events, "close", None)
        if callable(close):
            close()
    cancelled = cancelled or token.cancelled
    seconds = time.perf_counter() - clock
    # The run conditions (other load, clocks) travel with the device info, as BenchRun's do,
    # so that the history can say which runs were disturbed and why.
    device_info = dict(start.device_info)
    if conditions:
        device_info["conditions"] = dict(conditions)
    outcome = BenchOutcome(
        tuple(results), tuple(warnings), cancelled, started, seconds, device_info
    )
    if not save:
        return outcome
    device = str(start.device_info.get("device") or config.device)
    return _save(outcome, config, services, machine, device)


def _save(
    outcome: BenchOutcome,
    config: BenchConfig,
    services: HardwareServices,
    machine: Machine,
    device: str,
) -> BenchOutcome:
    """Save the run (a cancelled one as partial results); the outcome says where or why not."""
    if not outcome.results:
        return _replace_save(outcome, None, "nothing was measured, so nothing was saved")
    try:
        store = services.open_store()
        run_id = store.save_run(
            list(outcome.results),
            machine=machine.fingerprint,
            hostname=machine.hostname,
            device=device,
            versions=services.versions(),
            config=config.to_dict(),
            device_info=dict(outcome.device_info),
            notes="cancelled: partial results" if outcome.cancelled else "",
            warnings=list(outcome.warnings),
            started=outcome.started,
            seconds=outcome.seconds,
            cancelled=outcome.cancelled,
        )
    except (OSError, RuntimeError, ValueError, sqlite3.Error) as exc:
        return _replace_save(outcome, None, f"not saved: {exc}")
    return _replace_save(outcome, run_id, "")


def _replace_save(outcome: BenchOutcome, run_id: int | None, error: str) -> BenchOutcome:
    from dataclasses import replace

    return replace(outcome, run_id=run_id, save_error=error)


# --- history -------------------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    rows: tuple[HistoryRow, ...]
    error: str = ""
    path: str = ""


def load_history(services: HardwareServices, machine: str | None) -> History:
    """Saved runs, newest first, with their best fp32/bf16 matmul figures. Worker thread."""
    try:
        store = services.open_store()
        summaries = store.list_runs()[:HISTORY_LIMIT]
        rows = []
        for summary in summaries:
            stored = store.load_run(summary.id)
            rows.append(
                history_row(
                    summary.id,
                    summary.started,
                    summary.device,
                    summary.device_info,
                    summary.config,
                    stored.results,
                    summary.cancelled,
                    summary.notes,
                    same_machine=machine is None or summary.machine == machine,
                )
            )
    except (OSError, RuntimeError, ValueError, sqlite3.Error) as exc:
        return History((), str(exc))
    return History(tuple(rows), "", str(store.path))


@dataclass(frozen=True)
class ComparisonRow:
    suite: str
    dtype: str
    size: str
    metric: str
    a: float | None
    b: float | None
    ratio: float | None
    better: str


@dataclass(frozen=True)
class Comparison:
    a_label: str
    b_label: str
    rows: tuple[ComparisonRow, ...]
    only_a: int
    only_b: int
    same_machine: bool


def compare_runs(services: HardwareServices, a: int, b: int) -> Comparison:
    """Run ``b`` against run ``a``: one row per measurement both have (ratio = b ÷ a)."""
    from desktopapp.application.hardware import local_time, size_text, suite_text

    comparison = services.open_store().compare_runs(a, b)

    def finite(value: float | None) -> float | None:
        return value if value is not None and math.isfinite(value) else None

    rows = tuple(
        ComparisonRow(
            suite=suite_text(m.a),
            dtype=m.dtype,
            size=size_text(m.a),
            metric=m.metric,
            a=finite(m.a.value if m.a.value is not None else m.a.tflops),
            b=finite(m.b.value if m.b.value is not None else m.b.tflops),
            ratio=finite(m.ratio),
            better=m.better,
        )
        for m in comparison.matched
    )
    return Comparison(
        a_label=f"#{comparison.a.id} · {local_time(comparison.a.started)}",
        b_label=f"#{comparison.b.id} · {local_time(comparison.b.started)}",
        rows=rows,
        only_a=len(comparison.only_a),
        only_b=len(comparison.only_b),
        same_machine=comparison.same_machine,
    )


@dataclass(frozen=True)
class LoadedRun:
    run_id: int
    label: str
    results: tuple[BenchResult, ...]
    device_info: Mapping[str, Any]
    device: str
    warnings: tuple[str, ...]
    cancelled: bool


def load_run(services: HardwareServices, run_id: int) -> LoadedRun:
    from desktopapp.application.hardware import local_time

    stored = services.open_store().load_run(run_id)
    summary = stored.summary
    return LoadedRun(
        run_id=summary.id,
        label=f"run #{summary.id} of {local_time(summary.started)}",
        results=stored.results,
        device_info=dict(summary.device_info),
        device=summary.device,
        warnings=tuple(summary.warnings),
        cancelled=summary.cancelled,
    )


def export_runs(services: HardwareServices, run_ids: list[int], path: str, kind: str) -> str:
    """Write the runs to ``path`` as ``"json"`` or ``"csv"``; returns the written path."""
    store = services.open_store()
    if kind == "json":
        return str(store.export_json(run_ids, path))
    if kind == "csv":
        return str(store.export_csv(run_ids, path))
    raise ValueError(f"format: must be json or csv, got {kind!r}")
