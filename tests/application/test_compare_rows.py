"""Characterization of the Compare/PDF summary rows (issue 12).

``tests/fixtures/compare_rows.json`` holds the rows (section, label, text, value, better,
detail) that ``summarize`` gave for the scenarios below before ``compare._rows`` was split into
one function per section; the split must give the very same rows, in the same order.

Figures that come from the models and catalogs are not frozen (the catalogs are rebuilt when
``../shared/reference`` changes); which rows appear, in which order, is. When a deliberate
change alters that, regenerate the fixture with ``python tests/application/test_compare_rows.py``
and review the diff.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from desktopapp.application.compare import Row, summarize
from desktopapp.model.catalog import CloudOffer
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.scenario import CostPlan, Scenario
from desktopapp.model.tco import CloudInputs, OnPremInputs
from desktopapp.model.training import TrainingInputs

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "compare_rows.json"
EXAMPLES = ROOT / "resources" / "examples"

_CUSTOM = CloudOffer(
    id="custom/my-h100",
    provider="Acme",
    instance="8x H100",
    accelerator_id="h100-sxm",
    gpus=8,
    region="",
    on_demand=2.5,
    committed_1yr=2.0,
    committed_3yr=None,
    spot=None,
    price_date="2025-01",
    source="quote from Acme",
    confidence="medium",
    kind="custom",
)
_FLEET = OnPremInputs(
    server_price=300_000.0,
    power_kw=10.2,
    gpus=16,
    gpus_per_server=8,
    utilization=0.6,
    server_price_source="vendor quote",
    power_source="datasheet",
)


def _scenarios() -> dict[str, Scenario]:
    out = {path.stem: Scenario.load(path) for path in sorted(EXAMPLES.glob("*.json"))}
    out["training-6nd"] = Scenario(
        name="training 6nd",
        training=TrainingInputs(
            params=1.3e9, tokens=26e9, accelerator="a100-sxm-80gb", gpus=1, price=1.5
        ),
    )
    out["training-forward"] = Scenario(
        name="training forward, given peak",
        training=TrainingInputs(
            forward_flops=4e9,
            samples=1.2e6,
            epochs=90,
            method="forward",
            peak_tflops=100.0,
            gpus=4,
            utilization=0.35,
            price_source="x" * 80,
        ),
    )
    out["inference-language"] = Scenario(
        name="serve",
        inference=InferenceInputs(params=8e9, accelerator="h100-sxm", batch_size=16, price=2.0),
    )
    out["inference-vision"] = Scenario(
        name="cnn",
        inference=InferenceInputs(
            params=25e6, forward_flops=8e9, accelerator="h100-sxm", price=2.0
        ),
    )
    out["fleet-and-custom-offer"] = Scenario(
        name="fleet and offer",
        training=TrainingInputs(params=7e9, tokens=150e9, accelerator="h100-sxm", gpus=16),
        memory=MemoryInputs(params=7e9, accelerator="h100-sxm", gpus=16, zero_stage=3),
        cost=CostPlan(
            accelerator="h100-sxm",
            offer=_CUSTOM.id,
            pricing="committed_1yr",
            custom_offers=(_CUSTOM,),
            on_prem=_FLEET,
            cloud=CloudInputs(cloud_price=2.0, pricing="committed_1yr", price_source="Acme"),
        ),
    )
    out["owning-never-pays"] = Scenario(
        name="cheap cloud",
        cost=CostPlan(
            on_prem=dataclasses.replace(_FLEET, gpus=8, server_price=5e6, utilization=0.05),
            cloud=CloudInputs(cloud_price=0.1),
        ),
    )
    out["fleet-only"] = Scenario(
        name="fleet only",
        memory=MemoryInputs(params=70e9, accelerator="h100-sxm"),
        cost=CostPlan(on_prem=dataclasses.replace(_FLEET, gpus=8)),
    )
    return out


def _encode(row: Row) -> dict[str, object]:
    value = row.value
    return {
        "section": row.section,
        "label": row.label,
        "text": row.text,
        # JSON has no NaN/inf; repr keeps every float bit.
        "value": None if value is None else repr(float(value)),
        "better": row.better,
        "detail": row.detail,
    }


def _current() -> dict[str, list[dict[str, object]]]:
    return {
        key: [_encode(row) for row in summarize(scenario).rows]
        for key, scenario in _scenarios().items()
    }


def _frozen() -> dict[str, list[dict[str, object]]]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_fixture_covers_every_section_and_branch() -> None:
    labels = {(r["section"], r["label"]) for rows in _frozen().values() for r in rows}
    sections = {section for section, _label in labels}
    assert sections == {"Workload", "Hardware", "Price", "Rent or buy", "Results"}
    for label in (
        "Parameters",
        "Forward FLOPs per sample",
        "Cloud offer",
        "Owned fleet",
        "Serving throughput",
        "Inference throughput",
        "Break-even utilization",
        "Memory per device",
    ):
        assert any(found == label for _s, found in labels), label
    texts = {r["text"] for rows in _frozen().values() for r in rows}
    assert "owning never pays off" in texts and "given peak" in texts


# Rows whose figures come only from the scenario's own inputs: frozen whole. The others come
# from the models and the catalogs (built from ../shared/reference, which changes between
# rounds), so only which rows appear, in which order and which way is better, is frozen.
INPUT_SECTIONS = {"Workload"}


def _shape(rows: list[dict[str, object]]) -> list[object]:
    return [
        r if r["section"] in INPUT_SECTIONS else (r["section"], r["label"], r["better"])
        for r in rows
    ]


@pytest.mark.parametrize("key", sorted(_scenarios()))
def test_rows_are_unchanged(key: str) -> None:
    rows = [_encode(row) for row in summarize(_scenarios()[key]).rows]
    assert _shape(rows) == _shape(_frozen()[key])
    assert all(r["text"] for r in rows)  # every row says something ("—" at the least)


if __name__ == "__main__":  # regenerate the fixture
    FIXTURE.write_text(json.dumps(_current(), indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {FIXTURE}")
