"""The Monitor tab's policy, without Qt.

- Sampler problems: which go to the banner (a lost GPU), which are sensor notes, which are
  expected and hidden (rates on the first reading), and the one-line reason there is no GPU
  view. Problems are sorted by their ``kind`` (:mod:`desktopapp.devices.problems`), never by
  their words. :func:`gpu_indices` says which GPUs the channel names hold.
- Gaps: where a pause in sampling leaves a gap in the history (:class:`GapPolicy`).
- Idle cost: the price idle GPUs are costed at, typed here or from the Workload tab
  (:func:`idle_price`), and the idle-cost configuration.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktopapp.application.plan import PriceChoice
from desktopapp.devices.problems import GPU_LOST, NO_GPU, WARMING_UP, kind_of
from desktopapp.devices.top_processes import HostProcess, ProcessSnapshot
from desktopapp.model.diagnosis import (
    SEVERITIES,
    Diagnoser,
    Diagnosis,
    DiagnosisThresholds,
)
from desktopapp.model.idle_cost import IdleCostConfig

DEFAULT_IDLE_PRICE_USD = IdleCostConfig().price_per_gpu_hour  # model.idle_cost default
HIDDEN_KINDS = frozenset({WARMING_UP, NO_GPU})  # expected, or said by the no-GPU view itself


@dataclass(frozen=True)
class ProblemsView:
    lost: tuple[str, ...]  # for the banner (the first one is shown)
    notes: tuple[str, ...]  # "N sensor notes", all in the tooltip

    @property
    def notes_label(self) -> str:
        count = len(self.notes)
        return "" if not count else f"{count} sensor note{'s' if count > 1 else ''}"


def sort_problems(problems: Sequence[str]) -> ProblemsView:
    lost = tuple(p for p in problems if kind_of(p) == GPU_LOST)
    notes = tuple(p for p in problems if kind_of(p) not in HIDDEN_KINDS | {GPU_LOST})
    return ProblemsView(lost, notes)


def no_gpu_reason(problems: Sequence[str]) -> str:
    """One clear reason from the sampler's problems, e.g. "no NVIDIA driver installed"."""
    for problem in problems:
        if kind_of(problem) == NO_GPU:
            text = str(problem).removeprefix("GPU:").strip()
            text = text.removeprefix("unavailable because").strip()
            return text.rstrip(".") or "the sampler reports no GPU"
    return "the sampler reports no GPU on this machine"


def gpu_indices(channels: Iterable[str]) -> tuple[int, ...]:
    """GPU numbers present in channel names such as ``gpu0.util`` (none: no GPU view)."""
    found: set[int] = set()
    for name in channels:
        head, _, rest = name.partition(".")
        if head.startswith("gpu") and head[3:].isdigit() and rest == "util":
            found.add(int(head[3:]))
    return tuple(sorted(found))


@dataclass
class GapPolicy:
    """A pause in sampling leaves a gap in the plots, not a straight line across it.

    After a resume, a step longer than 2.5 × the usual one (or the interval, if longer) gets an
    empty sample halfway (:meth:`gap_at` returns its time); the usual step is learnt from the
    samples taken while running.
    """

    last_step: float = math.nan
    resumed: bool = False

    def resume(self, had_samples: bool) -> None:
        self.resumed = had_samples

    def gap_at(self, timestamp: float, last_timestamp: float, interval_s: float) -> float | None:
        step = timestamp - last_timestamp
        gap = None
        if self.resumed and math.isfinite(self.last_step):
            if step > 2.5 * max(self.last_step, interval_s):
                gap = last_timestamp + step / 2
        elif step > 0:
            self.last_step = step
        self.resumed = False
        return gap

    def no_history(self) -> None:
        self.resumed = False


@dataclass(frozen=True)
class IdlePrice:
    """The price idle GPUs are costed at, and where it came from (for the field's note)."""

    usd_per_gpu_hour: float
    source: str
    typed: bool


