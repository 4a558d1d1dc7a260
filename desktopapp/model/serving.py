"""Serving a language model the way serving engines run it.

One replica of the model runs on ``tp × pp`` devices (tensor parallel inside, pipeline stages
across); ``replicas`` copies serve side by side. Per replica:

- **Prefill** (the prompt, compute-bound): ``2·N_active·p + 2·L·d·p²`` FLOPs (linear layers plus
  causal attention over the prompt) at the achieved compute rate, or the weight read if that is
  longer, plus the tensor-parallel all-reduces.
- **Decode** (one token for each of B running sequences): reads the weights the batch touches
  (all of a dense model; for a mixture of experts the shared part plus the expected number of
  distinct experts ``E·(1 − (1 − k/E)^B)`` per layer) and the KV cache at the running context,
  and computes ``2·N_active·B + 4·L·d·c·B`` FLOPs, each matmul at the fitted compute share ×
  ``M / (M + M½)`` of its row count M (dense: the B tokens; a routed expert: the ~B·k/E routed
  to it; M½ fitted as a multiple of the rows where FLOP time equals weight-read time). The step
  is the longer of the two, plus two all-reduces per layer (tensor parallel; latency-bound at
  small batch), the pipeline hand-offs and a fixed per-step overhead (kernel launches,
  scheduling).
- **Continuous batching**: B sequences run at once; every step also carries, on average, the
  prefill of the ``B/o`` requests that arrive while one lives for ``o`` output tokens, so
  ``TPOT(B) = decode step(B) + (B/o) × prefill compute`` and the deployment emits ``B / TPOT``
  tokens per second per replica. ``TTFT = prefill + one decode step`` (queueing left out).
  The KV cache bounds B: the memory left after the weights and the runtime reserve, divided by
  one sequence's full context in 16-token pages (paged allocation).
- **Static batching** (batch jobs): the batch prefills together, then decodes ``o`` steps.

The achieved shares of datasheet bandwidth and compute and the per-step overhead are fitted to
published serving measurements (``resources/serving_calibration.json``; leave-one-out error in
``benchmarks/fidelity_serving.py``). Everything here is numpy-broadcastable over those three
parameters so the calibration can search them in one pass.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import BYTES_PER_VALUE, Accelerator, get_accelerator
from desktopapp.model.interconnect import collective_seconds, interconnect_for
from desktopapp.model.memory import DEFAULT_OVERHEAD_GIB, KV_PRECISIONS
from desktopapp.model.training_defaults import DEFAULT_MOE_EXPERTS, MOE_TOP_K
from desktopapp.model.validation import (
    InputError,
    no_accelerator,
    require_choice,
    require_count,
    require_fraction,
    require_int,
    require_positive,
    require_range,
)
from desktopapp.resources import resource_path

FloatArray = npt.NDArray[np.float64]

BATCHING_MODES = ("continuous", "static")
WEIGHT_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
PAGE_TOKENS = 16
PAGE_SOURCE = "vLLM PagedAttention default block size of 16 tokens (Kwon et al., SOSP 2023)"
MEMORY_FRACTION = 0.90
MEMORY_FRACTION_SOURCE = (
    "vLLM gpu_memory_utilization and TensorRT-LLM kv_cache_free_gpu_mem_fraction default 0.9"
)
DEFAULT_MAX_BATCH = 256
MAX_BATCH_SOURCE = "vLLM max_num_seqs default 256 (the scheduler's cap on running sequences)"
ACTIVATION_BYTES = 2.0  # all-reduce payload per value (16-bit activations)
# Weight-only quantized kernels dequantize before the multiply: at batch 1 they reach a smaller
# share of the bandwidth than 16-bit weights do.
QUANT_BANDWIDTH_SHARE = {"int8": 1069.20 / 1397.31, "int4": 862.69 / 1397.31}
QUANT_SOURCE = (
    "pytorch-labs/gpt-fast README (A100, Llama-2-7B, batch 1): achieved 1,069 GB/s with int8 "
    "and 863 GB/s with int4 (group 32) weights against 1,397 GB/s with bf16"
)
# Engine term: how the quantized GEMM kernels dequantize. "fused" kernels (Marlin and its
# successors in vLLM/SGLang, TensorRT-LLM AWQ/GPTQ, MLC, ExLlama) dequantize in registers and
# read 4-bit weights at the 16-bit kernels' bandwidth share; "gpt-fast" is the 2023 gpt-fast
# kernel measured above.
QUANT_KERNELS = ("fused", "gpt-fast")
FUSED_QUANT_SOURCE = (
    "Frantar et al. 2024, 'MARLIN: Mixed-Precision Auto-Regressive Parallel Inference on Large "
    "Language Models' (arXiv 2408.11743): 4-bit × fp16 kernels close to the ideal 4× over fp16 "
    "at batch 1-32, i.e. the 16-bit bandwidth share"
)
# GPU term: the achieved matmul rate follows the device's published best-shape matmul
# efficiency (perf_training's table, mamf-finder figures), relative to the GPUs the engine terms
# were fitted on.
CALIBRATION_GPUS = ("h100-sxm", "h200-sxm", "a100-sxm-80gb")
# A PCIe-only server (L40S, RTX, A10G boxes) holds up to 8 GPUs that reach each other over PCIe.
PCIE_SERVER_GPUS = 8
MOE_SOURCE = "Mixtral 8x7B (Jiang et al. 2024): 8 experts, 2 per token"
MAX_TOKENS = 10_000_000
MAX_DEVICES = 1_000_000


@dataclass(frozen=True)
class ServingCalibration:
    """Achieved shares of the datasheet, the fixed per-step overhead and the latency of one
    small all-reduce between two devices, with their fit."""

    bandwidth_share: float
    compute_share: float
    step_overhead_s: float
    allreduce_latency_s: float
    rows: int
    loo_within_1_5: float | None  # leave-one-out share of rows within 1.5×
    loo_median_error: float | None
    software: str
    source: str
    accelerators: tuple[str, ...] = ()  # catalog ids the published rows were measured on
    # predicted/measured on sources the fit did not use: 10-90% quantiles and the extremes
    range_ratio: tuple[float, float] = (1.0, 1.0)
    wide_ratio: tuple[float, float] = (1.0, 1.0)
    range_rows: int = 0
    # a matmul reaches half the fitted compute share at M½ = this × its ridge rows
    # (gemm_efficiency); dense matmuls see the step's tokens, routed experts their share of them
    gemm_half_ridge: float = 0.0
    # predicted/measured on unused sources measured on GPUs outside the fit (10-90%)
    unseen_ratio: tuple[float, float] = (1.0, 1.0)
    unseen_rows: int = 0
    # on sources the fit did not use: share within 1.5× and median max(r, 1/r)
    holdout_within_1_5: float | None = None
    holdout_median_error: float | None = None


FALLBACK_CALIBRATION = ServingCalibration(
    0.75, 0.55, 0.5e-3, 12e-6, 0, None, None, "unfitted defaults", "planning defaults"
)


@cache
def calibration() -> ServingCalibration:
    """The fitted defaults from ``resources/serving_calibration.json`` (built by
    ``scripts/serving_catalog.py``)."""
    try:
        with open(resource_path("serving_calibration.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        fit = doc["fit"]
        return ServingCalibration(
            float(fit["bandwidth_share"]),
            float(fit["compute_share"]),
            float(fit["step_overhead_s"]),
            float(fit["allreduce_latency_s"]),
            int(fit["rows"]),
            fit.get("loo_within_1_5"),
            fit.get("loo_median_error"),
            str(doc.get("software", "")),
            "fitted to published serving measurements (resources/serving_calibration.json)",
            tuple(sorted({str(r["inputs"].get("accelerator", "")) for r in doc["rows"]} - {""})),
            *_range_from(doc.get("holdout_summary") or {}),
            float(fit.get("gemm_half_ridge", 0.0)),
            *_unseen_from(doc.get("holdout_summary") or {}),
            (doc.get("holdout_summary") or {}).get("within_1_5"),
            (doc.get("holdout_summary") or {}).get("median_error"),
        )
    except (OSError, KeyError, ValueError, TypeError):
        return FALLBACK_CALIBRATION


def _range_from(
    summary: dict[str, Any],
) -> tuple[tuple[float, float], tuple[float, float], int]:
    if not summary:
        return (1.0, 1.0), (1.0, 1.0), 0
    return (
        (float(summary["ratio_low"]), float(summary["ratio_high"])),
        (float(summary["ratio_min"]), float(summary["ratio_max"])),
        int(summary["rows"]),
    )


def _unseen_from(summary: dict[str, Any]) -> tuple[tuple[float, float], int]:
    unseen = summary.get("unseen_gpus") or {}
    if not unseen:
        return (1.0, 1.0), 0
    return (float(unseen["ratio_low"]), float(unseen["ratio_high"])), int(unseen["rows"])


def _opt_int(name: str, value: Any, minimum: int = 1) -> int | None:
    return None if value is None else require_int(name, value, minimum=minimum)


@dataclass(frozen=True)
class ServingInputs:
    """A language model served by a continuous-batching (or static-batching) engine.

    ``gpus`` devices hold one replica (``pp`` pipeline stages of ``gpus/pp`` tensor-parallel
    devices); ``replicas`` copies serve side by side. ``active_params`` < ``params`` makes it a
    mixture of experts (``experts`` per layer, ``moe_top_k`` per token). Shape fields left out are
    assumed from the parameter count (and said so).
    """

    params: float
    accelerator: str | None = None
    peak_tflops: float | None = None
    bandwidth_gbs: float | None = None
    memory_gb: float | None = None
    precision: str = "bf16"  # weights
    kv_precision: str | None = None  # default: 16 bit (fp32 with fp32 weights)
    active_params: float | None = None
    experts: int | None = None
    moe_top_k: int | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    prompt_tokens: int = 512
    output_tokens: int = 256
    gpus: int = 1
    pp: int = 1
    ep: int = 1  # expert parallel: the experts split over ep of the tp devices (MoE only)
    replicas: int = 1
    batching: str = "continuous"
    concurrency: int | None = None  # continuous: sequences at once; None → highest that fits
    batch_size: int = 1  # static batch
    ttft_slo_s: float | None = None
    tpot_slo_s: float | None = None
    max_running: int = DEFAULT_MAX_BATCH
    bandwidth_share: float | None = None
    compute_share: float | None = None
    step_overhead_s: float | None = None
    price: float | None = None
    price_source: str = ""
    quant_kernels: str = "fused"  # engine term: fused (Marlin-class) | gpt-fast (2023)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "params", require_count("params", self.params))
        if self.active_params is not None:
            set_(self, "active_params", require_count("active_params", self.active_params))
        for name in ("peak_tflops", "bandwidth_gbs", "memory_gb", "price"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, require_positive(name, value))
        if self.active_params is not None and self.active_params > self.params:
            raise InputError(
                "active_params",
                f"must be at most the parameter count ({units.format_count(self.params)})",
            )
        require_choice("precision", self.precision, WEIGHT_PRECISIONS)
        if self.kv_precision is not None:
            require_choice("kv_precision", self.kv_precision, KV_PRECISIONS)
        require_choice("batching", self.batching, BATCHING_MODES)
        require_choice("quant_kernels", self.quant_kernels, QUANT_KERNELS)
        for name in ("experts", "moe_top_k", "layers", "hidden", "heads", "kv_heads", "head_dim"):
            set_(self, name, _opt_int(name, getattr(self, name)))
        if (
            self.experts is not None
            and self.moe_top_k is not None
            and self.moe_top_k > self.experts
        ):
            raise InputError("moe_top_k", f"must be at most the number of experts ({self.experts})")
        set_(
            self,
            "prompt_tokens",
            require_int("prompt_tokens", self.prompt_tokens, minimum=0, maximum=MAX_TOKENS),
        )
        set_(
            self,
            "output_tokens",
            require_int("output_tokens", self.output_tokens, minimum=1, maximum=MAX_TOKENS),
        )
        set_(self, "gpus", require_int("gpus", self.gpus, maximum=MAX_DEVICES))
        set_(self, "pp", require_int("pp", self.pp, maximum=MAX_DEVICES))
        if self.gpus % self.pp:
            raise InputError("pp", f"must divide the devices per replica ({self.gpus})")
        set_(self, "ep", require_int("ep", self.ep, maximum=MAX_DEVICES))
        if self.tp % self.ep:
            raise InputError("ep", f"must divide the tensor-parallel devices ({self.tp})")
        set_(self, "replicas", require_int("replicas", self.replicas, maximum=MAX_DEVICES))
        set_(self, "concurrency", _opt_int("concurrency", self.concurrency))
        set_(self, "batch_size", require_int("batch_size", self.batch_size, maximum=MAX_TOKENS))
        set_(self, "max_running", require_int("max_running", self.max_running, maximum=MAX_TOKENS))
        for name in ("ttft_slo_s", "tpot_slo_s"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, require_range(name, value, 1e-6, 86_400.0))
        for name in ("bandwidth_share", "compute_share"):
            value = getattr(self, name)
            if value is not None:
                set_(self, name, require_fraction(name, value))
        if self.step_overhead_s is not None:
            set_(
                self,
                "step_overhead_s",
                require_range("step_overhead_s", self.step_overhead_s, 0, 1),
            )
        self._check_shape()
        acc = None if self.accelerator is None else get_accelerator(self.accelerator)
        if acc is None and self.peak_tflops is None:
            raise no_accelerator()
        if self.bandwidth_gbs is None and (acc is None or not acc.memory_bandwidth_gbs):
            raise InputError("bandwidth_gbs", "give the memory bandwidth in GB/s or an accelerator")

    def _check_shape(self) -> None:
        if (
            self.hidden is not None
            and self.heads is not None
            and self.head_dim is None
            and self.hidden % self.heads
        ):
            raise InputError(
                "hidden", f"must be divisible by heads ({self.heads}), got {self.hidden}"
            )
        kv, heads = self.kv_heads, self.heads
        if kv is not None and heads is not None and (kv > heads or heads % kv):
            raise InputError("kv_heads", f"must divide heads ({heads})")

    @property
    def tp(self) -> int:
        return self.gpus // self.pp

    @property
    def is_moe(self) -> bool:
        return self.active_params is not None and self.active_params < self.params


# --- resolved hardware and shape ---------------------------------------------------------------


@dataclass(frozen=True)
class _Setup:
    acc: Accelerator | None
    peak_linear: float  # FLOP/s per device at the weight precision's compute path
    peak_attention: float  # FLOP/s per device, 16-bit (attention runs in 16 bit)
    compute_precision: str
    bandwidth: float  # bytes/s per device, datasheet
    memory_bytes: float | None  # per device
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    shape_assumed: bool
    weight_bpv: float
    kv_bpv: float
    quant_share: float
    active: float
    shared: float  # parameters every token uses (dense: all)
    expert_params: float  # parameters of one expert index summed over layers
    experts: int
    moe_top_k: int
    tp_bw: float  # all-reduce bus bandwidth inside the replica, bytes/s
    tp_latency: float
    tp_latency_ratio: float  # 1 inside the scale-up domain, network/link latency outside
    pp_latency: float
    calib: ServingCalibration
    gpu_compute_ratio: float = 1.0  # device's matmul efficiency / the calibration GPUs'


@cache
def gpu_compute_ratio(accelerator_id: str, precision: str) -> float:
    """The device's published best-shape matmul efficiency over the mean of the GPUs the serving
    calibration ran on (1 for those GPUs; MI300X bf16 0.51/0.82 = 0.62)."""
    from desktopapp.model.perf_training import matmul_efficiency

    own, source = matmul_efficiency(accelerator_id, precision)
    if source.startswith("no published") and precision != "bf16":
        # no figure at this precision: the device's bf16 figure carries its GPU term over
        precision = "bf16"
        own, _ = matmul_efficiency(accelerator_id, precision)
    ref = [matmul_efficiency(g, precision)[0] for g in CALIBRATION_GPUS]
    return float(own / (sum(ref) / len(ref)))


def _assumed_shape(params: float) -> tuple[int, int, int]:
    from desktopapp.model.perf_training import assumed_shape

    return assumed_shape(params)


def _setup(inp: ServingInputs) -> _Setup:
    acc = None if inp.accelerator is None else get_accelerator(inp.accelerator)
    prec = inp.precision
    weight_only = prec in ("int8", "int4")
    if inp.peak_tflops is not None:
        peak, cprec = inp.peak_tflops * 1e12, prec
        peak16 = peak if prec in ("bf16", "fp16", "fp32") else peak / 2.0 if prec == "fp8" else peak
    else:
        assert acc is not None
        cprec = prec
        if weight_only or prec not in acc.peak_tflops:
            cprec = next((p for p in ("bf16", "fp16", "fp32") if p in acc.peak_tflops), prec)
        peak = acc.peak_flops(cprec)
        p16 = next((p for p in ("bf16", "fp16", "fp32") if p in acc.peak_tflops), cprec)
        peak16 = acc.peak_flops(p16)
    ratio_c = 1.0
    if acc is not None and inp.peak_tflops is None:
        ratio_c = gpu_compute_ratio(acc.id, cprec)
        peak, peak16 = peak * ratio_c, peak16 * gpu_compute_ratio(acc.id, "bf16")
    if inp.bandwidth_gbs is not None:
        bw = inp.bandwidth_gbs * 1e9
    else:
        assert acc is not None and acc.memory_bandwidth_gbs
        bw = acc.memory_bandwidth_gbs * 1e9
    if inp.memory_gb is not None:
        mem: float | None = inp.memory_gb * 1e9
    else:
        mem = None if acc is None else acc.memory_bytes
    if inp.layers is not None and inp.hidden is not None and inp.heads is not None:
        layers, hidden, heads, assumed = inp.layers, inp.hidden, inp.heads, False
    else:
        layers, hidden, heads = _assumed_shape(inp.params)
        layers = inp.layers or layers
        hidden = inp.hidden or hidden
        heads = inp.heads or heads
        assumed = True
    kv_heads = inp.kv_heads or heads
    head_dim = inp.head_dim or max(1, hidden // heads)
    kv_prec = inp.kv_precision or ("fp32" if prec == "fp32" else "bf16")
    active = inp.active_params or inp.params
    experts = inp.experts or (DEFAULT_MOE_EXPERTS if inp.is_moe else 1)
    moe_top_k = inp.moe_top_k or (min(MOE_TOP_K, experts) if inp.is_moe else 1)
    if inp.is_moe and experts > moe_top_k:
        expert_params = (inp.params - active) / (experts - moe_top_k)
        shared = max(active - moe_top_k * expert_params, 0.0)
    else:
        expert_params, shared, experts, moe_top_k = 0.0, inp.params, 1, 1
    tp_bw, tp_lat, pp_lat, ratio = math.inf, 0.0, 0.0, 1.0
    if acc is not None:
        try:
            link = interconnect_for(acc.id)
            # GPUs without a scale-up fabric (scale-up domain 1) still talk peer to peer over
            # PCIe inside one server: tensor parallel there runs at the PCIe figure, not over
            # the network.
            domain = link.scale_up_domain if link.scale_up_domain > 1 else PCIE_SERVER_GPUS
            inside = inp.tp <= domain
            tp_bw = link.scale_up_busbw if inside else link.scale_out_busbw
            tp_lat = link.latency_seconds if inside else link.scale_out_latency_seconds
            ratio = 1.0 if inside else tp_lat / max(link.latency_seconds, 1e-9)
            pp_lat = (
                link.latency_seconds if inp.gpus <= domain else (link.scale_out_latency_seconds)
            )
        except ValueError:
            pass
    if math.isinf(tp_bw) and inp.tp > 1:
        tp_bw, tp_lat, pp_lat = 25e9, 10e-6, 10e-6  # PCIe-class link when nothing is known
    return _Setup(
        acc=acc,
        peak_linear=peak,
        peak_attention=peak16,
        compute_precision=cprec,
        bandwidth=bw,
        memory_bytes=mem,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        shape_assumed=assumed,
        weight_bpv=float(BYTES_PER_VALUE[prec]),
        kv_bpv=float(BYTES_PER_VALUE[kv_prec]),
        quant_share=(
            QUANT_BANDWIDTH_SHARE.get(prec, 1.0) if inp.quant_kernels == "gpt-fast" else 1.0
        ),
        active=active,
        shared=shared,
        expert_params=expert_params,
        experts=experts,
        moe_top_k=moe_top_k,
        tp_bw=tp_bw,
        tp_latency=tp_lat,
        tp_latency_ratio=ratio,
        pp_latency=pp_lat,
        calib=calibration(),
        gpu_compute_ratio=ratio_c,
    )


def kv_bytes_per_token(s: _Setup) -> float:
    """KV-cache bytes one sequence holds per token of context (K and V, every layer)."""
    return 2.0 * s.layers * s.kv_heads * s.head_dim * s.kv_bpv


def distinct_experts(experts: int, moe_top_k: int, tokens: Any) -> Any:
    """Expected number of distinct experts ``tokens`` tokens touch with top-k routing, uniform
    routing assumed: ``E·(1 − (1 − k/E)^T)``."""
    t = np.asarray(tokens, dtype=float)
    return experts * (1.0 - (1.0 - moe_top_k / experts) ** t)


def weight_bytes_read(s: _Setup, batch: Any, ep: int = 1) -> Any:
    """Weight bytes one decode step reads for ``batch`` sequences (all devices together). With
    expert parallelism the attention and other shared weights sit on each of the ``ep``
    data-parallel attention groups, so each group reads its own copy."""
    if s.experts <= 1:
        return np.full_like(np.asarray(batch, dtype=float), s.shared * s.weight_bpv)
    touched = distinct_experts(s.experts, s.moe_top_k, batch)
    return (s.shared * ep + touched * s.expert_params) * s.weight_bpv


def gemm_efficiency(rows: Any, half_rows: Any) -> Any:
    """Share of the fitted matmul rate a GEMM with ``rows`` rows (tokens) reaches:
    ``M / (M + M½)``, Hockney's half-performance form ``r∞·n/(n + n½)`` (Hockney & Jesshope,
    *Parallel Computers 2*, 1988): a cost per row plus a fixed cost per GEMM. ``half_rows`` = 0
    is the full rate at any M."""
    m = np.asarray(rows, dtype=float)
    return m / np.maximum(m + half_rows, 1e-12)


def ridge_rows(s: _Setup, sh: _Shares) -> Any:
    """GEMM rows at which a matmul's FLOP time (at the fitted compute share) equals the time to
    stream its weights (at the fitted bandwidth share). A GEMM of M rows against a K×N weight
    does 2·M·N·K FLOPs on N·K weights, so its arithmetic intensity grows with M and it is
    memory-limited below this row count (NVIDIA, 'Matrix Multiplication Background User's
    Guide', DU-09799-001, 2023: compare the arithmetic intensity with the GPU's ops:byte ratio).
    At the fitted shares: about 270 rows on H100 (fp8 or bf16), 195 on H200, 150 on A100 bf16,
    40 for A100 int4 weights."""
    return (
        (s.peak_linear * sh.compute)
        * (s.weight_bpv / s.quant_share)
        / (2.0 * s.bandwidth * sh.bandwidth)
    )


def expert_rows(s: _Setup, rows: Any) -> Any:
    """Rows each routed expert's GEMM sees in a step of ``rows`` tokens: the ``k·rows`` token
    slots spread over the distinct experts they touch (``rows·k/E`` once all are touched)."""
    m = np.asarray(rows, dtype=float)
    touched = np.maximum(distinct_experts(s.experts, s.moe_top_k, m), 1e-12)
    return s.moe_top_k * m / touched


def _linear_seconds(s: _Setup, sh: _Shares, tokens: Any, tp: float, ep: int = 1) -> Any:
    """Matmul time of a step of ``tokens`` tokens (decode: the batch; prefill: the prompts'
    tokens). Every matmul runs at the fitted compute share × :func:`gemm_efficiency` of
    its own row count, with M½ = the fitted multiple of :func:`ridge_rows`: the shared (dense)
    weights see the step's tokens (per attention group with expert parallelism, ``tokens/ep``),
    each routed expert only the tokens routed to it (:func:`expert_rows`). A small batch thus
    costs a MoE its touched experts' fixed part, at most what a dense model of the same total
    size pays on all its weights (without expert parallelism a MoE is never slower than a dense
    model of its total size)."""
    t = np.asarray(tokens, dtype=float)
    half = sh.half_ridge * ridge_rows(s, sh)
    groups = ep if s.experts > 1 else 1
    with np.errstate(divide="ignore", invalid="ignore"):  # no tokens: no matmul time
        out = 2.0 * s.shared * t / gemm_efficiency(t / groups, half)
        if s.experts > 1:
            routed = 2.0 * s.moe_top_k * s.expert_params * t
            out = out + routed / gemm_efficiency(expert_rows(s, t), half)
    return np.where(t > 0, out, 0.0) / (tp * s.peak_linear * sh.compute)


def _flop_seconds(s: _Setup, sh: _Shares, tokens: Any, tp: float) -> Any:
    """The matmuls' FLOPs alone at the fitted compute share (no fixed part): a step is
    compute-bound when these (plus attention) take longer than its memory reads."""
    return 2.0 * s.active * np.asarray(tokens, dtype=float) / (tp * s.peak_linear * sh.compute)


@dataclass(frozen=True)
class _Shares:
    bandwidth: Any
    compute: Any
    overhead: Any
    allreduce: Any  # seconds, one small all-reduce over 2 devices
    half_ridge: Any = 0.0  # gemm_efficiency's M½ as a multiple of ridge_rows


def _shares(inp: ServingInputs, s: _Setup) -> _Shares:
    return _Shares(
        inp.bandwidth_share if inp.bandwidth_share is not None else s.calib.bandwidth_share,
        inp.compute_share if inp.compute_share is not None else s.calib.compute_share,
        inp.step_overhead_s if inp.step_overhead_s is not None else s.calib.step_overhead_s,
        s.calib.allreduce_latency_s,
        s.calib.gemm_half_ridge,
    )


def allreduce_latency(base: Any, n: int) -> Any:
    """Small-message all-reduce latency over ``n`` devices: ``base × log2(2n) / 2`` (tree-like
    growth: 1× at 2 devices, 2× at 8)."""
    return base * math.log2(2 * n) / 2.0


def _allreduce(inp: ServingInputs, s: _Setup, sh: _Shares, tokens: Any) -> Any:
    """Two all-reduces per layer (after attention and after the MLP), Megatron-style TP. With
    expert parallelism (``ep`` > 1, a mixture of experts) attention runs data parallel over the
    ``ep`` groups (tensor parallel over ``tp/ep`` inside each) and the MLP's all-reduce becomes
    an all-to-all: every token goes to its ``k`` experts' devices and comes back."""
    t = np.asarray(tokens, dtype=float)
    # Across nodes the network's latency replaces the scale-up link's.
    base = sh.allreduce * s.tp_latency_ratio
    ep = inp.ep if s.experts > 1 else 1
    attn_tp = inp.tp // ep
    out = np.zeros_like(t)
    if attn_tp > 1:
        nbytes = t / ep * s.hidden * ACTIVATION_BYTES
        wire = collective_seconds("all_reduce", nbytes, attn_tp, s.tp_bw, 0.0)
        out = out + s.layers * (wire + allreduce_latency(base, attn_tp))
    if ep > 1:
        out = out + s.layers * expert_all_to_all(s, base, t, ep)
    elif inp.tp > 1:
        nbytes = t * s.hidden * ACTIVATION_BYTES
        wire = collective_seconds("all_reduce", nbytes, inp.tp, s.tp_bw, 0.0)
        out = out + s.layers * (wire + allreduce_latency(base, inp.tp))
    return out


