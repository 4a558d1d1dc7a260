"""Cluster telemetry logic (pure): step sizes, fleet summary, idle cost, stall rule.

Inputs are readings already fetched from Prometheus (``devices.cluster``). Units: utilization
in percent 0-100, SM activity as a 0-1 ratio (DCGM ``DCGM_FI_PROF_*``), bytes, watts, °C.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from desktopapp.model.validation import (
    InputError,
    require_non_negative,
    require_positive,
    require_range,
)

NAN = math.nan
# Prometheus refuses a range query returning more than 11,000 points per series
# (prometheus/web/api/v1/api.go: "exceeded maximum resolution of 11,000 points per timeseries").
MAX_POINTS_PER_SERIES = 11_000
HOURS_PER_MONTH = 730.0  # 365 × 24 / 12
# A GPU is idle below 5% utilization (the default of the app's idle-cost model, IdleCostConfig).
IDLE_BELOW_PERCENT = 5.0
# Stall rule thresholds (this app's choice): GPU_UTIL counts time with any kernel resident, so
# a kernel spinning in a collective that waits for a slow or hung rank reads as ~100% while the
# SMs and the power draw stay low.
STALL_UTIL_PERCENT = 80.0
STALL_SM_SHARE = 0.5  # SM active below half of GPU util
STALL_POWER_SHARE = 0.35  # power below 35% of the board's limit


def range_step(start_s: float, end_s: float, wanted_step_s: float) -> float:
    """The step of a range query: ``wanted_step_s`` or coarser so that no series exceeds
    Prometheus's 11,000 points (whole seconds)."""
    require_positive("step", wanted_step_s)
    span = end_s - start_s
    if not (math.isfinite(span) and span > 0):
        raise InputError("range", f"end must be after start, got {span!r} s")
    minimum = span / (MAX_POINTS_PER_SERIES - 1)
    return float(max(math.ceil(wanted_step_s), math.ceil(minimum)))


@dataclass(frozen=True)
class GpuReading:
    node: str
    gpu: str
    util: float  # percent 0-100 from the metric named by ``metric_source``; NaN when unknown
    memory_used_bytes: float = NAN
    memory_free_bytes: float = NAN
    power_w: float = NAN
    power_limit_w: float = NAN
    temperature_c: float = NAN
    sm_active: float = NAN  # 0-1 (DCGM_FI_PROF_SM_ACTIVE or GR_ENGINE_ACTIVE)
    gpu_util_percent: float = NAN  # DCGM_FI_DEV_GPU_UTIL
    tensor_active: float = NAN  # 0-1
    model: str = ""
    pod: str = ""
    namespace: str = ""
    job: str = ""
    reachable: bool = True
    implausible: tuple[str, ...] = ()  # fields whose reading fell outside PLAUSIBLE (now NaN)


# Physical ranges of the readings (inclusive): a value outside is "implausible", not shown and
# not counted. Utilization is a share of time (0-100 %), DCGM's PROF ratios 0-1; a board
# reports roughly -40 to 150 °C (sensor limits) and at most a few kW (the largest modules,
# GB200, draw about 1.2 kW per GPU); memory and rates cannot be negative.
PLAUSIBLE: dict[str, tuple[float, float]] = {
    "util": (0.0, 100.0),
    "gpu_util_percent": (0.0, 100.0),
    "sm_active": (0.0, 1.0),
    "tensor_active": (0.0, 1.0),
    "temperature_c": (-40.0, 150.0),
    "power_w": (0.0, 5000.0),
    "power_limit_w": (0.0, 5000.0),
    "memory_used_bytes": (0.0, 2.0**50),
    "memory_free_bytes": (0.0, 2.0**50),
    "cpu_percent": (0.0, 100.0),
    "memory_total_bytes": (0.0, 2.0**60),
    "network_rx_bytes_s": (0.0, 1e13),
    "network_tx_bytes_s": (0.0, 1e13),
}
# Readings a little over the top (rounding, counter resets in a rate()) are kept.
PLAUSIBLE_SLACK = 0.02


def plausible(name: str, value: float) -> bool:
    """False when ``value`` lies outside the physical range of reading ``name`` (NaN and
    unknown names are not judged: True)."""
    if not math.isfinite(value) or name not in PLAUSIBLE:
        return True
    low, high = PLAUSIBLE[name]
    slack = (high - low) * PLAUSIBLE_SLACK
    return low - slack <= value <= high + slack


