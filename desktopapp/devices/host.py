"""Host readings for the monitor through psutil: CPU, memory, swap, disk and network. Never
raises.

CPU percentages come from the difference of two ``cpu_times`` readings (busy = everything but
idle and iowait, like psutil), so this module does not share ``psutil.cpu_percent``'s global
state with anyone else. Disk, network and swap traffic are rates from counter deltas between
two readings. The very first reading has no predecessor: its CPU percentages and rates are NaN
unless the reader was primed (``HostReader(prime=True)`` takes that first reading at
construction).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.problems import HOST, WARMING_UP, Problem

NAN = math.nan


@dataclass(frozen=True)
class CpuSample:
    percent: float = NAN  # all logical cores together, 0-100
    per_core: tuple[float, ...] = ()  # one value per logical core, 0-100
    load_avg: tuple[float, float, float] = (NAN, NAN, NAN)  # 1, 5, 15 min (emulated on Windows)
    count: int = 0  # logical cores

    @property
    def max_core_percent(self) -> float:
        finite = [v for v in self.per_core if math.isfinite(v)]
        return max(finite) if finite else NAN

    def to_dict(self) -> dict[str, Any]:
        return {
            "percent": self.percent,
            "per_core": list(self.per_core),
            "load_avg": list(self.load_avg),
            "count": self.count,
        }


@dataclass(frozen=True)
class MemorySample:
    total_bytes: float = NAN
    used_bytes: float = NAN  # total - available: what applications hold
    available_bytes: float = NAN
    percent: float = NAN
    swap_total_bytes: float = NAN
    swap_used_bytes: float = NAN
    swap_percent: float = NAN
    swap_in_bytes_s: float = NAN
    swap_out_bytes_s: float = NAN

    @property
    def fraction(self) -> float:
        return self.used_bytes / self.total_bytes if self.total_bytes > 0 else NAN

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass(frozen=True)
class IoSample:
    disk_read_bytes_s: float = NAN
    disk_write_bytes_s: float = NAN
    net_rx_bytes_s: float = NAN
    net_tx_bytes_s: float = NAN

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def busy_percent(before: Any, after: Any) -> float:
    """CPU busy % between two ``psutil`` cpu-times tuples; NaN when no time passed."""
    fields = getattr(after, "_fields", ())
    total = 0.0
    idle = 0.0
    for name in fields:
        if name in ("guest", "guest_nice"):  # already counted in user / nice on Linux
            continue
        delta = getattr(after, name) - getattr(before, name)
        total += delta
        if name in ("idle", "iowait"):
            idle += delta
    if total <= 0:
        return NAN
    return min(100.0, max(0.0, 100.0 * (total - idle) / total))


def _rate(new: float | None, old: float | None, dt: float) -> float:
    if new is None or old is None or dt <= 0 or new < old:  # reset or wrap: no rate
        return NAN
    return (new - old) / dt


@dataclass
class _Counters:
    when: float
    cpu_total: Any
    cpu_cores: Sequence[Any]
    disk_read: float | None
    disk_write: float | None
    net_rx: float | None
    net_tx: float | None
    swap: Any  # psutil sswap (used/total and the cumulative sin/sout), or None


class HostReader:
    """CPU/memory/disk/network readings with rates between successive :meth:`read` calls."""

    def __init__(self, prime: bool = True) -> None:
        import psutil

        self._psutil = psutil
        self._cpu_count = psutil.cpu_count(logical=True) or 0
        self._prev: _Counters | None = None
        if prime:
            self._prev = self._counters([])

    def _counters(self, problems: list[str]) -> _Counters:
        ps = self._psutil
        now = time.monotonic()
        cpu_total = _guard(ps.cpu_times, problems, "CPU times")
        cores = _guard(lambda: ps.cpu_times(percpu=True), problems, "per-core CPU times") or []
        disk = _guard(ps.disk_io_counters, problems, "disk counters")
        net = _guard(ps.net_io_counters, problems, "network counters")
        swap = _guard(ps.swap_memory, problems, "swap")
        return _Counters(
            now,
            cpu_total,
            cores,
            float(disk.read_bytes) if disk is not None else None,
            float(disk.write_bytes) if disk is not None else None,
            float(net.bytes_recv) if net is not None else None,
            float(net.bytes_sent) if net is not None else None,
            swap,
        )

    def read(self) -> tuple[CpuSample, MemorySample, IoSample, list[str]]:
        """Never raises; missing values are NaN with a line in the returned problems."""
        problems: list[str] = []
        ps = self._psutil
        vm = _guard(ps.virtual_memory, problems, "memory")
        cur = self._counters(problems)
        prev = self._prev
        self._prev = cur
        load = _guard(ps.getloadavg, None, "load average")
        load_avg = (float(load[0]), float(load[1]), float(load[2])) if load else (NAN, NAN, NAN)
        if prev is None:
            problems.append(
                Problem(
                    WARMING_UP,
                    "rates need two readings: CPU %, disk, network and swap rates are NaN",
                    "host",
                )
            )
            cpu = CpuSample(NAN, (NAN,) * self._cpu_count, load_avg, self._cpu_count)
            dt = 0.0
        else:
            dt = cur.when - prev.when
            total = (
                busy_percent(prev.cpu_total, cur.cpu_total)
                if prev.cpu_total is not None and cur.cpu_total is not None
                else NAN
            )
            if len(prev.cpu_cores) == len(cur.cpu_cores):
                cores = tuple(
                    busy_percent(a, b) for a, b in zip(prev.cpu_cores, cur.cpu_cores, strict=True)
                )
            else:  # a core went on/offline
                cores = (NAN,) * len(cur.cpu_cores)
            cpu = CpuSample(total, cores, load_avg, len(cur.cpu_cores) or self._cpu_count)
        swap = cur.swap
        swap_in = _rate(_attr(swap, "sin"), _attr(prev.swap, "sin"), dt) if prev else NAN
        swap_out = _rate(_attr(swap, "sout"), _attr(prev.swap, "sout"), dt) if prev else NAN
        memory = MemorySample(
            total_bytes=float(vm.total) if vm is not None else NAN,
            used_bytes=float(vm.total - vm.available) if vm is not None else NAN,
            available_bytes=float(vm.available) if vm is not None else NAN,
            percent=float(vm.percent) if vm is not None else NAN,
            swap_total_bytes=float(swap.total) if swap is not None else NAN,
            swap_used_bytes=float(swap.used) if swap is not None else NAN,
            swap_percent=float(swap.percent) if swap is not None else NAN,
            swap_in_bytes_s=swap_in,
            swap_out_bytes_s=swap_out,
        )
        io = IoSample(
            disk_read_bytes_s=_rate(cur.disk_read, prev.disk_read, dt) if prev else NAN,
            disk_write_bytes_s=_rate(cur.disk_write, prev.disk_write, dt) if prev else NAN,
            net_rx_bytes_s=_rate(cur.net_rx, prev.net_rx, dt) if prev else NAN,
            net_tx_bytes_s=_rate(cur.net_tx, prev.net_tx, dt) if prev else NAN,
        )
        if cur.disk_read is None and not any(p.startswith("disk") for p in problems):
            problems.append(Problem(HOST, "disk counters unavailable on this system", "host"))
        if cur.net_rx is None and not any(p.startswith("network") for p in problems):
            problems.append(Problem(HOST, "network counters unavailable on this system", "host"))
        return cpu, memory, io, problems


def _attr(obj: Any, name: str) -> float | None:
    value = getattr(obj, name, None)
    return float(value) if isinstance(value, int | float) else None


def _guard(func: Any, problems: list[str] | None, what: str) -> Any:
    try:
        return func()
    except Exception as exc:  # psutil raises on odd platforms / sandboxes
        if problems is not None:
            problems.append(
                Problem(HOST, f"{what} unavailable ({type(exc).__name__}: {exc})", "host")
            )
        return None


# --- processes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessInfo:
    name: str = ""
    command: str = ""
    user: str = ""
    cpu_percent: float = NAN  # of one core; NaN on the first sighting (psutil needs two)
    rss_bytes: float = NAN
    note: str = ""


class ProcessInfoCache:
    """psutil details of GPU processes.

    ``psutil.Process.cpu_percent`` measures since the previous call *on the same object*, so the
    objects are kept between samples (keyed by pid; psutil checks the creation time, so a
    reused pid gets a fresh object). Processes not seen in a refresh are dropped.
    """

    MAX_COMMAND = 300

    def __init__(self) -> None:
        import psutil

        self._psutil = psutil
        self._procs: dict[int, Any] = {}
        self._static: dict[int, tuple[str, str, str]] = {}

    def clear(self) -> None:
        self._procs.clear()
        self._static.clear()

    def lookup(self, pids: Iterable[int]) -> dict[int, ProcessInfo]:
        ps = self._psutil
        wanted = set(pids)
        for gone in set(self._procs) - wanted:
            self._procs.pop(gone, None)
            self._static.pop(gone, None)
        out: dict[int, ProcessInfo] = {}
        for pid in wanted:
            proc = self._procs.get(pid)
            first = proc is None
            try:
                if proc is not None and not proc.is_running():  # pid reused
                    first, proc = True, None
                    self._static.pop(pid, None)
                if proc is None:
                    proc = ps.Process(pid)
                    self._procs[pid] = proc
                with proc.oneshot():
                    cpu = proc.cpu_percent(None)
                    rss = float(proc.memory_info().rss)
                    static = self._static.get(pid)
                    if static is None:
                        static = (proc.name(), _command(proc), _user(proc))
                        self._static[pid] = static
                out[pid] = ProcessInfo(
                    static[0],
                    static[1][: self.MAX_COMMAND],
                    static[2],
                    NAN if first else float(cpu),
                    rss,
                )
            except ps.NoSuchProcess:
                self._procs.pop(pid, None)
                out[pid] = ProcessInfo(
                    note="not visible from here (another container or PID namespace, "
                    "or it just exited)"
                )
            except ps.AccessDenied:
                out[pid] = ProcessInfo(note="details not readable (permission denied)")
            except Exception as exc:
                out[pid] = ProcessInfo(note=f"details unavailable ({type(exc).__name__})")
        return out


def _command(proc: Any) -> str:
    try:
        return " ".join(proc.cmdline())
    except Exception:
        return ""


def _user(proc: Any) -> str:
    try:
        return str(proc.username())
    except Exception:
        return ""