def expert_all_to_all(s: _Setup, base: Any, tokens: Any, ep: int) -> Any:
    """One MoE layer's dispatch + combine over ``ep`` devices: each device sends its
    ``tokens/ep`` tokens to their ``k`` experts, (ep-1)/ep of them on other devices, 16-bit
    activations, and receives the results back (two all-to-alls)."""
    per_device = tokens / ep * s.moe_top_k * s.hidden * ACTIVATION_BYTES * (ep - 1) / ep
    return 2.0 * (per_device / s.tp_bw + allreduce_latency(base, ep))


def _pipeline(inp: ServingInputs, s: _Setup) -> float:
    return (inp.pp - 1) * s.pp_latency


def decode_parts(inp: ServingInputs, s: _Setup, sh: _Shares, batch: Any, context: Any) -> dict:
    """Per decode step for ``batch`` sequences at ``context`` tokens: every term in seconds."""
    b = np.asarray(batch, dtype=float)
    c = np.asarray(context, dtype=float)
    tp = float(inp.tp)
    w = weight_bytes_read(s, b, inp.ep)
    kv = b * c * kv_bytes_per_token(s)
    memory = (w / s.quant_share + kv) / (tp * s.bandwidth * sh.bandwidth)
    linear = _linear_seconds(s, sh, b, tp, inp.ep)
    attention = 4.0 * s.layers * s.heads * s.head_dim * c * b / (tp * s.peak_attention * sh.compute)
    compute = linear + attention
    comm = _allreduce(inp, s, sh, b) + _pipeline(inp, s)
    step = np.maximum(memory, compute) + comm + sh.overhead
    return {
        "memory": memory,
        "compute": compute,
        "math": _flop_seconds(s, sh, b, tp) + attention,
        "comm": comm + 0.0 * b,
        "overhead": sh.overhead + 0.0 * b,
        "step": step,
        "bytes": w + kv,
        "flops": 2.0 * s.active * b + 4.0 * s.layers * s.heads * s.head_dim * c * b,
    }


