"""Scenario files: round trips, hostile files, migration, atomic saves, headless use."""

from __future__ import annotations

import builtins
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.cli import format_value_error
from desktopapp.model import scenario as scenario_module
from desktopapp.model.atomic import is_temp_file
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.inference import INFERENCE_PRECISIONS, InferenceInputs
from desktopapp.model.memory import (
    INFERENCE_PRECISIONS as MEMORY_INFERENCE_PRECISIONS,
)
from desktopapp.model.memory import (
    OPTIMIZERS,
    TRAIN_PRECISIONS,
    MemoryInputs,
)
from desktopapp.model.scenario import (
    DEMAND_SOURCES,
    FORMAT,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_HORIZON_MONTHS,
    MAX_NAME_CHARS,
    MAX_NOTES_CHARS,
    VERSION,
    ComparedPrice,
    CostDemand,
    CostPlan,
    LoadedScenario,
    Scenario,
    ScenarioError,
    inference_inputs_from_scenario,
    load_scenario,
    memory_inputs_from_scenario,
    nesting_depth,
    parse_json_document,
    parse_scenario,
    training_inputs_from_scenario,
)
from desktopapp.model.tco import DEMAND_SHAPES, CloudInputs, OnPremInputs
from desktopapp.model.training import TRAINING_PRECISIONS, TrainingInputs

REPO_ROOT = Path(__file__).resolve().parent.parent


def _custom(offer_id: str, **changes: Any) -> CloudOffer:
    fields: dict[str, Any] = {
        "id": offer_id,
        "provider": "Own colo",
        "instance": "8x H100 rack",
        "accelerator_id": "h100-sxm",
        "gpus": 8,
        "region": "eu-central",
        "on_demand": None,
        "committed_1yr": None,
        "committed_3yr": None,
        "spot": None,
        "price_date": "2026-05",
        "source": "quote from the colo",
        "confidence": "medium",
        "kind": "custom",
    }
    return CloudOffer(**(fields | changes))


TRAINING = TrainingInputs(params=7e9, tokens=2e12, peak_tflops=989.0, gpus=64, price=2.5)
MEMORY = MemoryInputs(params=7e9, layers=32, hidden=4096, heads=32, seq_len=4096, gpus=8)
INFERENCE = InferenceInputs(params=7e9, peak_tflops=989.0, bandwidth_gbs=3350.0)
FULL = Scenario(
    name="Llama-style 7B",
    notes='first pass\nwith «unicode» and "quotes"',
    training=TRAINING,
    memory=MEMORY,
    inference=INFERENCE,
    cost=CostPlan(
        accelerator="h100-sxm",
        offer="my-colo",
        pricing="committed_1yr",
        demand=CostDemand(
            source="spread",
            gpu_hours_per_month=1234.5,
            runs_per_month=2.5,
            horizon_months=36,
            profile="bursty",
        ),
        compared=(
            ComparedPrice("my-colo", "committed_1yr"),
            ComparedPrice("lambda/gpu-8x-h100-sxm5/all"),
            ComparedPrice("my-colo", "on_demand"),
        ),
        custom_offers=(_custom("my-colo", on_demand=1.9, committed_1yr=1.5),),
        on_prem=OnPremInputs(server_price=300_000.0, power_kw=10.2, gpus=64),
        cloud=CloudInputs(cloud_price=1.5, pricing="committed_1yr"),
    ),
)


# --- strategies ------------------------------------------------------------------------------


