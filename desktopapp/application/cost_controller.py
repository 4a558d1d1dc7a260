"""The Cost tab's policy, without Qt (issue 21: the Cost tab's policy moves into a controller like
the other tabs'): which accelerator it plans, whether the server price and power are the
catalog's or typed in, where the demand comes from (and whether the user chose that), the last
typed GPU-hours, the compared prices, the user's own offers and the hybrid's rent price.

The tab forwards each user action here (``switch_accelerator``, ``set_compared``,
``add_custom_offer``, ``choose_hybrid``, …), reads the fields it shows, and builds the model's
:class:`~desktopapp.model.planning.CostInputs` with :meth:`CostController.inputs`. Tests drive
it without a display.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from desktopapp.application.cost import OwningFields
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer, accelerator_catalog
from desktopapp.model.planning import (
    CUSTOM_OFFER_KIND,
    DEFAULT_ACCELERATOR,
    DEFAULT_GPU_HOURS_PER_MONTH,
    DEMAND_RUNS,
    DEMAND_TYPED,
    CostInputs,
    OptionKey,
    cloud_options,
    default_compared,
    offers_with_custom,
)
from desktopapp.model.tco import OnPremInputs


@dataclass
class CostController:
    """The Cost tab's state and rules (see the module docstring)."""

    accelerator_id: str = DEFAULT_ACCELERATOR
    owning: OwningFields = field(default_factory=OwningFields)
    # the demand source was chosen by the user (or opened with a scenario): a workload estimate
    # arriving later does not switch it
    demand_source_set_by_user: bool = False
    typed_gpu_hours: float | None = DEFAULT_GPU_HOURS_PER_MONTH
    compared: tuple[OptionKey, ...] = ()
    custom: tuple[CloudOffer, ...] = ()
    hybrid_key: OptionKey | None = None

    # --- the accelerator and its offers -----------------------------------------------------
    def offers(self) -> tuple[CloudOffer, ...]:
        return tuple(offers_with_custom(self.accelerator_id, self.custom))

    def switch_accelerator(self, acc_id: str) -> None:
        """Plan another accelerator: its catalog server and power, its default prices."""
        acc = accelerator_catalog().find(acc_id)
        self.accelerator_id = acc.id if acc is not None else acc_id
        self.owning = OwningFields()
        self.compared = tuple(default_compared(self.offers()))
        self.hybrid_key = None

    def existing_compared(self) -> list[OptionKey]:
        """Compared keys that are prices of the current offers, in comparison order."""
        return [o.key for o in cloud_options(self.offers(), self.compared, 0.0)]

    # --- owning fields ----------------------------------------------------------------------
    def server_price_typed(self, typed: bool) -> None:
        self.owning = dataclasses.replace(self.owning, price_typed=typed)

    def power_typed(self, typed: bool) -> None:
        self.owning = dataclasses.replace(self.owning, power_typed=typed)

    # --- demand -----------------------------------------------------------------------------
    def generic_defaults(self, estimate_known: bool) -> str:
        """Start over: the default GPU-hours; the demand source (runs of the workload when it
        has an estimate, else typed) is returned for the form to show."""
        self.typed_gpu_hours = DEFAULT_GPU_HOURS_PER_MONTH
        return DEMAND_RUNS if estimate_known else DEMAND_TYPED

    def demand_source_chosen(self) -> None:
        self.demand_source_set_by_user = True

    def follows_new_estimate(self, estimate_known: bool, source: str) -> bool:
        """A workload estimate arrived: switch a typed demand to the workload's runs unless
        the user (or a scenario) chose the source."""
        return estimate_known and not self.demand_source_set_by_user and source == DEMAND_TYPED

    # --- compared prices, own offers, hybrid ------------------------------------------------
    def set_compared(self, key: OptionKey, checked: bool) -> None:
        keys = [k for k in self.compared if k != key]
        if checked:
            keys.append(key)
        self.compared = tuple(keys)

    def reset_comparison(self) -> None:
        self.compared = tuple(default_compared(self.offers()))

    def choose_hybrid(self, data: str) -> None:
        """The hybrid's rent price from the picker's data ("offer_id|pricing"; "" for the
        default)."""
        offer_id, _sep, pricing = data.rpartition("|")
        self.hybrid_key = (offer_id, pricing) if offer_id else None

    def add_custom_offer(self, offer: CloudOffer) -> None:
        """Add a user's offer (``kind`` "custom") and compare its first listed price."""
        if offer.kind != CUSTOM_OFFER_KIND:
            raise ValueError("kind: only offers of kind 'custom' can be added")
        self.custom = (*[o for o in self.custom if o.id != offer.id], offer)
        first = next((p for p in PRICING_MODELS if (offer.price(p) or 0) > 0), None)
        if first is not None and offer.accelerator_id == self.accelerator_id:
            self.compared = (*[k for k in self.compared if k[0] != offer.id], (offer.id, first))

    def remove_custom_offer(self, offer_id: str) -> None:
        self.custom = tuple(o for o in self.custom if o.id != offer_id)
        self.compared = tuple(k for k in self.compared if k[0] != offer_id)

    # --- inputs in and out ------------------------------------------------------------------
    def apply_inputs(self, inputs: CostInputs, owning: OwningFields) -> None:
        """Inputs set from outside (a scenario, another view of the state); their demand
        source is a choice made there."""
        acc = accelerator_catalog().find(inputs.accelerator_id)
        self.accelerator_id = acc.id if acc is not None else inputs.accelerator_id
        self.custom = inputs.custom_offers
        self.demand_source_set_by_user = True
        self.typed_gpu_hours = inputs.typed_gpu_hours
        self.compared = inputs.compared
        self.hybrid_key = inputs.hybrid_option
        self.owning = owning

    def inputs(
        self,
        onprem: OnPremInputs,
        source: str,
        horizon_months: int,
        profile: str,
        spot_overhead: float,
    ) -> CostInputs:
        """The model's inputs for what the tab shows (``spot_overhead`` as a fraction). With a
        demand source other than typed, the typed figure kept is the last one typed or opened."""
        return CostInputs(
            accelerator_id=self.accelerator_id,
            onprem=onprem,
            demand_source=source,
            typed_gpu_hours=self.typed_gpu_hours,
            horizon_months=horizon_months,
            profile=profile,
            spot_overhead=spot_overhead,
            compared=self.compared,
            custom_offers=self.custom,
            hybrid_option=self.hybrid_key,
        )
