"""Inference batching curve (throughput and latency vs batch) and dynamic int8 quantization.

Batching: an MLP in ``torch.inference_mode`` for batch 1, 2, 4 … 256; the batch doubles while
the predicted time of the next one stays inside the budget. Quantization (CPU only):
``torch.ao.quantization.quantize_dynamic`` turns the Linear layers to int8; the suite reports
the speed-up and the output error against fp32.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from desktopapp.devices.bench.core import (
    BenchResult,
    Cancelled,
    CancelToken,
    EtaTracker,
    ProgressEvent,
    Timing,
    time_op,
)
from desktopapp.devices.bench.models import make_mlp, parameter_count
from desktopapp.devices.bench.target import BenchDevice, empty_cache, synchronizer

BATCHES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def _mlp_size(target: BenchDevice, quick: bool) -> tuple[int, int]:
    """(hidden width, input/output width)."""
    if target.kind == "cpu":
        return (1024, 256) if quick else (2048, 512)
    return (4096, 1024)


def _inference_result(
    suite: str,
    target: BenchDevice,
    dtype: str,
    batch: int,
    timing: Timing,
    params: int,
    extra: dict[str, Any],
    variant: str = "",
) -> BenchResult:
    seconds = timing.median_s
    flops = 2.0 * params * batch
    return BenchResult(
        suite=suite,
        device=target.spec,
        dtype=dtype,
        size=batch,
        tflops=flops / seconds / 1e12,
        seconds=seconds,
        peak_tflops=None,
        percent_of_peak=None,
        extra={
            "latency_ms": seconds * 1000.0,
            "samples_per_s": batch / seconds,
            "parameters": params,
            "repeats": timing.repeats,
            **extra,
        },
        variant=variant,
        metric="samples/s",
        value=batch / seconds,
    )


def batching_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
    batches: Sequence[int] = BATCHES,
) -> Iterator[ProgressEvent]:
    """Throughput (samples/s) and latency per batch size of an MLP's forward pass."""
    import torch

    width, io = _mlp_size(target, quick)
    step_budget = budget_s / 2 if quick else budget_s
    eta = EtaTracker([step_budget * 0.3] * len(batches))

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="batching", **kw)

    model = make_mlp(target, width, io)
    params = parameter_count(model)
    device = torch.device(target.spec)
    sync = synchronizer(target)
    measured: dict[int, BenchResult] = {}
    prev: tuple[int, float] | None = None
    try:
        for index, batch in enumerate(batches):
            if token is not None:
                token.raise_if_cancelled()
            if prev is not None and 2 * prev[1] * batch / prev[0] > step_budget:
                for _ in range(len(batches) - index):
                    eta.step_done()
                yield event(
                    f"batching: stopped at batch {prev[0]}",
                    warning=(
                        f"batching: batch {batch} and up skipped: predicted over the "
                        f"{step_budget:g} s budget"
                    ),
                )
                break
            yield event(f"batching: batch {batch}…")
            x = torch.randn(batch, io, device=device)

            def forward(x: Any = x, net: Any = model) -> Any:
                with torch.inference_mode():
                    return net(x)

            timing = time_op(forward, sync, budget_s=step_budget, token=token, max_repeats=10)
            eta.step_done()
            result = _inference_result(
                "batching",
                target,
                "fp32",
                batch,
                timing,
                params,
                {"model": f"MLP {io}→{width}→{width}→{io}"},
            )
            measured[batch] = result
            prev = (batch, timing.median_s)
            yield event(
                f"batching: batch {batch}: {result.value:.0f} samples/s, "
                f"{result.extra['latency_ms']:.2f} ms",
                result=result,
            )
    finally:
        empty_cache(target)
    if len(measured) >= 2:
        first, last = measured[min(measured)], measured[max(measured)]
        gain = (last.value or 0) / (first.value or 1)
        yield event(
            "batching: summary",
            warning=(
                f"batching: throughput grows {gain:.1f}× from batch {first.size} to {last.size} "
                f"while latency goes from {first.extra['latency_ms']:.2f} ms to "
                f"{last.extra['latency_ms']:.2f} ms"
            ),
        )
    yield ProgressEvent(1.0, "batching done", 0.0, suite="batching")


def quantization_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
    batch: int = 64,
) -> Iterator[ProgressEvent]:
    """fp32 vs dynamic-int8 forward pass of a Linear-heavy MLP on the CPU."""
    eta = EtaTracker([budget_s * 0.2, budget_s, budget_s])

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="quantization", **kw)

    if target.kind != "cpu":
        yield ProgressEvent(
            1.0,
            "quantization skipped",
            0.0,
            warning=(
                "quantization: dynamic int8 quantization runs on the CPU only (use --device cpu)"
            ),
            suite="quantization",
        )
        return
    import torch

    width, io = _mlp_size(target, quick)
    model = make_mlp(target, width, io)
    params = parameter_count(model)
    yield event("quantization: converting Linear layers to int8…")
    try:
        with warnings.catch_warnings():  # torch.ao.quantization is deprecated in favour of torchao
            warnings.simplefilter("ignore")
            from torch.ao.quantization import quantize_dynamic

            qmodel = quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    except Cancelled:
        raise
    except Exception as exc:
        yield ProgressEvent(
            1.0,
            "quantization failed",
            0.0,
            warning=f"quantization: quantize_dynamic failed ({type(exc).__name__}: {exc})",
            suite="quantization",
        )
        return
    eta.step_done()
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(batch, io, generator=gen)
    with torch.inference_mode():
        reference = model(x)
        quantized = qmodel(x)
    error = float(torch.linalg.norm(quantized - reference) / torch.linalg.norm(reference))
    timings: dict[str, Timing] = {}
    results: dict[str, BenchResult] = {}
    for dtype, net in (("fp32", model), ("int8", qmodel)):
        if token is not None:
            token.raise_if_cancelled()
        yield event(f"quantization: {dtype} forward, batch {batch}…")

        def forward(net: Any = net) -> Any:
            with torch.inference_mode():
                return net(x)

        timing = time_op(forward, lambda: None, budget_s=budget_s, token=token, max_repeats=10)
        timings[dtype] = timing
        eta.step_done()
        extra: dict[str, Any] = {"model": f"MLP {io}→{width}→{width}→{io}"}
        if dtype == "int8":
            extra.update(
                {
                    "speedup_vs_fp32": timings["fp32"].median_s / timing.median_s,
                    "relative_output_error": error,
                    "weights_bytes_fp32": params * 4,
                    "weights_bytes_int8_approx": params,
                    "method": "torch.ao.quantization.quantize_dynamic (qint8, Linear)",
                }
            )
        result = _inference_result(
            "quantization",
            target,
            dtype,
            batch,
            timing,
            params,
            extra,
            variant="dynamic" if dtype == "int8" else "",
        )
        results[dtype] = result
        yield event(f"quantization {dtype}: {result.extra['latency_ms']:.2f} ms", result=result)
    speedup = results["int8"].extra["speedup_vs_fp32"]
    verdict = "faster" if speedup > 1.05 else ("slower" if speedup < 0.95 else "about as fast")
    finite = math.isfinite(error)
    yield event(
        "quantization: summary",
        warning=(
            f"dynamic int8 quantization: {speedup:.2f}× the fp32 speed ({verdict}) at batch "
            f"{batch}, relative output error {error:.2%}"
            + ("" if finite else " (non-finite output!)")
            + f", weights about {params * 4 / 2**20:.0f} → {params / 2**20:.0f} MiB"
        ),
    )
    yield ProgressEvent(1.0, "quantization done", 0.0, suite="quantization")
