"""The Workload tab's price, utilization and precision policy, without Qt."""

from __future__ import annotations

from desktopapp.application import workload_policy as policy
from desktopapp.application.plan import CustomAccelerator
from desktopapp.model.catalog import accelerator_catalog, cheapest_offer, offers_for
from desktopapp.model.training import DEFAULT_UTILIZATION, catalog_price

H100 = accelerator_catalog().get("h100-sxm")


def test_price_follows_the_catalog_until_typed_and_comes_back_on_reset() -> None:
    controller = policy.WorkloadController()
    shown = controller.price_field(H100)
    found = catalog_price("h100-sxm", "on_demand")
    assert found is not None
    assert shown.set_value and shown.value == found[0] and not shown.reset_enabled
    assert "Cheapest on-demand offer" in shown.note
    assert controller.price_source(H100, found[0]) == found[1]
    assert controller.price_offer(H100, found[1]) == cheapest_offer("h100-sxm")
    controller.price_typed()
    typed = controller.price_field(H100)
    assert not typed.set_value and typed.reset_enabled
    assert controller.price_source(H100, 9.99) == "typed in"
    controller.price_reset()
    assert controller.price_field(H100).set_value


def test_a_scenario_offer_is_kept_until_the_accelerator_changes() -> None:
    offer = offers_for("h100-sxm")[0]
    price = offer.on_demand or 1.0
    source = f"{offer.name} [{offer.id}]"
    controller = policy.WorkloadController()
    controller.scenario_price(price, source)
    assert not controller.price_from_catalog and controller.kept_price == (price, source)
    assert controller.price_source(H100, price) == source
    controller.accelerator_changed(accelerator_catalog().get("a100-sxm-80gb"))
    assert controller.price_from_catalog and controller.kept_price is None
    controller.scenario_price(2.0, "typed in")
    assert controller.kept_price is None and not controller.price_from_catalog


def test_utilization_default_and_its_origin() -> None:
    controller = policy.WorkloadController()
    field = controller.utilization_field(None, None)
    assert field.value == DEFAULT_UTILIZATION and "planning default" in field.note
    measured = CustomAccelerator("my GPU", {"bf16": 500.0}, utilization=0.42)
    assert controller.utilization_field(None, measured).value == 0.42
    controller.utilization_moved()
    moved = controller.utilization_field(H100, None)
    assert moved.value is None and moved.note.startswith("Set by you")


def test_precisions() -> None:
    items, chosen = policy.precision_items(H100, None, "fp8-not-there")
    assert chosen in [data for data, _label in items]
    assert chosen == "bf16"
    measured = CustomAccelerator("my GPU", {"fp32": 20.0})
    items, chosen = policy.precision_items(None, measured, "bf16")
    assert items == [("fp32", "fp32")] and chosen == "fp32"
    assert policy.storage_for("fp32", "mixed") == "fp32"
    assert policy.storage_for("bf16", "fp32") == "mixed"
    assert policy.storage_for("bf16", "mixed") == "mixed"
