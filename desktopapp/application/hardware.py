"""What the Hardware tab shows, worked out without widgets: labels, best results, history rows
and the measured accelerator handed to the Workload tab.

Nothing here imports torch or builds a widget; the tab's widgets only display these values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktopapp.application.plan import CustomAccelerator
from desktopapp.devices.bench.core import DTYPES, BenchResult
from desktopapp.devices.bench.memory import memory_terms
from desktopapp.devices.cpu import CacheLevel, CpuInfo
from desktopapp.model import units
from desktopapp.model.units import DASH

# Suites the panel offers, in display order, with a line for each tooltip.
SUITE_INFO: tuple[tuple[str, str, str], ...] = (
    ("matmul", "Matmul", "Matrix-multiply TFLOP/s over a size sweep, per precision"),
    (
        "amp",
        "Mixed precision",
        "Training steps of a model sized to fill this device, in fp32, TF32, bf16 and fp16: "
        "tokens/s, MFU and the speed-ups",
    ),
    ("bandwidth", "Bandwidth", "Memory copy GB/s (and host↔device transfers on CUDA)"),
    ("batching", "Batching", "Inference throughput and latency as the batch grows"),
    ("quantization", "Quantization", "int8 dynamic quantization against fp32 inference"),
    ("profile", "Profile", "Where one training step spends its time (torch.profiler)"),
    (
        "memory",
        "Memory",
        "Real training steps of a small transformer at a few micro-batch sizes: the measured "
        "peak memory against the app's memory model, term by term (checks the fit verdict on "
        "this device)",
    ),
)
SUITE_LABELS: Mapping[str, str] = {key: label for key, label, _tip in SUITE_INFO}
NEEDS_TORCH: frozenset[str] = frozenset({"amp", "batching", "quantization", "profile", "memory"})

DTYPE_TIPS: Mapping[str, str] = {
    "fp32": "32-bit floats: the reference precision",
    "tf32": "TensorFloat-32 tensor-core mode for fp32 matmuls (NVIDIA Ampere and newer)",
    "fp16": "16-bit floats (half precision)",
    "bf16": "bfloat16: fp32's range with 8 bits of mantissa; what mixed precision uses today",
    "fp8": "8-bit floats (e4m3) through torch._scaled_mm (NVIDIA Ada/Hopper and newer)",
}

# ISA features as users know them: canonical name → (label, why it matters for ML).
_FEATURES: Mapping[str, tuple[str, str]] = {
    "sse4_2": ("SSE4.2", "128-bit vectors: the x86-64 baseline"),
    "avx": ("AVX", "256-bit float vectors"),
    "avx2": ("AVX2", "256-bit integer and float vectors: what most CPU kernels target"),
    "fma": ("FMA", "fused multiply-add: two FLOPs per lane per instruction"),
    "f16c": ("F16C", "fp16 ↔ fp32 conversion in hardware (storage only, no fp16 math)"),
    "avx512f": ("AVX-512", "512-bit vectors: up to twice the fp32 rate of AVX2 per core"),
    "avx512bw": ("AVX-512 BW", "512-bit byte and word operations"),
    "avx512vl": ("AVX-512 VL", "AVX-512 instructions on 128/256-bit registers"),
    "avx512_vnni": ("AVX-512 VNNI", "int8 dot products: fast quantized inference"),
    "avx512_bf16": ("AVX-512 BF16", "native bf16 dot products: mixed precision can pay off"),
    "avx512_fp16": ("AVX-512 FP16", "native fp16 arithmetic"),
    "avx_vnni": ("AVX-VNNI", "int8 dot products on 256-bit vectors"),
    "amx_tile": ("AMX", "Advanced Matrix Extensions: tile matrix-multiply units"),
    "amx_bf16": ("AMX-BF16", "bf16 matrix multiply in the AMX tiles: large bf16 speed-ups"),
    "amx_int8": ("AMX-INT8", "int8 matrix multiply in the AMX tiles"),
    "amx_fp16": ("AMX-FP16", "fp16 matrix multiply in the AMX tiles"),
    "neon": ("NEON", "128-bit ARM vectors"),
    "fp16": ("FP16", "native fp16 arithmetic (ARM)"),
    "dotprod": ("DotProd", "int8 dot products (ARM)"),
    "i8mm": ("I8MM", "int8 matrix multiply (ARM)"),
    "bf16": ("BF16", "native bf16 arithmetic (ARM)"),
    "sve": ("SVE", "Scalable Vector Extension (ARM)"),
    "sve2": ("SVE2", "Scalable Vector Extension 2 (ARM)"),
    "sme": ("SME", "Scalable Matrix Extension (ARM)"),
}
# Features that change what mixed precision or quantization does on a CPU: shown highlighted.
_ML_FEATURES = frozenset(
    {
        "avx512_vnni",
        "avx512_bf16",
        "avx512_fp16",
        "avx_vnni",
        "amx_tile",
        "amx_bf16",
        "amx_int8",
        "amx_fp16",
        "bf16",
        "i8mm",
        "sme",
    }
)
# Baseline features not worth a chip when a wider one is present.
_IMPLIED = {"sse4_2": "avx", "avx": "avx2", "avx512bw": "avx512f", "avx512vl": "avx512f"}


@dataclass(frozen=True)
class Chip:
    """A badge: label, tone ("ml", "plain", "warn") and a tooltip."""

    label: str
    tone: str
    tooltip: str


def feature_chips(cpu: CpuInfo) -> list[Chip]:
    """The CPU's ML-relevant ISA features as chips, plus a warning chip without native bf16."""
    chips: list[Chip] = []
    present = set(cpu.features)
    for name in cpu.features:
        implied_by = _IMPLIED.get(name)
        if implied_by is not None and implied_by in present:
            continue
        label, why = _FEATURES.get(name, (name.upper(), ""))
        tone = "ml" if name in _ML_FEATURES else "plain"
        chips.append(Chip(label, tone, why or name))
    known_arch = cpu.arch.startswith(("x86", "amd64", "i686", "aarch64", "arm"))
    if known_arch and not cpu.native_bf16:
        chips.append(
            Chip(
                "no native bf16",
                "warn",
                "No AVX512-BF16, AMX-BF16 or ARM BF16: bf16 math is emulated, so mixed "
                "precision usually slows training down on this CPU",
            )
        )
    return chips


