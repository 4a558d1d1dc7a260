"""The bundled catalogs: completeness, sources, lookups, offers and the build script."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest

from desktopapp.model import catalog
from desktopapp.model.catalog import (
    PRECISIONS,
    PRICING_MODELS,
    Accelerator,
    CloudOffer,
    accelerator_catalog,
    cheapest_offer,
    cheapest_price,
    cloud_defaults,
    cloud_offers,
    estimated_server_power_kw,
    get_accelerator,
    offer_by_id,
    offers_for,
    tco_defaults,
    vendors,
)
from desktopapp.resources import resource_path, resources_dir
from tests.conftest import load_catalog_builder

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO.parent / "shared" / "reference"
DATE_RE = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")

REQUIRED_IDS = [
    "h100-sxm",
    "h100-pcie",
    "h200-sxm",
    "h800-sxm",
    "gh200",
    "b200",
    "gb200",
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "a100-pcie-80gb",
    "v100-sxm2",
    "t4",
    "a10",
    "a10g",
    "l4",
    "l40s",
    "rtx-3090",
    "rtx-4090",
    "rtx-5090",
    "rtx-6000-ada",
    "mi250x",
    "mi300x",
    "mi325x",
    "tpu-v4",
    "tpu-v5e",
    "tpu-v5p",
    "tpu-v6e",
    "trainium1",
    "trainium2",
    "trainium3",
    "inferentia2",
    "gaudi2",
    "gaudi3",
    "apple-m2-ultra",
    "apple-m3-max",
    "apple-m4-max",
]


builder = load_catalog_builder()


# --- resources ---------------------------------------------------------------------------------


def test_resources_are_found_through_the_resources_module():
    for name in ("accelerators.json", "cloud_prices.json", "tco_defaults.json"):
        path = resource_path(name)
        assert path.is_file(), name
        assert path.parent == resources_dir()
    data = json.loads(resource_path("accelerators.json").read_text(encoding="utf-8"))
    assert data["format"] == "desktopapp-accelerators" and data["version"] == 1
    assert DATE_RE.match(data["generated"])


def test_json_rows_have_exactly_the_dataclass_fields():
    names = {
        "accelerators.json": ("accelerators", Accelerator),
        "cloud_prices.json": ("offers", CloudOffer),
    }
    for file, (key, cls) in names.items():
        rows = json.loads(resource_path(file).read_text(encoding="utf-8"))[key]
        expected = [f.name for f in dataclasses.fields(cls)]
        for row in rows:
            assert list(row) == expected, row.get("id")


def test_loader_rejects_a_file_of_another_format(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "something-else"}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"x.json: not a desktopapp-accelerators file"):
        catalog._load_json(path, "desktopapp-accelerators")


# --- accelerators ------------------------------------------------------------------------------


def test_catalog_has_all_required_accelerators_with_unique_ids():
    ids = accelerator_catalog().ids
    assert len(ids) >= 30
    assert len(set(ids)) == len(ids)
    missing = [i for i in REQUIRED_IDS if i not in ids]
    assert not missing
    for acc_id in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", acc_id), acc_id


def test_every_accelerator_is_sourced_dated_and_plausible():
    for acc in accelerator_catalog().accelerators:
        assert acc.source.strip(), acc.id
        assert acc.confidence in ("high", "medium", "low"), acc.id
        assert DATE_RE.match(acc.source_date), (acc.id, acc.source_date)
        assert acc.notes.strip(), acc.id
        assert acc.kind in ("gpu", "tpu", "npu", "cpu"), acc.id
        assert acc.memory_gb > 0, acc.id
        assert acc.memory_bandwidth_gbs is None or acc.memory_bandwidth_gbs > 0
        assert acc.peak_tflops, acc.id
        assert set(acc.peak_tflops) <= set(PRECISIONS), acc.id
        assert all(math.isfinite(v) and v > 0 for v in acc.peak_tflops.values()), acc.id
        assert acc.tdp_w is None or 1 < acc.tdp_w < 5000, acc.id
        if acc.street_price_usd is not None:
            assert acc.street_price_usd > 0 and acc.price_source.strip(), acc.id
        if acc.typical_utilization is not None:
            assert 0 < acc.typical_utilization <= 1, acc.id
            assert acc.typical_utilization_source.strip(), acc.id


def test_dense_peaks_are_not_sparse_figures():
    h100 = get_accelerator("h100-sxm")
    assert h100.peak_tflops["bf16"] == pytest.approx(989.4)
    assert h100.peak_tflops["fp8"] == pytest.approx(1978.9)
    assert "fp8" not in get_accelerator("a100-sxm-80gb").peak_tflops  # unsupported: omitted
    assert get_accelerator("t4").peak_tflops["int4"] == pytest.approx(260)
    assert get_accelerator("tpu-v4").peak_flops("bf16") == pytest.approx(275e12)


def test_published_training_utilizations_are_carried():
    assert get_accelerator("tpu-v4").typical_utilization == pytest.approx(0.462)
    assert "PaLM" in get_accelerator("tpu-v4").typical_utilization_source
    h100 = get_accelerator("h100-sxm")
    assert 0.38 <= (h100.typical_utilization or 0) <= 0.43
    assert "Llama 3" in h100.typical_utilization_source
    assert get_accelerator("a100-sxm-80gb").typical_utilization is not None
    assert get_accelerator("l4").typical_utilization is None  # nothing published


def test_aliases_never_name_two_accelerators():
    owners: dict[str, str] = {}
    for acc in accelerator_catalog().accelerators:
        for key in (acc.id, acc.name, *acc.aliases):
            norm = catalog._normalise(key)
            assert owners.setdefault(norm, acc.id) == acc.id, (key, acc.id, owners[norm])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
        ("NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"),
        ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
        ("NVIDIA H200", "h200-sxm"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA GeForce RTX 3090", "rtx-3090"),
        ("Tesla T4", "t4"),
        ("Tesla V100-SXM2-32GB", "v100-sxm2"),
        ("Tesla V100-SXM2-16GB", "v100-sxm2"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA A10", "a10"),
        ("NVIDIA B200", "b200"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
        ("AMD Instinct MI300X", "mi300x"),
        # short names used in cloud_prices.csv
        ("H100 SXM 80GB", "h100-sxm"),
        ("A100 40GB SXM", "a100-sxm-40gb"),
        ("A100 80GB SXM", "a100-sxm-80gb"),
        ("L40S 48GB", "l40s"),
        ("A10G 24GB", "a10g"),
        ("H200 141GB", "h200-sxm"),
        ("GH200 96GB", "gh200"),
        ("Trainium1", "trainium1"),
        ("TPU v5e", "tpu-v5e"),
        # ids and case
        ("h100-sxm", "h100-sxm"),
        ("H100-SXM", "h100-sxm"),
        ("nvidia h100 80gb hbm3", "h100-sxm"),
        ("Apple M4 Max", "apple-m4-max"),
    ],
)
def test_lookup_by_id_alias_and_device_name(name, expected):
    assert get_accelerator(name).id == expected
    assert accelerator_catalog().find(name) is not None


def test_pcie_and_sxm_are_distinct():
    assert (
        get_accelerator("NVIDIA H100 PCIe").peak_tflops["bf16"]
        < get_accelerator("NVIDIA H100 80GB HBM3").peak_tflops["bf16"]
    )


def test_unknown_id_raises_with_suggestions():
    with pytest.raises(ValueError) as info:
        get_accelerator("h100-sxmm")
    message = str(info.value)
    assert message.startswith("accelerator: unknown id 'h100-sxmm'")
    assert "h100-sxm" in message
    with pytest.raises(ValueError, match=r"^accelerator: unknown id"):
        get_accelerator("no-such-chip-xyz")
    assert accelerator_catalog().find("no-such-chip-xyz") is None


def test_unsupported_precision_raises_naming_the_field():
    with pytest.raises(ValueError, match=r"^precision: .*no published fp8 peak"):
        get_accelerator("v100-sxm2").peak_flops("fp8")


def test_vendors_lists_each_vendor_once():
    names = vendors()
    assert len(names) == len(set(names))
    assert {"NVIDIA", "AMD", "Google", "AWS", "Intel", "Apple"} <= set(names)


# --- cloud offers ------------------------------------------------------------------------------


def test_offers_point_at_catalog_accelerators_with_positive_prices():
    ids = set(accelerator_catalog().ids)
    offers = cloud_offers()
    assert len(offers) >= 40
    assert len({o.id for o in offers}) == len(offers)
    for offer in offers:
        assert offer.accelerator_id in ids, offer.id
        prices = [offer.price(p) for p in PRICING_MODELS]
        assert any(p is not None for p in prices), offer.id
        for price in prices:
            assert price is None or (math.isfinite(price) and 0 < price < 100), offer.id
        assert offer.gpus >= 1, offer.id
        assert offer.kind in ("hyperscaler", "neocloud", "marketplace", "custom"), offer.id
        assert offer.confidence in ("high", "medium", "low"), offer.id
        assert DATE_RE.match(offer.price_date), (offer.id, offer.price_date)
        assert offer.source.strip(), offer.id
        assert re.fullmatch(r"[a-z0-9.-]+/[a-z0-9.-]+/[a-z0-9.-]+", offer.id), offer.id


def test_offer_ids_and_known_prices():
    p5 = offer_by_id("aws/p5.48xlarge/us-east-1")
    assert p5.accelerator_id == "h100-sxm"
    assert p5.on_demand == pytest.approx(6.88)
    assert p5.kind == "hyperscaler"
    assert "12.29" in p5.notes  # the pre-cut price is kept in the notes
    assert offer_by_id("AWS/P5.48XLARGE/US-EAST-1") is p5
    assert offer_by_id("lambda/gpu-8x-h100-sxm5/all").kind == "neocloud"
    assert offer_by_id("vast-ai/h100-sxm-marketplace/global").kind == "marketplace"
    tpu = offer_by_id("gcp/tpu-v5e/us-central1")
    assert (tpu.committed_1yr, tpu.committed_3yr) == (pytest.approx(0.84), pytest.approx(0.54))
    with pytest.raises(ValueError, match=r"^offer: unknown id 'aws/p5.48xlarge/us-east-9'"):
        offer_by_id("aws/p5.48xlarge/us-east-9")


def test_invalid_pricing_model_is_rejected():
    offer = cloud_offers()[0]
    with pytest.raises(ValueError, match=r"^pricing: must be one of"):
        offer.price("reserved")
    with pytest.raises(ValueError, match=r"^pricing:"):
        cheapest_offer("h100-sxm", "hourly")


def test_cheapest_offer_prefers_rentable_offers():
    for acc_id in ("h100-sxm", "a100-sxm-40gb", "l4"):
        for pricing in PRICING_MODELS:
            found = cheapest_offer(acc_id, pricing)
            priced = [o for o in offers_for(acc_id) if o.price(pricing) is not None]
            rentable = [o for o in priced if o.rentable]
            if not priced:
                assert found is None
                continue
            assert found is not None
            pool = rentable or priced
            assert found.price(pricing) == min(o.price(pricing) or math.inf for o in pool)
            if rentable:
                assert found.rentable
    # H800's only price is the DeepSeek-V3 assumption: used, since nothing else exists.
    h800 = cheapest_offer("h800-sxm")
    assert h800 is not None and not h800.rentable and h800.on_demand == pytest.approx(2.0)


def test_cheapest_price_derives_missing_pricing_models_from_on_demand():
    listed = cheapest_price("h100-sxm", "on_demand")
    assert listed is not None and not listed.derived
    derived = cheapest_price("l4", "committed_3yr")
    assert derived is not None and derived.derived
    on_demand = cheapest_offer("l4", "on_demand")
    assert on_demand is not None and on_demand.on_demand is not None
    discount = cloud_defaults().committed_3yr_discount.value
    assert derived.price == pytest.approx(on_demand.on_demand * (1 - discount))
    assert derived.basis.startswith("derived:")
    assert cheapest_price("apple-m4-max") is None  # no cloud offers


def test_cloud_defaults_are_sourced_fractions():
    defaults = cloud_defaults()
    for value in (
        defaults.committed_1yr_discount,
        defaults.committed_3yr_discount,
        defaults.spot_discount,
        defaults.spot_overhead,
    ):
        assert 0 < value.value < 1
        assert value.source.strip()
    assert defaults.committed_1yr_discount.value < defaults.committed_3yr_discount.value
    assert defaults.spot_overhead.value == pytest.approx(0.10)
    assert defaults.discount("on_demand") is None
    assert defaults.discount("spot") is defaults.spot_discount
    assert any(s["provider"] == "AWS" for s in defaults.statements)


def test_tco_defaults_and_server_prices():
    defaults = tco_defaults()
    assert defaults.value("pue") == pytest.approx(1.5)
    assert defaults.value("kwh_price") == pytest.approx(0.10)
    assert defaults.value("life_years") == pytest.approx(4)
    for name in ("pue", "kwh_price", "life_years", "ops_fraction", "facility_usd_per_kw_month"):
        assert defaults.get(name).source.strip()
    with pytest.raises(ValueError, match=r"^nope: no such TCO default"):
        defaults.get("nope")
    h100 = defaults.server_for("h100-sxm")
    assert h100 is not None and h100.gpus == 8 and h100.power_kw == pytest.approx(10.2)
    assert h100.price_usd == pytest.approx(300000)
    assert {q.price_usd for q in h100.quotes} >= {270000.0, 296644.0}
    gaudi3 = defaults.server_for("gaudi3")
    assert gaudi3 is not None and gaudi3.price_usd is None  # a kit without a host
    assert gaudi3.quotes and gaudi3.quotes[0].price_usd == pytest.approx(125000)
    assert defaults.server_for("l4") is None
    assert any(p.region == "Virginia" for p in defaults.electricity_prices)
    ids = set(accelerator_catalog().ids)
    assert all(s.accelerator_id in ids for s in defaults.servers)


def test_estimated_server_power():
    assert estimated_server_power_kw(get_accelerator("h100-sxm"), 8) == pytest.approx(10.2)
    ratio = tco_defaults().value("server_power_per_gpu_tdp")
    assert estimated_server_power_kw(get_accelerator("l40s"), 4) == pytest.approx(4 * 0.35 * ratio)
    assert estimated_server_power_kw(get_accelerator("tpu-v4"), 4) is None  # no TDP


# --- build script ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("snapshot undated; >=2025-06 (reflects June-2025 P4/P5 price cut) -> 2026", "2025-06"),
        ("snapshot undated; >=2025 (lists B200/H200/a4)", "2025"),
        ("2023-07 .. 2025-05", "2025-05"),
        ("Q4 2024 (rates valid until 2025-01-01)", "2024-12"),
        ("2022-09-11 / 2023-06-01", "2023-06-01"),
        ("2024-2026", "2026"),
        ("~2023 (v5 catalog schema)", "2023"),
        ("snapshot undated (v8 schema, 2025-2026)", "2026"),
        ("2017 Q3", "2017"),
    ],
)
def test_builder_normalises_dates(text, expected):
    assert builder.normalise_date(text) == expected


def test_builder_parses_prices_and_ranges():
    assert builder.parse_price("6.88") == (6.88, "")
    value, note = builder.parse_price("0.31-1.02")
    assert value == pytest.approx(0.665) and "midpoint" in note
    value, note = builder.parse_price("1.70 (Oct-2025 low) -> 2.35 (Mar-2026)")
    assert value == pytest.approx(2.35) and "latest" in note
    value, note = builder.parse_price("~2.95")
    assert value == pytest.approx(2.95) and "approximate" in note
    assert builder.parse_price("") == (None, "")
    assert builder.parse_number_or_range("300-350", use="upper")[0] == 350
    assert builder.parse_number_or_range("25000-30000", use="mid")[0] == 27500


def test_builder_classifies_pricing_models():
    assert builder.classify_pricing("on-demand (pre-cut)", "x") == [("on_demand", True, "")]
    assert [f for f, _, _ in builder.classify_pricing("1yr / 3yr CUD", "x")] == [
        "committed_1yr",
        "committed_3yr",
    ]
    assert builder.classify_pricing("index", "H100 rental, 1-yr contract")[0][0] == (
        "committed_1yr"
    )
    with pytest.raises(SystemExit):
        builder.classify_pricing("per-token", "x")


def test_committed_json_matches_the_reference_tables(fresh_catalogs):
    """The committed JSON is what the builder makes from the reference (except the date)."""
    documents = fresh_catalogs
    for name, document in documents.items():
        committed = json.loads(resource_path(name).read_text(encoding="utf-8"))
        committed.pop("generated")
        fresh = json.loads(builder._dump(document))
        fresh.pop("generated")
        assert committed == fresh, f"{name} is stale: run scripts/build_catalogs.py"
    skipped = documents["cloud_prices.json"]["skipped"]
    assert any("general statement" in s["reason"] for s in skipped)
    assert any("not in the catalog" in s["reason"] for s in skipped)
