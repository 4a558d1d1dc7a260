"""Mixed precision at a size that fills the device: training steps per precision.

A small block on a big GPU measures kernel launches, not arithmetic: one transformer block at
batch 1-2 × seq 1024 on an H200 reached 56 TFLOP/s and made bf16 look 1.5-3× faster than fp32,
where a 1.36B model trains 9.25× faster. So the suite first **sizes the model to the device**:

1. It measures the matmul rate of each precision on a square matmul (a few tenths of a second).
2. It grows a decoder-style language model along :data:`LADDER` (width, layers, batch × seq),
   timing one step of each size in the *growth precision* (bf16 on CUDA, fp16 where bf16 is
   missing, on a CPU the faster of bf16 and fp32), and stops at the first size whose step
   reaches :data:`TARGET_SHARE` of that precision's measured matmul rate, or before a size
   that would not fit the memory budget (:data:`GPU_MEMORY_SHARE` of free device memory; on a
   CPU :data:`CPU_MEMORY_SHARE` of available RAM, at most :data:`CPU_MEMORY_CAP`) or the time
   budget (all precisions must get :data:`MIN_REPEATS` timed steps after a warm-up).
3. At that size it times :data:`MIN_REPEATS`-:data:`MAX_REPEATS` steps per precision after a
   warm-up: fp32 with TF32 off, TF32 (CUDA), bf16 and fp16 autocast (fp16 with GradScaler on
   CUDA), and reports tokens/s, achieved TFLOP/s (model FLOPs), MFU against the precision's
   peak where one is known, the model size, and speed-ups against fp32 and TF32.

The suite's time is ``budget_s ×`` :data:`BUDGET_FACTOR` (30 s at the default 2 s budget,
6 s with ``--quick``): a slow precision (bf16 on a CPU without native bf16 is 10× slower than
fp32) keeps the model small instead of being timed once.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.bench.core import (
    BenchResult,
    Cancelled,
    CancelToken,
    EtaTracker,
    ProgressEvent,
    is_oom,
    time_op,
)
from desktopapp.devices.bench.models import LmShape, make_lm_step
from desktopapp.devices.bench.target import (
    BenchDevice,
    empty_cache,
    free_memory_bytes,
    synchronizer,
    torch_dtype,
)

TARGET_SHARE = 0.55  # stop growing once a step reaches 55% of the measured matmul rate
MIN_REPEATS = 5  # timed steps per precision, after the warm-up
MAX_REPEATS = 10
BUDGET_FACTOR = 15.0  # the suite's time: budget_s × 15
SIZING_SHARE = 0.3  # of the suite's time for growing the model
GPU_MEMORY_SHARE = 0.75  # of free device memory for the estimated fp32 step
CPU_MEMORY_SHARE = 0.25  # of available RAM
CPU_MEMORY_CAP = 4 * 2**30

# Width, layers, heads, batch, seq, vocabulary: from a few-µs step to a 6.7B model.
LADDER: tuple[LmShape, ...] = (
    LmShape(128, 1, 2, 1, 64, 2048),
    LmShape(256, 2, 4, 1, 128, 4096),
    LmShape(256, 2, 4, 4, 256, 8192),
    LmShape(512, 4, 8, 4, 256, 16384),
    LmShape(512, 4, 8, 8, 512, 32000),
    LmShape(768, 8, 12, 4, 1024, 32000),
    LmShape(1024, 12, 16, 4, 2048, 32000),
    LmShape(1536, 16, 16, 8, 2048, 32000),
    LmShape(2048, 24, 16, 8, 2048, 32000),  # 1.34B, the yardstick model
    LmShape(2560, 32, 20, 8, 2048, 32000),
    LmShape(4096, 32, 32, 4, 2048, 32000),
)

_MATMUL_DTYPE = {"fp32": "fp32", "tf32": "tf32", "bf16": "bf16", "fp16": "fp16"}


def _variant(target: BenchDevice, mode: str) -> str:
    if mode == "fp32":
        return "TF32 off" if target.kind == "cuda" else ""
    if mode == "tf32":
        return "TF32 matmuls"
    return "autocast+GradScaler" if mode == "fp16" and target.kind == "cuda" else "autocast"


def amp_modes(target: BenchDevice) -> tuple[str, ...]:
    if target.kind == "cuda":
        try:
            import torch

            if torch.cuda.is_bf16_supported():
                return ("fp32", "tf32", "bf16", "fp16")
        except Exception:
            pass
        return ("fp32", "tf32", "fp16")
    if target.kind == "mps":
        return ("fp32", "fp16")
    return ("fp32", "bf16")


@contextlib.contextmanager
def precision(target: BenchDevice, mode: str) -> Iterator[None]:
    """TF32 on for ``tf32``, off otherwise (CUDA); restored afterwards."""
    if target.kind != "cuda":
        yield
        return
    import torch

    old = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    torch.backends.cudnn.allow_tf32 = mode == "tf32"
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old


# --- sizing (pure: the measurements come in as functions) ----------------------------------


@dataclass(frozen=True)
class Sizing:
    """The size chosen, its growth-precision step and why growing stopped."""

    shape: LmShape
    step_s: float
    tflops: float
    share: float  # the one-step sizing probe's share of the growth precision's matmul rate
    reason: str
    tried: tuple[tuple[LmShape, float], ...]


def predicted_seconds(step_s: float, slowdowns: Mapping[str, float]) -> float:
    """Seconds to time every precision at a size whose growth-precision step is ``step_s``:
    a warm-up and :data:`MIN_REPEATS` steps each, plus one for the model's construction."""
    return step_s * sum(slowdowns.values()) * (MIN_REPEATS + 2)


