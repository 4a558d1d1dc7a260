"""One rule for "this GPU at its normal limits" against "a disturbed run".

Used by the benchmark's run conditions (``devices.bench.conditions``) and by the monitor's
throttling diagnosis (``model.diagnosis``), so the two never disagree on the same readings.

Normal limits (figures are what this machine delivers; re-running changes nothing):
- held at a power cap at or above the default limit: a sustained large GEMM on an H100/H200
  always reaches it;
- clocks settling under load (the SM clock below its maximum *with* a power reason);
- sync boost, application-clock and idle reasons.

Disturbed (figures understate the machine; the cause can be removed):
- other processes on the GPU, or taking at least :data:`DISTURBED_CPU_SHARE` of the CPUs;
- a power limit set below the default (``nvidia-smi -pl``), by more than
  :data:`LOWERED_LIMIT_SHARE`;
- thermal slowdown (software or hardware), HW slowdown, or the hardware power brake;
- an SM clock under :data:`FAR_BELOW_CLOCK_SHARE` of the application (or maximum) clock with no
  power or thermal reason while the GPU is busy.

Pure: no NVML, no torch. Readings arrive as floats (NaN when unknown) and clock-reason words
as ``devices.gpu_sampling.decode_clock_reasons`` writes them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

NAN = math.nan

DISTURBED_CPU_SHARE = 0.15  # other processes' share of all CPUs that makes a run disturbed
LOWERED_LIMIT_SHARE = 0.03  # a limit more than 3% under the default counts as lowered
# a power-capped GPU whose sampled draw is at least this share of its limit is "held" at it;
# below, the cap bit in bursts (NVML power readings are averages over about a second)
HELD_DRAW_SHARE = 0.9
FAR_BELOW_CLOCK_SHARE = 0.7  # SM clock under 70% of the application clock, no power reason

THERMAL_WORDS = ("thermal",)
HARDWARE_WORDS = ("hw slowdown", "power brake")
POWER_WORDS = ("power cap", "board limit")


@dataclass(frozen=True)
class GpuReading:
    """What the rule needs from one GPU during (or right after) the work."""

    index: int = 0
    power_w: float = NAN
    power_limit_w: float = NAN  # enforced limit
    default_power_limit_w: float = NAN
    sm_clock_mhz: float = NAN
    app_sm_clock_mhz: float = NAN  # application clock, or the maximum where none is set
    reasons: tuple[str, ...] = ()  # clock-event reasons in words
    foreign_processes: tuple[str, ...] = ()  # other processes on this GPU, e.g. "pid 42 python"
    busy: bool = True  # under load (the clock rule only applies then)

    def _has(self, words: Iterable[str]) -> bool:
        return any(w in r.lower() for r in self.reasons for w in words)

    @property
    def thermal(self) -> bool:
        return self._has(THERMAL_WORDS)

    @property
    def hardware_slowdown(self) -> bool:
        return self._has(HARDWARE_WORDS)

    @property
    def power_capped(self) -> bool:
        return self._has(POWER_WORDS)

    @property
    def limit_lowered(self) -> bool:
        if not (math.isfinite(self.power_limit_w) and math.isfinite(self.default_power_limit_w)):
            return False
        return self.power_limit_w < self.default_power_limit_w * (1 - LOWERED_LIMIT_SHARE)

    @property
    def clock_far_below(self) -> bool:
        if not (self.busy and math.isfinite(self.sm_clock_mhz)):
            return False
        if not math.isfinite(self.app_sm_clock_mhz) or self.app_sm_clock_mhz <= 0:
            return False
        if self.power_capped or self.thermal or self.hardware_slowdown:
            return False
        if self._has(("idle",)):
            return False
        return self.sm_clock_mhz < FAR_BELOW_CLOCK_SHARE * self.app_sm_clock_mhz

    def to_dict(self) -> dict[str, Any]:
        def num(value: float) -> float | None:
            return value if math.isfinite(value) else None

        return {
            "index": self.index,
            "power_w": num(self.power_w),
            "power_limit_w": num(self.power_limit_w),
            "default_power_limit_w": num(self.default_power_limit_w),
            "sm_clock_mhz": num(self.sm_clock_mhz),
            "app_sm_clock_mhz": num(self.app_sm_clock_mhz),
            "reasons": list(self.reasons),
            "foreign_processes": list(self.foreign_processes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GpuReading:
        def num(key: str) -> float:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else NAN

        return cls(
            index=int(data.get("index", 0) or 0),
            power_w=num("power_w"),
            power_limit_w=num("power_limit_w"),
            default_power_limit_w=num("default_power_limit_w"),
            sm_clock_mhz=num("sm_clock_mhz"),
            app_sm_clock_mhz=num("app_sm_clock_mhz"),
            reasons=tuple(str(r) for r in data.get("reasons") or ()),
            foreign_processes=tuple(str(p) for p in data.get("foreign_processes") or ()),
        )


@dataclass(frozen=True)
class ConditionsVerdict:
    """``causes`` say in words why a run is disturbed; ``notes`` name normal limits seen."""

    causes: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def disturbed(self) -> bool:
        return bool(self.causes)

    @property
    def state(self) -> str:
        return "disturbed" if self.disturbed else "normal"


def _w(value: float) -> str:
    return f"{value:,.0f} W"


def _gpu_name(reading: GpuReading, several: bool) -> str:
    return f"GPU {reading.index}" if several else "the GPU"


def judge_gpu(reading: GpuReading, *, several: bool = False) -> ConditionsVerdict:
    """The verdict for one GPU's readings."""
    name = _gpu_name(reading, several)
    causes: list[str] = []
    notes: list[str] = []
    if reading.foreign_processes:
        n = len(reading.foreign_processes)
        causes.append(
            f"{n} other process{'es' if n != 1 else ''} on {name} "
            f"({', '.join(reading.foreign_processes[:3])})"
        )
    if reading.limit_lowered:
        causes.append(
            f"{name}'s power limit is lowered to {_w(reading.power_limit_w)} "
            f"(default {_w(reading.default_power_limit_w)})"
        )
    if reading.thermal:
        causes.append(f"{name} slowed down by heat (thermal clock reason)")
    if reading.hardware_slowdown:
        causes.append(f"{name} reports a hardware slowdown (HW slowdown or power brake)")
    if reading.clock_far_below:
        causes.append(
            f"{name}'s SM clock {reading.sm_clock_mhz:,.0f} MHz is far below its "
            f"{reading.app_sm_clock_mhz:,.0f} MHz application clock with no power reason"
        )
    if reading.power_capped and not reading.limit_lowered:
        limit = (
            f"its {_w(reading.power_limit_w)} power limit"
            if math.isfinite(reading.power_limit_w)
            else "its power limit"
        )
        default = (
            " (the default)"
            if math.isfinite(reading.default_power_limit_w)
            and reading.power_limit_w >= reading.default_power_limit_w * (1 - LOWERED_LIMIT_SHARE)
            else ""
        )
        held = (
            math.isfinite(reading.power_w)
            and math.isfinite(reading.power_limit_w)
            and reading.power_w >= HELD_DRAW_SHARE * reading.power_limit_w
        )
        if held or not math.isfinite(reading.power_w):
            draw = f", drawing {_w(reading.power_w)}" if math.isfinite(reading.power_w) else ""
            notes.append(
                f"{name} held at {limit}{default}{draw}: normal under sustained load, "
                "re-running changes nothing"
            )
        else:  # the power-cap reason was set, but the sampled draw stayed well below the limit
            notes.append(
                f"{name} reached {limit}{default} in bursts (power-cap clock reason set; highest "
                f"sampled draw {_w(reading.power_w)}): normal under load, re-running changes "
                "nothing"
            )
    return ConditionsVerdict(tuple(causes), tuple(notes))


def judge_run(
    gpus: Sequence[GpuReading] = (),
    *,
    other_cpu_share: float = NAN,
    cpus: int = 0,
) -> ConditionsVerdict:
    """The verdict for a whole run: every GPU's readings and the other processes' CPU share."""
    causes: list[str] = []
    notes: list[str] = []
    if math.isfinite(other_cpu_share) and other_cpu_share >= DISTURBED_CPU_SHARE:
        of = f" of the {cpus} CPUs" if cpus else " of the CPUs"
        causes.append(f"other processes used {other_cpu_share:.0%}{of}")
    several = len(gpus) > 1
    for g in gpus:
        verdict = judge_gpu(g, several=several)
        causes.extend(verdict.causes)
        notes.extend(verdict.notes)
    return ConditionsVerdict(tuple(causes), tuple(notes))
