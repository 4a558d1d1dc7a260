"""Collective benchmark (suite ``allreduce``): all-reduce, all-gather, reduce-scatter, broadcast.

Locally, :func:`collective_suite` spawns ``nproc`` processes that join a torch.distributed
group on a loopback port (Gloo on CPU, NCCL on CUDA) and yields :class:`ProgressEvent` s like
the other suites. Across nodes the same code runs under ``torchrun`` or ``srun``:
``python -m desktopapp.devices.bench.collective --output FILE.json`` reads the rank from the
environment and rank 0 writes the JSON that ``desktopapp bench import FILE`` stores.

Figures follow nccl-tests (``doc/PERFORMANCE.md``): for ``S`` bytes (all-gather: the gathered
buffer; reduce-scatter: the buffer before scattering) ``algbw = S / t`` and
``busbw = algbw × 2(n−1)/n`` (all-reduce), ``× (n−1)/n`` (all-gather, reduce-scatter), ``× 1``
(broadcast). ``t`` is :data:`STATISTIC`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import queue as queue_module
import socket
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from desktopapp.devices.bench.core import BenchResult, CancelToken, ProgressEvent
from desktopapp.devices.bench.priority import FLAG as BACKGROUND_FLAG
from desktopapp.devices.bench.priority import lower_priority
from desktopapp.model.interconnect import bus_factor
from desktopapp.model.validation import require_choice, require_int, require_range

SUITE = "allreduce"
EXPORT_FORMAT = "desktopapp-collective-bench"
OPS: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
KIB = 1024
MIB = 1024**2
GIB = 1024**3
DEFAULT_MIN_BYTES = 32 * KIB
# Largest message: 1 GiB on GPUs (nccl-tests' usual sweep end), 64 MiB on CPU where Gloo over
# loopback is memory-bound and each rank holds ~3 buffers of the message size.
DEFAULT_MAX_BYTES = {"cpu": 64 * MIB, "cuda": GIB}
STATISTIC = (
    "median over the timed iterations of the per-iteration time of the slowest rank (every "
    "iteration starts after a barrier and is timed on each rank; the maximum over ranks is kept)"
)
# A copy reads the message once and writes it once: the bandwidth suite's device copy counts
# both, so the one-rank copy rate does too.
COPY_TRAFFIC = 2
START_TIMEOUT_S = 120.0  # process start + torch import + rendezvous
_STOP, _GO, _BUDGET = 0, 1, 2


@dataclass(frozen=True)
class CollectiveConfig:
    """What to run. ``budget_s``: seconds for the whole sweep (all ops), start-up excluded."""

    device: str = "cpu"  # "cpu" (Gloo) or "cuda" (NCCL)
    nproc: int = 2
    ops: tuple[str, ...] = OPS
    min_bytes: int = DEFAULT_MIN_BYTES
    max_bytes: int | None = None
    budget_s: float = 4.0
    warmup: int = 2
    iters: int = 5

    def __post_init__(self) -> None:
        require_choice("device", self.device, ("cpu", "cuda"))
        require_int("nproc", self.nproc, minimum=1, maximum=1024)
        if not self.ops:
            raise ValueError(f"ops: name at least one of {', '.join(OPS)}")
        for op in self.ops:
            require_choice("ops", op, OPS)
        require_int("min_bytes", self.min_bytes, minimum=4, maximum=64 * GIB)
        if self.max_bytes is not None:
            require_int("max_bytes", self.max_bytes, minimum=self.min_bytes, maximum=64 * GIB)
        require_range("budget_s", self.budget_s, 0.1, 3600.0)
        require_int("warmup", self.warmup, minimum=0, maximum=100)
        require_int("iters", self.iters, minimum=1, maximum=1000)

    @property
    def backend(self) -> str:
        return "nccl" if self.device == "cuda" else "gloo"

    @property
    def largest(self) -> int:
        return self.max_bytes or DEFAULT_MAX_BYTES[self.device]

    def sizes(self) -> tuple[int, ...]:
        """Powers of two from ``min_bytes`` to the largest message."""
        out, size = [], self.min_bytes
        while size <= self.largest:
            out.append(size)
            size *= 2
        return tuple(out) or (self.min_bytes,)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": SUITE,
            "device": self.device,
            "nproc": self.nproc,
            "ops": list(self.ops),
            "min_bytes": self.min_bytes,
            "max_bytes": self.largest,
            "budget_s": self.budget_s,
            "warmup": self.warmup,
            "iters": self.iters,
            "backend": self.backend,
            "statistic": STATISTIC,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CollectiveConfig:
        return cls(
            device=str(data.get("device", "cpu")),
            nproc=int(data.get("nproc", 1)),
            ops=tuple(data.get("ops") or OPS),
            min_bytes=int(data.get("min_bytes", DEFAULT_MIN_BYTES)),
            max_bytes=data.get("max_bytes"),
            budget_s=float(data.get("budget_s", 4.0)),
            warmup=int(data.get("warmup", 2)),
            iters=int(data.get("iters", 5)),
        )


@dataclass(frozen=True)
class CollectiveResult:
    """One op at one message size. Bandwidths in GB/s (10⁹ bytes/s), as nccl-tests prints."""

    op: str
    bytes: int
    seconds: float
    min_seconds: float
    world_size: int
    backend: str
    iterations: int
    # One rank: the median time of a real local copy (``dst.copy_(src)``) of the message,
    # timed like the op. The op itself is in place and moves nothing (all-reduce, broadcast),
    # so its own time is never a copy rate. None with several ranks or in older files.
    copy_seconds: float | None = None

    @property
    def algbw_gbs(self) -> float:
        return self.bytes / self.seconds / 1e9

    @property
    def busbw_gbs(self) -> float:
        return self.algbw_gbs * float(bus_factor(self.op, self.world_size))

    @property
    def one_rank(self) -> bool:
        """One rank moves nothing over a bus (all-reduce and broadcast do nothing in place)."""
        return self.world_size == 1

    @property
    def copy_gbs(self) -> float | None:
        """With one rank, the local copy rate a real copy of the message measured, counted as
        the bandwidth suite counts (bytes read + bytes written per second, GB/s); else None."""
        if not self.one_rank or not self.copy_seconds:
            return None
        return COPY_TRAFFIC * self.bytes / self.copy_seconds / 1e9

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "bytes": self.bytes,
            "seconds": self.seconds,
            "min_seconds": self.min_seconds,
            "algbw_gbs": self.algbw_gbs,
            # one rank: no bus traffic to measure (None, not 0); the local copy rate instead
            "busbw_gbs": None if self.one_rank else self.busbw_gbs,
            "copy_gbs": self.copy_gbs,
            "copy_seconds": self.copy_seconds,
            "world_size": self.world_size,
            "backend": self.backend,
            "iterations": self.iterations,
            "statistic": "median",
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CollectiveResult:
        try:
            row = cls(
                op=str(data["op"]),
                bytes=int(data["bytes"]),
                seconds=float(data["seconds"]),
                min_seconds=float(data.get("min_seconds", data["seconds"])),
                world_size=int(data["world_size"]),
                backend=str(data["backend"]),
                iterations=int(data.get("iterations", 1)),
                copy_seconds=_positive_or_none(data.get("copy_seconds")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"results: a row lacks a usable {exc} field") from None
        require_choice("op", row.op, OPS)
        if not (math.isfinite(row.seconds) and row.seconds > 0):
            raise ValueError(f"seconds: must be above 0, got {row.seconds!r}")
        require_int("world_size", row.world_size, minimum=1)
        return row

    def to_bench_result(self, device: str) -> BenchResult:
        """As a row of the results store (suite ``allreduce``, variant = op, size = bytes)."""
        return BenchResult(
            suite=SUITE,
            device=device,
            dtype="fp32",
            size=self.bytes,
            tflops=None,
            seconds=self.seconds,
            peak_tflops=None,
            percent_of_peak=None,
            extra={
                "op": self.op,
                "algbw_gbs": self.algbw_gbs,
                "busbw_gbs": None if self.one_rank else self.busbw_gbs,
                "copy_gbs": self.copy_gbs,
                "copy_s": self.copy_seconds,
                "world_size": self.world_size,
                "backend": self.backend,
                "iterations": self.iterations,
                "min_s": self.min_seconds,
                "statistic": STATISTIC,
            },
            variant=self.op,
            metric="GB/s local copy" if self.one_rank else "GB/s busbw",
            value=self.copy_gbs if self.one_rank else self.busbw_gbs,
        )


def _positive_or_none(value: Any) -> float | None:
    if value is None:
        return None
    seconds = float(value)
    return seconds if math.isfinite(seconds) and seconds > 0 else None


@dataclass(frozen=True)
class CollectiveRun:
    """A finished (or cancelled) collective run: what the store saves and the CLI prints."""

    config: CollectiveConfig
    results: tuple[CollectiveResult, ...]
    warnings: tuple[str, ...]
    started: str
    seconds: float
    cancelled: bool
    world_size: int
    backend: str
    versions: Mapping[str, Any] = field(default_factory=dict)
    nodes: int = 1
    gpus_per_node: int = 1
    hosts: tuple[str, ...] = ()
    device_name: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": EXPORT_FORMAT,
            "suite": SUITE,
            "started": self.started,
            "seconds": self.seconds,
            "cancelled": self.cancelled,
            "config": self.config.to_dict(),
            "world_size": self.world_size,
            "backend": self.backend,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "hosts": list(self.hosts),
            "device_name": self.device_name,
            "statistic": STATISTIC,
            "versions": dict(self.versions),
            "results": [r.to_dict() for r in self.results],
            "notes": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CollectiveRun:
        if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
            raise ValueError(
                f'file: not a collective benchmark file (expected "format": "{EXPORT_FORMAT}")'
            )
        rows = data.get("results")
        if not isinstance(rows, list):
            raise ValueError("results: the file has no list of results")
        return cls(
            config=CollectiveConfig.from_dict(data.get("config") or {}),
            results=tuple(CollectiveResult.from_dict(r) for r in rows),
            warnings=tuple(str(n) for n in data.get("notes") or ()),
            started=str(data.get("started", "")),
            seconds=float(data.get("seconds") or 0.0),
            cancelled=bool(data.get("cancelled", False)),
            world_size=int(data.get("world_size", 1)),
            backend=str(data.get("backend", "")),
            versions=dict(data.get("versions") or {}),
            nodes=int(data.get("nodes", 1)),
            gpus_per_node=int(data.get("gpus_per_node", 1)),
            hosts=tuple(str(h) for h in data.get("hosts") or ()),
            device_name=str(data.get("device_name", "")),
        )


# --- one rank ------------------------------------------------------------------------------


def _versions(backend: str) -> dict[str, Any]:
    import platform

    import torch

    from desktopapp import __version__

    info: dict[str, Any] = {
        "desktopapp": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "torch": str(torch.__version__),
        "cuda": getattr(torch.version, "cuda", None),
        "backend": backend,
        "nccl": None,
    }
    if backend == "nccl":
        with contextlib.suppress(Exception):
            version = torch.cuda.nccl.version()
            info["nccl"] = (
                ".".join(str(p) for p in version) if isinstance(version, tuple) else str(version)
            )
    return info


def _collective(dist: Any, op: str, nbytes: int, world: int, device: Any) -> Callable[[], None]:
    import torch

    count = max(world, nbytes // 4 // world * world)  # fp32 elements, divisible by the ranks
    if op == "all_reduce":
        buf = torch.ones(count, dtype=torch.float32, device=device)
        return lambda: dist.all_reduce(buf)
    if op == "broadcast":
        buf = torch.ones(count, dtype=torch.float32, device=device)
        return lambda: dist.broadcast(buf, src=0)
    full = torch.ones(count, dtype=torch.float32, device=device)
    part = torch.ones(count // world, dtype=torch.float32, device=device)
    if op == "all_gather":
        gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
        return lambda: gather(full, part)
    scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    return lambda: scatter(part, full)


def _copy_seconds(
    nbytes: int, device: Any, warmup: int, iters: int, sync: Callable[[], None]
) -> float:
    """Median seconds of a real local copy of ``nbytes`` (``dst.copy_(src)``, fp32), timed like
    the collectives: warm-up, then each iteration synchronised before and after."""
    import statistics

    import torch

    count = max(1, nbytes // 4)
    src = torch.ones(count, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    for _ in range(warmup):
        dst.copy_(src)
    samples = []
    for _ in range(iters):
        sync()
        start = time.perf_counter()
        dst.copy_(src)
        sync()
        samples.append(time.perf_counter() - start)
    del src, dst
    return float(statistics.median(samples))


def run_rank(
    rank: int,
    world: int,
    config: CollectiveConfig,
    *,
    init_method: str,
    local_rank: int = 0,
    emit: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> None:
    """Join the group and run the sweep; rank 0 reports through ``emit`` (dicts with ``kind``
    ``progress``, ``result``, ``warning`` or ``done``). Rank 0 decides, before each step, whether
    to go on (cancel, time budget) and tells the other ranks with a broadcast."""
    import statistics
    from datetime import timedelta

    warnings.filterwarnings("ignore", category=FutureWarning)
    import torch
    import torch.distributed as dist

    def send(kind: str, **payload: Any) -> None:
        if rank == 0 and emit is not None:
            emit({"kind": kind, **payload})

    if config.device == "cuda":
        torch.cuda.set_device(local_rank)
        device = torch.device("cuda", local_rank)

        def sync() -> None:
            torch.cuda.synchronize(device)
    else:
        device = torch.device("cpu")

        def sync() -> None:
            return None

    dist.init_process_group(
        config.backend,
        init_method=init_method,
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=START_TIMEOUT_S),
    )
    cancelled = False
    try:
        send("progress", message=f"{world} ranks joined ({config.backend})")
        flag = torch.zeros(1, dtype=torch.int32, device=device)
        op_budget = config.budget_s / len(config.ops)
        sizes = config.sizes()
        for op in config.ops:
            spent, last_step, last_size = 0.0, 0.0, 0
            for nbytes in sizes:
                if rank == 0:
                    predicted = last_step * nbytes / last_size if last_size else 0.0
                    if should_stop():
                        decision = _STOP
                    elif last_size and spent + predicted > op_budget:
                        decision = _BUDGET
                    else:
                        decision = _GO
                    flag.fill_(decision)
                dist.broadcast(flag, src=0)
                decision = int(flag.item())
                if decision == _STOP:
                    cancelled = True
                    break
                if decision == _BUDGET:
                    send(
                        "progress",
                        message=f"{op}: sweep stops before {nbytes} bytes (time budget)",
                    )
                    break
                t0 = time.perf_counter()
                try:
                    run = _collective(dist, op, nbytes, world, device)
                except RuntimeError as exc:  # out of memory on one rank ends this op's sweep
                    send("warning", message=f"{op} at {nbytes} bytes: {exc}".splitlines()[0])
                    break
                for _ in range(config.warmup):
                    run()
                sync()
                times = torch.zeros(config.iters, dtype=torch.float64, device=device)
                for i in range(config.iters):
                    dist.barrier()
                    sync()
                    start = time.perf_counter()
                    run()
                    sync()
                    times[i] = time.perf_counter() - start
                dist.all_reduce(times, op=dist.ReduceOp.MAX)
                samples = [float(t) for t in times.cpu()]
                del run
                size = max(world, nbytes // 4 // world * world) * 4
                copy_seconds = None
                if world == 1:  # the op moves nothing: time a real copy of the message instead
                    try:
                        copy_seconds = _copy_seconds(
                            size, device, config.warmup, config.iters, sync
                        )
                    except RuntimeError as exc:  # out of memory for the second buffer
                        why = f"local copy at {size} bytes: {exc}".splitlines()[0]
                        send("warning", message=why)
                last_step, last_size = time.perf_counter() - t0, nbytes
                spent += last_step
                result = CollectiveResult(
                    op=op,
                    bytes=size,
                    seconds=statistics.median(samples),
                    min_seconds=min(samples),
                    world_size=world,
                    backend=config.backend,
                    iterations=config.iters,
                    copy_seconds=copy_seconds,
                )
                send("result", row=result.to_dict(), fraction=spent / op_budget)
            if cancelled:
                break
        send("done", cancelled=cancelled, versions=_versions(config.backend))
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- local run: N processes on this machine -------------------------------------------------


def check_local(config: CollectiveConfig) -> None:
    """ValueError naming the option when this machine cannot run ``config``."""
    try:
        import torch
        import torch.distributed as dist
    except ImportError:
        from desktopapp.devices.torch_info import install_hint

        raise ValueError(
            f"device: the collective benchmark needs torch ({install_hint()})"
        ) from None
    if not dist.is_available():
        raise ValueError("device: this torch build has no torch.distributed")
    if config.device == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise ValueError("device: no CUDA device visible to torch; use --device cpu (Gloo)")
        if config.nproc > count:
            raise ValueError(f"nproc: NCCL needs one GPU per process; {count} visible")


def _rank_command(config: CollectiveConfig, stop_file: Path, background: bool) -> list[str]:
    return [
        sys.executable,
        "-m",
        "desktopapp.devices.bench.collective",
        "--device",
        config.device,
        "--budget-s",
        repr(config.budget_s),
        "--max-bytes",
        str(config.largest),
        "--min-bytes",
        str(config.min_bytes),
        "--ops",
        ",".join(config.ops),
        "--warmup",
        str(config.warmup),
        "--iters",
        str(config.iters),
        "--jsonl",
        "--stop-file",
        str(stop_file),
        *([BACKGROUND_FLAG] if background else []),
    ]


ONE_RANK_NOTE = (
    "one rank: there is no bus traffic to measure (all-reduce and broadcast do nothing in "
    "place); reported instead: the local copy rate of a timed copy of each message size on "
    "this device (bytes read + written per second, as the bandwidth suite counts), not bus "
    "bandwidth"
)


def collective_suite(
    config: CollectiveConfig, token: CancelToken | None = None, *, background: bool = False
) -> Iterator[ProgressEvent]:
    """Start ``config.nproc`` local ranks and yield progress and results; ``background`` runs
    them below normal priority (the GUI's runs: see ``priority``).

    Each rank is a fresh ``python -m desktopapp.devices.bench.collective`` process (the same
    module torchrun/srun run), joined on a free loopback port; rank 0 streams JSON lines.
    ``token.cancel()`` stops the sweep before the next message size; closing the generator or
    an error ends the processes at once. No process outlives the generator.
    """
    import subprocess
    import tempfile
    import threading

    token = token or CancelToken()
    workdir = Path(tempfile.mkdtemp(prefix="desktopapp-collective-"))
    stop_file = workdir / "stop"
    port = free_loopback_port()
    lines: queue_module.Queue[str | None] = queue_module.Queue()
    procs: list[subprocess.Popen[str]] = []
    total = len(config.ops)
    done_ops: list[str] = []
    fraction = 0.0
    started = time.monotonic()
    deadline = started + START_TIMEOUT_S + 4 * config.budget_s
    yield ProgressEvent(0.0, f"starting {config.nproc} processes ({config.backend})…", suite=SUITE)
    if config.nproc == 1:
        yield ProgressEvent(0.0, ONE_RANK_NOTE, suite=SUITE, warning=ONE_RANK_NOTE)
    try:
        command = _rank_command(config, stop_file, background)
        for rank in range(config.nproc):
            env = dict(os.environ)
            env.update(
                RANK=str(rank),
                WORLD_SIZE=str(config.nproc),
                LOCAL_RANK=str(rank),
                LOCAL_WORLD_SIZE=str(config.nproc),
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=str(port),
                DESKTOPAPP_PARENT_PID=str(os.getpid()),
            )
            if sys.platform.startswith("linux"):
                env.setdefault("GLOO_SOCKET_IFNAME", "lo")
            procs.append(
                subprocess.Popen(
                    command,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE if rank == 0 else subprocess.DEVNULL,
                    stderr=subprocess.PIPE if rank == 0 else subprocess.DEVNULL,
                    text=True,
                )
            )

        def pump(stream: Any) -> None:
            for line in stream:
                lines.put(line)
            lines.put(None)

        errors: list[str] = []

        def pump_err(stream: Any) -> None:
            for line in stream:
                errors.append(line.rstrip())

        threading.Thread(target=pump, args=(procs[0].stdout,), daemon=True).start()
        threading.Thread(target=pump_err, args=(procs[0].stderr,), daemon=True).start()
        while True:
            if token.cancelled and not stop_file.exists():
                stop_file.touch()
            try:
                line = lines.get(timeout=0.1)
            except queue_module.Empty:
                dead = [p for p in procs if p.poll() not in (None, 0)]
                if dead:
                    why = next((e for e in reversed(errors) if e.strip()), "")
                    yield _final(fraction, f"a rank exited with status {dead[0].returncode} {why}")
                    return
                if time.monotonic() > deadline:
                    yield _final(fraction, "the ranks did not finish in time")
                    return
                continue
            if line is None:
                procs[0].wait(timeout=10)
                why = next((e for e in reversed(errors) if e.strip()), "no output")
                yield _final(fraction, f"rank 0 ended early ({why})")
                return
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            kind = msg.get("kind")
            if kind == "result":
                row = CollectiveResult.from_dict(msg["row"])
                if row.op not in done_ops:
                    done_ops.append(row.op)
                within = min(1.0, float(msg.get("fraction", 0.0)))
                fraction = max(fraction, (len(done_ops) - 1 + within) / total)
                yield ProgressEvent(
                    min(fraction, 0.99),
                    f"{row.op} {row.bytes} B: "
                    + (
                        f"local copy {row.copy_gbs or 0.0:,.0f} GB/s"
                        if row.one_rank
                        else f"busbw {row.busbw_gbs:.3g} GB/s"
                    ),
                    suite=SUITE,
                    result=row.to_bench_result(config.device),
                )
            elif kind == "progress":
                yield ProgressEvent(min(fraction, 0.99), str(msg["message"]), suite=SUITE)
            elif kind == "warning":
                yield ProgressEvent(
                    fraction, str(msg["message"]), suite=SUITE, warning=str(msg["message"])
                )
            elif kind == "done":
                for proc in procs:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=10)
                cancelled = bool(msg.get("cancelled"))
                seconds = time.monotonic() - started
                yield ProgressEvent(
                    fraction if cancelled else 1.0,
                    "cancelled" if cancelled else f"done in {seconds:.1f} s",
                    0.0,
                    suite=SUITE,
                    done=True,
                    cancelled=cancelled,
                    conditions={"versions": msg.get("versions") or {}},
                )
                return
    finally:
        stop_file.touch()
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=3)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        with contextlib.suppress(OSError):
            stop_file.unlink()
            workdir.rmdir()


def _final(fraction: float, why: str) -> ProgressEvent:
    return ProgressEvent(
        fraction,
        f"collective benchmark failed: {why}",
        0.0,
        warning=f"collective benchmark failed: {why}",
        suite=SUITE,
        done=True,
    )


def run_local(
    config: CollectiveConfig,
    token: CancelToken | None = None,
    on_event: Callable[[ProgressEvent], None] | None = None,
    *,
    background: bool = False,
) -> CollectiveRun:
    """Run :func:`collective_suite` to the end and gather a :class:`CollectiveRun`."""
    check_local(config)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    rows: list[CollectiveResult] = []
    notes: list[str] = []
    cancelled = False
    run_versions: dict[str, Any] = {}
    for event in collective_suite(config, token, background=background):
        if on_event is not None:
            on_event(event)
        if event.result is not None:
            rows.append(_row_from_bench(event.result))
        if event.warning:
            notes.append(event.warning)
        if event.conditions:
            run_versions = dict(event.conditions.get("versions") or {})
        cancelled = cancelled or event.cancelled
    device_name = "CPU (Gloo over loopback)" if config.device == "cpu" else ""
    if config.device == "cuda":
        import torch

        device_name = torch.cuda.get_device_name(0)
    return CollectiveRun(
        config=config,
        results=tuple(rows),
        warnings=tuple(notes),
        started=started,
        seconds=time.perf_counter() - t0,
        cancelled=cancelled,
        world_size=config.nproc,
        backend=config.backend,
        versions=run_versions,
        nodes=1,
        gpus_per_node=config.nproc,
        hosts=(socket.gethostname(),),
        device_name=device_name,
    )


def _row_from_bench(result: BenchResult) -> CollectiveResult:
    extra = result.extra
    return CollectiveResult(
        op=str(extra["op"]),
        bytes=result.size,
        seconds=result.seconds,
        min_seconds=float(extra.get("min_s", result.seconds)),
        world_size=int(extra["world_size"]),
        backend=str(extra["backend"]),
        iterations=int(extra.get("iterations", 1)),
        copy_seconds=_positive_or_none(extra.get("copy_s")),
    )


def runs_from_stored(results: Sequence[BenchResult]) -> tuple[CollectiveResult, ...]:
    """Collective rows back from the results store (other suites' rows are skipped)."""
    return tuple(_row_from_bench(r) for r in results if r.suite == SUITE and "op" in r.extra)


def save_collective_run(run: CollectiveRun, *, notes: str = "", store: Any = None) -> int:
    """Store a run in the results database (suite ``allreduce``; versions, world size and
    backend with it). A run from other hosts is filed under ``cluster:<hosts>``; a local one
    under this machine's fingerprint. Raises ``ResultsStoreError`` / ``OSError``."""
    from desktopapp.devices.results_store import ResultsStore

    store = store or ResultsStore()
    if run.nodes > 1 or (run.hosts and run.hosts[0] != socket.gethostname()):
        machine = "cluster:" + ",".join(run.hosts or ("unknown",))
        hostname = run.hosts[0] if run.hosts else ""
    else:
        from desktopapp.devices.detect import detect_system

        report = detect_system(include_torch=False)
        machine, hostname = report.fingerprint, report.hostname
    device = "cuda" if run.backend == "nccl" else "cpu"
    return int(
        store.save_run(
            [r.to_bench_result(device) for r in run.results],
            machine=machine,
            hostname=hostname,
            device=device,
            versions=dict(run.versions),
            config=run.config.to_dict(),
            device_info={
                "name": run.device_name,
                "world_size": run.world_size,
                "backend": run.backend,
                "nodes": run.nodes,
                "gpus_per_node": run.gpus_per_node,
            },
            notes=notes,
            warnings=run.warnings,
            started=run.started or None,
            seconds=run.seconds,
            cancelled=run.cancelled,
        )
    )


# --- multi-node entry point: torchrun / srun ------------------------------------------------


def _env_int(*names: str, default: int | None = None) -> int:
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            return int(str(value))
    if default is None:
        raise SystemExit(f"collective: none of {', '.join(names)} is set (run under torchrun/srun)")
    return default


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m desktopapp.devices.bench.collective --output FILE.json`` on every rank."""
    parser = argparse.ArgumentParser(
        prog="python -m desktopapp.devices.bench.collective",
        description="One rank of the collective benchmark (under torchrun or srun); rank 0 "
        "writes the JSON that `desktopapp bench import FILE` stores.",
    )
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--output", default=None, help="JSON file written by rank 0")
    parser.add_argument("--budget-s", type=float, default=30.0, help="seconds for the sweep")
    parser.add_argument("--max-bytes", type=int, default=None)
    parser.add_argument("--min-bytes", type=int, default=DEFAULT_MIN_BYTES)
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iters", type=int, default=5)
    # Local runs (desktopapp bench --suite allreduce): rank 0 streams JSON lines to stdout and
    # every rank stops before the next step once the stop file exists or its parent is gone.
    parser.add_argument("--jsonl", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--stop-file", default=None, help=argparse.SUPPRESS)
    parser.add_argument(BACKGROUND_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.background:  # started by the desktop app's window: below the GUI's priority
        lower_priority()
    if args.output is None and not args.jsonl:
        parser.error("--output FILE.json is required")
    rank = _env_int("RANK", "SLURM_PROCID")
    world = _env_int("WORLD_SIZE", "SLURM_NTASKS")
    local_rank = _env_int("LOCAL_RANK", "SLURM_LOCALID", default=0)
    per_node = _env_int("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE", default=world)
    os.environ.setdefault("MASTER_PORT", "29500")
    if "MASTER_ADDR" not in os.environ:
        raise SystemExit("collective: MASTER_ADDR is not set (the first node's host name)")
    try:
        config = CollectiveConfig(
            device=args.device,
            nproc=world,
            ops=tuple(o.strip() for o in args.ops.split(",") if o.strip()),
            min_bytes=args.min_bytes,
            budget_s=args.budget_s,
            max_bytes=args.max_bytes,
            warmup=args.warmup,
            iters=args.iters,
        )
    except ValueError as exc:
        parser.error(str(exc))
    stop_file = Path(args.stop_file) if args.stop_file else None
    parent = os.environ.get("DESKTOPAPP_PARENT_PID")

    def should_stop() -> bool:
        if stop_file is not None and stop_file.exists():
            return True
        return parent is not None and str(os.getppid()) != parent

    if args.jsonl:

        def stream(msg: dict[str, Any]) -> None:
            sys.stdout.write(json.dumps(msg) + "\n")
            sys.stdout.flush()

        run_rank(
            rank,
            world,
            config,
            init_method="env://",
            local_rank=local_rank,
            emit=stream,
            should_stop=should_stop,
        )
        return 0
    events: list[dict[str, Any]] = []
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()

    def emit(msg: dict[str, Any]) -> None:
        events.append(msg)
        if msg.get("kind") in ("progress", "warning"):
            print(msg["message"], file=sys.stderr, flush=True)
        elif msg.get("kind") == "result":
            row = msg["row"]
            print(
                f"{row['op']:>15} {row['bytes']:>12} B  {row['seconds'] * 1e6:10.1f} us  "
                f"algbw {row['algbw_gbs']:8.2f}  "
                + (
                    f"busbw {row['busbw_gbs']:8.2f} GB/s"
                    if row.get("busbw_gbs") is not None
                    else f"local copy {row.get('copy_gbs') or 0.0:8.2f} GB/s (one rank, "
                    "read + written; no bus traffic)"
                ),
                file=sys.stderr,
                flush=True,
            )

    run_rank(rank, world, config, init_method="env://", local_rank=local_rank, emit=emit)
    if rank != 0:
        return 0
    done = next((e for e in events if e["kind"] == "done"), {})
    device_name = "CPU"
    if args.device == "cuda":
        import torch

        device_name = torch.cuda.get_device_name(local_rank)
    run = CollectiveRun(
        config=config,
        results=tuple(
            CollectiveResult.from_dict(e["row"]) for e in events if e["kind"] == "result"
        ),
        warnings=tuple(e["message"] for e in events if e["kind"] == "warning"),
        started=started,
        seconds=time.perf_counter() - t0,
        cancelled=bool(done.get("cancelled")),
        world_size=world,
        backend=config.backend,
        versions=done.get("versions") or {},
        nodes=max(1, world // max(1, per_node)),
        gpus_per_node=per_node,
        hosts=(socket.gethostname(),),
        device_name=device_name,
    )
    path = Path(args.output)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(run.to_dict(), indent=2), encoding="utf-8")
    tmp.replace(path)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
