"""AMP sized to the device (issue 23): the model grows until a step is compute-bound, the
memory budget binds or the time budget does; a fast device gets a larger model than a slow one.
The devices are fakes: a step takes its FLOPs over an efficiency curve that rises with size."""

from __future__ import annotations

import pytest

from desktopapp.devices.bench.amp import (
    LADDER,
    MIN_REPEATS,
    SIZING_SHARE,
    TARGET_SHARE,
    choose_size,
    predicted_seconds,
)
from desktopapp.devices.bench.models import LmShape


class FakeDevice:
    """Peak ``tflops``; a step of F FLOPs takes a fixed overhead (launches, Python) plus F at
    the peak rate, so small models are overhead-bound and large ones approach the peak. A fake
    clock advances by what the steps cost (warm-up + one timed step)."""

    def __init__(self, tflops: float, overhead_s: float = 2e-3) -> None:
        self.rate = tflops * 1e12
        self.overhead_s = overhead_s
        self.now = 0.0
        self.measured: list[LmShape] = []

    def step_s(self, shape: LmShape) -> float:
        return self.overhead_s + shape.flop_per_step / self.rate

    def measure(self, shape: LmShape) -> float:
        self.measured.append(shape)
        seconds = self.step_s(shape)
        self.now += 2 * seconds
        return seconds

    def clock(self) -> float:
        return self.now


SLOWDOWNS = {"fp32": 8.0, "tf32": 2.5, "bf16": 1.0, "fp16": 1.0}


def choose(device: FakeDevice, memory: float = 1e12, budget: float = 60.0):
    return choose_size(
        device.measure,
        matmul_tflops=device.rate / 1e12,
        slowdowns=SLOWDOWNS,
        memory_budget=memory,
        time_budget_s=budget,
        clock=device.clock,
    )


def test_a_fast_device_picks_a_larger_model_than_a_slow_one() -> None:
    fast, slow = FakeDevice(800.0), FakeDevice(0.1, overhead_s=0.05)
    big, small = choose(fast), choose(slow)
    assert big.shape.params > small.shape.params
    assert big.shape.flop_per_step > 100 * small.shape.flop_per_step
    for sizing in (big, small):
        assert predicted_seconds(sizing.step_s, SLOWDOWNS) <= 60.0 * (1 - SIZING_SHARE)


def test_the_time_budget_binds_on_a_slow_device() -> None:
    slow = FakeDevice(0.1, overhead_s=2.0)  # never compute-bound: the overhead dominates
    sizing = choose(slow, budget=600.0)
    assert sizing.reason.startswith("time")
    assert predicted_seconds(sizing.step_s, SLOWDOWNS) <= 600.0 * (1 - SIZING_SHARE)
    assert len(slow.measured) >= 1


def test_growth_stops_once_a_step_is_compute_bound() -> None:
    device = FakeDevice(800.0)
    sizing = choose(device, budget=600.0)
    assert sizing.share >= TARGET_SHARE and sizing.reason.startswith("compute-bound")
    assert device.measured[-1] == sizing.shape  # nothing larger was tried
    index = LADDER.index(sizing.shape)
    smaller = LADDER[index - 1]
    assert smaller.flop_per_step / device.step_s(smaller) / device.rate < TARGET_SHARE


def test_the_memory_budget_binds() -> None:
    device = FakeDevice(800.0, overhead_s=10.0)  # never compute-bound within the ladder
    budget = LADDER[6].memory_bytes() * 1.01
    sizing = choose(device, memory=budget, budget=1e7)
    assert sizing.shape == LADDER[6] and sizing.reason.startswith("memory")
    assert all(s.memory_bytes() <= budget for s in device.measured)


def test_out_of_memory_keeps_the_last_size_that_fit() -> None:
    device = FakeDevice(800.0, overhead_s=10.0)

    def measure(shape: LmShape) -> float:
        if shape.d_model >= 1024:
            raise RuntimeError("CUDA out of memory. Tried to allocate 8.00 GiB")
        return device.measure(shape)

    sizing = choose_size(
        measure,
        matmul_tflops=800.0,
        slowdowns=SLOWDOWNS,
        memory_budget=1e13,
        time_budget_s=1e7,
        clock=device.clock,
    )
    assert sizing.shape.d_model < 1024 and "out of memory" in sizing.reason


def test_the_yardstick_model_is_on_the_ladder() -> None:
    """The issue's H200 yardstick: 24 layers, width 2048, micro-batch 8 × 2048 (~1.36B)."""
    (yardstick,) = [s for s in LADDER if s.d_model == 2048]
    assert (yardstick.layers, yardstick.batch, yardstick.seq) == (24, 8, 2048)
    assert yardstick.params == pytest.approx(1.36e9, rel=0.03)
    assert "1.34B-parameter model" in yardstick.describe()
    assert MIN_REPEATS >= 5


def test_the_sizing_sentence_states_what_was_measured_and_the_timed_share_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # On an H200 the sentence said "reached 82% of the measured matmul rate" beside a timed
    # bf16 step of 362 TFLOP/s: the 82% was a one-step sizing probe against the suite's own
    # 4096² matmul (446 TFLOP/s), not the matmul suite's 785. A fake device whose probe step
    # reaches 80 of 100 TFLOP/s and whose timed steps reach 40: both shares must be reported,
    # and the sentence must name the probe, its precision and the rate it was measured against.
    from desktopapp.devices.bench import amp
    from desktopapp.devices.bench.target import BenchDevice

    def time_steps(target, shape, mode, *, budget_s, token, min_repeats, warmups=1):
        rate = (80.0 if min_repeats == 1 else 40.0) * 1e12  # probe faster than the timed steps
        seconds = shape.flop_per_step / rate
        return amp._Timed(seconds, seconds, (seconds,) * max(min_repeats, MIN_REPEATS), 1.0)

    monkeypatch.setattr(amp, "_matmul_rate", lambda target, mode, token: 100.0)
    monkeypatch.setattr(amp, "_time_steps", time_steps)
    monkeypatch.setattr(amp, "_memory_budget", lambda target: 1e12)
    monkeypatch.setattr(amp, "empty_cache", lambda target: None)
    target = BenchDevice(spec="cpu", kind="cpu", index=0, name="fake CPU")
    results = [e.result for e in amp.amp_suite(target, budget_s=1.0) if e.result is not None]
    assert results
    for r in results:
        sentence = r.extra["sizing"]
        assert r.extra["matmul_tflops"] == 100.0
        assert r.extra["matmul_share"] == pytest.approx(r.tflops / 100.0)
        assert r.extra["matmul_share"] == pytest.approx(0.40)
        assert r.extra["sizing_share"] == pytest.approx(0.80)
        assert sentence.startswith("compute-bound")
        assert f"{r.extra['sizing_share']:.0%}" in sentence and "100 TFLOP/s" in sentence
        assert "one bf16 sizing step" in sentence and "384×384 matmul" in sentence