def cache_text(caches: Sequence[CacheLevel]) -> str:
    """``L1d 48 KiB ×2 · L2 2 MiB ×2 · L3 300 MiB``."""
    parts = []
    for cache in caches:
        size = units.format_bytes(cache.size_bytes).replace(".00 ", " ").replace(".0 ", " ")
        count = f" ×{cache.instances}" if cache.instances > 1 else ""
        parts.append(f"{cache.label} {size}{count}")
    return " · ".join(parts) or DASH


def ghz(value: float | None) -> str:
    return f"{value:.2f} GHz" if value and math.isfinite(value) else DASH


def mhz(value: float | None) -> str:
    return f"{value:,.0f} MHz" if value and math.isfinite(value) else DASH


def tflops_text(value: float | None) -> str:
    """TFLOP/s with sensible digits: ``0.269``, ``12.4``, ``989``."""
    if value is None or not math.isfinite(value) or value <= 0:
        return DASH
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{units.format_plain(value, 3)}"


# --- benchmark results ---------------------------------------------------------------------


def suite_text(result: BenchResult) -> str:
    label = SUITE_LABELS.get(result.suite, result.suite)
    return f"{label} · {result.variant}" if result.variant else label


def size_text(result: BenchResult) -> str:
    """What ``size`` means for the suite: matrix side, bytes, batch or tokens."""
    if result.suite == "matmul":
        return f"{result.size:,}×{result.size:,}"
    if result.suite == "bandwidth":
        return units.format_bytes(result.size)
    if result.suite in ("batching", "quantization"):
        return f"batch {result.size:,}"
    if result.suite in ("amp", "profile"):
        return f"{result.size:,} tokens"
    if result.suite == "memory":
        return f"micro-batch {result.size:,}"
    return f"{result.size:,}"