def prefill_parts(inp: ServingInputs, s: _Setup, sh: _Shares, prompts: Any, tokens: int) -> dict:
    """Prefill of ``prompts`` prompts of ``tokens`` tokens each, all in one pass."""
    n = np.asarray(prompts, dtype=float)
    p = float(tokens)
    tp = float(inp.tp)
    linear = _linear_seconds(s, sh, p * n, tp, inp.ep)
    attention = (
        2.0 * s.layers * s.heads * s.head_dim * p * p * n / (tp * s.peak_attention * sh.compute)
    )
    compute = linear + attention
    w = weight_bytes_read(s, n * p, inp.ep)
    memory = (w / s.quant_share + n * p * kv_bytes_per_token(s)) / (tp * s.bandwidth * sh.bandwidth)
    comm = _allreduce(inp, s, sh, n * p) + _pipeline(inp, s)
    time = np.where(p > 0, np.maximum(compute, memory) + comm + sh.overhead, 0.0)
    math_ = _flop_seconds(s, sh, p * n, tp) + attention
    return {"compute": compute, "memory": memory, "comm": comm, "time": time, "math": math_}


def resident_weight_bytes(inp: ServingInputs, s: _Setup) -> float:
    """Weight bytes one replica holds: every parameter once, plus with expert parallelism a copy
    of the shared (attention, embedding) weights in each of the ``ep`` attention groups."""
    extra = s.shared * (inp.ep - 1) if s.experts > 1 else 0.0
    return (inp.params + extra) * s.weight_bpv


