"""Device cards: the CPU (with RAM), each GPU, the "no GPU" line and the PyTorch card."""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from desktopapp.application.hardware import (
    Chip,
    cache_text,
    feature_chips,
    ghz,
    mhz,
    tflops_text,
)
from desktopapp.devices.cpu import CpuInfo, MemoryInfo
from desktopapp.devices.gpu import CatalogMatch, GpuInfo
from desktopapp.devices.torch_info import TorchDevice, TorchInfo
from desktopapp.model import units
from desktopapp.model.units import DASH
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.hardware.widgets import ChipRow, DeviceCard, PeakTile

_PEAK_ORDER = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8")


def _peak_tiles(peaks: Mapping[str, float], tooltip: str = "", estimate: bool = False) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 2, 0, 0)
    layout.setSpacing(6)
    for dtype in _PEAK_ORDER:
        value = peaks.get(dtype)
        if not value:
            continue
        caption = f"{dtype.upper()} PEAK · ESTIMATE" if estimate else dtype.upper()
        tile = PeakTile(caption, tflops_text(value), "TOPS" if dtype == "int8" else "TFLOP/s")
        tile.setToolTip(tooltip)
        layout.addWidget(tile)
    layout.addStretch(1)
    return row


def _note(text: str, tooltip: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName("Muted")
    label.setWordWrap(True)
    label.setToolTip(tooltip)
    return label


def cpu_card(cpu: CpuInfo, memory: MemoryInfo, catalog: CatalogMatch | None) -> DeviceCard:
    card = DeviceCard("Processor", cpu.model)
    card.title_label.setToolTip(f"{cpu.vendor}, {cpu.arch}; read from {cpu.source}")
    if cpu.virtualized:
        card.add_badge(
            Chip(
                "virtual machine",
                "plain",
                "Running under a hypervisor: vCPUs are counted as cores and the clock the guest "
                "sees may be the nominal one",
            )
        )
    topology = [f"{cpu.cores} {'vCPUs' if cpu.virtualized else 'cores'}"]
    topology.append(f"{cpu.threads} threads")
    if cpu.sockets > 1:
        topology.append(f"{cpu.sockets} sockets")
    usable = (
        f"this process may use {cpu.usable_threads} of them"
        if cpu.usable_threads < cpu.threads
        else ""
    )
    card.add_fact("Cores", " · ".join(topology), usable)

    clock_lines = [
        ("base", ghz(cpu.base_clock_ghz)),
        ("maximum", ghz(cpu.max_clock_ghz)),
        ("reported now", ghz(cpu.reported_clock_ghz)),
    ]
    notes = [a for a in cpu.peak.assumptions if "clock" in a.lower()] if cpu.peak else []
    clock_tip = formula_tooltip("Clock", inputs=clock_lines, note="; ".join(notes))
    if cpu.peak is not None:
        card.add_fact(
            "Clock",
            f"{cpu.peak.clock_ghz:.2f} GHz assumed",
            f"from {cpu.peak.clock_source}",
            clock_tip,
        )
    else:
        card.add_fact("Clock", "unknown", "no clock could be read, so no peak estimate", clock_tip)
    card.add_fact("Caches", cache_text(cpu.caches))
    if memory.total_bytes:
        free = (
            f" · {units.format_bytes(memory.available_bytes)} free"
            if memory.available_bytes
            else ""
        )
        card.add_fact("Memory", f"{units.format_bytes(memory.total_bytes)} RAM{free}")
    else:
        card.add_fact("Memory", "unknown", memory.reason)

    chips = ChipRow()
    chips.setObjectName("IsaChips")
    chips.set_chips(feature_chips(cpu))
    card.add_fact_widget("ISA", chips)
    card.chips = chips

    if catalog is not None and catalog.matched and catalog.peak_tflops:
        tip = formula_tooltip(
            f"Datasheet peaks: {catalog.name}", note=f"{catalog.note}. Source: {catalog.source}"
        )
        card.add_widget(_peak_tiles(catalog.peak_tflops, tip))
    elif cpu.peak is not None:
        tip = formula_tooltip(
            "Peak FP32 (an estimate, not a measurement)",
            cpu.peak.formula,
            note="Assumes: " + "; ".join(cpu.peak.assumptions),
        )
        card.add_widget(_peak_tiles({"fp32": cpu.peak.tflops}, tip, estimate=True))
        card.add_widget(
            _note(
                "No catalog match for this CPU: the peak is estimated as cores × clock × "
                "FLOP per cycle (hover for the formula).",
                tip,
            )
        )
    else:
        card.add_widget(_note("No catalog match and no clock: the peak of this CPU is unknown."))
    return card


def _pcie_text(gpu: GpuInfo) -> str:
    if not gpu.pcie_gen_current and not gpu.pcie_gen_max:
        return DASH
    now = f"Gen {gpu.pcie_gen_current or '?'} ×{gpu.pcie_width_current or '?'}"
    best = f"Gen {gpu.pcie_gen_max or '?'} ×{gpu.pcie_width_max or '?'}"
    return now if now == best else f"{now} now (up to {best})"


def gpu_card(gpu: GpuInfo) -> DeviceCard:
    where = gpu.torch_device or ("not visible to torch" if gpu.source == "nvml" else "")
    kind = f"GPU {gpu.index}" if gpu.index >= 0 else "GPU"
    card = DeviceCard(f"{kind} · {where}" if where else kind, gpu.name)
    card.title_label.setToolTip(f"UUID {gpu.uuid}" if gpu.uuid else "")
    card.add_fact("Memory", units.format_bytes(gpu.memory_total_bytes))
    if gpu.driver_version or gpu.cuda_driver_version:
        card.add_fact(
            "Driver",
            f"{gpu.driver_version or DASH} · CUDA {gpu.cuda_driver_version or DASH}",
        )
    card.add_fact("Compute capability", gpu.compute_capability or DASH)
    if gpu.power_limit_w:
        card.add_fact("Power limit", f"{gpu.power_limit_w:,.0f} W")
    if gpu.max_sm_clock_mhz or gpu.max_memory_clock_mhz:
        card.add_fact(
            "Clocks",
            f"SM {mhz(gpu.max_sm_clock_mhz)} · memory {mhz(gpu.max_memory_clock_mhz)}",
            "maximum clocks reported by the driver",
        )
    card.add_fact("PCIe", _pcie_text(gpu))
    card.add_fact("MIG · ECC", f"MIG {gpu.mig_mode} · ECC {gpu.ecc_mode}")
    match = gpu.catalog
    if match is not None and match.matched and match.peak_tflops:
        tip = formula_tooltip(
            f"Datasheet peaks: {match.name}",
            inputs=(
                [("memory bandwidth", f"{match.memory_bandwidth_gbs:,.0f} GB/s")]
                if match.memory_bandwidth_gbs
                else []
            ),
            note=f"{match.note}. Source: {match.source}",
        )
        card.add_widget(_peak_tiles(match.peak_tflops, tip))
    else:
        card.add_widget(
            _note(
                "No catalog match: datasheet peaks unknown, so results show no % of peak.",
                match.note if match is not None else "",
            )
        )
    for note in gpu.notes:
        card.add_widget(_note(note))
    return card


def other_device_card(device: TorchDevice) -> DeviceCard:
    """An accelerator only torch reports (Apple MPS, Intel XPU)."""
    card = DeviceCard(f"Accelerator · {device.id}", device.name)
    if device.memory_total_bytes:
        card.add_fact("Memory", units.format_bytes(device.memory_total_bytes))
    card.add_widget(_note("Seen through PyTorch; no driver facts are available for it."))
    return card


def no_gpu_card(reason: str) -> DeviceCard:
    card = DeviceCard("GPU", "No GPU detected")
    card.setProperty("muted", True)
    card.add_widget(_note(f"{reason} Benchmarks run on the CPU."))
    return card


def torch_card(torch: TorchInfo | None, probing: bool, has_nvidia_gpu: bool = False) -> DeviceCard:
    if torch is None:
        card = DeviceCard("Software", "PyTorch")
        text = "Checking PyTorch…" if probing else "PyTorch is checked when this tab is shown."
        card.add_widget(_note(text))
        return card
    if not torch.installed:
        card = DeviceCard("Software", "PyTorch not available")
        card.add_badge(Chip("needed for benchmarks", "warn", torch.reason))
        card.add_widget(_note(torch.reason))
        return card
    card = DeviceCard("Software", f"PyTorch {torch.version}")
    if torch.cuda_version:
        build = f"CUDA {torch.cuda_version}"
        if torch.cudnn_version:
            build += f" · cuDNN {torch.cudnn_version}"
    elif torch.hip_version:
        build = f"ROCm {torch.hip_version}"
    else:
        build = "CPU-only build"
    why_no_cuda = torch.cuda_reason if has_nvidia_gpu and not torch.cuda_available else ""
    card.add_fact("Build", build, why_no_cuda)
    devices = ", ".join(d.id for d in torch.devices) or "CPU only"
    card.add_fact("Devices", devices)
    threads = f"{torch.num_threads} intra-op · {torch.num_interop_threads} inter-op"
    card.add_fact("Threads", threads)
    kernels = " · ".join(
        part
        for part in (
            f"CPU kernels {torch.cpu_capability}" if torch.cpu_capability else "",
            f"BLAS {torch.blas}" if torch.blas else "",
            "oneDNN" if torch.mkldnn else "",
        )
        if part
    )
    if kernels:
        card.add_fact("Libraries", kernels)
    return card


def machine_line(hostname: str, os_name: str, python: str, seconds: float | None) -> str:
    parts = [f"<b>{html.escape(hostname)}</b>", html.escape(os_name), f"Python {python}"]
    if seconds is not None:
        parts.append(f"detected in {seconds * 1000:.0f} ms")
    return " · ".join(parts)


__all__ = [
    "cpu_card",
    "gpu_card",
    "machine_line",
    "no_gpu_card",
    "other_device_card",
    "torch_card",
]
