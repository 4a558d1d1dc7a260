#!/usr/bin/env python3
"""Build the app's catalogs in ``resources/`` from the sourced reference tables.

Reads ``accelerators.csv``, ``cloud_prices.csv`` and ``tco_facts.md`` from the reference folder
(default ``../shared/reference`` beside the repository, or ``--reference DIR``) and writes

- ``resources/accelerators.json``  rows = ``desktopapp.model.catalog.Accelerator`` fields
- ``resources/cloud_prices.json``  rows = ``CloudOffer`` fields, plus a ``defaults`` object
- ``resources/tco_defaults.json``  on-prem defaults (PUE, $/kWh, life, ops, server prices)

The JSON files are committed; the app never reads the reference folder. Curation choices (ids,
aliases, how ranges and dates are reduced to one value) live here, in the tables below, and each
choice is written into the row's ``notes`` so nothing from the reference is lost.

    python scripts/build_catalogs.py             # regenerate
    python scripts/build_catalogs.py --check     # exit 1 if the committed JSON is out of date
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import re
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = REPO_ROOT.parent / "shared" / "reference"
DEFAULT_OUTPUT = REPO_ROOT / "resources"

if str(REPO_ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(REPO_ROOT))

from desktopapp.model.catalog import PRECISIONS, Accelerator, CloudOffer  # noqa: E402

if str(REPO_ROOT / "scripts") not in sys.path:  # perf_catalogs.py lives beside this script
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
from perf_catalogs import build_perf_documents  # noqa: E402

# The reference carries no collection date of its own; its newest dated entry is the
# AIMultiple GPU index "updated 2026-05-20" (cloud_prices.csv / tco_facts.md §6).
REFERENCE_COLLECTED = "2026-05"
COLLECTED_NOTE = (
    "Datasheet date not given in the reference; source_date is when the reference was "
    f"collected ({REFERENCE_COLLECTED}, its newest dated entry is 2026-05-20)."
)

# --- accelerators ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccMeta:
    """Curation for one accelerators.csv row (keyed by its ``name``)."""

    id: str
    aliases: tuple[str, ...]
    source_date: str = REFERENCE_COLLECTED
    source_date_note: str = COLLECTED_NOTE
    typical_utilization: float | None = None
    typical_utilization_source: str = ""
    extra_peaks: Mapping[str, float] = field(default_factory=dict)
    extra_peaks_note: str = ""


PALM_TABLE3 = (
    "Chowdhery et al. 2022, 'PaLM: Scaling Language Modeling with Pathways' (arXiv 2204.02311), "
    "Table 3 (model FLOPs utilization)"
)
A100_MFU_SOURCE = (
    "0.40 = middle of published A100 training reports: Megatron-Turing NLG 530B 30.2% MFU on "
    f"2240 A100 ({PALM_TABLE3}); OPT-175B up to 147 TFLOP/s per A100 80GB = 47% of 312 "
    "(Zhang et al. 2022, arXiv 2205.01068); BLOOM-176B 156 TFLOP/s per A100 80GB, '50% of BF16 "
    "peak' (GENCI/IDRIS, BigScience 2022). OPT/BLOOM count achieved FLOP/s and may include "
    "recomputation, so 0.30 (MT-NLG) is the strict-MFU low end. Measured on A100 80GB SXM."
)
H100_MFU_SOURCE = (
    "Llama 3 405B pre-training on up to 16K H100 SXM: 38-43% BF16 MFU depending on the "
    "parallelism layout (Llama Team, 'The Llama 3 Herd of Models', arXiv 2407.21783, 2024); "
    "0.40 = middle of that range."
)
MI250X_MFU_SOURCE = (
    "Dash et al. 2023, 'Optimizing Distributed Training on Frontier for Large Language Models' "
    "(arXiv 2312.12705): 38.38% (22B), 36.14% (175B), 31.96% (1T) of peak on MI250X GCDs; "
    "0.36 = the 175B figure. Throughput study on up to 3,072 GCDs, not a run trained to "
    "completion."
)

ACCELERATOR_META: dict[str, AccMeta] = {
    "NVIDIA V100 SXM2 (16/32GB)": AccMeta(
        "v100-sxm2",
        (
            "Tesla V100-SXM2-16GB",
            "Tesla V100-SXM2-32GB",
            "V100 SXM2",
            "V100 16GB",
            "V100 32GB",
            "V100",
        ),
        typical_utilization=0.213,
        typical_utilization_source=f"GPT-3 175B on V100: 21.3% MFU ({PALM_TABLE3}).",
    ),
    "NVIDIA T4": AccMeta(
        "t4",
        ("Tesla T4", "NVIDIA T4", "T4"),
        extra_peaks={"int4": 260.0},
        extra_peaks_note="int4 260 TOPS from the reference notes (Turing has no sparsity).",
    ),
    "NVIDIA A10G (AWS g5)": AccMeta("a10g", ("NVIDIA A10G", "A10G", "A10G 24GB")),
    "NVIDIA A10": AccMeta("a10", ("NVIDIA A10", "A10", "A10 24GB")),
    "NVIDIA L4": AccMeta("l4", ("NVIDIA L4", "L4", "L4 24GB")),
    "NVIDIA L40S": AccMeta("l40s", ("NVIDIA L40S", "L40S", "L40S 48GB")),
    "NVIDIA A100 40GB SXM4": AccMeta(
        "a100-sxm-40gb",
        (
            "NVIDIA A100-SXM4-40GB",
            "A100-SXM4-40GB",
            "A100 SXM4 40GB",
            "A100 40GB SXM",
            "A100 40GB",
        ),
        typical_utilization=0.40,
        typical_utilization_source=A100_MFU_SOURCE + " The 40GB part has the same compute.",
    ),
    "NVIDIA A100 80GB SXM4": AccMeta(
        "a100-sxm-80gb",
        (
            "NVIDIA A100-SXM4-80GB",
            "A100-SXM4-80GB",
            "A100 SXM4 80GB",
            "A100 80GB SXM",
            "A100 80GB",
        ),
        typical_utilization=0.40,
        typical_utilization_source=A100_MFU_SOURCE,
    ),
    "NVIDIA A100 80GB PCIe": AccMeta(
        "a100-pcie-80gb", ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe", "A100 PCIe 80GB")
    ),
    "NVIDIA H100 SXM5 80GB": AccMeta(
        "h100-sxm",
        (
            "NVIDIA H100 80GB HBM3",
            "NVIDIA H100",
            "H100 SXM5 80GB",
            "H100 SXM 80GB",
            "H100 SXM5",
            "H100 SXM",
            "H100 80GB",
            "H100",
        ),
        typical_utilization=0.40,
        typical_utilization_source=H100_MFU_SOURCE,
    ),
    "NVIDIA H100 PCIe 80GB": AccMeta(
        "h100-pcie", ("NVIDIA H100 PCIe", "H100 PCIe", "H100 PCIe 80GB")
    ),
    "NVIDIA H800 SXM5 (China export variant)": AccMeta(
        "h800-sxm",
        ("NVIDIA H800", "NVIDIA H800 80GB HBM3", "H800 SXM5", "H800"),
        source_date="2024-12",
        source_date_note="source_date = DeepSeek-V3 technical report (arXiv 2412.19437, 2024-12).",
    ),
    "NVIDIA H200 SXM 141GB": AccMeta(
        "h200-sxm",
        (
            "NVIDIA H200",
            "NVIDIA H200 141GB HBM3e",
            "H200 SXM 141GB",
            "H200 SXM",
            "H200 141GB",
            "H200",
        ),
    ),
    "NVIDIA GH200 Grace Hopper (GPU part)": AccMeta(
        "gh200", ("NVIDIA GH200 480GB", "NVIDIA GH200", "GH200 96GB", "GH200", "Grace Hopper")
    ),
    "NVIDIA B200 (HGX, 1000W)": AccMeta("b200", ("NVIDIA B200", "HGX B200", "B200 180GB", "B200")),
    "NVIDIA GB200 (per Blackwell GPU in NVL72, 1200W)": AccMeta(
        "gb200", ("NVIDIA GB200", "GB200 NVL72", "GB200")
    ),
    "NVIDIA GeForce RTX 3090": AccMeta(
        "rtx-3090", ("NVIDIA GeForce RTX 3090", "GeForce RTX 3090", "RTX 3090")
    ),
    "NVIDIA GeForce RTX 4090": AccMeta(
        "rtx-4090", ("NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "RTX 4090")
    ),
    "NVIDIA GeForce RTX 5090": AccMeta(
        "rtx-5090",
        ("NVIDIA GeForce RTX 5090", "GeForce RTX 5090", "RTX 5090"),
        source_date="2025-01",
        source_date_note="source_date = NVIDIA CES 2025 launch (specs and MSRP, 2025-01).",
    ),
    "NVIDIA RTX 6000 Ada Generation": AccMeta(
        "rtx-6000-ada",
        ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada Generation", "RTX 6000 Ada"),
    ),
    "AMD Instinct MI250X": AccMeta(
        "mi250x",
        ("AMD Instinct MI250X", "AMD Instinct MI250X/MI250", "MI250X"),
        typical_utilization=0.36,
        typical_utilization_source=MI250X_MFU_SOURCE,
    ),
    "AMD Instinct MI300X": AccMeta("mi300x", ("AMD Instinct MI300X", "MI300X")),
    "AMD Instinct MI325X": AccMeta("mi325x", ("AMD Instinct MI325X", "MI325X")),
    "Google TPU v3": AccMeta(
        "tpu-v3",
        ("Google TPU v3", "TPU v3", "TPUv3"),
        typical_utilization=0.325,
        typical_utilization_source=f"Gopher 280B on 4096 TPU v3: 32.5% MFU ({PALM_TABLE3}).",
    ),
    "Google TPU v4": AccMeta(
        "tpu-v4",
        ("Google TPU v4", "TPU v4", "TPUv4"),
        typical_utilization=0.462,
        typical_utilization_source=f"PaLM 540B on 6144 TPU v4: 46.2% MFU ({PALM_TABLE3}).",
    ),
    "Google TPU v5e": AccMeta(
        "tpu-v5e", ("Google TPU v5e", "TPU v5e", "TPU v5 lite", "TPU v5e (v5litepod)", "v5litepod")
    ),
    "Google TPU v5p": AccMeta("tpu-v5p", ("Google TPU v5p", "TPU v5p")),
    "Google TPU v6e (Trillium)": AccMeta(
        "tpu-v6e", ("Google TPU v6e", "TPU v6e", "TPU v6e (Trillium)", "Trillium", "TPU v6 lite")
    ),
    "AWS Trainium (Trn1)": AccMeta("trainium1", ("AWS Trainium", "Trainium1", "Trainium", "Trn1")),
    "AWS Trainium2 (Trn2)": AccMeta("trainium2", ("AWS Trainium2", "Trainium2", "Trn2")),
    "AWS Trainium3 (Trn3)": AccMeta("trainium3", ("AWS Trainium3", "Trainium3", "Trn3")),
    "AWS Inferentia2 (Inf2)": AccMeta("inferentia2", ("AWS Inferentia2", "Inferentia2", "Inf2")),
    "Intel Gaudi 2": AccMeta("gaudi2", ("Intel Gaudi 2", "Intel Gaudi2", "Gaudi 2", "Gaudi2")),
    "Intel Gaudi 3": AccMeta(
        "gaudi3", ("Intel Gaudi 3", "Intel Gaudi3", "Gaudi 3", "Gaudi3", "HL-325L")
    ),
    "Apple M2 Ultra (76-core GPU)": AccMeta("apple-m2-ultra", ("Apple M2 Ultra", "M2 Ultra")),
    "Apple M3 Max (40-core GPU)": AccMeta(
        "apple-m3-max",
        ("Apple M3 Max", "M3 Max"),
        source_date="2023-11",
        source_date_note="source_date = Apple MacBook Pro (Nov 2023) tech specs.",
    ),
    "Apple M4 Max (40-core GPU)": AccMeta(
        "apple-m4-max",
        ("Apple M4 Max", "M4 Max"),
        source_date="2024-10",
        source_date_note="source_date = Apple MacBook Pro (Oct/Nov 2024) tech specs, announced "
        "2024-10.",
    ),
}

PEAK_COLUMNS: dict[str, str] = {
    "fp32": "fp32_tflops",
    "tf32": "tf32_tflops_dense",
    "bf16": "bf16_tflops_dense",
    "fp16": "fp16_tflops_dense",
    "fp8": "fp8_tflops_dense",
    "int8": "int8_tops_dense",
}

CONFIDENCES = ("high", "medium", "low")
_NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def parse_number_or_range(text: str, *, use: str) -> tuple[float | None, str]:
    """First number or ``a-b`` range in ``text``; ranges give the ``use``: "upper" or "mid".

    Returns the value and a note ("" when the text was a plain number).
    """
    raw = text.strip()
    if not raw:
        return None, ""
    match = re.search(rf"({_NUMBER})\s*-\s*({_NUMBER})|({_NUMBER})", raw)
    if match is None:
        raise ValueError(f"no number in {raw!r}")
    if match.group(3) is not None:
        value = _num(match.group(3))
        plain = re.fullmatch(rf"{_NUMBER}", raw) is not None
        return value, "" if plain else f"reference text '{raw}', {value:g} used"
    low, high = _num(match.group(1)), _num(match.group(2))
    value = high if use == "upper" else (low + high) / 2
    word = "upper bound" if use == "upper" else "midpoint"
    return value, f"reference gives '{raw}', {word} {value:g} used"


def split_confidence(text: str) -> tuple[str, str]:
    """``"high (specs) / low (price)"`` → ("high", "low"); plain "medium" → ("medium", "")."""
    words = re.findall(r"\b(high|medium|low)\b", text.lower())
    if not words:
        raise ValueError(f"no confidence in {text!r}")
    main = words[0]
    price = ""
    match = re.search(r"\b(high|medium|low)\b\s*\(price\)", text.lower())
    if match:
        price = match.group(1)
    return main, price


_PRICE_SPLIT = re.compile(r";\s*(?=(?:price(?: range)?|kit price|MSRP)\b)")


def split_source(source: str, notes: str) -> tuple[str, str]:
    """Spec source and price source from the reference's one ``source`` column."""
    parts = _PRICE_SPLIT.split(source, maxsplit=1)
    spec = parts[0].strip()
    price = parts[1].strip() if len(parts) > 1 else ""
    price = re.sub(r"^price:\s*", "", price)
    if not price:
        found = re.search(r"Price = [^.]*\.?", notes)
        if found:
            price = f"{found.group(0).rstrip('.')} (reference notes)"
    return spec, price


