"""A fake ``pynvml`` module for the detection and monitor tests, installed through
``sys.modules`` (the ``fake_nvml`` fixture in ``tests/conftest.py``).

It follows the real bindings' conventions: handles from ``nvmlDeviceGetHandleByIndex``; memory
info with ``.total``/``.used``/``.free``; power in milliwatts, energy in millijoules, PCIe
throughput in KB/s; utilization with ``.gpu``/``.memory``; processes with
``.pid``/``.usedGpuMemory``; ``(current, pending)`` pairs for MIG/ECC modes; ``(major, minor)``
compute capability; the driver version as bytes (old bindings; the wrapper decodes them); errors
as ``NVMLError`` with a ``.value`` code. A test can change a GPU between samples: values, a
failing call (``fail``), an unsupported one (``unsupported``), a lost GPU (``lost``).
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
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_UNKNOWN = 999

_TEXT = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_NO_PERMISSION: "Insufficient Permissions",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}

CLOCK_SM = 1
CLOCK_MEM = 2


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
    # identity and static properties (detection)
    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-00000000-0000-0000-0000-000000000000"
    memory_total: int = 80 * 1024**3
    power_limit_mw: int = 700_000
    max_sm_mhz: int = 1980
    max_mem_mhz: int = 2619
    pcie_gen_max: int = 5
    pcie_width_max: int = 16
    pcie_gen: int = 5
    pcie_width: int = 16
    capability: tuple[int, int] = (9, 0)
    mig: tuple[int, int] | None = (0, 0)  # None: not supported
    ecc: tuple[int, int] | None = (1, 1)
    # live readings (monitor)
    util_gpu: int = 87
    util_memory: int = 41
    memory_used: int = 30 * 1024**3
    power_mw: int = 350_000
    limit_mw: int = 700_000
    default_limit_mw: int | None = 700_000  # None: not supported
    app_sm_mhz: int | None = None  # application clock; None: not supported
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
    # failures
    lost: bool = False
    fail: dict[str, int] = field(default_factory=dict)  # function name → error code
    unsupported: set[str] = field(default_factory=set)  # function names: NOT_SUPPORTED


def _temperature(gpu: FakeGpu, sensor: int) -> int:
    assert sensor == 0
    return gpu.temperature


def _threshold(gpu: FakeGpu, kind: int) -> int | None:
    assert kind == 1
    return gpu.slowdown


def _pcie(gpu: FakeGpu, counter: int) -> int:
    return {1: gpu.pcie_rx_kb, 0: gpu.pcie_tx_kb}[counter]


_DEVICE_FUNCTIONS: dict[str, Any] = {
    "nvmlDeviceGetName": lambda g: g.name,
    "nvmlDeviceGetUUID": lambda g: g.uuid,
    "nvmlDeviceGetMemoryInfo": lambda g: types.SimpleNamespace(
        total=g.memory_total, used=g.memory_used, free=g.memory_total - g.memory_used
    ),
    "nvmlDeviceGetPowerManagementLimit": lambda g: g.power_limit_mw,
    "nvmlDeviceGetMaxClockInfo": lambda g, clock: (
        g.max_sm_mhz if clock == CLOCK_SM else g.max_mem_mhz
    ),
    "nvmlDeviceGetMaxPcieLinkGeneration": lambda g: g.pcie_gen_max,
    "nvmlDeviceGetMaxPcieLinkWidth": lambda g: g.pcie_width_max,
    "nvmlDeviceGetCurrPcieLinkGeneration": lambda g: g.pcie_gen,
    "nvmlDeviceGetCurrPcieLinkWidth": lambda g: g.pcie_width,
    "nvmlDeviceGetCudaComputeCapability": lambda g: g.capability,
    "nvmlDeviceGetMigMode": lambda g: g.mig,
    "nvmlDeviceGetEccMode": lambda g: g.ecc,
    "nvmlDeviceGetUtilizationRates": lambda g: types.SimpleNamespace(
        gpu=g.util_gpu, memory=g.util_memory
    ),
    "nvmlDeviceGetPowerUsage": lambda g: g.power_mw,
    "nvmlDeviceGetEnforcedPowerLimit": lambda g: g.limit_mw,
    "nvmlDeviceGetPowerManagementDefaultLimit": lambda g: g.default_limit_mw,
    "nvmlDeviceGetApplicationsClock": lambda g, clock: g.app_sm_mhz if clock == CLOCK_SM else None,
    "nvmlDeviceGetTotalEnergyConsumption": lambda g: g.energy_mj,
    "nvmlDeviceGetTemperature": _temperature,
    "nvmlDeviceGetTemperatureThreshold": _threshold,
    "nvmlDeviceGetClockInfo": lambda g, kind: {CLOCK_SM: g.sm_clock, CLOCK_MEM: g.mem_clock}[kind],
    "nvmlDeviceGetCurrentClocksEventReasons": lambda g: g.reasons,
    "nvmlDeviceGetCurrentClocksThrottleReasons": lambda g: g.reasons,
    "nvmlDeviceGetPcieThroughput": _pcie,
    "nvmlDeviceGetFanSpeed": lambda g: g.fan,
    "nvmlDeviceGetComputeRunningProcesses": lambda g: list(g.compute),
    "nvmlDeviceGetGraphicsRunningProcesses": lambda g: list(g.graphics),
}


def make_module(
    gpus: list[FakeGpu],
    *,
    init_error: int | None = None,
    without: tuple[str, ...] = (),
    driver: str | bytes = b"550.54.15",
    cuda_driver: int = 12040,
) -> types.ModuleType:
    """A module object named ``pynvml``; ``module.calls`` counts calls per function.

    ``without`` leaves functions out (older bindings); a device function whose value is None
    (``fan``, ``slowdown``, ``mig``, ``ecc``) raises ``NVML_ERROR_NOT_SUPPORTED``.
    """
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
        "NVML_CLOCK_SM": CLOCK_SM,
        "NVML_CLOCK_MEM": CLOCK_MEM,
        "NVML_PCIE_UTIL_TX_BYTES": 0,
        "NVML_PCIE_UTIL_RX_BYTES": 1,
    }
    for name, value in constants.items():
        setattr(mod, name, value)

    def device_function(name: str, body: Any) -> Any:
        def call(handle: FakeGpu, *args: Any) -> Any:
            calls[name] += 1
            if handle.lost:
                raise NVMLError(NVML_ERROR_GPU_IS_LOST)
            if name in handle.fail:
                raise NVMLError(handle.fail[name])
            if name in handle.unsupported:
                raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
            value = body(handle, *args)
            if value is None:
                raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
            return value

        return call

    def init() -> None:
        calls["nvmlInit"] += 1
        if init_error is not None:
            raise NVMLError(init_error)

    mod.nvmlInit = init  # type: ignore[attr-defined]
    mod.nvmlShutdown = lambda: calls.update(["nvmlShutdown"])  # type: ignore[attr-defined]
    mod.nvmlSystemGetDriverVersion = lambda: driver  # type: ignore[attr-defined]
    mod.nvmlSystemGetCudaDriverVersion_v2 = lambda: cuda_driver  # type: ignore[attr-defined]
    mod.nvmlDeviceGetCount = lambda: len(gpus)  # type: ignore[attr-defined]
    mod.nvmlDeviceGetHandleByIndex = lambda i: gpus[i]  # type: ignore[attr-defined]
    for name, body in _DEVICE_FUNCTIONS.items():
        if name not in without:
            setattr(mod, name, device_function(name, body))
    return mod
