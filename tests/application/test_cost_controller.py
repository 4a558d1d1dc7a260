"""The Cost tab's policy without Qt (issue 21): accelerator switch, demand source, compared
prices, the user's own offers and the hybrid's rent price, and the inputs they build."""

from __future__ import annotations

import dataclasses

import pytest

from desktopapp.application.cost_controller import CostController
from desktopapp.model.catalog import CloudOffer
from desktopapp.model.planning import (
    DEMAND_RUNS,
    DEMAND_TYPED,
    default_compared,
    offers_with_custom,
    owning_defaults,
)
from desktopapp.model.tco import OnPremInputs

OWN = CloudOffer(
    id="custom/acme-h100",
    provider="Acme",
    instance="8x H100",
    accelerator_id="h100-sxm",
    gpus=8,
    region="",
    on_demand=None,
    committed_1yr=2.0,
    committed_3yr=None,
    spot=None,
    price_date="2025-01",
    source="quote from Acme",
    confidence="medium",
    kind="custom",
)


def test_switching_accelerator_compares_its_default_prices() -> None:
    policy = CostController()
    policy.choose_hybrid("lambda/x/y|on_demand")
    policy.server_price_typed(True)
    policy.switch_accelerator("H100 SXM")  # found in the catalog by its name
    assert policy.accelerator_id == "h100-sxm"
    assert policy.compared == tuple(default_compared(offers_with_custom("h100-sxm", ())))
    assert policy.hybrid_key is None and not policy.owning.price_typed


def test_a_chosen_demand_source_is_not_switched_by_a_new_estimate() -> None:
    policy = CostController()
    assert policy.generic_defaults(estimate_known=True) == DEMAND_RUNS
    assert policy.generic_defaults(estimate_known=False) == DEMAND_TYPED
    assert policy.follows_new_estimate(True, DEMAND_TYPED)
    assert not policy.follows_new_estimate(False, DEMAND_TYPED)
    policy.demand_source_chosen()
    assert not policy.follows_new_estimate(True, DEMAND_TYPED)


def test_own_offers_and_compared_prices_build_the_inputs() -> None:
    policy = CostController()
    policy.switch_accelerator("h100-sxm")
    with pytest.raises(ValueError, match="kind"):
        policy.add_custom_offer(dataclasses.replace(OWN, kind="hyperscaler"))
    policy.add_custom_offer(OWN)
    assert (OWN.id, "committed_1yr") in policy.compared  # its first listed price
    policy.choose_hybrid(f"{OWN.id}|committed_1yr")
    defaults = owning_defaults("h100-sxm")
    assert defaults.server_price is not None and defaults.power_kw is not None
    onprem = OnPremInputs(
        server_price=defaults.server_price,
        power_kw=defaults.power_kw,
        gpus=defaults.gpus_per_server,
        gpus_per_server=defaults.gpus_per_server,
    )
    inputs = policy.inputs(onprem, DEMAND_TYPED, 36, "flat", 0.1)
    assert inputs.custom_offers == (OWN,) and inputs.hybrid_option == (OWN.id, "committed_1yr")
    assert inputs.compared == policy.compared and inputs.horizon_months == 36
    policy.remove_custom_offer(OWN.id)
    assert policy.custom == () and all(k[0] != OWN.id for k in policy.compared)
    # inputs opened from a scenario: every choice comes back, the demand source is theirs
    reopened = CostController()
    reopened.apply_inputs(inputs, policy.owning)
    assert reopened.inputs(onprem, DEMAND_TYPED, 36, "flat", 0.1) == inputs
    assert reopened.demand_source_set_by_user
