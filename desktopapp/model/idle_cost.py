"""What idle GPUs cost, and who used the GPU time (pure model).

Feed :meth:`IdleCostTracker.update` one call per sample with each GPU's utilization and the
processes on the GPUs; read an :class:`IdleCostReport`.

Integration rule (sample and hold): the interval between two updates is credited to the state
seen at its *start*. Intervals longer than ``max_gap_s`` (the machine slept, the monitor was
paused) are not counted at all. A GPU whose utilization is unknown (NaN) during an interval
counts neither as idle nor as busy.

Attribution rule: during each interval a GPU's time is split among the processes present on it
at the start of the interval, in proportion to the GPU memory each holds (equally when the driver
does not report memory). Idle time is charged too, because a process holding GPU memory keeps
the GPU from others. Time with no process on the GPU is left unattributed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktopapp.model.assumptions import Assumption
from desktopapp.model.tco import idle_cost, monthly_idle_waste
from desktopapp.model.units import (
    HOURS_PER_MONTH,
    SECONDS_PER_HOUR,
    format_duration,
    format_money,
)
from desktopapp.model.validation import (
    InputError,
    require_non_negative,
    require_positive,
    require_range,
)

ATTRIBUTION_RULE = (
    "GPU time is split among the processes on the GPU in proportion to the GPU memory each "
    "holds (equally when memory is not reported); idle time is charged too, since held memory "
    "keeps the GPU from others; time with no process is unattributed"
)


@dataclass(frozen=True)
class IdleCostConfig:
    """``price_per_gpu_hour`` in USD (what one GPU-hour costs you: cloud price, or owning cost
    per hour); a GPU is idle below ``idle_threshold_percent`` utilization; an alert is raised
    once a GPU has been idle ``alert_after_minutes`` in a row (None: never); intervals longer
    than ``max_gap_s`` between samples are not counted."""

    price_per_gpu_hour: float = 2.0
    idle_threshold_percent: float = 5.0
    alert_after_minutes: float | None = None
    max_gap_s: float = 60.0

    def __post_init__(self) -> None:
        require_non_negative("price_per_gpu_hour", self.price_per_gpu_hour)
        require_range("idle_threshold_percent", self.idle_threshold_percent, 0.0, 100.0)
        if self.alert_after_minutes is not None:
            require_positive("alert_after_minutes", self.alert_after_minutes)
        require_positive("max_gap_s", self.max_gap_s)


@dataclass(frozen=True)
class ProcessUse:
    """One process on one GPU at one sample (pure copy of what the sampler saw)."""

    gpu_index: int
    pid: int
    name: str = ""
    user: str = ""
    used_memory_bytes: float = math.nan


@dataclass(frozen=True)
class GpuIdleStats:
    index: int
    observed_s: float  # seconds with a known utilization
    idle_s: float
    idle_fraction: float  # idle_s / observed_s; NaN before anything was observed
    idle_cost_usd: float
    idle_streak_s: float  # current uninterrupted idle time
    alert: bool  # idle_streak_s reached alert_after_minutes


@dataclass(frozen=True)
class ProcessCost:
    pid: int
    name: str
    user: str
    gpu_seconds: float
    cost_usd: float
    share: float  # of all attributed GPU time

    @property
    def gpu_hours(self) -> float:
        return self.gpu_seconds / SECONDS_PER_HOUR


@dataclass(frozen=True)
class UserCost:
    user: str
    gpu_seconds: float
    cost_usd: float

    @property
    def gpu_hours(self) -> float:
        return self.gpu_seconds / SECONDS_PER_HOUR


@dataclass(frozen=True)
class IdleCostReport:
    price_per_gpu_hour: float
    gpus: tuple[GpuIdleStats, ...]
    observed_gpu_hours: float
    idle_gpu_hours: float
    idle_fraction: float  # over all GPUs; NaN before anything was observed
    idle_cost_usd: float
    session_cost_usd: float  # every observed GPU-hour at the price
    projected_monthly_waste_usd: float  # idle_fraction × GPUs × HOURS_PER_MONTH × price
    alerts: tuple[str, ...]
    processes: tuple[ProcessCost, ...]  # most expensive first
    users: tuple[UserCost, ...]
    unattributed_gpu_hours: float
    assumptions: tuple[Assumption, ...]
    formula: str

    def to_dict(self) -> dict[str, object]:
        return {
            "price_per_gpu_hour": self.price_per_gpu_hour,
            "gpus": [_as_dict(g) for g in self.gpus],
            "observed_gpu_hours": self.observed_gpu_hours,
            "idle_gpu_hours": self.idle_gpu_hours,
            "idle_fraction": self.idle_fraction,
            "idle_cost_usd": self.idle_cost_usd,
            "session_cost_usd": self.session_cost_usd,
            "projected_monthly_waste_usd": self.projected_monthly_waste_usd,
            "alerts": list(self.alerts),
            "processes": [{**_as_dict(p), "gpu_hours": p.gpu_hours} for p in self.processes],
            "users": [{**_as_dict(u), "gpu_hours": u.gpu_hours} for u in self.users],
            "unattributed_gpu_hours": self.unattributed_gpu_hours,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "formula": self.formula,
        }


def _as_dict(obj: object) -> dict[str, object]:
    return dict(vars(obj))


@dataclass
class _GpuAcc:
    observed_s: float = 0.0
    idle_s: float = 0.0
    streak_s: float = 0.0


class IdleCostTracker:
    def __init__(self, config: IdleCostConfig | None = None) -> None:
        self.config = config or IdleCostConfig()
        self._gpus: dict[int, _GpuAcc] = {}
        self._process_s: dict[tuple[int, str], float] = {}
        self._process_user: dict[tuple[int, str], str] = {}
        self._unattributed_s = 0.0
        self._prev_t: float | None = None
        self._prev_utils: tuple[float, ...] = ()
        self._prev_procs: tuple[ProcessUse, ...] = ()
        self.gap_s = 0.0  # time skipped because samples were too far apart

    def update(
        self,
        timestamp: float,
        gpu_utils: Sequence[float],
        processes: Sequence[ProcessUse] = (),
    ) -> None:
        """Account for the interval since the previous update, then remember this state."""
        t = float(timestamp)
        if self._prev_t is not None:
            dt = t - self._prev_t
            if dt < 0:
                raise InputError("timestamp", f"must not go backwards, got {t!r}")
            if dt > self.config.max_gap_s:
                self.gap_s += dt
                for acc in self._gpus.values():
                    acc.streak_s = 0.0
            else:
                self._account(dt)
        self._prev_t = t
        self._prev_utils = tuple(float(u) for u in gpu_utils)
        self._prev_procs = tuple(processes)
        for index in range(len(self._prev_utils)):
            self._gpus.setdefault(index, _GpuAcc())

    def _account(self, dt: float) -> None:
        threshold = self.config.idle_threshold_percent
        for index, util in enumerate(self._prev_utils):
            acc = self._gpus[index]
            if not math.isfinite(util):
                acc.streak_s = 0.0
                continue
            acc.observed_s += dt
            if util < threshold:
                acc.idle_s += dt
                acc.streak_s += dt
            else:
                acc.streak_s = 0.0
            on_gpu = [p for p in self._prev_procs if p.gpu_index == index]
            if not on_gpu:
                self._unattributed_s += dt
                continue
            memories = [p.used_memory_bytes for p in on_gpu]
            total = sum(memories)
            if all(math.isfinite(m) and m >= 0 for m in memories) and total > 0:
                shares = [m / total for m in memories]
            else:
                shares = [1.0 / len(on_gpu)] * len(on_gpu)
            for proc, share in zip(on_gpu, shares, strict=True):
                key = (proc.pid, proc.name)
                self._process_s[key] = self._process_s.get(key, 0.0) + dt * share
                self._process_user[key] = proc.user

    def report(self) -> IdleCostReport:
        cfg = self.config
        price_s = cfg.price_per_gpu_hour / SECONDS_PER_HOUR
        alert_s = None if cfg.alert_after_minutes is None else cfg.alert_after_minutes * 60.0
        gpus = []
        alerts = []
        for index in sorted(self._gpus):
            acc = self._gpus[index]
            fraction = acc.idle_s / acc.observed_s if acc.observed_s > 0 else math.nan
            alert = alert_s is not None and acc.streak_s >= alert_s
            if alert:
                streak_cost = idle_cost(cfg.price_per_gpu_hour, acc.streak_s / SECONDS_PER_HOUR)
                alerts.append(
                    f"GPU {index} idle for {format_duration(acc.streak_s)} "
                    f"({format_money(streak_cost)} at "
                    f"{format_money(cfg.price_per_gpu_hour)}/GPU-hour)"
                )
            gpus.append(
                GpuIdleStats(
                    index,
                    acc.observed_s,
                    acc.idle_s,
                    fraction,
                    idle_cost(cfg.price_per_gpu_hour, acc.idle_s / SECONDS_PER_HOUR),
                    acc.streak_s,
                    alert,
                )
            )
        observed = sum(g.observed_s for g in gpus)
        idle = sum(g.idle_s for g in gpus)
        idle_fraction = idle / observed if observed > 0 else math.nan
        # The same projection as the Cost tab's idle warning (model.tco.monthly_idle_waste).
        monthly = (
            math.nan
            if math.isnan(idle_fraction)
            else monthly_idle_waste(cfg.price_per_gpu_hour, idle_fraction, len(gpus)).monthly_usd
        )
        attributed = sum(self._process_s.values())
        processes = sorted(
            (
                ProcessCost(
                    pid,
                    name,
                    self._process_user.get((pid, name), ""),
                    seconds,
                    seconds * price_s,
                    seconds / attributed if attributed > 0 else math.nan,
                )
                for (pid, name), seconds in self._process_s.items()
            ),
            key=lambda p: (-p.gpu_seconds, p.pid),
        )
        per_user: dict[str, float] = {}
        for p in processes:
            user = p.user or "unknown"
            per_user[user] = per_user.get(user, 0.0) + p.gpu_seconds
        users = tuple(
            UserCost(user, seconds, seconds * price_s)
            for user, seconds in sorted(per_user.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        assumptions = (
            Assumption("price per GPU-hour", format_money(cfg.price_per_gpu_hour)),
            Assumption(
                "idle",
                f"utilization below {cfg.idle_threshold_percent:g}%",
            ),
            Assumption(
                "month",
                f"{HOURS_PER_MONTH:.1f} hours (365.25 days / 12)",
            ),
            Assumption(
                "integration",
                "each interval counts with the state at its start; gaps longer than "
                f"{cfg.max_gap_s:g} s are not counted",
            ),
            Assumption("cost attribution", ATTRIBUTION_RULE),
        )
        return IdleCostReport(
            price_per_gpu_hour=cfg.price_per_gpu_hour,
            gpus=tuple(gpus),
            observed_gpu_hours=observed / SECONDS_PER_HOUR,
            idle_gpu_hours=idle / SECONDS_PER_HOUR,
            idle_fraction=idle_fraction,
            idle_cost_usd=idle_cost(cfg.price_per_gpu_hour, idle / SECONDS_PER_HOUR),
            session_cost_usd=observed * price_s,
            projected_monthly_waste_usd=monthly,
            alerts=tuple(alerts),
            processes=tuple(processes),
            users=users,
            unattributed_gpu_hours=self._unattributed_s / SECONDS_PER_HOUR,
            assumptions=assumptions,
            formula=(
                "idle cost = idle GPU-hours × price; projected monthly waste = idle fraction × "
                "GPUs × hours per month × price"
            ),
        )