def _pos(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


_short_text = st.text(max_size=40)


@st.composite
def training_inputs(draw: st.DrawFn) -> TrainingInputs:
    kwargs: dict[str, Any] = {}
    if draw(st.booleans()):
        kwargs.update(params=draw(_pos(1e3, 1e13)), tokens=draw(_pos(1e3, 1e15)))
        kwargs["method"] = draw(st.sampled_from(["auto", "6nd"]))
        # the modelled run's plan and allowances, saved with the inputs (issue 13)
        kwargs.update(
            active_params=draw(st.none() | _pos(1e3, kwargs["params"])),
            tp=draw(st.none() | st.integers(1, 64)),
            pp=draw(st.none() | st.integers(1, 64)),
            micro_batch=draw(st.none() | st.integers(1, 64)),
            global_batch_tokens=draw(st.none() | _pos(1e3, 1e9)),
            production_factor=draw(st.none() | _pos(1.0, 3.0)),
        )
    else:
        kwargs.update(forward_flops=draw(_pos(1e3, 1e15)), samples=draw(_pos(1.0, 1e10)))
        kwargs["method"] = draw(st.sampled_from(["auto", "forward"]))
    return TrainingInputs(
        **kwargs,
        epochs=draw(_pos(0.01, 100.0)),
        peak_tflops=draw(_pos(0.01, 5000.0)),
        precision=draw(st.sampled_from(TRAINING_PRECISIONS)),
        gpus=draw(st.integers(1, 100_000)),
        utilization=draw(st.none() | _pos(0.01, 1.0)),
        price=draw(st.none() | _pos(0.01, 100.0)),
        price_source=draw(_short_text),
        goodput_overhead=draw(_pos(0.0, 10.0)),
        project_margin=draw(_pos(1.0, 100.0)),
    )


@st.composite
def _shape(draw: st.DrawFn) -> dict[str, int | None]:
    heads = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    return {
        "layers": draw(st.integers(1, 200)),
        "heads": heads,
        "hidden": heads * draw(st.integers(1, 256)),
        "kv_heads": draw(st.sampled_from([None, *[k for k in (1, 2, 4, 8) if heads % k == 0]])),
    }


@st.composite
def memory_inputs(draw: st.DrawFn) -> MemoryInputs:
    mode = draw(st.sampled_from(["train", "inference"]))
    precisions = TRAIN_PRECISIONS if mode == "train" else MEMORY_INFERENCE_PRECISIONS
    shape: dict[str, Any] = {}
    if draw(st.booleans()):
        shape = draw(_shape())
        shape["seq_len"] = draw(st.integers(1, 1_000_000))
    return MemoryInputs(
        params=draw(_pos(1e3, 1e13)),
        mode=mode,
        precision=draw(st.none() | st.sampled_from(precisions)),
        optimizer=draw(st.sampled_from(OPTIMIZERS)),
        **shape,
        batch_size=draw(st.integers(1, 4096)),
        checkpointing=draw(st.booleans()),
        flash_attention=draw(st.booleans()),
        zero_stage=draw(st.integers(0, 3)),
        gpus=draw(st.integers(1, 100_000)),
        memory_gb=draw(st.none() | _pos(0.5, 10_000.0)),
        overhead_gib=draw(_pos(0.0, 1024.0)),
    )


@st.composite
def inference_inputs(draw: st.DrawFn) -> InferenceInputs:
    shape: dict[str, Any] = draw(_shape()) if draw(st.booleans()) else {}
    return InferenceInputs(
        params=draw(_pos(1e3, 1e13)),
        forward_flops=draw(st.none() | _pos(1e3, 1e15)),
        peak_tflops=draw(_pos(0.01, 5000.0)),
        bandwidth_gbs=draw(_pos(1.0, 20_000.0)),
        precision=draw(st.sampled_from(INFERENCE_PRECISIONS)),
        batch_size=draw(st.integers(1, 100_000)),
        prompt_tokens=draw(st.integers(0, 1_000_000)),
        output_tokens=draw(st.integers(1, 1_000_000)),
        **shape,
        gpus=draw(st.integers(1, 1024)),
        utilization=draw(st.none() | _pos(0.01, 1.0)),
        bandwidth_efficiency=draw(_pos(0.01, 1.0)),
        price=draw(st.none() | _pos(0.01, 100.0)),
        price_source=draw(_short_text),
    )


_ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-/", min_size=1, max_size=30)

_prices = st.none() | _pos(0.0, 1000.0)


@st.composite
def custom_offer(draw: st.DrawFn) -> CloudOffer:
    return _custom(
        draw(_ids),
        provider=draw(_short_text),
        instance=draw(_short_text),
        accelerator_id=draw(_ids),
        gpus=draw(st.integers(1, 1024)),
        region=draw(_short_text),
        on_demand=draw(_prices),
        committed_1yr=draw(_prices),
        committed_3yr=draw(_prices),
        spot=draw(_prices),
        notes=draw(_short_text),
        rentable=draw(st.booleans()),
    )


@st.composite
def on_prem_inputs(draw: st.DrawFn) -> OnPremInputs:
    per_server = draw(st.integers(1, 16))
    power = draw(_pos(0.0, 100.0))
    return OnPremInputs(
        server_price=draw(_pos(0.0, 1e7)),
        power_kw=power,
        gpus=per_server * draw(st.integers(1, 1000)),
        gpus_per_server=per_server,
        life_years=draw(_pos(1.0, 10.0)),
        power_kw_idle=draw(st.none() | _pos(0.0, power)),
        pue=draw(_pos(1.0, 3.0)),
        kwh_price=draw(_pos(0.0, 2.0)),
        ops_fraction=draw(_pos(0.0, 1.0)),
        facility_usd_per_kw_month=draw(_pos(0.0, 1000.0)),
        utilization=draw(_pos(0.01, 1.0)),
        server_price_source=draw(_short_text),
        power_source=draw(_short_text),
    )


cloud_inputs = st.builds(
    CloudInputs,
    cloud_price=_pos(0.01, 1000.0),
    pricing=st.sampled_from(PRICING_MODELS),
    spot_overhead=_pos(0.0, 1.0),
    price_source=_short_text,
)

cost_demands = st.builds(
    CostDemand,
    source=st.sampled_from(DEMAND_SOURCES),
    gpu_hours_per_month=st.none() | _pos(1e-3, 1e12),
    runs_per_month=_pos(0.0, 1000.0),
    horizon_months=st.integers(1, MAX_HORIZON_MONTHS),
    profile=st.sampled_from(DEMAND_SHAPES),
)

compared_prices = st.builds(ComparedPrice, offer=_ids, pricing=st.sampled_from(PRICING_MODELS))

cost_plans = st.builds(
    CostPlan,
    accelerator=st.none() | _ids,
    offer=st.none() | _ids,
    pricing=st.sampled_from(PRICING_MODELS),
    demand=cost_demands,
    compared=st.none()
    | st.lists(compared_prices, max_size=6, unique_by=lambda p: p.key).map(tuple),
    custom_offers=st.lists(custom_offer(), max_size=3, unique_by=lambda o: o.id).map(tuple),
    on_prem=st.none() | on_prem_inputs(),
    cloud=st.none() | cloud_inputs,
)

scenarios = st.builds(
    Scenario,
    name=st.text(max_size=MAX_NAME_CHARS),
    notes=st.text(max_size=300),
    training=st.none() | training_inputs(),
    memory=st.none() | memory_inputs(),
    inference=st.none() | inference_inputs(),
    cost=cost_plans,
)


# --- round trips -----------------------------------------------------------------------------


@given(scenarios)
def test_json_round_trip_gives_the_same_scenario(scenario: Scenario) -> None:
    text = scenario.to_json()
    again = Scenario.from_json(text)
    assert again == scenario
    assert again.to_json() == text  # stable output: saving an opened file changes nothing


@given(scenarios)
def test_save_then_load_gives_the_same_scenario(scenario: Scenario) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "plan.json"
        scenario.save(path)
        loaded = load_scenario(path)
        assert loaded.scenario == scenario
        assert not loaded.migrated
        assert os.listdir(folder) == ["plan.json"]


def test_full_scenario_round_trips_through_a_file(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    FULL.save(path)
    assert Scenario.load(path) == FULL
    document = json.loads(path.read_text(encoding="utf-8"))
    assert list(document)[:2] == ["format", "version"]
    assert document["format"] == FORMAT and document["version"] == VERSION
    assert document["training"]["params"] == 7e9
    assert "«unicode»" in path.read_text(encoding="utf-8")  # readable, not \u-escaped


def test_minimal_document_gives_defaults() -> None:
    assert Scenario.from_json('{"format": "desktopapp-scenario", "version": 1}') == Scenario()
    partial = Scenario.from_json(
        '{"format": "desktopapp-scenario", "version": 1,'
        ' "training": {"params": 1e9, "tokens": 2e10, "peak_tflops": 100}}'
    )
    assert partial.training == TrainingInputs(params=1e9, tokens=2e10, peak_tflops=100.0)
    assert partial.memory is None and partial.cost == CostPlan()


def test_bom_and_whole_number_floats_are_accepted() -> None:
    text = FULL.to_json().replace('"gpus": 64', '"gpus": 64.0')
    assert parse_scenario(b"\xef\xbb\xbf" + text.encode()).scenario == FULL


def test_from_dict_accepts_a_parsed_document() -> None:
    assert Scenario.from_dict(FULL.to_dict()) == FULL
    with pytest.raises(ScenarioError, match=r"^scenario: not a scenario"):
        Scenario.from_dict([1, 2])


# --- bad files: one clear message, file untouched --------------------------------------------


def _write(tmp_path: Path, data: bytes | str, name: str = "plan.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    old = time.time() - 3600  # an mtime a rewrite could not reproduce by accident
    os.utime(path, (old, old))
    return path


def _rejects(path: Path, pattern: str) -> ScenarioError:
    """Loading fails with one line matching ``pattern``; the file is byte- and mtime-identical."""
    before_bytes = path.read_bytes() if path.stat().st_size < 50_000_000 else None
    before = path.stat()
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message and len(message) <= 400
    assert message.startswith(f"{path.name}: ")
    assert re.search(pattern, message), message
    after = path.stat()
    assert after.st_mtime_ns == before.st_mtime_ns and after.st_size == before.st_size
    if before_bytes is not None:
        assert path.read_bytes() == before_bytes
    assert [p for p in path.parent.iterdir() if p != path and is_temp_file(p)] == []
    return info.value


def _doc(**changes: Any) -> str:
    document: dict[str, Any] = FULL.to_dict()
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            document[section][field] = value
        else:
            document[section] = value
    return json.dumps(document)


def _offer_dict(offer_id: str, **changes: Any) -> dict[str, Any]:
    return dict(FULL.to_dict()["cost"]["custom_offers"][0], id=offer_id, **changes)


def test_corrupt_json_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n  "format": "desktopapp-scenario",\n  "version" 1\n}\n')
    _rejects(path, r"^plan\.json: not valid JSON: expecting ':' delimiter \(line 3, column 13\)$")


def test_truncated_file(tmp_path: Path) -> None:
    text = FULL.to_json()
    path = _write(tmp_path, text[: len(text) // 2])
    _rejects(path, r"not valid JSON: the file ends too early, it may be truncated \(line \d+")


def test_empty_file(tmp_path: Path) -> None:
    _rejects(_write(tmp_path, " \n"), r"^plan\.json: the file is empty$")


def test_binary_garbage(tmp_path: Path) -> None:
    _rejects(
        _write(tmp_path, b'{"name": "\xff\xfe"}'), r"not UTF-8 text \(byte 0xff at offset 10\)"
    )


def test_too_large_file_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "plan.json"
    with path.open("wb") as handle:
        handle.truncate(14_200_000)  # sparse: no 14 MB actually written
    real_open = builtins.open

    def no_reading(*args: Any, **kwargs: Any) -> Any:
        if args and Path(args[0]) == path:
            raise AssertionError("the file was opened")
        return real_open(*args, **kwargs)

    monkeypatch.setattr(builtins, "open", no_reading)
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: no_reading(self, *a, **k))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == "plan.json: file is 14.2 MB; scenario files are at most 10 MB"
    assert path.stat().st_size == 14_200_000


def test_file_just_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    _rejects(path, r"scenario files are at most 10 MB")


def test_oversized_bytes_are_refused_without_a_file() -> None:
    with pytest.raises(ScenarioError, match="at most 10 MB"):
        parse_scenario(b" " * (MAX_FILE_BYTES + 1))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"^absent\.json: file not found$"):
        load_scenario(tmp_path / "absent.json")
    with pytest.raises(ScenarioError, match="not a regular file"):
        load_scenario(tmp_path)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("[1, 2]", r"not a scenario: the top level is a list"),
        ('{"version": 1}', r"not a scenario file \(no format marker"),
        (
            '{"format": "desktopapp-accelerators", "version": 1}',
            r"not a scenario file \(format 'desktopapp-accelerators'",
        ),
        ('{"format": "desktopapp-scenario"}', r"no format version"),
        ('{"format": "desktopapp-scenario", "version": "1"}', r"must be a whole number, got '1'"),
        ('{"format": "desktopapp-scenario", "version": 1.5}', r"must be a whole number, got 1.5"),
        ('{"format": "desktopapp-scenario", "version": true}', r"must be a whole number, got true"),
        ('{"format": "desktopapp-scenario", "version": -1}', r"unknown format version -1"),
        (
            '{"format": "desktopapp-scenario", "version": 7}',
            r"^plan\.json: format version 7 is newer than this app supports \(3\)",
        ),
    ],
)
def test_wrong_format_or_version(tmp_path: Path, text: str, pattern: str) -> None:
    _rejects(_write(tmp_path, text), pattern)


