"""Workload presets: the JSON loads, each class converts to inputs, figures match their sources."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktopapp.model import catalog
from desktopapp.model.memory import estimate_memory
from desktopapp.model.presets import get_preset, load_presets, parse_presets
from desktopapp.model.training import estimate_training
from desktopapp.resources import resource_path

EXPECTED_IDS = {
    "tabular-classical",
    "tree-ensembles",
    "small-nn",
    "cnn-imagenet",
    "bert-base",
    "llm-7b",
    "foundation-175b",
}


def test_all_workload_classes_are_there_with_text():
    presets = load_presets()
    assert {p.id for p in presets} == EXPECTED_IDS
    for p in presets:
        assert p.name and p.description and p.hardware and p.memory_range and p.source
        assert p.to_dict()["id"] == p.id


def test_presets_come_from_the_resources_folder():
    assert resource_path("presets.json").is_file()
    raw = json.loads(resource_path("presets.json").read_text(encoding="utf-8"))
    assert raw["format"] == "desktopapp-presets"


def test_preset_accelerators_exist_in_the_catalog():
    for p in load_presets():
        if p.accelerator is not None:
            assert catalog.accelerator_catalog().find(p.accelerator) is not None, p.id


def test_every_preset_with_a_compute_rule_converts_and_estimates():
    for p in load_presets():
        if p.has_training_estimate:
            e = estimate_training(p.to_training_inputs())
            assert e.total_flops > 0 and e.training_seconds > 0
            assert e.devices == p.devices
        else:
            with pytest.raises(ValueError, match=r"^preset: "):
                p.to_training_inputs()
        if p.has_memory_estimate:
            m = estimate_memory(p.to_memory_inputs())
            assert m.per_device_bytes > 0
            assert m.inputs.gpus == p.devices


def test_bert_base_preset_is_the_worked_example():
    p = get_preset("bert-base")
    e = estimate_training(p.to_training_inputs(peak_tflops=312, utilization=0.4, price=2.0))
    assert e.total_flops == pytest.approx(2.178e18)
    assert round(e.training_hours, 3) == 0.606
    assert e.estimated_cost_usd == pytest.approx(9.70, abs=0.005)
    assert (p.layers, p.hidden, p.heads) == (12, 768, 12)


def test_resnet50_forward_flops_are_twice_the_macs():
    p = get_preset("cnn-imagenet")
    assert p.forward_flops == pytest.approx(2 * 4.1e9)
    assert (p.samples, p.epochs) == (1_281_167, 90)
    e = estimate_training(p.to_training_inputs(peak_tflops=312))
    assert e.total_flops == pytest.approx(3 * 8.2e9 * 1_281_167 * 90)


def test_llm_7b_matches_the_published_gpu_hours():
    # Llama 2 7B: 184,320 A100-80GB GPU-hours (Touvron et al. 2023, Table 2).
    e = estimate_training(get_preset("llm-7b").to_training_inputs(peak_tflops=312, utilization=0.4))
    assert e.gpu_hours == pytest.approx(184_320, rel=0.05)


def test_gpt3_scale_compute_matches_the_paper():
    e = estimate_training(get_preset("foundation-175b").to_training_inputs())
    assert e.total_flops == pytest.approx(3.14e23, rel=0.01)


def test_llm_7b_needs_sharding_on_one_80gb_gpu():
    p = get_preset("llm-7b")
    alone = estimate_memory(p.to_memory_inputs(gpus=1, zero_stage=0, accelerator="h100-sxm"))
    assert alone.fits is False
    assert alone.weights_bytes + alone.gradients_bytes + alone.optimizer_bytes == 16 * 7e9
    sharded = estimate_memory(p.to_memory_inputs(accelerator="h100-sxm"))
    assert sharded.fits is True


def test_overrides_replace_preset_fields():
    inputs = get_preset("llm-7b").to_training_inputs(gpus=64, tokens=1e12)
    assert inputs.gpus == 64 and inputs.tokens == 1e12 and inputs.params == 7e9


def test_unknown_preset_suggests_close_ids():
    with pytest.raises(ValueError, match=r"^preset: unknown id 'bert'; did you mean bert-base"):
        get_preset("bert")


def _write(tmp_path, presets, fmt="desktopapp-presets"):
    path = tmp_path / "presets.json"
    path.write_text(json.dumps({"format": fmt, "presets": presets}), encoding="utf-8")
    return path


ROW: dict[str, Any] = {
    "id": "x",
    "name": "X",
    "description": "d",
    "method": "forward",
    "hardware": "h",
    "memory_range": "m",
    "source": "s",
    "forward_macs": 5,
    "samples": 10,
}


def test_parse_converts_macs_and_checks_rows(tmp_path):
    (preset,) = parse_presets(_write(tmp_path, [ROW]))
    assert preset.forward_flops == 10
    with pytest.raises(ValueError, match=r"^id: duplicate"):
        parse_presets(_write(tmp_path, [ROW, ROW]))
    with pytest.raises(ValueError, match=r"^colour: not a preset field"):
        parse_presets(_write(tmp_path, [{**ROW, "colour": "red"}]))
    with pytest.raises(ValueError, match=r"^forward_macs: "):
        parse_presets(_write(tmp_path, [{**ROW, "forward_flops": 3}]))
    with pytest.raises(ValueError, match=r"^samples: "):
        parse_presets(_write(tmp_path, [{**ROW, "samples": -1}]))
    with pytest.raises(ValueError, match="not a desktopapp-presets file"):
        parse_presets(_write(tmp_path, [ROW], fmt="other"))
    with pytest.raises(ValueError, match=r"^forward_flops: "):
        parse_presets(_write(tmp_path, [{**ROW, "forward_macs": None}]))


def test_preset_texts_shown_in_the_app_have_no_scientific_notation():
    """Descriptions are read in meetings: "2.18e18" reads as a typo (issue 16)."""
    import re

    from desktopapp.model.presets import load_presets

    scientific = re.compile(r"\d[eE][-+]?\d")
    for preset in load_presets():
        shown = {k: v for k, v in vars(preset).items() if isinstance(v, str) and k != "source"}
        assert "description" in shown
        for field, text in shown.items():
            assert not scientific.search(text), (preset.name, field, text)


def test_preset_sources_read_as_sources_not_internal_names():
    """Issue 16: internal names ("project brief", "tco_facts.md §3") reached the user."""
    from desktopapp.model.presets import load_presets

    internal = ("project brief", ".md", "§", "BYTES_PER_VALUE", "TODO")
    for preset in load_presets():
        for field, text in vars(preset).items():
            if isinstance(text, str):
                assert not [w for w in internal if w in text], (preset.name, field, text)


def test_unknown_preset_without_a_close_id_lists_the_ids_plainly():
    with pytest.raises(ValueError) as exc:
        get_preset("zzzz")
    assert str(exc.value).startswith("preset: unknown id 'zzzz' (known: ")
