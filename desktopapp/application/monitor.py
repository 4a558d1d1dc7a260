"""The Monitor tab's policy, without Qt.

- Sampler problems: which go to the banner (a lost GPU), which are sensor notes, which are
  expected and hidden (rates on the first reading), and the one-line reason there is no GPU
  view. Problems are sorted by their ``kind`` (:mod:`desktopapp.devices.problems`), never by
  their words.
- Gaps: where a pause in sampling leaves a gap in the history (:class:`GapPolicy`).
- Idle cost: the price idle GPUs are costed at, typed here or from the Workload tab
  (:func:`idle_price`), and the idle-cost configuration.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktopapp.application.plan import PriceChoice
from desktopapp.devices.problems import GPU_LOST, NO_GPU, WARMING_UP, kind_of
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