@pytest.mark.parametrize(
    ("changes", "pattern", "field"),
    [
        ({"training__params": "abc"}, r"training\.params: expected a number, got 'abc'", "params"),
        ({"training__params": -1}, r"training\.params: must be greater than 0, got -1", "params"),
        ({"training__params": True}, r"training\.params: expected a number, got true", "params"),
        ({"training__gpus": 1.5}, r"training\.gpus: must be a whole number, got 1\.5", "gpus"),
        ({"training__gpus": 0}, r"training\.gpus: must be at least 1", "gpus"),
        ({"training__gpus": [8]}, r"training\.gpus: expected a number, got a list", "gpus"),
        ({"training__precision": "fp64"}, r"training\.precision: must be one of", "precision"),
        ({"memory__checkpointing": "yes"}, r"memory\.checkpointing: must be true or false", ""),
        ({"memory__hidden": 4095}, r"memory\.hidden: must be divisible by heads", "hidden"),
        ({"inference__price_source": 3}, r"inference\.price_source: expected text, got 3", ""),
        ({"training": [1]}, r"training: expected an object, got a list", ""),
        ({"name": {"a": 1}}, r"name: expected text, got an object", ""),
        ({"cost__pricing": "free"}, r"cost\.pricing: must be one of on_demand", "pricing"),
        ({"cost__custom_offers": {}}, r"cost\.custom_offers: expected a list", ""),
        (
            {"cost__custom_offers": [_offer_dict("a"), _offer_dict("a")]},
            r"cost\.custom_offers: the id 'a' is used twice",
            "custom_offers",
        ),
        (
            {"cost__custom_offers": [_offer_dict("a", spot=-2)]},
            r"cost\.custom_offers: offer 1: spot: must be a finite number of 0 or more, got -2",
            "custom_offers",
        ),
        (
            {"cost__custom_offers": [{"id": "a"}]},
            r"cost\.custom_offers\[0\]\.provider: missing \(it has no default\)",
            "provider",
        ),
        (
            {"cost__on_prem": {"server_price": 1e5, "power_kw": 10, "gpus": 12}},
            r"cost\.on_prem\.gpus: must be a whole number of servers of 8 GPUs",
            "gpus",
        ),
        ({"cost__cloud": {"cloud_price": 0}}, r"cost\.cloud\.cloud_price: must be greater", ""),
        (
            {"cost__demand": {"source": "guess"}},
            r"cost\.demand\.source: must be one of auto, typed, runs, spread, got 'guess'",
            "source",
        ),
        (
            {"cost__demand": {"gpu_hours_per_month": 0}},
            r"cost\.demand\.gpu_hours_per_month: must be greater than 0",
            "gpu_hours_per_month",
        ),
        (
            {"cost__demand": {"runs_per_month": -1}},
            r"cost\.demand\.runs_per_month: must be 0 or more",
            "runs_per_month",
        ),
        (
            {"cost__demand": {"horizon_months": 121}},
            r"cost\.demand\.horizon_months: must be at most 120",
            "horizon_months",
        ),
        (
            {"cost__demand": {"horizon_months": 2.5}},
            r"cost\.demand\.horizon_months: must be a whole number",
            "horizon_months",
        ),
        (
            {"cost__demand": {"profile": "spiky"}},
            r"cost\.demand\.profile: must be one of flat, growing, bursty",
            "profile",
        ),
        ({"cost__demand": {"sorce": "typed"}}, r"cost\.demand\.sorce: unknown field \(did", ""),
        ({"cost__compared": {}}, r"cost\.compared: expected a list", ""),
        (
            {"cost__compared": [{"offer": "a", "pricing": "free"}]},
            r"cost\.compared\[0\]\.pricing: must be one of on_demand",
            "pricing",
        ),
        (
            {"cost__compared": [{"pricing": "spot"}]},
            r"cost\.compared\[0\]\.offer: missing \(it has no default\)",
            "offer",
        ),
        (
            {"cost__compared": [{"offer": "a"}, {"offer": "a", "pricing": "on_demand"}]},
            r"cost\.compared: the on_demand price of 'a' is listed twice",
            "compared",
        ),
    ],
)
def test_wrong_types_and_values_name_the_field(
    tmp_path: Path, changes: dict[str, Any], pattern: str, field: str
) -> None:
    error = _rejects(_write(tmp_path, _doc(**changes)), pattern)
    if field:
        assert error.field.endswith(field)


