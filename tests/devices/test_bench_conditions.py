"""Benchmark run conditions: other load, clocks and throttling are recorded with every run."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from desktopapp.devices.bench.conditions import (
    DISTURBED_SHARE,
    ConditionsProbe,
    CpuTimes,
    read_cpu_times,
)
from desktopapp.devices.bench.runner import BenchConfig, run_and_collect
from desktopapp.model.run_conditions import GpuReading


class Script:
    """Scripted readings and a scripted clock."""

    def __init__(self, readings: list[CpuTimes], seconds: float) -> None:
        self._readings: Iterator[CpuTimes] = iter(readings)
        self._times = iter([100.0, 100.0 + seconds])

    def cpu(self) -> CpuTimes:
        return next(self._readings)

    def clock(self) -> float:
        return next(self._times)


def probe(readings: list[CpuTimes], seconds: float, cpus: int = 2, **kw: object) -> ConditionsProbe:
    script = Script(readings, seconds)
    return ConditionsProbe(cpus=cpus, cpu_reader=script.cpu, clock=script.clock, **kw)  # type: ignore[arg-type]


def test_an_idle_machine_gives_a_clean_run() -> None:
    start = CpuTimes(busy_s=50.0, own_s=1.0, mhz=2400, max_mhz=3000)
    end = CpuTimes(busy_s=52.0, own_s=3.0, mhz=2900, max_mhz=3000)  # all busy time is ours
    conditions = probe([start, end], seconds=2.0).start().finish()
    assert conditions.other_cpu_share == pytest.approx(0.0)
    assert conditions.own_cpu_share == pytest.approx(0.5)
    assert not conditions.disturbed
    assert conditions.summary().startswith("clean run")
    assert "2,900 of 3,000 MHz" in conditions.summary()
    data = conditions.to_dict()
    assert data["disturbed"] is False and data["cpu_mhz_start"] == 2400


def test_other_load_marks_the_run_disturbed() -> None:
    start = CpuTimes(busy_s=10.0, own_s=1.0)
    end = CpuTimes(busy_s=14.0, own_s=3.0)  # 2 s ours, 2 s someone else's, over 2 s × 2 CPUs
    conditions = probe([start, end], seconds=2.0).start().finish()
    assert conditions.other_cpu_share == pytest.approx(0.5)
    assert conditions.disturbed
    text = conditions.summary()
    assert text.startswith("disturbed run") and "50% of the 2 CPUs" in text
    assert "understate" in text


def test_threshold_is_the_documented_share() -> None:
    just_below = DISTURBED_SHARE - 0.01
    start = CpuTimes(busy_s=0.0, own_s=0.0)
    end = CpuTimes(busy_s=just_below * 10, own_s=0.0)
    assert not probe([start, end], seconds=10.0, cpus=1).start().finish().disturbed
    end = CpuTimes(busy_s=(DISTURBED_SHARE + 0.01) * 10, own_s=0.0)
    assert probe([start, end], seconds=10.0, cpus=1).start().finish().disturbed


def test_unreadable_cpu_times_are_unknown_not_an_error() -> None:
    def broken() -> CpuTimes:
        raise OSError("no /proc here")

    conditions = ConditionsProbe(cpus=4, cpu_reader=broken).start().finish()
    assert math.isnan(conditions.other_cpu_share)
    assert not conditions.disturbed
    assert any("no /proc here" in p for p in conditions.problems)
    assert "unknown" in conditions.summary()
    assert conditions.to_dict()["other_cpu_share"] is None


def test_gpu_heat_marks_the_run_disturbed_a_default_power_cap_does_not() -> None:
    start, end = CpuTimes(0.0, 0.0), CpuTimes(1.0, 1.0)
    hot = GpuReading(reasons=("thermal (software)",))
    throttled = probe([start, end], seconds=1.0, gpu_index=0, gpu_reader=lambda i: hot)
    conditions = throttled.start().finish()
    assert conditions.gpu_throttled and conditions.disturbed
    assert "the GPU slowed down by heat" in conditions.summary()
    capped = GpuReading(power_limit_w=700, default_power_limit_w=700, reasons=("power cap",))
    at_cap = probe([start, end], seconds=1.0, gpu_index=0, gpu_reader=lambda i: capped)
    conditions = at_cap.start().finish()
    assert not conditions.disturbed and not conditions.gpu_throttled
    assert "normal under sustained load" in conditions.summary()
    fine = probe([start, end], seconds=1.0, gpu_index=0, gpu_reader=lambda i: GpuReading())
    assert not fine.start().finish().disturbed


def test_real_reading_is_sane() -> None:
    reading = read_cpu_times()
    assert reading.busy_s >= 0 and reading.own_s > 0


def test_every_run_carries_its_conditions() -> None:
    config = BenchConfig(device="cpu", suites=("matmul",), dtypes=("fp32",), sizes=(32,),
                         budget_s=0.05)  # fmt: skip
    run = run_and_collect(config)
    assert run.conditions is not None
    for key in ("other_cpu_share", "cpus", "disturbed", "summary"):
        assert key in run.conditions
    assert run.device_info["conditions"] == run.conditions
    data = run.to_dict()
    assert data["disturbed"] == run.disturbed
    if run.disturbed:  # a loaded machine: the run says so in its notes as well
        assert any(w.startswith("disturbed run") for w in run.warnings)