def build_accelerators(rows: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
    names = [r["name"] for r in rows]
    missing = [n for n in names if n not in ACCELERATOR_META]
    unused = [n for n in ACCELERATOR_META if n not in names]
    if missing or unused:
        raise SystemExit(f"accelerators.csv and ACCELERATOR_META disagree: {missing=} {unused=}")
    out: list[dict[str, Any]] = []
    for row in rows:
        meta = ACCELERATOR_META[row["name"]]
        notes: list[str] = [row["notes"].strip()] if row["notes"].strip() else []
        peaks: dict[str, float] = {}
        for precision, column in PEAK_COLUMNS.items():
            value, note = parse_number_or_range(row[column], use="upper")
            if value is not None and value > 0:
                if note:
                    raise SystemExit(f"{row['name']}: peak {column} is not a number: {note}")
                peaks[precision] = value
        for precision, value in meta.extra_peaks.items():
            peaks[precision] = value
        if meta.extra_peaks_note:
            notes.append(meta.extra_peaks_note)
        peaks = {p: peaks[p] for p in PRECISIONS if p in peaks}
        tdp, tdp_note = parse_number_or_range(row["tdp_w"], use="upper")
        if tdp_note:
            notes.append(f"TDP: {tdp_note}.")
        price, price_note = parse_number_or_range(row["approx_street_price_usd"], use="mid")
        if price_note:
            notes.append(f"Street price: {price_note}.")
        confidence, price_confidence = split_confidence(row["confidence"])
        spec_source, price_source = split_source(row["source"], row["notes"])
        if price is not None and not price_source:
            raise SystemExit(f"{row['name']}: street price without a price source")
        if price_source and price_confidence:
            price_source += f" (price confidence: {price_confidence})"
        if price is None:
            price_source = ""
        notes.append(meta.source_date_note)
        if meta.typical_utilization is None:
            notes.append(
                "No published training-run MFU found for this part; the generic default applies."
            )
        bandwidth, bw_note = parse_number_or_range(row["memory_bw_gbs"], use="upper")
        memory, mem_note = parse_number_or_range(row["memory_gb"], use="upper")
        if bw_note or mem_note or memory is None:
            raise SystemExit(f"{row['name']}: memory figures are not plain numbers")
        out.append(
            {
                "id": meta.id,
                "name": row["name"],
                "vendor": row["vendor"],
                "kind": row["kind"],
                "memory_gb": memory,
                "memory_bandwidth_gbs": bandwidth,
                "peak_tflops": peaks,
                "tdp_w": tdp,
                "interconnect": row["interconnect"],
                "launch_year": int(row["launch_year"]) if row["launch_year"] else None,
                "street_price_usd": price,
                "source": spec_source,
                "confidence": confidence,
                "source_date": meta.source_date,
                "notes": " ".join(notes),
                "aliases": list(meta.aliases),
                "typical_utilization": meta.typical_utilization,
                "typical_utilization_source": meta.typical_utilization_source,
                "price_source": price_source,
            }
        )
    _check_rows(out, Accelerator)
    _check_aliases(out)
    return out


def _normalise(key: str) -> str:  # same rule as catalog._normalise
    return "".join(ch for ch in key.lower() if ch.isalnum())


def _check_aliases(rows: Sequence[Mapping[str, Any]]) -> None:
    owner: dict[str, str] = {}
    for row in rows:
        for key in (row["id"], row["name"], *row["aliases"]):
            norm = _normalise(key)
            if owner.setdefault(norm, row["id"]) != row["id"]:
                raise SystemExit(f"alias {key!r} of {row['id']} already names {owner[norm]}")


def _check_rows(rows: Sequence[Mapping[str, Any]], cls: type) -> None:
    """Every row must have exactly the dataclass fields and construct cleanly."""
    names = [f.name for f in fields(cls)]
    for row in rows:
        if list(row) != names:
            raise SystemExit(f"{cls.__name__} row {row.get('id')}: fields {list(row)} != {names}")
        data = dict(row)
        if "aliases" in data:
            data["aliases"] = tuple(data["aliases"])
        cls(**data)
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"duplicate {cls.__name__} ids")