def kv_capacity(inp: ServingInputs, s: _Setup) -> tuple[float, float, float]:
    """(sequences the KV cache holds, bytes free for it per replica, bytes per sequence)."""
    per_seq_tokens = math.ceil((inp.prompt_tokens + inp.output_tokens) / PAGE_TOKENS) * PAGE_TOKENS
    per_seq = per_seq_tokens * kv_bytes_per_token(s)
    if s.memory_bytes is None:
        return math.inf, math.inf, per_seq
    weights = resident_weight_bytes(inp, s)
    reserve = DEFAULT_OVERHEAD_GIB * units.GIB
    free = inp.gpus * (s.memory_bytes * MEMORY_FRACTION - reserve) - weights
    if free <= 0 or per_seq <= 0:
        return 0.0, free, per_seq
    return float(math.floor(free / per_seq)), free, per_seq


@dataclass(frozen=True, eq=False)
class ServingCurve:
    """Throughput against latency as concurrency grows (per replica, numpy arrays)."""

    concurrency: FloatArray
    ttft_seconds: FloatArray
    tpot_seconds: FloatArray
    tokens_per_second: FloatArray  # whole deployment
    meets_slo: npt.NDArray[np.bool_]


def _continuous(inp: ServingInputs, s: _Setup, sh: _Shares, batch: Any) -> dict:
    b = np.asarray(batch, dtype=float)
    p, o = inp.prompt_tokens, inp.output_tokens
    context = p + o / 2.0
    dec = decode_parts(inp, s, sh, b, context)
    one = prefill_parts(inp, s, sh, 1.0, p)
    # Arriving requests' prefill rides along: B/o of them per step, at the compute rate.
    pre_share = (b / o) * (np.maximum(one["compute"], 0.0) + one["comm"])
    tpot = dec["step"] + pre_share
    ttft = one["time"] + dec["step"]
    rate = b / tpot * inp.replicas
    return {"tpot": tpot, "ttft": ttft, "rate": rate, "decode": dec, "prefill": one}


