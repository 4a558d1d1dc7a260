"""What the Hardware tab knows about this machine, without Qt: detection and torch-probe state,
which device cards to show, and the benchmark targets, suites and precisions on offer.

Detection runs in workers (NVML first, torch only after the tab is first shown, since
importing torch takes a second or more); :class:`MachineState` follows their reports and says
when the tab is ready and when the torch probe may start.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

from desktopapp.application.hardware import NEEDS_TORCH, default_dtypes, dtype_availability
from desktopapp.application.hardware_jobs import Machine
from desktopapp.devices.cpu import CpuInfo, MemoryInfo
from desktopapp.devices.detect import SystemReport, machine_fingerprint
from desktopapp.devices.gpu import CatalogMatch, GpuInfo, match_catalog
from desktopapp.devices.problems import NO_GPU, kind_of
from desktopapp.devices.torch_info import TorchDevice, TorchInfo

WAITING, PROBING, DONE = "waiting", "probing", "done"


def no_gpu_line(why: str) -> str:
    """ "No NVIDIA GPU found because the NVML library … was not found." from NVML's reason."""
    reason = why.strip().removeprefix("unavailable because").strip().rstrip(".")
    if not reason:
        return "No GPU was found."
    return f"No NVIDIA GPU found because {reason}."


@dataclass(frozen=True)
class DevicesView:
    """The left column: the CPU card, GPU (or other accelerator) cards or one line saying why
    there are none, the PyTorch card, the machine line and the problems strip."""

    cpu: CpuInfo
    memory: MemoryInfo
    cpu_catalog: CatalogMatch
    looking: bool  # no report yet: a "Looking for GPUs…" placeholder
    gpus: tuple[GpuInfo, ...]
    others: tuple[TorchDevice, ...]  # mps / xpu devices torch found
    no_gpu: str  # the line of the "no GPU" card ("" when there is a GPU or while looking)
    torch: TorchInfo | None
    torch_probing: bool
    has_nvidia: bool
    hostname: str
    system: tuple[str, str, float] | None  # os, python, detection seconds (None: no report)
    problems: tuple[str, ...]  # the problems strip, without what the GPU area already says


@dataclass(frozen=True)
class Choices:
    """The benchmark panel's targets and suites: (spec, label) devices, the one to select,
    and suite → why it cannot run ("" or absent: it can)."""

    devices: tuple[tuple[str, str], ...]
    current: str
    suites: dict[str, str]


