"""detect_system: NVML missing, a fake pynvml with GPUs, torch UUID mapping, torch missing."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from fakes.fake_pynvml import NVML_ERROR_LIBRARY_NOT_FOUND, FakeGpu

from desktopapp.commands.output import print_json
from desktopapp.devices.detect import detect_system, machine_fingerprint
from desktopapp.devices.gpu import detect_nvidia_gpus, match_catalog, normalise_uuid
from desktopapp.devices.torch_info import (
    TorchDevice,
    TorchInfo,
    detect_torch,
    install_hint,
    wheel_index,
)
from desktopapp.model.catalog import Accelerator, AcceleratorCatalog
from desktopapp.resources import resource_path

H100_UUID = "GPU-11111111-2222-3333-4444-555555555555"
OTHER_UUID = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def small_catalog() -> AcceleratorCatalog:
    h100 = Accelerator(
        id="h100-sxm",
        name="NVIDIA H100 SXM",
        vendor="NVIDIA",
        kind="gpu",
        memory_gb=80,
        memory_bandwidth_gbs=3350,
        peak_tflops={"fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9},
        tdp_w=700,
        interconnect="NVLink",
        launch_year=2022,
        street_price_usd=None,
        source="datasheet",
        confidence="high",
        source_date="2023-01",
        aliases=("NVIDIA H100 80GB HBM3",),
    )
    return AcceleratorCatalog.from_rows([h100])


def torch_with(devices: list[TorchDevice]) -> TorchInfo:
    return TorchInfo(
        installed=True,
        reason="",
        install_hint="",
        version="9.9.9",
        cuda_version="12.4",
        cuda_available=bool(devices),
        devices=tuple(devices),
        num_threads=2,
    )


def test_without_nvml_detection_is_clean(no_nvml: None) -> None:
    report = detect_system(include_torch=False)
    assert report.gpus == ()
    assert report.torch is None
    assert any(
        p.startswith("No NVIDIA GPU: unavailable because") and "nvidia-ml-py" in p
        for p in report.problems
    )
    data = report.to_dict()
    assert data["gpus"] == [] and isinstance(data["problems"], list)
    assert data["cpu"]["model"] and data["cpu"]["threads"] >= 1
    out = io.StringIO()
    print_json(data, out)  # JSON-clean (no NaN, no dataclasses left)
    assert json.loads(out.getvalue())["nvml"]["available"] is False


def test_nvml_library_missing_gives_reason(fake_nvml: Callable[..., Any]) -> None:
    fake_nvml([], init_error=NVML_ERROR_LIBRARY_NOT_FOUND)
    detection = detect_nvidia_gpus()
    assert detection.gpus == ()
    assert detection.problems[0].startswith("No NVIDIA GPU: unavailable because")
    assert "libnvidia-ml" in detection.problems[0]


def test_fake_gpus_are_reported_and_matched_to_catalog(fake_nvml: Callable[..., Any]) -> None:
    mystery = FakeGpu(
        name="NVIDIA Mystery GPU",
        uuid=OTHER_UUID,
        mig=None,
        ecc=None,
        pcie_gen=3,
        pcie_width=8,
        unsupported={
            "nvmlDeviceGetPowerManagementLimit",
            "nvmlDeviceGetEnforcedPowerLimit",  # the fallback for the limit
            "nvmlDeviceGetMaxClockInfo",
        },
    )
    fake_nvml([FakeGpu(uuid=H100_UUID, mig=(1, 1)), mystery])
    report = detect_system(include_torch=False, catalog=small_catalog())
    assert len(report.gpus) == 2
    h100, other = report.gpus
    assert (h100.index, h100.name, h100.uuid) == (0, "NVIDIA H100 80GB HBM3", H100_UUID)
    assert h100.memory_total_bytes == 80 * 1024**3
    assert h100.driver_version == "550.54.15" and h100.cuda_driver_version == "12.4"
    assert h100.power_limit_w == pytest.approx(700.0)
    assert (h100.max_sm_clock_mhz, h100.max_memory_clock_mhz) == (1980.0, 2619.0)
    assert (h100.pcie_gen_max, h100.pcie_width_max) == (5, 16)
    assert (h100.pcie_gen_current, h100.pcie_width_current) == (5, 16)
    assert h100.compute_capability == "9.0"
    assert (h100.mig_mode, h100.ecc_mode) == ("enabled", "enabled")
    assert h100.catalog is not None and h100.catalog.accelerator_id == "h100-sxm"
    assert h100.catalog.peak("bf16") == pytest.approx(989.4)
    # Unsupported queries become None / "unsupported", never exceptions.
    assert other.power_limit_w is None and other.max_sm_clock_mhz is None
    assert (other.mig_mode, other.ecc_mode) == ("unsupported", "unsupported")
    assert (other.pcie_gen_current, other.pcie_width_current) == (3, 8)
    assert other.catalog is not None and not other.catalog.matched
    assert any("Mystery" in p and "no catalog entry" in p for p in report.problems)
    assert not any(p.startswith("No NVIDIA GPU") for p in report.problems)
    json.loads(json.dumps(report.to_dict()))


def test_torch_indices_are_mapped_by_uuid_not_order(fake_nvml: Callable[..., Any]) -> None:
    fake_nvml([FakeGpu(uuid=H100_UUID), FakeGpu(name="NVIDIA Mystery GPU", uuid=OTHER_UUID)])
    report = detect_system(include_torch=False, catalog=small_catalog())
    # CUDA_VISIBLE_DEVICES=1,0: torch's cuda:0 is NVML's GPU 1; torch UUIDs lack "GPU-".
    info = torch_with(
        [
            TorchDevice("cuda", 0, "NVIDIA Mystery GPU", uuid=OTHER_UUID[4:].upper()),
            TorchDevice("cuda", 1, "NVIDIA H100 80GB HBM3", uuid=H100_UUID[4:]),
        ]
    )
    mapped = report.with_torch(info, catalog=small_catalog())
    by_uuid = {g.uuid: g for g in mapped.gpus}
    assert by_uuid[H100_UUID].torch_index == 1 and by_uuid[H100_UUID].torch_device == "cuda:1"
    assert by_uuid[OTHER_UUID].torch_index == 0
    assert mapped.device_choices() == ["cpu", "cuda:0", "cuda:1"]
    assert mapped.torch is info


def test_gpu_hidden_from_torch_and_torch_only_gpu(fake_nvml: Callable[..., Any]) -> None:
    fake_nvml([FakeGpu(uuid=H100_UUID), FakeGpu(name="NVIDIA Mystery GPU", uuid=OTHER_UUID)])
    report = detect_system(include_torch=False, catalog=small_catalog())
    info = torch_with(
        [
            TorchDevice("cuda", 0, "NVIDIA H100 80GB HBM3", uuid=H100_UUID[4:]),
            TorchDevice("cuda", 1, "AMD Instinct MI300X", 192 * 1024**3, "gfx942", uuid=None),
        ]
    )
    mapped = report.with_torch(info, catalog=small_catalog())
    assert len(mapped.gpus) == 3
    hidden = next(g for g in mapped.gpus if g.uuid == OTHER_UUID)
    assert hidden.torch_index is None
    assert any("torch cannot see" in p and OTHER_UUID in p for p in mapped.problems)
    extra = mapped.gpus[-1]
    assert extra.source == "torch" and extra.torch_device == "cuda:1" and extra.index == -1
    assert extra.memory_total_bytes == 192 * 1024**3
    assert any("NVML facts" in n for n in extra.notes)


def test_cuda_less_torch_with_nvidia_gpu_is_a_problem(fake_nvml: Callable[..., Any]) -> None:
    fake_nvml([FakeGpu(uuid=H100_UUID)])
    report = detect_system(include_torch=False, catalog=small_catalog())
    info = TorchInfo(
        installed=True,
        reason="",
        install_hint=install_hint("12.4"),
        version="2.13.0+cpu",
        cuda_reason="this torch build has no CUDA support (CPU-only wheel)",
    )
    mapped = report.with_torch(info)
    problem = next(p for p in mapped.problems if p.startswith("No CUDA in torch"))
    assert "cu124" in problem


def test_torch_missing_is_reported_with_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    info = detect_torch()
    assert not info.installed
    assert info.reason.startswith("torch not installed: pip install")
    assert "torch>=" in info.reason and "download.pytorch.org/whl/cpu" in info.reason
    assert info.to_dict()["devices"] == []


def test_wheel_index_follows_driver_cuda() -> None:
    assert wheel_index(None).endswith("/cpu")
    assert wheel_index("12.4").endswith("/cu124")
    assert wheel_index("12.5").endswith("/cu124")
    assert wheel_index("13.1").endswith("/cu130")
    assert wheel_index("11.2").endswith("/cpu")  # too old for any CUDA wheel


def test_detect_torch_on_this_machine() -> None:
    info = detect_torch()
    if not info.installed:
        pytest.skip(info.reason)
    assert info.version and info.num_threads and info.num_threads >= 1
    for device in info.cuda_devices:
        assert device.id == f"cuda:{device.index}"


def test_uuid_normalisation_and_fingerprint() -> None:
    assert normalise_uuid("GPU-ABC-1") == normalise_uuid("abc-1") == "abc-1"
    assert normalise_uuid(None) == ""
    a = machine_fingerprint("CPU X", ["GPU-2", "GPU-1"], "host")
    assert a == machine_fingerprint("CPU X", ["GPU-1", "GPU-2"], "host")
    assert a != machine_fingerprint("CPU X", ["GPU-1"], "host")
    assert a != machine_fingerprint("CPU X", ["GPU-2", "GPU-1"], "other")


def test_real_catalog_matches_nvml_names() -> None:
    if not resource_path("accelerators.json").is_file():
        pytest.skip("resources/accelerators.json not built yet")
    match = match_catalog("NVIDIA H100 80GB HBM3")
    assert match.matched and match.peak("bf16")
    unknown = match_catalog("Totally Unknown GPU 9000")
    assert not unknown.matched and "no catalog entry" in unknown.note


def test_importing_the_device_modules_does_not_import_torch_or_pynvml() -> None:
    import subprocess

    code = (
        "import sys\n"
        "import desktopapp.devices.detect, desktopapp.devices.bench, desktopapp.commands.devices\n"
        "import desktopapp.devices.results_store, desktopapp.devices.bench.matmul\n"
        "import desktopapp.devices.bench.amp, desktopapp.devices.bench.profile\n"
        "heavy = [m for m in ('torch', 'pynvml', 'numpy') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
