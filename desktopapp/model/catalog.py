"""Accelerator and cloud-price catalogs, loaded from ``resources/*.json``.

Every row carries its source, confidence and date, so the GUI, CLI and reports can show where
each number comes from. The JSON files are generated from ``../shared/reference`` by
``scripts/build_catalogs.py``; edit the script (or the reference), not the JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from desktopapp.model.validation import InputError
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
            raise InputError(
                "precision",
                f"{self.name} has no published {precision} peak (supported: {supported})",
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
    # False for what cannot be rented as listed: market indexes, a paper's assumed rate, an
    # expired reservation-block price. cheapest_offer() prefers rentable offers.
    rentable: bool = True

    @property
    def name(self) -> str:
        return f"{self.provider} {self.instance}"

    def price(self, pricing: str) -> float | None:
        """Per-GPU-hour price for ``on_demand``/``committed_1yr``/``committed_3yr``/``spot``."""
        if pricing not in PRICING_MODELS:
            raise InputError(
                "pricing", f"must be one of {', '.join(PRICING_MODELS)}, got {pricing!r}"
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
            "rentable": self.rentable,
        }


PRICING_MODELS: tuple[str, ...] = ("on_demand", "committed_1yr", "committed_3yr", "spot")


@dataclass(frozen=True)
class AcceleratorCatalog:
    """The accelerators of the catalog, looked up by id (``find``)."""

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
            raise InputError(
                "accelerator",
                f"unknown id {key!r}{hint} (`desktopapp catalog accelerators` lists all)",
            )
        return found

    def suggest(self, key: str, limit: int = 3) -> list[str]:
        """Closest ids to a mistyped key."""
        norm = _loose(key)
        loose = {_loose(k): k for k in self._index}
        keys = list(loose)
        import difflib  # only for a mistyped id

        close = difflib.get_close_matches(norm, keys, n=limit * 3, cutoff=0.5)
        # Substring matches first ("h100" → h100-sxm, h100-pcie).
        contains = [k for k in keys if norm and (norm in k or k in norm)]
        ids: list[str] = []
        for k in contains + close:
            acc_id = self._index[loose[k]].id
            if acc_id not in ids:
                ids.append(acc_id)
        return ids[:limit]


_SEPARATORS = re.compile(r"[ _-]+")


def _normalise(key: str) -> str:
    """The lookup key: case folded, outer white space dropped, and a run of ASCII space,
    ``_`` or ``-`` read as one ``-`` ("H100 SXM" = "h100_sxm" = "h100-sxm"). Every other
    character must match exactly: a DEL character, a non-breaking hyphen (U+2011) or a
    zero-width space makes a different key (refused with a suggestion), never ``h100-sxm``."""
    return _SEPARATORS.sub("-", key.strip(" \t").casefold()).strip("-")


def _loose(key: str) -> str:
    """Letters and digits only: for suggestions, never for matching."""
    return "".join(ch for ch in key.casefold() if ch.isalnum())


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
def _cloud_document() -> dict[str, Any]:
    return _load_json(resource_path("cloud_prices.json"), "desktopapp-cloud-prices")


@cache
def cloud_offers() -> tuple[CloudOffer, ...]:
    return tuple(CloudOffer(**raw) for raw in _cloud_document()["offers"])


def offers_for(accelerator_id: str) -> list[CloudOffer]:
    """Catalog offers for one accelerator id."""
    return [o for o in cloud_offers() if o.accelerator_id == accelerator_id]


def cheapest_offer(accelerator_id: str, pricing: str = "on_demand") -> CloudOffer | None:
    """The offer with the lowest per-GPU-hour price of the given kind, or None.

    Rentable offers come first; market indexes, assumed rates and expired block prices
    (``rentable`` False) are used only when no rentable offer lists that kind of price.
    """
    if pricing not in PRICING_MODELS:
        raise InputError("pricing", f"must be one of {', '.join(PRICING_MODELS)}, got {pricing!r}")
    priced = [o for o in offers_for(accelerator_id) if o.price(pricing) is not None]
    pool = [o for o in priced if o.rentable] or priced
    if not pool:
        return None
    return min(pool, key=lambda o: (o.price(pricing) or 0.0, o.id))


def offer_by_id(offer_id: str) -> CloudOffer:
    """An offer by its ``provider/instance/region`` id (case-insensitive)."""
    wanted = offer_id.strip().lower()
    for offer in cloud_offers():
        if offer.id == wanted:
            return offer
    ids = [o.id for o in cloud_offers()]
    import difflib  # only for a mistyped id

    close = difflib.get_close_matches(wanted, ids, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise InputError(
        "offer", f"unknown id {offer_id!r}{hint} (`desktopapp catalog cloud` lists all)"
    )


_NAMED_OFFER = re.compile(r"\[([^\[\]]+)\]\s*$")


def offer_named_in(text: str) -> CloudOffer | None:
    """The catalog offer a price source names at its end as ``[offer id]`` (the form
    ``training.catalog_price`` writes), or None."""
    match = _NAMED_OFFER.search(text or "")
    if not match:
        return None
    return next((o for o in cloud_offers() if o.id == match.group(1)), None)


def vendors() -> tuple[str, ...]:
    """Vendors in catalog order, without repeats."""
    return tuple(dict.fromkeys(a.vendor for a in accelerator_catalog().accelerators))


@dataclass(frozen=True)
class SourcedValue:
    """A default with its unit, source and confidence (and, for sampled figures, the spread)."""

    value: float
    unit: str
    source: str
    confidence: str
    notes: str = ""
    low: float | None = None
    high: float | None = None
    samples: int | None = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> SourcedValue:
        return cls(
            value=float(raw["value"]),
            unit=str(raw.get("unit", "")),
            source=str(raw.get("source", "")),
            confidence=str(raw.get("confidence", "")),
            notes=str(raw.get("notes", "")),
            low=None if raw.get("low") is None else float(raw["low"]),
            high=None if raw.get("high") is None else float(raw["high"]),
            samples=None if raw.get("samples") is None else int(raw["samples"]),
        )


@dataclass(frozen=True)
class CloudDefaults:
    """General cloud facts from ``cloud_prices.json`` ``defaults``: typical discounts off the
    on-demand price, the default spot interruption overhead, and providers' own statements."""

    committed_1yr_discount: SourcedValue
    committed_3yr_discount: SourcedValue
    spot_discount: SourcedValue
    spot_overhead: SourcedValue
    statements: tuple[Mapping[str, str], ...] = ()

    def discount(self, pricing: str) -> SourcedValue | None:
        """Typical discount off on-demand for a pricing model (None for on_demand)."""
        if pricing not in PRICING_MODELS:
            raise InputError(
                "pricing", f"must be one of {', '.join(PRICING_MODELS)}, got {pricing!r}"
            )
        if pricing == "on_demand":
            return None
        found: SourcedValue = getattr(self, f"{pricing}_discount")
        return found