# --- dates -------------------------------------------------------------------------------------

_FULL_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR_MONTH = re.compile(r"\b(\d{4})-(\d{2})\b")
_QUARTER = re.compile(r"\bQ([1-4])\s+(\d{4})\b")
_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")


def _date_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    rest = text
    for match in _FULL_DATE.finditer(rest):
        tokens.append(match.group(0))
    rest = _FULL_DATE.sub(" ", rest)
    for match in _YEAR_MONTH.finditer(rest):
        if 1 <= int(match.group(2)) <= 12:
            tokens.append(match.group(0))
    rest = _YEAR_MONTH.sub(" ", rest)
    for match in _QUARTER.finditer(rest):
        tokens.append(f"{match.group(2)}-{int(match.group(1)) * 3:02d}")
    rest = _QUARTER.sub(" ", rest)
    tokens.extend(m.group(1) for m in _YEAR.finditer(rest))
    return tokens


def normalise_date(text: str) -> str:
    """A sortable ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` for a reference date text.

    ``>=X`` (an undated snapshot known to be no older than X) gives X; otherwise the latest date
    the text attaches to the price (the end of a validity range, the last month of a quarter),
    ignoring dates in parentheses unless nothing else is there.
    """
    bound = re.search(r">=\s*(\d{4}(?:-\d{2})?)", text)
    if bound:
        return bound.group(1)
    outside = re.sub(r"\([^)]*\)", " ", text)
    tokens = _date_tokens(outside) or _date_tokens(text)
    if not tokens:
        raise ValueError(f"no date in {text!r}")
    return max(tokens)


# --- cloud prices -----------------------------------------------------------------------------

