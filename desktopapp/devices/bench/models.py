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
    shape: BlockShape
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
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        return loss

    return TrainingStep(step, model, x, shape, mode)


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
