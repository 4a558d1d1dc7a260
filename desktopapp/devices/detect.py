"""One call that says what this machine has: :func:`detect_system` → :class:`SystemReport`.

Fast by default for the GUI: CPU, RAM and NVML facts take milliseconds; the torch part (about a
second to import) is optional, so the Hardware tab can show CPU facts first and add torch later
with :meth:`SystemReport.with_torch` from a worker thread. Never raises: whatever is missing
becomes a line in ``problems``.
"""

from __future__ import annotations

import hashlib
import platform
import socket
import sys
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from desktopapp.devices import nvml
from desktopapp.devices.cpu import CpuInfo, MemoryInfo, detect_cpu, detect_memory
from desktopapp.devices.gpu import (
    CatalogMatch,
    GpuInfo,
    detect_nvidia_gpus,
    map_torch_devices,
    match_catalog,
)
from desktopapp.devices.problems import NO_GPU, kind_of
from desktopapp.devices.torch_info import TorchInfo, detect_torch
from desktopapp.model.units import plural

if TYPE_CHECKING:
    from desktopapp.model.catalog import AcceleratorCatalog


def machine_fingerprint(cpu_model: str, gpu_uuids: list[str] | tuple[str, ...], host: str) -> str:
    """Stable id of a machine: hash of CPU model, sorted GPU UUIDs and host name."""
    text = "\n".join([cpu_model, *sorted(u for u in gpu_uuids if u), host])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SystemReport:
    cpu: CpuInfo
    memory: MemoryInfo
    gpus: tuple[GpuInfo, ...]
    torch: TorchInfo | None  # None until probed (detect_system(include_torch=False))
    problems: tuple[str, ...]
    nvml: nvml.NvmlStatus
    cpu_catalog: CatalogMatch | None
    hostname: str
    os: str
    python: str
    seconds: float  # how long detection took

    @property
    def fingerprint(self) -> str:
        return machine_fingerprint(self.cpu.model, [g.uuid for g in self.gpus], self.hostname)

    @property
    def cpu_peak_tflops(self) -> dict[str, float]:
        """CPU peaks used for % of peak: the catalog row if one matched, else the estimate."""
        if self.cpu_catalog is not None and self.cpu_catalog.matched:
            return dict(self.cpu_catalog.peak_tflops)
        if self.cpu.peak is not None:
            return {"fp32": self.cpu.peak.tflops}
        return {}

    def device_choices(self) -> list[str]:
        """Benchmark targets: "cpu", then every torch device ("cuda:0", "mps", "xpu:0")."""
        choices = ["cpu"]
        if self.torch is not None and self.torch.installed:
            choices.extend(d.id for d in self.torch.devices)
        return choices

    def with_torch(
        self, torch_info: TorchInfo | None = None, catalog: AcceleratorCatalog | None = None
    ) -> SystemReport:
        """This report plus torch facts, GPUs mapped to ``cuda:N`` by UUID."""
        info = torch_info or detect_torch(self.nvml.cuda_driver_version)
        gpus = map_torch_devices(
            [g for g in self.gpus if g.source == "nvml"], info.devices, catalog
        )
        problems = [p for p in self.problems if not p.startswith(_TORCH_PROBLEM_PREFIXES)]
        problems.extend(_torch_problems(info, gpus))
        if any(g.source == "torch" for g in gpus):
            problems = [p for p in problems if kind_of(p) != NO_GPU]
        return replace(self, torch=info, gpus=gpus, problems=tuple(problems))

    def to_dict(self) -> dict[str, Any]:
        cpu = self.cpu.to_dict()
        cpu["catalog"] = self.cpu_catalog.to_dict() if self.cpu_catalog else None
        return {
            "cpu": cpu,
            "memory": self.memory.to_dict(),
            "gpus": [g.to_dict() for g in self.gpus],
            "torch": self.torch.to_dict() if self.torch else None,
            "nvml": {
                "available": self.nvml.available,
                "reason": self.nvml.reason,
                "driver_version": self.nvml.driver_version,
                "cuda_driver_version": self.nvml.cuda_driver_version,
                "device_count": self.nvml.device_count,
            },
            "problems": list(self.problems),
            "machine": {
                "hostname": self.hostname,
                "os": self.os,
                "python": self.python,
                "fingerprint": self.fingerprint,
            },
            "detect_seconds": self.seconds,
        }


_TORCH_PROBLEM_PREFIXES = ("torch ", "No CUDA in torch")


def _torch_problems(info: TorchInfo, gpus: tuple[GpuInfo, ...]) -> list[str]:
    problems: list[str] = []
    if not info.installed:
        problems.append(info.reason)
        return problems
    nvidia = [g for g in gpus if g.source == "nvml"]
    if nvidia and not info.cuda_available:
        problems.append(
            f"No CUDA in torch although {plural(len(nvidia), 'NVIDIA GPU')} "
            f"{'is' if len(nvidia) == 1 else 'are'} present: "
            f"{info.cuda_reason}; {info.install_hint}"
        )
    hidden = [g for g in nvidia if g.torch_index is None]
    if info.cuda_available and hidden:
        names = ", ".join(f"{g.name} ({g.uuid})" for g in hidden)
        problems.append(f"torch cannot see {names}: check CUDA_VISIBLE_DEVICES")
    return problems


def _cpu_catalog(cpu: CpuInfo, catalog: AcceleratorCatalog | None) -> CatalogMatch:
    match = match_catalog(cpu.model, catalog)
    if match.matched:
        return match
    return replace(
        match,
        note=(
            f"no catalog entry for CPU {cpu.model!r}: peak is the estimate "
            f"({cpu.peak.formula if cpu.peak else 'unavailable: no clock'})"
        ),
    )


def detect_system(
    include_torch: bool = True, catalog: AcceleratorCatalog | None = None
) -> SystemReport:
    """CPU, RAM, NVIDIA GPUs and (optionally) torch. Never raises.

    Without torch this takes a few milliseconds (plus NVML start-up where a driver exists).
    """
    start = time.perf_counter()
    cpu = detect_cpu()
    memory = detect_memory()
    detection = detect_nvidia_gpus(catalog)
    gpu_problems = [
        f"GPU {g.name}: {g.catalog.note}"
        for g in detection.gpus
        if g.catalog is not None and not g.catalog.matched
    ]
    try:
        host = socket.gethostname()
    except OSError:
        host = platform.node()
    report = SystemReport(
        cpu=cpu,
        memory=memory,
        gpus=detection.gpus,
        torch=None,
        problems=(*detection.problems, *gpu_problems),
        nvml=detection.status,
        cpu_catalog=_cpu_catalog(cpu, catalog),
        hostname=host,
        os=f"{platform.system()} {platform.release()}".strip(),
        python=sys.version.split()[0],
        seconds=0.0,
    )
    if include_torch:
        report = report.with_torch(catalog=catalog)
    return replace(report, seconds=time.perf_counter() - start)


__all__ = ["SystemReport", "detect_system", "machine_fingerprint"]
