"""Memory of a training step: real steps of a small Llama-style transformer, measured peak
against the memory model (:mod:`desktopapp.model.memory`), term by term.

The model is what the memory model describes: pre-norm blocks with a fused RMSNorm (keeps its
input and 1/rms), fused QKV projection, rotary embedding, SDPA attention, a SwiGLU MLP with
fused gate/up projection, an untied output head, cross-entropy in fp32, AdamW. Each micro-batch
size runs a warm-up step (creates gradients and optimizer state), then one measured step with
gradients set to None, as a plain training loop does.

Measured, per micro-batch size:

- the peak bytes allocated during the step: ``torch.cuda.max_memory_allocated`` on a GPU (and
  ``max_memory_reserved`` beside it); on a CPU the bytes live before the step (parameters,
  optimizer state) plus the peak of the allocations ``torch.profiler`` (``profile_memory``)
  records during it;
- the tensors autograd saves for backward (``saved_tensors_hooks``), split into the layers'
  activations, the output side (final norm, head, logits, loss) and autocast's 16-bit weight
  copies;
- the persistent bytes: parameters and optimizer state.

Predicted: the same terms from the memory model for the same configuration. Nothing here
imports torch at module import.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.bench.core import BenchResult, CancelToken, EtaTracker, ProgressEvent
from desktopapp.devices.bench.target import BenchDevice, empty_cache, torch_device
from desktopapp.model import memory as mem
from desktopapp.model import units

SUITE = "memory"


@dataclass(frozen=True)
class MemoryShape:
    """The transformer the suite trains."""

    layers: int
    hidden: int
    heads: int
    ffn_hidden: int
    vocab: int
    seq_len: int
    micro_batches: tuple[int, ...]

    @property
    def params(self) -> int:
        h, f, v = self.hidden, self.ffn_hidden, self.vocab
        per_layer = 3 * h * h + h * h + 3 * h * f + 2 * h
        return self.layers * per_layer + 2 * v * h + h

    def to_dict(self) -> dict[str, Any]:
        return {
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "ffn_hidden": self.ffn_hidden,
            "vocab": self.vocab,
            "seq_len": self.seq_len,
            "params": self.params,
        }


def memory_shape(target: BenchDevice, quick: bool = False) -> MemoryShape:
    """A model sized to the device: a few MB on a CPU, a few GB on a GPU."""
    if target.kind == "cuda":
        if quick:
            return MemoryShape(4, 1024, 8, 2816, 32000, 1024, (1, 2, 4))
        return MemoryShape(8, 2048, 16, 5632, 32000, 2048, (1, 2, 4))
    if quick:
        return MemoryShape(2, 128, 4, 352, 512, 64, (1, 2))
    return MemoryShape(2, 256, 4, 704, 2048, 128, (1, 2, 4))


def memory_precision(target: BenchDevice) -> str:
    """``mixed`` (bf16 autocast) where bf16 is usable, else ``fp32``."""
    if target.kind == "cuda":
        try:
            import torch

            return "mixed" if torch.cuda.is_bf16_supported() else "fp32"
        except Exception:
            return "fp32"
    return "mixed" if target.kind == "cpu" else "fp32"


def build_model(shape: MemoryShape, device: Any) -> Any:
    """The Llama-style model (torch imported here)."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class RMSNormFn(torch.autograd.Function):
        """RMSNorm that saves its input and 1/rms (what fused kernels keep)."""

        @staticmethod
        def forward(ctx: Any, x: Any, weight: Any, eps: float) -> Any:
            xf = x.float()
            rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
            ctx.save_for_backward(x, weight, rstd)
            return (xf * rstd).to(x.dtype) * weight.to(x.dtype)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            x, weight, rstd = ctx.saved_tensors
            xf, g = x.float(), grad.float()
            xhat = xf * rstd
            gw = (g * xhat).reshape(-1, x.shape[-1]).sum(0).to(weight.dtype)
            gx = g * weight.float()
            dx = rstd * (gx - xhat * (gx * xhat).mean(-1, keepdim=True))
            return dx.to(x.dtype), gw, None

    class RMSNorm(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x: Any) -> Any:
            return RMSNormFn.apply(x, self.weight, 1e-6)

    h, a, f = shape.hidden, shape.heads, shape.ffn_hidden
    d = h // a

    def rope(x: Any, cos: Any, sin: Any) -> Any:
        x1, x2 = x.chunk(2, -1)
        return x * cos + torch.cat((-x2, x1), -1) * sin

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.norm2 = RMSNorm(h), RMSNorm(h)
            self.qkv = nn.Linear(h, 3 * h, bias=False)
            self.proj = nn.Linear(h, h, bias=False)
            self.gate_up = nn.Linear(h, 2 * f, bias=False)
            self.down = nn.Linear(f, h, bias=False)

        def forward(self, x: Any, cos: Any, sin: Any) -> Any:
            b, t, _ = x.shape
            qkv = self.qkv(self.norm1(x)).view(b, t, 3, a, d)
            q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
            cos, sin = cos.to(q.dtype), sin.to(q.dtype)
            y = F.scaled_dot_product_attention(
                rope(q, cos, sin), rope(k, cos, sin), v, is_causal=True
            )
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, h))
            gate, up = self.gate_up(self.norm2(x)).chunk(2, -1)
            return x + self.down(F.silu(gate) * up)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(shape.vocab, h)
            self.blocks = nn.ModuleList(Block() for _ in range(shape.layers))
            self.norm = RMSNorm(h)
            self.head = nn.Linear(h, shape.vocab, bias=False)
            inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
            angles = torch.outer(torch.arange(shape.seq_len, dtype=torch.float32), inv)
            self.register_buffer("cos", torch.cat((angles.cos(), angles.cos()), -1), False)
            self.register_buffer("sin", torch.cat((angles.sin(), angles.sin()), -1), False)

        def forward(self, idx: Any) -> Any:
            x = self.embed(idx)
            for block in self.blocks:
                x = block(x, self.cos, self.sin)
            return self.head(self.norm(x))

    return Model().to(device)


