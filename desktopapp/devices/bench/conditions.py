"""The conditions a benchmark ran under: other load, clocks, throttling.

A quick fp32 matmul on a shared 2-core machine measured anywhere from 0.6 to 114 GFLOP/s
depending on what else ran; without the conditions the two figures look equally valid. A
:class:`ConditionsProbe` is started before a run and finished after it:

- **Other processes' CPU share**: system-wide busy CPU time (psutil) minus this process's own
  CPU time (its threads and the children it waited for, e.g. the collective benchmark's
  ranks), as a share of all logical CPUs over the run's wall time.
- **CPU clock** at the start and the end against its maximum, where the OS reports them.
- **GPU clock-event reasons** (thermal, power, …) of a CUDA device through NVML, where readable.

The probe never raises: what cannot be read is NaN or an empty tuple, with a reason in
``problems``. A run is *disturbed* when other processes took at least
:data:`DISTURBED_SHARE` of the machine's CPUs, or a GPU throttled for heat or power.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DISTURBED_SHARE = 0.15  # other processes' share of all CPUs that makes a run "disturbed"
_THROTTLE_WORDS = ("thermal", "power", "hw slowdown")  # reasons that lower measured speed

NAN = float("nan")


@dataclass(frozen=True)
class CpuTimes:
    """One reading: system-wide busy and total CPU seconds, this process's CPU seconds."""

    busy_s: float
    own_s: float
    mhz: float = NAN
    max_mhz: float = NAN


@dataclass(frozen=True)
class RunConditions:
    seconds: float
    cpus: int
    other_cpu_share: float = NAN  # 0..1 of all logical CPUs, NaN when unknown
    own_cpu_share: float = NAN
    cpu_mhz_start: float = NAN
    cpu_mhz_end: float = NAN
    cpu_mhz_max: float = NAN
    gpu_clock_reasons: tuple[str, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def gpu_throttled(self) -> bool:
        return any(w in r for r in self.gpu_clock_reasons for w in _THROTTLE_WORDS)

    @property
    def disturbed(self) -> bool:
        busy = math.isfinite(self.other_cpu_share) and self.other_cpu_share >= DISTURBED_SHARE
        return busy or self.gpu_throttled

    def summary(self) -> str:
        """One line for the results and the history: what else happened during the run."""
        parts = []
        if math.isfinite(self.other_cpu_share):
            parts.append(f"other processes used {self.other_cpu_share:.0%} of the {self.cpus} CPUs")
        else:
            parts.append("other processes' CPU use unknown")
        if math.isfinite(self.cpu_mhz_end) and math.isfinite(self.cpu_mhz_max):
            parts.append(f"CPU clock {self.cpu_mhz_end:,.0f} of {self.cpu_mhz_max:,.0f} MHz")
        if self.gpu_clock_reasons:
            parts.append("GPU clocks limited by " + ", ".join(self.gpu_clock_reasons))
        text = "; ".join(parts)
        if self.disturbed:
            return (
                f"disturbed run: {text}. Figures understate what this machine delivers; "
                "re-run with the machine otherwise idle"
            )
        return f"clean run: {text}"

    def to_dict(self) -> dict[str, Any]:
        def num(value: float) -> float | None:
            return value if math.isfinite(value) else None

        return {
            "seconds": self.seconds,
            "cpus": self.cpus,
            "other_cpu_share": num(self.other_cpu_share),
            "own_cpu_share": num(self.own_cpu_share),
            "cpu_mhz_start": num(self.cpu_mhz_start),
            "cpu_mhz_end": num(self.cpu_mhz_end),
            "cpu_mhz_max": num(self.cpu_mhz_max),
            "gpu_clock_reasons": list(self.gpu_clock_reasons),
            "disturbed": self.disturbed,
            "summary": self.summary(),
            "problems": list(self.problems),
        }


def read_cpu_times() -> CpuTimes:
    """psutil reading; raises when psutil cannot read (the probe turns that into a problem)."""
    import psutil

    total = psutil.cpu_times()
    idle = total.idle + getattr(total, "iowait", 0.0)
    busy = sum(total) - idle - getattr(total, "guest", 0.0) - getattr(total, "guest_nice", 0.0)
    own = psutil.Process().cpu_times()
    own_s = own.user + own.system + own.children_user + own.children_system
    mhz = max_mhz = NAN
    try:
        freq = psutil.cpu_freq()
        if freq is not None:
            mhz = float(freq.current) or NAN
            max_mhz = float(freq.max) or NAN
    except Exception:  # not reported on this platform
        pass
    return CpuTimes(busy, own_s, mhz, max_mhz)


def read_gpu_clock_reasons(index: int) -> tuple[str, ...]:
    """NVML clock-event reasons of GPU ``index`` (idle/app-clock bits left out)."""
    from desktopapp.devices import nvml
    from desktopapp.devices.gpu_sampling import decode_clock_reasons

    handle = nvml.safe_call("nvmlDeviceGetHandleByIndex", index)
    if handle is None:
        return ()
    mask = nvml.safe_call("nvmlDeviceGetCurrentClocksEventReasons", handle)
    if mask is None:
        mask = nvml.safe_call("nvmlDeviceGetCurrentClocksThrottleReasons", handle)
    if not isinstance(mask, int):
        return ()
    return tuple(r for r in decode_clock_reasons(mask) if "idle" not in r and "applic" not in r)


class ConditionsProbe:
    """``start()`` before a run, ``finish()`` after it; readers can be replaced in tests."""

    def __init__(
        self,
        *,
        gpu_index: int | None = None,
        cpus: int | None = None,
        cpu_reader: Callable[[], CpuTimes] = read_cpu_times,
        gpu_reader: Callable[[int], tuple[str, ...]] = read_gpu_clock_reasons,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.gpu_index = gpu_index
        self.cpus = cpus or os.cpu_count() or 1
        self._cpu_reader = cpu_reader
        self._gpu_reader = gpu_reader
        self._clock = clock
        self._start: CpuTimes | None = None
        self._t0 = NAN
        self._problems: list[str] = []

    def _read(self) -> CpuTimes | None:
        try:
            return self._cpu_reader()
        except Exception as exc:
            self._problems.append(f"CPU times unavailable because {type(exc).__name__}: {exc}")
            return None

    def start(self) -> ConditionsProbe:
        self._t0 = self._clock()
        self._start = self._read()
        return self

    def finish(self) -> RunConditions:
        seconds = max(self._clock() - self._t0, 0.0) if math.isfinite(self._t0) else NAN
        end = self._read()
        other = own = NAN
        start = self._start
        if start is not None and end is not None and seconds > 0:
            capacity = seconds * self.cpus
            own_s = max(end.own_s - start.own_s, 0.0)
            busy_s = max(end.busy_s - start.busy_s, 0.0)
            own = min(own_s / capacity, 1.0)
            other = min(max(busy_s - own_s, 0.0) / capacity, 1.0)
        reasons: tuple[str, ...] = ()
        if self.gpu_index is not None:
            try:
                reasons = self._gpu_reader(self.gpu_index)
            except Exception as exc:
                self._problems.append(f"GPU clocks unavailable because {exc}")
        return RunConditions(
            seconds=seconds,
            cpus=self.cpus,
            other_cpu_share=other,
            own_cpu_share=own,
            cpu_mhz_start=start.mhz if start is not None else NAN,
            cpu_mhz_end=end.mhz if end is not None else NAN,
            cpu_mhz_max=end.max_mhz if end is not None else NAN,
            gpu_clock_reasons=reasons,
            problems=tuple(self._problems),
        )
