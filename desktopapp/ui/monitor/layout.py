"""What the Monitor tab plots: plot and curve specifications, and value formatting.

Pure Python (no Qt, no pyqtgraph): the plot grid is built from :func:`plot_specs`, which reads
the channel names of the first sample (``SystemSample.channels``), so tests can check the layout
without drawing anything. Formatting goes through :mod:`desktopapp.model.units`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from desktopapp.application.monitor import gpu_indices
from desktopapp.model import units
from desktopapp.model.units import DASH, format_bytes
from desktopapp.ui.common.theme import SERIES

# Axis / value kinds.
PERCENT = "percent"
CPU = "cpu"  # percent plus the per-core heat strip under the 0% line
WATTS = "watts"
CELSIUS = "celsius"
BYTES_RATE = "bytes_rate"

# Vertical room of the CPU plot: 0-100% for the curves, the heat strip below 0.
STRIP_TOP = -5.0
STRIP_BOTTOM = -33.0
# Room above 100% and below 0% so the end tick labels are drawn (pyqtgraph clips labels that
# leave the view box).
PERCENT_Y_RANGE = (-8.0, 110.0)
CPU_Y_RANGE = (STRIP_BOTTOM - 2.0, 110.0)


@dataclass(frozen=True)
class CurveSpec:
    channel: str  # e.g. "gpu0.util"
    label: str  # legend and readout text, e.g. "GPU 0 util"
    color: str
    dashed: bool = False
    width: float = 2.0
    fill: bool = False  # light area under the curve (the plot's main quantity)
    readout: bool = True  # listed in the cursor readout
    what: str = ""  # for GPU curves: the quantity ("util", "memory" …) without the GPU number
    gpu: int | None = None  # the GPU this curve belongs to


@dataclass(frozen=True)
class PlotSpec:
    key: str  # "gpu_util", "cpu" …
    title: str
    kind: str  # PERCENT, CPU, WATTS, CELSIUS or BYTES_RATE
    curves: tuple[CurveSpec, ...]
    strip_channels: tuple[str, ...] = ()  # CPU cores, drawn as a heat strip
    column: int = 0
    row: int = 0
    gpu: bool = False

    @property
    def channels(self) -> tuple[str, ...]:
        return tuple(c.channel for c in self.curves)


@dataclass(frozen=True)
class GridLayout:
    plots: tuple[PlotSpec, ...]
    gpu_indices: tuple[int, ...] = ()
    core_channels: tuple[str, ...] = field(default=())

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpu_indices)

    def plot(self, key: str) -> PlotSpec:
        for spec in self.plots:
            if spec.key == key:
                return spec
        raise KeyError(key)

    @property
    def channels(self) -> tuple[str, ...]:
        return tuple(c for p in self.plots for c in (*p.channels, *p.strip_channels))


def gpu_color(index: int) -> str:
    return SERIES[index % len(SERIES)]


def core_channels(channels: Iterable[str]) -> tuple[str, ...]:
    cores = [n for n in channels if n.startswith("cpu.core") and n[8:].isdigit()]
    return tuple(sorted(cores, key=lambda n: int(n[8:])))


def _gpu_label(index: int, count: int, what: str) -> str:
    return f"GPU {index} {what}" if count > 1 else f"GPU {what}"


def _gpu_curves(i: int, n: int, names: set[str]) -> tuple[list[CurveSpec], ...]:
    """GPU ``i``'s curves (of ``n`` GPUs) in the utilization, power and temperature plots."""
    color = gpu_color(i)
    util = [
        CurveSpec(f"gpu{i}.util", _gpu_label(i, n, "util"), color, fill=n == 1, what="util", gpu=i)
    ]
    if f"gpu{i}.mem.percent" in names:
        util.append(
            CurveSpec(
                f"gpu{i}.mem.percent",
                _gpu_label(i, n, "memory"),
                color,
                dashed=True,
                width=1.6,
                what="memory",
                gpu=i,
            )
        )
    power = [
        CurveSpec(
            f"gpu{i}.power", _gpu_label(i, n, "power"), color, fill=n == 1, what="power", gpu=i
        )
    ]
    if f"gpu{i}.power_limit" in names:
        power.append(
            CurveSpec(
                f"gpu{i}.power_limit",
                _gpu_label(i, n, "limit"),
                color,
                dashed=True,
                width=1.2,
                readout=False,
                what="limit",
                gpu=i,
            )
        )
    temp = [CurveSpec(f"gpu{i}.temp", _gpu_label(i, n, "temperature"), color, what="", gpu=i)]
    return util, power, temp


