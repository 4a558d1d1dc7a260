"""The GPU path of RealSampler against a fake pynvml: conversions, errors, lost GPUs."""

from __future__ import annotations

import math
import os

import pytest
from fakes.fake_pynvml import (
    NVML_ERROR_NO_PERMISSION,
    NVML_ERROR_UNKNOWN,
    FakeGpu,
    FakeProc,
)

from desktopapp.commands.output import jsonable
from desktopapp.devices.gpu_sampling import GpuReader, decode_clock_reasons
from desktopapp.devices.sampler import RealSampler


def test_readings_are_converted_to_si_and_words(fake_nvml):
    fake_nvml([FakeGpu(fan=55, reasons=0x4 | 0x40)])
    sampler = RealSampler(include_processes=False)
    try:
        (gpu,) = sampler.sample().gpus
    finally:
        sampler.close()
    assert gpu.available and gpu.name == "NVIDIA H100 80GB HBM3"
    assert gpu.util_percent == 87 and gpu.memory_util_percent == 41
    assert gpu.memory_used_bytes == 30 * 1024**3 and gpu.memory_total_bytes == 80 * 1024**3
    assert gpu.memory_fraction == pytest.approx(30 / 80)
    assert gpu.power_w == pytest.approx(350.0) and gpu.power_limit_w == pytest.approx(700.0)
    assert gpu.energy_j == pytest.approx(5000.0)
    assert gpu.temperature_c == 64 and gpu.temperature_slowdown_c == 87
    assert gpu.sm_clock_mhz == 1980 and gpu.memory_clock_mhz == 2619
    assert gpu.pcie_rx_mb_s == pytest.approx(12.0) and gpu.pcie_tx_mb_s == pytest.approx(3.0)
    assert gpu.fan_percent == 55
    assert gpu.throttle_mask == 0x44
    assert gpu.throttle_reasons == ("power cap", "thermal (hardware)")
    assert gpu.thermal_throttled and gpu.power_throttled
    assert dict(gpu.unavailable) == {}


def test_decode_clock_reasons():
    assert decode_clock_reasons(0) == ()
    assert decode_clock_reasons(0x1) == ("idle",)
    assert decode_clock_reasons(0x8 | 0x10) == ("HW slowdown", "sync boost")
    assert decode_clock_reasons(0x20) == ("thermal (software)",)
    assert decode_clock_reasons(0x1 | 0x10000) == ("idle", "unknown (0x10000)")


def test_unsupported_fields_are_nan_with_reason_and_asked_once(fake_nvml):
    module = fake_nvml([FakeGpu(fan=None, slowdown=None)])
    sampler = RealSampler(include_processes=False)
    try:
        samples = [sampler.sample() for _ in range(4)]
    finally:
        sampler.close()
    gpu = samples[-1].gpus[0]
    assert math.isnan(gpu.fan_percent) and math.isnan(gpu.temperature_slowdown_c)
    assert "not supported" in gpu.unavailable["fan_percent"]
    assert "temperature_slowdown_c" in gpu.unavailable
    assert module.calls["nvmlDeviceGetFanSpeed"] == 1
    assert module.calls["nvmlDeviceGetPowerUsage"] == 4
    # "not supported" is normal: no problem line for it
    assert not any("fan" in p for p in samples[-1].problems)


def test_nvml_error_mid_run_is_reported_and_sampling_goes_on(fake_nvml):
    gpu0 = FakeGpu()
    fake_nvml([gpu0])
    sampler = RealSampler(include_processes=False)
    try:
        before = sampler.sample()
        gpu0.fail["nvmlDeviceGetPowerUsage"] = NVML_ERROR_UNKNOWN
        gpu0.fail["nvmlDeviceGetTemperature"] = NVML_ERROR_NO_PERMISSION
        during = sampler.sample()
        del gpu0.fail["nvmlDeviceGetPowerUsage"]
        del gpu0.fail["nvmlDeviceGetTemperature"]
        gpu0.power_mw = 420_000
        after = sampler.sample()
    finally:
        sampler.close()
    assert before.gpus[0].power_w == pytest.approx(350.0)
    g = during.gpus[0]
    assert g.available and math.isnan(g.power_w) and math.isnan(g.temperature_c)
    assert g.util_percent == 87  # the other fields still came in
    assert g.unavailable["power_w"] == "NVML error: Unknown Error"
    assert "permission" in g.unavailable["temperature_c"]
    assert any("power_w" in p and "Unknown Error" in p for p in during.problems)
    assert after.gpus[0].power_w == pytest.approx(420.0)
    assert "power_w" not in after.gpus[0].unavailable
    assert not any("power_w" in p for p in after.problems)


def test_vanished_gpu_is_reported_and_the_others_go_on(fake_nvml):
    gpu0, gpu1 = FakeGpu(uuid="GPU-a"), FakeGpu(uuid="GPU-b", name="NVIDIA A100")
    module = fake_nvml([gpu0, gpu1])
    sampler = RealSampler(include_processes=False)
    try:
        first = sampler.sample()
        gpu1.lost = True
        lost = sampler.sample()
        calls_after_loss = module.calls["nvmlDeviceGetUtilizationRates"]
        later = [sampler.sample() for _ in range(3)]
    finally:
        sampler.close()
    assert [g.available for g in first.gpus] == [True, True]
    assert [g.available for g in lost.gpus] == [True, False]
    gone = lost.gpus[1]
    assert gone.name == "NVIDIA A100" and math.isnan(gone.util_percent)
    assert "lost" in gone.unavailable["util_percent"]
    assert any("GPU 1 (NVIDIA A100): lost" in p for p in lost.problems)
    assert lost.gpus[0].util_percent == 87
    # a lost GPU is not queried again; GPU 0 is (once per sample)
    assert module.calls["nvmlDeviceGetUtilizationRates"] == calls_after_loss + 3
    assert all(not s.gpus[1].available and s.gpus[0].available for s in later)
    channels = later[-1].channels()
    assert math.isnan(channels["gpu1.util"]) and channels["gpu0.util"] == 87
    # the diagnosis input ignores the lost GPU
    assert later[-1].observation().gpu_count == 1


