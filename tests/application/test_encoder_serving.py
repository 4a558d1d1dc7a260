"""Issue 25: an encoder (BERT) cannot generate tokens, so it gets no time-to-first-token or
per-output-token figures: one forward pass per request, shown as sequences (and the tokens they
read) per second and a latency per request, the same in the Workload tab's view, Compare,
``estimate inference --json``, ``report --json`` and a saved scenario."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from desktopapp.application import workload
from desktopapp.application.compare import summarize
from desktopapp.application.report_html import standalone_html
from desktopapp.application.snapshot import (
    compute_snapshot,
    request_from_preset,
    scenario_from_preset,
)
from desktopapp.model.inference import InferenceInputs, estimate_inference
from desktopapp.model.presets import get_preset
from desktopapp.model.scenario import Scenario, load_scenario
from tests.application.cli_run import cli_json as _cli_json


def test_bert_preset_is_an_encoder_and_gets_no_token_timings() -> None:
    assert get_preset("bert-base").architecture == "encoder"
    assert get_preset("llm-7b").architecture == "decoder"
    request = request_from_preset("bert-base")
    assert request.inference is not None and request.inference.architecture == "encoder"
    assert request.inference.prompt_tokens == get_preset("bert-base").seq_len
    snap = compute_snapshot(request)
    assert snap.serving is None  # the decoding model does not apply
    est = snap.inference
    assert est is not None and est.unit == "sequence"
    assert est.tokens_per_second is None
    # one forward pass over 512 tokens: 2 × N × 512 FLOPs per sequence
    assert est.flops_per_step == pytest.approx(2 * 110e6 * 512 * est.inputs.batch_size)
    assert est.input_tokens_per_second == pytest.approx(est.throughput_per_second * 512)
    view = workload.inference_view(est, request.inference)
    assert view.captions == workload.ENCODER_CAPTIONS
    text = " ".join(
        [*view.captions, view.headline, view.latency.detail, view.throughput.detail, view.note]
    )
    assert "first token" not in text and "output token" not in text
    assert "sequences/s" in view.headline and "per request" in view.headline
    # both rates in the headline are written alike ("1.11k sequences/s (567k tokens/s)")
    assert re.findall(r"\d [kMG]\b", view.headline) == []
    assert view.throughput.detail.split(" tokens/s")[0] in view.headline


def test_cli_report_and_compare_give_the_encoder_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    snap = compute_snapshot(request_from_preset("bert-base"))
    assert snap.inference is not None
    cli = _cli_json(capsys, ["estimate", "inference", "--preset", "bert-base", "--json"])
    assert cli["unit"] == "sequence" and cli["architecture"] == "encoder"
    assert cli["tokens_per_second"] is None and "ttft_seconds" not in cli
    assert cli["sequences_per_second"] == pytest.approx(snap.inference.throughput_per_second)
    report = _cli_json(capsys, ["report", "--preset", "bert-base", "--json"])
    serving = report["serving"]
    assert serving["model"] == "roofline" and serving["architecture"] == "encoder"
    assert serving["sequences_per_second"] == pytest.approx(cli["sequences_per_second"])
    assert serving["latency_seconds"] == pytest.approx(cli["latency_seconds"])
    summary = summarize(scenario_from_preset("bert-base"), "bert", "bert")
    labels = [row.label for row in summary.rows]
    assert "Time to first token" not in labels and "Time per output token" not in labels
    assert "Latency per request" in labels
    rate = next(r for r in summary.rows if r.label == "Inference throughput")
    assert rate.value == pytest.approx(cli["sequences_per_second"])
    assert "sequences/s" in rate.text
    text = re.sub("<[^>]+>", " ", standalone_html([summary]))  # the PDF's text
    assert "first token" not in text.lower() and "Latency per request" in text


def test_decoder_flag_on_the_line_and_the_encoder_choice_are_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["estimate", "inference", "--params", "340M", "--accelerator", "h100-sxm"]
    enc = _cli_json(capsys, [*argv, "--architecture", "encoder", "--json"])
    assert enc["unit"] == "sequence"
    dec = _cli_json(capsys, [*argv, "--json"])
    assert dec["unit"] == "token" and dec["architecture"] == "decoder"
    with pytest.raises(ValueError, match="architecture"):
        InferenceInputs(params=1e8, accelerator="h100-sxm", architecture="seq2seq")


def test_scenario_saves_the_architecture_and_old_files_read_as_decoders(tmp_path: Path) -> None:
    scenario = scenario_from_preset("bert-base")
    assert isinstance(scenario, Scenario) and scenario.inference is not None
    path = tmp_path / "bert.json"
    path.write_text(scenario.to_json(), encoding="utf-8")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["inference"]["architecture"] == "encoder"
    reopened = load_scenario(path).scenario.inference
    assert reopened is not None and reopened.architecture == "encoder"
    del document["inference"]["architecture"]  # a file saved before the field existed
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document), encoding="utf-8")
    inputs = load_scenario(old).scenario.inference
    assert inputs is not None and inputs.architecture == "decoder"
    assert estimate_inference(replace(inputs, architecture="encoder")).unit == "sequence"
