"""The Workload tab's policy, without Qt: which precisions an accelerator offers, the default
utilization and where it comes from, and where the price per GPU-hour comes from (the catalog's
cheapest on-demand offer, typed in, or kept as a scenario gave it).

:class:`WorkloadController` holds that state; the tab forwards edits to it (``price_typed``,
``price_reset``, ``accelerator_changed``, ``utilization_moved``, ``scenario_price``) and shows
the field views it returns (:class:`PriceField`, :class:`UtilizationField`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from desktopapp.application.plan import CustomAccelerator
from desktopapp.model.catalog import Accelerator, CloudOffer, cheapest_offer, offer_named_in
from desktopapp.model.inference import INFERENCE_PRECISIONS
from desktopapp.model.training import (
    DEFAULT_UTILIZATION,
    TRAINING_PRECISIONS,
    UTILIZATION_BAND,
    catalog_price,
)

TYPED_PRICE_SOURCES = frozenset({"", "typed in", "given"})
PRECISION_PREFERENCE = ("bf16", "fp16", "tf32", "fp32")


# --- precisions -----------------------------------------------------------------------------


def supported_precisions(
    acc: Accelerator | None, custom: CustomAccelerator | None
) -> tuple[str, ...]:
    """Training precisions with a published (or measured) peak, in the model's order."""
    available = custom.precisions if custom is not None else (() if acc is None else acc.precisions)
    return tuple(p for p in TRAINING_PRECISIONS if p in available)


def preferred_precision(supported: tuple[str, ...], current: str) -> str:
    for candidate in (current, *PRECISION_PREFERENCE):
        if candidate in supported:
            return candidate
    return supported[0] if supported else current


def precision_items(
    acc: Accelerator | None, custom: CustomAccelerator | None, current: str
) -> tuple[list[tuple[str, str]], str]:
    """(data, label) items of the training precision picker and the one to select."""
    supported = supported_precisions(acc, custom)
    items = [(p, p) for p in supported] or [(current, f"{current} (no published peak)")]
    return items, preferred_precision(supported, current)


def inference_precision_items(acc: Accelerator | None) -> list[tuple[str, str]]:
    return [
        (p, p if acc is None or p in acc.peak_tflops else f"{p} (weights only)")
        for p in INFERENCE_PRECISIONS
    ]


def storage_for(precision: str, storage: str) -> str:
    """Weights storage follows the compute precision between fp32 and mixed."""
    if precision in ("fp32", "tf32") and storage != "fp32":
        return "fp32"
    if precision not in ("fp32", "tf32") and storage == "fp32":
        return "mixed"
    return storage


# --- utilization ----------------------------------------------------------------------------


@dataclass(frozen=True)
class UtilizationField:
    """What the Utilization slider shows: its value (or leave it), note and tooltip."""

    value: float | None  # to put into the slider (None: leave the user's value)
    note: str
    tooltip: str


def default_utilization(
    acc: Accelerator | None, custom: CustomAccelerator | None
) -> tuple[float, str, str]:
    """(value, short origin, full source) of the utilization the model would assume."""
    if custom is not None and custom.utilization is not None:
        return custom.utilization, "measured on this machine", custom.source
    if acc is not None and acc.typical_utilization is not None:
        source = acc.typical_utilization_source or "catalog"
        return acc.typical_utilization, f"typical for {acc.name}", source
    low, high = UTILIZATION_BAND
    return (
        DEFAULT_UTILIZATION,
        "planning default",
        f"large training runs typically reach {low:.0%}-{high:.0%}",
    )


# --- price ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PriceField:
    """What the price field shows: its value (or leave it), note, tooltip and reset."""

    set_value: bool  # write ``value`` into the field (else leave what is typed)
    value: float | None
    note: str  # rich text under the field
    tooltip: str
    reset_enabled: bool