def test_processes_merged_and_enriched_with_psutil(fake_nvml):
    me = os.getpid()
    ghost = 4_000_000_000  # beyond any pid_max
    gpu = FakeGpu(
        compute=[FakeProc(me, 2 * 1024**3), FakeProc(ghost, 1024**3)],
        graphics=[FakeProc(me, 2 * 1024**3)],
    )
    fake_nvml([gpu])
    sampler = RealSampler(include_processes=True, slow_interval_s=0.0)
    try:
        first = sampler.sample()
        second = sampler.sample()
    finally:
        sampler.close()
    procs = {p.pid: p for p in second.gpus[0].processes}
    assert set(procs) == {me, ghost}
    mine = procs[me]
    assert mine.kind == "compute+graphics"
    assert mine.used_memory_bytes == 2 * 1024**3
    assert mine.name and mine.user and mine.rss_bytes > 0
    assert "python" in mine.command.lower() or "pytest" in mine.command.lower()
    # psutil CPU% needs a previous call on the same Process object
    assert math.isnan({p.pid: p for p in first.gpus[0].processes}[me].cpu_percent)
    assert math.isfinite(mine.cpu_percent)
    assert procs[ghost].note.startswith("not visible")
    uses = second.process_uses()
    assert {u.pid for u in uses} == {me, ghost}


def test_process_and_pcie_queries_follow_the_slow_cadence(fake_nvml):
    gpu = FakeGpu(compute=[FakeProc(os.getpid(), 1024**3)])
    module = fake_nvml([gpu])
    sampler = RealSampler(include_processes=True, slow_interval_s=3600.0)
    try:
        samples = [sampler.sample() for _ in range(5)]
        gpu.pcie_rx_kb = 99_000
        samples.append(sampler.sample())
    finally:
        sampler.close()
    assert module.calls["nvmlDeviceGetPcieThroughput"] == 2  # rx + tx, once
    assert module.calls["nvmlDeviceGetComputeRunningProcesses"] == 1
    assert module.calls["nvmlDeviceGetUtilizationRates"] == 6
    # between refreshes the last readings are repeated
    assert all(s.gpus[0].pcie_rx_mb_s == pytest.approx(12.0) for s in samples)
    assert all(len(s.gpus[0].processes) == 1 for s in samples)


def test_processes_skipped_entirely_when_not_asked(fake_nvml):
    module = fake_nvml([FakeGpu(compute=[FakeProc(1, 1)])])
    sampler = RealSampler(include_processes=False)
    try:
        sample = sampler.sample()
    finally:
        sampler.close()
    assert sample.gpus[0].processes == ()
    assert module.calls["nvmlDeviceGetComputeRunningProcesses"] == 0


def test_old_bindings_fall_back_to_throttle_reasons(fake_nvml):
    module = fake_nvml([FakeGpu(reasons=0x20)], without=("nvmlDeviceGetCurrentClocksEventReasons",))
    sampler = RealSampler(include_processes=False)
    try:
        gpu = sampler.sample().gpus[0]
    finally:
        sampler.close()
    assert gpu.throttle_reasons == ("thermal (software)",)
    assert module.calls["nvmlDeviceGetCurrentClocksThrottleReasons"] == 1


def test_nvml_that_cannot_start_gives_no_gpus_and_a_reason(fake_nvml):
    from fakes.fake_pynvml import NVML_ERROR_LIBRARY_NOT_FOUND

    fake_nvml([FakeGpu()], init_error=NVML_ERROR_LIBRARY_NOT_FOUND)
    sampler = RealSampler(include_processes=True)
    try:
        sample = sampler.sample()
    finally:
        sampler.close()
    assert sample.gpus == ()
    assert any(p.startswith("GPU: unavailable because") for p in sample.problems)


def test_gpu_reader_read_never_raises_on_a_broken_binding(fake_nvml):
    module = fake_nvml([FakeGpu()])
    reader = GpuReader()
    module.nvmlDeviceGetUtilizationRates = lambda h: object()  # no .gpu attribute
    samples, problems = reader.read(include_processes=False)
    assert len(samples) == 1 and math.isnan(samples[0].util_percent)
    assert any("reading failed" in p for p in problems)


def test_gpu_sample_json_has_no_nan(fake_nvml):
    fake_nvml([FakeGpu(fan=None)])
    sampler = RealSampler(include_processes=False)
    try:
        payload = jsonable(sampler.sample().to_dict())
    finally:
        sampler.close()
    gpu = payload["gpus"][0]
    assert gpu["fan_percent"] is None and gpu["power_w"] == pytest.approx(350.0)
    assert gpu["throttle_reasons"] == ["power cap"]
    assert "fan_percent" in gpu["unavailable"]
