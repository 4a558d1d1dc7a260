"""Mixed precision: one training step of a small transformer block in fp32 and under autocast.

bf16 autocast on CPU/CUDA (and XPU), fp16 autocast with GradScaler on CUDA/MPS. The speed-up
is measured on this device: on a CPU without native bf16 autocast makes training *slower*,
and the suite says so.

Every mode is first probed on a short sequence at batch 1 (a few hundred µs of work on a fast
device, a fraction of a second on a CPU without bf16) and the batch is then chosen so that one
step stays well
inside the time budget (a slow mode cannot stall the run, and cancel stays responsive).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
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
from desktopapp.devices.bench.models import (
    BlockShape,
    block_shape,
    count_flops,
    make_training_step,
)
from desktopapp.devices.bench.target import BenchDevice, empty_cache, synchronizer


def _variant(target: BenchDevice, mode: str) -> str:
    if mode == "fp32":
        return ""
    return "autocast+GradScaler" if mode == "fp16" and target.kind == "cuda" else "autocast"


def amp_modes(target: BenchDevice) -> tuple[str, ...]:
    if target.kind == "cuda":
        try:
            import torch

            if torch.cuda.is_bf16_supported():
                return ("fp32", "bf16", "fp16")
        except Exception:
            pass
        return ("fp32", "fp16")
    if target.kind == "mps":
        return ("fp32", "fp16")
    return ("fp32", "bf16")


def _probe(target: BenchDevice, shape: BlockShape, mode: str) -> float:
    """Seconds for one step at ``shape`` (second call, after a warm-up)."""
    import time

    sync = synchronizer(target)
    train = make_training_step(target, shape, mode)
    train.step()
    sync()
    start = time.perf_counter()
    train.step()
    sync()
    return time.perf_counter() - start


def amp_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
    modes: tuple[str, ...] | None = None,
) -> Iterator[ProgressEvent]:
    """Training-step time per precision mode and the speed-up over fp32."""
    modes = modes or amp_modes(target)
    shape = block_shape(target, quick)
    eta = EtaTracker([budget_s * 0.3] * len(modes) + [budget_s] * len(modes))

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="amp", **kw)

    probes: dict[str, float] = {}  # seconds per step at ``probe_shape``
    probe_shape = BlockShape(shape.d_model, shape.heads, shape.ff, min(shape.seq, 32), 1)
    for mode in modes:
        if token is not None:
            token.raise_if_cancelled()
        yield event(f"amp: probing {mode} at batch 1…")
        try:
            probes[mode] = _probe(target, probe_shape, mode)
        except Cancelled:
            raise
        except Exception as exc:
            yield event(f"amp {mode} failed", warning=f"amp {mode}: training step failed ({exc})")
        finally:
            empty_cache(target)
        eta.step_done()
    if "fp32" not in probes:
        yield ProgressEvent(1.0, "amp done", 0.0, suite="amp")
        return
    # Predicted step time scales with tokens; one step may use at most a quarter of the budget
    # so that warm-up and ≥3 samples fit.
    per_row = {m: t * shape.seq / probe_shape.seq for m, t in probes.items()}  # batch-1 step
    slowest = max(per_row.values())
    batch = max(1, min(shape.batch, int(budget_s / 4 / max(slowest, 1e-6))))
    if batch < shape.batch:
        batch = 2 ** int(math.log2(batch))
    run_shape = shape.with_batch(batch)
    flops = None
    timings: dict[str, Timing] = {}
    for mode in modes:
        if mode not in probes:
            eta.step_done()
            continue
        if token is not None:
            token.raise_if_cancelled()
        if per_row[mode] * batch > budget_s:
            # Too slow to time repeatedly: report the probe (one step after a warm-up),
            # compared with fp32's probe of the same shape.
            eta.step_done()
            timing = Timing(probes[mode], probes[mode], (probes[mode],), 1, probes[mode], 0, True)
            speedup = probes["fp32"] / probes[mode] if mode != "fp32" else None
            result = _result(target, probe_shape, mode, timing, None, speedup, math.nan, probe=True)
            yield event(
                f"amp {mode}: {probes[mode]:.2g} s per step of {probe_shape.tokens} tokens "
                "(probe only)",
                result=result,
                warning=(
                    f"amp {mode}: one step of {probe_shape.tokens} tokens took "
                    f"{probes[mode]:.2g} s; a full step would exceed the {budget_s:g} s budget, "
                    "so this is reported from a single timed step"
                ),
            )
            finding = _finding(target, mode, result)
            if finding:
                yield event(f"amp {mode}: finding", warning=finding)
            continue
        yield event(f"amp {mode}: timing training steps ({run_shape.describe()})…")
        try:
            train = make_training_step(target, run_shape, mode)
            if flops is None:
                flops = count_flops(train.step)
            timing = time_op(
                train.step, synchronizer(target), budget_s=budget_s, token=token, max_repeats=10
            )
            loss = float(train.step().item())
        except Cancelled:
            raise
        except Exception as exc:
            eta.step_done()
            yield event(f"amp {mode} failed", warning=f"amp {mode}: training step failed ({exc})")
            continue
        finally:
            empty_cache(target)
        timings[mode] = timing
        eta.step_done()
        speedup = None
        if mode != "fp32":
            if "fp32" in timings:
                speedup = timings["fp32"].median_s / timing.median_s
            else:  # fp32 was only probed: compare the batch-1 probes
                speedup = probes["fp32"] / probes[mode]
        result = _result(target, run_shape, mode, timing, flops, speedup, loss)
        yield event(
            f"amp {mode}: {result.seconds * 1000:.1f} ms/step"
            + (
                f", {result.extra['speedup_vs_fp32']:.2f}× fp32"
                if "speedup_vs_fp32" in result.extra
                else ""
            ),
            result=result,
        )
        finding = _finding(target, mode, result)
        if finding:
            yield event(f"amp {mode}: finding", warning=finding)
    yield ProgressEvent(1.0, "amp done", 0.0, suite="amp")


def _result(
    target: BenchDevice,
    shape: BlockShape,
    mode: str,
    timing: Timing,
    flops: float | None,
    speedup: float | None,
    loss: float,
    probe: bool = False,
) -> BenchResult:
    seconds = timing.median_s
    tflops = flops / seconds / 1e12 if flops else None
    extra: dict[str, Any] = {
        "model": shape.describe(),
        "tokens_per_s": shape.tokens / seconds,
        "flop_per_step": flops,
        "repeats": timing.repeats,
        "loss_finite": None if probe else math.isfinite(loss),
        "optimizer": "AdamW",
    }
    if probe:
        extra["probe_only"] = True
    if speedup is not None:
        extra["speedup_vs_fp32"] = speedup
    return BenchResult(
        suite="amp",
        device=target.spec,
        dtype=mode,
        size=shape.tokens,
        tflops=tflops,
        seconds=seconds,
        peak_tflops=None,
        percent_of_peak=None,
        extra=extra,
        variant=_variant(target, mode),
        metric="tokens/s",
        value=shape.tokens / seconds,
    )


def _finding(target: BenchDevice, mode: str, result: BenchResult) -> str:
    speedup = result.extra.get("speedup_vs_fp32")
    if speedup is None:
        return ""
    if result.extra.get("loss_finite") is False:
        return f"amp {mode}: the loss became inf/NaN: this mode is not numerically safe here"
    if speedup < 0.9:
        why = ""
        if target.kind == "cpu" and mode == "bf16" and target.native_bf16 is False:
            why = " (no native bf16 on this CPU)"
        return (
            f"{mode} autocast made the training step {1 / speedup:.1f}× slower than fp32{why}: "
            "mixed precision would slow training down here"
        )
    if speedup > 1.15:
        return f"{mode} autocast speeds the training step up {speedup:.2f}× over fp32 here"
    return f"{mode} autocast gives about the fp32 speed here ({speedup:.2f}×)"