@pytest.mark.parametrize(
    ("literal", "shown"),
    [
        ("1e999", "Infinity"),
        ("-1e999", "-Infinity"),
        ("Infinity", "Infinity"),
        ("NaN", "NaN"),
        ("1e31", "1e+31"),
        ("1" + "0" * 5000, "a 5001-digit number"),
        ("-" + "9" * 40, "a 40-digit number"),
    ],
)
def test_huge_and_non_finite_numbers(tmp_path: Path, literal: str, shown: str) -> None:
    text = _doc().replace('"gpus": 64', f'"gpus": {literal}', 1)
    message = str(_rejects(_write(tmp_path, text), r"training\.gpus: must be a finite number"))
    assert message.endswith(f"got {shown}")


def test_non_finite_number_in_a_text_field(tmp_path: Path) -> None:
    text = '{"format": "desktopapp-scenario", "version": 1, "name": NaN}'
    _rejects(_write(tmp_path, text, "nan.json"), r"^nan\.json: name: expected text, got NaN$")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 200_000])
def test_deep_nesting_is_refused_without_recursing(tmp_path: Path, depth: int) -> None:
    inner = "[" * depth + "]" * depth
    text = '{"format": "desktopapp-scenario", "version": 1, "notes": ' + inner + "}"
    _rejects(_write(tmp_path, text), rf"nested {depth + 1} levels deep; at most 32 are allowed")