PROVIDER_KINDS: dict[str, str] = {
    "AWS": "hyperscaler",
    "GCP": "hyperscaler",
    "Azure": "hyperscaler",
    "Lambda": "neocloud",
    "CoreWeave": "neocloud",
    "RunPod": "neocloud",
    "MosaicML (Databricks)": "neocloud",
    "Vast.ai": "marketplace",
    "Market index": "marketplace",
    "DeepSeek (assumption)": "marketplace",
}
PROVIDER_SLUGS: dict[str, str] = {
    "MosaicML (Databricks)": "mosaicml",
    "DeepSeek (assumption)": "deepseek",
    "Vast.ai": "vast-ai",
    "Market index": "market-index",
}
# Not something one can rent as listed: indexes and a paper's assumption.
NOT_RENTABLE_PROVIDERS = {"Market index", "DeepSeek (assumption)"}

# The same instance appears under different names in different snapshots.
INSTANCE_NAMES: dict[tuple[str, str], str] = {
    ("Azure", "Standard_ND96asr_v4 (ND A100 v4)"): "Standard_ND96asr_v4",
    ("Azure", "Standard_NC24ads_A100_v4 (NC A100 v4)"): "Standard_NC24ads_A100_v4",
    ("Azure", "Standard_ND96isr_H100_v5 (ND H100 v5)"): "Standard_ND96isr_H100_v5",
    ("Lambda", "H100 SXM (8x)"): "gpu_8x_h100_sxm5",
    ("Lambda", "A100 80GB SXM (8x)"): "gpu_8x_a100_80gb_sxm4",
    ("Lambda", "gpu_8x_a100 (40GB)"): "gpu_8x_a100",
    ("GCP", "TPU v5e (v5litepod)"): "TPU v5e",
    ("GCP", "TPU v6e (Trillium)"): "TPU v6e",
    ("GCP", "a3-megagpu-8g (GPU component only)"): "a3-megagpu-8g",
    ("GCP", "a3-ultragpu-8g (GPU component only)"): "a3-ultragpu-8g",
    ("GCP", "a4-highgpu-8g (GPU component only)"): "a4-highgpu-8g",
}
# Cloud accelerator names that are not catalog aliases.
CLOUD_ACCELERATOR_NAMES: dict[str, str] = {"H100 80GB (Mega)": "h100-sxm"}

# Rows listing several offers in one: (provider, offering) -> [(instance, accelerator)].
SPLIT_ROWS: dict[tuple[str, str], list[tuple[str, str]]] = {
    ("Lambda", "A100 80GB / H100 SXM / H200"): [
        ("gpu_8x_a100_80gb_sxm4", "A100 80GB SXM"),
        ("gpu_8x_h100_sxm5", "H100 SXM 80GB"),
        ("H200 (8x)", "H200 141GB"),
    ],
    ("RunPod", "H100 SXM / H200 / B200"): [
        ("H100 SXM", "H100 SXM 80GB"),
        ("H200", "H200 141GB"),
        ("B200", "B200 180GB"),
    ],
    ("MosaicML (Databricks)", "reserved cluster pricing"): [
        ("reserved cluster pricing (A100 40GB)", "A100 40GB"),
        ("reserved cluster pricing (H100 80GB)", "H100 80GB"),
    ],
}
# A value the reference explains in its notes better than in its price column.
PRICE_OVERRIDES: dict[tuple[str, str, str], tuple[float, str]] = {
    ("CoreWeave", "H100 (1yr reserved)", "1yr commitment"): (
        1.79,
        "price column '1.79-2.23' mixes the quoted on-demand $2.23 and 1-yr $1.79; 1-yr used",
    ),
}

PRICE_FIELDS = ("on_demand", "committed_1yr", "committed_3yr", "spot")


@dataclass
class PriceRow:
    provider: str
    instance: str
    accelerator_id: str
    gpus: int
    region: str
    field: str
    historical: bool
    label: str
    value: float
    value_note: str
    date: str
    date_text: str
    source: str
    confidence: str
    notes: str
    rentable: bool


def classify_pricing(pricing_model: str, offering: str) -> list[tuple[str, bool, str]]:
    """Price fields a pricing-model text fills: [(field, historical, note)]."""
    pm = pricing_model.strip().lower()
    historical = bool(re.search(r"pre-|older snapshot", pm))
    if "1yr / 3yr" in pm:
        return [("committed_1yr", historical, ""), ("committed_3yr", historical, "")]
    if "spot" in pm:
        return [("spot", historical, "")]
    if "3yr" in pm:
        return [("committed_3yr", historical, "")]
    if "1yr" in pm:
        return [("committed_1yr", historical, "")]
    if pm == "index":
        if "1-yr" in offering:
            return [("committed_1yr", False, "market index of 1-yr contract prices")]
        return [("on_demand", False, "market index of on-demand prices")]
    if pm == "reserved":
        return [("committed_1yr", False, "reserved pricing, term not stated; stored as 1-yr")]
    if pm == "assumed rental":
        return [("on_demand", False, "rental-price assumption from a paper, not a list price")]
    if pm == "capacity block":
        return [("on_demand", False, "")]
    if pm.startswith("on-demand") or pm.startswith("market"):
        note = ""
        extra = re.search(r"\(([^)]*)\)", pricing_model)
        if extra and not historical:
            note = f"pricing model '{pricing_model}'"
        return [("on_demand", historical, note)]
    raise SystemExit(f"unknown pricing model {pricing_model!r} ({offering})")


def parse_price(text: str) -> tuple[float | None, str]:
    """A per-GPU-hour price from the reference text, with a note on any reduction."""
    raw = text.strip()
    if not raw:
        return None, ""
    notes: list[str] = []
    work = raw
    if "->" in work:
        work = work.split("->")[-1]
        notes.append(f"trend '{raw}', latest value used")
    work = re.sub(r"\([^)]*\)", " ", work).strip()
    if work.startswith("~"):
        work = work[1:].strip()
        notes.append(f"approximate ('{raw}')")
    value, range_note = parse_number_or_range(work, use="mid")
    if range_note and "-" in work:
        notes.append(f"range {work} $/GPU-h, midpoint used")
    return value, "; ".join(notes)


def _split_slash(text: str, count: int) -> list[str]:
    parts = [p.strip() for p in text.split(" / ")] if " / " in text else [text]
    if len(parts) == 1:
        return parts * count
    if len(parts) != count:
        raise SystemExit(f"cannot split {text!r} into {count}")
    return parts


def _discount_values(text: str, count: int) -> list[float | None]:
    out: list[float | None] = []
    for part in _split_slash(text, count) if text.strip() else [""] * count:
        value, _ = parse_number_or_range(part.replace("~", ""), use="mid") if part else (None, "")
        out.append(None if value is None else value / 100.0)
    return out


