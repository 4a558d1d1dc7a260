"""Bottleneck diagnosis for the monitor: rules over a sliding window, with hysteresis.

Input is one :class:`Observation` per sample (built by ``devices.sampler`` from a system sample);
output is a :class:`Diagnosis` holding at most one :class:`Verdict` per category:

utilization (GPU vs CPU, the seed table)
    ============  ===========  ===============================================================
    GPU           CPU          verdict
    ============  ===========  ===============================================================
    low / mid     high         input pipeline bottleneck (more DataLoader workers, prefetch…)
    low / mid     one core     single-process input pipeline (num_workers=0 or a Python loop)
    low           low          GPU underused: small batch, or the job is idle / waiting on I/O
    mid           low          GPU partly used
    high          low          GPU-bound: fine, as it should be
    high          high         everything saturated: more hardware needed
    ============  ===========  ===============================================================
gpu_memory
    highest GPU memory use above 90%
host_memory
    RAM above 90%, or swapping
throttling
    clocks held back for thermal or power reasons, or temperature near the slowdown threshold

Flicker is avoided twice: (1) a signal is classified from its *mean over the window* with
separate enter and leave thresholds (GPU enters "low" below 40% and leaves it above 50%); (2) a
new verdict replaces the current one only after it has been the candidate for ``hold_s``
seconds without interruption. The first verdict after start-up is adopted at once.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from desktopapp.model.run_conditions import GpuReading, judge_gpu
from desktopapp.model.units import MIB, format_bytes
from desktopapp.model.validation import (
    InputError,
    require_fraction,
    require_non_negative,
    require_positive,
    require_range,
)

NAN = math.nan

SEVERITIES: tuple[str, ...] = ("ok", "info", "warning", "critical")
CATEGORIES: tuple[str, ...] = ("utilization", "gpu_memory", "host_memory", "throttling")


@dataclass(frozen=True)
class Observation:
    """What the rules need from one sample. Percentages are 0-100, fractions 0-1."""

    timestamp: float
    gpu_util_percent: float = NAN  # mean over the measured GPUs; NaN when none
    cpu_percent: float = NAN  # all cores together
    cpu_max_core_percent: float = NAN  # busiest logical core
    gpu_memory_fraction: float = NAN  # highest over the GPUs
    ram_fraction: float = NAN
    swap_rate_bytes_s: float = NAN  # swap-in + swap-out
    thermal_throttle: bool = False  # any GPU reports a thermal clock reason
    power_throttle: bool = False  # any GPU reports a power-cap / power-brake reason
    temperature_margin_c: float = NAN  # lowest (slowdown threshold - temperature) over GPUs
    gpu_count: int = 0
    # power of the GPU with the lowest limit against its default (NaN when not reported)
    power_w: float = NAN
    power_limit_w: float = NAN
    default_power_limit_w: float = NAN


@dataclass(frozen=True)
class DiagnosisThresholds:
    """Thresholds of the rules. Each *enter* level starts a state, the *exit* level ends it.

    Defaults:
    - GPU utilization is *low* below 40% (left above 50%) and *high* from 80% (left below 70%);
      in between it is *mid*. Typical training that keeps the GPU fed sits above 80%.
    - CPU (all cores) is *high* from 80% (left below 65%).
    - one core is *saturated* from 95% (left below 85%): the signature of a single Python
      process feeding the GPU while the other cores sleep.
    - GPU memory pressure from 90% of the card (left below 85%); host RAM likewise.
    - swapping from 1 MiB/s of swap traffic (left below 0.25 MiB/s).
    - throttling when at least half the samples of the window carry the reason (left below
      20%), or the temperature is within 5 °C of the slowdown threshold (left at 8 °C).
    - ``window_s`` = 30 s of samples are averaged; a verdict needs ``min_coverage_s`` = 5 s of
      data; a change of verdict must hold ``hold_s`` = 10 s.
    """

    gpu_low_enter: float = 40.0
    gpu_low_exit: float = 50.0
    gpu_high_enter: float = 80.0
    gpu_high_exit: float = 70.0
    cpu_high_enter: float = 80.0
    cpu_high_exit: float = 65.0
    core_saturated_enter: float = 95.0
    core_saturated_exit: float = 85.0
    gpu_memory_enter: float = 0.90
    gpu_memory_exit: float = 0.85
    ram_enter: float = 0.90
    ram_exit: float = 0.85
    swap_rate_enter: float = 1.0 * MIB
    swap_rate_exit: float = 0.25 * MIB
    throttle_fraction_enter: float = 0.5
    throttle_fraction_exit: float = 0.2
    temperature_margin_enter_c: float = 5.0
    temperature_margin_exit_c: float = 8.0
    window_s: float = 30.0
    min_coverage_s: float = 5.0
    hold_s: float = 10.0

    def __post_init__(self) -> None:
        for name in (
            "gpu_low_enter",
            "gpu_low_exit",
            "gpu_high_enter",
            "gpu_high_exit",
            "cpu_high_enter",
            "cpu_high_exit",
            "core_saturated_enter",
            "core_saturated_exit",
        ):
            require_range(name, getattr(self, name), 0.0, 100.0)
        for name in ("gpu_memory_enter", "gpu_memory_exit", "ram_enter", "ram_exit"):
            require_fraction(name, getattr(self, name))
        for name in ("throttle_fraction_enter", "throttle_fraction_exit"):
            require_fraction(name, getattr(self, name), allow_zero=True)
        for name in (
            "swap_rate_enter",
            "swap_rate_exit",
            "temperature_margin_enter_c",
            "temperature_margin_exit_c",
            "min_coverage_s",
            "hold_s",
        ):
            require_non_negative(name, getattr(self, name))
        require_positive("window_s", self.window_s)
        pairs = (  # (enter, exit, True when "enter" is above "exit")
            ("gpu_low_exit", "gpu_low_enter"),
            ("gpu_high_enter", "gpu_high_exit"),
            ("cpu_high_enter", "cpu_high_exit"),
            ("core_saturated_enter", "core_saturated_exit"),
            ("gpu_memory_enter", "gpu_memory_exit"),
            ("ram_enter", "ram_exit"),
            ("swap_rate_enter", "swap_rate_exit"),
            ("throttle_fraction_enter", "throttle_fraction_exit"),
            ("temperature_margin_exit_c", "temperature_margin_enter_c"),
        )
        for upper, lower in pairs:
            if getattr(self, upper) < getattr(self, lower):
                raise InputError(
                    upper,
                    f"must be at least {lower} ({getattr(self, lower)!r}), "
                    f"got {getattr(self, upper)!r}",
                )
        if self.gpu_low_exit > self.gpu_high_exit:
            raise InputError(
                "gpu_low_exit",
                f"must not exceed gpu_high_exit ({self.gpu_high_exit!r}), "
                f"got {self.gpu_low_exit!r}",
            )
        if self.min_coverage_s > self.window_s:
            raise InputError(
                "min_coverage_s",
                f"must not exceed window_s ({self.window_s!r}), got {self.min_coverage_s!r}",
            )


@dataclass(frozen=True)
class Verdict:
    key: str  # stable identifier, e.g. "input_bound"
    category: str  # one of CATEGORIES
    title: str
    severity: str  # one of SEVERITIES
    evidence: str  # the numbers behind it, in words
    advice: str
    since: float = NAN  # timestamp at which this verdict became current

    def to_dict(self) -> dict[str, str | float]:
        return {
            "key": self.key,
            "category": self.category,
            "title": self.title,
            "severity": self.severity,
            "evidence": self.evidence,
            "advice": self.advice,
            "since": self.since,
        }


@dataclass(frozen=True)
class Diagnosis:
    timestamp: float
    window_s: float  # seconds of data the window covers
    verdicts: tuple[Verdict, ...] = ()  # utilization first, then the other categories

    def by_category(self, category: str) -> Verdict | None:
        return next((v for v in self.verdicts if v.category == category), None)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(v.key for v in self.verdicts)

    @property
    def worst(self) -> Verdict | None:
        """The most severe verdict (the first one on ties)."""
        if not self.verdicts:
            return None
        return max(self.verdicts, key=lambda v: SEVERITIES.index(v.severity))

    def to_dict(self) -> dict[str, object]:
        return {
            "timestamp": self.timestamp,
            "window_s": self.window_s,
            "verdicts": [v.to_dict() for v in self.verdicts],
        }


# --- window statistics ---------------------------------------------------------------------


@dataclass(frozen=True)
class WindowStats:
    """Means over the window (NaN-ignoring) and the share of samples with a throttle flag."""

    seconds: float
    samples: int
    gpu_util: float
    cpu: float
    cpu_max_core: float
    gpu_memory: float
    ram: float
    swap_rate: float
    thermal_fraction: float
    power_fraction: float
    temperature_margin: float  # lowest over the window
    gpu_count: int
    power_w: float = NAN  # mean draw of the GPU with the lowest limit
    power_limit_w: float = NAN  # latest reading
    default_power_limit_w: float = NAN


def _mean(values: Iterable[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else NAN


def window_stats(observations: Iterable[Observation]) -> WindowStats:
    obs = list(observations)
    if not obs:
        return WindowStats(0.0, 0, NAN, NAN, NAN, NAN, NAN, NAN, 0.0, 0.0, NAN, 0)
    margins = [o.temperature_margin_c for o in obs if math.isfinite(o.temperature_margin_c)]
    n = len(obs)
    return WindowStats(
        seconds=obs[-1].timestamp - obs[0].timestamp,
        samples=n,
        gpu_util=_mean(o.gpu_util_percent for o in obs),
        cpu=_mean(o.cpu_percent for o in obs),
        cpu_max_core=_mean(o.cpu_max_core_percent for o in obs),
        gpu_memory=_mean(o.gpu_memory_fraction for o in obs),
        ram=_mean(o.ram_fraction for o in obs),
        swap_rate=_mean(o.swap_rate_bytes_s for o in obs),
        thermal_fraction=sum(o.thermal_throttle for o in obs) / n,
        power_fraction=sum(o.power_throttle for o in obs) / n,
        temperature_margin=min(margins) if margins else NAN,
        gpu_count=max(o.gpu_count for o in obs),
        power_w=_mean(o.power_w for o in obs),
        power_limit_w=_last(o.power_limit_w for o in obs),
        default_power_limit_w=_last(o.default_power_limit_w for o in obs),
    )


def _last(values: Iterable[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return finite[-1] if finite else NAN


# --- hysteresis bands ----------------------------------------------------------------------


def classify_gpu(value: float, previous: str | None, th: DiagnosisThresholds) -> str | None:
    """ "low", "mid" or "high" with separate enter/exit levels; None when unknown (NaN)."""
    if not math.isfinite(value):
        return None
    if previous == "low" and value <= th.gpu_low_exit:
        return "low"
    if previous == "high" and value >= th.gpu_high_exit:
        return "high"
    if value < th.gpu_low_enter:
        return "low"
    if value >= th.gpu_high_enter:
        return "high"
    return "mid"


def hold_above(value: float, previous: bool, enter: float, exit_: float) -> bool:
    """True from ``value >= enter`` until ``value < exit_`` (NaN keeps it False)."""
    if not math.isfinite(value):
        return False
    return value >= exit_ if previous else value >= enter


def hold_below(value: float, previous: bool, enter: float, exit_: float) -> bool:
    """True from ``value <= enter`` until ``value > exit_`` (NaN keeps it False)."""
    if not math.isfinite(value):
        return False
    return value <= exit_ if previous else value <= enter


@dataclass
class _Bands:
    gpu: str | None = None
    cpu_high: bool = False
    core_saturated: bool = False
    gpu_memory: bool = False
    ram: bool = False
    swapping: bool = False
    thermal: bool = False
    power: bool = False
    hot: bool = False


def _pct(value: float) -> str:
    return f"{value:.0f}%" if math.isfinite(value) else "unknown"


def _seconds(value: float) -> str:
    return f"{value:.0f} s"


def _gpus_word(n: int) -> str:
    return "GPU" if n <= 1 else f"GPU (mean of {n})"


def _utilization_verdict(s: WindowStats, b: _Bands) -> Verdict | None:
    if b.gpu is None:
        return Verdict(
            "no_gpu",
            "utilization",
            "No GPU utilization measured",
            "info",
            f"no GPU utilization in the last {_seconds(s.seconds)}; CPU {_pct(s.cpu)}",
            "The GPU rules need NVML (an NVIDIA driver and nvidia-ml-py); CPU and memory "
            "are still watched.",
        )
    gpu = f"{_gpus_word(s.gpu_count)} {_pct(s.gpu_util)} mean over {_seconds(s.seconds)}"
    cpu = f"CPU {_pct(s.cpu)}"
    core = f"busiest core {_pct(s.cpu_max_core)}"
    if b.gpu in ("low", "mid") and b.cpu_high:
        return Verdict(
            "input_bound",
            "utilization",
            "Data loading bottleneck: the CPU cannot feed the GPU",
            "warning",
            f"{gpu} while {cpu}",
            "Use more DataLoader workers (num_workers), prefetching (prefetch_factor), "
            "pin_memory=True, faster storage or pre-decoded data; move augmentation to the GPU.",
        )
    if b.gpu in ("low", "mid") and b.core_saturated:
        return Verdict(
            "single_core_input",
            "utilization",
            "Single-process input pipeline: one CPU core feeds the GPU",
            "warning",
            f"{gpu} while {core} ({cpu} overall)",
            "Load data in parallel: DataLoader(num_workers>0, persistent_workers=True), "
            "pin_memory=True; avoid per-sample Python work and .item() / .cpu() syncs in the "
            "training loop.",
        )
    if b.gpu == "low":
        return Verdict(
            "underused",
            "utilization",
            "GPU underused: small batch, or the job is idle or waiting",
            "warning",
            f"{gpu} while {cpu}",
            "Raise the batch size or accumulate gradients; or the job is waiting on I/O "
            "(network, disk, checkpoints) or has finished and holds the GPU.",
        )
    if b.gpu == "mid":  # CPU not high here: that case is input_bound above
        return Verdict(
            "partly_used",
            "utilization",
            "GPU partly used",
            "info",
            f"{gpu} while {cpu}",
            "Try a larger batch or mixed precision; look for host-device syncs and small "
            "kernels (torch.profiler shows the gaps).",
        )
    if b.cpu_high:
        return Verdict(
            "saturated",
            "utilization",
            "GPU and CPU both saturated: more hardware needed",
            "info",
            f"{gpu} while {cpu}",
            "Both sides are busy: a faster or second GPU and more CPU cores would both be "
            "needed to go faster; check mixed precision and data format first.",
        )
    return Verdict(
        "gpu_bound",
        "utilization",
        "GPU-bound: working as it should",
        "ok",
        f"{gpu} while {cpu}",
        "Nothing to fix: the GPU is the bottleneck. Speed-ups now come from the model side "
        "(mixed precision, fused kernels, torch.compile) or a faster GPU.",
    )


def _gpu_memory_verdict(s: WindowStats, b: _Bands) -> Verdict | None:
    if not b.gpu_memory:
        return None
    return Verdict(
        "gpu_memory_pressure",
        "gpu_memory",
        "GPU memory nearly full",
        "warning",
        f"GPU memory {_pct(s.gpu_memory * 100)} used (mean over {_seconds(s.seconds)})",
        "An out-of-memory error is close: lower the batch size and accumulate gradients, "
        "use mixed precision, activation checkpointing, or shard the optimizer state.",
    )


def _host_memory_verdict(s: WindowStats, b: _Bands) -> Verdict | None:
    if b.swapping:
        ram = f"RAM {_pct(s.ram * 100)} used, " if math.isfinite(s.ram) else ""
        return Verdict(
            "swapping",
            "host_memory",
            "Host is swapping",
            "critical",
            f"{ram}swap traffic {format_bytes(s.swap_rate)}/s (mean over {_seconds(s.seconds)})",
            "Swapping stalls everything: use fewer DataLoader workers or a smaller prefetch "
            "queue, memory-map the data set, or add RAM.",
        )
    if b.ram:
        return Verdict(
            "host_memory_pressure",
            "host_memory",
            "Host RAM nearly full",
            "warning",
            f"RAM {_pct(s.ram * 100)} used (mean over {_seconds(s.seconds)})",
            "Close to swapping: use fewer DataLoader workers or a smaller prefetch queue, "
            "memory-map the data set, or add RAM.",
        )
    return None


def _throttle_verdict(s: WindowStats, b: _Bands) -> Verdict | None:
    if b.thermal or b.hot:
        parts = []
        if math.isfinite(s.thermal_fraction) and s.thermal_fraction > 0:
            parts.append(f"thermal clock reason in {_pct(s.thermal_fraction * 100)} of samples")
        if math.isfinite(s.temperature_margin):
            parts.append(f"{s.temperature_margin:.0f} °C below the slowdown temperature")
        return Verdict(
            "thermal_throttling",
            "throttling",
            "GPU slowed down by heat",
            "warning",
            ", ".join(parts) + f" (over {_seconds(s.seconds)})",
            "Improve cooling: airflow, fan curve, room temperature, dust; or lower the power "
            "limit slightly, which often costs less speed than thermal throttling.",
        )
    if b.power:
        # the rule the benchmark's run conditions use as well (model.run_conditions)
        reading = GpuReading(
            power_w=s.power_w,
            power_limit_w=s.power_limit_w,
            default_power_limit_w=s.default_power_limit_w,
            reasons=("power cap",),
        )
        judged = judge_gpu(reading)
        share = (
            f"power-cap clock reason in {_pct(s.power_fraction * 100)} of samples "
            f"(over {_seconds(s.seconds)})"
        )
        if judged.disturbed:
            return Verdict(
                "power_limit_lowered",
                "throttling",
                "GPU held at a lowered power limit",
                "warning",
                f"{'; '.join(judged.causes)}; {share}",
                "The limit was set below the default (nvidia-smi -pl); raising it back "
                "(nvidia-smi -pl <default>) gives more speed.",
            )
        limit = (
            f"{s.power_limit_w:,.0f} W limit"
            + (" (the default)" if math.isfinite(s.default_power_limit_w) else "")
            + "; "
            if math.isfinite(s.power_limit_w)
            else ""
        )
        return Verdict(
            "power_throttling",
            "throttling",
            "GPU held at its power limit",
            "info",
            f"{limit}{share}",
            "Normal under heavy load: the GPU runs at its normal limit and re-running changes "
            "nothing.",
        )
    return None


class Diagnoser:
    """Feed one :class:`Observation` per sample to :meth:`update`; read the current
    :class:`Diagnosis`. Timestamps must not decrease."""

    def __init__(self, thresholds: DiagnosisThresholds | None = None) -> None:
        self.thresholds = thresholds or DiagnosisThresholds()
        self._window: deque[Observation] = deque()
        self._bands = _Bands()
        self._current: dict[str, Verdict | None] = {}
        self._pending: dict[str, tuple[str | None, float]] = {}
        self._last = Diagnosis(NAN, 0.0)

    def reset(self) -> None:
        self._window.clear()
        self._bands = _Bands()
        self._current.clear()
        self._pending.clear()
        self._last = Diagnosis(NAN, 0.0)

    @property
    def current(self) -> Diagnosis:
        return self._last

    def update(self, observation: Observation) -> Diagnosis:
        th = self.thresholds
        now = observation.timestamp
        if self._window and now < self._window[-1].timestamp:
            raise InputError(
                "timestamp",
                f"must not go backwards, got {now!r} after {self._window[-1].timestamp!r}",
            )
        self._window.append(observation)
        while self._window and self._window[0].timestamp < now - th.window_s:
            self._window.popleft()
        stats = window_stats(self._window)
        if stats.seconds < th.min_coverage_s:
            collecting = Verdict(
                "collecting",
                "utilization",
                "Collecting data",
                "info",
                f"{_seconds(stats.seconds)} of the {_seconds(th.min_coverage_s)} needed",
                "Keep the job running; a verdict appears after a few seconds.",
                now,
            )
            self._last = Diagnosis(now, stats.seconds, (collecting,))
            return self._last
        self._update_bands(stats)
        b = self._bands
        candidates = {
            "utilization": _utilization_verdict(stats, b),
            "gpu_memory": _gpu_memory_verdict(stats, b),
            "host_memory": _host_memory_verdict(stats, b),
            "throttling": _throttle_verdict(stats, b),
        }
        verdicts = []
        for category in CATEGORIES:
            chosen = self._hold(category, candidates[category], now)
            if chosen is not None:
                verdicts.append(chosen)
        self._last = Diagnosis(now, stats.seconds, tuple(verdicts))
        return self._last

    def _update_bands(self, s: WindowStats) -> None:
        th, b = self.thresholds, self._bands
        b.gpu = classify_gpu(s.gpu_util, b.gpu, th)
        b.cpu_high = hold_above(s.cpu, b.cpu_high, th.cpu_high_enter, th.cpu_high_exit)
        b.core_saturated = hold_above(
            s.cpu_max_core, b.core_saturated, th.core_saturated_enter, th.core_saturated_exit
        )
        b.gpu_memory = hold_above(
            s.gpu_memory, b.gpu_memory, th.gpu_memory_enter, th.gpu_memory_exit
        )
        b.ram = hold_above(s.ram, b.ram, th.ram_enter, th.ram_exit)
        b.swapping = hold_above(s.swap_rate, b.swapping, th.swap_rate_enter, th.swap_rate_exit)
        b.thermal = hold_above(
            s.thermal_fraction, b.thermal, th.throttle_fraction_enter, th.throttle_fraction_exit
        )
        b.power = hold_above(
            s.power_fraction, b.power, th.throttle_fraction_enter, th.throttle_fraction_exit
        )
        b.hot = hold_below(
            s.temperature_margin,
            b.hot,
            th.temperature_margin_enter_c,
            th.temperature_margin_exit_c,
        )

    def _hold(self, category: str, candidate: Verdict | None, now: float) -> Verdict | None:
        """Adopt ``candidate`` once it has been proposed for ``hold_s`` seconds in a row."""
        new_key = candidate.key if candidate else None
        if category not in self._current:  # first verdict after start-up: adopt at once
            self._current[category] = _stamped(candidate, now)
            return self._current[category]
        current = self._current[category]
        current_key = current.key if current else None
        if new_key == current_key:
            self._pending.pop(category, None)
            # Same verdict: refresh evidence (numbers move) but keep when it started.
            if candidate is not None and current is not None:
                self._current[category] = _stamped(candidate, current.since)
            return self._current[category]
        pending = self._pending.get(category)
        if pending is None or pending[0] != new_key:
            self._pending[category] = (new_key, now)
            return current
        if now - pending[1] >= self.thresholds.hold_s:
            self._pending.pop(category)
            self._current[category] = _stamped(candidate, now)
        return self._current[category]


def _stamped(verdict: Verdict | None, since: float) -> Verdict | None:
    if verdict is None:
        return None
    return Verdict(
        verdict.key,
        verdict.category,
        verdict.title,
        verdict.severity,
        verdict.evidence,
        verdict.advice,
        since,
    )


def diagnose_series(
    observations: Iterable[Observation], thresholds: DiagnosisThresholds | None = None
) -> list[Diagnosis]:
    """Run a :class:`Diagnoser` over a whole series; one :class:`Diagnosis` per observation."""
    diagnoser = Diagnoser(thresholds)
    return [diagnoser.update(o) for o in observations]


__all__ = [
    "CATEGORIES",
    "SEVERITIES",
    "Diagnoser",
    "Diagnosis",
    "DiagnosisThresholds",
    "Observation",
    "Verdict",
    "WindowStats",
    "classify_gpu",
    "diagnose_series",
    "hold_above",
    "hold_below",
    "window_stats",
]
