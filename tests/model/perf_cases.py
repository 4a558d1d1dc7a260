"""Transformer shapes for the modelled training estimate (``model.perf_training.RunInputs``),
shared by the tests in ``tests/model`` and ``benchmarks/perf_speed.py``: each is a dict of
``RunInputs`` fields, to which a case adds tokens, accelerator, GPUs and plan."""

from __future__ import annotations

from typing import Any

# A 7B model on 2T tokens on H100s (Llama-2-7B shape), without the GPU count.
SEVEN_B: dict[str, Any] = dict(
    params=7e9, tokens=2e12, accelerator="h100-sxm", seq_len=4096, layers=32, hidden=4096, heads=32
)
# Architectures alone (Llama-3 70B, Llama-3.1 405B: grouped-query attention, 8 KV heads).
SEVENTY_B_SHAPE: dict[str, Any] = dict(params=70e9, layers=80, hidden=8192, heads=64, kv_heads=8)
FOUR_HUNDRED_FIVE_B_SHAPE: dict[str, Any] = dict(
    params=405e9, layers=126, hidden=16384, heads=128, kv_heads=8
)
