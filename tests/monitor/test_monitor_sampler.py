"""FakeSampler (pure), the real psutil sampler, host counters and rates, MonitorSession."""

from __future__ import annotations

import math
import os
import time
from collections import namedtuple
from types import SimpleNamespace

import psutil
import pytest

from desktopapp.commands.output import jsonable
from desktopapp.devices import host, nvml
from desktopapp.devices.host import HostReader, ProcessInfoCache, busy_percent
from desktopapp.devices.sampler import (
    MonitorSession,
    RealSampler,
    Sampler,
    SystemSample,
    channel_unit,
)
from desktopapp.model.units import GIB
from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler

# --- FakeSampler -----------------------------------------------------------------------------


def test_fake_sampler_is_deterministic_and_follows_its_script():
    def make():
        return FakeSampler(
            gpu_count=2,
            gpu_util=((10.0, 90.0), (50.0,)),
            cpu_percent=(20.0, 80.0, 40.0),
            interval_s=0.5,
            start=1000.0,
        )

    a, b = make(), make()
    sa = [a.sample() for _ in range(6)]
    sb = [b.sample() for _ in range(6)]
    assert [jsonable(s.to_dict()) for s in sa] == [jsonable(s.to_dict()) for s in sb]
    assert [s.timestamp for s in sa] == [1000.0 + 0.5 * i for i in range(6)]
    assert [s.gpus[0].util_percent for s in sa] == [10, 90, 10, 90, 10, 90]
    assert [s.gpus[1].util_percent for s in sa] == [50] * 6
    assert [s.cpu.percent for s in sa] == [20, 80, 40, 20, 80, 40]
    assert isinstance(a, Sampler)


def test_fake_sampler_without_cycle_holds_the_last_value():
    f = FakeSampler(gpu_util=(0.0, 100.0), cycle=False)
    assert [f.sample().gpus[0].util_percent for _ in range(4)] == [0, 100, 100, 100]


def test_fake_energy_counter_integrates_power():
    f = FakeSampler(gpu_util=(100.0,), power_limit_w=300.0, interval_s=0.5)
    samples = [f.sample() for _ in range(4)]
    assert samples[0].gpus[0].power_w == 300.0
    assert samples[-1].gpus[0].energy_j == pytest.approx(4 * 0.5 * 300.0)


def test_fake_lost_gpu_and_problems():
    f = FakeSampler(gpu_count=2, lose_gpu_at={1: 2}, problems_at={1: ("disk hiccup",)})
    s = [f.sample() for _ in range(4)]
    assert s[1].problems == ("disk hiccup",)
    assert [g.available for g in s[1].gpus] == [True, True]
    assert [g.available for g in s[2].gpus] == [True, False]
    assert any("lost" in p for p in s[3].problems)
    assert math.isnan(s[3].channels()["gpu1.util"])


def test_fake_busiest_core_and_processes():
    f = FakeSampler(
        cores=4,
        cpu_percent=(40.0,),
        busiest_core_percent=(100.0,),
        processes=(FakeProcessSpec(0, 42, memory_fraction=0.25),),
    )
    s = f.sample()
    assert s.cpu.per_core == (100.0, 20.0, 20.0, 20.0)
    assert s.cpu.max_core_percent == 100.0
    (p,) = s.processes
    assert p.pid == 42 and p.used_memory_bytes == pytest.approx(0.25 * 80 * GIB)
    assert s.process_uses()[0].user == "alice"


def test_fake_sampler_after_close_still_answers():
    f = FakeSampler()
    f.close()
    assert f.sample().problems == ("sampler is closed",)