def choose_size(
    measure: Callable[[LmShape], float],
    *,
    matmul_tflops: float,
    slowdowns: Mapping[str, float],
    memory_budget: float,
    time_budget_s: float,
    ladder: Sequence[LmShape] = LADDER,
    clock: Callable[[], float] = time.perf_counter,
    on_step: Callable[[LmShape, float], None] | None = None,
    precision: str = "",
    rate_source: str = "the measured matmul rate",
) -> Sizing:
    """Grow along ``ladder`` until a step reaches :data:`TARGET_SHARE` of ``matmul_tflops``.

    ``measure(shape)`` returns seconds per step in the growth precision (it may raise an
    out-of-memory error, which stops growing). ``slowdowns`` predicts each precision's step
    time as a multiple of the growth precision's. The chosen size leaves
    ``time_budget_s × (1 - SIZING_SHARE)`` for timing all precisions; growing itself may use
    ``time_budget_s × SIZING_SHARE``. The reason says what was compared: one step in
    ``precision`` (a probe, not the timed steps) against ``rate_source`` at ``matmul_tflops``.
    """
    start = clock()
    sizing_budget = time_budget_s * SIZING_SHARE
    timing_budget = time_budget_s * (1 - SIZING_SHARE)
    tried: list[tuple[LmShape, float]] = []
    best: tuple[LmShape, float] | None = None
    reason = "the largest size in the ladder"
    for shape in ladder:
        if best is not None and shape.memory_bytes() > memory_budget:
            reason = (
                f"memory: the next size needs about {shape.memory_bytes() / 2**30:,.1f} GiB, "
                f"over the {memory_budget / 2**30:,.1f} GiB budget"
            )
            break
        if best is not None:
            predicted = best[1] * shape.flop_per_step / best[0].flop_per_step
            if clock() - start + 3 * predicted > sizing_budget:
                reason = "time: growing further would not fit the sizing time"
                break
            if predicted_seconds(predicted, slowdowns) > timing_budget:
                reason = (
                    f"time: the next size would not fit {MIN_REPEATS} timed steps per "
                    f"precision in {timing_budget:,.1f} s"
                )
                break
        try:
            seconds = measure(shape)
        except Cancelled:
            raise
        except Exception as exc:
            if best is None or not is_oom(exc):
                raise
            reason = f"memory: out of memory at {shape.describe()}"
            break
        tried.append((shape, seconds))
        if on_step is not None:
            on_step(shape, seconds)
        if best is not None and predicted_seconds(seconds, slowdowns) > timing_budget:
            reason = (
                f"time: a larger size would not fit {MIN_REPEATS} timed steps per precision "
                f"in {timing_budget:,.1f} s"
            )
            break
        best = (shape, seconds)
        share = shape.flop_per_step / seconds / 1e12 / matmul_tflops if matmul_tflops else 0
        if share >= TARGET_SHARE:
            reason = (
                f"compute-bound: one{f' {precision}' if precision else ''} sizing step reached "
                f"{share:.0%} of {rate_source} ({matmul_tflops:,.0f} TFLOP/s; the target is "
                f"{TARGET_SHARE:.0%})"
            )
            break
    assert best is not None  # the first size is always measured (or measure raised)
    shape, seconds = best
    tflops = shape.flop_per_step / seconds / 1e12
    share = tflops / matmul_tflops if matmul_tflops else math.nan
    return Sizing(shape, seconds, tflops, share, reason, tuple(tried))