def test_unbalanced_deep_nesting(tmp_path: Path) -> None:
    _rejects(_write(tmp_path, "{" * 1_000_000), r"nested 1000000 levels deep")


def test_nesting_within_the_limit_reaches_the_schema_check(tmp_path: Path) -> None:
    inner = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    text = '{"format": "desktopapp-scenario", "version": 1, "notes": ' + inner + "}"
    _rejects(_write(tmp_path, text), r"notes: expected text, got a list")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", 1),
        ('{"a": [[1], {"b": []}]}', 4),
        ('"[[[[" ', 0),
        ('["\\"[[[", ["\\\\"]]', 2),
        ('["unterminated [[[[', 1),
        ("", 0),
    ],
)
def test_nesting_depth_ignores_brackets_in_strings(text: str, expected: int) -> None:
    assert nesting_depth(text) == expected


def test_nesting_depth_is_linear_on_hostile_strings() -> None:
    # Each escaped quote would restart a naive string pattern: quadratic, i.e. minutes here,
    # which would show as a stalled suite rather than as a timed assertion.
    assert nesting_depth('["' + '\\"' * 1_000_000 + "\\") == 1


def test_unknown_keys_are_errors_with_a_hint(tmp_path: Path) -> None:
    _rejects(
        _write(tmp_path, _doc(trainng={})), r"^plan\.json: trainng: unknown field \(did you mean"
    )
    error = _rejects(
        _write(tmp_path, _doc(training__param=1), "b.json"),
        r"^b\.json: training\.param: unknown field \(did you mean 'params'\?\)$",
    )
    assert error.field == "training.param"
    _rejects(_write(tmp_path, _doc(cost__zzz=1), "c.json"), r"^c\.json: cost\.zzz: unknown field$")


def test_duplicate_keys(tmp_path: Path) -> None:
    text = '{"format": "desktopapp-scenario", "version": 1, "name": "a", "name": "b"}'
    _rejects(_write(tmp_path, text), r"the key 'name' appears twice")


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        (
            {"name": "n" * (MAX_NAME_CHARS + 1)},
            r"^plan\.json: name: at most 200 characters, got 201$",
        ),
        ({"notes": "n" * (MAX_NOTES_CHARS + 1)}, r"notes: at most 100,000 characters"),
        ({"training__price_source": "s" * 1001}, r"training\.price_source: at most 1,000 char"),
        ({"cost__accelerator": "a" * 5000}, r"cost\.accelerator: at most 1,000 characters"),
        ({"cost__custom_offers": [_offer_dict("x")] * 1001}, r"at most 1000 entries"),
        (
            {"cost__compared": [{"offer": f"o{i}"} for i in range(1001)]},
            r"cost\.compared: at most 1000 entries",
        ),
    ],
)
def test_strings_and_lists_are_bounded(
    tmp_path: Path, changes: dict[str, Any], pattern: str
) -> None:
    _rejects(_write(tmp_path, _doc(**changes)), pattern)


def test_lone_surrogate_is_refused(tmp_path: Path) -> None:
    _rejects(_write(tmp_path, _doc(name="\ud800")), r"name: contains characters that are not")
    _rejects(
        _write(tmp_path, _doc(training__price_source="a\udfffb"), "b.json"),
        r"^b\.json: training\.price_source: contains characters that are not valid Unicode$",
    )