def _memory_peak(result: BenchResult) -> tuple[float, float] | None:
    """(measured, predicted) peak bytes of a memory-suite result, or None."""
    measured = result.extra.get("measured_bytes") or {}
    predicted = result.extra.get("predicted_bytes") or {}
    m, p = measured.get("peak_allocated"), predicted.get("peak_allocated")
    if isinstance(m, int | float) and isinstance(p, int | float) and m > 0:
        return float(m), float(p)
    return None


def _number(value: float) -> str:
    if value >= 1e6:
        return units.format_count(value)
    if value >= 100:
        return f"{value:,.0f}"
    return f"{units.format_plain(value, 3)}"


def result_text(result: BenchResult) -> str:
    """The headline figure: ``0.166 TFLOP/s``, ``12.3 GB/s``, ``1,240 samples/s``."""
    if result.metric == "TFLOP/s" or (not result.metric and result.tflops is not None):
        return f"{tflops_text(result.tflops)} TFLOP/s"
    if result.value is None or not math.isfinite(result.value):
        return DASH
    if result.metric == "operators":
        return f"{result.value:.0f} operators"
    text = f"{_number(result.value)} {result.metric}".strip()
    if result.tflops is not None and math.isfinite(result.tflops) and result.tflops > 0:
        text += f" ({tflops_text(result.tflops)} TFLOP/s)"
    return text


def rate_text(tflops: float | None) -> str:
    """TFLOP/s, or GFLOP/s below 1 TFLOP/s: ``755 TFLOP/s``, ``89.2 GFLOP/s``."""
    if tflops is None or not math.isfinite(tflops) or tflops <= 0:
        return DASH
    if tflops < 1.0:
        return f"{units.format_plain(tflops * 1000, 3)} GFLOP/s"
    return f"{tflops_text(tflops)} TFLOP/s"


def table_result_text(result: BenchResult) -> str:
    """The Result cell: the headline figure alone (training-step TFLOP/s go to the tooltip
    and the % of peak column), short enough for presentation mode. A memory result: the
    measured peak and the model's prediction as a ratio (the terms are in the tooltip)."""
    peak = _memory_peak(result) if result.suite == "memory" else None
    if peak is not None:
        return f"{units.format_bytes(peak[0])}, model {peak[1] / peak[0]:.2f}×"
    if result.metric == "TFLOP/s" or (not result.metric and result.tflops is not None):
        return rate_text(result.tflops)
    if result.value is None or not math.isfinite(result.value):
        return DASH
    if result.metric == "operators":
        return f"{result.value:.0f} operators"
    return f"{_number(result.value)} {result.metric}".strip()


def best_text(result: BenchResult) -> str:
    """The Best cell: the fastest repeat (matmul TFLOP/s; training steps in tokens/s)."""
    if result.suite == "amp" and result.extra.get("tokens_per_s_best"):
        return f"{_number(float(result.extra['tokens_per_s_best']))} tokens/s"
    best = result.extra.get("tflops_best")
    return rate_text(float(best)) if isinstance(best, int | float) else DASH


def percent_text(result: BenchResult) -> str:
    pct = result.percent_of_peak
    if pct is None or not math.isfinite(pct):
        return DASH
    return f"{pct:.0f}%"


def result_tooltip(result: BenchResult) -> str:
    """Where the figure came from: peak source, repeats, backend, threads."""
    lines = [f"{suite_text(result)} on {result.device}, {result.dtype}, {size_text(result)}"]
    if result.suite == "amp" and result.tflops:
        lines.append(f"{rate_text(result.tflops)} achieved (model FLOPs)")
    extra = result.extra
    if result.peak_tflops:
        lines.append(f"peak {tflops_text(result.peak_tflops)} TFLOP/s")
    for key, label in (
        ("peak_source", "peak from"),
        ("backend", "backend"),
        ("threads", "threads"),
        ("repeats", "timed repeats"),
        ("tflops_best", "fastest repeat, TFLOP/s"),
        ("spread_pct", "spread of the repeats, % of the median"),
        ("model", "model"),
        ("sizing", "model size chosen by"),
        ("mfu", "model FLOPs utilization"),
        ("percent_of", "% of"),
        ("speedup_vs_fp32", "speed-up over fp32"),
        ("speedup_vs_tf32", "speed-up over TF32"),
    ):
        value = extra.get(key)
        if value is None or value == "":
            continue
        if isinstance(value, Mapping):  # the memory suite's model shape
            value = _shape_text(value)
        if isinstance(value, float):
            value = f"{units.format_plain(value, 3)}"
        lines.append(f"{label}: {value}")
    if result.suite == "memory":
        lines.extend(_memory_lines(result))
    return "\n".join(lines)


