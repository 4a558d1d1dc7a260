"""A fake ``pynvml`` module for the monitor tests, installed through ``sys.modules``.

It follows the real bindings' calling conventions (handles from nvmlDeviceGetHandleByIndex,
milliwatts, millijoules, KB/s, structs with ``.gpu``/``.memory`` and ``.used``/``.total``,
process objects with ``.pid``/``.usedGpuMemory``, errors as ``NVMLError`` with a ``.value`` code)
and lets a test change a GPU's state between samples: values, a failing call, a lost GPU.
"""

from __future__ import annotations

import types
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_UNKNOWN = 999

_TEXT = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_NO_PERMISSION: "Insufficient Permissions",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return _TEXT.get(self.value, f"NVML error {self.value}")


@dataclass
class FakeProc:
    pid: int
    usedGpuMemory: int | None  # the bindings' spelling


@dataclass
class FakeGpu:
    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-00000000-0000-0000-0000-000000000000"
    util_gpu: int = 87
    util_memory: int = 41
    memory_total: int = 80 * 1024**3
    memory_used: int = 30 * 1024**3
    power_mw: int = 350_000
    limit_mw: int = 700_000
    energy_mj: int = 5_000_000
    temperature: int = 64
    slowdown: int | None = 87
    sm_clock: int = 1980
    mem_clock: int = 2619
    reasons: int = 0x4  # power cap
    pcie_rx_kb: int = 12_000
    pcie_tx_kb: int = 3_000
    fan: int | None = None  # None: not supported (data-centre card)
    compute: list[FakeProc] = field(default_factory=list)
    graphics: list[FakeProc] = field(default_factory=list)
    lost: bool = False
    fail: dict[str, int] = field(default_factory=dict)  # function name → error code


def make_module(
    gpus: list[FakeGpu],
    *,
    init_error: int | None = None,
    without: tuple[str, ...] = (),
) -> types.ModuleType:
    """A module object named ``pynvml``; ``module.calls`` counts calls per function."""
    mod = types.ModuleType("pynvml")
    calls: Counter[str] = Counter()
    mod.calls = calls  # type: ignore[attr-defined]
    mod.gpus = gpus  # type: ignore[attr-defined]
    mod.NVMLError = NVMLError  # type: ignore[attr-defined]
    for name, value in globals().items():
        if name.startswith("NVML_ERROR") or name == "NVML_SUCCESS":
            setattr(mod, name, value)
    constants = {
        "NVML_TEMPERATURE_GPU": 0,
        "NVML_TEMPERATURE_THRESHOLD_SLOWDOWN": 1,
        "NVML_CLOCK_SM": 1,
        "NVML_CLOCK_MEM": 2,
        "NVML_PCIE_UTIL_TX_BYTES": 0,
        "NVML_PCIE_UTIL_RX_BYTES": 1,
    }
    for name, value in constants.items():
        setattr(mod, name, value)

    def device_fn(name: str, body: Any) -> None:
        if name in without:
            return

        def call(handle: FakeGpu, *args: Any) -> Any:
            calls[name] += 1
            if handle.lost:
                raise NVMLError(NVML_ERROR_GPU_IS_LOST)
            if name in handle.fail:
                raise NVMLError(handle.fail[name])
            return body(handle, *args)

        setattr(mod, name, call)

    def init() -> None:
        calls["nvmlInit"] += 1
        if init_error is not None:
            raise NVMLError(init_error)

    mod.nvmlInit = init  # type: ignore[attr-defined]
    mod.nvmlShutdown = lambda: calls.update(["nvmlShutdown"])  # type: ignore[attr-defined]
    mod.nvmlSystemGetDriverVersion = lambda: "550.54.15"  # type: ignore[attr-defined]
    mod.nvmlSystemGetCudaDriverVersion_v2 = lambda: 12040  # type: ignore[attr-defined]
    mod.nvmlDeviceGetCount = lambda: len(gpus)  # type: ignore[attr-defined]
    mod.nvmlDeviceGetHandleByIndex = lambda i: gpus[i]  # type: ignore[attr-defined]

    device_fn("nvmlDeviceGetName", lambda h: h.name)
    device_fn("nvmlDeviceGetUUID", lambda h: h.uuid)
    device_fn(
        "nvmlDeviceGetUtilizationRates",
        lambda h: types.SimpleNamespace(gpu=h.util_gpu, memory=h.util_memory),
    )
    device_fn(
        "nvmlDeviceGetMemoryInfo",
        lambda h: types.SimpleNamespace(
            total=h.memory_total, used=h.memory_used, free=h.memory_total - h.memory_used
        ),
    )
    device_fn("nvmlDeviceGetPowerUsage", lambda h: h.power_mw)
    device_fn("nvmlDeviceGetEnforcedPowerLimit", lambda h: h.limit_mw)
    device_fn("nvmlDeviceGetTotalEnergyConsumption", lambda h: h.energy_mj)

    def temperature(h: FakeGpu, sensor: int) -> int:
        assert sensor == 0
        return h.temperature

    def threshold(h: FakeGpu, kind: int) -> int:
        assert kind == 1
        if h.slowdown is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return h.slowdown

    def clock(h: FakeGpu, kind: int) -> int:
        return {1: h.sm_clock, 2: h.mem_clock}[kind]

    def pcie(h: FakeGpu, counter: int) -> int:
        return {1: h.pcie_rx_kb, 0: h.pcie_tx_kb}[counter]

    def fan(h: FakeGpu) -> int:
        if h.fan is None:
            raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
        return h.fan

    device_fn("nvmlDeviceGetTemperature", temperature)
    device_fn("nvmlDeviceGetTemperatureThreshold", threshold)
    device_fn("nvmlDeviceGetClockInfo", clock)
    device_fn("nvmlDeviceGetCurrentClocksEventReasons", lambda h: h.reasons)
    device_fn("nvmlDeviceGetCurrentClocksThrottleReasons", lambda h: h.reasons)
    device_fn("nvmlDeviceGetPcieThroughput", pcie)
    device_fn("nvmlDeviceGetFanSpeed", fan)
    device_fn("nvmlDeviceGetComputeRunningProcesses", lambda h: list(h.compute))
    device_fn("nvmlDeviceGetGraphicsRunningProcesses", lambda h: list(h.graphics))
    return mod
