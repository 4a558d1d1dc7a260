"""Small torch models the suites time: a transformer block (training) and an MLP (inference).

Built inside functions so importing this module does not import torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktopapp.devices.bench.target import BenchDevice


@dataclass(frozen=True)
class BlockShape:
    """A transformer encoder block trained on random data: (batch, seq, d_model) tokens."""

    d_model: int = 256
    heads: int = 4
    ff: int = 1024
    seq: int = 128
    batch: int = 8

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    def with_batch(self, batch: int) -> BlockShape:
        return BlockShape(self.d_model, self.heads, self.ff, self.seq, batch)

    def describe(self) -> str:
        return (
            f"transformer block d_model={self.d_model}, heads={self.heads}, ff={self.ff}, "
            f"batch {self.batch} × seq {self.seq}"
        )


def block_shape(target: BenchDevice, quick: bool) -> BlockShape:
    if target.kind == "cpu":
        return BlockShape(256, 4, 1024, 128, 8) if quick else BlockShape(512, 8, 2048, 256, 8)
    return BlockShape(1024, 16, 4096, 512, 16) if quick else BlockShape(2048, 16, 8192, 1024, 16)


@dataclass
class TrainingStep:
    """A callable training step plus what it is made of (for FLOP counting and checks)."""

    step: Callable[[], Any]
    model: Any
    inputs: Any
    shape: BlockShape | LmShape
    mode: str  # "fp32", "bf16", "fp16"


def make_training_step(
    target: BenchDevice, shape: BlockShape, mode: str = "fp32", seed: int = 0
) -> TrainingStep:
    """One optimizer step of a transformer block; ``mode`` picks autocast (and GradScaler)."""
    import torch
    from torch import nn

    device = torch.device(target.spec)
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.TransformerEncoderLayer(
            shape.d_model,
            shape.heads,
            shape.ff,
            dropout=0.0,
            batch_first=True,
            norm_first=True,
        ),
        nn.Linear(shape.d_model, shape.d_model),
    ).to(device)
    model.train()
    x = torch.randn(shape.batch, shape.seq, shape.d_model, device=device)
    y = torch.randn(shape.batch, shape.seq, shape.d_model, device=device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    device_type = "cuda" if target.kind == "cuda" else target.kind
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(mode)
    scaler: Any = None
    if mode == "fp16" and target.kind == "cuda":  # GradScaler is a CUDA tool
        try:
            scaler = torch.amp.GradScaler(device_type)
        except (AttributeError, TypeError):
            scaler = torch.cuda.amp.GradScaler()
    loss_fn = nn.functional.mse_loss

    def step() -> Any:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type, dtype=amp_dtype, enabled=amp_dtype is not None):
            out = model(x)
        loss = loss_fn(out.float(), y)
        _backward_and_step(loss, optimizer, scaler)
        return loss

    return TrainingStep(step, model, x, shape, mode)


@dataclass(frozen=True)
class LmShape:
    """A decoder-style language model trained on random tokens: embedding, ``layers``
    pre-norm transformer blocks (feed-forward 4 × width), final norm and an untied head."""

    d_model: int
    layers: int
    heads: int
    batch: int
    seq: int
    vocab: int

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    @property
    def params(self) -> int:
        """Parameters of :func:`make_lm_step`'s model (weights, biases, norms)."""
        d, v = self.d_model, self.vocab
        per_layer = 4 * d * d + 4 * d + 8 * d * d + 5 * d + 4 * d  # attention, MLP, 2 norms
        return v * d + self.layers * per_layer + 2 * d + d * v

    @property
    def flop_per_step(self) -> float:
        """Model FLOPs of one training step (forward + backward, PaLM's MFU convention):
        6 × the matmul weights per token plus the attention scores, 12 × layers × seq × width
        per token."""
        d = self.d_model
        matmul_weights = self.layers * 12 * d * d + d * self.vocab
        per_token = 6 * matmul_weights + 12 * self.layers * self.seq * d
        return float(per_token * self.tokens)

    def memory_bytes(self) -> float:
        """A generous estimate of one fp32 training step's peak: weights, gradients and AdamW
        state (16 B per parameter), activations (about 72 B per token, layer and width unit in
        fp32) and the logits with their gradient (12 B per token and vocabulary entry)."""
        acts = self.tokens * self.layers * self.d_model * 72.0
        return 16.0 * self.params + acts + 12.0 * self.tokens * self.vocab

    def describe(self) -> str:
        return (
            f"{format_params(self.params)}-parameter model ({self.layers} "
            f"layer{'s' if self.layers != 1 else ''}, width "
            f"{self.d_model}, {self.heads} heads, vocabulary {self.vocab:,}), "
            f"batch {self.batch} × seq {self.seq}"
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "d_model": self.d_model,
            "layers": self.layers,
            "heads": self.heads,
            "batch": self.batch,
            "seq": self.seq,
            "vocab": self.vocab,
            "params": self.params,
        }