def expand_cloud_rows(
    rows: Sequence[Mapping[str, str]], resolve: Any
) -> tuple[list[PriceRow], list[dict[str, str]], list[dict[str, Any]], dict[str, list[float]]]:
    """Reference rows → price rows, skipped rows, general statements and discount samples."""
    prices: list[PriceRow] = []
    skipped: list[dict[str, str]] = []
    statements: list[dict[str, Any]] = []
    discounts: dict[str, list[float]] = {f: [] for f in PRICE_FIELDS if f != "on_demand"}
    for row in rows:
        provider, offering = row["provider"], row["offering"]
        if offering.startswith("(general)"):
            statements.append(
                {
                    "provider": provider,
                    "topic": offering.removeprefix("(general)").strip(),
                    "pricing_model": row["pricing_model"],
                    "discount_up_to": row["discount_vs_on_demand_pct"],
                    "source": row["source"],
                    "confidence": row["confidence"],
                    "notes": row["notes"],
                }
            )
            skipped.append(_skip(row, "general statement, not an offer: see defaults.statements"))
            continue
        targets = SPLIT_ROWS.get((provider, offering)) or [
            (INSTANCE_NAMES.get((provider, offering), offering), row["accelerator"])
        ]
        fills = classify_pricing(row["pricing_model"], offering)
        price_parts = _split_slash(row["price_per_gpu_hour_usd"], len(targets) * len(fills))
        discount_parts = _discount_values(row["discount_vs_on_demand_pct"], len(fills))
        for (fill_field, _hist, _note), discount in zip(fills, discount_parts, strict=True):
            if discount is not None:
                discounts[fill_field].append(discount)
        for t_index, (instance, accelerator) in enumerate(targets):
            acc_id = CLOUD_ACCELERATOR_NAMES.get(accelerator) or resolve(accelerator)
            if acc_id is None:
                skipped.append(_skip(row, f"accelerator {accelerator!r} is not in the catalog"))
                continue
            if row["pricing_model"].strip().lower() == "capacity block":
                instance = f"{instance} Capacity Block"
            for f_index, (fill_field, historical, pm_note) in enumerate(fills):
                override = PRICE_OVERRIDES.get((provider, offering, row["pricing_model"]))
                value: float | None
                if override:
                    value, value_note = override
                else:
                    text = price_parts[t_index * len(fills) + f_index]
                    value, value_note = parse_price(text)
                    if value is None and row["price_per_instance_hour_usd"].strip():
                        inst, _ = parse_price(row["price_per_instance_hour_usd"])
                        gpus = int(row["gpus_per_instance"] or 0)
                        if inst is not None and gpus:
                            value, value_note = inst / gpus, "instance price / GPUs"
                if value is None:
                    skipped.append(_skip(row, "no price given"))
                    continue
                _check_instance_price(row, value)
                capacity_block = row["pricing_model"].strip().lower() == "capacity block"
                prices.append(
                    PriceRow(
                        provider=provider,
                        instance=instance,
                        accelerator_id=acc_id,
                        gpus=int(row["gpus_per_instance"] or 1),
                        region=row["region"].strip(),
                        field=fill_field,
                        historical=historical,
                        label=row["pricing_model"],
                        value=round(value, 6),
                        value_note="; ".join(n for n in (pm_note, value_note) if n),
                        date=normalise_date(row["price_date"]),
                        date_text=row["price_date"],
                        source=row["source"],
                        confidence=split_confidence(row["confidence"])[0],
                        notes=row["notes"].strip(),
                        rentable=provider not in NOT_RENTABLE_PROVIDERS and not capacity_block,
                    )
                )
    return prices, skipped, statements, discounts


def _skip(row: Mapping[str, str], reason: str) -> dict[str, str]:
    return {
        "provider": row["provider"],
        "offering": row["offering"],
        "accelerator": row["accelerator"],
        "pricing_model": row["pricing_model"],
        "price_per_gpu_hour_usd": row["price_per_gpu_hour_usd"],
        "price_date": row["price_date"],
        "source": row["source"],
        "reason": reason,
    }


def _check_instance_price(row: Mapping[str, str], per_gpu: float) -> None:
    inst_text = row["price_per_instance_hour_usd"].strip()
    gpus = int(row["gpus_per_instance"] or 0)
    if not inst_text or not gpus or "-" in inst_text or " / " in inst_text:
        return
    inst, _ = parse_price(inst_text)
    if inst is not None and abs(inst / gpus - per_gpu) > 0.02 * per_gpu:
        print(
            f"warning: {row['provider']} {row['offering']}: instance ${inst}/h / {gpus} "
            f"!= ${per_gpu}/GPU-h",
            file=sys.stderr,
        )


def slug(text: str) -> str:
    text = text.lower().replace("&", " and ")
    text = re.sub(r"[^a-z0-9.]+", "-", text)
    return text.strip("-.") or "unspecified"


def _money(value: float) -> str:
    return f"${value:.4g}"


def merge_offers(prices: Sequence[PriceRow]) -> tuple[list[dict[str, Any]], list[PriceRow]]:
    """One offer per provider + instance + region; newest current price per field.

    Returns the offers and the rows of groups that have historical prices only."""
    regions: dict[tuple[str, str], set[str]] = {}
    for p in prices:
        if p.region:
            regions.setdefault((p.provider, p.instance), set()).add(p.region)
    groups: dict[tuple[str, str, str], list[PriceRow]] = {}
    for p in prices:
        region = p.region
        if not region:
            known = regions.get((p.provider, p.instance), set())
            region = next(iter(known)) if len(known) == 1 else "unspecified"
        groups.setdefault((p.provider, p.instance, region), []).append(p)

    offers: list[dict[str, Any]] = []
    dropped: list[PriceRow] = []
    for (provider, instance, region), group in groups.items():
        main: dict[str, PriceRow] = {}
        older: list[tuple[str, PriceRow]] = []
        for field_name in PRICE_FIELDS:
            candidates = [p for p in group if p.field == field_name]
            current = sorted(
                (p for p in candidates if not p.historical), key=lambda p: p.date, reverse=True
            )
            if current:
                main[field_name] = current[0]
                older.extend(("earlier", p) for p in current[1:])
            older.extend(("historical", p) for p in candidates if p.historical)
        if not main:
            dropped.extend(group)
            continue
        used = list(main.values())
        accelerator_ids = {p.accelerator_id for p in group}
        gpus = {p.gpus for p in group}
        if len(accelerator_ids) != 1:
            raise SystemExit(f"{provider} {instance}: several accelerators {accelerator_ids}")
        first = used[0]
        order = [main[f] for f in PRICE_FIELDS if f in main]
        date_row = main.get("on_demand") or max(order, key=lambda p: p.date)
        notes: list[str] = []
        multi = len(group) > 1
        seen_notes: set[str] = set()
        for f in PRICE_FIELDS:
            if f not in main:
                continue
            row = main[f]
            prefix = f"{f}: " if multi else ""
            details = [d for d in (row.value_note,) if d]
            if row.notes and row.notes not in seen_notes:
                seen_notes.add(row.notes)
                details.append(row.notes.rstrip(". "))
            details.append(f"price date as given: '{row.date_text}'")
            notes.append(prefix + "; ".join(details) + ".")
        for kind, p in older:
            extra = f"; {p.value_note}" if p.value_note else ""
            notes.append(
                f"{kind.capitalize()} {p.field} price {_money(p.value)}/GPU-h "
                f"({p.label}, {p.date_text}; {p.source}){extra}."
            )
        if any(p.label.strip().lower() == "capacity block" for p in used):
            notes.append(
                "Capacity Block: a reserved, prepaid 1-182 day block; its price is stored as "
                "on_demand for lack of a better field, and the listed rate has expired, so this "
                "offer is marked not rentable and never chosen as the cheapest by default."
            )
        sources: list[str] = []
        for p in order:
            label = f"{p.field}: {p.source}" if len({q.source for q in used}) > 1 else p.source
            if label not in sources:
                sources.append(label)
        confidence = max((p.confidence for p in used), key=CONFIDENCES.index)
        provider_slug = PROVIDER_SLUGS.get(provider, slug(provider))
        offers.append(
            {
                "id": f"{provider_slug}/{slug(instance)}/{slug(region)}",
                "provider": provider,
                "instance": instance,
                "accelerator_id": first.accelerator_id,
                "gpus": max(gpus),
                "region": region,
                "on_demand": main["on_demand"].value if "on_demand" in main else None,
                "committed_1yr": main["committed_1yr"].value if "committed_1yr" in main else None,
                "committed_3yr": main["committed_3yr"].value if "committed_3yr" in main else None,
                "spot": main["spot"].value if "spot" in main else None,
                "price_date": date_row.date,
                "source": " | ".join(sources),
                "confidence": confidence,
                "notes": " ".join(notes),
                "kind": PROVIDER_KINDS[provider],
                "rentable": all(p.rentable for p in used),
            }
        )
    _check_rows(offers, CloudOffer)
    return offers, dropped


