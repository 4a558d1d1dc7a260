"""Issue 16: the Monitor's process table without a GPU: top processes by CPU and memory in one
list, each once (no widgets)."""

from __future__ import annotations

import math

from desktopapp.application.monitor import host_process_empty_text, host_process_rows
from desktopapp.devices.top_processes import HostProcess, ProcessSnapshot


def _p(pid: int, cpu: float, rss: float) -> HostProcess:
    return HostProcess(pid, f"p{pid}", "user", cpu, rss, 100 * rss / 16e9)


def test_cpu_and_memory_tops_merge_busiest_first() -> None:
    busy, big, both = _p(1, 180.0, 1e8), _p(2, 1.0, 8e9), _p(3, 50.0, 4e9)
    rows = host_process_rows(ProcessSnapshot((busy, both, big), (big, both, busy)))
    assert [r.pid for r in rows] == [1, 3, 2]


def test_first_scan_without_cpu_shares_orders_by_memory() -> None:
    a, b = _p(1, math.nan, 1e9), _p(2, math.nan, 5e9)
    assert [r.pid for r in host_process_rows(ProcessSnapshot((a, b), (b, a)))] == [2, 1]


def test_empty_text_names_the_problem() -> None:
    text = host_process_empty_text(ProcessSnapshot((), (), "psutil is not installed"))
    assert "psutil is not installed" in text
