"""What the installed torch can use: version, CUDA/ROCm/cuDNN, CUDA/MPS/XPU devices, threads.

Importing torch takes about a second, so this module imports it only inside
:func:`detect_torch`; :func:`torch_installed` answers cheaply without importing it. When torch
is missing, :class:`TorchInfo` says so and how to install it (never raises).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from typing import Any

# Wheel index suffixes published by pytorch.org, oldest first: (CUDA major, minor, suffix).
_CUDA_WHEELS: tuple[tuple[int, int, str], ...] = (
    (11, 8, "cu118"),
    (12, 1, "cu121"),
    (12, 4, "cu124"),
    (12, 6, "cu126"),
    (12, 8, "cu128"),
    (13, 0, "cu130"),
)
_DEFAULT_REQUIREMENT = "torch>=2.2"


@dataclass(frozen=True)
class TorchDevice:
    kind: str  # "cuda" (also ROCm builds), "mps", "xpu"
    index: int
    name: str
    memory_total_bytes: float | None = None
    compute_capability: str | None = None  # "9.0" for CUDA; gfx arch for ROCm
    multiprocessors: int | None = None
    uuid: str | None = None

    @property
    def id(self) -> str:
        return self.kind if self.kind == "mps" else f"{self.kind}:{self.index}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "index": self.index,
            "name": self.name,
            "memory_total_bytes": self.memory_total_bytes,
            "compute_capability": self.compute_capability,
            "multiprocessors": self.multiprocessors,
            "uuid": self.uuid,
        }


@dataclass(frozen=True)
class TorchInfo:
    installed: bool
    reason: str  # "" when usable; else "torch not installed: pip install …" or import error
    install_hint: str
    version: str | None = None
    cuda_version: str | None = None  # CUDA the wheel was built with
    hip_version: str | None = None  # ROCm builds
    cudnn_version: str | None = None
    cuda_available: bool = False
    cuda_reason: str = ""  # why no CUDA device, "" when there is one
    mps_available: bool = False
    xpu_available: bool = False
    devices: tuple[TorchDevice, ...] = ()
    num_threads: int | None = None  # torch.get_num_threads(): intra-op (BLAS) threads
    num_interop_threads: int | None = None
    cpu_capability: str | None = None  # "AVX2", "AVX512", "DEFAULT" …
    blas: str | None = None  # "mkl", "openblas", …
    mkldnn: bool | None = None

    @property
    def cuda_devices(self) -> tuple[TorchDevice, ...]:
        return tuple(d for d in self.devices if d.kind == "cuda")

    def to_dict(self) -> dict[str, Any]:
        return {
            "installed": self.installed,
            "reason": self.reason,
            "install_hint": self.install_hint,
            "version": self.version,
            "cuda_version": self.cuda_version,
            "hip_version": self.hip_version,
            "cudnn_version": self.cudnn_version,
            "cuda_available": self.cuda_available,
            "cuda_reason": self.cuda_reason,
            "mps_available": self.mps_available,
            "xpu_available": self.xpu_available,
            "devices": [d.to_dict() for d in self.devices],
            "num_threads": self.num_threads,
            "num_interop_threads": self.num_interop_threads,
            "cpu_capability": self.cpu_capability,
            "blas": self.blas,
            "mkldnn": self.mkldnn,
        }


def torch_installed() -> bool:
    """True when ``import torch`` can work, without importing it."""
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def torch_requirement() -> str:
    """The torch requirement this package declares (``torch>=2.2``)."""
    try:
        from importlib.metadata import requires

        for req in requires("desktopapp") or []:
            name = req.split(";")[0].strip()
            if name.lower().startswith("torch") and not name.lower().startswith("torch-"):
                return name.replace(" ", "")
    except Exception:
        pass
    return _DEFAULT_REQUIREMENT


def wheel_index(cuda_driver_version: str | None) -> str:
    """pytorch.org wheel index for the newest CUDA the driver supports, or the CPU index."""
    if cuda_driver_version:
        try:
            major_s, _, minor_s = cuda_driver_version.partition(".")
            have = (int(major_s), int(minor_s or 0))
        except ValueError:
            have = (0, 0)
        fitting = [s for (ma, mi, s) in _CUDA_WHEELS if (ma, mi) <= have]
        if fitting:
            return f"https://download.pytorch.org/whl/{fitting[-1]}"
    return "https://download.pytorch.org/whl/cpu"


def install_hint(cuda_driver_version: str | None = None) -> str:
    """``pip install "torch>=2.2" --index-url …`` matching the NVIDIA driver, or the CPU build."""
    build = f"CUDA {cuda_driver_version} driver" if cuda_driver_version else "CPU-only"
    return (
        f'pip install "{torch_requirement()}" --index-url {wheel_index(cuda_driver_version)} '
        f"({build} build; on macOS plain `pip install torch` gives MPS support)"
    )


def _cuda_devices(torch: Any) -> tuple[list[TorchDevice], str]:
    try:
        available = bool(torch.cuda.is_available())
    except Exception as exc:
        return [], f"torch.cuda.is_available() failed ({exc})"
    if not available:
        version = torch.version
        if getattr(version, "cuda", None) is None and getattr(version, "hip", None) is None:
            return [], (
                "this torch build has no CUDA support (CPU-only wheel); for an NVIDIA GPU "
                "install a CUDA build"
            )
        return [], "torch has CUDA support but sees no usable GPU (driver missing or no GPU)"
    devices = []
    try:
        count = int(torch.cuda.device_count())
    except Exception as exc:
        return [], f"torch.cuda.device_count() failed ({exc})"
    for index in range(count):
        try:
            props = torch.cuda.get_device_properties(index)
        except Exception as exc:
            devices.append(TorchDevice("cuda", index, f"CUDA device {index} ({exc})"))
            continue
        uuid = getattr(props, "uuid", None)
        arch = getattr(props, "gcnArchName", None) if torch.version.hip else None
        devices.append(
            TorchDevice(
                kind="cuda",
                index=index,
                name=str(props.name),
                memory_total_bytes=float(props.total_memory),
                compute_capability=arch or f"{props.major}.{props.minor}",
                multiprocessors=int(getattr(props, "multi_processor_count", 0)) or None,
                uuid=str(uuid) if uuid is not None else None,
            )
        )
    return devices, ""


def _xpu_devices(torch: Any) -> list[TorchDevice]:
    xpu = getattr(torch, "xpu", None)
    if xpu is None:
        return []
    try:
        if not xpu.is_available():
            return []
        devices = []
        for index in range(int(xpu.device_count())):
            props = xpu.get_device_properties(index)
            devices.append(
                TorchDevice(
                    "xpu",
                    index,
                    str(getattr(props, "name", f"XPU {index}")),
                    float(getattr(props, "total_memory", 0)) or None,
                )
            )
        return devices
    except Exception:
        return []


def _blas(torch: Any) -> str | None:
    try:
        config = str(torch.__config__.show())
    except Exception:
        return None
    for token in config.replace(",", " ").split():
        if token.startswith("BLAS_INFO="):
            return token.split("=", 1)[1] or None
    return None


def detect_torch(cuda_driver_version: str | None = None) -> TorchInfo:
    """Import torch and describe it; never raises. Takes ~1 s the first time (the import)."""
    hint = install_hint(cuda_driver_version)
    if not torch_installed():
        return TorchInfo(False, f"torch not installed: {hint}", hint)
    try:
        import torch
    except Exception as exc:  # broken install, missing shared library …
        return TorchInfo(
            False, f"torch is installed but failed to import ({type(exc).__name__}: {exc})", hint
        )
    devices, cuda_reason = _cuda_devices(torch)
    mps = False
    try:
        mps = bool(torch.backends.mps.is_available())
    except Exception:
        mps = False
    if mps:
        devices.append(TorchDevice("mps", 0, "Apple GPU (MPS)"))
    xpus = _xpu_devices(torch)
    devices.extend(xpus)
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception:
        cudnn = None
    try:
        capability = str(torch.backends.cpu.get_cpu_capability())
    except Exception:
        capability = None
    try:
        mkldnn: bool | None = bool(torch.backends.mkldnn.is_available())
    except Exception:
        mkldnn = None
    return TorchInfo(
        installed=True,
        reason="",
        install_hint=hint,
        version=str(torch.__version__),
        cuda_version=getattr(torch.version, "cuda", None),
        hip_version=getattr(torch.version, "hip", None),
        cudnn_version=str(cudnn) if cudnn else None,
        cuda_available=any(d.kind == "cuda" for d in devices),
        cuda_reason=cuda_reason,
        mps_available=mps,
        xpu_available=bool(xpus),
        devices=tuple(devices),
        num_threads=int(torch.get_num_threads()),
        num_interop_threads=int(torch.get_num_interop_threads()),
        cpu_capability=capability,
        blas=_blas(torch),
        mkldnn=mkldnn,
    )


__all__ = [
    "TorchDevice",
    "TorchInfo",
    "detect_torch",
    "install_hint",
    "torch_installed",
    "torch_requirement",
    "wheel_index",
]
