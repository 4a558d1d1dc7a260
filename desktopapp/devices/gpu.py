"""NVIDIA GPU facts through :mod:`desktopapp.devices.nvml`, plus matching to the catalog.

Every NVML query goes through ``nvml.safe_call`` so a counter a GPU does not support (or a GPU
that fell off the bus) gives ``None`` rather than an exception. CUDA device indices (what
torch calls ``cuda:N``) are matched to NVML devices by UUID because ``CUDA_VISIBLE_DEVICES``
can hide and reorder GPUs, and CUDA's default order (fastest first) can differ from NVML's
(PCI bus order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from desktopapp.devices import nvml
from desktopapp.devices.problems import NO_GPU, Problem

if TYPE_CHECKING:
    from desktopapp.devices.torch_info import TorchDevice
    from desktopapp.model.catalog import AcceleratorCatalog


@dataclass(frozen=True)
class CatalogMatch:
    """Datasheet figures for a detected device, or why there are none."""

    query: str
    accelerator_id: str | None
    name: str | None
    peak_tflops: Mapping[str, float] = field(default_factory=dict)
    memory_bandwidth_gbs: float | None = None
    source: str = ""
    note: str = ""  # human-readable: what matched, or why nothing did

    @property
    def matched(self) -> bool:
        return self.accelerator_id is not None

    def peak(self, dtype: str) -> float | None:
        """Dense datasheet peak in TFLOP/s for ``dtype``, or None."""
        return self.peak_tflops.get(dtype)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "matched": self.matched,
            "accelerator_id": self.accelerator_id,
            "name": self.name,
            "peak_tflops": dict(self.peak_tflops),
            "memory_bandwidth_gbs": self.memory_bandwidth_gbs,
            "source": self.source,
            "note": self.note,
        }


def _candidate_names(name: str) -> list[str]:
    names = [name]
    for prefix in ("NVIDIA GeForce ", "NVIDIA ", "GeForce ", "AMD ", "Intel "):
        if name.startswith(prefix):
            names.append(name[len(prefix) :])
    return names


def match_catalog(name: str, catalog: AcceleratorCatalog | None = None) -> CatalogMatch:
    """Find ``name`` (an NVML or torch device name) among the catalog's ids/names/aliases.

    Exact alias matches only: "H100 PCIe" must not borrow the SXM peaks. Never raises.
    """
    if catalog is None:
        try:
            from desktopapp.model.catalog import accelerator_catalog

            catalog = accelerator_catalog()
        except Exception as exc:
            return CatalogMatch(
                name,
                None,
                None,
                note=f"catalog unavailable because {type(exc).__name__}: {exc}",
            )
    for candidate in _candidate_names(name):
        acc = catalog.find(candidate)
        if acc is not None:
            return CatalogMatch(
                name,
                acc.id,
                acc.name,
                dict(acc.peak_tflops),
                acc.memory_bandwidth_gbs,
                acc.source,
                f"catalog entry {acc.id} ({acc.name}); datasheet dense peaks",
            )
    return CatalogMatch(
        name,
        None,
        None,
        note=f"no catalog entry for {name!r}: datasheet peaks unknown, so no % of peak",
    )


def normalise_uuid(uuid: object) -> str:
    """``"GPU-5b4d…"`` (NVML) and ``"5b4d…"`` (torch) → ``"5b4d…"`` lower case."""
    text = str(uuid or "").strip().lower()
    for prefix in ("gpu-", "mig-"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return text


@dataclass(frozen=True)
class GpuInfo:
    """One GPU; every field the driver cannot give is None."""

    index: int  # NVML index (PCI bus order); -1 for a GPU seen only through torch
    name: str
    uuid: str  # as NVML writes it ("GPU-…"), or torch's UUID
    memory_total_bytes: float | None
    driver_version: str | None
    cuda_driver_version: str | None
    power_limit_w: float | None
    max_sm_clock_mhz: float | None
    max_memory_clock_mhz: float | None
    pcie_gen_max: int | None
    pcie_width_max: int | None
    pcie_gen_current: int | None
    pcie_width_current: int | None
    compute_capability: str | None  # "9.0"
    mig_mode: str  # "enabled", "disabled", "unsupported"
    ecc_mode: str  # "enabled", "disabled", "unsupported"
    torch_index: int | None = None  # N in cuda:N for this process, None if torch does not see it
    catalog: CatalogMatch | None = None
    source: str = "nvml"  # "nvml" or "torch"
    notes: tuple[str, ...] = ()

    @property
    def torch_device(self) -> str | None:
        return f"cuda:{self.torch_index}" if self.torch_index is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "uuid": self.uuid,
            "memory_total_bytes": self.memory_total_bytes,
            "driver_version": self.driver_version,
            "cuda_driver_version": self.cuda_driver_version,
            "power_limit_w": self.power_limit_w,
            "max_sm_clock_mhz": self.max_sm_clock_mhz,
            "max_memory_clock_mhz": self.max_memory_clock_mhz,
            "pcie": {
                "gen_max": self.pcie_gen_max,
                "width_max": self.pcie_width_max,
                "gen_current": self.pcie_gen_current,
                "width_current": self.pcie_width_current,
            },
            "compute_capability": self.compute_capability,
            "mig_mode": self.mig_mode,
            "ecc_mode": self.ecc_mode,
            "torch_index": self.torch_index,
            "torch_device": self.torch_device,
            "catalog": self.catalog.to_dict() if self.catalog else None,
            "source": self.source,
            "notes": list(self.notes),
        }


def _mode(value: Any) -> str:
    """NVML (current, pending) pairs → "enabled"/"disabled"/"unsupported"."""
    if value is None:
        return "unsupported"
    current = value[0] if isinstance(value, list | tuple) else value
    try:
        return "enabled" if int(current) else "disabled"
    except (TypeError, ValueError):
        return "unsupported"


def _as_int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _gpu_from_handle(index: int, handle: Any, status: nvml.NvmlStatus) -> GpuInfo:
    mod = nvml.module()
    clock_sm = getattr(mod, "NVML_CLOCK_SM", 1)
    clock_mem = getattr(mod, "NVML_CLOCK_MEM", 2)
    name = nvml.safe_call("nvmlDeviceGetName", handle, default=None) or f"GPU {index}"
    uuid = nvml.safe_call("nvmlDeviceGetUUID", handle, default="") or ""
    memory = nvml.safe_call("nvmlDeviceGetMemoryInfo", handle)
    total = float(memory.total) if memory is not None and hasattr(memory, "total") else None
    power_mw = nvml.safe_call("nvmlDeviceGetPowerManagementLimit", handle)
    if power_mw is None:
        power_mw = nvml.safe_call("nvmlDeviceGetEnforcedPowerLimit", handle)
    sm = nvml.safe_call("nvmlDeviceGetMaxClockInfo", handle, clock_sm)
    mem_clock = nvml.safe_call("nvmlDeviceGetMaxClockInfo", handle, clock_mem)
    gen_max = nvml.safe_call("nvmlDeviceGetGpuMaxPcieLinkGeneration", handle)
    if gen_max is None:
        gen_max = nvml.safe_call("nvmlDeviceGetMaxPcieLinkGeneration", handle)
    cc = nvml.safe_call("nvmlDeviceGetCudaComputeCapability", handle)
    capability = f"{cc[0]}.{cc[1]}" if isinstance(cc, list | tuple) and len(cc) == 2 else None
    notes: list[str] = []
    if total is None:
        notes.append("memory size unavailable because NVML did not report it")
    return GpuInfo(
        index=index,
        name=str(name),
        uuid=str(uuid),
        memory_total_bytes=total,
        driver_version=status.driver_version,
        cuda_driver_version=status.cuda_driver_version,
        power_limit_w=float(power_mw) / 1000.0 if isinstance(power_mw, int | float) else None,
        max_sm_clock_mhz=float(sm) if isinstance(sm, int | float) and sm > 0 else None,
        max_memory_clock_mhz=(
            float(mem_clock) if isinstance(mem_clock, int | float) and mem_clock > 0 else None
        ),
        pcie_gen_max=_as_int(gen_max),
        pcie_width_max=_as_int(nvml.safe_call("nvmlDeviceGetMaxPcieLinkWidth", handle)),
        pcie_gen_current=_as_int(nvml.safe_call("nvmlDeviceGetCurrPcieLinkGeneration", handle)),
        pcie_width_current=_as_int(nvml.safe_call("nvmlDeviceGetCurrPcieLinkWidth", handle)),
        compute_capability=capability,
        mig_mode=_mode(nvml.safe_call("nvmlDeviceGetMigMode", handle)),
        ecc_mode=_mode(nvml.safe_call("nvmlDeviceGetEccMode", handle)),
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class GpuDetection:
    gpus: tuple[GpuInfo, ...]
    status: nvml.NvmlStatus
    problems: tuple[str, ...]


def detect_nvidia_gpus(catalog: AcceleratorCatalog | None = None) -> GpuDetection:
    """All NVIDIA GPUs NVML sees, each matched to the catalog. Never raises.

    ``problems`` holds "No NVIDIA GPU: unavailable because …" when there is none.
    """
    try:
        status = nvml.status()
    except Exception as exc:  # nvml.status is written not to raise; belt and braces
        status = nvml.NvmlStatus(False, f"unavailable because NVML failed ({exc})")
    if not status.available:
        return GpuDetection((), status, (Problem(NO_GPU, f"No NVIDIA GPU: {status.reason}"),))
    gpus: list[GpuInfo] = []
    for index, handle in enumerate(nvml.device_handles()):
        info = _gpu_from_handle(index, handle, status)
        gpus.append(replace(info, catalog=match_catalog(info.name, catalog)))
    problems: tuple[str, ...] = ()
    if not gpus:
        problems = (
            Problem(NO_GPU, "No NVIDIA GPU: unavailable because NVML returned no device handle"),
        )
    return GpuDetection(tuple(gpus), status, problems)


def map_torch_devices(
    gpus: Sequence[GpuInfo],
    torch_devices: Sequence[TorchDevice],
    catalog: AcceleratorCatalog | None = None,
) -> tuple[GpuInfo, ...]:
    """Set ``torch_index`` on each NVML GPU by UUID; add GPUs only torch sees (ROCm, no NVML).

    ``torch_devices`` are the ``cuda`` devices of :class:`~desktopapp.devices.torch_info.
    TorchInfo` in torch's index order (after ``CUDA_VISIBLE_DEVICES``).
    """
    cuda = [d for d in torch_devices if d.kind == "cuda"]
    by_uuid = {normalise_uuid(g.uuid): g for g in gpus if g.uuid}
    mapped: dict[int, int] = {}  # NVML index → torch index
    extra: list[GpuInfo] = []
    for dev in cuda:
        key = normalise_uuid(dev.uuid)
        gpu = by_uuid.get(key) if key else None
        if gpu is not None:
            mapped[gpu.index] = dev.index
            continue
        extra.append(
            GpuInfo(
                index=-1,
                name=dev.name,
                uuid=dev.uuid or "",
                memory_total_bytes=dev.memory_total_bytes,
                driver_version=None,
                cuda_driver_version=None,
                power_limit_w=None,
                max_sm_clock_mhz=None,
                max_memory_clock_mhz=None,
                pcie_gen_max=None,
                pcie_width_max=None,
                pcie_gen_current=None,
                pcie_width_current=None,
                compute_capability=dev.compute_capability,
                mig_mode="unsupported",
                ecc_mode="unsupported",
                torch_index=dev.index,
                catalog=match_catalog(dev.name, catalog),
                source="torch",
                notes=(
                    "seen by torch only: NVML facts (power, clocks, PCIe) unavailable because "
                    "NVML does not list this device" + (" (no UUID to match)" if not key else ""),
                ),
            )
        )
    result = []
    for gpu in gpus:
        torch_index = mapped.get(gpu.index)
        notes = gpu.notes
        if torch_index is None and cuda:
            notes = (*notes, "not visible to torch in this process (CUDA_VISIBLE_DEVICES?)")
        result.append(replace(gpu, torch_index=torch_index, notes=notes))
    return (*result, *extra)


__all__ = [
    "CatalogMatch",
    "GpuDetection",
    "GpuInfo",
    "detect_nvidia_gpus",
    "map_torch_devices",
    "match_catalog",
    "normalise_uuid",
]
