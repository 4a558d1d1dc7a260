"""Invalid input to the model raises :class:`InputError` carrying the field (issue 12: callers
never parse message text to find the field)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktopapp.model.catalog import get_accelerator, offer_by_id
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.interconnect import collective_seconds, interconnect_for
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.perf_training import RunInputs
from desktopapp.model.ringbuffer import RingBuffer
from desktopapp.model.serving import ServingInputs
from desktopapp.model.training import TrainingInputs
from desktopapp.model.validation import InputError

CASES: list[tuple[str, Callable[[], object], str]] = [
    (
        "memory kv_heads",
        lambda: MemoryInputs(
            params=7e9, layers=32, hidden=4096, seq_len=2048, batch_size=1, heads=32, kv_heads=5
        ),
        "kv_heads",
    ),
    ("training accelerator", lambda: TrainingInputs(params=7e9, tokens=1e12), "accelerator"),
    (
        "training precision",
        lambda: TrainingInputs(params=7e9, tokens=1e12, accelerator="v100-sxm2", precision="fp8"),
        "precision",
    ),
    ("offer id", lambda: offer_by_id("no-such-offer"), "offer"),
    ("accelerator id", lambda: get_accelerator("h10"), "accelerator"),
    (
        "collective bandwidth",
        lambda: collective_seconds("all_reduce", 1e6, 8, 0.0, 1e-5),
        "bandwidth",
    ),
    # counts below one: a model's time and memory round to nothing and its rates to infinity
    ("training params below 1", lambda: TrainingInputs(params=0.5, tokens=1e12), "params"),
    ("training tokens below 1", lambda: TrainingInputs(params=7e9, tokens=1e-300), "tokens"),
    ("memory params below 1", lambda: MemoryInputs(params=1e-300), "params"),
    (
        "serving params below 1",
        lambda: InferenceInputs(params=1e-300, accelerator="h100-sxm"),
        "params",
    ),
    (
        "serving active params below 1",
        lambda: ServingInputs(params=7e9, active_params=0.1, accelerator="h100-sxm"),
        "active_params",
    ),
    (
        "run accelerator",
        lambda: RunInputs(params=7e9, tokens=1e12, accelerator="nope", gpus=8),
        "accelerator",
    ),
]


@pytest.mark.parametrize(("what", "call", "field"), CASES, ids=[c[0] for c in CASES])
def test_model_errors_carry_their_field(what: str, call: Callable[[], object], field: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


def test_ring_buffer_refuses_time_going_backwards() -> None:
    buffer = RingBuffer(channels=("cpu",), capacity=4)
    buffer.append(10.0, [1.0])
    with pytest.raises(InputError) as info:
        buffer.append(5.0, [1.0])
    assert info.value.field == "timestamp"


def test_interconnect_for_an_unknown_part_names_the_accelerator() -> None:
    with pytest.raises(InputError) as info:
        interconnect_for("no-such-accelerator")
    assert info.value.field == "accelerator"


def test_a_count_below_one_says_what_was_probably_meant() -> None:
    with pytest.raises(InputError) as caught:
        TrainingInputs(params=0.5, tokens=1e12, accelerator="h100-sxm")
    assert caught.value.text == "must be at least 1 (it is a count; 0.5B is 0.5 billion), got 0.5"