def _summary(values: Sequence[float], text: str) -> dict[str, Any]:
    return {
        "value": round(statistics.median(values), 4),
        "low": round(min(values), 4),
        "high": round(max(values), 4),
        "samples": len(values),
        "unit": "fraction of on-demand price",
        "source": text,
        "confidence": "medium",
    }


def build_cloud_defaults(
    discounts: Mapping[str, list[float]], statements: list[dict[str, Any]]
) -> dict[str, Any]:
    median_text = (
        "median of the discount_vs_on_demand_pct values in cloud_prices.csv for this pricing "
        "model (ranges reduced to their midpoint; historical rows included because a discount "
        "is relative to the list price of its time)"
    )
    return {
        "committed_1yr_discount": _summary(discounts["committed_1yr"], median_text),
        "committed_3yr_discount": _summary(discounts["committed_3yr"], median_text),
        "spot_discount": _summary(discounts["spot"], median_text),
        "spot_overhead": {
            "value": 0.10,
            "low": 0.05,
            "high": 0.20,
            "unit": "fraction of extra GPU-hours",
            "source": (
                "assumption, no measured public figure in the reference: checkpointing every "
                "~30 min loses ~15 min of work per interruption plus ~10 min to restart; at one "
                "interruption every ~4 h that is (15 + 10) / 240 ≈ 10% more GPU-hours. "
                "Notice before reclaim: AWS 2 min, GCP 30 s (cloud_prices.csv general rows)."
            ),
            "confidence": "low",
        },
        "statements": statements,
    }


# --- TCO defaults ------------------------------------------------------------------------------


def _require(text: str, *snippets: str) -> None:
    """The transcribed figures must still be in tco_facts.md; fail loudly if it changed."""
    for snippet in snippets:
        if snippet not in text:
            raise SystemExit(f"tco_facts.md no longer contains {snippet!r}: update the builder")


def _value(
    value: float, unit: str, source: str, confidence: str, notes: str = ""
) -> dict[str, Any]:
    return {
        "value": value,
        "unit": unit,
        "source": source,
        "confidence": confidence,
        "notes": notes,
    }


def _state_prices(facts: str) -> list[dict[str, Any]]:
    """The EIA table of §2 (cents/kWh) as USD/kWh rows."""
    rows: list[dict[str, Any]] = []
    for match in re.finditer(
        r"^\|\s*([A-Z][A-Za-z ]+?)(?: \([^)]*\))?\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|$",
        facts,
        re.M,
    ):
        rows.append(
            {
                "region": match.group(1).strip(),
                "commercial": round(float(match.group(2)) / 100, 4),
                "industrial": round(float(match.group(3)) / 100, 4),
                "year": 2023,
                "source": "EIA Electric Power Annual, 2023 data (released 2024-10-17), "
                "eia.gov/electricity/annual/secrev-map.php",
                "confidence": "high",
            }
        )
    if len(rows) < 5:
        raise SystemExit("could not read the EIA state table from tco_facts.md §2")
    return rows


