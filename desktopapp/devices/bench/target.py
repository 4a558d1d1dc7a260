"""Which device a benchmark runs on, its peaks, and the torch glue (sync, dtypes, memory)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktopapp.devices.cpu import CpuInfo, detect_cpu
from desktopapp.devices.gpu import match_catalog
from desktopapp.devices.torch_info import detect_torch, install_hint, torch_installed

_DEVICE_RE = re.compile(r"^(cpu|cuda|mps|xpu)(?::(\d+))?$")


def parse_device(spec: str) -> tuple[str, int]:
    """``"cuda:1"`` → ``("cuda", 1)``; raises ``ValueError("device: …")`` for anything else."""
    text = str(spec).strip().lower()
    match = _DEVICE_RE.match(text)
    if not match:
        raise ValueError(f"device: must be cpu, cuda, cuda:N, mps or xpu:N, got {spec!r}")
    kind, index = match.group(1), int(match.group(2) or 0)
    if kind in ("cpu", "mps") and index != 0:
        raise ValueError(f"device: {kind} takes no index, got {spec!r}")
    return kind, index


@dataclass(frozen=True)
class BenchDevice:
    """A resolved benchmark target with the peaks its results are compared against."""

    spec: str  # canonical: "cpu", "cuda:0", "mps", "xpu:0"
    kind: str
    index: int
    name: str
    peaks: Mapping[str, float] = field(default_factory=dict)  # TFLOP/s by dtype
    peak_source: str = ""
    torch_available: bool = True
    torch_reason: str = ""  # why torch cannot be used ("" when it can)
    compute_capability: tuple[int, int] | None = None
    memory_bytes: float | None = None
    cpu: CpuInfo | None = None  # set for the CPU target
    catalog_id: str | None = None
    memory_bandwidth_gbs: float | None = None  # datasheet, from the catalog
    pcie: tuple[int, int] | None = None  # current (generation, width) of a CUDA GPU's link

    def peak(self, dtype: str) -> float | None:
        return self.peaks.get(dtype)

    @property
    def native_bf16(self) -> bool | None:
        return self.cpu.native_bf16 if self.cpu is not None else None

    def to_dict(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "device": self.spec,
            "kind": self.kind,
            "name": self.name,
            "peak_tflops": dict(self.peaks),
            "peak_source": self.peak_source,
            "catalog_id": self.catalog_id,
            "torch_available": self.torch_available,
            "torch_reason": self.torch_reason,
            "compute_capability": (
                f"{self.compute_capability[0]}.{self.compute_capability[1]}"
                if self.compute_capability
                else None
            ),
            "memory_bytes": self.memory_bytes,
            "memory_bandwidth_gbs": self.memory_bandwidth_gbs,
            "pcie": ({"generation": self.pcie[0], "width": self.pcie[1]} if self.pcie else None),
        }
        if self.cpu is not None:
            info.update(
                {
                    "cpu_model": self.cpu.model,
                    "cores": self.cpu.cores,
                    "threads": self.cpu.threads,
                    "flags": list(self.cpu.features),
                    "native_bf16": self.cpu.native_bf16,
                    "peak_formula": self.cpu.peak.formula if self.cpu.peak else None,
                    "clock_assumption": self.cpu.clock_assumption,
                }
            )
        return info


def _cpu_target(cpu: CpuInfo | None = None) -> BenchDevice:
    cpu = cpu or detect_cpu()
    match = match_catalog(cpu.model)
    if match.matched and match.peak_tflops:
        peaks: dict[str, float] = dict(match.peak_tflops)
        source = match.note
    elif cpu.peak is not None:
        peaks = {"fp32": cpu.peak.tflops}
        source = f"estimate: {cpu.peak.formula}"
    else:
        peaks, source = {}, "unknown: no CPU clock could be read"
    available = torch_installed()
    memory: float | None = None
    try:
        import psutil

        memory = float(psutil.virtual_memory().total)
    except Exception:
        memory = None
    return BenchDevice(
        spec="cpu",
        kind="cpu",
        index=0,
        name=cpu.model,
        peaks=peaks,
        peak_source=source,
        torch_available=available,
        torch_reason="" if available else f"torch not installed: {install_hint()}",
        memory_bytes=memory,
        cpu=cpu,
        catalog_id=match.accelerator_id,
    )


def resolve_device(spec: str, cpu: CpuInfo | None = None) -> BenchDevice:
    """Check that ``spec`` names a device this process can use; raises ``ValueError("device: …")``.

    ``cpu`` lets a caller that already detected the CPU skip a second read.
    """
    kind, index = parse_device(spec)
    if kind == "cpu":
        return _cpu_target(cpu)
    info = detect_torch()
    if not info.installed:
        raise ValueError(f"device: {spec} needs torch ({info.reason})")
    canonical = "mps" if kind == "mps" else f"{kind}:{index}"
    devices = [d for d in info.devices if d.kind == kind]
    if not devices:
        why = info.cuda_reason if kind == "cuda" else f"torch {info.version} sees no {kind} device"
        raise ValueError(f"device: {canonical} is not available: {why}")
    found = next((d for d in devices if d.index == index), None)
    if found is None:
        names = ", ".join(d.id for d in devices)
        raise ValueError(f"device: {canonical} does not exist (torch sees {names})")
    match = match_catalog(found.name)
    pcie: tuple[int, int] | None = None
    if kind == "cuda" and found.uuid:
        pcie = _pcie_link(found.uuid)
    capability: tuple[int, int] | None = None
    if found.compute_capability and re.match(r"^\d+\.\d+$", found.compute_capability):
        major, minor = found.compute_capability.split(".")
        capability = (int(major), int(minor))
    return BenchDevice(
        spec=canonical,
        kind=kind,
        index=index,
        name=found.name,
        peaks=dict(match.peak_tflops),
        peak_source=match.note,
        torch_available=True,
        compute_capability=capability,
        memory_bytes=found.memory_total_bytes,
        catalog_id=match.accelerator_id,
        memory_bandwidth_gbs=match.memory_bandwidth_gbs,
        pcie=pcie,
    )


def _pcie_link(uuid: str) -> tuple[int, int] | None:
    """Current PCIe generation and width of the NVML GPU with this UUID, if NVML knows it."""
    from desktopapp.devices.gpu import detect_nvidia_gpus, normalise_uuid

    key = normalise_uuid(uuid)
    for gpu in detect_nvidia_gpus().gpus:
        if normalise_uuid(gpu.uuid) == key and gpu.pcie_gen_current and gpu.pcie_width_current:
            return gpu.pcie_gen_current, gpu.pcie_width_current
    return None


# Usable GB/s per lane and direction after line encoding, by PCIe generation.
PCIE_GBS_PER_LANE: Mapping[int, float] = {
    1: 0.25,
    2: 0.5,
    3: 0.985,
    4: 1.969,
    5: 3.938,
    6: 7.563,
}


# --- torch glue (imports torch; only call from inside a running suite) ----------------------


def torch_device(target: BenchDevice) -> Any:
    import torch

    return torch.device(target.spec)


def synchronizer(target: BenchDevice) -> Callable[[], None]:
    """A function that waits until queued work on the device has finished."""
    if target.kind == "cpu":
        return lambda: None
    import torch

    if target.kind == "cuda":
        index = target.index
        return lambda: torch.cuda.synchronize(index)
    if target.kind == "mps":
        return torch.mps.synchronize
    if target.kind == "xpu":
        return torch.xpu.synchronize
    return lambda: None


def empty_cache(target: BenchDevice) -> None:
    try:
        import torch

        if target.kind == "cuda":
            torch.cuda.empty_cache()
        elif target.kind == "mps":
            torch.mps.empty_cache()
        elif target.kind == "xpu":
            torch.xpu.empty_cache()
    except Exception:
        pass


def free_memory_bytes(target: BenchDevice) -> float | None:
    """Memory a benchmark may still allocate on the device, or None when unknown."""
    try:
        if target.kind == "cpu":
            import psutil

            return float(psutil.virtual_memory().available)
        import torch

        if target.kind == "cuda":
            free, _total = torch.cuda.mem_get_info(target.index)
            return float(free)
    except Exception:
        return None
    return None


def torch_dtype(name: str) -> Any:
    import torch

    table = {
        "fp32": torch.float32,
        "tf32": torch.float32,
        "fp16": torch.float16,
        "bf16": torch.bfloat16,
    }
    if name == "fp8":
        return getattr(torch, "float8_e4m3fn")  # noqa: B009 - absent in old torch
    return table[name]


BYTES_PER_ELEMENT: Mapping[str, int] = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}
