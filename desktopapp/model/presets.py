"""Workload presets (``resources/presets.json``): typical inputs for each class of ML work.

A preset fills the training and memory inputs with figures from a named source; the user
edits them from there. Classes without a meaningful FLOP rule (classical ML, tree ensembles)
carry method ``none``: guidance text only, no compute estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from desktopapp.model.memory import SHAPE_TERMS, MemoryInputs
from desktopapp.model.training import TRAINING_PRECISIONS, TrainingInputs
from desktopapp.model.validation import (
    require_choice,
    require_int,
    require_positive,
)
from desktopapp.resources import resource_path

PRESET_METHODS: tuple[str, ...] = ("6nd", "forward", "none")
PRESETS_FORMAT = "desktopapp-presets"


def _opt_positive(name: str, value: Any) -> float | None:
    return None if value is None else require_positive(name, value)


def _opt_int(name: str, value: Any) -> int | None:
    return None if value is None else require_int(name, value, minimum=1)


@dataclass(frozen=True)
class Preset:
    """A workload class: its shape, compute inputs, hardware advice and sources."""

    id: str
    name: str
    description: str
    method: str  # "6nd" | "forward" | "none"
    hardware: str  # hardware recommendation
    memory_range: str  # typical memory, as text
    source: str  # where the figures come from
    params: float | None = None
    tokens: float | None = None
    forward_flops: float | None = None  # per sample, = 2 × MACs
    samples: float | None = None
    epochs: float = 1.0
    accelerator: str | None = None
    devices: int = 1
    precision: str = "bf16"  # training compute precision
    memory_precision: str = "mixed"  # how weights/optimizer are stored (memory estimate)
    optimizer: str = "adamw"
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    seq_len: int | None = None
    batch_size: int = 1  # micro-batch per device
    checkpointing: bool = False
    flash_attention: bool = False
    zero_stage: int = 0
    mlp: str | None = None  # swiglu | gelu (memory model; None: its default)
    ffn_hidden: int | None = None
    vocab: int | None = None
    # "decoder" generates tokens (serving: TTFT, TPOT); "encoder" (BERT) reads a sequence in
    # one forward pass per request
    architecture: str = "decoder"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("id", "name", "description", "hardware", "memory_range", "source"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name}: must be a non-empty text, got {value!r}")
        require_choice("method", self.method, PRESET_METHODS)
        require_choice("architecture", self.architecture, ("decoder", "encoder"))
        for name in ("params", "tokens", "forward_flops", "samples"):
            set_(self, name, _opt_positive(name, getattr(self, name)))
        set_(self, "epochs", require_positive("epochs", self.epochs))
        set_(self, "devices", require_int("devices", self.devices, minimum=1))
        require_choice("precision", self.precision, TRAINING_PRECISIONS)
        for name in ("layers", "hidden", "heads", "seq_len"):
            set_(self, name, _opt_int(name, getattr(self, name)))
        set_(self, "batch_size", require_int("batch_size", self.batch_size, minimum=1))
        set_(self, "zero_stage", require_int("zero_stage", self.zero_stage, minimum=0, maximum=3))
        if self.method == "6nd" and (self.params is None or self.tokens is None):
            raise ValueError(f"params: preset {self.id!r} (6nd) needs params and tokens")
        if self.method == "forward" and (self.forward_flops is None or self.samples is None):
            raise ValueError(
                f"forward_flops: preset {self.id!r} (forward) needs forward_flops and samples"
            )

    @property
    def has_training_estimate(self) -> bool:
        return self.method != "none"

    @property
    def has_memory_estimate(self) -> bool:
        return self.params is not None

    def to_training_inputs(self, **overrides: Any) -> TrainingInputs:
        """TrainingInputs with this preset's figures; ``overrides`` replace any field."""
        if not self.has_training_estimate:
            raise ValueError(
                f"preset: {self.id!r} ({self.name}) has no FLOP-based training estimate; "
                f"{self.hardware}"
            )
        fields: dict[str, Any] = {
            "method": self.method,
            "epochs": self.epochs,
            "accelerator": self.accelerator,
            "precision": self.precision,
            "gpus": self.devices,
        }
        if self.method == "6nd":
            fields.update(params=self.params, tokens=self.tokens)
        else:
            fields.update(forward_flops=self.forward_flops, samples=self.samples)
        fields.update(overrides)
        return TrainingInputs(**fields)

    def to_memory_inputs(self, **overrides: Any) -> MemoryInputs:
        """Training-mode MemoryInputs (shape, ZeRO, devices) for this preset."""
        if not self.has_memory_estimate:
            raise ValueError(
                f"preset: {self.id!r} ({self.name}) has no parameter count to size memory; "
                f"{self.memory_range}"
            )
        fields: dict[str, Any] = {
            "params": self.params,
            "mode": "train",
            "precision": self.memory_precision,
            "optimizer": self.optimizer,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "seq_len": self.seq_len,
            "batch_size": self.batch_size,
            "checkpointing": self.checkpointing,
            "flash_attention": self.flash_attention,
            "zero_stage": self.zero_stage,
            "gpus": self.devices,
            "accelerator": self.accelerator,
        }
        for name in SHAPE_TERMS:  # the model's own shape where known
            if getattr(self, name) is not None:
                fields[name] = getattr(self, name)
        fields.update(overrides)
        return MemoryInputs(**fields)

    def inference_fields(self) -> dict[str, Any]:
        """The InferenceInputs fields this preset gives: parameters, accelerator, and the
        forward FLOPs or the shape; an encoder reads its sequence once (no decoding)."""
        base: dict[str, Any] = {"params": self.params, "accelerator": self.accelerator}
        if self.method == "forward":
            base["forward_flops"] = self.forward_flops
        elif self.layers is not None:
            base.update(layers=self.layers, hidden=self.hidden, heads=self.heads)
        if self.method != "forward" and self.architecture == "encoder":
            base["architecture"] = "encoder"  # one forward pass per sequence, no decoding
            if self.seq_len is not None:
                base["prompt_tokens"] = self.seq_len
        return base

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "method": self.method,
            "params": self.params,
            "tokens": self.tokens,
            "forward_flops": self.forward_flops,
            "samples": self.samples,
            "epochs": self.epochs,
            "accelerator": self.accelerator,
            "devices": self.devices,
            "precision": self.precision,
            "memory_precision": self.memory_precision,
            "optimizer": self.optimizer,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "seq_len": self.seq_len,
            "batch_size": self.batch_size,
            "checkpointing": self.checkpointing,
            "flash_attention": self.flash_attention,
            "zero_stage": self.zero_stage,
            "architecture": self.architecture,
            "hardware": self.hardware,
            "memory_range": self.memory_range,
            "source": self.source,
        }


