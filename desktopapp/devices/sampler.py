"""Live system samples for the monitor: one immutable :class:`SystemSample` per tick.

- :class:`Sampler` is the protocol (``sample()``, ``close()``); :class:`RealSampler` reads psutil
  and NVML, :class:`FakeSampler` plays a deterministic script (tests, UI tests, benchmarks; it
  never sleeps, so it runs at any rate).
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

# These two modules are light: psutil and pynvml are imported when a reader is constructed.
from desktopapp.devices.gpu_sampling import (
    GPU_FIELDS,
    GpuProcess,
    GpuReader,
    GpuSample,
    decode_clock_reasons,
)
from desktopapp.devices.host import (
    CpuSample,
    HostReader,
    IoSample,
    MemorySample,
    ProcessInfoCache,
)
from desktopapp.model.diagnosis import Diagnoser, Diagnosis, DiagnosisThresholds, Observation
from desktopapp.model.idle_cost import IdleCostConfig, IdleCostReport, IdleCostTracker, ProcessUse
from desktopapp.model.ringbuffer import MonitorHistory, RunningStats
from desktopapp.model.units import GIB

NAN = math.nan

__all__ = [
    "ChannelSpec",
    "CpuSample",
    "FakeProcessSpec",
    "FakeSampler",
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
            self._init_problems.append(f"host sensors unavailable ({type(exc).__name__}: {exc})")
        self._gpu: GpuReader | None = None
        if include_gpus:
            try:
                self._gpu = GpuReader(slow_interval_s)
            except Exception as exc:
                self._init_problems.append(f"GPU: unavailable because {exc}")
        self._procs: ProcessInfoCache | None = None
        if include_processes:
            try:
                self._procs = ProcessInfoCache()
            except Exception as exc:
                self._init_problems.append(f"process details unavailable ({exc})")
        self.include_processes = include_processes
        self._enriched: dict[int, tuple[tuple[GpuProcess, ...], tuple[GpuProcess, ...]]] = {}

    @property
    def gpu_count(self) -> int:
        return self._gpu.gpu_count if self._gpu is not None else 0

    def sample(self) -> SystemSample:
        now = self._wall0 + (time.monotonic() - self._mono0)
        if self._closed:
            return SystemSample(now, problems=("sampler is closed",))
        problems = list(self._init_problems)
        cpu, memory, io = CpuSample(), MemorySample(), IoSample()
        if self._host is not None:
            try:
                cpu, memory, io, host_problems = self._host.read()
                problems.extend(host_problems)
            except Exception as exc:
                problems.append(f"host sensors failed ({type(exc).__name__}: {exc})")
        gpus: tuple[GpuSample, ...] = ()
        if self._gpu is not None:
            try:
                gpus, gpu_problems = self._gpu.read(self.include_processes)
                problems.extend(gpu_problems)
                gpus = self._with_process_details(gpus)
            except Exception as exc:
                problems.append(f"GPU reading failed ({type(exc).__name__}: {exc})")
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


# --- fake ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeProcessSpec:
    """A process the fake GPU reports, holding ``memory_fraction`` of its GPU's memory."""

    gpu_index: int
    pid: int
    name: str = "python"
    user: str = "alice"
    command: str = "python train.py"
    memory_fraction: float = 0.5
    cpu_percent: float = 100.0


Script = Sequence[float]
PerGpuScript = Sequence[float] | Sequence[Sequence[float]]