def test_messages_quote_hostile_strings_briefly(tmp_path: Path) -> None:
    error = _rejects(_write(tmp_path, _doc(training__params="x" * 900)), r"expected a number")
    assert len(str(error)) < 120


def test_successful_load_does_not_touch_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, FULL.to_json())
    before = path.stat().st_mtime_ns
    assert load_scenario(path).scenario == FULL
    assert path.stat().st_mtime_ns == before
    assert sorted(tmp_path.iterdir()) == [path]


def test_scenario_error_is_a_value_error_the_cli_prints_as_is(tmp_path: Path) -> None:
    import argparse

    error = _rejects(_write(tmp_path, "[]"), "not a scenario")
    assert isinstance(error, ValueError)
    args = argparse.Namespace(scenario="plan.json", json=True)
    assert format_value_error(error, args) == str(error)


# --- migration -------------------------------------------------------------------------------

V0 = {
    "format": "desktopapp-scenario",
    "version": 0,
    "title": "Prototype plan",
    "description": "saved by the prototype",
    "model_params": 1.3e9,
    "dataset_tokens": 2.6e10,
    "epochs": 2,
    "gpu_tflops": 312,
    "num_gpus": 16,
    "mfu": 0.35,
    "dtype": "fp16",
    "price_per_gpu_hour": 1.75,
}


def test_version_0_migration_maps_every_field() -> None:
    migrated = scenario_module.MIGRATIONS[0](dict(V0, gpu="h100-sxm"))
    assert migrated == {
        "format": FORMAT,
        "version": 1,
        "name": "Prototype plan",
        "notes": "saved by the prototype",
        "training": {
            "params": 1.3e9,
            "tokens": 2.6e10,
            "epochs": 2,
            "accelerator": "h100-sxm",
            "peak_tflops": 312,
            "gpus": 16,
            "utilization": 0.35,
            "precision": "fp16",
            "price": 1.75,
        },
        "cost": {"accelerator": "h100-sxm"},
    }
    assert scenario_module.MIGRATIONS[0]({"format": FORMAT, "version": 0}) == {
        "format": FORMAT,
        "version": 1,
    }


def test_version_0_file_loads_as_version_1_and_is_not_rewritten(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(V0, indent=1))
    before = path.read_bytes(), path.stat().st_mtime_ns
    loaded = load_scenario(path)
    assert loaded.migrated and loaded.stored_version == 0
    assert loaded.scenario == Scenario(
        name="Prototype plan",
        notes="saved by the prototype",
        training=TrainingInputs(
            params=1.3e9,
            tokens=2.6e10,
            epochs=2.0,
            peak_tflops=312.0,
            gpus=16,
            utilization=0.35,
            precision="fp16",
            price=1.75,
        ),
    )
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    loaded.scenario.save(path)  # saving writes the current version
    assert json.loads(path.read_text())["version"] == VERSION
    again = load_scenario(path)
    assert not again.migrated and again.scenario == loaded.scenario


def test_version_0_with_unknown_key_is_refused(tmp_path: Path) -> None:
    _rejects(_write(tmp_path, json.dumps(dict(V0, colour="red"))), r"colour: unknown field")


def test_version_0_bad_value_names_the_new_field(tmp_path: Path) -> None:
    _rejects(_write(tmp_path, json.dumps(dict(V0, num_gpus="many"))), r"training\.gpus: expected")


def _version_1(document: dict[str, Any]) -> dict[str, Any]:
    """A version 1 document: the current layout without the cost section's demand and
    compared prices (which version 2 added)."""
    old = json.loads(json.dumps(document))
    old["version"] = 1
    if isinstance(old.get("cost"), dict):
        old["cost"].pop("demand", None)
        old["cost"].pop("compared", None)
    return old


V1_DEMAND = {
    "source": "auto",
    "gpu_hours_per_month": 5000.0,
    "runs_per_month": 1.0,
    "horizon_months": 48,
    "profile": "flat",
}


def test_version_1_migration_fills_the_cost_defaults() -> None:
    v1 = _version_1(FULL.to_dict())
    migrated = scenario_module.MIGRATIONS[1](v1)
    assert migrated["version"] == 2
    assert migrated["cost"] == dict(v1["cost"], demand=V1_DEMAND, compared=None)
    assert {k: v for k, v in migrated.items() if k != "cost"} == {
        k: v for k, v in v1.items() if k not in ("cost", "version")
    } | {"version": 2}
    assert v1["version"] == 1 and "demand" not in v1["cost"]  # the input is left alone
    # The filled values are what a version 2 file without them means today.
    assert CostDemand() == CostDemand(**V1_DEMAND)
    # No cost section (or null): nothing to fill, the default plan applies.
    assert scenario_module.MIGRATIONS[1]({"format": FORMAT, "version": 1}) == {
        "format": FORMAT,
        "version": 2,
    }


