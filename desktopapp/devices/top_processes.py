"""The busiest processes of this machine by CPU and by memory (the Monitor without a GPU).

:class:`TopProcesses` scans the process table with psutil and works out each process's CPU
share from the change in its CPU time between two scans, so a call costs one scan and never
blocks (psutil's own ``cpu_percent(interval=…)`` would sleep). The first scan has no CPU
shares yet (NaN). Processes that end or refuse access between scans are skipped. Never raises:
without psutil or a readable process table it returns no rows and a reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

NAN = float("nan")


@dataclass(frozen=True)
class HostProcess:
    pid: int
    name: str
    user: str
    cpu_percent: float  # of one CPU (as top shows it: 200% = two busy cores); NaN on first scan
    rss_bytes: float
    memory_percent: float  # of physical memory

    def to_dict(self) -> dict[str, Any]:
        def num(value: float) -> float | None:
            return value if math.isfinite(value) else None

        return {
            "pid": self.pid,
            "name": self.name,
            "user": self.user,
            "cpu_percent": num(self.cpu_percent),
            "rss_bytes": num(self.rss_bytes),
            "memory_percent": num(self.memory_percent),
        }


@dataclass(frozen=True)
class ProcessSnapshot:
    by_cpu: tuple[HostProcess, ...]
    by_memory: tuple[HostProcess, ...]
    problem: str = ""  # why the table is empty, when it is


@dataclass(frozen=True)
class RawProcess:
    """One row of a scan: what psutil reports (tests build these directly)."""

    pid: int
    name: str
    user: str
    cpu_seconds: float
    rss_bytes: float
    created: float  # process start time: a reused pid is a new process


def scan_psutil() -> tuple[list[RawProcess], float]:
    """(processes, total physical memory in bytes) from psutil."""
    import psutil

    rows = []
    attrs = ["pid", "name", "username", "cpu_times", "memory_info", "create_time"]
    for proc in psutil.process_iter(attrs):
        info = proc.info
        times, memory = info.get("cpu_times"), info.get("memory_info")
        if times is None or memory is None:
            continue  # access denied or gone
        rows.append(
            RawProcess(
                pid=int(info["pid"]),
                name=str(info.get("name") or "?"),
                user=str(info.get("username") or "?"),
                cpu_seconds=float(times.user + times.system),
                rss_bytes=float(memory.rss),
                created=float(info.get("create_time") or 0.0),
            )
        )
    return rows, float(psutil.virtual_memory().total)


class TopProcesses:
    """Call :meth:`read` at any interval; CPU shares are over the time since the last call."""

    def __init__(
        self,
        limit: int = 8,
        scanner: Callable[[], tuple[list[RawProcess], float]] = scan_psutil,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self._scan = scanner
        self._clock = clock
        self._last: dict[tuple[int, float], float] = {}
        self._last_t: float | None = None

    def read(self) -> ProcessSnapshot:
        try:
            rows, total_memory = self._scan()
        except Exception as exc:
            return ProcessSnapshot((), (), f"process list unavailable because {exc}")
        now = self._clock()
        wall = (now - self._last_t) if self._last_t is not None else None
        current: dict[tuple[int, float], float] = {}
        procs = []
        for row in rows:
            key = (row.pid, row.created)
            current[key] = row.cpu_seconds
            before = self._last.get(key)
            cpu = NAN
            if wall is not None and wall > 0 and before is not None:
                cpu = max(row.cpu_seconds - before, 0.0) / wall * 100.0
            mem_pct = 100.0 * row.rss_bytes / total_memory if total_memory > 0 else NAN
            procs.append(HostProcess(row.pid, row.name, row.user, cpu, row.rss_bytes, mem_pct))
        self._last, self._last_t = current, now
        return ProcessSnapshot(_top(procs, "cpu", self.limit), _top(procs, "memory", self.limit))


def _top(procs: Iterable[HostProcess], by: str, limit: int) -> tuple[HostProcess, ...]:
    def key(p: HostProcess) -> tuple[float, float]:
        cpu = p.cpu_percent if math.isfinite(p.cpu_percent) else -1.0
        return (cpu, p.rss_bytes) if by == "cpu" else (p.rss_bytes, cpu)

    return tuple(sorted(procs, key=key, reverse=True)[:limit])