@dataclass
class WorkloadController:
    """Price and utilization policy of the Workload tab (see the module docstring)."""

    price_from_catalog: bool = True
    # (price, source) of a price opened with a scenario that names where it came from (a
    # catalog offer, an owned fleet): kept, source and all, until the price is typed over.
    kept_price: tuple[float, str] | None = None
    utilization_user_set: bool = False

    # --- edits ------------------------------------------------------------------------------
    def price_typed(self) -> None:
        self.price_from_catalog = False
        self.kept_price = None

    def price_reset(self) -> None:
        self.price_from_catalog = True
        self.kept_price = None

    def utilization_moved(self) -> None:
        self.utilization_user_set = True

    def accelerator_changed(self, acc: Accelerator | None) -> None:
        """A scenario's offer for another accelerator no longer applies."""
        offer = None if self.kept_price is None else offer_named_in(self.kept_price[1])
        if offer is not None and (acc is None or offer.accelerator_id != acc.id):
            self.kept_price = None
            self.price_from_catalog = True

    def scenario_price(self, price: float, source: str) -> None:
        """A scenario's training price: from the catalog, typed, or kept with its source."""
        self.price_from_catalog = source.startswith("cheapest")
        kept = not self.price_from_catalog and source not in TYPED_PRICE_SOURCES
        self.kept_price = (price, source) if kept else None

    def scenario_utilization(self, utilization: float | None) -> None:
        # A scenario without a utilization plans with the default, not the last file's.
        self.utilization_user_set = utilization is not None

    # --- views ------------------------------------------------------------------------------
    def utilization_field(
        self, acc: Accelerator | None, custom: CustomAccelerator | None
    ) -> UtilizationField:
        value, origin, source = default_utilization(acc, custom)
        if self.utilization_user_set:
            note = f"Set by you; default {value:.0%}, {origin}."
            return UtilizationField(None, note, f"Source: {source}")
        return UtilizationField(value, f"Default {value:.0%}, {origin}.", f"Source: {source}")

    def utilization_note(
        self, acc: Accelerator | None, custom: CustomAccelerator | None, modelled_mfu: float | None
    ) -> str:
        """The note under the slider. While the model predicts the MFU (the slider untouched),
        it says so: the slider's default then sets no figure on the tab."""
        shown = self.utilization_field(acc, custom)
        if modelled_mfu is None or self.utilization_user_set:
            return shown.note
        return (
            f"Modelled: {modelled_mfu:.0%} of peak for this plan sets the time and cost (see "
            f"Modelled run); move the slider to plan with your own figure. {shown.note}"
        )

    def price_field(self, acc: Accelerator | None) -> PriceField:
        if not self.price_from_catalog:
            if self.kept_price is None:
                note = "Typed in by you (overrides the catalog)."
                return PriceField(False, None, note, "", acc is not None)
            source = self.kept_price[1]
            offer = offer_named_in(source)
            if offer is not None:
                note = (
                    f"From the scenario: catalog offer <b>{html.escape(offer.name)}</b> "
                    f"({html.escape(offer.region)}), price as of {html.escape(offer.price_date)}."
                )
            else:
                shown = source if len(source) <= 140 else source[:139] + "…"
                note = f"From the scenario: {html.escape(shown)}"
            return PriceField(False, None, note, source, acc is not None)
        offer = None if acc is None else cheapest_offer(acc.id, "on_demand")
        found = None if acc is None else catalog_price(acc.id, "on_demand")
        if offer is None or found is None:
            name = "this accelerator" if acc is None else acc.name
            note = (
                f"No cloud offer for {html.escape(name)} in the catalog: type a price to see costs."
            )
            return PriceField(True, None, note, "", False)
        note = (
            f"Cheapest on-demand offer: <b>{html.escape(offer.name)}</b> "
            f"({html.escape(offer.region)}), price as of {html.escape(offer.price_date)}."
        )
        return PriceField(True, found[0], note, found[1], False)

    def price_source(self, acc: Accelerator | None, price: float | None) -> str:
        """The source recorded with a price read from the field."""
        if price is None:
            return ""
        found = None if acc is None else catalog_price(acc.id, "on_demand")
        if self.price_from_catalog and found is not None:
            return found[1]
        if self.kept_price is not None and price == self.kept_price[0]:
            return self.kept_price[1]  # as the scenario gave it (an offer, an owned fleet)
        return "typed in"

    def price_offer(self, acc: Accelerator | None, price_source: str | None) -> CloudOffer | None:
        """The catalog offer the price is from: the cheapest one while the price follows the
        catalog, the one a scenario's price source names, else None."""
        if self.price_from_catalog:
            return None if acc is None else cheapest_offer(acc.id)
        if price_source is None or self.kept_price is None:
            return None
        if price_source != self.kept_price[1]:
            return None
        return offer_named_in(price_source)
