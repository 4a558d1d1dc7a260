"""Write the example scenarios in resources/examples/ from the catalogs and the model.

    .venv/bin/python scripts/make_example_scenarios.py

The same 7B-parameter, 150B-token training run planned two ways:

- ``h100-8x-rented.json``: 8 × H100 SXM rented on demand (Lambda 8× H100 instance, catalog
  price), with the catalog's own H100 server as the owning alternative.
- ``a100-16x-owned.json``: 16 × A100 80GB in two owned servers (catalog server price and power,
  reference defaults for PUE, electricity and operations) at 70% fleet utilization; the price per
  GPU-hour of the run is the model's owning cost per useful GPU-hour at that utilization.

Both plan the Cost tab's demand from the run (once a month, over 48 months) and list the prices
it compares as the tab would save them (the offer used, then the default spread of catalog
prices).

Numbers are not typed here: they come from the catalogs and ``model.tco``, so rerunning the
script after a catalog update refreshes the examples.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from desktopapp.application.cost_plan import cost_inputs_from_plan, default_onprem
from desktopapp.model import units
from desktopapp.model.catalog import offer_by_id
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.planning import cloud_options, default_spot_overhead
from desktopapp.model.scenario import DEMAND_RUNS, CostDemand, CostPlan, Scenario
from desktopapp.model.tco import OnPremInputs, onprem_cost_per_useful_hour
from desktopapp.model.training import TrainingInputs, catalog_price

OUT = Path(__file__).resolve().parents[1] / "resources" / "examples"
RENTED = "h100-8x-rented.json"
OWNED = "a100-16x-owned.json"
FLEET_UTILIZATION = 0.70

WORKLOAD: dict[str, Any] = {
    "params": 7e9,
    "tokens": 150e9,
    "precision": "bf16",
    # untouched, as the Workload tab saves it: the modelled plan's MFU sets the time (a figure
    # here would read as "set by you" when the file is opened)
    "utilization": None,
}
SHAPE: dict[str, Any] = {
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "seq_len": 4096,
    "batch_size": 1,
    "checkpointing": True,
    "flash_attention": True,
    "zero_stage": 3,
}


def _workload(
    acc: str, gpus: int, price: float, source: str
) -> tuple[TrainingInputs, MemoryInputs]:
    """The 7B run on ``gpus`` × ``acc`` at ``price`` per GPU-hour (``source`` says whence)."""
    training = TrainingInputs(
        method="6nd", accelerator=acc, gpus=gpus, price=price, price_source=source, **WORKLOAD
    )
    memory = MemoryInputs(
        params=7e9, mode="train", precision="mixed", gpus=gpus, accelerator=acc, **SHAPE
    )
    return training, memory


def _cost(offer_id: str, onprem: OnPremInputs, training: TrainingInputs) -> CostPlan:
    """The cost section as the Cost tab saves it: the offer's on-demand price for the hybrid
    plan, the demand from the run, every compared price listed."""
    offer = offer_by_id(offer_id)
    option = cloud_options([offer], [(offer.id, "on_demand")], default_spot_overhead())[0]
    plan = CostPlan(
        accelerator=training.accelerator,
        offer=offer.id,
        pricing="on_demand",
        demand=CostDemand(source=DEMAND_RUNS),
        on_prem=onprem,
        cloud=option.cloud,
    )
    inputs = cost_inputs_from_plan(plan, training)
    assert inputs is not None
    return inputs.to_plan(inputs.hybrid_option, plan.demand.runs_per_month)


def rented() -> Scenario:
    acc = "h100-sxm"
    offer = offer_by_id("lambda/gpu-8x-h100-sxm5/all")
    price = offer.on_demand
    assert price is not None
    source = (
        f"catalog offer: {offer.name}, {offer.region} ({units.format_money(price)}/GPU-hour, "
        f"{offer.price_date}; {offer.source}) [{offer.id}]"
    )
    training, memory = _workload(acc, 8, price, source)
    onprem = default_onprem(acc, 8)
    assert onprem is not None and catalog_price(acc) is not None
    return Scenario(
        name="8 × H100, rented on demand",
        notes=(
            "Rent one 8-GPU H100 instance for the run. Catalog on-demand price; the owning "
            "figures are the catalog H100 server, for the break-even."
        ),
        training=training,
        memory=memory,
        cost=_cost(offer.id, onprem, training),
    )


def owned() -> Scenario:
    acc = "a100-sxm-80gb"
    onprem = default_onprem(acc, 16)
    assert onprem is not None
    onprem = replace(onprem, utilization=FLEET_UTILIZATION)
    per_useful = float(onprem_cost_per_useful_hour(onprem, FLEET_UTILIZATION)[0])
    source = (
        f"owned fleet: {onprem.gpus} × A100 80GB, cost per useful GPU-hour at "
        f"{FLEET_UTILIZATION:.0%} fleet utilization (model.tco: capex over "
        f"{onprem.life_years:g} years, operations, facility and energy)"
    )
    training, memory = _workload(acc, 16, round(per_useful, 2), source)
    return Scenario(
        name="16 × A100, owned",
        notes=(
            "Two HGX A100 servers we own, busy 70% of the time. The run's price per GPU-hour "
            "is what an hour of useful work costs on that fleet."
        ),
        training=training,
        memory=memory,
        cost=_cost("lambda/gpu-8x-a100-80gb-sxm4/all", onprem, training),
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, scenario in ((RENTED, rented()), (OWNED, owned())):
        scenario.save(OUT / name)
        print(OUT / name)


if __name__ == "__main__":
    main()
