"""Session totals for the Monitor tab's "This session" panel (pure Python, no Qt).

Built from the session's :class:`~desktopapp.model.ringbuffer.RunningStats` (count, mean, min
and max per channel, kept by the model without storing the samples). GPU energy is the rise of
the driver's energy counter (``gpu<i>.energy``, joules since the driver loaded) over the
session; where a GPU does not report that counter, it is estimated as mean power × duration and
marked as an estimate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desktopapp.model.ringbuffer import ChannelSummary

NAN = math.nan


@dataclass(frozen=True)
class GpuTotals:
    index: int
    name: str
    mean_util_percent: float
    peak_memory_bytes: float
    mean_power_w: float
    peak_temperature_c: float
    energy_j: float
    energy_estimated: bool  # True: mean power × duration (no energy counter)


@dataclass(frozen=True)
class SessionTotals:
    duration_s: float
    samples: int
    cpu_mean_percent: float
    cpu_peak_percent: float
    ram_peak_bytes: float
    gpus: tuple[GpuTotals, ...]

    @property
    def gpu_energy_j(self) -> float:
        """All GPUs together (NaN when none reports power)."""
        values = [g.energy_j for g in self.gpus if math.isfinite(g.energy_j)]
        return sum(values) if values else NAN


def _stat(stats: Mapping[str, ChannelSummary], channel: str, which: str) -> float:
    summary = stats.get(channel)
    if summary is None or summary.count == 0:
        return NAN
    return float({"mean": summary.mean, "min": summary.minimum, "max": summary.maximum}[which])


def session_totals(
    stats: Mapping[str, ChannelSummary],
    duration_s: float,
    samples: int,
    gpus: Sequence[tuple[int, str]] = (),
) -> SessionTotals:
    """Totals from ``RunningStats.summary()``; ``gpus`` lists (index, name) of the GPUs."""
    totals = []
    for index, name in gpus:
        p = f"gpu{index}."
        first = _stat(stats, p + "energy", "min")
        last = _stat(stats, p + "energy", "max")
        mean_power = _stat(stats, p + "power", "mean")
        energy, estimated = last - first, False
        if not math.isfinite(energy):
            energy = mean_power * duration_s if duration_s > 0 else NAN
            estimated = True
        totals.append(
            GpuTotals(
                index,
                name,
                _stat(stats, p + "util", "mean"),
                _stat(stats, p + "mem.used", "max"),
                mean_power,
                _stat(stats, p + "temp", "max"),
                energy,
                estimated,
            )
        )
    return SessionTotals(
        duration_s,
        samples,
        _stat(stats, "cpu.percent", "mean"),
        _stat(stats, "cpu.percent", "max"),
        _stat(stats, "mem.used", "max"),
        tuple(totals),
    )


def format_energy(joules: float) -> str:
    """``7.2e6`` → ``2.00 kWh``; small amounts in Wh."""
    if not math.isfinite(joules):
        return "—"
    wh = joules / 3600.0
    if wh >= 1000:
        return f"{wh / 1000:.2f} kWh"
    if wh >= 10:
        return f"{wh:.0f} Wh"
    return f"{wh:.2f} Wh"