@cache
def cloud_defaults() -> CloudDefaults:
    raw = _cloud_document()["defaults"]
    return CloudDefaults(
        committed_1yr_discount=SourcedValue.from_dict(raw["committed_1yr_discount"]),
        committed_3yr_discount=SourcedValue.from_dict(raw["committed_3yr_discount"]),
        spot_discount=SourcedValue.from_dict(raw["spot_discount"]),
        spot_overhead=SourcedValue.from_dict(raw["spot_overhead"]),
        statements=tuple(dict(s) for s in raw.get("statements", ())),
    )


@dataclass(frozen=True)
class PriceEstimate:
    """A per-GPU-hour price for one pricing model, listed or derived, and where it is from."""

    price: float  # USD per GPU-hour
    pricing: str
    offer: CloudOffer
    derived: bool  # True: the offer lists no such price; on-demand × (1 − typical discount)
    basis: str  # one line saying where the number comes from

    def to_dict(self) -> dict[str, Any]:
        return {
            "price": self.price,
            "pricing": self.pricing,
            "offer_id": self.offer.id,
            "offer": self.offer.name,
            "region": self.offer.region,
            "price_date": self.offer.price_date,
            "derived": self.derived,
            "basis": self.basis,
            "source": self.offer.source,
            "confidence": self.offer.confidence,
        }