def build_tco_defaults(facts: str) -> dict[str, Any]:
    _require(facts, "1.58", "1.56", "**1.55**", "**1.3**", "12.7¢ commercial", "8.0¢ industrial")
    _require(
        facts, "**4-year straight-line**", "about 10% of capex per year", "**10.2 kW maximum**"
    )
    _require(facts, "**~$270,000**", "$296,644", "$199,000 launch price", "$148,390", "$149,000")
    _require(facts, "~$300,000", "**15–25%**", "$125,000", "$65,000", "~$2–3M")
    dgx_h100_kw = 10.2
    h100_tdp_kw = 0.7
    power_ratio = round(dgx_h100_kw / (8 * h100_tdp_kw), 4)
    values = {
        "pue": _value(
            1.5,
            "ratio",
            "Uptime Institute industry average 1.58 (2023) and 1.56 (2024 "
            "survey); ~1.3 for new large builds; ~1.1 hyperscale. 1.5 is the round figure the "
            "§5 worked check uses, between the industry average and a modern AI build.",
            "medium",
            "Suggested alternatives: 1.55 generic/colocation, 1.3 modern AI build, 1.1-1.2 "
            "hyperscaler.",
        ),
        "kwh_price": _value(
            0.10,
            "USD/kWh",
            "EIA 2023 US averages about 12.7¢ commercial and 8.0¢ industrial "
            "(recalled, medium); 0.10 sits between them.",
            "medium",
            "Use ~0.08 for a large industrial/data-center load in a cheap-power state, "
            "0.12-0.13 for commercial rates, 0.18-0.25 for California or New England.",
        ),
        "life_years": _value(
            4.0,
            "years",
            "suggested 4-year straight-line for GPU economics (analysts put "
            "the economic life of AI GPUs at 3-4 years; MACRS 5 years; hyperscaler book lives "
            "5-6 years are too long for GPUs).",
            "medium",
            "Sensitivity cases: 3 and 5 years.",
        ),
        "ops_fraction": _value(
            0.10,
            "fraction of capex per year",
            "planning assumption of the project's sourced TCO notes (worked check): space, "
            "maintenance and staff assumed at about 10% of capex per year (an assumption of the "
            "reference, not a measured figure).",
            "low",
            "Covers space too, which is why facility_usd_per_kw_month defaults to 0.",
        ),
        "facility_usd_per_kw_month": _value(
            0.0,
            "USD per kW-month",
            "the project's sourced TCO notes give no colocation $/kW-month figure; space is "
            "inside ops_fraction in its worked check, so the default is 0 to avoid counting it "
            "twice.",
            "low",
            "Set a colocation rate (and lower ops_fraction) if you rent space by the kW.",
        ),
        "install_overhead_fraction": _value(
            0.20,
            "fraction of server price",
            "add 15-25% to the server price for the InfiniBand fabric, storage "
            "and installation; 0.20 is the middle. Applied only to catalog server prices.",
            "medium",
        ),
        "utilization": _value(
            0.5,
            "fraction of hours busy",
            "illustrative mid value, not sourced: the reference has no typical fleet "
            "utilization. Yearly totals depend on it; the break-even does not.",
            "low",
        ),
        "server_power_per_gpu_tdp": _value(
            power_ratio,
            "server kW per kW of GPU TDP",
            f"derived: DGX H100 10.2 kW maximum (NVIDIA datasheet) / "
            f"(8 × 0.7 kW H100 TDP) = {power_ratio:g}. Used only to estimate server power for "
            "accelerators without a server entry.",
            "low",
        ),
    }
    servers = [
        {
            "accelerator_id": "h100-sxm",
            "name": "HGX/DGX H100 8-GPU server",
            "gpus": 8,
            "price_usd": 300000.0,
            "price_date": "2024",
            "power_kw": dgx_h100_kw,
            "power_source": "NVIDIA DGX H100 datasheet: 10.2 kW maximum (recalled, high)",
            "source": (
                "suggested default of the project's sourced TCO notes (≈ $300k) from the quotes "
                "listed"
            ),
            "confidence": "medium",
            "notes": "Add install_overhead_fraction (15-25%) for fabric, storage and install: "
            "about $42-47k per installed GPU.",
            "quotes": [
                _quote(
                    "DGX H100 (8× H100)",
                    270000.0,
                    "2023-05",
                    "SemiAnalysis 'AI server cost analysis', via Epoch AI",
                    "medium",
                ),
                _quote(
                    "Supermicro HGX H100 8-GPU server",
                    296644.0,
                    "2024-03",
                    "dihuni.com (archived), via Epoch AI",
                    "medium",
                ),
                _quote(
                    "DGX H100, Delta Computer EU list €303,610 (≈ $330k)",
                    330000.0,
                    "2024-03",
                    "deltacomputer.com (archived), via Epoch AI",
                    "medium",
                ),
                _quote(
                    "HGX H100 node quote incl. InfiniBand cards (Thinkmate) ~$310-317k",
                    313500.0,
                    "2024-08",
                    "public Google Sheet cluster-cost model",
                    "low",
                ),
            ],
        },
        {
            "accelerator_id": "a100-sxm-80gb",
            "name": "HGX A100 640GB 8-GPU server",
            "gpus": 8,
            "price_usd": 148390.0,
            "price_date": "2023-09",
            "power_kw": None,
            "power_source": "",
            "source": "dihuni.com via Epoch AI",
            "confidence": "medium",
            "notes": "Newest quote used. Server power is not in the reference: it is estimated "
            "from GPU TDP × server_power_per_gpu_tdp.",
            "quotes": [
                _quote(
                    "DGX A100 640GB",
                    300000.0,
                    "2021",
                    "Graphcore MLPerf blog via Epoch AI",
                    "medium",
                ),
                _quote(
                    "HGX A100 640GB server",
                    148390.0,
                    "2023-09",
                    "dihuni.com via Epoch AI",
                    "medium",
                ),
            ],
        },
        {
            "accelerator_id": "a100-sxm-40gb",
            "name": "DGX A100 320GB (8× A100 40GB)",
            "gpus": 8,
            "price_usd": 199000.0,
            "price_date": "2020-05",
            "power_kw": None,
            "power_source": "",
            "source": "NVIDIA press release (launch price) via Epoch AI",
            "confidence": "high",
            "notes": "Launch list price. Server power is not in the reference: it is estimated "
            "from GPU TDP × server_power_per_gpu_tdp.",
            "quotes": [
                _quote(
                    "DGX A100 320GB",
                    199000.0,
                    "2020-05",
                    "NVIDIA press release via Epoch AI",
                    "high",
                ),
            ],
        },
        {
            "accelerator_id": "v100-sxm2",
            "name": "DGX-1 (8× V100)",
            "gpus": 8,
            "price_usd": 149000.0,
            "price_date": "2017-09",
            "power_kw": None,
            "power_source": "",
            "source": "wccftech via Epoch AI Hardware prices.csv, 2017 Q3",
            "confidence": "high",
            "notes": "2017 Q3 stored as 2017-09 (quarter end). Server power estimated from GPU "
            "TDP.",
            "quotes": [
                _quote("DGX-1 (8× V100)", 149000.0, "2017-09", "wccftech via Epoch AI", "high"),
            ],
        },
        {
            "accelerator_id": "gb200",
            "name": "GB200 NVL72 rack (72 GPUs)",
            "gpus": 72,
            "price_usd": 2500000.0,
            "price_date": "2025",
            "power_kw": None,
            "power_source": "",
            "source": "secondary (awesomeagents.ai), '~$2-3M'; midpoint used",
            "confidence": "low",
            "notes": "Rack power is not in the reference; the TDP-based estimate is rough for "
            "a liquid-cooled rack.",
            "quotes": [
                _quote(
                    "GB200 NVL72 rack ~$2-3M",
                    2500000.0,
                    "2025",
                    "secondary (awesomeagents.ai)",
                    "low",
                ),
            ],
        },
        {
            "accelerator_id": "gaudi3",
            "name": "Intel Gaudi 3 8-accelerator kit",
            "gpus": 8,
            "price_usd": None,
            "price_date": "2024-06",
            "power_kw": None,
            "power_source": "",
            "source": "Intel at Computex 2024, via nextplatform.com",
            "confidence": "medium",
            "notes": "The $125,000 kit is 8 accelerators on a baseboard without the host "
            "server, so it is kept as a quote, not as a server price.",
            "quotes": [
                _quote(
                    "Gaudi 3 8-accelerator kit",
                    125000.0,
                    "2024-06",
                    "Intel Computex 2024 via nextplatform.com",
                    "medium",
                ),
            ],
        },
        {
            "accelerator_id": "gaudi2",
            "name": "Intel Gaudi 2 8-accelerator kit",
            "gpus": 8,
            "price_usd": None,
            "price_date": "2024-06",
            "power_kw": None,
            "power_source": "",
            "source": "Intel at Computex 2024, via nextplatform.com",
            "confidence": "medium",
            "notes": "The $65,000 kit excludes the host server; kept as a quote only.",
            "quotes": [
                _quote(
                    "Gaudi 2 8-accelerator kit",
                    65000.0,
                    "2024-06",
                    "Intel Computex 2024 via nextplatform.com",
                    "medium",
                ),
            ],
        },
    ]
    pue_references = [
        {
            "value": 1.58,
            "scope": "industry average 2023 (Uptime survey)",
            "source": "Uptime Institute Intelligence Update 221, 2023-11-23",
            "confidence": "high",
        },
        {
            "value": 1.56,
            "scope": "industry average, 2024 survey",
            "source": "Statista series from the Uptime 2024 survey",
            "confidence": "medium",
        },
        {
            "value": 1.55,
            "scope": "2022",
            "source": "Statista/Uptime via upsite.com",
            "confidence": "medium",
        },
        {
            "value": 1.42,
            "scope": "Equinix global average 2023",
            "source": "Equinix sustainability report",
            "confidence": "medium",
        },
        {
            "value": 1.3,
            "scope": "new large builds",
            "source": "Uptime 2024 survey press coverage",
            "confidence": "medium",
        },
        {
            "value": 1.1,
            "scope": "hyperscale fleets (Google)",
            "source": "Google environmental reports (aggregated)",
            "confidence": "medium",
        },
    ]
    return {
        "values": values,
        "servers": servers,
        "electricity_prices_usd_per_kwh": _state_prices(facts),
        "pue_references": pue_references,
    }