def _shape_text(shape: Mapping[str, Any]) -> str:
    """``{"layers": 4, "hidden": 256, …}`` → ``4 layers, hidden 256, …, 3.4M parameters``."""
    parts = []
    if "layers" in shape:
        parts.append(f"{shape['layers']} layers")
    for key in ("hidden", "heads", "ffn_hidden", "vocab", "seq_len"):
        if key in shape:
            parts.append(f"{key.replace('_', ' ')} {shape[key]:,}")
    if isinstance(shape.get("params"), int | float):
        parts.append(f"{units.format_big_count(shape['params'])} parameters")
    return ", ".join(parts)


def _memory_lines(result: BenchResult) -> list[str]:
    """Measured against predicted, per term, as `bench --suite memory` prints them."""
    lines = [f"measured by: {result.extra['method']}"] if result.extra.get("method") else []
    for term, value, guess in memory_terms(result):
        ratio = f" ({guess / value:.2f}×)" if value else ""
        lines.append(
            f"{term}: measured {units.format_bytes(value)}, predicted "
            f"{units.format_bytes(guess)}{ratio}"
        )
    return lines


def best_by_dtype(results: Iterable[BenchResult]) -> dict[str, BenchResult]:
    """The fastest matmul result per dtype (any size, any layout), in :data:`DTYPES` order."""
    best: dict[str, BenchResult] = {}
    for result in results:
        if result.suite != "matmul" or result.tflops is None or not math.isfinite(result.tflops):
            continue
        current = best.get(result.dtype)
        if current is None or (current.tflops or 0.0) < result.tflops:
            best[result.dtype] = result
    order = {d: i for i, d in enumerate(DTYPES)}
    return dict(sorted(best.items(), key=lambda item: order.get(item[0], len(order))))


