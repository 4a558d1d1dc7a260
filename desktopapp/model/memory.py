"""Accelerator memory for training and inference: what takes the bytes and does it fit.

Training keeps weights, gradients and optimizer state per parameter (bytes per parameter below)
plus the activations of one micro-batch; ZeRO (Rajbhandari et al. 2020) shards the optimizer
state (stage 1), then the gradients (stage 2), then the weights (stage 3, as FSDP) across the
data-parallel devices. Inference keeps the weights and the KV cache. Each device also pays a
fixed runtime overhead (CUDA context, library workspaces).

Bytes per parameter (weights + gradients + optimizer, the optimizer column including the fp32
master copy where there is one):

============  =========  =====  ========  ==========
precision     weights    grads  AdamW     SGD+mom.
============  =========  =====  ========  ==========
fp32          4          4      8         4
bf16 / fp16   2          2      4         2
mixed         2          2      4 + 8     4 + 4
============  =========  =====  ========  ==========

8-bit Adam keeps two 1-byte states plus one fp32 scale per 2048-value block per state
(Dettmers et al. 2022), on top of the master copy in mixed precision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import BYTES_PER_VALUE, Accelerator, get_accelerator
from desktopapp.model.validation import (
    InputError,
    require_choice,
    require_count,
    require_int,
    require_positive,
    require_range,
    require_shape,
)

MODES: tuple[str, ...] = ("train", "inference")
TRAIN_PRECISIONS: tuple[str, ...] = ("fp32", "mixed", "bf16", "fp16")
INFERENCE_PRECISIONS: tuple[str, ...] = ("fp32", "mixed", "bf16", "fp16", "fp8", "int8", "int4")
PRECISIONS: tuple[str, ...] = INFERENCE_PRECISIONS
DEFAULT_PRECISION: Mapping[str, str] = MappingProxyType({"train": "mixed", "inference": "bf16"})
OPTIMIZERS: tuple[str, ...] = ("adamw", "sgd", "adam8bit")
ZERO_STAGES: tuple[int, ...] = (0, 1, 2, 3)

DEFAULT_OVERHEAD_GIB = 1.0
OVERHEAD_SOURCE = (
    "CUDA context with the framework's kernels loaded (~0.3-0.8 GiB depending on GPU, driver "
    "and lazy loading) plus cuBLAS/cuDNN workspaces and allocator slack; 1 GiB is a round "
    "planning figure per device"
)
ADAM8BIT_BLOCK = 2048  # values per quantization block; one fp32 absmax per block and state
KORTHIKANTI = (
    "Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models' "
    "(arXiv:2205.05198), §4.1: s·b·h·(34 + 5·a·s/h) bytes per layer, 16-bit, no parallelism"
)
MAX_SUGGESTED_GPUS = 4096
# Lower precisions a suggestion may move to, in order of preference.
TRAIN_PRECISION_ORDER: tuple[str, ...] = ("fp32", "mixed", "bf16")
INFERENCE_PRECISION_ORDER: tuple[str, ...] = ("fp32", "bf16", "int8", "int4")
_INFERENCE_RANK: Mapping[str, int] = MappingProxyType(
    {"fp32": 0, "mixed": 1, "bf16": 1, "fp16": 1, "fp8": 2, "int8": 2, "int4": 3}
)
MAX_GPUS = 1_000_000
MAX_OVERHEAD_GIB = 1024.0


@dataclass(frozen=True)
class BytesPerParam:
    """Bytes per parameter held for training: weights, gradients, fp32 master, optimizer."""

    weights: float
    gradients: float
    master: float  # fp32 master copy (mixed precision), counted with the optimizer state
    optimizer_states: float

    @property
    def optimizer(self) -> float:
        return self.master + self.optimizer_states

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer


def weight_bytes_per_value(precision: str) -> float:
    """Bytes per stored weight: ``mixed`` keeps 16-bit working weights."""
    return 2.0 if precision == "mixed" else float(BYTES_PER_VALUE[precision])


def bytes_per_param(precision: str, optimizer: str, mode: str = "train") -> BytesPerParam:
    """Bytes per parameter for weights, gradients, master copy and optimizer states."""
    w = weight_bytes_per_value(precision)
    if mode == "inference":
        return BytesPerParam(w, 0.0, 0.0, 0.0)
    state = 4.0 if precision in ("fp32", "mixed") else w  # optimizer moments' width
    master = 4.0 if precision == "mixed" else 0.0
    if optimizer == "adamw":
        states = 2 * state
    elif optimizer == "sgd":
        states = state
    else:  # adam8bit: two 1-byte moments + an fp32 absmax per block for each
        states = 2 * (1.0 + 4.0 / ADAM8BIT_BLOCK)
    return BytesPerParam(w, w, master, states)


def transformer_activation_bytes(
    layers: int,
    hidden: int,
    heads: int,
    seq_len: int,
    batch_size: int,
    *,
    checkpointing: bool = False,
    flash_attention: bool = False,
    bytes_scale: float = 1.0,
) -> float:
    """Activations kept for the backward pass of one micro-batch (Korthikanti et al. 2022).

    Without checkpointing every layer keeps ``s·b·h·(34 + 5·a·s/h)`` bytes (16-bit values and
    1-byte dropout masks). With full checkpointing only each layer's input (``2·s·b·h``) is kept,
    plus one layer's full set while it is recomputed. ``flash_attention`` drops the ``5·a·s/h``
    term (attention scores, softmax and its dropout are recomputed inside the fused kernel, as
    in the paper's selective recomputation). ``bytes_scale`` is 2 for fp32 training.
    """
    s, b, h, a = float(seq_len), float(batch_size), float(hidden), float(heads)
    attention = 0.0 if flash_attention else 5.0 * a * s / h
    per_layer = s * b * h * (34.0 + attention)
    total = layers * 2.0 * s * b * h + per_layer if checkpointing else layers * per_layer
    return total * bytes_scale


def kv_cache_bytes(
    layers: int,
    kv_heads: int,
    head_dim: float,
    seq_len: int,
    batch_size: int,
    bytes_per_value: float = 2.0,
) -> float:
    """``2 (K and V) × layers × kv_heads × head_dim × seq_len × batch × bytes``."""
    return 2.0 * layers * kv_heads * head_dim * seq_len * batch_size * bytes_per_value


# number formats of a KV cache (fp8: vLLM's --kv-cache-dtype fp8, TensorRT-LLM's FP8 KV cache)
KV_PRECISIONS = ("fp32", "bf16", "fp16", "fp8")
KV_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0}


def kv_bytes_per_value(precision: str, kv_precision: str | None = None) -> float:
    """KV cache width: ``kv_precision`` when given, else fp32 stays fp32 and everything else
    is cached in 16 bit."""
    if kv_precision is not None:
        return KV_BYTES[kv_precision]
    return 4.0 if precision == "fp32" else 2.0


# --- training memory as PyTorch keeps it ------------------------------------------------------
#
# Per token and layer, the tensors autograd saves in a Llama-style block (pre-norm, fused QKV and
# gate/up projections, rotary embedding, SDPA) under bf16 autocast, counted from the saved
# tensors of each op (``torch.autograd.graph.saved_tensors_hooks``; ``bench --suite memory``
# measures them on this machine):
#   norms (2 per layer)       each keeps its input (the fp32 residual under autocast) and 1/rms
#   attention projection      the 16-bit copy of the normed input
#   SDPA (flash / efficient)  rotated q and k, v (a view that keeps the whole fused QKV output
#                             alive), the output and the fp32 log-sum-exp per head
#   output projection         its input is a view of the SDPA output (nothing new); separate
#                             q/k/v projections keep three input copies instead: same total
#   MLP                       its 16-bit input; SwiGLU: gate, SiLU(gate), up and their product
#                             (4 × ffn); GELU: fc1 output and GELU output (2 × ffn)
#   attention without a fused kernel keeps the softmax probabilities: fp32 (softmax runs in
#   fp32 under autocast) plus the 16-bit copy the value matmul takes, a·s each
# Around the layers: the final norm and the head's 16-bit input, the logits the model returns
# (held by the training loop until backward ends), the fp32 log-probabilities cross-entropy
# saves, and at the start of backward the fp32 gradient of the log-probabilities and of the
# logits (the peak of the step: every layer's activations are still held).
MLPS: tuple[str, ...] = ("swiglu", "gelu")
DEFAULT_MLP = "swiglu"
# The memory terms of a transformer's shape beyond layers × hidden × heads: they travel with
# the shape (presets, the Workload tab, the modelled run, the "What to run on" search).
SHAPE_TERMS: tuple[str, ...] = ("mlp", "ffn_hidden", "vocab")


def expert_rank_params(total: Any, active: Any, expert_parallel: Any) -> Any:
    """Parameters one expert-parallel rank holds: the dense part and the active experts
    whole, the other experts split over the EP group (floats or numpy arrays; the plan search
    and the plan's shown memory use this one rule)."""
    return active + (total - active) / expert_parallel


DEFAULT_VOCAB = 32_000
VOCAB_SOURCE = "Llama 2 tokenizer, 32k entries (Touvron et al. 2023)"
FRAGMENTATION = 0.05
FRAGMENTATION_SOURCE = (
    "allocator allowance: PyTorch's caching allocator reserves more than it allocates (blocks "
    "rounded to 512 B, 2 MiB segments split and cached); 5% of the allocated peak is an "
    "assumption — bench --suite memory on a GPU reports reserved against allocated"
)
LOSS_FP32_VALUES = 12.0  # fp32 log-probs kept + their gradient + the logits' gradient, per vocab
ACTIVATION_SOURCE = (
    "saved tensors of each op in a Llama-style block under bf16 autocast (PyTorch ≥ 2.0: SDPA "
    "flash/efficient kernels, fused RMSNorm keeping its input and 1/rms); checked against "
    "torch.cuda.max_memory_allocated on an H200 (1.36B model, micro-batch 1-8: measured 5.0 "
    "GiB per extra sequence) and by bench --suite memory on this machine"
)
FUSED_OPTIMIZER_NOTE = (
    "fused AdamW (torch.optim.AdamW(fused=True), Apex/DeepSpeed FusedAdam) updates in place; "
    "the foreach implementation (PyTorch's default) keeps one state-sized temporary, +4 B per "
    "parameter at the optimizer step"
)


def default_ffn_hidden(hidden: int, mlp: str) -> int:
    """GELU: 4·h (GPT-2, BERT); SwiGLU: 8·h/3 rounded up to a multiple of 256 (Llama)."""
    if mlp == "gelu":
        return 4 * hidden
    return int(math.ceil(8.0 * hidden / 3.0 / 256.0) * 256)


def activation_widths(precision: str) -> tuple[float, float]:
    """(bytes of a 16-bit-path activation, bytes of the residual stream and norm inputs).

    ``mixed`` is autocast: matmul inputs and outputs in 16 bit, the residual stream and norms in
    fp32. Pure ``bf16``/``fp16`` keep everything 16-bit, ``fp32`` everything 4 bytes."""
    if precision == "fp32":
        return 4.0, 4.0
    if precision == "mixed":
        return 2.0, 4.0
    return 2.0, 2.0


@dataclass(frozen=True)
class ActivationTerms:
    """Bytes per token: one layer's saved tensors, one layer's input (kept under checkpointing)
    and the output side (final norm, head input, logits, fp32 loss and its gradient)."""

    layer: float
    layer_input: float
    output: float
    norms: float
    attention: float
    mlp: float


def activation_terms(
    *,
    hidden: int,
    heads: int,
    kv_heads: int | None,
    seq_len: int,
    ffn_hidden: int,
    vocab: int,
    mlp: str,
    precision: str,
    flash_attention: bool,
) -> ActivationTerms:
    """Saved bytes per token (see the table above this function)."""
    w, r = activation_widths(precision)
    h = float(hidden)
    h_kv = h * float(kv_heads or heads) / float(heads)
    norms = 2.0 * (r * h + 4.0)
    # input, rotated q and k, the fused QKV output (held through v, a view of it), the output
    # (the output projection's input is a view of it); fp32 log-sum-exp per head
    attention = w * (h + h + h_kv + (h + 2.0 * h_kv) + h) + 4.0 * heads
    if not flash_attention:
        probs = 4.0 + 2.0 if precision == "mixed" else w
        attention += probs * heads * seq_len
    f = float(ffn_hidden)
    mlp_bytes = w * h + (4.0 * w * f if mlp == "swiglu" else 2.0 * w * f)
    output = r * h + w * h + w * vocab + LOSS_FP32_VALUES * vocab
    return ActivationTerms(
        layer=norms + attention + mlp_bytes,
        layer_input=r * h,
        output=output,
        norms=norms,
        attention=attention,
        mlp=mlp_bytes,
    )


def kept_activation_bytes(
    terms: ActivationTerms,
    layers: Any,
    tokens: Any,
    recompute: Any = 0.0,
    tp: Any = 1.0,
    interleave: Any = 1.0,
) -> tuple[Any, Any]:
    """(layer activations, output-side bytes) of one micro-batch of ``tokens`` per device.

    ``recompute`` is the share of layers checkpointed (0, 0.5, 1): those keep only their input,
    and one layer's full set is rebuilt during backward. Tensor parallel (with sequence
    parallel) splits everything by ``tp``; interleaved pipelines keep ``interleave`` × more.
    Works on floats and numpy arrays alike (the plan search passes arrays)."""
    full = terms.layer * tokens / tp
    kept_input = terms.layer_input * tokens / tp
    rebuilt = (recompute > 0) * full
    layer_bytes = (layers * ((1.0 - recompute) * full + recompute * kept_input) + rebuilt) * (
        interleave
    )
    return layer_bytes, terms.output * tokens / tp


@dataclass(frozen=True)
class TrainingPeak:
    """Bytes per device at the two peaks of a training step (floats or numpy arrays).

    Backward peak (start of backward): working weights, master copy and optimizer states,
    gradients only when they persist across micro-batches (gradient accumulation; a plain step
    allocates them during backward), all activations and the output side. Optimizer-step peak:
    weights, gradients, master copy and states. ``per_device`` is the larger, plus the allocator
    allowance and the runtime overhead."""

    weights: Any
    gradients: Any
    optimizer: Any
    gathered: Any  # ZeRO-3: two layers' unsharded weights, gathered in flight
    activations: Any
    output: Any
    backward_peak: Any
    optimizer_peak: Any
    fragmentation: Any
    overhead: Any
    per_device: Any
    backward_binds: Any


def training_peak(
    *,
    params: Any,
    bpp: BytesPerParam,
    zero_stage: Any,
    dp: Any,
    layers: Any,
    activations: Any,
    output: Any,
    accumulating: Any,
    overhead_bytes: float,
    fragmentation: float = FRAGMENTATION,
) -> TrainingPeak:
    """Per-device bytes of a training step: the one rule ``estimate memory`` and the training
    plan search share (floats or numpy arrays)."""
    zero = zero_stage
    weights = params * bpp.weights / _where(zero >= 3, dp, 1.0)
    grads = params * bpp.gradients / _where(zero >= 2, dp, 1.0)
    optimizer = params * bpp.optimizer / _where(zero >= 1, dp, 1.0)
    # ZeRO-3 gathers a layer's weights ahead of use: two layers unsharded in flight at the
    # backward peak (the one in use and the prefetched one); nothing to gather on one device
    # or without the layer count
    share = _minimum(2.0 / layers, 1.0) if layers else 0.0
    gathered = _where((zero >= 3) & (dp > 1), share * params * bpp.weights * (1.0 - 1.0 / dp), 0.0)
    backward = weights + optimizer + gathered + accumulating * grads + activations + output
    step = weights + grads + optimizer
    peak = _maximum(backward, step)
    frag = fragmentation * peak
    return TrainingPeak(
        weights=weights,
        gradients=grads,
        optimizer=optimizer,
        gathered=gathered,
        activations=activations,
        output=output,
        backward_peak=backward,
        optimizer_peak=step,
        fragmentation=frag,
        overhead=overhead_bytes,
        per_device=peak + frag + overhead_bytes,
        backward_binds=backward >= step,
    )


def _where(cond: Any, a: Any, b: Any) -> Any:
    if isinstance(cond, bool):
        return a if cond else b
    import numpy as np

    return np.where(cond, a, b)


def _minimum(a: Any, b: Any) -> Any:
    if isinstance(a, float | int) and isinstance(b, float | int):
        return min(a, b)
    import numpy as np

    return np.minimum(a, b)


def _maximum(a: Any, b: Any) -> Any:
    if isinstance(a, float | int) and isinstance(b, float | int):
        return max(a, b)
    import numpy as np

    return np.maximum(a, b)


def _optional_int(name: str, value: Any, minimum: int = 1) -> int | None:
    return None if value is None else require_int(name, value, minimum=minimum)


@dataclass(frozen=True)
class MemoryInputs:
    """A model and how it runs. The transformer shape (layers, hidden, heads, seq_len) is
    optional; without it activations and the KV cache are left out (and say so).
    ``batch_size`` is the micro-batch per device. ``memory_gb`` (binary GB, like the catalog)
    overrides the accelerator's memory."""

    params: float
    mode: str = "train"
    precision: str | None = None  # None: "mixed" for train, "bf16" for inference
    optimizer: str = "adamw"
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None  # grouped-query attention; None = heads
    seq_len: int | None = None
    batch_size: int = 1
    checkpointing: bool = False
    flash_attention: bool = True  # attention scores not stored (SDPA flash, PyTorch ≥ 2.0)
    zero_stage: int = 0
    gpus: int = 1
    accelerator: str | None = None
    memory_gb: float | None = None
    overhead_gib: float = DEFAULT_OVERHEAD_GIB
    ffn_hidden: int | None = None  # MLP width (None: 4·h for GELU, ≈8·h/3 for SwiGLU)
    vocab: int | None = None  # vocabulary (None: 32k, Llama 2)
    mlp: str = DEFAULT_MLP  # swiglu (gated, Llama) | gelu (GPT-2, BERT)
    micro_batches: int = 1  # per optimizer step; > 1: gradients persist (accumulation)
    # model parallelism (training): ``gpus`` = TP × PP × CP × data-parallel ranks. Weights are
    # split over TP × PP; each TP rank keeps 1/TP of a layer's activations (sequence parallel);
    # the first pipeline stage keeps PP micro-batches of its L/PP layers in flight (1F1B), i.e.
    # all L layers' worth; CP splits the sequence. ZeRO shards over the data-parallel ranks.
    tp: int = 1
    pp: int = 1
    cp: int = 1
    virtual_stages: int = 1  # interleaved pipeline: keeps 1 + (PP-1)/(PP·V) × more
    recompute: float | None = None  # share of layers checkpointed (None: 1 or 0 by checkpointing)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "params", require_count("params", self.params))
        require_choice("mode", self.mode, MODES)
        require_choice("mlp", self.mlp, MLPS)
        for name in ("ffn_hidden", "vocab"):
            set_(self, name, _optional_int(name, getattr(self, name)))
        set_(self, "micro_batches", require_int("micro_batches", self.micro_batches, minimum=1))
        for name in ("tp", "pp", "cp", "virtual_stages"):
            set_(self, name, require_int(name, getattr(self, name), minimum=1, maximum=MAX_GPUS))
        if self.recompute is not None:
            set_(self, "recompute", require_range("recompute", self.recompute, 0.0, 1.0))
        if self.precision is None:
            set_(self, "precision", DEFAULT_PRECISION[self.mode])
        allowed = TRAIN_PRECISIONS if self.mode == "train" else INFERENCE_PRECISIONS
        if self.precision not in allowed:
            raise InputError(
                "precision",
                f"in {self.mode} mode must be one of {', '.join(allowed)}, got {self.precision!r}",
            )
        require_choice("optimizer", self.optimizer, OPTIMIZERS)
        for name in ("layers", "hidden", "heads", "kv_heads", "seq_len"):
            set_(self, name, _optional_int(name, getattr(self, name)))
        set_(self, "batch_size", require_int("batch_size", self.batch_size, minimum=1))
        for flag in ("checkpointing", "flash_attention"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(flag, f"must be true or false, got {getattr(self, flag)!r}")
        set_(self, "zero_stage", require_int("zero_stage", self.zero_stage, minimum=0, maximum=3))
        set_(self, "gpus", require_int("gpus", self.gpus, minimum=1, maximum=MAX_GPUS))
        if self.memory_gb is not None:
            set_(self, "memory_gb", require_positive("memory_gb", self.memory_gb))
        set_(
            self,
            "overhead_gib",
            require_range("overhead_gib", self.overhead_gib, 0.0, MAX_OVERHEAD_GIB),
        )
        self._check_shape()
        self._check_parallel()
        if self.accelerator is not None:
            if not isinstance(self.accelerator, str):
                raise InputError("accelerator", f"expected a catalog id, got {self.accelerator!r}")
            get_accelerator(self.accelerator)

    def _check_shape(self) -> None:
        require_shape(
            self.layers,
            self.hidden,
            self.heads,
            self.kv_heads,
            extra={"seq_len": self.seq_len},
            noun="transformer shape",
        )

    def _check_parallel(self) -> None:
        model_parallel = self.tp * self.pp * self.cp
        if model_parallel == 1 and self.virtual_stages == 1:
            return
        if self.mode != "train":
            name = next(n for n in ("tp", "pp", "cp", "virtual_stages") if getattr(self, n) > 1)
            raise InputError(
                name, "applies to training; for inference the weights split over --gpus"
            )
        if self.gpus % model_parallel:
            raise InputError(
                "gpus",
                f"must be a multiple of TP × PP × CP = {model_parallel} (the rest is data "
                f"parallel), got {self.gpus}",
            )
        if self.virtual_stages > 1 and self.pp == 1:
            raise InputError("virtual_stages", "needs pipeline parallelism (PP > 1)")

    @property
    def has_shape(self) -> bool:
        return self.layers is not None

    @property
    def model_parallel(self) -> int:
        """Devices one replica spans: TP × PP × CP."""
        return self.tp * self.pp * self.cp

    @property
    def data_parallel(self) -> int:
        """Data-parallel ranks (ZeRO shards over these)."""
        return self.gpus // self.model_parallel

    @property
    def resolved_recompute(self) -> float:
        if self.recompute is not None:
            return self.recompute
        return 1.0 if self.checkpointing else 0.0

    @property
    def pipeline_interleave(self) -> float:
        """Activation multiplier of an interleaved 1F1B pipeline (1 without interleaving)."""
        if self.virtual_stages <= 1:
            return 1.0
        return 1.0 + (self.pp - 1.0) / (self.pp * self.virtual_stages)

    @property
    def resolved_precision(self) -> str:
        assert self.precision is not None
        return self.precision

    @property
    def resolved_ffn_hidden(self) -> int | None:
        if self.ffn_hidden is not None or self.hidden is None:
            return self.ffn_hidden
        return default_ffn_hidden(self.hidden, self.mlp)

    @property
    def resolved_vocab(self) -> int:
        return self.vocab if self.vocab is not None else DEFAULT_VOCAB

    def to_dict(self) -> dict[str, Any]:
        return {
            "params": self.params,
            "mode": self.mode,
            "precision": self.precision,
            "optimizer": self.optimizer if self.mode == "train" else None,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "seq_len": self.seq_len,
            "batch_size": self.batch_size,
            "checkpointing": self.checkpointing,
            "flash_attention": self.flash_attention,
            "zero_stage": self.zero_stage,
            "gpus": self.gpus,
            "accelerator": self.accelerator,
            "memory_gb": self.memory_gb,
            "overhead_gib": self.overhead_gib,
            "ffn_hidden": self.resolved_ffn_hidden,
            "vocab": self.vocab,
            "mlp": self.mlp,
            "micro_batches": self.micro_batches,
            # the model-parallel plan only where one is given (saved files stay as they were)
            **{
                n: getattr(self, n)
                for n in ("tp", "pp", "cp", "virtual_stages", "recompute")
                if getattr(self, n) not in (None, 1)
            },
        }


@dataclass(frozen=True)
class MemorySuggestion:
    """One change that lowers the per-device total, computed by re-running the estimate."""

    # zero_stage | checkpointing | flash_attention | batch_size | precision | optimizer | gpus
    kind: str
    description: str
    changes: Mapping[str, Any]
    per_device_bytes: float
    saving_bytes: float
    fits: bool | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "description": self.description,
            "changes": dict(self.changes),
            "per_device_bytes": self.per_device_bytes,
            "saving_bytes": self.saving_bytes,
            "fits": self.fits,
        }


@dataclass(frozen=True)
class MemoryEstimate:
    """Unsharded totals (one replica) and what each device holds after sharding."""

    inputs: MemoryInputs
    bytes_per_param: BytesPerParam
    weights_bytes: float
    gradients_bytes: float
    optimizer_bytes: float  # states + fp32 master copy
    master_weights_bytes: float  # the master-copy part of optimizer_bytes
    activations_bytes: float
    kv_cache_bytes: float
    overhead_bytes: float
    per_device_weights_bytes: float
    per_device_gradients_bytes: float
    per_device_optimizer_bytes: float
    per_device_activations_bytes: float
    per_device_kv_cache_bytes: float
    per_device_bytes: float
    device_memory_bytes: float | None
    accelerator_name: str | None
    formula: str
    assumptions: tuple[Assumption, ...] = field(default=())
    suggestions: tuple[MemorySuggestion, ...] = field(default=())
    # training: the output-side part of activations_bytes (final norm, head input, logits,
    # fp32 loss and its gradient), the allocator allowance, and which peak binds
    logits_bytes: float = 0.0
    fragmentation_bytes: float = 0.0
    peak_phase: str = ""  # "backward" | "optimizer step" ("" for inference)
    gathered_bytes: float = 0.0  # ZeRO-3: two layers' unsharded weights in flight

    @property
    def total_bytes(self) -> float:
        """Everything one unsharded replica needs (before ZeRO / tensor-parallel splitting)."""
        return (
            self.weights_bytes
            + self.gradients_bytes
            + self.optimizer_bytes
            + self.activations_bytes
            + self.kv_cache_bytes
            + self.overhead_bytes
            + self.fragmentation_bytes
        )

    @property
    def fits(self) -> bool | None:
        if self.device_memory_bytes is None:
            return None
        return self.per_device_bytes <= self.device_memory_bytes

    @property
    def headroom_bytes(self) -> float | None:
        if self.device_memory_bytes is None:
            return None
        return self.device_memory_bytes - self.per_device_bytes

    @property
    def headroom_fraction(self) -> float | None:
        """Free share of the device memory (negative when it does not fit)."""
        if self.device_memory_bytes is None:
            return None
        return (self.device_memory_bytes - self.per_device_bytes) / self.device_memory_bytes

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.inputs.mode,
            "precision": self.inputs.precision,
            "weights_bytes": self.weights_bytes,
            "gradients_bytes": self.gradients_bytes,
            "optimizer_bytes": self.optimizer_bytes,
            "master_weights_bytes": self.master_weights_bytes,
            "activations_bytes": self.activations_bytes,
            "logits_bytes": self.logits_bytes,
            "fragmentation_bytes": self.fragmentation_bytes,
            "gathered_bytes": self.gathered_bytes,
            "peak_phase": self.peak_phase,
            "kv_cache_bytes": self.kv_cache_bytes,
            "overhead_bytes": self.overhead_bytes,
            "total_bytes": self.total_bytes,
            "per_device": {
                "weights_bytes": self.per_device_weights_bytes,
                "gradients_bytes": self.per_device_gradients_bytes,
                "optimizer_bytes": self.per_device_optimizer_bytes,
                "activations_bytes": self.per_device_activations_bytes,
                "kv_cache_bytes": self.per_device_kv_cache_bytes,
                "overhead_bytes": self.overhead_bytes,
            },
            "per_device_bytes": self.per_device_bytes,
            "bytes_per_param": {
                "weights": self.bytes_per_param.weights,
                "gradients": self.bytes_per_param.gradients,
                "master": self.bytes_per_param.master,
                "optimizer_states": self.bytes_per_param.optimizer_states,
                "total": self.bytes_per_param.total,
            },
            "gpus": self.inputs.gpus,
            "zero_stage": self.inputs.zero_stage,
            "accelerator": self.inputs.accelerator,
            "accelerator_name": self.accelerator_name,
            "device_memory_bytes": self.device_memory_bytes,
            "fits": self.fits,
            "headroom_bytes": self.headroom_bytes,
            "headroom_fraction": self.headroom_fraction,
            "suggestions": [s.to_dict() for s in self.suggestions],
            "formula": self.formula,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "inputs": self.inputs.to_dict(),
        }


def _device(inputs: MemoryInputs) -> tuple[float | None, Accelerator | None]:
    acc = None if inputs.accelerator is None else get_accelerator(inputs.accelerator)
    if inputs.memory_gb is not None:
        return inputs.memory_gb * units.GIB, acc
    if acc is not None:
        return acc.memory_bytes, acc
    return None, None


def activation_precision(precision: str, zero_stage: Any, gpus: Any) -> Any:
    """The precision activations are kept in. ``mixed`` on one device (or plain data parallel)
    is autocast: the residual stream stays fp32. Sharded over several devices (ZeRO ≥ 1: the
    Megatron-LM distributed optimizer, FSDP with ``param_dtype=bf16``) the model itself runs in
    bf16, so the residual stream is 16-bit too. Returns a boolean array of "runs in bf16" when
    given arrays."""
    if precision != "mixed":
        return precision
    if isinstance(zero_stage, int) and isinstance(gpus, int | float):
        return "bf16" if (zero_stage >= 1 and gpus > 1) else "mixed"
    return (zero_stage >= 1) & (gpus > 1)


def training_activation_terms(inputs: MemoryInputs) -> ActivationTerms | None:
    """Per-token activation terms of a training configuration (None without the shape)."""
    if not inputs.has_shape:
        return None
    assert inputs.hidden and inputs.heads and inputs.seq_len and inputs.layers
    ffn = inputs.resolved_ffn_hidden
    assert ffn is not None
    return activation_terms(
        hidden=inputs.hidden,
        heads=inputs.heads,
        kv_heads=inputs.kv_heads,
        seq_len=inputs.seq_len,
        ffn_hidden=ffn,
        vocab=inputs.resolved_vocab,
        mlp=inputs.mlp,
        precision=activation_precision(inputs.resolved_precision, inputs.zero_stage, inputs.gpus),
        flash_attention=inputs.flash_attention,
    )


def _compute(inputs: MemoryInputs) -> MemoryEstimate:
    """The estimate without suggestions (suggestions call this on changed inputs)."""
    precision = inputs.resolved_precision
    train = inputs.mode == "train"
    bpp = bytes_per_param(precision, inputs.optimizer, inputs.mode)
    n = inputs.params
    weights = n * bpp.weights
    grads = n * bpp.gradients
    optimizer = n * bpp.optimizer
    master = n * bpp.master
    activations = logits = kv = frag = gathered = 0.0
    phase = ""
    overhead = inputs.overhead_gib * units.GIB
    g = float(inputs.gpus)
    if train:
        terms = training_activation_terms(inputs)
        layers_bytes = 0.0
        if terms is not None:
            assert inputs.layers and inputs.seq_len
            layers_bytes, logits = kept_activation_bytes(
                terms,
                inputs.layers,
                float(inputs.seq_len / inputs.cp * inputs.batch_size),
                recompute=inputs.resolved_recompute,
                tp=float(inputs.tp),
                interleave=inputs.pipeline_interleave,
            )
        activations = layers_bytes + logits
        peak = training_peak(
            params=n / (inputs.tp * inputs.pp),  # one model-parallel shard's weights
            bpp=bpp,
            zero_stage=inputs.zero_stage,
            dp=float(inputs.data_parallel),
            layers=inputs.layers or 0,
            activations=layers_bytes,
            output=logits,
            accumulating=inputs.micro_batches > 1,
            overhead_bytes=overhead,
        )
        pd_w, pd_g, pd_o = peak.weights, peak.gradients, peak.optimizer
        pd_a, pd_kv = activations, 0.0  # each data-parallel device runs its own micro-batch
        per_device, frag = float(peak.per_device), float(peak.fragmentation)
        gathered = float(peak.gathered) if inputs.has_shape else 0.0
        phase = "backward" if peak.backward_binds else "optimizer step"
    else:  # inference: weights and KV cache split evenly (tensor parallel)
        if inputs.has_shape:
            assert inputs.hidden and inputs.heads and inputs.seq_len and inputs.layers
            kv = kv_cache_bytes(
                inputs.layers,
                inputs.kv_heads or inputs.heads,
                inputs.hidden / inputs.heads,
                inputs.seq_len,
                inputs.batch_size,
                kv_bytes_per_value(precision),
            )
        pd_w, pd_g, pd_o, pd_a, pd_kv = weights / g, 0.0, 0.0, 0.0, kv / g
        per_device = pd_w + pd_g + pd_o + pd_a + pd_kv + overhead
    device_memory, acc = _device(inputs)
    return MemoryEstimate(
        inputs=inputs,
        bytes_per_param=bpp,
        weights_bytes=weights,
        gradients_bytes=grads,
        optimizer_bytes=optimizer,
        master_weights_bytes=master,
        activations_bytes=activations,
        kv_cache_bytes=kv,
        overhead_bytes=overhead,
        per_device_weights_bytes=pd_w,
        per_device_gradients_bytes=pd_g,
        per_device_optimizer_bytes=pd_o,
        per_device_activations_bytes=pd_a,
        per_device_kv_cache_bytes=pd_kv,
        per_device_bytes=per_device,
        device_memory_bytes=device_memory,
        accelerator_name=None if acc is None else acc.name,
        formula=_formula(inputs, bpp, weights, grads, optimizer, activations, kv, per_device),
        assumptions=tuple(_assumptions(inputs)),
        logits_bytes=logits,
        fragmentation_bytes=frag,
        peak_phase=phase,
        gathered_bytes=gathered,
    )


def estimate_memory(inputs: MemoryInputs) -> MemoryEstimate:
    """Memory per device, whether it fits, and (when it does not) what would make it fit."""
    base = _compute(inputs)
    if base.fits is False:
        return replace(base, suggestions=tuple(_suggestions(base)))
    return base


def _formula(
    inputs: MemoryInputs,
    bpp: BytesPerParam,
    weights: float,
    grads: float,
    optimizer: float,
    activations: float,
    kv: float,
    per_device: float,
) -> str:
    fb = units.format_bytes
    n = units.format_count(inputs.params)
    lines = [f"weights = {n} params × {bpp.weights:g} B = {fb(weights)}"]
    if inputs.mode == "train":
        lines.append(f"gradients = {n} × {bpp.gradients:g} B = {fb(grads)}")
        master = f" (incl. {bpp.master:g} B fp32 master)" if bpp.master else ""
        lines.append(
            f"optimizer ({inputs.optimizer}) = {n} × {bpp.optimizer:.4g} B{master} "
            f"= {fb(optimizer)}"
        )
        terms = training_activation_terms(inputs)
        if terms is not None:
            rc = inputs.resolved_recompute
            if rc >= 1.0:
                rule = "L·(kept input) + one layer"
            elif rc > 0.0:
                rule = f"{rc:.0%} of layers keep their input, the rest all; + one layer"
            else:
                rule = "L × per layer"
            split_note = ""
            if inputs.tp > 1 or inputs.cp > 1:
                split_note += f" ÷ (TP {inputs.tp} × CP {inputs.cp})"
            if inputs.pipeline_interleave > 1.0:
                split_note += f" × {inputs.pipeline_interleave:.2f} (interleaved pipeline)"
            lines.append(
                f"activations = {rule}: per token and layer {terms.layer:,.0f} B (norms "
                f"{terms.norms:,.0f} + attention {terms.attention:,.0f} + {inputs.mlp} MLP "
                f"{terms.mlp:,.0f}) × L={inputs.layers} × s={inputs.seq_len} × "
                f"b={inputs.batch_size}; + output side {terms.output:,.0f} B per token "
                f"(vocab {inputs.resolved_vocab:,}: logits, fp32 loss and its gradient)"
                f"{split_note} = {fb(activations)}"
            )
        stage = inputs.zero_stage
        split = {0: "nothing sharded", 1: "optimizer / N", 2: "(optimizer + gradients) / N"}.get(
            stage, "(optimizer + gradients + weights) / N"
        )
        grads_note = (
            "gradients kept across micro-batches"
            if inputs.micro_batches > 1
            else "gradients allocated during backward"
        )
        shard = ""
        if inputs.tp * inputs.pp > 1:
            shard = f"weights, gradients, optimizer ÷ (TP {inputs.tp} × PP {inputs.pp}); "
        lines.append(
            f"per device ({shard}ZeRO-{stage}, N={inputs.data_parallel}: {split}) = "
            f"max(backward peak: weights "
            f"+ optimizer + activations, {grads_note}; optimizer step: weights + gradients + "
            f"optimizer) × (1 + {FRAGMENTATION:.0%} allocator) + overhead "
            f"{units.format_bytes(inputs.overhead_gib * units.GIB)} = {fb(per_device)}"
        )
    else:
        if inputs.has_shape:
            assert inputs.heads is not None and inputs.hidden is not None
            kvh = inputs.kv_heads or inputs.heads
            width = kv_bytes_per_value(inputs.resolved_precision)
            lines.append(
                f"KV cache = 2 × L × kv_heads × head_dim × seq × batch × bytes = 2 × "
                f"{inputs.layers} × {kvh} × {inputs.hidden // inputs.heads} × {inputs.seq_len} × "
                f"{inputs.batch_size} × {width:g} = {fb(kv)}"
            )
        lines.append(
            f"per device = (weights + KV cache) / {inputs.gpus} + overhead "
            f"{units.format_bytes(inputs.overhead_gib * units.GIB)} = {fb(per_device)}"
        )
    return "\n".join(lines)


def _assumptions(inputs: MemoryInputs) -> list[Assumption]:
    p = inputs.resolved_precision
    out: list[Assumption] = []
    if inputs.mode == "train":
        bpp = bytes_per_param(p, inputs.optimizer)
        desc = {
            "fp32": "fp32 weights, gradients and optimizer states",
            "mixed": "16-bit weights and gradients, fp32 master weights and optimizer states",
            "bf16": "pure 16-bit: weights, gradients and optimizer states all in bf16",
            "fp16": "pure 16-bit: weights, gradients and optimizer states all in fp16",
        }[p]
        out.append(
            Assumption(
                "bytes per parameter",
                f"{bpp.total:.4g} B ({desc})",
                "Rajbhandari et al. 2020 (ZeRO), §3.1: mixed-precision Adam = 2 + 2 + 12 = 16 B",
            )
        )
        states = {
            "adamw": "AdamW: 2 states (momentum, variance)",
            "sgd": "SGD with momentum: 1 state",
            "adam8bit": f"8-bit Adam: 2 one-byte states + one fp32 scale per {ADAM8BIT_BLOCK} "
            "values per state",
        }[inputs.optimizer]
        out.append(
            Assumption(
                "optimizer states",
                states,
                "Dettmers et al. 2022, '8-bit Optimizers via Block-wise Quantization'"
                if inputs.optimizer == "adam8bit"
                else "",
            )
        )
        if inputs.has_shape:
            out.append(
                Assumption(
                    "activations",
                    (
                        "full activation checkpointing: layer inputs kept, one layer recomputed"
                        if inputs.checkpointing
                        else "all layers' activations kept for backward"
                    )
                    + (
                        "; attention scores not stored (SDPA flash / efficient kernel)"
                        if inputs.flash_attention
                        else "; attention probabilities stored (no fused attention kernel)"
                    )
                    + f"; {inputs.mlp} MLP of width {inputs.resolved_ffn_hidden}"
                    + f"; vocabulary {inputs.resolved_vocab:,}"
                    + ("" if inputs.vocab is not None else " (assumed)"),
                    ACTIVATION_SOURCE
                    + ("" if inputs.vocab is not None else "; vocabulary: " + VOCAB_SOURCE),
                )
            )
            out.append(
                Assumption(
                    "logits and loss",
                    "the model's logits, fp32 log-probabilities and, at the start of backward, "
                    "their fp32 gradients: (width + 12) B per token and vocabulary entry",
                    "cross-entropy in fp32 (PyTorch autocast runs log_softmax in fp32)",
                )
            )
        else:
            out.append(
                Assumption(
                    "activations",
                    "not included (give layers, hidden, heads, seq_len, batch_size)",
                    "",
                )
            )
        out.append(
            Assumption(
                "peak of the step",
                "the larger of the backward peak (weights, optimizer, activations; gradients "
                "only with gradient accumulation) and the optimizer step (weights, gradients, "
                "optimizer), plus the allocator allowance",
                FUSED_OPTIMIZER_NOTE,
            )
        )
        out.append(Assumption("allocator allowance", f"{FRAGMENTATION:.0%}", FRAGMENTATION_SOURCE))
        out.append(
            Assumption(
                "sharding",
                f"ZeRO-{inputs.zero_stage} over "
                + units.plural(inputs.data_parallel, "data-parallel device")
                + (
                    f" of TP {inputs.tp} × PP {inputs.pp} × CP {inputs.cp} replicas; "
                    "activations split by TP and CP, the first pipeline stage holds PP "
                    "micro-batches of its layers (1F1B)"
                    if inputs.model_parallel > 1
                    else "; activations are per device (micro-batch), never sharded"
                ),
                "Rajbhandari et al. 2020; stage 3 corresponds to PyTorch FSDP full sharding. "
                "Gathered-parameter buffers and communication buckets are left out",
            )
        )
    else:
        out.append(
            Assumption(
                "weights",
                f"{weight_bytes_per_value(p):g} B per parameter ({p}); quantization scales "
                "are left out (~1-3% for int4/int8)",
                "storage size of each number format: fp32 4 B, bf16/fp16 2 B, fp8/int8 1 B, "
                "int4 0.5 B",
            )
        )
        if inputs.has_shape:
            out.append(
                Assumption(
                    "KV cache",
                    f"{kv_bytes_per_value(p):g} B per value, full seq_len for every sequence",
                    "2 × layers × kv_heads × head_dim × seq_len × batch (keys and values)",
                )
            )
        else:
            out.append(
                Assumption(
                    "KV cache",
                    "not included (give layers, hidden, heads, seq_len, batch_size)",
                    "",
                )
            )
        out.append(
            Assumption(
                "activations (inference)",
                "not counted: transient, covered by the runtime overhead",
                "",
            )
        )
        out.append(
            Assumption(
                "splitting",
                f"weights and KV cache split evenly over {units.plural(inputs.gpus, 'device')}",
                "tensor/pipeline parallel; replicated buffers left out",
            )
        )
    out.append(
        Assumption(
            "runtime overhead per device",
            units.format_bytes(inputs.overhead_gib * units.GIB),
            OVERHEAD_SOURCE,
        )
    )
    return out


# --- suggestions ----------------------------------------------------------------------------


def _first_fit_or_best(
    base: MemoryEstimate, candidates: list[tuple[dict[str, Any], MemoryEstimate]]
) -> tuple[dict[str, Any], MemoryEstimate] | None:
    """First candidate (in order of preference) that fits, else the lowest one that helps."""
    helpful = [(c, e) for c, e in candidates if e.per_device_bytes < base.per_device_bytes]
    if not helpful:
        return None
    for c, e in helpful:
        if e.fits:
            return c, e
    return min(helpful, key=lambda ce: ce[1].per_device_bytes)


def _try(base: MemoryEstimate, **changes: Any) -> MemoryEstimate | None:
    try:
        return _compute(replace(base.inputs, **changes))
    except ValueError:
        return None


def _suggestions(base: MemoryEstimate) -> list[MemorySuggestion]:
    inp = base.inputs
    train = inp.mode == "train"
    out: list[MemorySuggestion] = []

    def add(kind: str, text: str, picked: tuple[dict[str, Any], MemoryEstimate] | None) -> None:
        if picked is None:
            return
        changes, est = picked
        out.append(
            MemorySuggestion(
                kind=kind,
                description=text.format(**changes),
                changes=MappingProxyType(dict(changes)),
                per_device_bytes=est.per_device_bytes,
                saving_bytes=base.per_device_bytes - est.per_device_bytes,
                fits=est.fits,
            )
        )

    def options(kind: str, text: str, variants: list[dict[str, Any]]) -> None:
        tried = [(v, _try(base, **v)) for v in variants]
        add(kind, text, _first_fit_or_best(base, [(v, e) for v, e in tried if e is not None]))

    if train and inp.gpus > 1 and inp.zero_stage < 3:
        options(
            "zero_stage",
            "shard more with ZeRO-{zero_stage} across the {gpus:,} devices",
            [{"zero_stage": s, "gpus": inp.gpus} for s in range(inp.zero_stage + 1, 4)],
        )
    if train and inp.has_shape and not inp.checkpointing:
        options(
            "checkpointing",
            "turn on full activation checkpointing (about one extra forward pass of compute)",
            [{"checkpointing": True}],
        )
    if train and inp.has_shape and not inp.flash_attention:
        options(
            "flash_attention",
            "use FlashAttention (or selective recomputation) so attention scores are not stored",
            [{"flash_attention": True}],
        )
    if inp.has_shape and inp.batch_size > 1:
        sizes: list[int] = []
        b = inp.batch_size // 2
        while b >= 1:
            sizes.append(b)
            b //= 2
        if sizes[-1] != 1:
            sizes.append(1)
        options(
            "batch_size",
            "lower the micro-batch to {batch_size} (keep the global batch with gradient "
            "accumulation)"
            if train
            else "serve a batch of {batch_size}",
            [{"batch_size": s} for s in sizes],
        )
    rank: Mapping[str, int]
    if train:
        order, rank = TRAIN_PRECISION_ORDER, {"fp32": 0, "mixed": 1, "bf16": 2, "fp16": 2}
        text = "train in pure {precision} (no fp32 master copy; watch the numerics)"
    else:
        order, rank = INFERENCE_PRECISION_ORDER, _INFERENCE_RANK
        text = "quantize the weights to {precision}"
    lower = [p for p in order if rank[p] > rank[inp.resolved_precision]]
    if lower:
        options("precision", text, [{"precision": p} for p in lower])
    if train and inp.optimizer == "adamw":
        options("optimizer", "use 8-bit Adam (bitsandbytes)", [{"optimizer": "adam8bit"}])
    if inp.gpus < MAX_SUGGESTED_GPUS:
        counts: list[int] = []
        g = inp.gpus * 2
        while g <= MAX_SUGGESTED_GPUS:
            counts.append(g)
            g *= 2
        if train and inp.zero_stage == 0:
            variants = [{"gpus": c, "zero_stage": 3} for c in counts]
            text = "shard with ZeRO-3 (FSDP) across {gpus:,} devices"
        elif train:
            variants = [{"gpus": c} for c in counts]
            text = "spread ZeRO-" + str(inp.zero_stage) + " sharding across {gpus:,} devices"
        else:
            variants = [{"gpus": c} for c in counts]
            text = "split the model across {gpus:,} devices (tensor/pipeline parallel)"
        options("gpus", text, variants)
    return out
