"""Inference speed and cost from a roofline: is a step limited by compute or by memory reads?

For one step over a batch of B:

- compute time = FLOPs per step / (peak × utilization)
- memory time = bytes read per step / (bandwidth × bandwidth efficiency)
- step time = max of the two; the larger names the bound.

A language model (no ``forward_flops``) spends 2·N FLOPs per generated token and reads all the
weights plus the KV cache once per decode step; its prompt is processed in one prefill pass.
Any other model (``forward_flops`` per sample) runs one forward pass per batch of predictions.
:func:`roofline_arrays` is the one formula behind the single estimate and the batch sweep.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import BYTES_PER_VALUE, Accelerator, get_accelerator
from desktopapp.model.memory import (
    DEFAULT_OVERHEAD_GIB,
    KV_PRECISIONS,
    kv_bytes_per_value,
    kv_cache_bytes,
)
from desktopapp.model.training import DEFAULT_UTILIZATION, catalog_price
from desktopapp.model.training_defaults import DEFAULT_MOE_EXPERTS, moe_count
from desktopapp.model.validation import (
    InputError,
    no_accelerator,
    require_choice,
    require_count,
    require_fraction,
    require_int,
    require_positive,
    require_shape,
)

INFERENCE_PRECISIONS: tuple[str, ...] = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
# decoder: generates tokens one by one (prefill, then decode steps: TTFT/TPOT apply);
# encoder (BERT): one forward pass over the whole sequence per request, nothing generated
ARCHITECTURES: tuple[str, ...] = ("decoder", "encoder")
DEFAULT_BANDWIDTH_EFFICIENCY = 0.8
BANDWIDTH_EFFICIENCY_SOURCE = (
    "streaming benchmarks (e.g. BabelStream) reach about 80-90% of the datasheet HBM bandwidth; "
    "0.8 is the cautious end"
)
DEFAULT_PROMPT_TOKENS = 512
DEFAULT_OUTPUT_TOKENS = 256
INFERENCE_UTILIZATION_SOURCE = (
    "same planning default as training (typical band 30-50%); applies to the compute-bound "
    "parts (prefill, large batches)"
)
# When the accelerator has no peak at the weight precision, compute runs at the first of these
# it supports (weight-only quantized kernels dequantize to 16 bit before the matmul).
COMPUTE_FALLBACK: tuple[str, ...] = ("bf16", "fp16", "fp32")
MAX_BATCH = 1_000_000
MAX_TOKENS = 10_000_000
MAX_GPUS = 1_000_000

FloatArray = npt.NDArray[np.float64]


def _optional_positive(name: str, value: float | None) -> float | None:
    return None if value is None else require_positive(name, value)


def _optional_int(name: str, value: Any) -> int | None:
    return None if value is None else require_int(name, value, minimum=1)


@dataclass(frozen=True)
class InferenceInputs:
    """A model served on an accelerator (catalog id) or on given peak + bandwidth figures.

    ``peak_tflops`` and ``bandwidth_gbs`` (decimal GB/s, per device) override the catalog.
    The transformer shape (layers, hidden, heads, kv_heads) adds the KV cache to the bytes read.
    ``price`` is USD per GPU-hour; ``gpus`` devices split the model evenly (tensor parallel).
    """

    params: float
    forward_flops: float | None = None  # per sample; None → language model, 2·N per token
    accelerator: str | None = None
    peak_tflops: float | None = None
    bandwidth_gbs: float | None = None
    precision: str = "bf16"
    batch_size: int = 1
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS
    output_tokens: int = DEFAULT_OUTPUT_TOKENS
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    gpus: int = 1
    utilization: float | None = None
    bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY
    price: float | None = None
    price_source: str = ""
    # Serving latency targets (time to first token, time per output token), saved with the
    # scenario; the serving model picks the highest concurrency that meets them.
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None
    # Mixture of experts: parameters each token uses (FLOPs 2·N_active per token; the weights
    # read are all N in the roofline, the experts a batch touches in the serving model).
    active_params: float | None = None
    # "encoder": one forward pass of 2·N FLOPs per token over prompt_tokens (the sequence
    # length) per request; no decoding, so no time to first token or per output token
    architecture: str = "decoder"
    # Mixture of experts (with active_params): experts per layer and experts each token is
    # routed to (None: the serving model's defaults, 8 and top-2)
    experts: int | None = None
    moe_top_k: int | None = None
    # KV-cache number format (None: 16 bit, fp32 with fp32 weights); fp8 halves the cache
    kv_precision: str | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "params", require_count("params", self.params))
        if self.active_params is not None:
            set_(self, "active_params", require_count("active_params", self.active_params))
        require_choice("architecture", self.architecture, ARCHITECTURES)
        names = ("forward_flops", "peak_tflops", "bandwidth_gbs", "price")
        for name in (*names, "ttft_target_s", "tpot_target_s"):
            set_(self, name, _optional_positive(name, getattr(self, name)))
        require_choice("precision", self.precision, INFERENCE_PRECISIONS)
        set_(self, "batch_size", require_int("batch_size", self.batch_size, maximum=MAX_BATCH))
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
        if self.is_encoder and self.prompt_tokens < 1:
            raise InputError("prompt_tokens", "an encoder reads a sequence: give at least 1 token")
        for name in ("layers", "hidden", "heads", "kv_heads"):
            set_(self, name, _optional_int(name, getattr(self, name)))
        set_(self, "gpus", require_int("gpus", self.gpus, maximum=MAX_GPUS))
        if self.utilization is not None:
            set_(self, "utilization", require_fraction("utilization", self.utilization))
        set_(
            self,
            "bandwidth_efficiency",
            require_fraction("bandwidth_efficiency", self.bandwidth_efficiency),
        )
        if self.active_params is not None and self.active_params > self.params:
            raise InputError(
                "active_params",
                "a mixture of experts uses at most all its parameters per token: give at "
                f"most the parameter count ({units.format_big_count(self.params)})",
            )
        self._check_shape()
        self._check_moe()
        if self.kv_precision is not None:
            require_choice("kv_precision", self.kv_precision, KV_PRECISIONS)
        if self.accelerator is not None and not isinstance(self.accelerator, str):
            raise ValueError(f"accelerator: expected a catalog id, got {self.accelerator!r}")
        acc = None if self.accelerator is None else get_accelerator(self.accelerator)
        if self.peak_tflops is None and acc is None:
            raise no_accelerator()
        if self.bandwidth_gbs is None:
            if acc is None:
                raise ValueError(
                    "bandwidth_gbs: give the memory bandwidth in GB/s or an accelerator id"
                )
            if not acc.memory_bandwidth_gbs:
                raise ValueError(
                    f"bandwidth_gbs: {acc.name} has no published memory bandwidth; give one"
                )
        if self.peak_tflops is None and acc is not None:
            _compute_precision(acc, self.precision)  # raises "precision: …" if none fits

    @property
    def compute_params(self) -> float:
        """Parameters each token computes with: the active ones of a mixture of experts."""
        return self.params if self.active_params is None else self.active_params

    def _check_shape(self) -> None:
        require_shape(self.layers, self.hidden, self.heads, self.kv_heads)  # the KV cache's

    def _check_moe(self) -> None:
        """Experts and top-k (:func:`moe_count`), top-k at most the experts."""
        for name in ("experts", "moe_top_k"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, moe_count(name, value, self.active_params))
        top_k = self.moe_top_k
        if top_k is not None and top_k > (self.experts or DEFAULT_MOE_EXPERTS):
            which = (
                f"the number of experts ({self.experts})"
                if self.experts is not None
                else f"the experts per layer ({DEFAULT_MOE_EXPERTS} when not given): give them"
            )
            raise InputError("moe_top_k", f"must be at most {which}")

    @property
    def is_language_model(self) -> bool:
        """A decoder that generates tokens (the serving model applies)."""
        return self.forward_flops is None and self.architecture == "decoder"

    @property
    def is_encoder(self) -> bool:
        return self.forward_flops is None and self.architecture == "encoder"

    @property
    def sample_flops(self) -> float:
        """FLOPs of one forward pass per sample (an encoder's: 2·N per token × sequence)."""
        if self.is_encoder:
            return 2.0 * self.compute_params * self.prompt_tokens
        return float(self.forward_flops or 0.0)

    @property
    def unit(self) -> str:
        if self.is_encoder:
            return "sequence"
        return "token" if self.is_language_model else "prediction"

    def to_dict(self) -> dict[str, Any]:
        return {
            "params": self.params,
            "forward_flops": self.forward_flops,
            "accelerator": self.accelerator,
            "peak_tflops": self.peak_tflops,
            "bandwidth_gbs": self.bandwidth_gbs,
            "precision": self.precision,
            "batch_size": self.batch_size,
            "architecture": self.architecture,
            "prompt_tokens": self.prompt_tokens
            if self.is_language_model or self.is_encoder
            else None,
            "output_tokens": self.output_tokens if self.is_language_model else None,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "gpus": self.gpus,
            "utilization": self.utilization,
            "bandwidth_efficiency": self.bandwidth_efficiency,
            "price": self.price,
            "price_source": self.price_source,
            "experts": self.experts,
            "moe_top_k": self.moe_top_k,
            "kv_precision": self.kv_precision,
        }


def with_catalog_price(inputs: InferenceInputs, pricing: str = "on_demand") -> InferenceInputs:
    """Fill ``price`` from the cheapest catalog offer for the accelerator, if none was given."""
    if inputs.price is not None or inputs.accelerator is None:
        return inputs
    found = catalog_price(inputs.accelerator, pricing)
    if found is None:
        return inputs
    return replace(inputs, price=found[0], price_source=found[1])


def _compute_precision(acc: Accelerator, precision: str) -> str:
    for p in (precision, *COMPUTE_FALLBACK):
        if p in acc.peak_tflops:
            return p
    acc.peak_flops(precision)  # raises "precision: … has no published … peak"
    return precision  # pragma: no cover - peak_flops raised


@dataclass(frozen=True)
class _Hardware:
    """The per-device peak, bandwidth and efficiencies a serving estimate uses, sourced."""

    peak_flops: float  # per device
    compute_precision: str
    peak_source: str
    bandwidth: float  # bytes/s per device
    bandwidth_source: str
    utilization: float
    utilization_source: str
    accelerator: Accelerator | None


def _hardware(inputs: InferenceInputs) -> _Hardware:
    acc = None if inputs.accelerator is None else get_accelerator(inputs.accelerator)
    if inputs.peak_tflops is not None:
        peak, cp, peak_src = inputs.peak_tflops * 1e12, inputs.precision, "given"
    else:
        assert acc is not None
        cp = _compute_precision(acc, inputs.precision)
        peak = acc.peak_flops(cp)
        peak_src = f"{acc.name} datasheet, dense {cp}: {acc.source}"
        if cp != inputs.precision:
            how = (
                "weight-only quantized kernels compute in"
                if inputs.precision in ("fp8", "int8", "int4")
                else "computing in"
            )
            peak_src += f" ({acc.name} has no {inputs.precision} peak: {how} {cp})"
    if inputs.bandwidth_gbs is not None:
        bw, bw_src = inputs.bandwidth_gbs * 1e9, "given"
    else:
        assert acc is not None and acc.memory_bandwidth_gbs
        bw, bw_src = acc.memory_bandwidth_gbs * 1e9, f"{acc.name} datasheet: {acc.source}"
    if inputs.utilization is not None:
        util, util_src = inputs.utilization, "given"
    else:
        util, util_src = DEFAULT_UTILIZATION, INFERENCE_UTILIZATION_SOURCE
    return _Hardware(peak, cp, peak_src, bw, bw_src, util, util_src, acc)


def weight_bytes(inputs: InferenceInputs) -> float:
    """All weights at the chosen precision (quantization scales left out)."""
    return inputs.params * float(BYTES_PER_VALUE[inputs.precision])


def kv_bytes_per_token(inputs: InferenceInputs) -> float:
    """KV-cache bytes one sequence adds per token of context (0 without the shape)."""
    if inputs.layers is None or inputs.hidden is None or inputs.heads is None:
        return 0.0
    return kv_cache_bytes(
        inputs.layers,
        inputs.kv_heads or inputs.heads,
        inputs.hidden / inputs.heads,
        1,
        1,
        kv_bytes_per_value(inputs.precision, inputs.kv_precision),
    )


@dataclass(frozen=True, eq=False)
class Roofline:
    """Per-batch-size arrays (numpy, broadcast over ``batch_size``)."""

    batch_size: FloatArray
    flops_per_step: FloatArray
    bytes_per_step: FloatArray
    compute_seconds: FloatArray
    memory_seconds: FloatArray
    step_seconds: FloatArray
    prefill_seconds: FloatArray  # 0 for non-language models
    latency_seconds: FloatArray
    throughput_per_second: FloatArray  # output tokens or predictions per second, end to end
    decode_tokens_per_second: FloatArray  # B / step (language models; = throughput otherwise)
    cost_per_million: FloatArray | None
    memory_per_device_bytes: FloatArray

    @property
    def compute_bound(self) -> npt.NDArray[np.bool_]:
        return np.asarray(self.compute_seconds >= self.memory_seconds)


def _step_time(
    flops: FloatArray, nbytes: FloatArray, hw: _Hardware, inputs: InferenceInputs
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The roofline itself: (compute seconds, memory seconds, step seconds)."""
    g = float(inputs.gpus)
    compute = flops / (hw.peak_flops * hw.utilization * g)
    memory = nbytes / (hw.bandwidth * inputs.bandwidth_efficiency * g)
    return compute, memory, np.maximum(compute, memory)


def roofline_arrays(inputs: InferenceInputs, batch_sizes: Any) -> Roofline:
    """Step time, latency, throughput and cost for each batch size (the one formula)."""
    b = np.asarray(batch_sizes, dtype=float).ravel()
    if b.size == 0 or not np.all(np.isfinite(b)) or np.any(b < 1) or np.any(b != np.floor(b)):
        raise ValueError("batch_size: sweep values must be whole numbers of at least 1")
    hw = _hardware(inputs)
    w = weight_bytes(inputs)
    kv_tok = kv_bytes_per_token(inputs)
    if inputs.is_language_model:
        p, t = float(inputs.prompt_tokens), float(inputs.output_tokens)
        # Decode: one token per sequence; the KV read grows with the context, so the step at
        # the mean context (prompt + output/2) times the output length gives the total.
        flops = 2.0 * inputs.compute_params * b
        nbytes = w + kv_tok * (p + t / 2.0) * b
        compute, memory, step = _step_time(flops, nbytes, hw, inputs)
        # Prefill: the whole prompt in one pass; weights read once, the KV cache written.
        pre_flops = 2.0 * inputs.compute_params * p * b
        pre_bytes = w + kv_tok * p * b
        prefill = _step_time(pre_flops, pre_bytes, hw, inputs)[2] if p > 0 else np.zeros_like(b)
        latency = prefill + t * step
        throughput = b * t / latency
        decode_rate = b / step
        resident = w + kv_tok * (p + t) * b
    else:
        flops = inputs.sample_flops * b
        nbytes = np.full_like(b, w)
        compute, memory, step = _step_time(flops, nbytes, hw, inputs)
        prefill = np.zeros_like(b)
        latency = step
        throughput = b / step
        decode_rate = throughput
        resident = np.full_like(b, w)
    per_device = resident / inputs.gpus + DEFAULT_OVERHEAD_GIB * units.GIB
    cost = None
    if inputs.price is not None:
        usd_per_second = inputs.price * inputs.gpus / units.SECONDS_PER_HOUR
        cost = usd_per_second / throughput * 1e6
    return Roofline(
        batch_size=b,
        flops_per_step=flops,
        bytes_per_step=nbytes,
        compute_seconds=compute,
        memory_seconds=memory,
        step_seconds=step,
        prefill_seconds=prefill,
        latency_seconds=latency,
        throughput_per_second=throughput,
        decode_tokens_per_second=decode_rate,
        cost_per_million=cost,
        memory_per_device_bytes=per_device,
    )


def inference_sweep_batch(inputs: InferenceInputs, batch_sizes: Any) -> Roofline:
    """Throughput-vs-batch curve (e.g. ``2 ** np.arange(0, 11)``), same formula as the estimate."""
    return roofline_arrays(inputs, batch_sizes)


@dataclass(frozen=True)
class InferenceEstimate:
    """Throughput, latency, memory and cost of serving a model (see ``estimate_inference``)."""

    inputs: InferenceInputs
    unit: str  # "token" | "prediction"
    peak_tflops: float  # per device at compute_precision
    compute_precision: str
    bandwidth_gbs: float  # per device, datasheet
    utilization: float
    bandwidth_efficiency: float
    weights_bytes: float
    kv_cache_bytes_per_token: float  # one sequence, one token of context
    flops_per_step: float
    bytes_per_step: float
    compute_seconds: float
    memory_seconds: float
    step_seconds: float
    bound: str  # "compute" | "memory"
    prefill_seconds: float
    latency_seconds: float
    throughput_per_second: float
    decode_tokens_per_second: float
    requests_per_second: float
    cost_per_million: float | None
    price_per_gpu_hour: float | None
    price_source: str
    compute_bound_batch_size: float | None  # batch where decode turns compute-bound; None: never
    memory_per_device_bytes: float
    device_memory_bytes: float | None
    accelerator_name: str | None
    formula: str
    assumptions: tuple[Assumption, ...] = field(default=())

    @property
    def tokens_per_second(self) -> float | None:
        return self.throughput_per_second if self.unit == "token" else None

    @property
    def predictions_per_second(self) -> float | None:
        return self.throughput_per_second if self.unit == "prediction" else None

    @property
    def sequences_per_second(self) -> float | None:
        """An encoder's requests served per second (forward passes over a whole sequence)."""
        return self.throughput_per_second if self.unit == "sequence" else None

    @property
    def input_tokens_per_second(self) -> float | None:
        """An encoder's tokens read per second (sequences/s × sequence length)."""
        rate = self.sequences_per_second
        return None if rate is None else rate * self.inputs.prompt_tokens

    @property
    def cost_per_million_tokens(self) -> float | None:
        return self.cost_per_million if self.unit == "token" else None

    @property
    def cost_per_million_predictions(self) -> float | None:
        return self.cost_per_million if self.unit == "prediction" else None

    @property
    def fits(self) -> bool | None:
        if self.device_memory_bytes is None:
            return None
        return self.memory_per_device_bytes <= self.device_memory_bytes

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "step_seconds": self.step_seconds,
            "bound": self.bound,
            "compute_seconds": self.compute_seconds,
            "memory_seconds": self.memory_seconds,
            "flops_per_step": self.flops_per_step,
            "bytes_per_step": self.bytes_per_step,
            "prefill_seconds": self.prefill_seconds,
            "latency_seconds": self.latency_seconds,
            "throughput_per_second": self.throughput_per_second,
            "tokens_per_second": self.tokens_per_second,
            "decode_tokens_per_second": (
                self.decode_tokens_per_second if self.unit == "token" else None
            ),
            "predictions_per_second": self.predictions_per_second,
            "architecture": self.inputs.architecture,
            "sequences_per_second": self.sequences_per_second,
            "input_tokens_per_second": self.input_tokens_per_second,
            "requests_per_second": self.requests_per_second,
            "cost_per_million": self.cost_per_million,
            "cost_per_million_tokens": self.cost_per_million_tokens,
            "cost_per_million_predictions": self.cost_per_million_predictions,
            "price_per_gpu_hour": self.price_per_gpu_hour,
            "price_source": self.price_source,
            "compute_bound_batch_size": self.compute_bound_batch_size,
            "peak_tflops": self.peak_tflops,
            "compute_precision": self.compute_precision,
            "bandwidth_gbs": self.bandwidth_gbs,
            "utilization": self.utilization,
            "bandwidth_efficiency": self.bandwidth_efficiency,
            "weights_bytes": self.weights_bytes,
            "kv_cache_bytes_per_token": self.kv_cache_bytes_per_token,
            "memory_per_device_bytes": self.memory_per_device_bytes,
            "device_memory_bytes": self.device_memory_bytes,
            "fits": self.fits,
            "accelerator": self.inputs.accelerator,
            "accelerator_name": self.accelerator_name,
            "formula": self.formula,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "inputs": self.inputs.to_dict(),
        }


def _compute_bound_batch(inputs: InferenceInputs, hw: _Hardware) -> float | None:
    """Smallest batch (real-valued) at which the decode step is compute-bound, if any."""
    g = float(inputs.gpus)
    c_per_seq = (
        2.0 * inputs.compute_params if inputs.is_language_model else inputs.sample_flops
    ) / (hw.peak_flops * hw.utilization * g)
    bw = hw.bandwidth * inputs.bandwidth_efficiency * g
    w = weight_bytes(inputs)
    if inputs.is_language_model:
        context = inputs.prompt_tokens + inputs.output_tokens / 2.0
        m_per_seq = kv_bytes_per_token(inputs) * context / bw
    else:
        m_per_seq = 0.0
    slope = c_per_seq - m_per_seq
    if slope <= 0:
        return None
    return max(1.0, (w / bw) / slope)


def estimate_inference(inputs: InferenceInputs) -> InferenceEstimate:
    hw = _hardware(inputs)
    r = roofline_arrays(inputs, [inputs.batch_size])
    step = float(r.step_seconds[0])
    compute = float(r.compute_seconds[0])
    memory = float(r.memory_seconds[0])
    latency = float(r.latency_seconds[0])
    device_memory = None if hw.accelerator is None else hw.accelerator.memory_bytes
    price_source = inputs.price_source or ("given" if inputs.price is not None else "")
    est = InferenceEstimate(
        inputs=inputs,
        unit=inputs.unit,
        peak_tflops=hw.peak_flops / 1e12,
        compute_precision=hw.compute_precision,
        bandwidth_gbs=hw.bandwidth / 1e9,
        utilization=hw.utilization,
        bandwidth_efficiency=inputs.bandwidth_efficiency,
        weights_bytes=weight_bytes(inputs),
        kv_cache_bytes_per_token=kv_bytes_per_token(inputs),
        flops_per_step=float(r.flops_per_step[0]),
        bytes_per_step=float(r.bytes_per_step[0]),
        compute_seconds=compute,
        memory_seconds=memory,
        step_seconds=step,
        bound="compute" if compute >= memory else "memory",
        prefill_seconds=float(r.prefill_seconds[0]),
        latency_seconds=latency,
        throughput_per_second=float(r.throughput_per_second[0]),
        decode_tokens_per_second=float(r.decode_tokens_per_second[0]),
        requests_per_second=inputs.batch_size / latency,
        cost_per_million=None if r.cost_per_million is None else float(r.cost_per_million[0]),
        price_per_gpu_hour=inputs.price,
        price_source=price_source,
        compute_bound_batch_size=_compute_bound_batch(inputs, hw),
        memory_per_device_bytes=float(r.memory_per_device_bytes[0]),
        device_memory_bytes=device_memory,
        accelerator_name=None if hw.accelerator is None else hw.accelerator.name,
        formula="",
        assumptions=tuple(_assumptions(inputs, hw, price_source)),
    )
    return _with_formula(est)


def _with_formula(e: InferenceEstimate) -> InferenceEstimate:
    inp = e.inputs
    peak = units.format_flop_rate(e.peak_tflops * 1e12)
    bw = units.format_si(e.bandwidth_gbs * 1e9, "B/s")
    lines = []
    if inp.is_language_model:
        lines.append(
            f"decode step FLOPs = 2 × N{'_active' if inp.active_params else ''} × B = 2 × "
            f"{units.format_big_count(inp.compute_params)} × "
            f"{inp.batch_size} = {units.format_flops(e.flops_per_step, 4)}"
        )
        if e.kv_cache_bytes_per_token > 0:
            kv = units.format_bytes(max(e.bytes_per_step - e.weights_bytes, 0.0))
            lines.append(
                f"bytes read per step = weights {units.format_bytes(e.weights_bytes)} + KV cache "
                f"at mean context {kv} = {units.format_bytes(e.bytes_per_step)}"
            )
        else:
            lines.append(
                f"bytes read per step = weights {units.format_bytes(e.bytes_per_step)} (KV cache "
                "not counted: give layers, hidden size and heads)"
            )
    elif inp.is_encoder:
        lines.append(
            f"step FLOPs = 2 × N × sequence × B = 2 × "
            f"{units.format_big_count(inp.compute_params)} × {inp.prompt_tokens} × "
            f"{inp.batch_size} = {units.format_flops(e.flops_per_step, 4)}"
        )
        lines.append(f"bytes read per step = weights = {units.format_bytes(e.bytes_per_step)}")
    else:
        lines.append(
            f"step FLOPs = forward × B = {units.format_flops(inp.forward_flops)} × "
            f"{inp.batch_size} = {units.format_flops(e.flops_per_step, 4)}"
        )
        lines.append(f"bytes read per step = weights = {units.format_bytes(e.bytes_per_step)}")
    gpus = f" × {inp.gpus:,} devices" if inp.gpus > 1 else ""
    lines.append(
        f"compute = FLOPs / (peak × U{gpus}) = {units.format_flops(e.flops_per_step, 4)} / "
        f"({peak} × "
        f"{e.utilization:.2f}{gpus}) = {units.format_duration(e.compute_seconds)}"
    )
    lines.append(
        f"memory = bytes / (bandwidth × efficiency{gpus}) = "
        f"{units.format_bytes(e.bytes_per_step)} / ({bw} × {e.bandwidth_efficiency:.2f}{gpus}) "
        f"= {units.format_duration(e.memory_seconds)}"
    )
    lines.append(
        f"step = max(compute, memory) = {units.format_duration(e.step_seconds)} ({e.bound}-bound)"
    )
    if inp.is_language_model:
        lines.append(
            f"latency = prefill {units.format_duration(e.prefill_seconds)} + "
            f"{inp.output_tokens} tokens × step = {units.format_duration(e.latency_seconds)}"
        )
        lines.append(
            "throughput = B × output tokens / latency = "
            f"{units.format_plain(e.throughput_per_second, 4)} tokens/s"
        )
    else:
        rate = units.format_plain(e.throughput_per_second, 4)
        lines.append(f"throughput = B / step = {rate} {e.unit}s/s")
    if e.cost_per_million is not None and inp.price is not None:
        lines.append(
            f"cost per million {e.unit}s = {units.format_money(inp.price)}/GPU-h × {inp.gpus} / "
            f"3600 / throughput × 1e6 = {units.format_money(e.cost_per_million)}"
        )
    return replace(e, formula="\n".join(lines))


def _assumptions(inputs: InferenceInputs, hw: _Hardware, price_source: str) -> list[Assumption]:
    out = [
        Assumption(
            "peak per device",
            f"{units.format_flop_rate(hw.peak_flops)} dense {hw.compute_precision}",
            hw.peak_source,
        ),
        Assumption(
            "memory bandwidth per device",
            units.format_si(hw.bandwidth, "B/s"),
            hw.bandwidth_source,
        ),
        Assumption(
            "compute utilization",
            units.format_percent(hw.utilization, 0),
            hw.utilization_source,
        ),
        Assumption(
            "bandwidth efficiency",
            units.format_percent(inputs.bandwidth_efficiency, 0),
            "given"
            if inputs.bandwidth_efficiency != DEFAULT_BANDWIDTH_EFFICIENCY
            else BANDWIDTH_EFFICIENCY_SOURCE,
        ),
        Assumption(
            "weights",
            f"{BYTES_PER_VALUE[inputs.precision]:g} B per parameter ({inputs.precision}), read "
            "once per step",
            "storage size of each number format: fp32 4 B, bf16/fp16 2 B, fp8/int8 1 B, int4 "
            "0.5 B; quantization scales left out",
        ),
    ]
    if inputs.is_language_model:
        out.append(
            Assumption(
                "FLOPs per generated token",
                "2 × parameters (attention over the context left out)",
                "Kaplan et al. 2020, §2.1 (forward pass ≈ 2·N FLOPs per token)",
            )
        )
        out.append(
            Assumption(
                "request shape",
                f"{inputs.prompt_tokens} prompt + {inputs.output_tokens} output tokens, "
                "static batch, prefill then decode",
                "given"
                if (inputs.prompt_tokens, inputs.output_tokens)
                != (DEFAULT_PROMPT_TOKENS, DEFAULT_OUTPUT_TOKENS)
                else "planning default",
            )
        )
        out.append(
            Assumption(
                "KV cache",
                "read at the mean context (prompt + output/2) each decode step"
                if inputs.layers is not None
                else "left out (give layers, hidden, heads to include it)",
                "2 × layers × kv_heads × head_dim × bytes per token of context",
            )
        )
    if inputs.gpus > 1:
        out.append(
            Assumption(
                "devices",
                f"{inputs.gpus}, model split evenly (ideal tensor parallel)",
                "communication between devices left out",
            )
        )
    out.append(
        Assumption(
            "price per GPU-hour",
            units.format_money(inputs.price) if inputs.price is not None else "none: no cost",
            price_source,
        )
    )
    return out