def price_estimate(offer: CloudOffer, pricing: str) -> PriceEstimate | None:
    """The offer's listed price, else its on-demand price less the typical discount."""
    listed = offer.price(pricing)
    if listed is not None:
        basis = (
            f"{offer.name} ({offer.region}) {pricing} ${listed:.4g}/GPU-h, "
            f"{offer.price_date} [{offer.id}]"
        )
        return PriceEstimate(listed, pricing, offer, False, basis)
    discount = cloud_defaults().discount(pricing)
    if discount is None or offer.on_demand is None:
        return None
    price = offer.on_demand * (1.0 - discount.value)
    basis = (
        f"derived: {offer.name} ({offer.region}) on-demand ${offer.on_demand:.4g}/GPU-h "
        f"({offer.price_date}) × (1 − {discount.value:.0%} typical {pricing} discount) "
        f"[{offer.id}]"
    )
    return PriceEstimate(price, pricing, offer, True, basis)


def cheapest_price(accelerator_id: str, pricing: str = "on_demand") -> PriceEstimate | None:
    """Cheapest listed ``pricing`` price for an accelerator; when no offer lists one, the
    cheapest on-demand price less the typical discount (``derived``). None if nothing fits."""
    offer = cheapest_offer(accelerator_id, pricing)
    if offer is not None:
        return price_estimate(offer, pricing)
    on_demand = cheapest_offer(accelerator_id, "on_demand")
    if on_demand is None:
        return None
    return price_estimate(on_demand, pricing)


@dataclass(frozen=True)
class ServerQuote:
    """A quoted price of one server, with its date, source and confidence."""

    name: str
    price_usd: float
    date: str
    source: str
    confidence: str


@dataclass(frozen=True)
class ServerPrice:
    """A purchasable server (or rack) for one accelerator, from ``tco_defaults.json``.

    ``price_usd`` is None where the reference has only partial quotes (a kit without a host).
    """

    accelerator_id: str
    name: str
    gpus: int
    price_usd: float | None
    price_date: str
    power_kw: float | None  # maximum power draw of the whole server, where published
    power_source: str
    source: str
    confidence: str
    notes: str = ""
    quotes: tuple[ServerQuote, ...] = ()


@dataclass(frozen=True)
class ElectricityPrice:
    """Electricity prices of one region (USD per kWh), with their year and source."""

    region: str
    commercial: float  # USD per kWh
    industrial: float
    year: int
    source: str
    confidence: str


@dataclass(frozen=True)
class TcoDefaults:
    """On-prem defaults (``values``), server prices, electricity prices and PUE references."""

    values: Mapping[str, SourcedValue]
    servers: tuple[ServerPrice, ...]
    electricity_prices: tuple[ElectricityPrice, ...]
    pue_references: tuple[Mapping[str, Any], ...]

    def get(self, name: str) -> SourcedValue:
        try:
            return self.values[name]
        except KeyError:
            raise InputError(
                name, f"no such TCO default (known: {', '.join(self.values)})"
            ) from None

    def value(self, name: str) -> float:
        return self.get(name).value

    def server_for(self, accelerator_id: str) -> ServerPrice | None:
        for server in self.servers:
            if server.accelerator_id == accelerator_id:
                return server
        return None


@cache
def tco_defaults() -> TcoDefaults:
    data = _load_json(resource_path("tco_defaults.json"), "desktopapp-tco-defaults")
    servers = []
    for raw in data["servers"]:
        raw = dict(raw)
        raw["quotes"] = tuple(ServerQuote(**q) for q in raw.get("quotes", ()))
        servers.append(ServerPrice(**raw))
    return TcoDefaults(
        values={k: SourcedValue.from_dict(v) for k, v in data["values"].items()},
        servers=tuple(servers),
        electricity_prices=tuple(
            ElectricityPrice(**row) for row in data["electricity_prices_usd_per_kwh"]
        ),
        pue_references=tuple(dict(r) for r in data.get("pue_references", ())),
    )


def estimated_server_power_kw(accelerator: Accelerator, gpus: int) -> float | None:
    """Server power (kW, maximum) for ``gpus`` accelerators: the catalog server's figure when it
    has one for the same GPU count, else GPU TDP × gpus × the DGX-H100-derived system ratio.
    None when the accelerator has no published TDP."""
    defaults = tco_defaults()
    server = defaults.server_for(accelerator.id)
    if server is not None and server.power_kw is not None and server.gpus == gpus:
        return server.power_kw
    if accelerator.tdp_w is None:
        return None
    ratio = defaults.value("server_power_per_gpu_tdp")
    return gpus * accelerator.tdp_w / 1000.0 * ratio


def get_accelerator(key: str) -> Accelerator:
    """Shortcut for ``accelerator_catalog().get(key)``."""
    return accelerator_catalog().get(key)
