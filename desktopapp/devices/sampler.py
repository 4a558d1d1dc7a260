"""Live system samples for the monitor: one immutable :class:`SystemSample` per tick.

- :class:`Sampler` is the protocol (``sample()``, ``close()``); :class:`RealSampler` reads psutil
  and NVML; ``desktopapp.testing.sampler.FakeSampler`` plays a deterministic script (tests, UI
  tests, benchmarks and the monitor's demo mode; it never sleeps, so it runs at any rate).
- A sample never raises and is never partial by exception: a missing value is NaN, with the
  reason in ``problems`` (sample level) or ``GpuSample.unavailable`` (field level).
- :meth:`SystemSample.channels` flattens a sample into named float channels (units from
  :func:`channel_unit`) for ring buffers, the session store and CSV.
- :class:`MonitorSession` ties a sampler to the history buffers, the diagnosis and the idle-cost
  tracker: the Monitor tab and ``desktopapp monitor`` call :meth:`MonitorSession.tick`.

Cost: ``RealSampler.sample()`` reads a handful of /proc files (≈0.3 ms on Linux without a GPU)
plus ~12 NVML queries per GPU. Process enumeration and the PCIe counters (which block ~20 ms
each inside NVML) run every ``slow_interval_s`` (2 s), not every sample.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from desktopapp.devices.gpu_sampling import (
    GpuProcess,
    GpuReader,
    GpuSample,
)
from desktopapp.devices.host import (
    CpuSample,
    HostReader,
    IoSample,
    MemorySample,
    ProcessInfoCache,
)

# These two modules are light: psutil and pynvml are imported when a reader is constructed.
from desktopapp.devices.problems import CLOSED, GPU_READ, HOST, NO_GPU, PROCESSES, Problem
from desktopapp.model.diagnosis import Diagnoser, Diagnosis, DiagnosisThresholds, Observation
from desktopapp.model.idle_cost import IdleCostConfig, IdleCostReport, IdleCostTracker, ProcessUse
from desktopapp.model.ringbuffer import MonitorHistory, RunningStats

NAN = math.nan

__all__ = [
    "ChannelSpec",
    "CpuSample",
    "GpuProcess",
    "GpuSample",
    "IoSample",
    "MemorySample",
    "MonitorSession",
    "MonitorUpdate",
    "RealSampler",
    "SampleSink",
    "Sampler",
    "SystemSample",
    "channel_unit",
]


# --- channels ------------------------------------------------------------------------------

_HOST_UNITS: dict[str, str] = {
    "cpu.percent": "%",
    "cpu.max_core": "%",
    "cpu.load1": "load",
    "mem.used": "B",
    "mem.percent": "%",
    "swap.used": "B",
    "swap.percent": "%",
    "swap.in": "B/s",
    "swap.out": "B/s",
    "disk.read": "B/s",
    "disk.write": "B/s",
    "net.rx": "B/s",
    "net.tx": "B/s",
}
_GPU_UNITS: dict[str, str] = {
    "util": "%",
    "mem_util": "%",
    "mem.used": "B",
    "mem.percent": "%",
    "power": "W",
    "power_limit": "W",
    "energy": "J",
    "temp": "°C",
    "sm_clock": "MHz",
    "mem_clock": "MHz",
    "pcie.rx": "MB/s",
    "pcie.tx": "MB/s",
    "fan": "%",
    "throttle": "bitmask",
}


@dataclass(frozen=True)
class ChannelSpec:
    name: str  # "gpu0.util"
    unit: str  # "%"

    @property
    def header(self) -> str:
        """CSV column title, e.g. ``"gpu0.util (%)"``."""
        return f"{self.name} ({self.unit})" if self.unit else self.name


def channel_unit(name: str) -> str:
    """Unit of a channel name produced by :meth:`SystemSample.channels` ("" if unknown)."""
    if name in _HOST_UNITS:
        return _HOST_UNITS[name]
    if name.startswith("cpu.core"):
        return "%"
    if name.startswith("gpu"):
        _, _, rest = name.partition(".")
        return _GPU_UNITS.get(rest, "")
    return ""


def _pct(used: float, total: float) -> float:
    return 100.0 * used / total if total > 0 else NAN


@dataclass(frozen=True)
class SystemSample:
    timestamp: float  # seconds since the epoch (never goes backwards within one sampler)
    cpu: CpuSample = field(default_factory=CpuSample)
    memory: MemorySample = field(default_factory=MemorySample)
    io: IoSample = field(default_factory=IoSample)
    gpus: tuple[GpuSample, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def processes(self) -> tuple[GpuProcess, ...]:
        """Every process on every GPU."""
        return tuple(p for g in self.gpus for p in g.processes)

    def channels(self, per_core: bool = True) -> dict[str, float]:
        """Flat ``{channel: value}``: host channels, ``cpu.core<i>`` and ``gpu<i>.<field>``."""
        cpu, mem, io = self.cpu, self.memory, self.io
        out: dict[str, float] = {
            "cpu.percent": cpu.percent,
            "cpu.max_core": cpu.max_core_percent,
            "cpu.load1": cpu.load_avg[0],
            "mem.used": mem.used_bytes,
            "mem.percent": mem.percent,
            "swap.used": mem.swap_used_bytes,
            "swap.percent": mem.swap_percent,
            "swap.in": mem.swap_in_bytes_s,
            "swap.out": mem.swap_out_bytes_s,
            "disk.read": io.disk_read_bytes_s,
            "disk.write": io.disk_write_bytes_s,
            "net.rx": io.net_rx_bytes_s,
            "net.tx": io.net_tx_bytes_s,
        }
        if per_core:
            for i, value in enumerate(cpu.per_core):
                out[f"cpu.core{i}"] = value
        for g in self.gpus:
            p = f"gpu{g.index}."
            out[p + "util"] = g.util_percent
            out[p + "mem_util"] = g.memory_util_percent
            out[p + "mem.used"] = g.memory_used_bytes
            out[p + "mem.percent"] = _pct(g.memory_used_bytes, g.memory_total_bytes)
            out[p + "power"] = g.power_w
            out[p + "power_limit"] = g.power_limit_w
            out[p + "energy"] = g.energy_j
            out[p + "temp"] = g.temperature_c
            out[p + "sm_clock"] = g.sm_clock_mhz
            out[p + "mem_clock"] = g.memory_clock_mhz
            out[p + "pcie.rx"] = g.pcie_rx_mb_s
            out[p + "pcie.tx"] = g.pcie_tx_mb_s
            out[p + "fan"] = g.fan_percent
            out[p + "throttle"] = float(g.throttle_mask) if g.throttle_mask is not None else NAN
        return {k: float(v) for k, v in out.items()}

    def channel_specs(self, per_core: bool = True) -> tuple[ChannelSpec, ...]:
        return tuple(ChannelSpec(n, channel_unit(n)) for n in self.channels(per_core))

    def observation(self) -> Observation:
        """What the diagnosis rules need from this sample."""
        live = [g for g in self.gpus if g.available]
        utils = [g.util_percent for g in live if math.isfinite(g.util_percent)]
        mems = [g.memory_fraction for g in live if math.isfinite(g.memory_fraction)]
        margins = [
            g.temperature_slowdown_c - g.temperature_c
            for g in live
            if math.isfinite(g.temperature_slowdown_c) and math.isfinite(g.temperature_c)
        ]
        swap = self.memory.swap_in_bytes_s + self.memory.swap_out_bytes_s
        power = _lowest_limit(live)
        return Observation(
            timestamp=self.timestamp,
            gpu_util_percent=sum(utils) / len(utils) if utils else NAN,
            cpu_percent=self.cpu.percent,
            cpu_max_core_percent=self.cpu.max_core_percent,
            gpu_memory_fraction=max(mems) if mems else NAN,
            ram_fraction=self.memory.fraction,
            swap_rate_bytes_s=swap,
            thermal_throttle=any(g.thermal_throttled for g in live),
            power_throttle=any(g.power_throttled for g in live),
            temperature_margin_c=min(margins) if margins else NAN,
            gpu_count=len(utils),
            power_w=power.power_w if power is not None else NAN,
            power_limit_w=power.power_limit_w if power is not None else NAN,
            default_power_limit_w=power.power_default_limit_w if power is not None else NAN,
        )

    def process_uses(self) -> tuple[ProcessUse, ...]:
        """The GPU processes as the idle-cost model takes them."""
        return tuple(
            ProcessUse(p.gpu_index, p.pid, p.name, p.user, p.used_memory_bytes)
            for p in self.processes
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "timestamp": self.timestamp,
            "cpu": self.cpu.to_dict(),
            "memory": self.memory.to_dict(),
            "io": self.io.to_dict(),
            "gpus": [g.to_dict() for g in self.gpus],
            "problems": list(self.problems),
        }


@runtime_checkable
class Sampler(Protocol):
    def sample(self) -> SystemSample: ...

    def close(self) -> None: ...


# --- real ----------------------------------------------------------------------------------


class RealSampler:
    """psutil + NVML. Construct once and call :meth:`sample` at any rate up to ~10 Hz.

    ``prime=True`` takes the first counter reading at construction, so the first sample already
    has CPU % and rates (measured since construction: wait a few hundred ms for a meaningful
    figure). ``include_processes`` adds the processes on each GPU, with psutil details, refreshed
    every ``slow_interval_s`` like the PCIe counters.
    """

    def __init__(
        self,
        *,
        include_gpus: bool = True,
        include_processes: bool = True,
        slow_interval_s: float = 2.0,
        prime: bool = True,
    ) -> None:
        self._wall0 = time.time()
        self._mono0 = time.monotonic()
        self._closed = False
        self._init_problems: list[str] = []
        self._host: HostReader | None = None
        try:
            self._host = HostReader(prime=prime)
        except Exception as exc:  # psutil missing or unusable
            self._init_problems.append(
                Problem(HOST, f"host sensors unavailable ({type(exc).__name__}: {exc})", "host")
            )
        self._gpu: GpuReader | None = None
        if include_gpus:
            try:
                self._gpu = GpuReader(slow_interval_s)
            except Exception as exc:
                self._init_problems.append(Problem(NO_GPU, f"GPU: unavailable because {exc}"))
        self._procs: ProcessInfoCache | None = None
        if include_processes:
            try:
                self._procs = ProcessInfoCache()
            except Exception as exc:
                self._init_problems.append(
                    Problem(PROCESSES, f"process details unavailable ({exc})")
                )
        self.include_processes = include_processes
        self._enriched: dict[int, tuple[tuple[GpuProcess, ...], tuple[GpuProcess, ...]]] = {}

    @property
    def gpu_count(self) -> int:
        return self._gpu.gpu_count if self._gpu is not None else 0

    def sample(self) -> SystemSample:
        now = self._wall0 + (time.monotonic() - self._mono0)
        if self._closed:
            return SystemSample(now, problems=(Problem(CLOSED, "sampler is closed"),))
        problems = list(self._init_problems)
        cpu, memory, io = CpuSample(), MemorySample(), IoSample()
        if self._host is not None:
            try:
                cpu, memory, io, host_problems = self._host.read()
                problems.extend(host_problems)
            except Exception as exc:
                problems.append(
                    Problem(HOST, f"host sensors failed ({type(exc).__name__}: {exc})", "host")
                )
        gpus: tuple[GpuSample, ...] = ()
        if self._gpu is not None:
            try:
                gpus, gpu_problems = self._gpu.read(self.include_processes)
                problems.extend(gpu_problems)
                gpus = self._with_process_details(gpus)
            except Exception as exc:
                problems.append(
                    Problem(GPU_READ, f"GPU reading failed ({type(exc).__name__}: {exc})")
                )
        return SystemSample(now, cpu, memory, io, gpus, tuple(problems))

    def _with_process_details(self, gpus: tuple[GpuSample, ...]) -> tuple[GpuSample, ...]:
        """psutil details for GPU processes, looked up only when NVML's list was refreshed."""
        if self._procs is None:
            return gpus
        stale = [g for g in gpus if self._enriched.get(g.index, ((), ()))[0] is not g.processes]
        if stale:
            pids = {p.pid for g in gpus for p in g.processes}
            info = self._procs.lookup(pids)
            for g in stale:
                detailed = tuple(
                    replace(
                        p,
                        name=info[p.pid].name,
                        command=info[p.pid].command,
                        user=info[p.pid].user,
                        cpu_percent=info[p.pid].cpu_percent,
                        rss_bytes=info[p.pid].rss_bytes,
                        note=info[p.pid].note,
                    )
                    for p in g.processes
                )
                self._enriched[g.index] = (g.processes, detailed)
        return tuple(
            replace(g, processes=self._enriched[g.index][1]) if g.processes else g for g in gpus
        )

    def close(self) -> None:
        self._closed = True
        if self._gpu is not None:
            self._gpu.close()
        if self._procs is not None:
            self._procs.clear()
        self._enriched.clear()