def test_channels_units_and_observation():
    f = FakeSampler(
        gpu_count=2,
        gpu_util=((20.0,), (60.0,)),
        gpu_memory_fraction=((0.5,), (0.95,)),
        temperature_c=((80.0,), (70.0,)),
        throttle_mask=(0x4,),
        ram_fraction=(0.5,),
        swap_rate_bytes_s=(2.0e6,),
    )
    s = f.sample()
    ch = s.channels()
    assert ch["gpu1.mem.percent"] == pytest.approx(95.0)
    assert ch["gpu0.throttle"] == 4.0
    assert ch["cpu.core7"] == 20.0
    assert "cpu.core0" not in s.channels(per_core=False)
    assert channel_unit("gpu0.power") == "W"
    assert channel_unit("gpu12.pcie.rx") == "MB/s"
    assert channel_unit("cpu.core3") == "%"
    assert channel_unit("disk.read") == "B/s"
    assert channel_unit("mystery") == ""
    assert all(spec.unit for spec in s.channel_specs())
    assert s.channel_specs()[0].header == "cpu.percent (%)"
    obs = s.observation()
    assert obs.gpu_util_percent == pytest.approx(40.0)
    assert obs.gpu_memory_fraction == pytest.approx(0.95)
    assert obs.temperature_margin_c == pytest.approx(87.0 - 80.0)
    assert obs.power_throttle and not obs.thermal_throttle
    assert obs.ram_fraction == pytest.approx(0.5)
    assert obs.swap_rate_bytes_s == pytest.approx(2.0e6)
    assert obs.gpu_count == 2


def test_sample_is_immutable():
    s = FakeSampler().sample()
    with pytest.raises(AttributeError):
        s.timestamp = 0.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.gpus[0].unavailable["x"] = "y"  # type: ignore[index]


# --- real psutil sampler ---------------------------------------------------------------------


def test_real_sampler_reads_the_host_and_explains_missing_gpus():
    sampler = RealSampler(include_processes=True)
    try:
        time.sleep(0.15)
        first = sampler.sample()
        second = sampler.sample()
    finally:
        sampler.close()
    assert second.timestamp > first.timestamp
    assert abs(first.timestamp - time.time()) < 5
    assert len(first.cpu.per_core) == psutil.cpu_count()
    assert 0.0 <= first.cpu.percent <= 100.0
    assert first.memory.total_bytes > 0 and 0 < first.memory.fraction < 1
    assert math.isfinite(first.io.net_rx_bytes_s) or any("network" in p for p in first.problems)
    status = nvml.status()
    if status.available:  # a machine with a driver: real GPUs
        assert len(first.gpus) == status.device_count
    else:
        assert first.gpus == ()
        assert any(p.startswith("GPU: unavailable because") for p in first.problems)
    payload = jsonable(first.to_dict())
    assert set(payload) >= {"timestamp", "cpu", "memory", "gpus", "problems"}


def test_real_sampler_without_priming_has_nan_rates_first():
    sampler = RealSampler(include_gpus=False, prime=False)
    try:
        first = sampler.sample()
        time.sleep(0.05)
        second = sampler.sample()
    finally:
        sampler.close()
    assert math.isnan(first.cpu.percent) and math.isnan(first.io.disk_read_bytes_s)
    assert any("two readings" in p for p in first.problems)
    assert math.isfinite(second.cpu.percent)
    assert not any("two readings" in p for p in second.problems)


def test_closed_real_sampler_answers_without_reading():
    sampler = RealSampler(include_gpus=False)
    sampler.close()
    assert sampler.sample().problems == ("sampler is closed",)


# --- host reader with scripted counters ------------------------------------------------------

Times = namedtuple("Times", "user nice system idle iowait guest")
Disk = namedtuple("Disk", "read_bytes write_bytes")
Net = namedtuple("Net", "bytes_recv bytes_sent")
Swap = namedtuple("Swap", "total used percent sin sout")
Vm = namedtuple("Vm", "total available percent")


class ScriptedPsutil:
    """Just enough of psutil for HostReader, with counters advanced by the test."""

    def __init__(self):
        self.core_times = [Times(0, 0, 0, 0, 0, 0), Times(0, 0, 0, 0, 0, 0)]
        self.disk = Disk(0, 0)
        self.net = Net(0, 0)
        self.swap = Swap(100, 10, 10.0, 0, 0)
        self.fail_disk = False

    def cpu_count(self, logical=True):
        return 2

    def cpu_times(self, percpu=False):
        if percpu:
            return list(self.core_times)
        return Times(*(sum(t[i] for t in self.core_times) for i in range(6)))

    def disk_io_counters(self):
        if self.fail_disk:
            raise OSError("no /proc/diskstats")
        return self.disk

    def net_io_counters(self):
        return self.net

    def swap_memory(self):
        return self.swap

    def virtual_memory(self):
        return Vm(1000, 250, 75.0)

    def getloadavg(self):
        return (1.0, 0.5, 0.25)


