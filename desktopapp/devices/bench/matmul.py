"""Matrix-multiply throughput: a size sweep per dtype, % of peak, adaptive to a time budget.

For each dtype the sweep grows the matrix side until a step would exceed its budget: the time
of the next size is predicted from the previous one (×8 per doubling) and a size predicted to
be over budget is skipped, so one slow dtype (bf16 on a CPU without native bf16 can be 100×
slower than fp32) cannot stall the run. Out-of-memory backs off to smaller sizes and reports the
largest size that fit.

The arithmetic runs in a *backend*: :class:`TorchMatmul` (any torch device) or
:class:`NumpyMatmul` (fp32 on the CPU when torch is missing). Tests inject their own backend to
simulate out-of-memory or failures.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from desktopapp.devices.bench.core import (
    BenchResult,
    Cancelled,
    CancelToken,
    EtaTracker,
    ProgressEvent,
    Timing,
    is_oom,
    percent,
    time_op,
)
from desktopapp.devices.bench.target import (
    BYTES_PER_ELEMENT,
    BenchDevice,
    empty_cache,
    free_memory_bytes,
    synchronizer,
    torch_dtype,
)

DEFAULT_SIZES: tuple[int, ...] = (256, 512, 1024, 2048, 4096, 8192)
QUICK_CPU_SIZES: tuple[int, ...] = (256, 512, 1024, 2048)
QUICK_GPU_SIZES: tuple[int, ...] = (1024, 2048, 4096, 8192)


class MatmulBackend(Protocol):
    name: str

    def unsupported(self, dtype: str) -> str | None:
        """None when ``dtype`` can be measured, else why not (plain language)."""
        ...

    def prepare(self, n: int, dtype: str, transposed: bool = False) -> Callable[[], object]:
        """Allocate operands for an n×n×n product and return the operation to time."""
        ...

    def mode(self, dtype: str) -> contextlib.AbstractContextManager[None]:
        """Context in which ``dtype`` is measured (tf32 switches, restored afterwards)."""
        ...

    def sync(self) -> None: ...

    def release(self) -> None:
        """Drop operands and cached device memory."""
        ...

    def bytes_needed(self, n: int, dtype: str) -> float: ...

    def free_bytes(self) -> float | None: ...

    def threads(self) -> int | None: ...


class TorchMatmul:
    """torch.mm (``torch._scaled_mm`` for fp8) on a torch device."""

    name = "torch"

    def __init__(self, target: BenchDevice) -> None:
        self.target = target
        self._sync = synchronizer(target)
        self._keep: list[Any] = []

    def unsupported(self, dtype: str) -> str | None:
        import torch

        kind = self.target.kind
        if dtype == "tf32":
            if kind != "cuda" or torch.version.hip:
                return "tf32 is an NVIDIA tensor-core mode (CUDA only); fp32 is measured instead"
            if self.target.compute_capability and self.target.compute_capability < (8, 0):
                return "tf32 needs compute capability 8.0 (Ampere) or newer"
        if dtype == "bf16" and kind == "cuda":
            try:
                if not torch.cuda.is_bf16_supported():
                    return "bf16 needs compute capability 8.0 (Ampere) or newer"
            except Exception as exc:
                return f"bf16 support unknown ({exc})"
        if dtype == "fp8":
            if kind != "cuda" or torch.version.hip:
                return "fp8 matmul needs an NVIDIA GPU with compute capability 8.9+ (Ada/Hopper)"
            if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
                return f"this torch ({torch.__version__}) has no fp8 matmul (torch._scaled_mm)"
            if self.target.compute_capability and self.target.compute_capability < (8, 9):
                cc = self.target.compute_capability
                return (
                    f"fp8 needs compute capability 8.9+ (Ada/Hopper); this GPU is {cc[0]}.{cc[1]}"
                )
        return None

    def prepare(self, n: int, dtype: str, transposed: bool = False) -> Callable[[], object]:
        import torch

        device = torch.device(self.target.spec)
        gen = torch.Generator(device="cpu").manual_seed(n)
        a32 = torch.randn(n, n, generator=gen).to(device)
        b32 = torch.randn(n, n, generator=gen).to(device)
        if dtype == "fp8":
            fp8 = torch_dtype("fp8")
            a = a32.to(fp8)
            b = b32.to(fp8).t()  # _scaled_mm wants the second operand column-major
            del a32, b32
            scale = torch.ones((), device=device, dtype=torch.float32)
            self._keep = [a, b, scale]

            def run_fp8() -> object:
                return torch._scaled_mm(
                    a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16
                )

            return run_fp8
        tdtype = torch_dtype(dtype)
        a = a32.to(tdtype)
        b = b32.to(tdtype)
        del a32, b32
        if transposed:
            b = b.t()  # a @ b.T as nn.Linear computes x @ W.T
        out = torch.empty((n, n), device=device, dtype=tdtype)
        self._keep = [a, b, out]
        mm = torch.mm

        def run() -> object:
            return mm(a, b, out=out)

        return run

    @contextlib.contextmanager
    def mode(self, dtype: str) -> Iterator[None]:
        import torch

        previous = torch.get_float32_matmul_precision()
        cudnn_tf32 = torch.backends.cudnn.allow_tf32
        try:
            torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
            yield
        finally:
            torch.set_float32_matmul_precision(previous)
            torch.backends.cudnn.allow_tf32 = cudnn_tf32

    def sync(self) -> None:
        self._sync()

    def release(self) -> None:
        self._keep = []
        empty_cache(self.target)

    def bytes_needed(self, n: int, dtype: str) -> float:
        elem = BYTES_PER_ELEMENT[dtype]
        out = 2 if dtype == "fp8" else elem
        return float(n * n * (2 * elem + out + 4 * 2))  # + the fp32 sources while converting

    def free_bytes(self) -> float | None:
        return free_memory_bytes(self.target)

    def threads(self) -> int | None:
        if self.target.kind != "cpu":
            return None
        import torch

        return int(torch.get_num_threads())


class NumpyMatmul:
    """fp32 matmul through numpy's BLAS: the CPU fallback when torch is missing."""

    name = "numpy"

    def __init__(self) -> None:
        self._keep: list[Any] = []

    def unsupported(self, dtype: str) -> str | None:
        if dtype == "fp32":
            return None
        return f"the numpy fallback measures fp32 only ({dtype} needs torch)"

    def prepare(self, n: int, dtype: str, transposed: bool = False) -> Callable[[], object]:
        import numpy as np

        rng = np.random.default_rng(n)
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        if transposed:
            b = b.T
        out = np.empty((n, n), dtype=np.float32)
        self._keep = [a, b, out]
        matmul = np.matmul

        def run() -> object:
            return matmul(a, b, out=out)

        return run

    def mode(self, dtype: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def sync(self) -> None:
        return None

    def release(self) -> None:
        self._keep = []

    def bytes_needed(self, n: int, dtype: str) -> float:
        return float(n * n * 4 * 3)

    def free_bytes(self) -> float | None:
        try:
            import psutil

            return float(psutil.virtual_memory().available)
        except Exception:
            return None

    def threads(self) -> int | None:
        return None


def _round_size(n: int) -> int:
    step = 64 if n >= 128 else 16
    return max(step, (n // step) * step)


def matmul_flop(n: int) -> float:
    return 2.0 * n**3


@dataclass(frozen=True)
class _Measure:
    """Outcome of one size attempt: a timing, or why not."""

    timing: Timing | None = None
    oom: str = ""
    error: str = ""


def _attempt(
    backend: MatmulBackend,
    n: int,
    dtype: str,
    budget_s: float,
    token: CancelToken | None,
    transposed: bool = False,
) -> _Measure:
    need = backend.bytes_needed(n, dtype)
    free = backend.free_bytes()
    if free is not None and need > 0.85 * free:
        return _Measure(
            oom=f"needs {need / 2**30:.2f} GiB, only {free / 2**30:.2f} GiB free (not attempted)"
        )
    try:
        op = backend.prepare(n, dtype, transposed)
        timing = time_op(op, backend.sync, budget_s=budget_s, token=token)
        return _Measure(timing)
    except Cancelled:
        raise
    except Exception as exc:
        if is_oom(exc):
            return _Measure(oom=str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        return _Measure(error=f"{type(exc).__name__}: {first_line}")
    finally:
        backend.release()


def _result(
    target: BenchDevice,
    backend: MatmulBackend,
    dtype: str,
    n: int,
    timing: Timing,
    variant: str = "",
) -> BenchResult:
    seconds = timing.median_s
    tflops = matmul_flop(n) / seconds / 1e12
    peak = target.peak(dtype)
    extra: dict[str, Any] = {
        "flop": matmul_flop(n),
        "gflops": tflops * 1000.0,
        "repeats": timing.repeats,
        "inner": timing.inner,
        "min_s": timing.min_s,
        # peak (fastest repeat, as mamf-finder reports) beside the sustained median
        "tflops_best": matmul_flop(n) / timing.min_s / 1e12,
        "tflops_worst": matmul_flop(n) / max(timing.samples) / 1e12,
        "spread_pct": timing.spread_pct,
        "first_call_s": timing.warmup_s,
        "backend": backend.name,
        "peak_source": target.peak_source if peak is not None else "no peak known for this dtype",
    }
    threads = backend.threads()
    if threads is not None:
        extra["threads"] = threads
    return BenchResult(
        suite="matmul",
        device=target.spec,
        dtype=dtype,
        size=n,
        tflops=tflops,
        seconds=seconds,
        peak_tflops=peak,
        percent_of_peak=percent(tflops, peak),
        extra=extra,
        variant=variant,
        metric="TFLOP/s",
        value=tflops,
    )


def _variants(target: BenchDevice, dtype: str, layout_check: bool) -> tuple[str, ...]:
    """``""`` is a @ b; on CPUs low-precision kernels also get a @ b.T (the nn.Linear layout)."""
    if layout_check and target.kind == "cpu" and dtype in ("bf16", "fp16"):
        return ("", "a@b.T")
    return ("",)


def matmul_suite(
    target: BenchDevice,
    *,
    dtypes: Sequence[str] = ("fp32", "bf16"),
    sizes: Sequence[int] = DEFAULT_SIZES,
    budget_s: float = 1.0,
    token: CancelToken | None = None,
    backend: MatmulBackend | None = None,
    layout_check: bool = True,
) -> Iterator[ProgressEvent]:
    """Sweep ``sizes`` for each dtype; yields a result per measured size plus findings.

    On the CPU, bf16/fp16 are also measured as a @ b.T (how nn.Linear multiplies), because some
    CPUs run one layout many times slower than the other.
    """
    if backend is None:
        backend = TorchMatmul(target) if target.torch_available else NumpyMatmul()
    sizes = sorted({int(s) for s in sizes})
    plan = [(d, v) for d in dtypes for v in _variants(target, d, layout_check)]
    guess = (target.peak("fp32") or (0.1 if target.kind == "cpu" else 20.0)) * 0.5e12
    eta = EtaTracker(
        [min(budget_s, max(0.02, 8 * matmul_flop(n) / guess)) for _ in plan for n in sizes]
    )
    by_dtype: dict[str, dict[str, dict[int, float]]] = {}  # dtype → variant → size → TFLOP/s
    state = {"clock_warned": False}

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite="matmul", **kw)

    for p_index, (dtype, variant) in enumerate(plan):
        base = p_index * len(sizes)
        why = backend.unsupported(dtype)
        if why is not None:
            for _ in sizes:
                eta.step_done()
            if variant == "":
                yield event(f"matmul {dtype}: skipped", warning=f"matmul {dtype} skipped: {why}")
            continue
        measured = by_dtype.setdefault(dtype, {}).setdefault(variant, {})
        with backend.mode(dtype):
            yield from _sweep(
                target,
                backend,
                dtype,
                variant,
                sizes,
                budget_s,
                token,
                eta,
                base,
                measured,
                event,
                state,
            )
        last_variant = p_index + 1 == len(plan) or plan[p_index + 1][0] != dtype
        if last_variant and target.kind == "cpu":
            for finding in _cpu_findings(target, dtype, by_dtype):
                yield event(f"matmul {dtype}: findings", warning=finding)
    yield ProgressEvent(1.0, "matmul done", 0.0, suite="matmul")


def _sweep(
    target: BenchDevice,
    backend: MatmulBackend,
    dtype: str,
    variant: str,
    sizes: Sequence[int],
    budget_s: float,
    token: CancelToken | None,
    eta: EtaTracker,
    base: int,
    measured: dict[int, float],
    event: Callable[..., ProgressEvent],
    state: dict[str, bool],
) -> Iterator[ProgressEvent]:
    """One dtype/layout: grow the size while each step stays inside the budget."""
    transposed = variant == "a@b.T"
    label = f"matmul {dtype}{' ' + variant if variant else ''}"
    prev: tuple[int, float] | None = None
    largest_ok = 0
    for s_index, n in enumerate(sizes):
        if token is not None:
            token.raise_if_cancelled()
        rest = len(sizes) - s_index
        if prev is not None:
            predicted = prev[1] * (n / prev[0]) ** 3
            if 2 * predicted > budget_s:
                for _ in range(rest):
                    eta.step_done()
                yield event(
                    f"{label}: stopped at {prev[0]}",
                    warning=(
                        f"{label}: sizes from {n} skipped: predicted {predicted:.2g} s per "
                        f"multiply (×8 per doubling from {prev[1]:.2g} s at {prev[0]}), over the "
                        f"{budget_s:g} s budget"
                    ),
                )
                return
        yield event(f"{label} {n}×{n}…")
        outcome = _attempt(backend, n, dtype, budget_s, token, transposed)
        if outcome.oom:
            fit, result = yield from _back_off(
                target, backend, dtype, variant, largest_ok, n, budget_s, token, event
            )
            if result is not None and result.tflops:
                measured[fit] = result.tflops
            for _ in range(rest):
                eta.step_done()
            yield event(
                f"{label}: out of memory at {n}",
                warning=(
                    f"{label}: out of memory at {n}×{n} ({outcome.oom}); "
                    + (f"largest size that fit: {fit}×{fit}" if fit else "no size fit in memory")
                ),
            )
            return
        if outcome.timing is None:
            for _ in range(rest):
                eta.step_done()
            yield event(f"{label} {n} failed", warning=f"{label} {n}×{n} failed: {outcome.error}")
            return
        timing = outcome.timing
        result = _result(target, backend, dtype, n, timing, variant)
        largest_ok = n
        measured[n] = result.tflops or 0.0
        prev = (n, timing.median_s)
        for k in range(s_index + 1, len(sizes)):  # re-predict this sweep's remaining steps
            pred = timing.median_s * (sizes[k] / n) ** 3
            eta.set_cost(base + k, min(budget_s, max(0.02, pred * (timing.repeats + 2))))
        eta.step_done()
        yield event(f"{label} {n}×{n}: {result.extra['gflops']:.1f} GFLOP/s", result=result)
        warning = _clock_finding(target, result, state)
        if warning:
            yield event("matmul fp32 above the estimated peak", warning=warning)
        if timing.over_budget:
            for _ in range(rest - 1):
                eta.step_done()
            if rest > 1:
                yield event(
                    f"{label}: stopped growing at {n}",
                    warning=(
                        f"{label}: stopped growing at {n}×{n}: the step took "
                        f"{timing.total_s:.2g} s, over the {budget_s:g} s budget"
                    ),
                )
            return


def _clock_finding(target: BenchDevice, result: BenchResult, state: dict[str, bool]) -> str:
    """fp32 above the CPU estimate means the clock assumption was low: say what is implied."""
    cpu = target.cpu
    if (
        state.get("clock_warned")
        or target.kind != "cpu"
        or result.dtype != "fp32"
        or result.percent_of_peak is None
        or result.percent_of_peak <= 100
        or cpu is None
        or cpu.peak is None
    ):
        return ""
    state["clock_warned"] = True
    p = cpu.peak
    implied = result.extra["gflops"] / (p.units * p.flops_per_cycle)
    return (
        f"fp32 matmul reached {result.percent_of_peak:.0f}% of the estimated peak: the cores run "
        f"faster than the assumed {p.clock_ghz:.2f} GHz ({p.clock_source}); at least "
        f"{implied:.2f} GHz is implied"
    )


def _back_off(
    target: BenchDevice,
    backend: MatmulBackend,
    dtype: str,
    variant: str,
    low: int,
    high: int,
    budget_s: float,
    token: CancelToken | None,
    event: Callable[..., ProgressEvent],
) -> Generator[ProgressEvent, None, tuple[int, BenchResult | None]]:
    """After OOM at ``high``: try smaller sizes (bisecting above ``low``).

    Returns (largest size that fit, its result or None); the size is ``low`` (0 if nothing was
    measured yet) when no smaller attempt fit.
    """
    best, best_result = low, None
    for _ in range(4):
        mid = _round_size((low + high) // 2) if low else _round_size(high // 2)
        if mid <= low or mid >= high:
            break
        if token is not None:
            token.raise_if_cancelled()
        yield event(f"matmul {dtype}: out of memory, retrying {mid}×{mid}")
        outcome = _attempt(backend, mid, dtype, budget_s, token, variant == "a@b.T")
        if outcome.timing is not None:
            best_result = _result(target, backend, dtype, mid, outcome.timing, variant)
            yield event(f"matmul {dtype} {mid}×{mid} fit", result=best_result)
            best = mid
            break
        if not outcome.oom:
            break
        high = mid
    return best, best_result


def _cpu_findings(
    target: BenchDevice, dtype: str, by_dtype: dict[str, dict[str, dict[int, float]]]
) -> list[str]:
    """Plain-language findings for low-precision matmul on a CPU (compared with fp32)."""
    if dtype not in ("bf16", "fp16"):
        return []
    variants = by_dtype.get(dtype, {})
    findings: list[str] = []
    nn, nt = variants.get("", {}), variants.get("a@b.T", {})
    common_layout = sorted(set(nn) & set(nt))
    if common_layout:
        n = common_layout[-1]
        fast, slow = max(nn[n], nt[n]), min(nn[n], nt[n])
        if slow > 0 and fast / slow >= 3:  # below 3× it is hard to tell from noise
            slower = "a @ b" if nn[n] < nt[n] else "a @ b.T (the nn.Linear layout)"
            findings.append(
                f"{dtype} matmul is layout-sensitive on this CPU: {slower} ran {fast / slow:.0f}× "
                f"slower at {n}×{n} ({slow * 1000:.1f} vs {fast * 1000:.1f} GFLOP/s)"
            )
    best: dict[int, float] = {}
    for table in variants.values():
        for n, value in table.items():
            best[n] = max(best.get(n, 0.0), value)
    fp32 = by_dtype.get("fp32", {}).get("", {})
    common = sorted(set(best) & set(fp32))
    if not common:
        return findings
    n = common[-1]
    low, full = best[n], fp32[n]
    if low <= 0 or full <= 0:
        return findings
    ratio = full / low
    cpu = target.cpu
    if dtype == "bf16" and ratio >= 2:
        if cpu is not None and not cpu.native_bf16:
            why = "no native bf16 on this CPU (no AVX512-BF16, AMX-BF16 or ARM BF16)"
        else:
            why = "bf16 is slow on this CPU despite its bf16 instructions"
        findings.append(
            f"{why}: bf16 matmul ran at {low * 1000:.1f} GFLOP/s at best vs {full * 1000:.1f} "
            f"in fp32 at {n}×{n} ({ratio:.0f}× slower) — mixed precision would slow training "
            "down here"
        )
    elif dtype == "fp16" and ratio >= 2:
        findings.append(
            f"fp16 matmul ran {ratio:.0f}× slower than fp32 at {n}×{n} "
            f"({low * 1000:.1f} vs {full * 1000:.1f} GFLOP/s): keep fp32 on this CPU"
        )
    elif ratio <= 0.6:
        native = ""
        if dtype == "bf16" and cpu is not None and cpu.native_bf16:
            native = " (native bf16: AMX/AVX512-BF16)"
        findings.append(
            f"{dtype} matmul ran {1 / ratio:.1f}× faster than fp32 at {n}×{n}{native} "
            f"({low * 1000:.3g} vs {full * 1000:.3g} GFLOP/s): mixed precision can help here"
        )
    return findings


__all__ = [
    "DEFAULT_SIZES",
    "QUICK_CPU_SIZES",
    "QUICK_GPU_SIZES",
    "MatmulBackend",
    "NumpyMatmul",
    "TorchMatmul",
    "matmul_flop",
    "matmul_suite",
]
