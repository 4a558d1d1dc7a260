"""A fake ``pynvml`` for the detection tests, installed through ``sys.modules``.

It follows the real bindings' conventions: handles from ``nvmlDeviceGetHandleByIndex``, memory
info with ``.total``, power in milliwatts, ``(current, pending)`` pairs for MIG/ECC modes,
``(major, minor)`` compute capability, and errors as ``NVMLError`` with a ``.value`` code.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_DRIVER_NOT_LOADED = 9

_TEXT = {
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
}


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return _TEXT.get(self.value, f"NVML error {self.value}")


@dataclass
class FakeGpu:
    name: str = "NVIDIA H100 80GB HBM3"
    uuid: str = "GPU-11111111-2222-3333-4444-555555555555"
    memory_total: int = 80 * 1024**3
    power_limit_mw: int = 700_000
    max_sm_mhz: int = 1980
    max_mem_mhz: int = 2619
    pcie_gen_max: int = 5
    pcie_width_max: int = 16
    pcie_gen: int = 5
    pcie_width: int = 16
    capability: tuple[int, int] = (9, 0)
    mig: tuple[int, int] | None = (0, 0)
    ecc: tuple[int, int] | None = (1, 1)
    unsupported: set[str] = field(default_factory=set)  # function names that raise


@dataclass
class _Memory:
    total: int
    used: int = 0
    free: int = 0


def make_module(
    gpus: list[FakeGpu],
    *,
    init_error: int | None = None,
    driver: str = "550.54.15",
    cuda_driver: int = 12040,
) -> types.ModuleType:
    mod = types.ModuleType("pynvml")
    mod.NVMLError = NVMLError  # type: ignore[attr-defined]
    mod.NVML_CLOCK_SM = 1  # type: ignore[attr-defined]
    mod.NVML_CLOCK_MEM = 2  # type: ignore[attr-defined]
    state = {"initialised": False}

    def init() -> None:
        if init_error is not None:
            raise NVMLError(init_error)
        state["initialised"] = True

    def shutdown() -> None:
        state["initialised"] = False

    def per_gpu(name: str, getter: Any) -> Any:
        def call(handle: FakeGpu, *args: Any) -> Any:
            if name in handle.unsupported:
                raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
            value = getter(handle, *args)
            if value is None:
                raise NVMLError(NVML_ERROR_NOT_SUPPORTED)
            return value

        return call

    def handle_by_index(index: int) -> FakeGpu:
        return gpus[index]

    functions: dict[str, Any] = {
        "nvmlInit": init,
        "nvmlShutdown": shutdown,
        "nvmlSystemGetDriverVersion": lambda: driver.encode(),  # old bindings return bytes
        "nvmlSystemGetCudaDriverVersion_v2": lambda: cuda_driver,
        "nvmlDeviceGetCount": lambda: len(gpus),
        "nvmlDeviceGetHandleByIndex": handle_by_index,
        "nvmlDeviceGetName": per_gpu("nvmlDeviceGetName", lambda g: g.name),
        "nvmlDeviceGetUUID": per_gpu("nvmlDeviceGetUUID", lambda g: g.uuid),
        "nvmlDeviceGetMemoryInfo": per_gpu(
            "nvmlDeviceGetMemoryInfo", lambda g: _Memory(g.memory_total)
        ),
        "nvmlDeviceGetPowerManagementLimit": per_gpu(
            "nvmlDeviceGetPowerManagementLimit", lambda g: g.power_limit_mw
        ),
        "nvmlDeviceGetMaxClockInfo": per_gpu(
            "nvmlDeviceGetMaxClockInfo",
            lambda g, clock: g.max_sm_mhz if clock == 1 else g.max_mem_mhz,
        ),
        "nvmlDeviceGetMaxPcieLinkGeneration": per_gpu(
            "nvmlDeviceGetMaxPcieLinkGeneration", lambda g: g.pcie_gen_max
        ),
        "nvmlDeviceGetMaxPcieLinkWidth": per_gpu(
            "nvmlDeviceGetMaxPcieLinkWidth", lambda g: g.pcie_width_max
        ),
        "nvmlDeviceGetCurrPcieLinkGeneration": per_gpu(
            "nvmlDeviceGetCurrPcieLinkGeneration", lambda g: g.pcie_gen
        ),
        "nvmlDeviceGetCurrPcieLinkWidth": per_gpu(
            "nvmlDeviceGetCurrPcieLinkWidth", lambda g: g.pcie_width
        ),
        "nvmlDeviceGetCudaComputeCapability": per_gpu(
            "nvmlDeviceGetCudaComputeCapability", lambda g: g.capability
        ),
        "nvmlDeviceGetMigMode": per_gpu("nvmlDeviceGetMigMode", lambda g: g.mig),
        "nvmlDeviceGetEccMode": per_gpu("nvmlDeviceGetEccMode", lambda g: g.ecc),
    }
    for name, func in functions.items():
        setattr(mod, name, func)
    return mod