def _quote(name: str, price: float, date: str, source: str, confidence: str) -> dict[str, Any]:
    return {
        "name": name,
        "price_usd": price,
        "date": date,
        "source": source,
        "confidence": confidence,
    }


# --- main --------------------------------------------------------------------------------------


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [{k: (v or "") for k, v in row.items()} for row in csv.DictReader(handle)]


def build_all(reference: Path, generated: str) -> dict[str, dict[str, Any]]:
    """All three documents, keyed by file name."""
    accelerators = build_accelerators(read_csv(reference / "accelerators.csv"))
    index: dict[str, str] = {}
    for acc in accelerators:
        for key in (acc["id"], acc["name"], *acc["aliases"]):
            index.setdefault(_normalise(key), acc["id"])

    def resolve(name: str) -> str | None:
        return index.get(_normalise(name))

    prices, skipped, statements, discounts = expand_cloud_rows(
        read_csv(reference / "cloud_prices.csv"), resolve
    )
    offers, dropped = merge_offers(prices)
    for row in dropped:
        skipped.append(
            {
                "provider": row.provider,
                "offering": row.instance,
                "accelerator": row.accelerator_id,
                "pricing_model": row.label,
                "price_per_gpu_hour_usd": f"{row.value:g}",
                "price_date": row.date_text,
                "source": row.source,
                "reason": "historical price only, no current price for this offer",
            }
        )
    offers.sort(key=lambda o: (o["accelerator_id"], o["provider"], o["instance"], o["region"]))
    facts = (reference / "tco_facts.md").read_text(encoding="utf-8")
    common = {"version": 1, "generated": generated}
    reference_note = (
        f"generated by scripts/build_catalogs.py from the reference tables (collected "
        f"{REFERENCE_COLLECTED}); edit the script or the reference, not this file"
    )
    return {
        "accelerators.json": {
            "format": "desktopapp-accelerators",
            **common,
            "reference": reference_note,
            "accelerators": accelerators,
        },
        "cloud_prices.json": {
            "format": "desktopapp-cloud-prices",
            **common,
            "reference": reference_note,
            "price_date_rule": (
                "price_date is sortable (YYYY, YYYY-MM or YYYY-MM-DD): for an undated snapshot "
                "known to be no older than X it is X; otherwise the latest date the reference "
                "attaches to the price. The reference's own date text is kept in notes."
            ),
            "defaults": build_cloud_defaults(discounts, statements),
            "offers": offers,
            "skipped": skipped,
        },
        "tco_defaults.json": {
            "format": "desktopapp-tco-defaults",
            **common,
            "reference": reference_note,
            **build_tco_defaults(facts),
        },
        **(
            {
                "measured_memory.json": build_measured_memory(
                    read_csv(reference / "measured_h200.csv"), common
                )
            }
            if (reference / "measured_h200.csv").is_file()
            else {}
        ),
        # interconnect.json, published_throughput.json (performance model; issue 13)
        **build_perf_documents(
            read_csv(reference / "published_throughput.csv"),
            [acc["id"] for acc in accelerators],
            common,
        ),
    }


MEASURED_H200_SOURCE = (
    "measured on one NVIDIA H200 SXM (141 GB, driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130) "
    "with plain PyTorch: Llama-style decoder (RMSNorm, fused QKV, SDPA causal attention, SwiGLU, "
    "untied embedding and head), bf16 autocast, fused AdamW, cross-entropy on fp32 logits, "
    "zero_grad(set_to_none=True); torch.cuda.max_memory_allocated (reference measured_h200.csv)"
)
MEASURED_H200_DATE = "2026-11-27"


def build_measured_memory(rows: list[dict[str, str]], common: Mapping[str, Any]) -> dict[str, Any]:
    """measured_memory.json: peak memory of training steps measured on real GPUs (issue 22)."""
    out = []
    for row in rows:
        if row.get("metric") != "peak_memory_allocated":
            continue
        out.append(
            {
                "model": row["model"],
                **{
                    k: int(row[k])
                    for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab")
                },
                "seq_len": int(row["seq_len"]),
                "micro_batch": int(row["micro_batch"]),
                "precision": row["precision"],
                "mlp": "swiglu",
                "checkpointing": row["checkpointing"].strip().lower() == "true",
                "accelerator_id": "h200-sxm",
                "peak_allocated_gib": float(row["value"]),
                "source": MEASURED_H200_SOURCE,
                "source_date": MEASURED_H200_DATE,
            }
        )
    return {"format": "desktopapp-measured-memory", **common, "measurements": out}


def _dump(document: Mapping[str, Any]) -> str:
    def check(value: Any) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            raise SystemExit("non-finite number in generated JSON")
        if isinstance(value, dict):
            for v in value.values():
                check(v)
        if isinstance(value, list):
            for v in value:
                check(v)

    check(document)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _without_generated(text: str) -> Any:
    data = json.loads(text)
    data.pop("generated", None)
    return data


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--generated", default=dt.date.today().isoformat(), help="ISO date")
    parser.add_argument(
        "--check", action="store_true", help="compare with the files in --output, write nothing"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not (args.reference / "accelerators.csv").is_file():
        parser.error(f"no reference tables in {args.reference} (use --reference DIR)")
    documents = build_all(args.reference, args.generated)
    stale: list[str] = []
    for name, document in documents.items():
        target = args.output / name
        text = _dump(document)
        if args.check:
            current = target.read_text(encoding="utf-8") if target.is_file() else "{}"
            if _without_generated(current) != _without_generated(text):
                stale.append(name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target} ({_count(document)})")
    if stale:
        print(f"out of date: {', '.join(stale)}; run scripts/build_catalogs.py", file=sys.stderr)
        return 1
    return 0


def _count(document: Mapping[str, Any]) -> str:
    for key in ("accelerators", "offers", "servers", "interconnects", "training"):
        if key in document:
            return f"{len(document[key])} {key}"
    return ""


if __name__ == "__main__":
    sys.exit(main())