@dataclass
class _Saved:
    layers: float = 0.0
    output: float = 0.0
    weight_copies: float = 0.0


class _Trainer:
    """One model, its optimizer, and a step that can count saved tensors."""

    def __init__(self, target: BenchDevice, shape: MemoryShape, precision: str) -> None:
        import torch

        self.torch = torch
        self.target = target
        self.shape = shape
        self.device = torch_device(target)
        self.precision = precision
        torch.manual_seed(0)
        self.model = build_model(shape, self.device)
        try:  # fused AdamW (CUDA; CPU from PyTorch 2.4): no per-parameter temporaries
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4, fused=True)
        except (RuntimeError, TypeError, ValueError):
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self._in_block = False
        for block in self.model.blocks:
            block.register_forward_pre_hook(lambda *_: self._enter(True))
            block.register_forward_hook(lambda *_: self._enter(False))

    def _enter(self, inside: bool) -> None:
        self._in_block = inside

    def _autocast(self) -> Any:
        kind = "cuda" if self.target.kind == "cuda" else "cpu"
        return self.torch.autocast(
            kind, dtype=self.torch.bfloat16, enabled=self.precision == "mixed"
        )

    def step(self, batch: int, saved: _Saved | None = None) -> None:
        torch = self.torch
        F = torch.nn.functional
        idx = torch.randint(0, self.shape.vocab, (batch, self.shape.seq_len), device=self.device)
        self.optimizer.zero_grad(set_to_none=True)
        seen: set[int] = set()

        def pack(t: Any) -> Any:
            if saved is None or (t.is_leaf and t.requires_grad):
                return t
            storage = t.untyped_storage()
            key = storage.data_ptr()
            if key in seen:
                return t
            seen.add(key)
            size = float(storage.nbytes())
            if _is_weight_copy(t):
                saved.weight_copies += size
            elif self._in_block:
                saved.layers += size
            else:
                saved.output += size
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            with self._autocast():
                logits = self.model(idx)
            loss = F.cross_entropy(logits.float().view(-1, self.shape.vocab), idx.view(-1))
        loss.backward()
        self.optimizer.step()
        del logits, loss

    def persistent_bytes(self) -> float:
        total = 0.0
        for p in self.model.parameters():
            total += p.numel() * p.element_size()
        for state in self.optimizer.state.values():
            for value in state.values():
                if hasattr(value, "numel"):
                    total += value.numel() * value.element_size()
        return total

    def measured_peak(self, batch: int) -> tuple[float, float | None]:
        """(peak bytes allocated during one step, peak reserved or None)."""
        torch = self.torch
        if self.target.kind == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.step(batch)
            torch.cuda.synchronize(self.device)
            return (
                float(torch.cuda.max_memory_allocated(self.device)),
                float(torch.cuda.max_memory_reserved(self.device)),
            )
        before = self.persistent_bytes()  # grads are None between steps
        return before + _profiled_peak(lambda: self.step(batch)), None


