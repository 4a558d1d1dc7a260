"""What the Hardware tab knows about the machine, without widgets: when the torch probe may
start and when the tab is ready, the device cards to show, and the benchmark targets."""

from __future__ import annotations

from fakes.hardware import GIB, fake_cpu

from desktopapp.application.hardware_machine import MachineState, no_gpu_line
from desktopapp.devices.cpu import MemoryInfo
from desktopapp.devices.detect import SystemReport
from desktopapp.devices.gpu import match_catalog
from desktopapp.devices.nvml import NvmlStatus
from desktopapp.devices.problems import NO_GPU, Problem
from desktopapp.devices.torch_info import TorchDevice, TorchInfo

NO_NVML = Problem(NO_GPU, "No NVIDIA GPU: unavailable because the NVML library was not found")
TORCH_HINT = "pip install torch"


def report(torch: TorchInfo | None = None, problems: tuple[str, ...] = (NO_NVML,)) -> SystemReport:
    cpu = fake_cpu()
    return SystemReport(
        cpu=cpu,
        memory=MemoryInfo(64 * GIB, 48 * GIB, 0.0, "test"),
        gpus=(),
        torch=torch,
        problems=problems,
        nvml=NvmlStatus(False, "unavailable because the NVML library was not found"),
        cpu_catalog=match_catalog(cpu.model),
        hostname="testhost",
        os="Linux 6.1",
        python="3.11.7",
        seconds=0.004,
    )


def state() -> MachineState:
    detected = report()
    return MachineState(detected.cpu, detected.memory)


def test_torch_is_probed_only_once_shown_and_detected_and_then_the_tab_is_ready() -> None:
    machine = state()
    assert not machine.begin_torch_probe()  # neither shown nor detected
    assert machine.first_show() and not machine.first_show()
    assert not machine.begin_torch_probe()  # not detected yet
    assert machine.report_arrived(report())
    assert not machine.report_arrived("not a report")
    assert machine.begin_torch_probe() and not machine.begin_torch_probe()
    assert machine.devices_view().torch_probing
    assert not machine.ready
    assert machine.torch_arrived(report(TorchInfo(False, "missing", TORCH_HINT)))
    assert machine.ready and not machine.torch_failed()  # ready once only
    machine.redetect()
    assert machine.begin_torch_probe()  # again after "Detect again"


def test_failed_detection_makes_the_tab_ready_with_the_cpu_card_alone() -> None:
    machine = state()
    assert machine.detect_failed() and machine.ready
    view = machine.devices_view()
    assert view.looking and view.system is None and view.cpu.model == "Test EPYC 9000 8-Core"


def test_the_cards_say_once_why_there_is_no_gpu() -> None:
    machine = state()
    machine.report_arrived(report())
    view = machine.devices_view()
    assert view.no_gpu == "No NVIDIA GPU found because the NVML library was not found."
    assert view.problems == ()  # not repeated in the problems strip
    assert view.system == ("Linux 6.1", "3.11.7", 0.004) and view.hostname == "testhost"
    assert no_gpu_line("") == "No GPU was found."

    mps = TorchDevice("mps", 0, "Apple M3")
    with_mps = TorchInfo(True, "", TORCH_HINT, version="2.5", devices=(mps,))
    machine.torch_arrived(report(with_mps))
    view = machine.devices_view()
    assert view.others == (mps,) and view.no_gpu == ""
    assert view.problems == (NO_NVML,)  # no GPU card says it, so the strip does


def test_benchmark_targets_and_what_needs_torch() -> None:
    machine = state()
    assert machine.choices("cpu").devices == (("cpu", "CPU · Test EPYC 9000 8-Core"),)
    assert machine.torch_available() is None
    machine.report_arrived(report())
    machine.torch_arrived(report(TorchInfo(False, "missing", TORCH_HINT)))
    choices = machine.choices("cpu")
    assert (
        choices.suites["amp"] == f"needs PyTorch: {TORCH_HINT}" and "matmul" not in choices.suites
    )
    available, checked = machine.dtypes("cpu", quick=True)
    assert checked == ("fp32",) and available["bf16"].startswith("needs PyTorch")

    gpu = TorchDevice("cuda", 0, "NVIDIA H100")
    machine.torch_arrived(report(TorchInfo(True, "", TORCH_HINT, devices=(gpu,))))
    choices = machine.choices("cpu")
    assert choices.devices[1] == ("cuda:0", "NVIDIA H100 (cuda:0)")
    assert choices.current == "cpu" and choices.suites == {}  # the choice is kept
    assert machine.choices("cuda:7").current == "cuda:0"  # gone: the GPU is the default
    assert machine.machine().hostname == "testhost"
    assert machine.machine().fingerprint == report().fingerprint