# --- the suite ------------------------------------------------------------------------------


def _matmul_n(target: BenchDevice) -> int:
    # 8192 on a GPU: the size the matmul suite's best figure comes from (on an H200 a 4096
    # probe of 0.15 s read 446 TFLOP/s against the suite's 785: clocks still ramping up)
    return 384 if target.kind == "cpu" else 8192


def _matmul_budget_s(target: BenchDevice) -> float:
    """Long enough on a GPU for its clocks to leave idle before the samples count."""
    return 0.15 if target.kind == "cpu" else 0.6


def _matmul_rate(target: BenchDevice, mode: str, token: CancelToken | None) -> float:
    """TFLOP/s of a square matmul in ``mode``'s arithmetic (median of a short timing)."""
    import torch

    n = _matmul_n(target)
    dtype = torch_dtype(_MATMUL_DTYPE[mode])
    with precision(target, mode):
        a = torch.randn(n, n, device=target.spec, dtype=dtype)
        b = torch.randn(n, n, device=target.spec, dtype=dtype)
        timing = time_op(
            lambda: a @ b,
            synchronizer(target),
            budget_s=_matmul_budget_s(target),
            token=token,
            warmups=4,
            min_sample_s=0.005 if target.kind == "cpu" else 0.02,
        )
    return 2.0 * n**3 / timing.median_s / 1e12


def _memory_budget(target: BenchDevice) -> float:
    free = free_memory_bytes(target)
    if target.kind == "cpu":
        free = free if free is not None else 8 * 2**30
        return min(free * CPU_MEMORY_SHARE, CPU_MEMORY_CAP)
    if free is None:
        free = target.memory_bytes or 8 * 2**30
    return free * GPU_MEMORY_SHARE


@dataclass
class _Timed:
    median_s: float
    best_s: float
    samples: tuple[float, ...]
    loss: float


def _time_steps(
    target: BenchDevice,
    shape: LmShape,
    mode: str,
    *,
    budget_s: float,
    token: CancelToken | None,
    min_repeats: int,
    warmups: int = 1,
) -> _Timed:
    """Build the model, warm up, then time ``min_repeats``…MAX_REPEATS single steps."""
    sync = synchronizer(target)
    with precision(target, mode):
        train = make_lm_step(target, shape, mode)
        start = time.perf_counter()
        for _ in range(warmups):
            train.step()
        sync()
        samples: list[float] = []
        loss: Any = None
        while len(samples) < MAX_REPEATS:
            if token is not None:
                token.raise_if_cancelled()
            t0 = time.perf_counter()
            loss = train.step()
            sync()
            samples.append(time.perf_counter() - t0)
            if len(samples) >= min_repeats and time.perf_counter() - start > budget_s:
                break
        value = float(loss.detach()) if loss is not None else math.nan
    del train
    return _Timed(statistics.median(samples), min(samples), tuple(samples), value)