def _static(inp: ServingInputs, s: _Setup, sh: _Shares, batch: Any) -> dict:
    b = np.asarray(batch, dtype=float)
    p, o = inp.prompt_tokens, inp.output_tokens
    dec = decode_parts(inp, s, sh, b, p + o / 2.0)
    pre = prefill_parts(inp, s, sh, b, p)
    total = pre["time"] + o * dec["step"]
    rate = b * o / total * inp.replicas
    return {"tpot": dec["step"], "ttft": pre["time"], "rate": rate, "decode": dec, "prefill": pre}


def predict_rate(inp: ServingInputs, shares: _Shares | None = None) -> Any:
    """Deployment output tokens/s at the inputs' batch/concurrency (broadcast over ``shares``;
    the calibration uses this). Continuous batching without a concurrency runs at the cap."""
    s = _setup(inp)
    sh = shares or _shares(inp, s)
    if inp.batching == "static":
        return _static(inp, s, sh, inp.batch_size)["rate"]
    cap = kv_capacity(inp, s)[0]
    b = inp.concurrency or max(1.0, min(cap, inp.max_running))
    return _continuous(inp, s, sh, b)["rate"]


def predict_ttft(inp: ServingInputs, shares: _Shares | None = None) -> Any:
    """Time to first token of one request on an idle replica (batch-1 prefill)."""
    s = _setup(inp)
    sh = shares or _shares(inp, s)
    return prefill_parts(inp, s, sh, 1.0, inp.prompt_tokens)["time"]


def predict_decode_rate(inp: ServingInputs, shares: _Shares | None = None) -> Any:
    """Tokens/s one sequence sees at batch 1 with a short prompt (1 / decode step)."""
    s = _setup(inp)
    sh = shares or _shares(inp, s)
    return 1.0 / decode_parts(inp, s, sh, 1.0, inp.prompt_tokens + inp.output_tokens / 2.0)["step"]


def make_shares(
    bandwidth: Any, compute: Any, overhead: Any, allreduce: Any, half_ridge: Any = 0.0
) -> _Shares:
    return _Shares(bandwidth, compute, overhead, allreduce, half_ridge)


