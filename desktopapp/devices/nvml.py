"""A thin NVML wrapper (``nvidia-ml-py``, imported as ``pynvml``) that never raises.

NVML is initialised once per process on first use, lazily, so importing this module costs
nothing and the GUI starts without touching the driver. Every query goes through
:func:`safe_call`, which turns any NVML error (not supported, GPU lost, no permission) into a
default value, because one failing counter must not stop a detection or a monitor sample.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any

NAN = math.nan


@dataclass(frozen=True)
class NvmlStatus:
    available: bool
    reason: str  # "" when available; otherwise why not and what to do
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # e.g. "12.4"
    device_count: int = 0


_lock = threading.Lock()
_module: ModuleType | None = None
_status: NvmlStatus | None = None


def _decode(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _initialise() -> NvmlStatus:
    global _module
    try:
        import pynvml
    except ImportError:
        return NvmlStatus(
            False,
            "unavailable because the nvidia-ml-py package is not installed "
            "(pip install nvidia-ml-py)",
        )
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, …
        text = str(exc) or type(exc).__name__
        lowered = text.lower()
        if "library" in lowered and ("not found" in lowered or "shared" in lowered):
            why = "the NVML library (libnvidia-ml) was not found: no NVIDIA driver installed"
        elif "driver" in lowered:
            why = f"the NVIDIA driver is not loaded ({text})"
        else:
            why = f"NVML could not start ({text})"
        return NvmlStatus(False, f"unavailable because {why}")
    _module = pynvml
    driver = _decode(_call(pynvml, "nvmlSystemGetDriverVersion"))
    cuda_raw = _call(pynvml, "nvmlSystemGetCudaDriverVersion_v2") or _call(
        pynvml, "nvmlSystemGetCudaDriverVersion"
    )
    cuda = f"{cuda_raw // 1000}.{(cuda_raw % 1000) // 10}" if isinstance(cuda_raw, int) else None
    count = _call(pynvml, "nvmlDeviceGetCount") or 0
    if count == 0:
        return NvmlStatus(
            False, "unavailable because the NVIDIA driver reports no GPU", driver, cuda, 0
        )
    return NvmlStatus(True, "", driver, cuda, int(count))


def _call(module: ModuleType, name: str, *args: Any) -> Any:
    try:
        return getattr(module, name)(*args)
    except Exception:
        return None


def status() -> NvmlStatus:
    """Initialise NVML on first call and say whether it can be used (never raises)."""
    global _status
    with _lock:
        if _status is None:
            _status = _initialise()
        return _status


def module() -> ModuleType | None:
    """The initialised ``pynvml`` module, or None when NVML is unavailable."""
    status()
    return _module


def safe_call(name: str, *args: Any, default: Any = None) -> Any:
    """``pynvml.<name>(*args)``, or ``default`` when NVML is unavailable or the call fails.

    Byte strings from old bindings are decoded to ``str``.
    """
    mod = module()
    if mod is None:
        return default
    func = getattr(mod, name, None)
    if func is None:
        return default
    try:
        return _decode(func(*args))
    except Exception:
        return default


def device_handles() -> list[Any]:
    """One NVML handle per GPU (NVML order), or an empty list."""
    st = status()
    if not st.available:
        return []
    handles = []
    for index in range(st.device_count):
        handle = safe_call("nvmlDeviceGetHandleByIndex", index)
        if handle is not None:
            handles.append(handle)
    return handles


def shutdown() -> None:
    """Shut NVML down and forget the initialisation: the next call initialises again (and
    imports ``pynvml`` again, which is how tests put a fake one in place)."""
    global _module, _status
    with _lock:
        if _module is not None:
            _call(_module, "nvmlShutdown")
        _module = None
        _status = None