def amp_suite(
    target: BenchDevice,
    *,
    budget_s: float = 2.0,
    quick: bool = False,
    token: CancelToken | None = None,
    modes: tuple[str, ...] | None = None,
    ladder: Sequence[LmShape] = LADDER,
) -> Iterator[ProgressEvent]:
    """Training-step throughput per precision at a model size chosen for this device."""
    modes = modes or amp_modes(target)
    total_s = max(budget_s, 0.02) * BUDGET_FACTOR
    eta = EtaTracker(
        [0.1 * total_s, SIZING_SHARE * total_s] + [0.6 * total_s / len(modes)] * len(modes)
    )

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="amp", **kw)

    # 1. matmul rate per precision (what "compute-bound" and the slow-downs are measured against)
    yield event("amp: matmul rate per precision…")
    rates: dict[str, float] = {}
    for mode in modes:
        if token is not None:
            token.raise_if_cancelled()
        try:
            rates[mode] = _matmul_rate(target, mode, token)
        except Cancelled:
            raise
        except Exception as exc:
            yield event(f"amp {mode}: no matmul", warning=f"amp {mode}: matmul failed ({exc})")
    eta.step_done()
    if not rates:
        yield ProgressEvent(1.0, "amp done", 0.0, suite="amp")
        return
    reduced = [m for m in modes if m in ("bf16", "fp16") and m in rates]
    candidates = reduced if target.kind != "cpu" else [*reduced, "fp32"]
    growth = max(candidates or list(rates), key=lambda m: rates.get(m, 0.0))
    if "bf16" in candidates and rates["bf16"] >= 0.9 * rates[growth]:
        growth = "bf16"  # bf16 and fp16 run alike on tensor cores: size in bf16, as stated
    slowdowns = {
        m: min(max(rates[growth] / rates[m], 0.3), 200.0) if m in rates else 1.0 for m in modes
    }

    # 2. grow the model in the growth precision
    yield event(f"amp: sizing the model in {growth}…")
    sized: list[str] = []

    def measure(shape: LmShape) -> float:
        if token is not None:
            token.raise_if_cancelled()
        try:
            timed = _time_steps(
                target, shape, growth, budget_s=0.0, token=token, min_repeats=1, warmups=1
            )
        finally:
            empty_cache(target)
        return timed.median_s

    try:
        sizing = choose_size(
            measure,
            matmul_tflops=rates[growth],
            slowdowns=slowdowns,
            memory_budget=_memory_budget(target),
            time_budget_s=total_s,
            ladder=ladder,
            precision=growth,
            rate_source=f"this suite's {growth} {_matmul_n(target)}×{_matmul_n(target)} matmul",
            on_step=lambda shape, s: sized.append(
                f"{shape.describe()}: {shape.flop_per_step / s / 1e12:.3g} TFLOP/s"
            ),
        )
    except Cancelled:
        raise
    except Exception as exc:
        yield event("amp failed", warning=f"amp: the smallest model failed in {growth} ({exc})")
        yield ProgressEvent(1.0, "amp done", 0.0, suite="amp")
        return
    eta.step_done()
    shape = sizing.shape
    yield event(
        f"amp: measuring at {shape.describe()} ({sizing.reason})",
    )

    # 3. time every precision at that size
    timing_budget = total_s * (1 - SIZING_SHARE)
    weight = sum(slowdowns.values())
    timed: dict[str, _Timed] = {}
    results: dict[str, BenchResult] = {}
    for mode in modes:
        if token is not None:
            token.raise_if_cancelled()
        yield event(f"amp {mode}: timing {MIN_REPEATS}+ training steps…")
        try:
            t = _time_steps(
                target,
                shape,
                mode,
                budget_s=timing_budget * slowdowns[mode] / weight,
                token=token,
                min_repeats=MIN_REPEATS,
            )
        except Cancelled:
            raise
        except Exception as exc:
            eta.step_done()
            yield event(f"amp {mode} failed", warning=f"amp {mode}: training step failed ({exc})")
            continue
        finally:
            empty_cache(target)
        eta.step_done()
        timed[mode] = t
        result = _result(target, shape, mode, t, timed, sizing, growth, rates)
        results[mode] = result
        speed = result.extra.get("speedup_vs_fp32")
        yield event(
            f"amp {mode}: {result.extra['tokens_per_s']:,.0f} tokens/s"
            + (f", {speed:.2f}× fp32" if speed is not None else ""),
            result=result,
        )
    finding = _finding(target, shape, results)
    if finding:
        yield event("amp: finding", warning=finding)
    yield ProgressEvent(1.0, "amp done", 0.0, suite="amp")


