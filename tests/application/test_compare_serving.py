"""Compare and the PDF report show a language model's serving figures as the Workload tab does
(continuous batching, TTFT/TPOT, saved targets), not the old one-step roofline (issue 16)."""

from __future__ import annotations

from desktopapp.application.compare import summarize
from desktopapp.application.snapshot import compute_snapshot, request_from_scenario
from desktopapp.model import units
from desktopapp.model.inference import InferenceInputs, estimate_inference
from desktopapp.model.scenario import Scenario

SERVE = InferenceInputs(params=8e9, accelerator="h100-sxm", batch_size=16, price=2.0)


def test_language_models_are_summarized_with_the_serving_model() -> None:
    summary = summarize(Scenario(name="serve", inference=SERVE))
    # the Workload tab renders the scenario's snapshot too (issue 21)
    tab = compute_snapshot(request_from_scenario(Scenario(name="serve", inference=SERVE))).serving
    assert tab is not None and tab.concurrency == 16  # the saved batch: sequences at once
    assert summary.serving is not None
    assert summary.serving.tokens_per_second == tab.tokens_per_second
    labels = {r.label: r for r in summary.rows}
    assert "Inference throughput" not in labels  # the roofline row is gone
    assert labels["Serving throughput"].value == tab.tokens_per_second
    assert labels["Time to first token"].text == units.format_duration(tab.ttft_seconds)
    assert labels["Time per output token"].value == tab.tpot_seconds
    assert labels["Cost per million output tokens"].value == tab.cost_per_million_tokens
    # the serving model's assumptions, not the roofline's; then the Cost tab's behind its rows
    assert [title for title, _a in summary.assumptions] == ["Serving", "Rent or buy"]
    # The roofline would have reported a different (static-batch) figure.
    assert estimate_inference(SERVE).throughput_per_second != tab.tokens_per_second


def test_saved_latency_targets_choose_the_concurrency() -> None:
    tight = InferenceInputs(**{**SERVE.__dict__, "tpot_target_s": 0.012})
    summary = summarize(Scenario(name="tight", inference=tight))
    assert summary.serving is not None
    assert summary.serving.tpot_seconds <= 0.012
    loose = summarize(Scenario(name="loose", inference=SERVE)).serving
    assert loose is not None and summary.serving.concurrency != loose.concurrency


def test_non_language_models_keep_the_roofline_rows() -> None:
    vision = InferenceInputs(params=25e6, forward_flops=8e9, accelerator="h100-sxm", price=2.0)
    summary = summarize(Scenario(name="cnn", inference=vision))
    labels = {r.label for r in summary.rows}
    assert summary.serving is None and "Inference throughput" in labels
    assert "Cost per million predictions" in labels


def test_changes_beyond_ten_times_read_as_ratios() -> None:
    from desktopapp.application.compare import delta_text

    assert delta_text(0.12) == "+12%" and delta_text(-0.004) == "-0.4%"
    assert delta_text(3.5) == "+350%" and delta_text(-0.8) == "-80%"
    assert delta_text(22037.57) == "×22,039" and delta_text(9.0) == "×10.0"
    assert delta_text(None) == "" and delta_text(0.0) == "" and delta_text(float("inf")) == ""


def test_one_sequence_is_singular() -> None:
    one = InferenceInputs(params=110e6, accelerator="h100-sxm", batch_size=1, price=2.0)
    one = InferenceInputs(**{**one.__dict__, "ttft_target_s": 1e-4})  # only one fits a target
    summary = summarize(Scenario(name="bert", inference=one))
    assert summary.serving is not None and summary.serving.concurrency == 1
    rows = {r.label: r for r in summary.rows}
    assert rows["Serving throughput"].text.endswith("tokens/s (1 sequence)")