def matmul_series(results: Iterable[BenchResult]) -> dict[tuple[str, str], list[tuple[int, float]]]:
    """(dtype, variant) → [(size, TFLOP/s)] sorted by size: the curves of the plot."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for result in results:
        if result.suite != "matmul" or result.tflops is None or not math.isfinite(result.tflops):
            continue
        series.setdefault((result.dtype, result.variant), {})[result.size] = result.tflops
    order = {d: i for i, d in enumerate(DTYPES)}
    keys = sorted(series, key=lambda k: (order.get(k[0], len(order)), k[1]))
    return {key: sorted(series[key].items()) for key in keys}


def log2_size(size: int) -> float:
    """Plot x coordinate of a matrix side (the axis is log2 of the size)."""
    return math.log2(size)


def eta_text(eta_s: float | None) -> str:
    if eta_s is None or not math.isfinite(eta_s):
        return ""
    if eta_s < 1:
        return "almost done"
    return f"about {units.format_duration(eta_s)} left"


# --- history -------------------------------------------------------------------------------


def local_time(started: str) -> str:
    """ISO 8601 (UTC) → ``2026-11-21 16:25`` in local time; unparsable text is returned as is."""
    try:
        moment = datetime.fromisoformat(started)
    except ValueError:
        return started
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class HistoryRow:
    """One saved run as the History list shows it."""

    run_id: int
    started: str  # local time text
    device: str  # "cpu · Intel Xeon …"
    suites: str
    best_fp32: float | None
    best_bf16: float | None
    measurements: int
    cancelled: bool
    notes: str
    same_machine: bool
    disturbed: str = ""  # why the run's figures understate the machine ("" for a clean run)

    @property
    def status(self) -> str:
        status = "partial (cancelled)" if self.cancelled else "complete"
        return f"{status} · disturbed" if self.disturbed else status


def history_row(
    run_id: int,
    started: str,
    device: str,
    device_info: Mapping[str, object],
    config: Mapping[str, object],
    results: Sequence[BenchResult],
    cancelled: bool,
    notes: str = "",
    same_machine: bool = True,
) -> HistoryRow:
    name = str(device_info.get("name") or "")
    suites_value = config.get("suites")
    suites = list(suites_value) if isinstance(suites_value, list | tuple) else []
    if not suites:
        suites = list(dict.fromkeys(r.suite for r in results))
    best = best_by_dtype(results)
    return HistoryRow(
        run_id=run_id,
        started=local_time(started),
        device=f"{device} · {name}" if name and name != device else device,
        suites=", ".join(SUITE_LABELS.get(str(s), str(s)) for s in suites) or DASH,
        best_fp32=best["fp32"].tflops if "fp32" in best else None,
        best_bf16=best["bf16"].tflops if "bf16" in best else None,
        measurements=len(results),
        cancelled=cancelled,
        notes=notes,
        same_machine=same_machine,
        disturbed=disturbance(device_info),
    )


def disturbance(device_info: Mapping[str, object]) -> str:
    """Why a run was disturbed (its RunConditions summary), or "" when it ran clean or its
    conditions were not recorded."""
    conditions = device_info.get("conditions")
    if not isinstance(conditions, Mapping) or not conditions.get("disturbed"):
        return ""
    return str(conditions.get("summary") or "disturbed run: other load during the run")


def ratio_text(ratio: float | None) -> str:
    if ratio is None or not math.isfinite(ratio):
        return DASH
    return f"×{ratio:.2f}"


# --- "use in estimates" --------------------------------------------------------------------

USE_AS_PEAK = "peak"
USE_AS_UTILIZATION = "utilization"
_ESTIMATE_PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8")


@dataclass(frozen=True)
class MeasuredDevice:
    """What the estimate hand-over needs to know about the benchmarked device."""

    spec: str  # "cpu", "cuda:0"
    name: str
    peaks: Mapping[str, float]  # datasheet (GPU) or estimated (CPU) TFLOP/s by dtype
    peak_source: str = ""
    catalog_id: str | None = None
    memory_bytes: float | None = None


def utilization_choices(results: Iterable[BenchResult], device: MeasuredDevice) -> dict[str, float]:
    """dtype → achieved fraction of peak (best matmul ÷ peak), where both are known."""
    shares: dict[str, float] = {}
    for dtype, result in best_by_dtype(results).items():
        peak = device.peaks.get(dtype)
        if peak and result.tflops and peak > 0:
            shares[dtype] = result.tflops / peak
    return shares


def measured_accelerator(
    results: Sequence[BenchResult],
    device: MeasuredDevice,
    mode: str = USE_AS_PEAK,
    precision: str | None = None,
    run_label: str = "",
) -> CustomAccelerator:
    """The measured device as a :class:`CustomAccelerator` for the Workload tab.

    ``USE_AS_PEAK``: the best measured matmul TFLOP/s per precision become the peaks (the
    Workload tab's utilization then applies on top of what this machine really sustains).
    ``USE_AS_UTILIZATION``: the datasheet peaks stay, and the utilization is the achieved
    share of peak of ``precision`` (or fp32), capped at 100%.

    Raises ``ValueError`` when the results do not support the mode.
    """
    best = {d: r for d, r in best_by_dtype(results).items() if d in _ESTIMATE_PRECISIONS}
    where = f" ({run_label})" if run_label else ""
    if mode == USE_AS_PEAK:
        if not best:
            raise ValueError("results: no matmul measurement to use (run the matmul suite)")
        peaks = {dtype: float(r.tflops or 0.0) for dtype, r in best.items()}
        detail = ", ".join(
            f"{dtype} {tflops_text(r.tflops)} TFLOP/s at {r.size}" for dtype, r in best.items()
        )
        detail += " (sustained: the median over the repeats, not the fastest repeat)"
        return CustomAccelerator(
            name=device.name,
            peak_tflops=peaks,
            memory_bytes=device.memory_bytes,
            based_on=device.catalog_id,
            utilization=None,
            source=f"measured on this machine{where}: best matmul {detail}",
        )
    if mode != USE_AS_UTILIZATION:
        raise ValueError(f"mode: must be {USE_AS_PEAK} or {USE_AS_UTILIZATION}, got {mode!r}")
    shares = utilization_choices(results, device)
    if not shares:
        raise ValueError(
            "results: no precision has both a measurement and a known peak, so there is no "
            "achieved share of peak"
        )
    chosen = precision if precision in shares else ("fp32" if "fp32" in shares else None)
    if chosen is None:
        chosen = next(iter(shares))
    share = min(1.0, shares[chosen])
    capped = " (capped at 100%: the peak estimate is low)" if shares[chosen] > 1 else ""
    peaks = {d: float(v) for d, v in device.peaks.items() if d in _ESTIMATE_PRECISIONS and v > 0}
    result = best[chosen]
    return CustomAccelerator(
        name=device.name,
        peak_tflops=peaks,
        memory_bytes=device.memory_bytes,
        based_on=device.catalog_id,
        utilization=share,
        source=(
            f"measured on this machine{where}: {chosen} matmul reached "
            f"{tflops_text(result.tflops)} of {tflops_text(device.peaks.get(chosen))} TFLOP/s "
            f"= {share:.0%} of peak{capped}; peaks from {device.peak_source or 'the datasheet'}"
        ),
    )


def measured_device_from_info(info: Mapping[str, object], fallback_spec: str) -> MeasuredDevice:
    """A :class:`MeasuredDevice` from ``BenchDevice.to_dict()`` (live or stored with a run)."""
    raw_peaks = info.get("peak_tflops")
    peaks: dict[str, float] = {}
    if isinstance(raw_peaks, Mapping):
        for key, value in raw_peaks.items():
            if isinstance(value, int | float) and math.isfinite(value) and value > 0:
                peaks[str(key)] = float(value)
    memory = info.get("memory_bytes")
    catalog = info.get("catalog_id")
    spec = str(info.get("device") or fallback_spec)
    return MeasuredDevice(
        spec=spec,
        name=str(info.get("name") or info.get("cpu_model") or spec),
        peaks=peaks,
        peak_source=str(info.get("peak_source") or ""),
        catalog_id=str(catalog) if catalog else None,
        memory_bytes=float(memory) if isinstance(memory, int | float) and memory > 0 else None,
    )


# --- benchmark choices ---------------------------------------------------------------------

_DTYPES_BY_KIND: Mapping[str, tuple[str, ...]] = {
    "cpu": ("fp32", "fp16", "bf16"),
    "cuda": DTYPES,
    "mps": ("fp32", "fp16", "bf16"),
    "xpu": ("fp32", "fp16", "bf16"),
}


def device_kind(spec: str) -> str:
    return spec.split(":", 1)[0].strip().lower() or "cpu"


def dtype_availability(spec: str, torch_available: bool | None) -> dict[str, str]:
    """dtype → ``""`` when it can be measured on ``spec``, else why not (for the tooltip)."""
    kind = device_kind(spec)
    usable = _DTYPES_BY_KIND.get(kind, ("fp32",))
    why: dict[str, str] = {}
    for dtype in DTYPES:
        if torch_available is False and dtype != "fp32":
            why[dtype] = "needs PyTorch (without it matmul is measured with numpy in fp32)"
        elif dtype not in usable:
            why[dtype] = (
                f"{dtype} is an NVIDIA GPU mode (CUDA only)"
                if dtype in ("tf32", "fp8")
                else f"not measured on {kind}"
            )
        else:
            why[dtype] = ""
    return why


def default_dtypes(spec: str, quick: bool, torch_available: bool | None) -> tuple[str, ...]:
    """The runner's own default precisions for this device and mode, limited to usable ones."""
    from desktopapp.devices.bench.runner import BenchConfig
    from desktopapp.devices.bench.target import BenchDevice

    kind = device_kind(spec)
    probe = BenchDevice(spec=spec, kind=kind, index=0, name=spec)
    chosen = BenchConfig(quick=quick).matmul_dtypes(probe)
    available = dtype_availability(spec, torch_available)
    return tuple(d for d in chosen if not available.get(d))


# --- measured all-reduce bus bandwidth for the estimates (issue 17) ---------------------------


@dataclass(frozen=True)
class BusbwChoice:
    """The all-reduce bus bandwidth a collective run offers to the estimates.

    ``bytes_per_s`` is the busbw (nccl-tests definition) at the largest all-reduce message the
    run measured: gradient all-reduce in data-parallel training moves buckets of tens of MB and
    more, where busbw has levelled off, so the small-message values (latency-bound) would
    understate it. ``text`` says what it is and where it came from."""

    bytes_per_s: float
    message_bytes: int
    text: str


def busbw_for_estimates(rows: Iterable[tuple[str, int, float]]) -> BusbwChoice | None:
    """From ``(op, message bytes, busbw bytes/s)`` rows, the all-reduce busbw to use, or None
    when the run has no positive all-reduce result."""
    all_reduce = [(size, bw) for op, size, bw in rows if op == "all_reduce" and bw > 0]
    if not all_reduce:
        return None
    size, bw = max(all_reduce)
    return BusbwChoice(
        bw,
        size,
        f"all-reduce bus bandwidth {units.format_plain(bw / 1e9, 3)} GB/s, measured at "
        f"{units.format_bytes(size)} messages",
    )


@dataclass(frozen=True)
class BusbwUse:
    """The Collectives "Use in estimates" row: its line and which buttons work."""

    text: str
    can_use: bool
    can_stop: bool


def busbw_use(choice: BusbwChoice | None, used: float | None, can_hand_over: bool) -> BusbwUse:
    """What the row says given the shown run's ``choice`` and the busbw the estimates ``used``
    (bytes/s, None: none); ``can_hand_over`` is False without a shared state to hand it to."""
    if used is not None:
        gbs = units.format_plain(used / 1e9, 3)
        text = f"Estimates use a measured all-reduce bus bandwidth of {gbs} GB/s."
    elif choice is not None:
        text = f"This run: {choice.text}. Not used in the estimates yet."
    else:
        text = "Run the collectives (with all-reduce) to use the measured bus bandwidth."
    return BusbwUse(text, can_hand_over and choice is not None, used is not None)


# --- reviewing a measurement before it is used (issue 16) -------------------------------------


@dataclass(frozen=True)
class UseReview:
    """What "Use in estimates" must say before it applies a run: ``warning`` (plain text, ""
    when nothing to say) and whether the user has to confirm ("Apply anyway")."""

    warning: str
    needs_confirmation: bool
    suspect: tuple[str, ...] = ()  # dtypes far below the datasheet (model.measurement)


def review_use(
    results: Iterable[BenchResult], device: MeasuredDevice, device_info: Mapping[str, object]
) -> UseReview:
    """Review every best matmul figure against its peak (``review_measurement``: under
    ``SUSPECT_SHARE`` of peak is suspect, above the peak is out of range) and the run's
    conditions. The measured values themselves are never changed here."""
    from desktopapp.model.measurement import review_measurement

    reason = disturbance(device_info)
    messages: list[str] = []
    suspect: list[str] = []
    needs = False
    best = {d: r for d, r in best_by_dtype(results).items() if d in _ESTIMATE_PRECISIONS}
    for dtype, result in best.items():
        if not result.tflops or result.tflops <= 0:
            continue
        review = review_measurement(float(result.tflops), device.peaks.get(dtype), dtype=dtype)
        if review.suspect:
            suspect.append(dtype)
        if not review.ok:
            needs = True
            messages.append(review.message())
    if reason:
        needs = True
        messages.append(f"{reason[0].upper()}{reason[1:]}.")
    return UseReview(" ".join(messages), needs, tuple(suspect))