def test_host_reader_rates_and_cpu_from_counter_deltas(monkeypatch):
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(host, "time", SimpleNamespace(monotonic=lambda: clock.now))
    fake = ScriptedPsutil()
    reader = HostReader(prime=False)
    reader._psutil = fake
    _, _, io0, problems0 = reader.read()
    assert math.isnan(io0.disk_read_bytes_s) and any("two readings" in p for p in problems0)

    clock.now = 102.0
    # core 0: 3 s busy of 4; core 1: 1 busy (iowait counts as idle) of 4; guest is inside user
    fake.core_times = [Times(2, 0, 1, 1, 0, 1), Times(1, 0, 0, 2, 1, 0)]
    fake.disk = Disk(4_000_000, 1_000_000)
    fake.net = Net(2000, 1000)
    fake.swap = Swap(100, 20, 20.0, 4096, 8192)
    cpu, mem, io, problems = reader.read()
    assert cpu.per_core == pytest.approx((75.0, 25.0))
    assert cpu.percent == pytest.approx(50.0)
    assert cpu.load_avg == (1.0, 0.5, 0.25)
    assert io.disk_read_bytes_s == pytest.approx(2_000_000)
    assert io.disk_write_bytes_s == pytest.approx(500_000)
    assert io.net_rx_bytes_s == pytest.approx(1000) and io.net_tx_bytes_s == pytest.approx(500)
    assert mem.swap_in_bytes_s == pytest.approx(2048) and mem.swap_out_bytes_s == pytest.approx(
        4096
    )
    assert mem.used_bytes == 750 and mem.fraction == pytest.approx(0.75)
    assert problems == []

    clock.now = 103.0
    fake.disk = Disk(10, 10)  # counter reset (e.g. device re-attached): no negative rate
    fake.fail_disk = False
    _, _, io2, _ = reader.read()
    assert math.isnan(io2.disk_read_bytes_s)

    clock.now = 104.0
    fake.fail_disk = True
    _, _, io3, problems3 = reader.read()  # never raises
    assert math.isnan(io3.disk_write_bytes_s)
    assert any(p.startswith("disk counters unavailable") for p in problems3)
    assert math.isfinite(io3.net_rx_bytes_s)


def test_busy_percent_with_no_elapsed_time_is_nan():
    t = Times(1, 0, 1, 5, 0, 0)
    assert math.isnan(busy_percent(t, t))


def test_process_info_cache_keeps_objects_for_cpu_percent():
    cache = ProcessInfoCache()
    me = os.getpid()
    first = cache.lookup([me])[me]
    sum(i * i for i in range(200_000))  # burn a little CPU
    second = cache.lookup([me])[me]
    assert math.isnan(first.cpu_percent) and math.isfinite(second.cpu_percent)
    assert second.rss_bytes > 0 and second.name
    assert cache.lookup([]) == {}
    assert math.isnan(cache.lookup([me])[me].cpu_percent)  # dropped, so a first sighting again


# --- MonitorSession --------------------------------------------------------------------------


def test_monitor_session_ties_history_diagnosis_and_idle_cost():
    fake = FakeSampler(
        gpu_count=1,
        gpu_util=(2.0,),
        cpu_percent=(5.0,),
        interval_s=1.0,
        processes=(FakeProcessSpec(0, 7, user="bob"),),
    )
    session = MonitorSession(fake, rate_hz=1.0)
    updates = [session.tick() for _ in range(61)]
    last = updates[-1]
    assert session.samples_taken == 61 and session.duration_s == pytest.approx(60.0)
    verdict = last.diagnosis.by_category("utilization")
    assert verdict is not None and verdict.key == "underused"
    assert last.idle.idle_gpu_hours == pytest.approx(60 / 3600)
    assert last.idle.users[0].user == "bob"
    assert session.history is not None
    t, y = session.history.series("gpu0.util", 30.0)
    assert t[-1] - t[0] == pytest.approx(30.0) and set(y) == {2.0}
    assert session.stats.summary()["cpu.percent"].mean == pytest.approx(5.0)
    session.close()
    assert fake.closed


def test_monitor_session_feeds_a_sink():
    got: list[SystemSample] = []

    class Sink:
        def add(self, sample: SystemSample) -> None:
            got.append(sample)

    session = MonitorSession(FakeSampler(), sink=Sink())
    session.tick()
    session.tick()
    assert len(got) == 2