# --- the estimate ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServingEstimate:
    inputs: ServingInputs
    batching: str
    concurrency: int  # sequences per replica used
    max_concurrency: int | None  # KV-cache bound (None: device memory unknown)
    concurrency_reason: str
    ttft_seconds: float
    tpot_seconds: float
    step_seconds: float  # one decode step at this concurrency
    decode_tokens_per_second: float  # per replica: concurrency / step
    tokens_per_second: float  # output tokens/s, whole deployment
    tokens_per_second_per_gpu: float
    requests_per_second: float
    latency_seconds: float  # one request: TTFT + output × TPOT
    prefill_seconds: float
    prefill_bound: str
    decode_bound: str
    memory_seconds: float
    compute_seconds: float
    comm_seconds: float
    overhead_seconds: float
    bytes_per_step: float
    flops_per_step: float
    weights_bytes: float
    kv_bytes_per_token: float
    kv_free_bytes: float | None
    cost_per_million_tokens: float | None
    price_per_gpu_hour: float | None
    price_source: str
    slo_met: bool | None
    curve: ServingCurve
    notes: tuple[str, ...]
    formula: str
    assumptions: tuple[Assumption, ...] = field(default=())
    tokens_per_second_low: float | None = None  # likely range (out-of-sample errors)
    tokens_per_second_high: float | None = None
    range_meaning: str = ""

    @property
    def total_gpus(self) -> int:
        return self.inputs.gpus * self.inputs.replicas

    def to_dict(self) -> dict[str, Any]:
        return {
            "batching": self.batching,
            "concurrency": self.concurrency,
            "max_concurrency": self.max_concurrency,
            "concurrency_reason": self.concurrency_reason,
            "ttft_seconds": self.ttft_seconds,
            "tpot_seconds": self.tpot_seconds,
            "step_seconds": self.step_seconds,
            "decode_tokens_per_second": self.decode_tokens_per_second,
            "tokens_per_second": self.tokens_per_second,
            "tokens_per_second_per_gpu": self.tokens_per_second_per_gpu,
            "requests_per_second": self.requests_per_second,
            "latency_seconds": self.latency_seconds,
            "prefill_seconds": self.prefill_seconds,
            "prefill_bound": self.prefill_bound,
            "bound": self.decode_bound,
            "memory_seconds": self.memory_seconds,
            "compute_seconds": self.compute_seconds,
            "comm_seconds": self.comm_seconds,
            "overhead_seconds": self.overhead_seconds,
            "bytes_per_step": self.bytes_per_step,
            "flops_per_step": self.flops_per_step,
            "kv_cache_bytes_per_token": self.kv_bytes_per_token,
            "kv_free_bytes": self.kv_free_bytes,
            "cost_per_million_tokens": self.cost_per_million_tokens,
            "slo_met": self.slo_met,
            "tp": self.inputs.tp,
            "pp": self.inputs.pp,
            "replicas": self.inputs.replicas,
            "serving_notes": list(self.notes),
            "tokens_per_second_low": self.tokens_per_second_low,
            "tokens_per_second_high": self.tokens_per_second_high,
            "range_meaning": self.range_meaning,
            "curve": {
                "concurrency": self.curve.concurrency.astype(int).tolist(),
                "ttft_seconds": self.curve.ttft_seconds.tolist(),
                "tpot_seconds": self.curve.tpot_seconds.tolist(),
                "tokens_per_second": self.curve.tokens_per_second.tolist(),
                "meets_slo": self.curve.meets_slo.tolist(),
            },
        }


def concurrency_grid(cap: float, points: int = 40) -> FloatArray:
    """1 … cap, geometric, whole numbers, cap included."""
    top = max(1.0, float(cap))
    grid = np.unique(np.round(np.geomspace(1.0, top, num=points)))
    return np.asarray(np.union1d(grid, [top]), dtype=float)


def estimate_serving(inp: ServingInputs) -> ServingEstimate:
    s = _setup(inp)
    sh = _shares(inp, s)
    cap, free, per_seq = kv_capacity(inp, s)
    notes: list[str] = []
    if cap < 1:
        raise InputError(
            "gpus",
            f"the weights ({units.format_bytes(inp.params * s.weight_bpv)}) leave no room for "
            f"one sequence's KV cache ({units.format_bytes(per_seq)}) on "
            f"{units.plural(inp.gpus, 'device')}; "
            "use more devices or a smaller precision",
        )
    limit = min(cap, float(inp.max_running))
    run = _static if inp.batching == "static" else _continuous
    grid = concurrency_grid(limit if math.isfinite(limit) else inp.max_running)
    if inp.batching == "static":
        grid = np.union1d(grid, [float(inp.batch_size)])
    out = run(inp, s, sh, grid)
    ok = np.ones_like(grid, dtype=bool)
    if inp.ttft_slo_s is not None:
        ok &= out["ttft"] <= inp.ttft_slo_s
    if inp.tpot_slo_s is not None:
        ok &= out["tpot"] <= inp.tpot_slo_s
    slo_given = inp.ttft_slo_s is not None or inp.tpot_slo_s is not None
    slo_met: bool | None = None
    if inp.batching == "static":
        b = float(inp.batch_size)
        reason = "the static batch given"
        if math.isfinite(cap) and b > cap:
            notes.append(
                f"a batch of {inp.batch_size} needs more KV cache than the devices hold "
                f"(at most {units.plural(int(cap), 'sequence')})"
            )
    elif inp.concurrency is not None:
        b = float(inp.concurrency)
        reason = "given"
        if math.isfinite(cap) and b > cap:
            b = cap
            held = units.plural(int(cap), "sequence")
            reason = f"given {inp.concurrency}, cut to the {held} the KV cache holds"
    elif slo_given:
        feasible = grid[ok & (grid <= limit)]
        if feasible.size:
            b = float(feasible.max())
            reason = "the highest concurrency that meets the latency targets"
        else:
            b = 1.0
            reason = "no concurrency meets the latency targets; shown at 1"
    else:
        b = float(limit)
        reason = (
            f"the KV cache holds {units.plural(int(cap), 'sequence')}"
            if math.isfinite(cap) and cap <= inp.max_running
            else f"the engine's cap of {inp.max_running} running sequences"
        )
    at = run(inp, s, sh, b)
    if slo_given:
        slo_met = bool(
            (inp.ttft_slo_s is None or float(at["ttft"]) <= inp.ttft_slo_s)
            and (inp.tpot_slo_s is None or float(at["tpot"]) <= inp.tpot_slo_s)
        )
        if not slo_met:
            notes.append(_slo_miss(inp, float(at["ttft"]), float(at["tpot"])))
    dec, pre = at["decode"], at["prefill"]
    step = float(dec["step"])
    memory, compute = float(dec["memory"]), float(dec["compute"])
    rate = float(at["rate"])
    ttft, tpot = float(at["ttft"]), float(at["tpot"])
    total_gpus = inp.gpus * inp.replicas
    cost = None
    if inp.price is not None:
        cost = inp.price * total_gpus / units.SECONDS_PER_HOUR / rate * 1e6
    latency = ttft + inp.output_tokens * tpot
    # bound: the step's FLOPs at the fitted share against its memory reads (the matmuls' fixed
    # part, gemm_efficiency, is their weights streaming: it counts on the memory side)
    pre_bound = (
        "compute" if float(np.max(pre["math"])) >= float(np.max(pre["memory"])) else ("memory")
    )
    dec_bound = "compute" if float(dec["math"]) >= memory else "memory"
    if s.shape_assumed:
        notes.append(
            f"shape assumed from the parameter count: {s.layers} layers, hidden {s.hidden}, "
            f"{s.heads} heads, {s.kv_heads} KV heads (give --layers --hidden --heads --kv-heads)"
        )
    notes.append(_bound_note(inp, s, dec, pre, b, pre_bound, dec_bound))
    est = ServingEstimate(
        inputs=inp,
        batching=inp.batching,
        concurrency=int(b),
        max_concurrency=None if not math.isfinite(cap) else int(cap),
        concurrency_reason=reason,
        ttft_seconds=ttft,
        tpot_seconds=tpot,
        step_seconds=step,
        decode_tokens_per_second=b / step,
        tokens_per_second=rate,
        tokens_per_second_per_gpu=rate / total_gpus,
        requests_per_second=rate / inp.output_tokens,
        latency_seconds=latency,
        prefill_seconds=float(np.max(pre["time"])),
        prefill_bound=pre_bound,
        decode_bound=dec_bound,
        memory_seconds=memory,
        compute_seconds=compute,
        comm_seconds=float(dec["comm"]),
        overhead_seconds=float(dec["overhead"]),
        bytes_per_step=float(dec["bytes"]),
        flops_per_step=float(dec["flops"]),
        weights_bytes=inp.params * s.weight_bpv,
        kv_bytes_per_token=kv_bytes_per_token(s),
        kv_free_bytes=None if not math.isfinite(free) else free,
        cost_per_million_tokens=cost,
        price_per_gpu_hour=inp.price,
        price_source=inp.price_source or ("given" if inp.price is not None else ""),
        slo_met=slo_met,
        curve=ServingCurve(grid, out["ttft"], out["tpot"], out["rate"], ok),
        notes=tuple(notes),
        formula="",
        assumptions=tuple(_assumptions(inp, s, sh)),
        **_likely_range(inp, s, rate),
    )
    return replace(est, formula=_formula(est, s, sh))


