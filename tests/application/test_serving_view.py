"""The serving view-model: curve arrays, target lines, cards and bound notes."""

from __future__ import annotations

import numpy as np

from desktopapp.application.serving import serving_view_for
from desktopapp.model.serving import ServingInputs

LLAMA70 = {"params": 70e9, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}


def _inputs(**extra: object) -> ServingInputs:
    base: dict = {
        "accelerator": "h100-sxm",
        "gpus": 4,
        "precision": "fp8",
        "prompt_tokens": 1024,
        "output_tokens": 256,
        **LLAMA70,
    }
    base.update(extra)
    return ServingInputs(**base)


def test_curve_arrays_line_up_and_grow_with_concurrency() -> None:
    view = serving_view_for(_inputs(price=2.5))
    c = view.curve
    n = len(c.concurrency)
    assert n >= 10
    for arr in (c.tpot_ms, c.ttft_ms, c.tokens_per_second, c.tokens_per_second_per_gpu):
        assert len(arr) == n and np.all(np.isfinite(arr)) and np.all(arr > 0)
    assert np.all(np.diff(c.concurrency) > 0)
    assert np.all(np.diff(c.tpot_ms) >= 0)  # more sequences never shorten a token
    np.testing.assert_allclose(c.tokens_per_second_per_gpu * 4, c.tokens_per_second)
    np.testing.assert_allclose(c.tokens_per_second_per_user * c.tpot_ms, 1000.0)
    assert c.concurrency[c.current_index] == view_concurrency(view)


def view_concurrency(view) -> float:  # type: ignore[no-untyped-def]
    return float(view.concurrency_text.split(" ", 1)[0].replace(",", ""))


def test_targets_become_lines_and_cards_say_whether_they_are_met() -> None:
    view = serving_view_for(_inputs(ttft_slo_s=0.5, tpot_slo_s=0.05, price=2.0))
    axes = {line.axis: line for line in view.slo_lines}
    assert axes["tpot_ms"].value_ms == 50.0 and axes["ttft_ms"].value_ms == 500.0
    assert all(line.met for line in view.slo_lines) and view.slo_met
    assert "target" in view.ttft.detail and "met" in view.tpot.detail
    # the chosen point meets the target, and the curve marks points past it
    c = view.curve
    assert c.tpot_ms[c.current_index] <= 50.0 and c.meets_slo[c.current_index]
    assert np.all(c.meets_slo == ((c.tpot_ms <= 50.0) & (c.ttft_ms <= 500.0)))


def test_cards_carry_units_formulas_and_cost() -> None:
    view = serving_view_for(_inputs(price=2.0))
    assert view.ttft.value.endswith("s") and view.tpot.value.endswith("s")
    assert "TTFT = prefill + one decode step" in view.ttft.tooltip
    assert "TPOT" in view.tpot.tooltip and view.throughput.unit == "tokens/s"
    assert view.cost is not None and view.cost.value.startswith("$")
    assert "per million output tokens" in view.cost_text
    assert serving_view_for(_inputs()).cost is None


def test_bound_notes_name_each_phase_and_the_bytes_read() -> None:
    view = serving_view_for(_inputs(concurrency=1))
    prefill, decode = view.bound_notes
    assert prefill.startswith("prefill: compute-bound")
    assert decode.startswith("decode: memory-bound") and "per device per step" in decode
    assert "all-reduces" in decode  # four-way tensor parallel