class FakeSampler:
    """Deterministic, scriptable sampler; sample ``i`` reads element ``i`` of each script.

    Scripts are sequences (cycled when ``cycle``, else the last value repeats). Per-GPU scripts
    take one sequence for all GPUs or one sequence per GPU. Timestamps are
    ``start + i × interval_s`` unless a ``clock`` is given. ``lose_gpu_at={1: 20}`` makes GPU 1
    vanish from sample 20 on (as NVML reports a lost GPU); ``problems_at={5: ("…",)}`` adds
    problem lines to sample 5. Power defaults to idle + utilization × (limit − idle).
    """

    def __init__(
        self,
        *,
        gpu_count: int = 1,
        gpu_util: PerGpuScript = (50.0,),
        gpu_memory_fraction: PerGpuScript = (0.5,),
        temperature_c: PerGpuScript = (60.0,),
        power_w: PerGpuScript | None = None,
        throttle_mask: Sequence[int] = (0,),
        cpu_percent: Script = (20.0,),
        busiest_core_percent: Script | None = None,
        ram_fraction: Script = (0.4,),
        swap_rate_bytes_s: Script = (0.0,),
        io_bytes_s: Script = (1.0e6,),
        cores: int = 8,
        processes: Sequence[FakeProcessSpec] = (),
        lose_gpu_at: Mapping[int, int] | None = None,
        problems_at: Mapping[int, Sequence[str]] | None = None,
        interval_s: float = 0.1,
        start: float = 1_700_000_000.0,
        clock: Callable[[], float] | None = None,
        cycle: bool = True,
        gpu_name: str = "Fake GPU 80GB",
        memory_total_bytes: float = 80 * GIB,
        ram_total_bytes: float = 64 * GIB,
        power_limit_w: float = 400.0,
        idle_power_w: float = 60.0,
        slowdown_c: float = 87.0,
    ) -> None:
        if gpu_count < 0 or cores < 1:
            raise ValueError(f"gpu_count: must be 0 or more (cores ≥ 1), got {gpu_count}")
        self.gpu_count = gpu_count
        self._gpu_util = gpu_util
        self._gpu_mem = gpu_memory_fraction
        self._temp = temperature_c
        self._power = power_w
        self._throttle = throttle_mask
        self._cpu = cpu_percent
        self._busiest = busiest_core_percent
        self._ram = ram_fraction
        self._swap = swap_rate_bytes_s
        self._io = io_bytes_s
        self.cores = cores
        self._processes = tuple(processes)
        self._lose = dict(lose_gpu_at or {})
        self._problems = {k: tuple(v) for k, v in (problems_at or {}).items()}
        self.interval_s = interval_s
        self.start = start
        self._clock = clock
        self._cycle = cycle
        self._gpu_name = gpu_name
        self._mem_total = memory_total_bytes
        self._ram_total = ram_total_bytes
        self._limit = power_limit_w
        self._idle_power = idle_power_w
        self._slowdown = slowdown_c
        self._energy = [0.0] * gpu_count
        self.count = 0  # samples taken
        self.closed = False

    def _at(self, script: Sequence[Any], i: int) -> Any:
        if not script:
            raise ValueError("script: must not be empty")
        return script[i % len(script)] if self._cycle else script[min(i, len(script) - 1)]

    def _gpu_at(self, script: PerGpuScript, gpu: int, i: int) -> float:
        if script and isinstance(script[0], Sequence):
            per_gpu: Sequence[Sequence[float]] = script  # type: ignore[assignment]
            return float(self._at(per_gpu[gpu % len(per_gpu)], i))
        return float(self._at(script, i))

    def sample(self) -> SystemSample:
        i = self.count
        self.count += 1
        now = self._clock() if self._clock is not None else self.start + i * self.interval_s
        if self.closed:
            return SystemSample(now, problems=("sampler is closed",))
        problems = list(self._problems.get(i, ()))
        cpu = float(self._at(self._cpu, i))
        per_core = [cpu] * self.cores
        if self._busiest is not None:
            top = float(self._at(self._busiest, i))
            rest = (cpu * self.cores - top) / (self.cores - 1) if self.cores > 1 else top
            per_core = [top] + [min(100.0, max(0.0, rest))] * (self.cores - 1)
        ram = float(self._at(self._ram, i))
        swap = float(self._at(self._swap, i))
        io_rate = float(self._at(self._io, i))
        memory = MemorySample(
            total_bytes=self._ram_total,
            used_bytes=ram * self._ram_total,
            available_bytes=(1 - ram) * self._ram_total,
            percent=100 * ram,
            swap_total_bytes=8 * GIB,
            swap_used_bytes=GIB if swap > 0 else 0.0,
            swap_percent=12.5 if swap > 0 else 0.0,
            swap_in_bytes_s=swap / 2,
            swap_out_bytes_s=swap / 2,
        )
        io = IoSample(io_rate, io_rate / 2, io_rate / 4, io_rate / 8)
        gpus = []
        for g in range(self.gpu_count):
            lost_from = self._lose.get(g)
            if lost_from is not None and i >= lost_from:
                why = "the GPU is lost (GPU is lost)"
                problems.append(
                    f"GPU {g} ({self._gpu_name}): lost (GPU is lost); "
                    "its values are NaN from now on"
                )
                gpus.append(
                    GpuSample(
                        g,
                        self._gpu_name,
                        f"GPU-fake-{g}",
                        False,
                        unavailable=dict.fromkeys(GPU_FIELDS, why),
                    )
                )
                continue
            util = self._gpu_at(self._gpu_util, g, i)
            if self._power is not None:
                power = self._gpu_at(self._power, g, i)
            else:
                power = self._idle_power + util / 100 * (self._limit - self._idle_power)
            self._energy[g] += power * self.interval_s
            mask = int(self._at(self._throttle, i))
            mem_used = self._gpu_at(self._gpu_mem, g, i) * self._mem_total
            procs = tuple(
                GpuProcess(
                    g,
                    spec.pid,
                    "compute",
                    spec.memory_fraction * self._mem_total,
                    spec.name,
                    spec.command,
                    spec.user,
                    spec.cpu_percent,
                    2 * GIB,
                )
                for spec in self._processes
                if spec.gpu_index == g
            )
            gpus.append(
                GpuSample(
                    index=g,
                    name=self._gpu_name,
                    uuid=f"GPU-fake-{g}",
                    available=True,
                    util_percent=util,
                    memory_util_percent=util * 0.6,
                    memory_used_bytes=mem_used,
                    memory_total_bytes=self._mem_total,
                    power_w=power,
                    power_limit_w=self._limit,
                    energy_j=self._energy[g],
                    temperature_c=self._gpu_at(self._temp, g, i),
                    temperature_slowdown_c=self._slowdown,
                    sm_clock_mhz=1980.0 if util > 0 else 345.0,
                    memory_clock_mhz=2619.0,
                    throttle_mask=mask,
                    throttle_reasons=decode_clock_reasons(mask),
                    pcie_rx_mb_s=util * 50.0,
                    pcie_tx_mb_s=util * 10.0,
                    fan_percent=NAN,
                    processes=procs,
                    unavailable={"fan_percent": "not supported by this GPU or driver (fake)"},
                )
            )
        cpu_sample = CpuSample(cpu, tuple(per_core), (cpu / 25, cpu / 25, cpu / 25), self.cores)
        return SystemSample(now, cpu_sample, memory, io, tuple(gpus), tuple(problems))

    def close(self) -> None:
        self.closed = True


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