_KNOWN_KEYS = frozenset(Preset.__dataclass_fields__) | {"forward_macs"}


def preset_from_dict(raw: dict[str, Any]) -> Preset:
    """One JSON row to a Preset; ``forward_macs`` becomes ``forward_flops = 2 × MACs``."""
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        raise ValueError(f"{unknown[0]}: not a preset field (preset {raw.get('id')!r})")
    data = dict(raw)
    macs = data.pop("forward_macs", None)
    if macs is not None:
        if data.get("forward_flops") is not None:
            raise ValueError("forward_macs: give forward_macs or forward_flops, not both")
        data["forward_flops"] = 2.0 * require_positive("forward_macs", macs)
    return Preset(**data)


def parse_presets(path: Path) -> tuple[Preset, ...]:
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict) or data.get("format") != PRESETS_FORMAT:
        raise ValueError(f"{path.name}: not a {PRESETS_FORMAT} file")
    presets = tuple(preset_from_dict(row) for row in data["presets"])
    ids = [p.id for p in presets]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"id: duplicate preset id {duplicates[0]!r} in {path.name}")
    return presets


@cache
def load_presets() -> tuple[Preset, ...]:
    """All presets from ``resources/presets.json``, in file order."""
    return parse_presets(resource_path("presets.json"))


def preset_ids() -> tuple[str, ...]:
    return tuple(p.id for p in load_presets())


def get_preset(preset_id: str) -> Preset:
    """The preset with this id; ``ValueError("preset: unknown id …")`` naming close ids."""
    for preset in load_presets():
        if preset.id == preset_id:
            return preset
    ids = preset_ids()
    import difflib  # only for a mistyped id

    close = difflib.get_close_matches(str(preset_id), ids, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(f"preset: unknown id {preset_id!r}{hint} (known: {', '.join(ids)})")
