"""Accelerator and cloud-price catalogs, loaded from ``resources/*.json``.

Every row carries its source, confidence and date, so the GUI, CLI and reports can show where
each number comes from. The JSON files are generated from ``../shared/reference`` by
``scripts/build_catalogs.py``; edit the script (or the reference), not the JSON.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from desktopapp.resources import resource_path

# Precisions a planner can pick. "int8"/"int4" peaks are in TOPS, the others in TFLOP/s.
PRECISIONS: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")
# Bytes per stored value for weights/activations at each precision.
BYTES_PER_VALUE: Mapping[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,  # tf32 is a compute mode; tensors are stored as fp32
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}


@dataclass(frozen=True)
class Accelerator:
    """One accelerator model with datasheet (dense, non-sparse) peaks."""

    id: str
    name: str
    vendor: str
    kind: str  # "gpu", "tpu", "npu", "cpu"
    memory_gb: float  # as published (vendors' HBM "GB" are binary in practice)
    memory_bandwidth_gbs: float | None
    peak_tflops: Mapping[str, float]  # precision -> dense peak; only supported precisions
    tdp_w: float | None
    interconnect: str
    launch_year: int | None
    street_price_usd: float | None
    source: str
    confidence: str  # "high" | "medium" | "low"
    source_date: str  # ISO date (or year-month) the figures were taken
    notes: str = ""
    aliases: tuple[str, ...] = ()
    # Typical achieved model-FLOPs utilization (fraction) from published training reports,
    # with its source; None where nothing is published and the generic default applies.
    typical_utilization: float | None = None
    typical_utilization_source: str = ""
    price_source: str = ""

    @property
    def memory_bytes(self) -> float:
        return self.memory_gb * 1024**3

    @property
    def precisions(self) -> tuple[str, ...]:
        """Supported precisions in the canonical order."""
        return tuple(p for p in PRECISIONS if p in self.peak_tflops)

    def peak_flops(self, precision: str) -> float:
        """Dense peak in FLOP/s (or OP/s for ints). Raises ValueError if not supported."""
        try:
            return self.peak_tflops[precision] * 1e12
        except KeyError:
            supported = ", ".join(self.precisions) or "none"
            raise ValueError(
                f"precision: {self.name} has no published {precision} peak (supported: {supported})"
            ) from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "vendor": self.vendor,
            "kind": self.kind,
            "aliases": list(self.aliases),
            "memory_gb": self.memory_gb,
            "memory_bandwidth_gbs": self.memory_bandwidth_gbs,
            "peak_tflops": dict(self.peak_tflops),
            "tdp_w": self.tdp_w,
            "interconnect": self.interconnect,
            "launch_year": self.launch_year,
            "street_price_usd": self.street_price_usd,
            "price_source": self.price_source,
            "typical_utilization": self.typical_utilization,
            "typical_utilization_source": self.typical_utilization_source,
            "source": self.source,
            "confidence": self.confidence,
            "source_date": self.source_date,
            "notes": self.notes,
        }


@dataclass(frozen=True)
class CloudOffer:
    """One rentable instance type, with every published price per GPU-hour (USD)."""

    id: str  # stable: "<provider>/<instance>/<region>" slug
    provider: str
    instance: str
    accelerator_id: str
    gpus: int
    region: str
    on_demand: float | None
    committed_1yr: float | None
    committed_3yr: float | None
    spot: float | None
    price_date: str  # ISO date or year-month of the price snapshot
    source: str
    confidence: str
    notes: str = ""
    kind: str = "hyperscaler"  # "hyperscaler" | "neocloud" | "marketplace" | "custom"

    @property
    def name(self) -> str:
        return f"{self.provider} {self.instance}"

    def price(self, pricing: str) -> float | None:
        """Per-GPU-hour price for ``on_demand``/``committed_1yr``/``committed_3yr``/``spot``."""
        if pricing not in PRICING_MODELS:
            raise ValueError(
                f"pricing: must be one of {', '.join(PRICING_MODELS)}, got {pricing!r}"
            )
        value: float | None = getattr(self, pricing)
        return value

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "provider": self.provider,
            "instance": self.instance,
            "accelerator_id": self.accelerator_id,
            "gpus": self.gpus,
            "region": self.region,
            "on_demand": self.on_demand,
            "committed_1yr": self.committed_1yr,
            "committed_3yr": self.committed_3yr,
            "spot": self.spot,
            "price_date": self.price_date,
            "source": self.source,
            "confidence": self.confidence,
            "notes": self.notes,
            "kind": self.kind,
        }


PRICING_MODELS: tuple[str, ...] = ("on_demand", "committed_1yr", "committed_3yr", "spot")


@dataclass(frozen=True)
class AcceleratorCatalog:
    accelerators: tuple[Accelerator, ...]
    _index: Mapping[str, Accelerator] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_rows(cls, rows: list[Accelerator]) -> AcceleratorCatalog:
        index: dict[str, Accelerator] = {}
        for acc in rows:
            for key in (acc.id, acc.name, *acc.aliases):
                index.setdefault(_normalise(key), acc)
        return cls(tuple(rows), index)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.accelerators)

    def find(self, key: str) -> Accelerator | None:
        return self._index.get(_normalise(key))

    def get(self, key: str) -> Accelerator:
        """Look up by id, name or alias, case-insensitively.

        Raises ``ValueError("accelerator: unknown id 'x'; did you mean …")`` otherwise.
        """
        found = self.find(key)
        if found is None:
            hints = self.suggest(key)
            hint = f"; did you mean {', '.join(hints)}?" if hints else ""
            raise ValueError(
                f"accelerator: unknown id {key!r}{hint} (`desktopapp catalog accelerators` "
                "lists all)"
            )
        return found

    def suggest(self, key: str, limit: int = 3) -> list[str]:
        """Closest ids to a mistyped key."""
        norm = _normalise(key)
        keys = list(self._index)
        close = difflib.get_close_matches(norm, keys, n=limit * 3, cutoff=0.5)
        # Substring matches first ("h100" → h100-sxm, h100-pcie).
        contains = [k for k in keys if norm and (norm in k or k in norm)]
        ids: list[str] = []
        for k in contains + close:
            acc_id = self._index[k].id
            if acc_id not in ids:
                ids.append(acc_id)
        return ids[:limit]


def _normalise(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def _load_json(path: Path, expected_format: str) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict) or data.get("format") != expected_format:
        raise ValueError(f"{path.name}: not a {expected_format} file")
    return data


@cache
def accelerator_catalog() -> AcceleratorCatalog:
    data = _load_json(resource_path("accelerators.json"), "desktopapp-accelerators")
    rows = []
    for raw in data["accelerators"]:
        raw = dict(raw)
        raw["aliases"] = tuple(raw.get("aliases", ()))
        raw["peak_tflops"] = {k: float(v) for k, v in raw["peak_tflops"].items() if v}
        rows.append(Accelerator(**raw))
    return AcceleratorCatalog.from_rows(rows)


@cache
def cloud_offers() -> tuple[CloudOffer, ...]:
    data = _load_json(resource_path("cloud_prices.json"), "desktopapp-cloud-prices")
    return tuple(CloudOffer(**raw) for raw in data["offers"])


def offers_for(accelerator_id: str) -> list[CloudOffer]:
    """Catalog offers for one accelerator id."""
    return [o for o in cloud_offers() if o.accelerator_id == accelerator_id]


def cheapest_offer(accelerator_id: str, pricing: str = "on_demand") -> CloudOffer | None:
    """The offer with the lowest per-GPU-hour price of the given kind, or None."""
    priced = [o for o in offers_for(accelerator_id) if o.price(pricing) is not None]
    if not priced:
        return None
    return min(priced, key=lambda o: o.price(pricing) or 0.0)


def get_accelerator(key: str) -> Accelerator:
    """Shortcut for ``accelerator_catalog().get(key)``."""
    return accelerator_catalog().get(key)