class MachineState:
    """Detection and torch-probe state of the tab (``torch_state``: waiting → probing → done)."""

    def __init__(self, cpu: CpuInfo, memory: MemoryInfo) -> None:
        self.cpu = cpu
        self.memory = memory
        self.cpu_catalog: CatalogMatch = match_catalog(cpu.model)
        self.report: SystemReport | None = None
        self.torch_state = WAITING
        self.shown = False
        self.ready = False

    # --- detection ------------------------------------------------------------------------
    def redetect(self) -> None:
        self.torch_state = WAITING

    def report_arrived(self, report: object) -> bool:
        """NVML detection finished; False when ``report`` is not a report."""
        if not isinstance(report, SystemReport):
            return False
        self.report = report
        self.cpu, self.memory = report.cpu, report.memory
        if report.cpu_catalog is not None:
            self.cpu_catalog = report.cpu_catalog
        return True

    def detect_failed(self) -> bool:
        """Detection failed: the CPU card is all there will be. True: the tab became ready
        (nothing else is coming, so a screenshot must not keep waiting)."""
        self.torch_state = DONE
        return self._become_ready(force=True)

    def first_show(self) -> bool:
        """The tab is shown; True the first time (warm up the plots then)."""
        if self.shown:
            return False
        self.shown = True
        return True

    def begin_torch_probe(self) -> bool:
        """True when the torch probe should be scheduled now (shown, detected, not probed)."""
        if self.shown and self.report is not None and self.torch_state == WAITING:
            self.torch_state = PROBING
            return True
        return False

    def torch_arrived(self, report: object) -> bool:
        """The torch probe finished (``report`` with torch facts); True: the tab became ready."""
        self.torch_state = DONE
        if isinstance(report, SystemReport):
            self.report = report
        return self._become_ready()

    def torch_failed(self) -> bool:
        self.torch_state = DONE
        return self._become_ready()

    def _become_ready(self, force: bool = False) -> bool:
        if self.ready:
            return False
        if force or (self.report is not None and self.torch_state == DONE):
            self.ready = True
            return True
        return False

    # --- what to show -----------------------------------------------------------------------
    def devices_view(self) -> DevicesView:
        report = self.report
        if report is None:
            return DevicesView(
                self.cpu, self.memory, self.cpu_catalog, True, (), (), "", None,
                self.torch_state == PROBING, False, socket.gethostname(), None, (),
            )  # fmt: skip
        others: tuple[TorchDevice, ...] = ()
        if report.torch is not None and report.torch.installed:
            others = tuple(d for d in report.torch.devices if d.kind in ("mps", "xpu"))
        gpu_reason = ""
        no_gpu = ""
        if not report.gpus and not others:
            gpu_reason = next((p for p in report.problems if kind_of(p) == NO_GPU), "")
            why = gpu_reason.partition(": ")[2] if gpu_reason else report.nvml.reason
            no_gpu = no_gpu_line(why)
        return DevicesView(
            cpu=self.cpu,
            memory=self.memory,
            cpu_catalog=self.cpu_catalog,
            looking=False,
            gpus=report.gpus,
            others=others,
            no_gpu=no_gpu,
            torch=report.torch,
            torch_probing=self.torch_state == PROBING,
            has_nvidia=any(g.source == "nvml" for g in report.gpus),
            hostname=report.hostname,
            system=(report.os, report.python, report.seconds),
            problems=tuple(p for p in report.problems if p and p != gpu_reason),
        )

    def torch_available(self) -> bool | None:
        """Whether torch is installed (None: not probed yet)."""
        report = self.report
        if report is None or report.torch is None:
            return None
        return report.torch.installed

    def device_choices(self) -> list[tuple[str, str]]:
        """(spec, label) of every benchmark target: the CPU, then each torch device."""
        report = self.report
        choices = [("cpu", f"CPU · {self.cpu.model}")]
        if report is None:
            return choices
        names = {g.torch_device: g.name for g in report.gpus if g.torch_device}
        for spec in report.device_choices()[1:]:
            name = names.get(spec)
            if name is None and report.torch is not None:
                name = next((d.name for d in report.torch.devices if d.id == spec), spec)
            choices.append((spec, f"{name} ({spec})"))
        return choices

    def choices(self, current: str) -> Choices:
        """The targets (keeping ``current`` when still offered; else a GPU once torch can use
        one) and the suites that need PyTorch, off with the install hint when it is missing."""
        devices = self.device_choices()
        if current not in [spec for spec, _ in devices]:
            current = devices[1][0] if len(devices) > 1 else "cpu"
        suites: dict[str, str] = {}
        report = self.report
        if self.torch_available() is False and report is not None and report.torch is not None:
            hint = report.torch.install_hint
            suites = {name: f"needs PyTorch: {hint}" for name in NEEDS_TORCH}
        return Choices(tuple(devices), current, suites)

    def dtypes(self, spec: str, quick: bool) -> tuple[dict[str, str], tuple[str, ...]]:
        """dtype → why not (or ""), and the precisions checked by default."""
        torch_ok = self.torch_available()
        return dtype_availability(spec, torch_ok), default_dtypes(spec, quick, torch_ok)

    def machine(self) -> Machine:
        """Who runs the benchmarks (saved with each run; the history marks other machines)."""
        report = self.report
        if report is not None:
            return Machine(report.fingerprint, report.hostname)
        host = socket.gethostname()
        return Machine(machine_fingerprint(self.cpu.model, [], host), host)


__all__ = ["Choices", "DevicesView", "MachineState", "no_gpu_line"]
