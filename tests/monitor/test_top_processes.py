"""Top processes by CPU and memory: what the Monitor lists on a machine without a GPU."""

from __future__ import annotations

import math
import os

import pytest

from desktopapp.devices.top_processes import RawProcess, TopProcesses


class Scripted:
    def __init__(self, scans: list[list[RawProcess]], times: list[float]) -> None:
        self.scans, self.times = iter(scans), iter(times)

    def scan(self) -> tuple[list[RawProcess], float]:
        return next(self.scans), 1000.0

    def clock(self) -> float:
        return next(self.times)


def raw(pid: int, cpu_s: float, rss: float, created: float = 1.0) -> RawProcess:
    return RawProcess(pid, f"p{pid}", "alice", cpu_s, rss, created)


def test_cpu_share_comes_from_the_change_between_scans() -> None:
    first = [raw(1, 10.0, 100.0), raw(2, 5.0, 500.0)]
    second = [raw(1, 12.0, 100.0), raw(2, 5.5, 500.0), raw(3, 1.0, 50.0)]
    script = Scripted([first, second], [0.0, 2.0])
    top = TopProcesses(limit=2, scanner=script.scan, clock=script.clock)
    snap = top.read()
    assert all(math.isnan(p.cpu_percent) for p in snap.by_cpu)  # nothing to compare with yet
    assert [p.pid for p in snap.by_memory] == [2, 1]
    snap = top.read()
    assert [p.pid for p in snap.by_cpu] == [1, 2]  # limit 2; pid 3 is new: no share yet
    assert snap.by_cpu[0].cpu_percent == pytest.approx(100.0)  # 2 CPU-seconds in 2 s
    assert snap.by_cpu[1].cpu_percent == pytest.approx(25.0)
    assert snap.by_memory[0].memory_percent == pytest.approx(50.0)


def test_a_reused_pid_is_a_new_process() -> None:
    script = Scripted([[raw(7, 100.0, 1.0, created=1.0)], [raw(7, 0.5, 1.0, created=9.0)]], [0, 1])
    top = TopProcesses(scanner=script.scan, clock=script.clock)
    top.read()
    assert math.isnan(top.read().by_cpu[0].cpu_percent)


def test_an_unreadable_table_is_a_reason_not_an_error() -> None:
    def broken() -> tuple[list[RawProcess], float]:
        raise PermissionError("no /proc")

    snap = TopProcesses(scanner=broken).read()
    assert snap.by_cpu == () and "no /proc" in snap.problem


def test_this_machine_lists_this_process() -> None:
    top = TopProcesses(limit=10_000)
    top.read()
    snap = top.read()
    assert snap.problem == ""
    mine = [p for p in snap.by_memory if p.pid == os.getpid()]
    assert mine and mine[0].rss_bytes > 0 and mine[0].to_dict()["pid"] == os.getpid()