def _likely_range(inp: ServingInputs, s: _Setup, rate: float) -> dict[str, Any]:
    """Throughput range from the predicted/measured ratios on sources the fit did not use; a
    GPU without serving rows gets the widest ratio seen there."""
    cal = s.calib
    if not cal.range_rows or inp.accelerator is None:
        return {}
    seen = s.acc is not None and s.acc.id in cal.accelerators
    engines = (
        "engine terms (per-step overhead, scheduling, small-GEMM rate) fitted on TensorRT-LLM "
        "and gpt-fast; other engines differ by about ±30%"
    )
    if seen:
        low, high = cal.range_ratio
        why = (
            f"10-90% of predicted/measured on {cal.range_rows} published measurements the "
            f"calibration did not use; {engines}"
        )
    else:
        low, high = cal.unseen_ratio if cal.unseen_rows else cal.wide_ratio
        rows = cal.unseen_rows or cal.range_rows
        why = (
            f"wider: no serving measurements of {inp.accelerator} in the fit, so its GPU terms "
            "are its datasheet bandwidth × the fitted share and its published matmul efficiency; "
            f"the range is the widest predicted/measured on {rows} published measurements of "
            f"GPUs outside the fit (the calibration did not use them); {engines}"
        )
    return {
        "tokens_per_second_low": rate / high,
        "tokens_per_second_high": rate / low,
        "range_meaning": why,
    }


def _slo_miss(inp: ServingInputs, ttft: float, tpot: float) -> str:
    parts = []
    if inp.ttft_slo_s is not None and ttft > inp.ttft_slo_s:
        parts.append(
            f"time to first token {units.format_duration(ttft)} > target "
            f"{units.format_duration(inp.ttft_slo_s)}"
        )
    if inp.tpot_slo_s is not None and tpot > inp.tpot_slo_s:
        parts.append(
            f"time per output token {units.format_duration(tpot)} > target "
            f"{units.format_duration(inp.tpot_slo_s)}"
        )
    return (
        "targets missed even at one sequence: "
        + "; ".join(parts)
        + (" (more tensor parallel devices or a smaller precision shorten both)")
    )


def _bound_note(
    inp: ServingInputs, s: _Setup, dec: dict, pre: dict, b: float, pre_bound: str, dec_bound: str
) -> str:
    per_gpu = float(dec["bytes"]) / inp.tp
    return (
        f"prefill: {pre_bound}-bound ({units.format_flops(2.0 * s.active * inp.prompt_tokens)} "
        f"per prompt); decode: {dec_bound}-bound at {units.plural(int(b), 'sequence')}, reads "
        f"{units.format_bytes(per_gpu)} per device per step"
        + (
            f", tensor-parallel all-reduces {units.format_duration(float(dec['comm']))} per step"
            if inp.tp > 1
            else ""
        )
    )


def _formula(e: ServingEstimate, s: _Setup, sh: _Shares) -> str:
    inp = e.inputs
    tp = inp.tp
    lines = [
        f"decode step = max(memory, compute) + all-reduce + overhead = "
        f"max({units.format_duration(e.memory_seconds)}, "
        f"{units.format_duration(e.compute_seconds)}) + "
        f"{units.format_duration(e.comm_seconds)} + {units.format_duration(e.overhead_seconds)} "
        f"= {units.format_duration(e.step_seconds)}",
        f"memory = (weights read + KV at context) / ({tp} × bandwidth × {sh.bandwidth:.2f}) "
        f"= {units.format_bytes(e.bytes_per_step)} / ({tp} × "
        f"{units.format_si(s.bandwidth, 'B/s')} × {sh.bandwidth:.2f})",
        f"compute = (2·N_active / (M / (M + M½)) + 4·L·d·context) × B / ({tp} × peak × "
        f"{sh.compute:.2f}): {units.format_flops(e.flops_per_step)} at {tp} × "
        f"{units.format_flop_rate(s.peak_linear)} × {sh.compute:.2f}, each matmul slowed by its "
        f"rows M (dense: B; routed expert: B·k/E) against M½ = "
        f"{float(sh.half_ridge * ridge_rows(s, sh)):.0f} rows",
    ]
    if e.batching == "continuous":
        lines.append(
            f"TPOT = step + (B / output tokens) × prefill compute = "
            f"{units.format_duration(e.tpot_seconds)} at B = {e.concurrency}"
        )
        lines.append(
            f"TTFT = prefill + one step = {units.format_duration(e.ttft_seconds)}; throughput = "
            f"B / TPOT × {units.plural(inp.replicas, 'replica')} = "
            f"{e.tokens_per_second:,.4g} tokens/s"
        )
    else:
        lines.append(
            f"batch time = prefill of {inp.batch_size:,} prompts + {inp.output_tokens:,} steps; "
            f"throughput = B × output / batch time = {e.tokens_per_second:,.4g} tokens/s"
        )
    if e.max_concurrency is not None and e.kv_free_bytes is not None:
        lines.append(
            f"KV cache bound = free {units.format_bytes(e.kv_free_bytes)} / "
            f"({units.format_bytes(e.kv_bytes_per_token)} per token × context in 16-token pages) "
            f"= {units.plural(e.max_concurrency, 'sequence')}"
        )
    if e.cost_per_million_tokens is not None and inp.price is not None:
        lines.append(
            f"cost per million output tokens = {units.format_money(inp.price)}/GPU-h × "
            f"{e.total_gpus} / 3600 / throughput × 1e6 = "
            f"{units.format_money(e.cost_per_million_tokens)}"
        )
    return "\n".join(lines)