def _gpu_plots(gpus: Sequence[int], names: set[str]) -> list[PlotSpec]:
    """The GPU column: utilization (with memory), power (with the limit), temperature."""
    if not gpus:
        return []
    util: list[CurveSpec] = []
    power: list[CurveSpec] = []
    temp: list[CurveSpec] = []
    for i in gpus:
        u, p, t = _gpu_curves(i, len(gpus), names)
        util += u
        power += p
        temp += t
    return [
        PlotSpec("gpu_util", "GPU utilization", PERCENT, tuple(util), (), 0, 0, True),
        PlotSpec("gpu_power", "GPU power", WATTS, tuple(power), (), 0, 1, True),
        PlotSpec("gpu_temp", "GPU temperature", CELSIUS, tuple(temp), (), 0, 2, True),
    ]


def _host_plots(has_gpu: bool, cores: tuple[str, ...], names: set[str]) -> list[PlotSpec]:
    """CPU (with the per-core strip), memory, disk and network: one column beside the GPU
    plots, or a 2 × 2 grid without a GPU."""
    cpu_curves = [CurveSpec("cpu.percent", "CPU", SERIES[0], fill=True)]
    if "cpu.max_core" in names:
        cpu_curves.append(
            CurveSpec("cpu.max_core", "busiest core", SERIES[1], dashed=True, width=1.4)
        )
    mem_curves = [CurveSpec("mem.percent", "RAM", SERIES[3], fill=True)]
    if "swap.percent" in names:
        mem_curves.append(CurveSpec("swap.percent", "swap", SERIES[4], dashed=True, width=1.6))
    disk = (
        CurveSpec("disk.read", "read", SERIES[2]),
        CurveSpec("disk.write", "write", SERIES[1]),
    )
    net = (
        CurveSpec("net.rx", "received", SERIES[0]),
        CurveSpec("net.tx", "sent", SERIES[4]),
    )
    cpu_title = f"CPU · total and {len(cores)} cores" if cores else "CPU"
    if has_gpu:
        return [
            PlotSpec("cpu", cpu_title, CPU, tuple(cpu_curves), cores, 1, 0),
            PlotSpec("memory", "Memory", PERCENT, tuple(mem_curves), (), 1, 1),
            PlotSpec("io", "Disk and network", BYTES_RATE, (*disk, *net), (), 1, 2),
        ]
    return [
        PlotSpec("cpu", cpu_title, CPU, tuple(cpu_curves), cores, 0, 0),
        PlotSpec("memory", "Memory", PERCENT, tuple(mem_curves), (), 1, 0),
        PlotSpec("disk", "Disk", BYTES_RATE, disk, (), 0, 1),
        PlotSpec("network", "Network", BYTES_RATE, net, (), 1, 1),
    ]


def plot_specs(channels: Sequence[str]) -> GridLayout:
    """The plot grid for a sample's channels: GPU plots on the left when there are GPUs,
    host plots (CPU with its per-core strip, memory, disk, network) on the right. Curves of
    channels the sample lacks are left out, and plots left without curves."""
    names = set(channels)
    gpus = gpu_indices(channels)
    cores = core_channels(channels)
    plots = _gpu_plots(gpus, names) + _host_plots(bool(gpus), cores, names)
    kept = tuple(
        PlotSpec(
            p.key,
            p.title,
            p.kind,
            tuple(c for c in p.curves if c.channel in names),
            p.strip_channels,
            p.column,
            p.row,
            p.gpu,
        )
        for p in plots
    )
    return GridLayout(tuple(p for p in kept if p.curves), gpus, cores)


# --- formatting -----------------------------------------------------------------------------


def format_value(kind: str, value: float) -> str:
    """One reading for the cursor readout and the live strip."""
    if not math.isfinite(value):
        return DASH
    if kind in (PERCENT, CPU):
        return f"{value:.0f}%"
    if kind == WATTS:
        return f"{value:.0f} W"
    if kind == CELSIUS:
        return f"{value:.0f} °C"
    if kind == BYTES_RATE:
        return f"{format_bytes(value)}/s"
    return f"{units.format_plain(value, 3)}"


def format_ago(seconds_before: float, spacing: float = 1.0) -> str:
    """A tick of the "before now" axis: ``0`` → ``now``; -90 → ``−90 s``, or ``−1.5 min``
    once ticks are a minute or more apart."""
    s = -seconds_before
    if abs(s) < 1e-9:
        return "now"
    if spacing >= 3600:
        return f"−{s / 3600:g} h"
    if spacing >= 60:
        return f"−{s / 60:g} min"
    return f"−{s:g} s"


def nice_ceiling(value: float) -> float:
    """The next 1, 2, 2.5 or 5 × 10ⁿ at or above ``value`` (axis tops)."""
    if not math.isfinite(value) or value <= 0:
        return 1.0
    exponent = math.floor(math.log10(value))
    base = 10.0**exponent
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if value <= step * base * (1 + 1e-9):
            return step * base
    return 10.0 * base