def _is_weight_copy(t: Any) -> bool:
    """A cast (and transpose) of a parameter: autocast's 16-bit weight copy."""
    fn = t.grad_fn
    for _ in range(4):
        if fn is None:
            return False
        name = type(fn).__name__
        if name == "AccumulateGrad":
            return True
        if name not in ("TBackward0", "ToCopyBackward0", "TransposeBackward0"):
            return False
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return False


# what the profiler's native code writes to stderr on every start and stop (kineto's
# "USDT: … profiler_start/stop", c10's note that tensors predate the profile): not the user's
PROFILER_CHATTER = ("USDT:", "Memory block of unknown size was allocated before the profiling")


@contextlib.contextmanager
def _profiler_chatter_filtered() -> Iterator[None]:
    """Native stderr (file descriptor 2) during the profile goes to a temporary file; its
    lines are written back afterwards, except the profiler's own start/stop chatter. Where
    descriptor 2 cannot be redirected (no such descriptor), nothing is filtered."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except OSError:
        yield
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text = sink.read().decode("utf-8", "replace")
            kept = [
                line
                for line in text.splitlines()
                if line.strip() and not any(c in line for c in PROFILER_CHATTER)
            ]
            if kept:
                sys.stderr.write("\n".join(kept) + "\n")


def _profiled_peak(run: Callable[[], None]) -> float:
    """Peak of the bytes allocated (net of frees) while ``run`` runs, from torch.profiler."""
    from torch.profiler import ProfilerActivity, profile

    with (
        _profiler_chatter_filtered(),
        profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof,
    ):
        run()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as handle:
            events = json.load(handle).get("traceEvents", [])
    finally:
        os.unlink(path)
    running = peak = 0.0
    for event in sorted(
        (e for e in events if e.get("name") == "[memory]"), key=lambda e: e.get("ts", 0)
    ):
        args = event.get("args", {})
        if args.get("Device Type", 0) != 0:
            continue
        running += float(args.get("Bytes", 0))
        peak = max(peak, running)
    return peak


def predicted_terms(shape: MemoryShape, precision: str, batch: int) -> dict[str, float]:
    """The memory model's terms for the suite's model at ``batch`` (bytes)."""
    inputs = mem.MemoryInputs(
        params=float(shape.params),
        precision=precision,
        layers=shape.layers,
        hidden=shape.hidden,
        heads=shape.heads,
        seq_len=shape.seq_len,
        ffn_hidden=shape.ffn_hidden,
        vocab=shape.vocab,
        mlp="swiglu",
        batch_size=batch,
        overhead_gib=0.0,
    )
    est = mem.estimate_memory(inputs)
    terms = mem.training_activation_terms(inputs)
    assert terms is not None
    tokens = float(batch * shape.seq_len)
    bpp = est.bytes_per_param
    return {
        "persistent": shape.params * (bpp.master + bpp.optimizer_states)
        if precision == "mixed"
        else shape.params * (bpp.weights + bpp.optimizer_states),
        "weight_copies": shape.params * bpp.weights if precision == "mixed" else 0.0,
        "layers": terms.layer * tokens * shape.layers,
        # saved part of the output side: the logits the loop holds and the transient loss
        # gradients are not saved tensors, they appear only in the peak
        "output": (terms.output - (8.0 + mem.activation_widths(precision)[0]) * shape.vocab)
        * tokens,
        "peak_allocated": est.per_device_bytes - est.fragmentation_bytes,
        "peak_with_allowance": est.per_device_bytes,
    }


def _result(
    target: BenchDevice,
    shape: MemoryShape,
    precision: str,
    batch: int,
    measured: dict[str, float],
    predicted: dict[str, float],
    reserved: float | None,
) -> BenchResult:
    ratio = measured["peak_allocated"] / predicted["peak_allocated"]
    extra: dict[str, Any] = {
        "model": shape.to_dict(),
        "micro_batch": batch,
        "precision": "bf16 autocast" if precision == "mixed" else "fp32",
        "measured_bytes": measured,
        "predicted_bytes": {k: v for k, v in predicted.items()},
        "ratio_measured_over_predicted": {
            k: (measured[k] / predicted[k] if predicted.get(k) else None) for k in measured
        },
        "predicted_over_measured_peak": predicted["peak_allocated"] / measured["peak_allocated"],
        "peak_reserved_bytes": reserved,
        "method": "torch.cuda.max_memory_allocated"
        if target.kind == "cuda"
        else "torch.profiler profile_memory (allocations during the step) + live tensors",
    }
    return BenchResult(
        suite=SUITE,
        device=target.spec,
        dtype="bf16" if precision == "mixed" else "fp32",
        size=batch,
        tflops=None,
        seconds=math.nan,
        peak_tflops=None,
        percent_of_peak=None,
        extra=extra,
        variant="train step peak",
        metric="predicted/measured",
        value=1.0 / ratio,
    )


def memory_terms(result: BenchResult) -> list[tuple[str, float, float]]:
    """(term, measured bytes, predicted bytes) of a memory-suite result, in the suite's order
    (persistent, weight copies, layers, output, peak allocated); what both faces print."""
    measured = result.extra.get("measured_bytes") or {}
    predicted = result.extra.get("predicted_bytes") or {}
    return [
        (term.replace("_", " "), float(value), float(predicted[term]))
        for term, value in measured.items()
        if isinstance(value, int | float) and isinstance(predicted.get(term), int | float)
    ]


def memory_suite(
    target: BenchDevice,
    *,
    budget_s: float = 1.0,
    quick: bool = False,
    token: CancelToken | None = None,
    shape: MemoryShape | None = None,
    precision: str | None = None,
) -> Iterator[ProgressEvent]:
    """Measured against predicted peak memory of a training step, per micro-batch size."""
    shape = shape or memory_shape(target, quick)
    precision = precision or memory_precision(target)
    eta = EtaTracker([budget_s / max(1, len(shape.micro_batches))] * len(shape.micro_batches))

    def event(message: str, **kw: Any) -> ProgressEvent:
        return ProgressEvent(eta.fraction, message, eta.eta_s, suite=SUITE, **kw)

    yield event(f"memory: building a {shape.params / 1e6:.1f}M-parameter model…")
    trainer = _Trainer(target, shape, precision)
    try:
        for batch in shape.micro_batches:
            if token is not None:
                token.raise_if_cancelled()
            yield event(f"memory: micro-batch {batch}…")
            trainer.step(batch)  # warm-up: optimizer state exists from here on
            saved = _Saved()
            trainer.step(batch, saved)
            if token is not None:
                token.raise_if_cancelled()
            peak, reserved = trainer.measured_peak(batch)
            predicted = predicted_terms(shape, precision, batch)
            measured = {
                "persistent": trainer.persistent_bytes(),
                "weight_copies": saved.weight_copies,
                "layers": saved.layers,
                "output": saved.output,
                "peak_allocated": peak,
            }
            result = _result(target, shape, precision, batch, measured, predicted, reserved)
            eta.step_done()
            ratio = predicted["peak_allocated"] / peak
            yield event(
                f"memory: micro-batch {batch}: measured {units.format_bytes(peak)}, predicted "
                f"{units.format_bytes(predicted['peak_allocated'])} ({ratio:.2f}×)",
                result=result,
            )
    finally:
        del trainer
        empty_cache(target)
    yield ProgressEvent(1.0, "memory done", 0.0, suite=SUITE)
