"""A scripted sampler: deterministic system samples for tests, UI tests, benchmarks and the
Monitor tab's demo mode (``DESKTOPAPP_MONITOR_DEMO``). It never sleeps, so it runs at any rate;
it satisfies :class:`desktopapp.devices.sampler.Sampler` like ``RealSampler``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.gpu_sampling import GPU_FIELDS, decode_clock_reasons
from desktopapp.devices.problems import CLOSED, GPU_LOST, Problem
from desktopapp.devices.sampler import (
    CpuSample,
    GpuProcess,
    GpuSample,
    IoSample,
    MemorySample,
    SystemSample,
)
from desktopapp.model.units import GIB

NAN = math.nan


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
            return SystemSample(now, problems=(Problem(CLOSED, "sampler is closed"),))
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
                    Problem(
                        GPU_LOST,
                        f"GPU {g} ({self._gpu_name}): lost (GPU is lost); "
                        "its values are NaN from now on",
                        f"GPU {g}",
                    )
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