@dataclass(frozen=True)
class FleetSummary:
    busy: int
    idle: int
    unreachable: int
    idle_cost_per_hour: float  # in the user's currency
    idle_cost_per_month: float
    price_per_gpu_hour: float
    idle_below_percent: float
    implausible: int = 0  # reachable GPUs whose utilization reading is outside 0-100 %

    def to_dict(self) -> dict[str, float | int]:
        return {
            "busy": self.busy,
            "idle": self.idle,
            "unreachable": self.unreachable,
            "implausible": self.implausible,
            "idle_cost_per_hour": self.idle_cost_per_hour,
            "idle_cost_per_month": self.idle_cost_per_month,
            "price_per_gpu_hour": self.price_per_gpu_hour,
            "idle_below_percent": self.idle_below_percent,
        }


def is_idle(reading: GpuReading, idle_below_percent: float = IDLE_BELOW_PERCENT) -> bool:
    return reading.reachable and math.isfinite(reading.util) and reading.util < idle_below_percent


def fleet_summary(
    gpus: Iterable[GpuReading],
    price_per_gpu_hour: float,
    idle_below_percent: float = IDLE_BELOW_PERCENT,
) -> FleetSummary:
    """GPUs busy / idle / unreachable, and what the idle ones cost per hour and per month."""
    require_non_negative("price_per_gpu_hour", price_per_gpu_hour)
    require_range("idle_below", idle_below_percent, 0.0, 100.0)
    busy = idle = unreachable = implausible = 0
    for g in gpus:
        if g.reachable and "util" in g.implausible:
            implausible += 1
        elif not g.reachable or not math.isfinite(g.util):
            unreachable += 1
        elif g.util < idle_below_percent:
            idle += 1
        else:
            busy += 1
    per_hour = idle * price_per_gpu_hour
    return FleetSummary(
        busy,
        idle,
        unreachable,
        per_hour,
        per_hour * HOURS_PER_MONTH,
        price_per_gpu_hour,
        idle_below_percent,
        implausible,
    )


def stall_finding(reading: GpuReading) -> str | None:
    """The communication-stall / hang rule on one GPU: utilization high, but SM activity far
    below it or power low. ``None`` when the rule does not fire or lacks its inputs."""
    util = reading.gpu_util_percent if math.isfinite(reading.gpu_util_percent) else reading.util
    if not (math.isfinite(util) and util >= STALL_UTIL_PERCENT):
        return None
    reasons = []
    if math.isfinite(reading.sm_active) and reading.sm_active * 100 < STALL_SM_SHARE * util:
        reasons.append(f"SM active {reading.sm_active * 100:.0f}% against GPU util {util:.0f}%")
    if (
        math.isfinite(reading.power_w)
        and math.isfinite(reading.power_limit_w)
        and reading.power_limit_w > 0
        and reading.power_w < STALL_POWER_SHARE * reading.power_limit_w
    ):
        reasons.append(f"power {reading.power_w:.0f} W of a {reading.power_limit_w:.0f} W limit")
    if not reasons:
        return None
    return (
        f"{reading.node} GPU {reading.gpu}: utilization high but "
        + " and ".join(reasons)
        + ": a kernel is resident but not computing, the signature of a communication stall "
        "or hang (a collective waiting for a slow or dead rank); check the job's other ranks, "
        "NCCL_DEBUG=INFO logs and the network"
    )


def diagnose_group(
    name: str,
    *,
    gpu_util_percent: float,
    gpu_count: int,
    cpu_percent: float = NAN,
    gpu_memory_fraction: float = NAN,
    ram_fraction: float = NAN,
) -> tuple[str, ...]:
    """The monitor's rules (``model.diagnosis``) on a node's or job's current readings.

    Prometheus gives the current values; they are held over one diagnosis window (two
    observations ``window_s`` apart) so the rules see a steady signal, as on a running
    monitor. Returns ``"<name>: <title> (<evidence>)"`` lines, worst first; "ok" verdicts are
    left out.
    """
    from desktopapp.model.diagnosis import (
        SEVERITIES,
        DiagnosisThresholds,
        Observation,
        diagnose_series,
    )

    window = DiagnosisThresholds().window_s
    observations = [
        Observation(
            timestamp=t,
            gpu_util_percent=gpu_util_percent,
            cpu_percent=cpu_percent,
            gpu_memory_fraction=gpu_memory_fraction,
            ram_fraction=ram_fraction,
            gpu_count=gpu_count,
        )
        for t in (0.0, window)
    ]
    verdicts = diagnose_series(observations)[-1].verdicts
    ranked = sorted(verdicts, key=lambda v: -SEVERITIES.index(v.severity))
    return tuple(f"{name}: {v.title} ({v.evidence})" for v in ranked if v.severity != "ok")
