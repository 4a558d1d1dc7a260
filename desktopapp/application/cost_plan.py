"""A scenario's cost plan → the Cost tab's inputs, without Qt.

A demand source of "auto" becomes the workload's runs when the scenario has training inputs,
else the typed figure; the compared prices are the plan's, or the default spread for the
accelerator. The cost model (``model.planning``, ``model.tco``) is imported when first asked,
not when the window starts. Used by the scenario document (File → Open) and by the snapshot
(:mod:`desktopapp.application.snapshot`), so it sits below both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktopapp.model.catalog import accelerator_catalog
from desktopapp.model.scenario import DEMAND_AUTO, CostPlan
from desktopapp.model.training import TrainingInputs

if TYPE_CHECKING:
    from desktopapp.model.planning import CostInputs, OptionKey
    from desktopapp.model.tco import OnPremInputs


def default_onprem(
    accelerator_id: str, gpus: int | None = None, gpus_per_server: int | None = None
) -> OnPremInputs | None:
    """:func:`desktopapp.model.planning.default_onprem`, the cost model imported when first
    asked (not when the window starts)."""
    from desktopapp.model import planning

    return planning.default_onprem(accelerator_id, gpus, gpus_per_server)


def _accelerator_id(*candidates: str | None) -> str:
    from desktopapp.model.planning import DEFAULT_ACCELERATOR

    catalog = accelerator_catalog()
    for candidate in candidates:
        if candidate:
            found = catalog.find(candidate)
            if found is not None:
                return found.id
    return DEFAULT_ACCELERATOR


def cost_inputs_from_plan(
    plan: CostPlan, training: TrainingInputs | None = None
) -> CostInputs | None:
    """Cost tab inputs for a scenario's cost plan (None when nothing can be planned: no owning
    inputs in the plan and no catalog server price for the accelerator).

    The compared prices are the plan's, or the default spread for the accelerator when the plan
    does not list them; the plan's offer (the hybrid plan's price) is always among them.
    """
    from desktopapp.model.planning import (
        DEMAND_RUNS,
        DEMAND_TYPED,
        CostInputs,
        default_compared,
        default_spot_overhead,
        offers_with_custom,
    )

    acc = _accelerator_id(plan.accelerator, None if training is None else training.accelerator)
    onprem = plan.on_prem or default_onprem(acc)
    if onprem is None:
        return None
    offers = offers_with_custom(acc, plan.custom_offers)
    listed = plan.compared_keys
    compared = list(default_compared(offers) if listed is None else listed)
    hybrid: OptionKey | None = None
    if plan.offer is not None and any(o.id == plan.offer for o in offers):
        hybrid = (plan.offer, plan.pricing)
        if hybrid not in compared:
            compared.insert(0, hybrid)
    spot = plan.cloud.spot_overhead if plan.cloud is not None else default_spot_overhead()
    demand = plan.demand
    source = demand.source
    if source == DEMAND_AUTO:
        source = DEMAND_RUNS if training is not None else DEMAND_TYPED
    return CostInputs(
        accelerator_id=acc,
        onprem=onprem,
        demand_source=source,
        typed_gpu_hours=demand.gpu_hours_per_month,
        horizon_months=demand.horizon_months,
        profile=demand.profile,
        spot_overhead=float(spot),
        compared=tuple(compared),
        custom_offers=plan.custom_offers,
        hybrid_option=hybrid,
    )
