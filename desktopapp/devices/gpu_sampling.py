"""Per-GPU live readings through NVML, for the monitor. Never raises.

:class:`GpuReader` gets the NVML handles once and then reads, per sample and per GPU:
utilization (GPU and memory controller), memory used/total, power draw and enforced limit,
the energy counter, temperature, SM and memory clocks, clock event ("throttle") reasons, fan,
and on a slower cadence PCIe throughput and the processes on the GPU.

Failure handling, field by field:

- a query the GPU or driver does not support is asked once, then skipped; the field is NaN with
  ``unavailable[field] = "not supported …"`` (no problem line: this is normal, e.g. no fan on a
  data-centre card);
- any other NVML error gives NaN, the reason in ``unavailable`` and a line in ``problems``;
- "GPU is lost" marks the GPU as gone: its sample is all NaN with ``available=False`` from then
  on, it is reported in ``problems`` every sample, and the other GPUs go on.

Units: bytes, watts, joules, °C, MHz, percent (0-100); PCIe in MB/s (NVML gives KB/s; 1 MB =
1000 KB here). NVML measures PCIe throughput over a 20 ms window *inside* the call, so the two
PCIe queries cost ~40 ms per GPU: they are refreshed every ``slow_interval_s`` (2 s by default),
not every sample, and the last reading is repeated in between.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

from desktopapp.devices import nvml
from desktopapp.devices.problems import GPU_FIELD, GPU_LOST, GPU_READ, NO_GPU, Problem

NAN = math.nan

# NVML return codes (nvml.h); read from the module when it has them.
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15

# Bits of nvmlDeviceGetCurrentClocksEventReasons (formerly ...ThrottleReasons), in words.
CLOCK_REASON_WORDS: tuple[tuple[int, str], ...] = (
    (0x001, "idle"),
    (0x002, "application clocks setting"),
    (0x004, "power cap"),
    (0x008, "HW slowdown"),
    (0x010, "sync boost"),
    (0x020, "thermal (software)"),
    (0x040, "thermal (hardware)"),
    (0x080, "power brake (hardware)"),
    (0x100, "display clock setting"),
    (0x200, "board limit"),
    (0x400, "reliability"),
)
THERMAL_REASON_MASK = 0x020 | 0x040
POWER_REASON_MASK = 0x004 | 0x080
# HW slowdown is raised by temperature or by the power brake; it counts as both below.
HW_SLOWDOWN_MASK = 0x008

# Fields a GpuSample can report as unavailable (names of GpuSample attributes).
GPU_FIELDS: tuple[str, ...] = (
    "util_percent",
    "memory_util_percent",
    "memory_used_bytes",
    "memory_total_bytes",
    "power_w",
    "power_limit_w",
    "energy_j",
    "temperature_c",
    "temperature_slowdown_c",
    "sm_clock_mhz",
    "memory_clock_mhz",
    "throttle_reasons",
    "pcie_rx_mb_s",
    "pcie_tx_mb_s",
    "fan_percent",
    "processes",
)


def decode_clock_reasons(mask: int) -> tuple[str, ...]:
    """Bit mask of clock event reasons → words; unknown bits as ``"unknown (0x…)"``."""
    words = [word for bit, word in CLOCK_REASON_WORDS if mask & bit]
    known = 0
    for bit, _ in CLOCK_REASON_WORDS:
        known |= bit
    if mask & ~known:
        words.append(f"unknown (0x{mask & ~known:x})")
    return tuple(words)


@dataclass(frozen=True)
class GpuProcess:
    """A process on a GPU (NVML), with host details from psutil where visible."""

    gpu_index: int
    pid: int
    kind: str  # "compute", "graphics" or "compute+graphics"
    used_memory_bytes: float  # NaN when the driver does not report it
    name: str = ""
    command: str = ""
    user: str = ""
    cpu_percent: float = NAN  # of one core (psutil); NaN on the first sighting
    rss_bytes: float = NAN
    note: str = ""  # why host details are missing, e.g. "not visible from here"


@dataclass(frozen=True)
class GpuSample:
    index: int
    name: str
    uuid: str
    available: bool  # False once the GPU is lost
    util_percent: float = NAN
    memory_util_percent: float = NAN
    memory_used_bytes: float = NAN
    memory_total_bytes: float = NAN
    power_w: float = NAN
    power_limit_w: float = NAN
    energy_j: float = NAN  # counter since the driver was loaded
    temperature_c: float = NAN
    temperature_slowdown_c: float = NAN  # where the GPU starts slowing down for heat
    power_default_limit_w: float = NAN  # the default power limit (NaN when not reported)
    sm_clock_mhz: float = NAN
    memory_clock_mhz: float = NAN
    throttle_mask: int | None = None
    throttle_reasons: tuple[str, ...] = ()
    pcie_rx_mb_s: float = NAN
    pcie_tx_mb_s: float = NAN
    fan_percent: float = NAN
    processes: tuple[GpuProcess, ...] = ()
    unavailable: Mapping[str, str] = field(default_factory=dict)  # field → reason

    def __post_init__(self) -> None:
        if not isinstance(self.unavailable, MappingProxyType):
            object.__setattr__(self, "unavailable", MappingProxyType(dict(self.unavailable)))

    @property
    def memory_fraction(self) -> float:
        if self.memory_total_bytes > 0:
            return self.memory_used_bytes / self.memory_total_bytes
        return NAN

    @property
    def thermal_throttled(self) -> bool:
        return self.throttle_mask is not None and bool(
            self.throttle_mask & (THERMAL_REASON_MASK | HW_SLOWDOWN_MASK)
        )

    @property
    def power_throttled(self) -> bool:
        return self.throttle_mask is not None and bool(
            self.throttle_mask & (POWER_REASON_MASK | HW_SLOWDOWN_MASK)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "uuid": self.uuid,
            "available": self.available,
            "util_percent": self.util_percent,
            "memory_util_percent": self.memory_util_percent,
            "memory_used_bytes": self.memory_used_bytes,
            "memory_total_bytes": self.memory_total_bytes,
            "power_w": self.power_w,
            "power_limit_w": self.power_limit_w,
            "energy_j": self.energy_j,
            "temperature_c": self.temperature_c,
            "temperature_slowdown_c": self.temperature_slowdown_c,
            "power_default_limit_w": self.power_default_limit_w,
            "sm_clock_mhz": self.sm_clock_mhz,
            "memory_clock_mhz": self.memory_clock_mhz,
            "throttle_mask": self.throttle_mask,
            "throttle_reasons": list(self.throttle_reasons),
            "pcie_rx_mb_s": self.pcie_rx_mb_s,
            "pcie_tx_mb_s": self.pcie_tx_mb_s,
            "fan_percent": self.fan_percent,
            "processes": [vars(p) for p in self.processes],
            "unavailable": dict(self.unavailable),
        }


class _Lost(Exception):
    """The GPU fell off the bus (NVML_ERROR_GPU_IS_LOST)."""


def _error_code(exc: BaseException) -> int | None:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) else None


def _error_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # pynvml's __str__ calls into the library
        text = ""
    return text or type(exc).__name__


@dataclass
class _GpuState:
    index: int
    handle: Any
    name: str
    uuid: str
    slowdown_c: float = NAN
    default_limit_w: float = NAN  # the board's default power limit (static)
    skipped: dict[str, str] = field(default_factory=dict)  # unsupported: asked once
    lost: str = ""  # reason once the GPU is lost
    last_pcie: tuple[float, float] = (NAN, NAN)
    last_pcie_reasons: dict[str, str] = field(default_factory=dict)
    last_processes: tuple[GpuProcess, ...] = ()
    processes_reason: str = ""


class GpuReader:
    """Reads every GPU NVML knows; construct once per monitoring session."""

    def __init__(self, slow_interval_s: float = 2.0) -> None:
        self.slow_interval_s = slow_interval_s
        self._mod: ModuleType | None = None
        self._gpus: list[_GpuState] = []
        self._last_slow = -math.inf
        st = nvml.status()
        self.problem: str = "" if st.available else Problem(NO_GPU, f"GPU: {st.reason}")
        if not st.available:
            return
        self._mod = nvml.module()
        for index in range(st.device_count):
            handle = nvml.safe_call("nvmlDeviceGetHandleByIndex", index)
            if handle is None:
                self._gpus.append(_GpuState(index, None, f"GPU {index}", "", lost="no handle"))
                continue
            name = nvml.safe_call("nvmlDeviceGetName", handle, default=f"GPU {index}")
            uuid = nvml.safe_call("nvmlDeviceGetUUID", handle, default="")
            state = _GpuState(index, handle, str(name), str(uuid))
            threshold = self._const("NVML_TEMPERATURE_THRESHOLD_SLOWDOWN", 1)
            slowdown = nvml.safe_call("nvmlDeviceGetTemperatureThreshold", handle, threshold)
            if isinstance(slowdown, int | float) and slowdown > 0:
                state.slowdown_c = float(slowdown)
            else:
                state.skipped["temperature_slowdown_c"] = "not reported by this GPU or driver"
            default = nvml.safe_call("nvmlDeviceGetPowerManagementDefaultLimit", handle)
            if isinstance(default, int | float) and default > 0:
                state.default_limit_w = float(default) / 1000.0
            self._gpus.append(state)

    @property
    def gpu_count(self) -> int:
        return len(self._gpus)

    def _const(self, name: str, default: int) -> int:
        value = getattr(self._mod, name, default)
        return value if isinstance(value, int) else default

    def close(self) -> None:
        self._gpus = []
        self._mod = None

    def read(
        self, include_processes: bool = True, now: float | None = None
    ) -> tuple[tuple[GpuSample, ...], list[str]]:
        """One :class:`GpuSample` per GPU plus problem lines. Never raises."""
        problems: list[str] = []
        if self.problem:
            problems.append(self.problem)
        clock = time.monotonic() if now is None else now
        slow = clock - self._last_slow >= self.slow_interval_s
        if slow:
            self._last_slow = clock
        samples = []
        for gpu in self._gpus:
            try:
                sample = self._read_one(gpu, slow, include_processes and slow, problems)
            except Exception as exc:  # a bug or an odd binding must not stop the monitor
                problems.append(
                    Problem(
                        GPU_READ,
                        f"GPU {gpu.index}: reading failed ({_error_text(exc)})",
                        f"GPU {gpu.index}",
                    )
                )
                sample = GpuSample(gpu.index, gpu.name, gpu.uuid, True)
            samples.append(sample)
        return tuple(samples), problems

    # --- one GPU -----------------------------------------------------------------------------
    def _lost_sample(self, gpu: _GpuState, problems: list[str]) -> GpuSample:
        problems.append(
            Problem(
                GPU_LOST,
                f"GPU {gpu.index} ({gpu.name}): lost ({gpu.lost}); its values are NaN from now on",
                f"GPU {gpu.index}",
            )
        )
        why = f"the GPU is lost ({gpu.lost})"
        return GpuSample(
            gpu.index, gpu.name, gpu.uuid, False, unavailable=dict.fromkeys(GPU_FIELDS, why)
        )

    def _read_one(
        self, gpu: _GpuState, slow: bool, with_processes: bool, problems: list[str]
    ) -> GpuSample:
        if gpu.lost:
            return self._lost_sample(gpu, problems)
        errors: dict[str, str] = {}

        def ask(fields: tuple[str, ...], func: str, *args: Any) -> Any:
            return self._ask(gpu, fields, errors, func, *args)

        try:
            values: dict[str, Any] = {}
            util = ask(("util_percent", "memory_util_percent"), "nvmlDeviceGetUtilizationRates")
            if util is not None:
                values["util_percent"] = float(util.gpu)
                values["memory_util_percent"] = float(util.memory)
            mem = ask(("memory_used_bytes", "memory_total_bytes"), "nvmlDeviceGetMemoryInfo")
            if mem is not None:
                values["memory_used_bytes"] = float(mem.used)
                values["memory_total_bytes"] = float(mem.total)
            _scaled(values, "power_w", ask(("power_w",), "nvmlDeviceGetPowerUsage"), 1e-3)
            _scaled(
                values,
                "power_limit_w",
                ask(("power_limit_w",), "nvmlDeviceGetEnforcedPowerLimit"),
                1e-3,
            )
            _scaled(
                values,
                "energy_j",
                ask(("energy_j",), "nvmlDeviceGetTotalEnergyConsumption"),
                1e-3,
            )
            gpu_sensor = self._const("NVML_TEMPERATURE_GPU", 0)
            _scaled(
                values,
                "temperature_c",
                ask(("temperature_c",), "nvmlDeviceGetTemperature", gpu_sensor),
                1.0,
            )
            sm, memclk = self._const("NVML_CLOCK_SM", 1), self._const("NVML_CLOCK_MEM", 2)
            _scaled(
                values, "sm_clock_mhz", ask(("sm_clock_mhz",), "nvmlDeviceGetClockInfo", sm), 1.0
            )
            _scaled(
                values,
                "memory_clock_mhz",
                ask(("memory_clock_mhz",), "nvmlDeviceGetClockInfo", memclk),
                1.0,
            )
            mask = self._clock_reasons(gpu, errors)
            _scaled(values, "fan_percent", ask(("fan_percent",), "nvmlDeviceGetFanSpeed"), 1.0)
            if slow:
                rx_id = self._const("NVML_PCIE_UTIL_RX_BYTES", 1)
                tx_id = self._const("NVML_PCIE_UTIL_TX_BYTES", 0)
                before = dict(errors)
                rx = ask(("pcie_rx_mb_s",), "nvmlDeviceGetPcieThroughput", rx_id)
                tx = ask(("pcie_tx_mb_s",), "nvmlDeviceGetPcieThroughput", tx_id)
                gpu.last_pcie = (_kb_to_mb(rx), _kb_to_mb(tx))
                gpu.last_pcie_reasons = {
                    k: v for k, v in errors.items() if k.startswith("pcie") and k not in before
                }
            else:
                errors.update(gpu.last_pcie_reasons)
            if with_processes:
                gpu.last_processes = self._processes(gpu, errors)
            elif gpu.processes_reason:
                errors["processes"] = gpu.processes_reason
        except _Lost as lost:
            gpu.lost = str(lost)
            return self._lost_sample(gpu, problems)

        # gpu.skipped also holds internal probes ("clock_events", "processes_compute" …)
        unavailable = {k: v for k, v in gpu.skipped.items() if k in GPU_FIELDS}
        unavailable.update(errors)
        if errors:
            by_reason: dict[str, list[str]] = {}
            for name, reason in errors.items():
                by_reason.setdefault(reason, []).append(name)
            for reason, names in by_reason.items():
                problems.append(
                    Problem(
                        GPU_FIELD,
                        f"GPU {gpu.index}: {', '.join(names)} unavailable ({reason})",
                        f"GPU {gpu.index}",
                    )
                )
        return GpuSample(
            index=gpu.index,
            name=gpu.name,
            uuid=gpu.uuid,
            available=True,
            temperature_slowdown_c=gpu.slowdown_c,
            power_default_limit_w=gpu.default_limit_w,
            throttle_mask=mask,
            throttle_reasons=decode_clock_reasons(mask) if mask is not None else (),
            pcie_rx_mb_s=gpu.last_pcie[0],
            pcie_tx_mb_s=gpu.last_pcie[1],
            processes=gpu.last_processes,
            unavailable=unavailable,
            **values,
        )

    def _ask(
        self,
        gpu: _GpuState,
        fields: tuple[str, ...],
        errors: dict[str, str],
        func_name: str,
        *args: Any,
    ) -> Any:
        """Call one NVML query; record why on failure and return None."""
        if fields[0] in gpu.skipped:
            return None
        func: Callable[..., Any] | None = getattr(self._mod, func_name, None)
        if func is None:
            for f in fields:
                gpu.skipped[f] = f"not available in this nvidia-ml-py version ({func_name})"
            return None
        try:
            return func(gpu.handle, *args)
        except Exception as exc:
            code = _error_code(exc)
            text = _error_text(exc)
            if code == NVML_ERROR_GPU_IS_LOST or "lost" in text.lower():
                raise _Lost(text) from exc
            if code in (NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_FUNCTION_NOT_FOUND):
                for f in fields:
                    gpu.skipped[f] = f"not supported by this GPU or driver ({text})"
            elif code == NVML_ERROR_NO_PERMISSION:
                for f in fields:
                    errors[f] = f"NVML denied permission ({text})"
            else:
                for f in fields:
                    errors[f] = f"NVML error: {text}"
            return None

    def _clock_reasons(self, gpu: _GpuState, errors: dict[str, str]) -> int | None:
        """Current clock event reasons; the pre-12.2 "throttle reasons" call on old drivers."""
        mask = None
        if "clock_events" not in gpu.skipped:
            probe: dict[str, str] = {}
            mask = self._ask(
                gpu, ("clock_events",), probe, "nvmlDeviceGetCurrentClocksEventReasons"
            )
            if probe:  # a real error, not an old driver: report it
                errors["throttle_reasons"] = next(iter(probe.values()))
                return None
        if mask is None:
            mask = self._ask(
                gpu, ("throttle_reasons",), errors, "nvmlDeviceGetCurrentClocksThrottleReasons"
            )
        return int(mask) if isinstance(mask, int) and not isinstance(mask, bool) else None

    def _processes(self, gpu: _GpuState, errors: dict[str, str]) -> tuple[GpuProcess, ...]:
        found: dict[int, tuple[list[str], float]] = {}
        failures: list[str] = []
        for kind, func in (
            ("compute", "nvmlDeviceGetComputeRunningProcesses"),
            ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
        ):
            probe: dict[str, str] = {}
            listed = self._ask(gpu, (f"processes_{kind}",), probe, func)
            if probe:
                failures.extend(probe.values())
            for proc in listed or ():
                pid = int(getattr(proc, "pid", -1))
                used = getattr(proc, "usedGpuMemory", None)
                memory = float(used) if isinstance(used, int | float) else NAN
                kinds, known = found.get(pid, ([], NAN))
                kinds.append(kind)
                found[pid] = (kinds, memory if not math.isfinite(known) else max(known, memory))
        both_skipped = all(f"processes_{k}" in gpu.skipped for k in ("compute", "graphics"))
        if failures:
            gpu.processes_reason = failures[0]
            errors["processes"] = failures[0]
        elif both_skipped:
            gpu.processes_reason = ""
            gpu.skipped["processes"] = gpu.skipped["processes_compute"]
        else:
            gpu.processes_reason = ""
        return tuple(
            GpuProcess(gpu.index, pid, "+".join(kinds), memory)
            for pid, (kinds, memory) in sorted(found.items())
        )


def _scaled(values: dict[str, Any], name: str, raw: Any, factor: float) -> None:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        values[name] = float(raw) * factor


def _kb_to_mb(raw: Any) -> float:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw) / 1000.0
    return NAN
