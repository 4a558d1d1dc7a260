"""The conditions a benchmark ran under: other load, clocks, throttling.

A quick fp32 matmul on a shared 2-core machine measured anywhere from 0.6 to 114 GFLOP/s
depending on what else ran; without the conditions the two figures look equally valid. A
:class:`ConditionsProbe` is started before a run and finished after it:

- **Other processes' CPU share**: system-wide busy CPU time (psutil) minus this process's own
  CPU time (its threads and the children it waited for, e.g. the collective benchmark's
  ranks), as a share of all logical CPUs over the run's wall time.
- **CPU clock** at the start and the end against its maximum, where the OS reports them.
- **The GPU's readings** of a CUDA device through NVML, right after the work: power draw, the
  enforced and the default power limit, SM and application clocks, clock-event reasons and
  other processes on the GPU.

The probe never raises: what cannot be read is NaN or an empty tuple, with a reason in
``problems``. Whether a run is *disturbed* is decided by the rule the monitor's diagnosis uses
too (:mod:`desktopapp.model.run_conditions`): other processes on the GPU or taking at least
:data:`DISTURBED_SHARE` of the CPUs, a lowered power limit, thermal or hardware slowdown, or
clocks far below the application clock with no power reason. A GPU held at its default power
limit under load is *normal*: it says so in the summary, and the run is not marked.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from desktopapp.model.run_conditions import (
    DISTURBED_CPU_SHARE,
    ConditionsVerdict,
    GpuReading,
    judge_gpu,
    judge_run,
)

DISTURBED_SHARE = DISTURBED_CPU_SHARE  # other processes' share of all CPUs: "disturbed"

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
    gpu: GpuReading | None = None  # the GPU's readings right after the work (CUDA only)
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def gpu_clock_reasons(self) -> tuple[str, ...]:
        return self.gpu.reasons if self.gpu is not None else ()

    @property
    def verdict(self) -> ConditionsVerdict:
        return judge_run(
            (self.gpu,) if self.gpu is not None else (),
            other_cpu_share=self.other_cpu_share,
            cpus=self.cpus,
        )

    @property
    def gpu_throttled(self) -> bool:
        """Clocks held back by a cause that can be removed (heat, HW slowdown, a lowered
        limit); a GPU at its default power cap is not throttled in this sense."""
        return self.gpu is not None and judge_gpu(self.gpu).disturbed

    @property
    def disturbed(self) -> bool:
        return self.verdict.disturbed

    def summary(self) -> str:
        """One line for the results and the history: what else happened during the run."""
        verdict = self.verdict
        parts = []
        if math.isfinite(self.other_cpu_share):
            parts.append(f"other processes used {self.other_cpu_share:.0%} of the {self.cpus} CPUs")
        else:
            parts.append("other processes' CPU use unknown")
        if math.isfinite(self.cpu_mhz_end) and math.isfinite(self.cpu_mhz_max):
            parts.append(f"CPU clock {self.cpu_mhz_end:,.0f} of {self.cpu_mhz_max:,.0f} MHz")
        g = self.gpu
        if g is not None:
            gpu_parts = []
            if math.isfinite(g.sm_clock_mhz):
                gpu_parts.append(f"SM clock {g.sm_clock_mhz:,.0f} MHz")
            if math.isfinite(g.power_w) and math.isfinite(g.power_limit_w):
                gpu_parts.append(f"{g.power_w:,.0f} W of a {g.power_limit_w:,.0f} W limit")
            if gpu_parts:
                parts.append("GPU " + ", ".join(gpu_parts))
        if verdict.disturbed:
            causes = "; ".join(verdict.causes)
            context = [p for p in parts if p not in verdict.causes]
            more = f" ({'; '.join(context)})" if context else ""
            return (
                f"disturbed run: {causes}{more}. Figures understate what this "
                "machine delivers; remove the cause and re-run"
            )
        text = "; ".join(parts + list(verdict.notes))
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
            "gpu": self.gpu.to_dict() if self.gpu is not None else None,
            "disturbed": self.disturbed,
            "state": self.verdict.state,
            "causes": list(self.verdict.causes),
            "normal_limits": list(self.verdict.notes),
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


def _milli(value: Any) -> float:
    return float(value) / 1000.0 if isinstance(value, int | float) else NAN


def _mhz(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and value > 0 else NAN


def _pids(procs: Any) -> list[int]:
    try:
        return [int(p.pid) for p in procs or ()]
    except (TypeError, AttributeError, ValueError):
        return []


def _process_name(pid: int) -> str:
    try:
        import psutil

        return f"pid {pid} {psutil.Process(pid).name()}"
    except Exception:
        return f"pid {pid}"


def read_gpu(index: int, own_pids: frozenset[int] | None = None) -> GpuReading | None:
    """Power, limits, clocks, clock-event reasons and other processes of GPU ``index``."""
    from desktopapp.devices import nvml

    handle = nvml.safe_call("nvmlDeviceGetHandleByIndex", index)
    if handle is None:
        return None
    ours = own_pids if own_pids is not None else _own_pids()
    sm = getattr(nvml.module(), "NVML_CLOCK_SM", 1)
    app = _mhz(nvml.safe_call("nvmlDeviceGetApplicationsClock", handle, sm))
    if not math.isfinite(app):
        app = _mhz(nvml.safe_call("nvmlDeviceGetMaxClockInfo", handle, sm))
    pids = _pids(nvml.safe_call("nvmlDeviceGetComputeRunningProcesses", handle))
    pids += _pids(nvml.safe_call("nvmlDeviceGetGraphicsRunningProcesses", handle))
    foreign = tuple(_process_name(p) for p in dict.fromkeys(pids) if p not in ours)
    return GpuReading(
        index=index,
        power_w=_milli(nvml.safe_call("nvmlDeviceGetPowerUsage", handle)),
        power_limit_w=_milli(nvml.safe_call("nvmlDeviceGetEnforcedPowerLimit", handle)),
        default_power_limit_w=_milli(
            nvml.safe_call("nvmlDeviceGetPowerManagementDefaultLimit", handle)
        ),
        sm_clock_mhz=_mhz(nvml.safe_call("nvmlDeviceGetClockInfo", handle, sm)),
        app_sm_clock_mhz=app,
        reasons=read_gpu_clock_reasons(index),
        foreign_processes=foreign,
    )


def _own_pids() -> frozenset[int]:
    """This process, its children (the collective benchmark's ranks) and its parent (the
    desktop app, which runs benchmarks in a child process and may hold a CUDA context)."""
    pids = {os.getpid(), os.getppid()}
    try:
        import psutil

        pids.update(c.pid for c in psutil.Process().children(recursive=True))
    except Exception:
        pass
    return frozenset(pids)


class ConditionsProbe:
    """``start()`` before a run, ``finish()`` after it; readers can be replaced in tests."""

    def __init__(
        self,
        *,
        gpu_index: int | None = None,
        cpus: int | None = None,
        cpu_reader: Callable[[], CpuTimes] = read_cpu_times,
        gpu_reader: Callable[[int], GpuReading | None] = read_gpu,
        clock: Callable[[], float] = time.monotonic,
        gpu_interval_s: float | None = None,
    ) -> None:
        self.gpu_index = gpu_index
        # GPU readings during the run (a background thread), not only after it: at the end the
        # GPU is idle again and its power-cap reason and load clocks are gone. None: only at
        # the end (tests with scripted readers).
        self.gpu_interval_s = gpu_interval_s
        self._gpu_samples: list[GpuReading] = []
        self._stop_sampling = threading.Event()
        self._sampler: threading.Thread | None = None
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
        if self.gpu_index is not None and self.gpu_interval_s:
            self._sampler = threading.Thread(
                target=self._sample_gpu, name="bench-gpu-conditions", daemon=True
            )
            self._sampler.start()
        return self

    def _sample_gpu(self) -> None:
        assert self.gpu_index is not None and self.gpu_interval_s
        while not self._stop_sampling.wait(self.gpu_interval_s):
            try:
                reading = self._gpu_reader(self.gpu_index)
            except Exception:  # a sensor never stops a run; the final reading reports problems
                continue
            if reading is not None:
                self._gpu_samples.append(reading)

    def _merged_gpu(self, last: GpuReading | None) -> GpuReading | None:
        """The reading under the heaviest load (highest power draw) of the run, with every
        clock reason and foreign process seen at any time."""
        samples = [*self._gpu_samples, *([last] if last is not None else [])]
        if not samples:
            return None
        busiest = max(samples, key=lambda g: g.power_w if math.isfinite(g.power_w) else -1.0)
        reasons = tuple(
            dict.fromkeys(r for g in samples for r in g.reasons if "idle" not in r.lower())
        )
        foreign = tuple(dict.fromkeys(p for g in samples for p in g.foreign_processes))
        return replace(busiest, reasons=reasons, foreign_processes=foreign)

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
        gpu: GpuReading | None = None
        if self._sampler is not None:
            self._stop_sampling.set()
            self._sampler.join(timeout=5)
        if self.gpu_index is not None:
            try:
                gpu = self._gpu_reader(self.gpu_index)
            except Exception as exc:
                self._problems.append(f"GPU readings unavailable because {exc}")
            gpu = self._merged_gpu(gpu)
        return RunConditions(
            seconds=seconds,
            cpus=self.cpus,
            other_cpu_share=other,
            own_cpu_share=own,
            cpu_mhz_start=start.mhz if start is not None else NAN,
            cpu_mhz_end=end.mhz if end is not None else NAN,
            cpu_mhz_max=end.max_mhz if end is not None else NAN,
            gpu=gpu,
            problems=tuple(self._problems),
        )