def _result(
    target: BenchDevice,
    shape: LmShape,
    mode: str,
    t: _Timed,
    timed: Mapping[str, _Timed],
    sizing: Sizing,
    growth: str,
    rates: Mapping[str, float],
) -> BenchResult:
    seconds = t.median_s
    tflops = shape.flop_per_step / seconds / 1e12
    peak = target.peak(_MATMUL_DTYPE[mode])
    extra: dict[str, Any] = {
        "model": shape.describe(),
        "shape": shape.to_dict(),
        "params": shape.params,
        "batch": shape.batch,
        "seq": shape.seq,
        "tokens_per_s": shape.tokens / seconds,
        "tokens_per_s_best": shape.tokens / t.best_s,
        "tflops_best": shape.flop_per_step / t.best_s / 1e12,
        "flop_per_step": shape.flop_per_step,
        "repeats": len(t.samples),
        "spread_pct": (max(t.samples) - min(t.samples)) / seconds * 100.0,
        "loss_finite": math.isfinite(t.loss),
        "optimizer": "AdamW",
        "matmul_tflops": rates.get(mode),
        # the timed steps' share of this precision's matmul rate (the figure a reader checks)
        "matmul_share": tflops / rates[mode] if rates.get(mode) else None,
        "growth_precision": growth,
        "sizing": sizing.reason,
        # what the sizing sentence states: one growth-precision probe step, not the timed ones
        "sizing_share": sizing.share,
        "target_share": TARGET_SHARE,
    }
    if peak:
        extra["mfu"] = tflops / peak
    if mode != "fp32" and "fp32" in timed:
        extra["speedup_vs_fp32"] = timed["fp32"].median_s / seconds
    if mode not in ("fp32", "tf32") and "tf32" in timed:
        extra["speedup_vs_tf32"] = timed["tf32"].median_s / seconds
    return BenchResult(
        suite="amp",
        device=target.spec,
        dtype=mode,
        size=shape.tokens,
        tflops=tflops,
        seconds=seconds,
        peak_tflops=peak,
        percent_of_peak=tflops / peak * 100 if peak else None,
        extra=extra,
        variant=_variant(target, mode),
        metric="tokens/s",
        value=shape.tokens / seconds,
    )


def _finding(target: BenchDevice, shape: LmShape, results: Mapping[str, BenchResult]) -> str:
    """One sentence: the best reduced precision against fp32 (and TF32), naming the size."""
    if "fp32" not in results:
        return ""
    for mode, result in results.items():
        if result.extra.get("loss_finite") is False:
            return f"amp {mode}: the loss became inf/NaN: this mode is not numerically safe here"
    reduced = [r for m, r in results.items() if m in ("bf16", "fp16")]
    if not reduced:
        return ""
    best = max(reduced, key=lambda r: r.value or 0.0)
    speedup = float(best.extra.get("speedup_vs_fp32") or math.nan)
    at = f"at {shape.describe()}"
    figures = f"{best.extra['tokens_per_s']:,.0f} tokens/s, {best.tflops:,.3g} TFLOP/s"
    if "mfu" in best.extra:
        figures += f", {best.extra['mfu']:.0%} MFU"
    if speedup < 0.9:
        why = ""
        if target.kind == "cpu" and best.dtype == "bf16" and target.native_bf16 is False:
            why = " (no native bf16 on this CPU)"
        return (
            f"{best.dtype} autocast made the training step {1 / speedup:.1f}× slower than "
            f"fp32{why} {at}: mixed precision would slow training down here"
        )
    vs_tf32 = best.extra.get("speedup_vs_tf32")
    tf32 = f" and {vs_tf32:.2f}× faster than TF32" if vs_tf32 else ""
    if speedup > 1.15:
        return (
            f"{best.dtype} autocast trains {speedup:.2f}× faster than fp32{tf32} {at} ({figures})"
        )
    return f"{best.dtype} autocast gives about the fp32 speed ({speedup:.2f}×) {at} ({figures})"