def test_version_1_file_loads_with_the_default_demand_and_prices(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(_version_1(FULL.to_dict()), indent=2))
    before = path.read_bytes(), path.stat().st_mtime_ns
    loaded = load_scenario(path)
    assert loaded.migrated and loaded.stored_version == 1
    assert loaded.scenario == replace(
        FULL, cost=replace(FULL.cost, demand=CostDemand(), compared=None)
    )
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before  # upgraded only when saved
    loaded.scenario.save(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["version"] == VERSION == 3
    assert document["cost"]["demand"] == V1_DEMAND and document["cost"]["compared"] is None
    again = load_scenario(path)
    assert not again.migrated and again.scenario == loaded.scenario


def test_version_2_goodput_overhead_0_was_not_given_and_becomes_null(tmp_path: Path) -> None:
    """Version 2 saved 0 for a goodput overhead nobody gave (and the modelled run read 0 as
    the published goodput); version 3 reads that 0 as null, so a 0 written now means none."""
    v2 = json.loads(FULL.to_json())
    v2["version"] = 2
    v2["training"]["goodput_overhead"] = 0.0
    path = _write(tmp_path, json.dumps(v2))
    loaded = load_scenario(path)
    assert loaded.migrated and loaded.stored_version == 2
    assert loaded.scenario.training is not None
    assert loaded.scenario.training.goodput_overhead is None
    given = dict(v2, training=dict(v2["training"], goodput_overhead=0.25))
    kept = load_scenario(_write(tmp_path, json.dumps(given))).scenario.training
    assert kept is not None and kept.goodput_overhead == 0.25
    # a bool is not the number 0: still refused by the version 3 checks, not made null
    wrong = dict(v2, training=dict(v2["training"], goodput_overhead=False))
    _rejects(_write(tmp_path, json.dumps(wrong)), r"training\.goodput_overhead")
    # a version 3 file keeps an explicit 0 (no overhead at all)
    none_at_all = replace(FULL, training=replace(TRAINING, goodput_overhead=0.0))
    path3 = tmp_path / "v3.json"
    none_at_all.save(path3)
    again = load_scenario(path3).scenario.training
    assert again is not None and again.goodput_overhead == 0.0


def test_version_0_file_migrates_through_version_1_to_2(tmp_path: Path) -> None:
    path = _write(tmp_path, json.dumps(dict(V0, gpu="h100-sxm")))
    loaded = load_scenario(path)
    assert loaded.stored_version == 0 and loaded.migrated
    assert loaded.scenario.cost == CostPlan(accelerator="h100-sxm", demand=CostDemand(**V1_DEMAND))
    assert loaded.scenario.training is not None and loaded.scenario.training.gpus == 16


@pytest.mark.parametrize("key", ["demand", "compared"])
def test_version_1_cannot_hold_the_version_2_keys(tmp_path: Path, key: str) -> None:
    v1 = _version_1(FULL.to_dict())
    v1["cost"][key] = None
    error = _rejects(
        _write(tmp_path, json.dumps(v1)), rf"^plan\.json: cost\.{key}: unknown field in a version 1"
    )
    assert error.field == f"cost.{key}"


# --- atomic save -----------------------------------------------------------------------------

_KILLED_SAVE = textwrap.dedent(
    """
    import os, sys, time
    from desktopapp.model import atomic
    from desktopapp.model.scenario import Scenario

    def slow(fd, data):
        os.write(fd, data[: len(data) // 2])
        os.fsync(fd)
        print("partial", flush=True)
        time.sleep(60)

    atomic._write_all = slow
    Scenario(name="new " * 40, notes="n" * 5000).save(sys.argv[1])
    """
)


def test_save_killed_midway_leaves_the_old_scenario(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    FULL.save(path)
    old_bytes, old_mtime = path.read_bytes(), path.stat().st_mtime_ns
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SAVE, str(path)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "partial"
        (temp,) = [p for p in tmp_path.iterdir() if p != path]
        assert temp.stat().st_size > 0  # the new contents were half written
    finally:
        child.kill()
        child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode != 0
    assert path.read_bytes() == old_bytes and path.stat().st_mtime_ns == old_mtime
    assert Scenario.load(path) == FULL
    (debris,) = [p for p in tmp_path.iterdir() if p != path]
    assert is_temp_file(debris) and not debris.name.endswith(".json")
    with pytest.raises(ScenarioError):  # and never loads as a scenario either
        load_scenario(debris)


def test_save_refuses_a_scenario_over_the_size_limit(tmp_path: Path) -> None:
    offers = tuple(_custom(f"o{i}", notes="n" * MAX_NOTES_CHARS) for i in range(101))
    huge = Scenario(cost=CostPlan(custom_offers=offers))
    with pytest.raises(ScenarioError, match=r"^plan\.json: the scenario is 10\.\d MB; scenario"):
        huge.save(tmp_path / "plan.json")
    assert list(tmp_path.iterdir()) == []


def test_save_replaces_and_keeps_one_file(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    Scenario(name="a").save(path)
    FULL.save(path)
    assert Scenario.load(path) == FULL
    assert list(tmp_path.iterdir()) == [path]


# --- construction checks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: Scenario(name=3), r"^name: expected text"),  # type: ignore[arg-type]
        (lambda: Scenario(training=MEMORY), r"^training: expected TrainingInputs"),  # type: ignore[arg-type]
        (lambda: Scenario(cost=None), r"^cost: expected CostPlan"),  # type: ignore[arg-type]
        (lambda: CostPlan(pricing="cheap"), r"^pricing: must be one of"),
        (
            lambda: CostPlan(custom_offers=(_custom(" "),)),
            r"^custom_offers: offer 1: id: must not be empty",
        ),
        (
            lambda: CostPlan(custom_offers=(_custom("a", gpus=0),)),
            r"^custom_offers: offer 1: gpus: must be between 1",
        ),
        (
            lambda: CostPlan(custom_offers=(_custom("a"), _custom("b", spot=float("nan")))),
            r"^custom_offers: offer 2: spot: must be a finite",
        ),
        (lambda: CostPlan(on_prem=FULL.cost.cloud), r"^on_prem: expected OnPremInputs"),  # type: ignore[arg-type]
        (lambda: CostPlan(demand=None), r"^demand: expected CostDemand"),  # type: ignore[arg-type]
        (lambda: CostPlan(compared=(("a", "spot"),)), r"^compared: expected compared prices"),  # type: ignore[arg-type]
        (
            lambda: CostPlan(compared=(ComparedPrice("a", "spot"), ComparedPrice("a", "spot"))),
            r"^compared: the spot price of 'a' is listed twice",
        ),
        (lambda: ComparedPrice(" "), r"^offer: must not be empty"),
        (lambda: ComparedPrice("a", "hourly"), r"^pricing: must be one of on_demand"),
        (lambda: CostDemand(source="typed-in"), r"^source: must be one of auto, typed"),
        (lambda: CostDemand(gpu_hours_per_month=-1.0), r"^gpu_hours_per_month: must be greater"),
        (
            lambda: CostDemand(gpu_hours_per_month=math.nan),
            r"^gpu_hours_per_month: must be a finite",
        ),
        (lambda: CostDemand(runs_per_month=-0.5), r"^runs_per_month: must be 0 or more"),
        (lambda: CostDemand(horizon_months=0), r"^horizon_months: must be at least 1"),
        (lambda: CostDemand(profile="seasonal"), r"^profile: must be one of flat, growing"),
    ],
)
def test_constructors_validate(make: Callable[[], object], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        make()


def test_custom_offer_lookup() -> None:
    assert FULL.cost.custom_offer("my-colo") == FULL.cost.custom_offers[0]
    assert FULL.cost.custom_offer("nope") is None


def test_parse_json_document_applies_the_same_checks() -> None:
    assert parse_json_document('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    with pytest.raises(ScenarioError, match=r"^list\.json: nested"):
        parse_json_document("[" * 100, "list.json")


# --- headless use ----------------------------------------------------------------------------


def test_inputs_from_scenario(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    FULL.save(path)
    assert training_inputs_from_scenario(path) == TRAINING
    assert memory_inputs_from_scenario(path) == MEMORY
    assert inference_inputs_from_scenario(path) == INFERENCE


def test_overrides_win_and_none_means_not_given(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    FULL.save(path)
    inputs = training_inputs_from_scenario(path, {"gpus": 128, "utilization": None})
    assert inputs == replace(TRAINING, gpus=128)
    with pytest.raises(ValueError, match=r"^gpus: must be at least 1") as info:
        training_inputs_from_scenario(path, {"gpus": 0})
    assert not isinstance(info.value, ScenarioError)  # the CLI maps it to --gpus


def test_overriding_with_the_other_compute_rule_replaces_the_workload(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    FULL.save(path)
    inputs = training_inputs_from_scenario(path, {"forward_flops": 1e9, "samples": 1e6})
    assert (inputs.params, inputs.tokens) == (None, None)
    assert inputs.resolved_method == "forward" and inputs.gpus == TRAINING.gpus
    forward = Scenario(
        training=TrainingInputs(forward_flops=1e9, samples=1e6, method="forward", peak_tflops=100.0)
    )
    forward.save(path)
    back = training_inputs_from_scenario(path, {"params": 1e9, "tokens": 1e10})
    assert back.resolved_method == "6nd" and back.forward_flops is None
    # Overriding one figure of the scenario's own rule keeps the rest.
    same = training_inputs_from_scenario(path, {"samples": 5e6})
    assert same == replace(forward.training, samples=5e6)  # type: ignore[type-var]


def test_catalog_accelerators_are_resolved_and_checked(tmp_path: Path) -> None:
    from desktopapp.model.training import estimate_training

    path = tmp_path / "plan.json"
    with_catalog = Scenario(
        training=TrainingInputs(params=7e9, tokens=2e12, accelerator="h100-sxm")
    )
    with_catalog.save(path)
    inputs = training_inputs_from_scenario(path)
    assert inputs == with_catalog.training
    assert estimate_training(inputs).total_flops == pytest.approx(6 * 7e9 * 2e12)
    text = path.read_text().replace('"h100-sxm"', '"h100x"')
    _rejects(
        _write(tmp_path, text, "typo.json"),
        r"^typo\.json: training\.accelerator: unknown id 'h100x'; did you mean h100-sxm",
    )


def test_missing_section_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    Scenario(name="empty").save(path)
    with pytest.raises(ScenarioError, match=r"^plan\.json: has no training inputs"):
        training_inputs_from_scenario(path)


def test_bad_file_reaches_the_cli_as_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"format": "desktopapp-scenario", "version": 9}')
    with pytest.raises(ScenarioError) as info:
        training_inputs_from_scenario(path)
    assert str(info.value) == (
        "plan.json: format version 9 is newer than this app supports (3); update the app to open it"
    )


def test_loaded_scenario_reports_its_source() -> None:
    loaded = parse_scenario(FULL.to_json(), "x.json")
    assert loaded == LoadedScenario(FULL, "x.json", VERSION)
