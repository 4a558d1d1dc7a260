"""Memory bandwidth: a device-to-device copy, and host↔device transfers on CUDA.

A copy reads and writes every byte, so its GB/s counts both (2 × buffer / time), the usual
convention for comparing with a datasheet's memory bandwidth. Transfers count the bytes moved
once. Pinned (page-locked) host memory is what data loaders with ``pin_memory=True`` use;
pageable memory is the default and usually slower.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from desktopapp.devices.bench.core import (
    BenchResult,
    Cancelled,
    CancelToken,
    EtaTracker,
    ProgressEvent,
    Timing,
    is_oom,
    time_op,
)
from desktopapp.devices.bench.target import (
    PCIE_GBS_PER_LANE,
    BenchDevice,
    empty_cache,
    free_memory_bytes,
    synchronizer,
)

MIB = 1024**2


def _copy_bytes(target: BenchDevice, quick: bool) -> int:
    wanted = (256 if target.kind == "cpu" else 1024) * MIB
    if quick:
        wanted //= 2 if target.kind == "cpu" else 4
    free = free_memory_bytes(target)
    if free is not None:
        wanted = min(wanted, int(free / 4))  # two buffers plus head-room
    return max(MIB, (wanted // MIB) * MIB)


def _result(
    target: BenchDevice,
    variant: str,
    nbytes: int,
    timing: Timing,
    moved: int,
    extra: dict[str, Any],
    peak_gbs: float | None,
) -> BenchResult:
    gbs = moved / timing.median_s / 1e9
    info = {
        "gb_per_s": gbs,
        "bytes_moved_per_op": moved,
        "repeats": timing.repeats,
        "min_s": timing.min_s,
        **extra,
    }
    pct = None
    if peak_gbs:
        info["peak_gbs"] = peak_gbs
        info["percent_of"] = extra.get("percent_of", "datasheet memory bandwidth")
        pct = 100.0 * gbs / peak_gbs
    return BenchResult(
        suite="bandwidth",
        device=target.spec,
        dtype="uint8",
        size=nbytes,
        tflops=None,
        seconds=timing.median_s,
        peak_tflops=None,
        percent_of_peak=pct,
        extra=info,
        variant=variant,
        metric="GB/s",
        value=gbs,
    )


def bandwidth_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
) -> Iterator[ProgressEvent]:
    """Device copy GB/s, then (CUDA) host→device and device→host, pinned and pageable."""
    transfers = target.kind == "cuda"
    eta = EtaTracker([budget_s] * (5 if transfers else 1))

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="bandwidth", **kw)

    nbytes = _copy_bytes(target, quick)
    yield event(f"memory copy {nbytes // MIB} MiB…")
    try:
        timing = _time_copy(target, nbytes, budget_s, token)
    except Cancelled:
        raise
    except Exception as exc:
        eta.step_done()
        kind = "out of memory" if is_oom(exc) else f"{type(exc).__name__}: {exc}"
        yield event("memory copy failed", warning=f"memory copy of {nbytes} bytes failed: {kind}")
        timing = None
    finally:
        empty_cache(target)
    if timing is not None:
        eta.step_done()
        result = _result(
            target,
            "device copy",
            nbytes,
            timing,
            2 * nbytes,
            {"counts": "bytes read + bytes written"},
            target.memory_bandwidth_gbs,
        )
        yield event(f"memory copy: {result.value:.1f} GB/s", result=result)
    if transfers:
        yield from _transfers(target, budget_s, quick, token, eta, event)
    yield ProgressEvent(1.0, "bandwidth done", 0.0, suite="bandwidth")


def _time_copy(
    target: BenchDevice, nbytes: int, budget_s: float, token: CancelToken | None
) -> Timing:
    if not target.torch_available:
        import numpy as np

        np_src = np.ones(nbytes, dtype=np.uint8)
        np_dst = np.empty_like(np_src)
        return time_op(
            lambda: np.copyto(np_dst, np_src), lambda: None, budget_s=budget_s, token=token
        )
    import torch

    device = torch.device(target.spec)
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    return time_op(lambda: dst.copy_(src), synchronizer(target), budget_s=budget_s, token=token)


def _transfers(
    target: BenchDevice,
    budget_s: float,
    quick: bool,
    token: CancelToken | None,
    eta: EtaTracker,
    event: Callable[..., ProgressEvent],
) -> Iterator[ProgressEvent]:
    import torch

    nbytes = (64 if quick else 256) * MIB
    device = torch.device(target.spec)
    sync = synchronizer(target)
    link = None
    if target.pcie is not None:
        gen, width = target.pcie
        per_lane = PCIE_GBS_PER_LANE.get(gen)
        if per_lane:
            link = per_lane * width
    for pinned in (True, False):
        kind = "pinned" if pinned else "pageable"
        try:
            host = torch.ones(nbytes, dtype=torch.uint8, pin_memory=pinned)
            dev = torch.empty(nbytes, dtype=torch.uint8, device=device)
        except Cancelled:
            raise
        except Exception as exc:
            for _ in range(2):
                eta.step_done()
            yield event(
                f"{kind} transfer skipped",
                warning=f"{kind} host memory of {nbytes} bytes could not be allocated ({exc})",
            )
            continue
        for direction in ("h2d", "d2h"):
            if token is not None:
                token.raise_if_cancelled()
            yield event(f"{direction} {kind} {nbytes // MIB} MiB…")
            if direction == "h2d":

                def op(dev: Any = dev, host: Any = host) -> object:
                    return dev.copy_(host, non_blocking=True)
            else:

                def op(dev: Any = dev, host: Any = host) -> object:
                    return host.copy_(dev, non_blocking=True)

            try:
                timing = time_op(op, sync, budget_s=budget_s, token=token)
            except Cancelled:
                raise
            except Exception as exc:
                eta.step_done()
                yield event(f"{direction} {kind} failed", warning=f"{direction} {kind}: {exc}")
                continue
            eta.step_done()
            extra: dict[str, Any] = {"host_memory": kind, "direction": direction}
            if link:
                extra["pcie_theoretical_gbs"] = link
                extra["percent_of"] = "PCIe link (current generation × width)"
            result = _result(target, f"{direction} {kind}", nbytes, timing, nbytes, extra, link)
            yield event(f"{direction} {kind}: {result.value:.1f} GB/s", result=result)
        del host, dev
        empty_cache(target)