def idle_price(
    typed: float | None, workload: PriceChoice, default_usd: float = DEFAULT_IDLE_PRICE_USD
) -> IdlePrice:
    """Typed here wins; else the Workload tab's price (with its offer or source); else the
    default. A price that is not a finite number ≥ 0 is never used."""
    if typed is not None and math.isfinite(typed) and typed >= 0:
        return IdlePrice(typed, "Typed here (overrides the Workload tab).", True)
    price = workload.usd_per_gpu_hour
    if price is not None and math.isfinite(price) and price >= 0:
        where = workload.offer_name or workload.source or "the Workload tab"
        return IdlePrice(price, f"From the Workload tab: {where}.", False)
    return IdlePrice(
        default_usd, "Default price; type yours, or set one in the Workload tab.", False
    )


def idle_config(price: IdlePrice, alert_after_minutes: float | None) -> IdleCostConfig:
    return IdleCostConfig(
        price_per_gpu_hour=price.usd_per_gpu_hour, alert_after_minutes=alert_after_minutes
    )


# --- the process table without a GPU (issue 16) ------------------------------------------------


def host_process_rows(snapshot: ProcessSnapshot) -> tuple[HostProcess, ...]:
    """The busiest processes by CPU and the largest by memory in one list (each once), busiest
    CPU first; processes without a CPU share yet (the first scan) after, largest memory first."""
    seen: dict[int, HostProcess] = {}
    for proc in (*snapshot.by_cpu, *snapshot.by_memory):
        seen.setdefault(proc.pid, proc)

    def order(p: HostProcess) -> tuple[float, float]:
        cpu = p.cpu_percent if math.isfinite(p.cpu_percent) else -1.0
        rss = p.rss_bytes if math.isfinite(p.rss_bytes) else 0.0
        return (-cpu, -rss)

    return tuple(sorted(seen.values(), key=order))


def host_process_empty_text(snapshot: ProcessSnapshot) -> str:
    """What the table says when it has no rows."""
    if snapshot.problem:
        return f"No process list: {snapshot.problem}."
    return "Reading the process list…"


NAN_VALUE = float("nan")

if TYPE_CHECKING:
    from desktopapp.devices.sampler import SystemSample


# --- diagnosis per GPU (issue 16) ----------------------------------------------------------------


class PerGpuDiagnosis:
    """The utilization verdict of each GPU on its own, named ("GPU 1: GPU underused …").

    The session's diagnosis averages GPU utilization over all GPUs, so one busy and one idle
    GPU read as "partly used 43%". With two or more GPUs this keeps one
    :class:`~desktopapp.model.diagnosis.Diagnoser` per GPU, fed every sample with that GPU's
    utilization (CPU, memory and the rest as measured), and :meth:`view` replaces the averaged
    utilization verdict with the per-GPU ones; the other categories stay as diagnosed."""

    def __init__(self, thresholds: DiagnosisThresholds | None = None) -> None:
        self._thresholds = thresholds
        self._diagnosers: dict[int, Diagnoser] = {}
        self._latest: dict[int, Diagnosis] = {}

    def feed(self, sample: SystemSample) -> None:
        live = [g for g in sample.gpus if g.available and math.isfinite(g.util_percent)]
        if len(live) < 2:
            self._latest = {}
            return
        base = sample.observation()
        for gpu in live:
            diagnoser = self._diagnosers.setdefault(gpu.index, Diagnoser(self._thresholds))
            memory = getattr(gpu, "memory_fraction", NAN_VALUE)
            observation = replace(
                base,
                gpu_util_percent=gpu.util_percent,
                gpu_memory_fraction=memory if math.isfinite(memory) else NAN_VALUE,
                gpu_count=1,
            )
            self._latest[gpu.index] = diagnoser.update(observation)

    def view(self, combined: Diagnosis) -> Diagnosis:
        if len(self._latest) < 2:
            return combined
        per_gpu = []
        for index in sorted(self._latest):
            verdict = self._latest[index].by_category("utilization")
            if verdict is not None and verdict.key == "collecting":
                return combined  # still warming up: one "Collecting data" for all GPUs
            if verdict is not None:
                per_gpu.append(
                    replace(
                        verdict,
                        title=f"GPU {index}: {verdict.title}",
                        evidence=f"GPU {index}: {verdict.evidence}",
                    )
                )
        if not per_gpu:
            return combined
        rank = {s: i for i, s in enumerate(SEVERITIES)}
        per_gpu.sort(key=lambda v: -rank.get(v.severity, 0))
        others = tuple(v for v in combined.verdicts if v.category != "utilization")
        return Diagnosis(combined.timestamp, combined.window_s, (*per_gpu, *others))
