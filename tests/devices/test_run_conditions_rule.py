"""One rule for normal limits against a disturbed run (issue 23): the bench's run conditions
and the monitor's diagnosis, from the same fake-NVML readings, give the same verdict."""

from __future__ import annotations

import math
import os

import pytest
from fakes.fake_pynvml import FakeGpu, FakeProc

from desktopapp.devices.bench.conditions import ConditionsProbe, CpuTimes, read_gpu
from desktopapp.devices.sampler import RealSampler
from desktopapp.model.diagnosis import Diagnoser, Observation
from desktopapp.model.run_conditions import GpuReading, judge_gpu, judge_run

# a GPU under a sustained GEMM: 100% busy, drawing about its limit, power-cap clock reason
LOADED = {"util_gpu": 100, "power_mw": 692_000, "sm_clock": 1_490, "reasons": 0x4}


def _bench(cpu_other: float = 0.0) -> dict:
    readings = iter([CpuTimes(0.0, 0.0), CpuTimes(cpu_other * 2.0 + 1.0, 1.0)])
    times = iter([0.0, 1.0])
    probe = ConditionsProbe(
        gpu_index=0,
        cpus=2,
        cpu_reader=lambda: next(readings),
        clock=lambda: next(times),
        gpu_reader=lambda i: read_gpu(i, own_pids=frozenset({os.getpid()})),
    )
    return probe.start().finish().to_dict()


def _monitor() -> tuple[str, str, str]:
    """The throttling verdict of 12 s of monitor samples: (key, severity, evidence)."""
    sampler = RealSampler(include_processes=False)
    try:
        sample = sampler.sample()
    finally:
        sampler.close()
    base = sample.observation()
    diagnoser = Diagnoser()
    fields = {k: getattr(base, k) for k in Observation.__dataclass_fields__ if k != "timestamp"}
    for t in range(13):
        diagnosis = diagnoser.update(Observation(timestamp=float(t), **fields))
    verdict = diagnosis.by_category("throttling")
    assert verdict is not None
    return verdict.key, verdict.severity, verdict.evidence


def test_power_cap_at_the_default_limit_under_load_is_normal(fake_nvml) -> None:
    fake_nvml([FakeGpu(**LOADED)])
    bench = _bench()
    assert bench["disturbed"] is False and bench["state"] == "normal"
    assert bench["summary"].startswith("clean run")
    assert "held at its 700 W power limit (the default)" in bench["summary"]
    gpu = bench["gpu"]
    assert gpu["power_w"] == pytest.approx(692) and gpu["power_limit_w"] == pytest.approx(700)
    assert gpu["default_power_limit_w"] == pytest.approx(700)
    assert gpu["sm_clock_mhz"] == 1_490 and gpu["reasons"] == ["power cap"]
    key, severity, evidence = _monitor()
    assert (key, severity) == ("power_throttling", "info")
    assert "700 W limit (the default)" in evidence


def test_a_lowered_power_limit_is_disturbed_in_both(fake_nvml) -> None:
    fake_nvml([FakeGpu(**LOADED | {"limit_mw": 450_000, "power_mw": 448_000})])
    bench = _bench()
    assert bench["disturbed"] is True
    assert any("power limit is lowered to 450 W (default 700 W)" in c for c in bench["causes"])
    assert "lowered to 450 W" in bench["summary"]
    key, severity, evidence = _monitor()
    assert (key, severity) == ("power_limit_lowered", "warning")
    assert "lowered to 450 W (default 700 W)" in evidence


def test_thermal_slowdown_is_disturbed_in_both(fake_nvml) -> None:
    fake_nvml([FakeGpu(**LOADED | {"reasons": 0x20})])
    bench = _bench()
    assert bench["disturbed"] is True
    assert any("slowed down by heat" in c for c in bench["causes"])
    key, severity, _ = _monitor()
    assert (key, severity) == ("thermal_throttling", "warning")


def test_a_foreign_process_on_the_gpu_is_disturbed(fake_nvml) -> None:
    fake_nvml([FakeGpu(**LOADED, compute=[FakeProc(os.getpid(), 1), FakeProc(999_999, 2)])])
    bench = _bench()
    assert bench["disturbed"] is True
    assert bench["gpu"]["foreign_processes"] == ["pid 999999"]
    assert any("1 other process on the GPU" in c for c in bench["causes"])


def test_other_cpu_load_and_far_low_clocks_are_disturbed() -> None:
    busy = judge_run((), other_cpu_share=0.4, cpus=2)
    assert busy.disturbed and busy.causes == ("other processes used 40% of the 2 CPUs",)
    slow = judge_gpu(GpuReading(sm_clock_mhz=900, app_sm_clock_mhz=1980, reasons=()))
    assert slow.disturbed and "far below its 1,980 MHz application clock" in slow.causes[0]
    # settling under a power cap is normal, not a far-low clock
    settling = judge_gpu(
        GpuReading(
            sm_clock_mhz=1300,
            app_sm_clock_mhz=1980,
            reasons=("power cap",),
            power_limit_w=700,
            default_power_limit_w=700,
        )
    )
    assert not settling.disturbed and settling.notes
    unknown = judge_gpu(GpuReading(reasons=("power cap",)))
    assert not unknown.disturbed
    assert math.isnan(GpuReading().power_w)


def test_the_bench_keeps_the_reading_under_load_not_the_idle_one_after_it() -> None:
    """At the end of a run the GPU is idle again; the conditions come from the readings taken
    during it (the busiest one), with every reason seen."""
    import threading

    loaded = GpuReading(power_w=692, power_limit_w=700, default_power_limit_w=700,
                        sm_clock_mhz=1490, reasons=("power cap",))  # fmt: skip
    idle = GpuReading(power_w=80, power_limit_w=700, default_power_limit_w=700,
                      sm_clock_mhz=345, reasons=("idle",))  # fmt: skip
    calls: list[int] = []
    during = threading.Event()

    def reader(index: int) -> GpuReading:
        calls.append(index)
        if len(calls) >= 2:
            during.set()
        return loaded

    probe = ConditionsProbe(
        gpu_index=0,
        cpus=2,
        gpu_reader=reader,
        gpu_interval_s=0.01,
        cpu_reader=lambda: CpuTimes(0.0, 0.0),  # no other load
    )
    probe.start()
    assert during.wait(30)
    probe._gpu_reader = lambda index: idle  # the run ended: the GPU idles
    data = probe.finish().to_dict()
    assert data["gpu"]["power_w"] == pytest.approx(692) and data["gpu"]["sm_clock_mhz"] == 1490
    assert data["gpu"]["reasons"] == ["power cap"]
    assert data["state"] == "normal" and data["normal_limits"]


def test_a_power_cap_seen_in_bursts_is_not_called_held() -> None:
    # H200 matmul sweep: the power-cap reason was set while the sampled draw was 357 W of
    # 700 W; "held at its power limit, drawing 357 W" contradicted itself
    from desktopapp.model.run_conditions import GpuReading, judge_gpu

    reading = GpuReading(
        power_w=357.0,
        power_limit_w=700.0,
        default_power_limit_w=700.0,
        sm_clock_mhz=1965.0,
        reasons=("power cap",),
    )
    verdict = judge_gpu(reading)
    text = " ".join(verdict.notes)
    assert "held at" not in text
    assert "in bursts" in text and "357 W" in text
    assert not verdict.causes