def format_params(n: float) -> str:
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= scale:
            return f"{n / scale:.3g}{suffix}"
    return f"{n:.0f}"


def make_lm_step(target: BenchDevice, shape: LmShape, mode: str = "fp32", seed: int = 0) -> Any:
    """One AdamW step of the :class:`LmShape` model; ``mode`` is fp32, tf32 (fp32 weights and
    maths, TF32 matmuls; the caller switches TF32 on), bf16 or fp16 (autocast; fp16 with
    GradScaler on CUDA). Returns a :class:`TrainingStep` (``shape`` is the LmShape)."""
    import torch
    from torch import nn

    device = torch.device(target.spec)
    torch.manual_seed(seed)
    with device:  # parameters are created (and initialised) on the device
        model = nn.Sequential(
            nn.Embedding(shape.vocab, shape.d_model),
            *(
                nn.TransformerEncoderLayer(
                    shape.d_model,
                    shape.heads,
                    4 * shape.d_model,
                    dropout=0.0,
                    activation="gelu",
                    batch_first=True,
                    norm_first=True,
                )
                for _ in range(shape.layers)
            ),
            nn.LayerNorm(shape.d_model),
            nn.Linear(shape.d_model, shape.vocab, bias=False),
        )
        tokens = torch.randint(0, shape.vocab, (shape.batch, shape.seq + 1))
    model.train()
    x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    device_type = "cuda" if target.kind == "cuda" else target.kind
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(mode)
    scaler: Any = None
    if mode == "fp16" and target.kind == "cuda":
        scaler = torch.amp.GradScaler(device_type)
    loss_fn = nn.functional.cross_entropy

    def step() -> Any:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type, dtype=amp_dtype, enabled=amp_dtype is not None):
            logits = model(x)
        loss = loss_fn(logits.float().view(-1, shape.vocab), y.view(-1))
        _backward_and_step(loss, optimizer, scaler)
        return loss

    return TrainingStep(step, model, x, shape, mode)


def _backward_and_step(loss: Any, optimizer: Any, scaler: Any) -> None:
    """Backward pass and one optimizer step, through the fp16 loss scaler when there is one."""
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()


def count_flops(fn: Callable[[], Any]) -> float | None:
    """FLOPs of one call of ``fn`` (forward + backward) by torch's FLOP counter, or None."""
    try:
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as counter:
            fn()
        total = float(counter.get_total_flops())
        return total if total > 0 else None
    except Exception:
        return None


def make_mlp(target: BenchDevice, width: int = 2048, io: int = 512, seed: int = 0) -> Any:
    """io → width → width → io MLP with GELU, in eval mode (Linear-heavy: quantization target)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(io, width),
        nn.GELU(),
        nn.Linear(width, width),
        nn.GELU(),
        nn.Linear(width, io),
    ).to(torch.device(target.spec))
    model.eval()
    return model


def parameter_count(model: Any) -> int:
    return int(sum(p.numel() for p in model.parameters()))