def _assumptions(inp: ServingInputs, s: _Setup, sh: _Shares) -> list[Assumption]:
    c = s.calib
    if c.holdout_within_1_5 is not None and c.holdout_median_error is not None:
        judged = (
            f"; on {c.range_rows} measurements from sources the fit did not use: "
            f"{c.holdout_within_1_5:.0%} within 1.5×, median error ×{c.holdout_median_error:.2f}"
        )
    elif c.loo_within_1_5 is not None:
        judged = f"; leave-one-out: {c.loo_within_1_5:.0%} of {c.rows} rows within 1.5×"
    else:
        judged = ""
    fitted = c.source + judged
    out = [
        Assumption(
            "achieved share of memory bandwidth",
            units.format_percent(sh.bandwidth, 0),
            "given" if inp.bandwidth_share is not None else fitted,
        ),
        Assumption(
            "achieved share of compute peak",
            units.format_percent(sh.compute, 0),
            "given" if inp.compute_share is not None else fitted,
        ),
        Assumption(
            "fixed overhead per step",
            units.format_duration(float(sh.overhead)),
            "given" if inp.step_overhead_s is not None else fitted,
        ),
        Assumption("software generation", c.software or "unstated", c.source),
        Assumption(
            "paged KV cache",
            f"{PAGE_TOKENS}-token pages, {MEMORY_FRACTION:.0%} of device memory usable, "
            f"{DEFAULT_OVERHEAD_GIB:g} GiB runtime reserve per device",
            f"{PAGE_SOURCE}; {MEMORY_FRACTION_SOURCE}",
        ),
        Assumption("running sequences cap", str(inp.max_running), MAX_BATCH_SOURCE),
        Assumption(
            "tensor parallel",
            f"{inp.tp} devices, 2 all-reduces per layer per step"
            + (f", {inp.pp} pipeline stages" if inp.pp > 1 else ""),
            "Megatron-LM tensor parallelism (Shoeybi et al. 2019); bus bandwidth and latency "
            "from the interconnect catalog",
        ),
    ]
    if s.acc is not None and c.accelerators and s.acc.id not in c.accelerators:
        out.append(
            Assumption(
                "calibration coverage",
                f"{s.acc.name} is not among the measured accelerators "
                f"({', '.join(c.accelerators)}); the same achieved shares are assumed",
                c.source,
            )
        )
    if inp.precision in QUANT_BANDWIDTH_SHARE:
        out.append(
            Assumption(
                "weight-only quantization",
                f"{inp.precision}: {s.quant_share:.0%} of the 16-bit bandwidth share "
                f"({inp.quant_kernels} kernels), compute in {s.compute_precision}",
                QUANT_SOURCE if inp.quant_kernels == "gpt-fast" else FUSED_QUANT_SOURCE,
            )
        )
    out.append(
        Assumption(
            "matmul rate against its rows",
            f"M / (M + M½) of the compute share, M½ = {float(sh.half_ridge):.2f} × "
            f"{float(ridge_rows(s, sh)):.0f} rows (where FLOP time equals weight-read time); "
            "dense matmuls see the step's tokens, routed experts the k/E of them routed to each",
            f"{c.source}; Hockney's half-performance form; NVIDIA Matrix Multiplication "
            "Background User's Guide (arithmetic intensity against ops:byte)",
        )
    )
    if s.gpu_compute_ratio != 1.0:
        out.append(
            Assumption(
                "matmul rate of this GPU",
                f"× {s.gpu_compute_ratio:.2f} of the fitted compute share: its published "
                "best-shape matmul efficiency against the calibration GPUs' (H100, H200, A100)",
                "perf_training matmul efficiency table (mamf-finder figures; the median where a "
                "GPU has none)",
            )
        )
    if inp.is_moe:
        out.append(
            Assumption(
                "mixture of experts",
                f"{s.experts} experts, top-{s.moe_top_k}; a decode step reads the distinct experts "
                "its tokens touch, E·(1 − (1 − k/E)^B), uniform routing",
                "given" if inp.experts and inp.moe_top_k else MOE_SOURCE,
            )
        )
    out.append(
        Assumption(
            "left out",
            "request queueing, speculative decoding, prefix caching, CPU offload",
            "the model covers the steady state of one replica",
        )
    )
    return out


@dataclass(frozen=True, eq=False)
class StaticSweep:
    """Static batches of each size: decode step, bound, throughput, latency, memory, cost."""

    batch_size: FloatArray
    step_seconds: FloatArray
    compute_bound: npt.NDArray[np.bool_]
    throughput_per_second: FloatArray
    latency_seconds: FloatArray
    cost_per_million: FloatArray | None
    memory_per_device_bytes: FloatArray


def static_sweep(inp: ServingInputs, batch_sizes: Any) -> StaticSweep:
    """The throughput-against-batch curve of static batches (the ``--sweep`` table)."""
    b = np.asarray(batch_sizes, dtype=float).ravel()
    s = _setup(inp)
    sh = _shares(inp, s)
    out = _static(inp, s, sh, b)
    dec = out["decode"]
    latency = out["ttft"] + inp.output_tokens * out["tpot"]
    cost = None
    if inp.price is not None:
        cost = inp.price * inp.gpus * inp.replicas / units.SECONDS_PER_HOUR / out["rate"] * 1e6
    resident = resident_weight_bytes(inp, s) + b * (inp.prompt_tokens + inp.output_tokens) * (
        kv_bytes_per_token(s)
    )
    per_device = resident / inp.gpus + DEFAULT_OVERHEAD_GIB * units.GIB
    return StaticSweep(
        b,
        dec["step"],
        np.asarray(dec["math"] >= dec["memory"]),
        out["rate"],
        latency,
        cost,
        per_device,
    )


def _given_shares(inference: Any) -> dict[str, float]:
    """The roofline's utilization and bandwidth efficiency, when given, as the serving model's
    compute and bandwidth shares (``--utilization`` and ``--bandwidth-efficiency`` set both; a
    scenario's saved values must mean the same)."""
    from desktopapp.model.inference import DEFAULT_BANDWIDTH_EFFICIENCY

    out: dict[str, float] = {}
    if getattr(inference, "utilization", None) is not None:
        out["compute_share"] = inference.utilization
    efficiency = getattr(inference, "bandwidth_efficiency", DEFAULT_BANDWIDTH_EFFICIENCY)
    if efficiency != DEFAULT_BANDWIDTH_EFFICIENCY:
        out["bandwidth_share"] = efficiency
    return out


def from_inference(inference: Any, **extra: Any) -> ServingInputs:
    """Serving inputs from the roofline's :class:`~desktopapp.model.inference.InferenceInputs`
    (same model, device, shape, request and price) plus the serving-only fields in ``extra``."""
    return ServingInputs(
        params=inference.params,
        accelerator=inference.accelerator,
        peak_tflops=inference.peak_tflops,
        bandwidth_gbs=inference.bandwidth_gbs,
        precision=inference.precision,
        layers=inference.layers,
        hidden=inference.hidden,
        heads=inference.heads,
        kv_heads=inference.kv_heads,
        prompt_tokens=inference.prompt_tokens,
        output_tokens=inference.output_tokens,
        gpus=inference.gpus,
        price=inference.price,
        price_source=inference.price_source,
        **{
            "ttft_slo_s": inference.ttft_target_s,
            "active_params": inference.active_params,
            "tpot_slo_s": inference.tpot_target_s,
            **{  # the model's routing and the KV format saved with the workload
                name: value
                for name in ("experts", "moe_top_k", "kv_precision")
                if (value := getattr(inference, name, None)) is not None
            },
            **_given_shares(inference),
            **extra,
        },
    )