# --- session -------------------------------------------------------------------------------


class SampleSink(Protocol):
    """Where samples go besides memory, e.g. ``session_store.SessionRecorder``."""

    def add(self, sample: SystemSample) -> None: ...


@dataclass(frozen=True)
class MonitorUpdate:
    sample: SystemSample
    diagnosis: Diagnosis
    idle: IdleCostReport


class MonitorSession:
    """One monitoring run: sample → history buffers, running stats, diagnosis, idle cost.

    The history is created on the first tick, with the channels of that sample (a GPU that
    appears later is not plotted; one that vanishes keeps NaN channels). ``rate_hz`` only sizes
    the full-rate buffer (``raw_seconds`` at that rate); ticking slower keeps more time in it.
    Not thread-safe: tick from one thread.
    """

    def __init__(
        self,
        sampler: Sampler,
        *,
        rate_hz: float = 10.0,
        raw_seconds: float = 600.0,
        thresholds: DiagnosisThresholds | None = None,
        idle_config: IdleCostConfig | None = None,
        sink: SampleSink | None = None,
        per_core_channels: bool = True,
    ) -> None:
        self.sampler = sampler
        self.rate_hz = rate_hz
        self.raw_seconds = raw_seconds
        self.per_core_channels = per_core_channels
        self.history: MonitorHistory | None = None
        self.stats = RunningStats()
        self.diagnoser = Diagnoser(thresholds)
        self.idle = IdleCostTracker(idle_config)
        self.sink = sink
        self.samples_taken = 0
        self.first_timestamp = NAN
        self.last: MonitorUpdate | None = None

    def tick(self) -> MonitorUpdate:
        sample = self.sampler.sample()
        return self.feed(sample)

    def feed(self, sample: SystemSample) -> MonitorUpdate:
        """Process a sample taken elsewhere (e.g. by a worker thread)."""
        channels = sample.channels(self.per_core_channels)
        if self.history is None:
            self.history = MonitorHistory.for_rate(tuple(channels), self.rate_hz, self.raw_seconds)
            self.first_timestamp = sample.timestamp
        self.history.append(sample.timestamp, channels)
        self.stats.add(channels)
        diagnosis = self.diagnoser.update(sample.observation())
        self.idle.update(
            sample.timestamp, [g.util_percent for g in sample.gpus], sample.process_uses()
        )
        if self.sink is not None:
            self.sink.add(sample)
        self.samples_taken += 1
        self.last = MonitorUpdate(sample, diagnosis, self.idle.report())
        return self.last

    @property
    def duration_s(self) -> float:
        if self.last is None:
            return 0.0
        return self.last.sample.timestamp - self.first_timestamp

    def close(self) -> None:
        self.sampler.close()


def _lowest_limit(gpus: list[GpuSample]) -> GpuSample | None:
    """The GPU whose enforced power limit is lowest against its default (the one a lowered
    limit would show on), else the first with a limit."""
    with_limit = [g for g in gpus if math.isfinite(g.power_limit_w)]
    if not with_limit:
        return None

    def ratio(g: GpuSample) -> float:
        d = g.power_default_limit_w
        return g.power_limit_w / d if math.isfinite(d) and d > 0 else math.inf

    return min(with_limit, key=ratio)
