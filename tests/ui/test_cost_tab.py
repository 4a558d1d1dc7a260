"""Cloud vs on-prem tab: the offers table, results equal the model's, custom offers, stale
prices, the shared state, invalid input."""

from __future__ import annotations

import dataclasses
import math
from datetime import date

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from desktopapp.application.text import break_even_text, busy_percent
from desktopapp.model import planning, units
from desktopapp.model import price_age as price_ages
from desktopapp.model.catalog import accelerator_catalog, offers_for, tco_defaults
from desktopapp.model.tco import (
    CloudInputs,
    OnPremInputs,
    break_even_utilization,
    demand_profile,
    estimate_tco,
    hybrid_plan,
    monthly_idle_waste,
)
from desktopapp.model.training import TrainingInputs, estimate_training
from desktopapp.ui.common.result_card import ResultCard
from desktopapp.ui.common.timers import active_timers
from desktopapp.ui.cost import create_tab
from desktopapp.ui.cost.offers_model import COLUMN_INDEX, STALE_ROLE
from desktopapp.ui.cost.state import CostState, cost_state
from desktopapp.ui.cost.tab import CostTab
from desktopapp.ui.state import AppState

TODAY = date(2026, 11, 21)


@pytest.fixture
def tab(qtbot: QtBot, app_state: AppState) -> CostTab:
    widget = CostTab(app_state, today=TODAY)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    return widget


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """Replace a field's text the way a user does (select all, type)."""
    edit.setFocus()
    edit.selectAll()
    if text:
        qtbot.keyClicks(edit, text)
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Backspace)


def expected_onprem(tab: CostTab, **changes: object) -> OnPremInputs:
    """The servers the tab should plan with, built here from the catalog defaults."""
    defaults = planning.owning_defaults(tab.accelerator_id)
    assert defaults.server_price is not None and defaults.power_kw is not None
    values = tco_defaults()
    fields: dict[str, object] = {
        "server_price": defaults.server_price,
        "power_kw": defaults.power_kw,
        "gpus": defaults.gpus_per_server,
        "gpus_per_server": defaults.gpus_per_server,
        "life_years": values.value("life_years"),
        "pue": values.value("pue"),
        "kwh_price": values.value("kwh_price"),
        "ops_fraction": values.value("ops_fraction"),
        "facility_usd_per_kw_month": values.value("facility_usd_per_kw_month"),
        "utilization": values.value("utilization"),
    }
    fields.update(changes)
    return OnPremInputs(**fields)  # type: ignore[arg-type]


def cloud_for(key: planning.OptionKey, spot_overhead: float | None = None) -> CloudInputs:
    offer = next(o for o in offers_for("h100-sxm") if o.id == key[0])
    price = offer.price(key[1])
    assert price is not None
    overhead = planning.default_spot_overhead() if spot_overhead is None else spot_overhead
    return CloudInputs(cloud_price=price, pricing=key[1], spot_overhead=overhead)


def row_of(tab: CostTab, label: str) -> int:
    for row in range(tab.table.table.rowCount()):
        if tab.table.cell_text(row, 0) == label:
            return row
    raise AssertionError(f"{label!r} not in the comparison table")


def shown_texts(tab: CostTab) -> list[str]:
    texts = [label.text() for label in tab.findChildren(QLabel)]
    texts += [card.value_text() for card in tab.findChildren(ResultCard)]
    table = tab.table.table
    texts += [tab.table.cell_text(r, c) for r in range(table.rowCount()) for c in range(7)]
    return texts


# --- the offers table -----------------------------------------------------------------------


def test_opens_ready_with_a_populated_h100_table(qtbot: QtBot, app_state: AppState) -> None:
    widget = create_tab(app_state)
    qtbot.addWidget(widget)
    assert isinstance(widget, CostTab)
    assert widget.is_ready()
    assert widget.accelerator_id == planning.DEFAULT_ACCELERATOR == "h100-sxm"
    catalog = offers_for("h100-sxm")
    model = widget.offers.model
    assert model.rowCount() == len(catalog) > 5
    assert {model.offer_at(r).id for r in range(model.rowCount())} == {o.id for o in catalog}
    aws = next(o for o in catalog if o.id == "aws/p5.48xlarge/us-east-1")
    row = next(r for r in range(model.rowCount()) if model.offer_at(r).id == aws.id)
    assert model.index(row, COLUMN_INDEX["on_demand"]).data() == units.format_money(aws.on_demand)
    assert model.index(row, COLUMN_INDEX["spot"]).data() == units.format_money(aws.spot)
    assert model.index(row, COLUMN_INDEX["committed_1yr"]).data() == ""  # not offered
    # The default comparison is ticked in the table and shown as results.
    assert widget.compared == planning.default_compared(catalog)
    for offer_id, pricing in widget.compared:
        r = next(r for r in range(model.rowCount()) if model.offer_at(r).id == offer_id)
        state = model.index(r, COLUMN_INDEX[pricing]).data(Qt.ItemDataRole.CheckStateRole)
        assert state == Qt.CheckState.Checked
    assert widget.comparison is not None
    assert len(widget.comparison.options) == len(widget.compared)


def test_table_sorts_and_filters(tab: CostTab) -> None:
    proxy, view = tab.offers.proxy, tab.offers.table
    column = COLUMN_INDEX["on_demand"]
    view.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    prices = [proxy.index(r, column).data(proxy.sortRole()) for r in range(proxy.rowCount())]
    assert prices == sorted(prices)
    assert math.isinf(prices[-1])  # offers without an on-demand price sort last
    view.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    descending = [proxy.index(r, column).data(proxy.sortRole()) for r in range(proxy.rowCount())]
    listed = [p for p in prices if math.isfinite(p)]
    assert descending[: len(listed)] == sorted(listed, reverse=True)
    assert all(math.isinf(p) for p in descending[len(listed) :])  # still last

    tab.offers.filter_edit.setText("coreweave")
    names = {proxy.index(r, 0).data() for r in range(proxy.rowCount())}
    assert names == {"CoreWeave"}
    tab.offers.filter_edit.setText("gcp us-east")  # every word must match
    rows = [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]
    assert [tab.offers.model.offer_at(r).id for r in rows] == ["gcp/a3-highgpu-8g/us-east4"]
    tab.offers.filter_edit.setText("")
    tab.offers.kind_combo.setCurrentIndex(tab.offers.kind_combo.findData("neocloud"))
    kinds = {
        tab.offers.model.offer_at(proxy.mapToSource(proxy.index(r, 0)).row()).kind
        for r in range(proxy.rowCount())
    }
    assert kinds == {"neocloud"}


def test_ticking_a_price_compares_it(tab: CostTab) -> None:
    model = tab.offers.model
    row = next(
        r for r in range(model.rowCount()) if model.offer_at(r).id == "aws/p5.48xlarge/us-east-1"
    )
    index = model.index(row, COLUMN_INDEX["on_demand"])
    assert model.flags(index) & Qt.ItemFlag.ItemIsUserCheckable
    assert not model.flags(model.index(row, COLUMN_INDEX["committed_3yr"])) & (
        Qt.ItemFlag.ItemIsUserCheckable
    )
    assert model.setData(index, Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
    tab.flush()
    key = ("aws/p5.48xlarge/us-east-1", "on_demand")
    assert key in tab.compared
    result = tab.comparison.option(key) if tab.comparison else None
    assert result is not None
    expected = estimate_tco(expected_onprem(tab), cloud_for(key))
    row_index = row_of(tab, result.option.label)
    assert tab.table.cell_text(row_index, 2) == break_even_text(expected.break_even_utilization)

    assert model.setData(index, Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole)
    tab.flush()
    assert key not in tab.compared
    assert tab.comparison is not None and tab.comparison.option(key) is None


# --- results equal the model's ------------------------------------------------------------------


def test_results_equal_the_model_and_follow_utilization(qtbot: QtBot, tab: CostTab) -> None:
    comparison = tab.comparison
    assert comparison is not None
    onprem = expected_onprem(tab)
    assert comparison.onprem == dataclasses.replace(
        onprem,
        server_price_source=comparison.onprem.server_price_source,
        power_source=comparison.onprem.power_source,
    )
    owning = estimate_tco(onprem, cloud_for(tab.compared[0])).onprem_cost_per_useful_gpu_hour

    # Every compared price: per useful hour, break-even and the plan's totals for the demand.
    demand = planning.DEFAULT_GPU_HOURS_PER_MONTH
    fleet = planning.size_fleet(demand, onprem.utilization, onprem.gpus_per_server)
    fleet_onprem = dataclasses.replace(onprem, gpus=fleet.gpus, utilization=fleet.utilization)
    # issue 25: the owning card is the planned fleet's, at the utilization the demand gives it
    # ("at 43% busy" for a fleet 43% busy), and its rate × the demand is the monthly total
    rate = estimate_tco(fleet_onprem, cloud_for(tab.compared[0])).onprem_cost_per_useful_gpu_hour
    assert tab.headline.owning_card.value_text() == units.format_money(rate)
    assert busy_percent(fleet.utilization) in tab.headline.owning_card.detail_text()
    assert comparison.owning_monthly_usd == pytest.approx(rate * demand)
    assert tab.table.cell_text(0, 1) == units.format_money(rate)
    for key in tab.compared:
        cloud = cloud_for(key)
        at_u = estimate_tco(onprem, cloud)
        plan = estimate_tco(fleet_onprem, cloud, planning.DEFAULT_HORIZON_MONTHS)
        result = comparison.option(key)
        assert result is not None
        row = row_of(tab, result.option.label)
        assert tab.table.cell_text(row, 1) == units.format_money(at_u.cloud_cost_per_gpu_hour)
        assert tab.table.cell_text(row, 2) == break_even_text(at_u.break_even_utilization)
        assert tab.table.cell_text(row, 4) == units.format_money(plan.cloud_horizon_usd)
        # Renting the demand costs the demand × the price per useful hour, every month.
        assert plan.cloud_yearly.total / 12 == pytest.approx(demand * cloud.effective_price)
    assert tab.table.cell_text(0, 4) == units.format_money(plan.onprem_horizon_usd)

    tab.headline.utilization.slider.setValue(80)
    tab.flush()
    higher = estimate_tco(expected_onprem(tab, utilization=0.8), cloud_for(tab.compared[0]))
    assert tab.comparison is not None
    assert tab.comparison.owning_per_useful_hour == pytest.approx(
        higher.onprem_cost_per_useful_gpu_hour
    )
    assert higher.onprem_cost_per_useful_gpu_hour < owning
    assert tab.cost_state.inputs is not None
    assert tab.cost_state.inputs.onprem.utilization == pytest.approx(0.8)


def test_server_price_and_spot_overhead_change_the_results(qtbot: QtBot, tab: CostTab) -> None:
    type_into(qtbot, tab.inputs.server_price, "500k")
    tab.flush()
    onprem = expected_onprem(tab, server_price=500e3)
    key = tab.compared[0]
    expected = estimate_tco(onprem, cloud_for(key))
    assert tab.comparison is not None
    assert tab.comparison.owning_per_useful_hour == pytest.approx(
        expected.onprem_cost_per_useful_gpu_hour
    )
    assert "Typed in" in tab.inputs.server_price_source.text()
    assert tab.inputs.server_price_reset_button.isEnabled()
    assert tab.comparison is not None
    result = tab.comparison.option(key)
    assert result is not None and result.break_even == pytest.approx(
        break_even_utilization(onprem, cloud_for(key))
    )

    spot_key = next(k for k in tab.compared if k[1] == "spot")
    type_into(qtbot, tab.offers.spot_overhead, "25")
    tab.flush()
    spot = tab.comparison.option(spot_key) if tab.comparison else None
    assert spot is not None
    assert spot.per_useful_hour == pytest.approx(cloud_for(spot_key, 0.25).effective_price)

    tab.inputs.server_price_reset_button.click()
    tab.flush()
    assert tab.inputs.server_price.value() == pytest.approx(
        planning.owning_defaults("h100-sxm").server_price
    )


def test_hybrid_and_idle_cost_come_from_the_model(tab: CostTab) -> None:
    comparison = tab.comparison
    assert comparison is not None and comparison.hybrid_option is not None
    onprem = expected_onprem(tab)
    hybrid_cloud = comparison.hybrid_option.option.cloud
    profile = demand_profile(
        "flat", planning.DEFAULT_HORIZON_MONTHS, planning.DEFAULT_GPU_HOURS_PER_MONTH / 730.5
    )
    expected = hybrid_plan(onprem, hybrid_cloud, profile, gpu_step=onprem.gpus_per_server)
    # Issue 25: the panel shows the verdict's hybrid (owning fewer GPUs than the fleet) and its
    # saving against the cheaper of renting all of the same demand (at the cheapest price) and
    # owning the fleet sized for it (it used to be the unrestricted best hybrid against
    # all-cloud only, at a hyperscaler's price).
    assert comparison.fleet is not None and comparison.owning_horizon_usd is not None
    cheapest = min(comparison.options, key=lambda r: r.per_useful_hour)
    all_cloud = float(sum(profile)) * cheapest.per_useful_hour
    mixed = min(
        (float(c), int(g))
        for g, c in zip(expected.gpus_grid, expected.cost_grid, strict=True)
        if 0 < g < comparison.fleet.gpus
    )
    assert tab.hybrid.saving_card.value_text() == units.format_money(
        min(all_cloud, comparison.owning_horizon_usd) - mixed[0]
    )
    assert cheapest.option.label in tab.hybrid.summary.text()
    assert f"Own {mixed[1]} GPUs" in tab.hybrid.summary.text()
    # One rule (issue 21): the default hybrid rents at the cheapest compared price, the one
    # renting everything is costed at (as ``estimate tco`` rents at its one price).
    assert comparison.hybrid_option is cheapest

    prices = sorted(r.option.cloud.cloud_price for r in comparison.options)
    low, high = monthly_idle_waste(prices[0]), monthly_idle_waste(prices[-1])
    text = tab.idle.rented.text()
    assert units.format_money(low.monthly_usd) in text
    assert units.format_money(high.monthly_usd) in text
    assert comparison.fleet is not None
    owned = monthly_idle_waste(
        onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour,
        1.0 - comparison.fleet.utilization,
        comparison.fleet.gpus,
    )
    assert units.format_money(owned.monthly_usd) in tab.idle.owned.text()
    # Every result carries its formula.
    assert "C(u)" in tab.headline.owning_card.toolTip()
    assert "cost(K)" in tab.hybrid.saving_card.toolTip()
    assert "730.5" in tab.idle.rented.toolTip()


# --- custom offers --------------------------------------------------------------------------


def test_adding_and_removing_a_custom_offer(qtbot: QtBot, tab: CostTab) -> None:
    dialog = tab.open_add_dialog()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()  # no provider, no price
    assert dialog.error()
    assert dialog.shown_error() == ""  # nothing typed yet: no error shown (issue 16)
    dialog.provider.setText("Our reseller")
    assert dialog.shown_error() == dialog.error() != ""
    dialog.instance.setText("8x H100 node")
    dialog.region.setText("eu-west")
    dialog.prices["on_demand"].setText("abc")
    # The field in the user's words and what is allowed, never its code name (issue 16).
    assert not ok.isEnabled()
    assert dialog.shown_error().startswith("On-demand price: must be a price in USD per GPU-hour")
    assert "on_demand" not in dialog.shown_error()
    dialog.prices["on_demand"].setText("1.25")
    dialog.price_date.setText("2026-13")
    assert not ok.isEnabled()
    assert dialog.error().startswith("Price date: use YYYY, YYYY-MM or YYYY-MM-DD")
    dialog.price_date.setText("2026-10")
    assert ok.isEnabled() and dialog.error() == ""
    ok.click()
    assert not dialog.isVisible()
    tab.flush()

    custom = tab.custom_offers
    assert len(custom) == 1 and custom[0].kind == "custom" and custom[0].on_demand == 1.25
    key = (custom[0].id, "on_demand")
    assert key in tab.compared
    model = tab.offers.model
    assert model.rowCount() == len(offers_for("h100-sxm")) + 1
    result = tab.comparison.option(key) if tab.comparison else None
    assert result is not None
    onprem = expected_onprem(tab)
    cloud = CloudInputs(cloud_price=1.25)
    assert result.break_even == pytest.approx(break_even_utilization(onprem, cloud))
    assert tab.cost_state.inputs is not None
    assert tab.cost_state.inputs.custom_offers == custom
    plan = tab.cost_state.plan()
    assert plan is not None and plan.custom_offers == custom

    tab.remove_custom_offer(custom[0].id)
    tab.flush()
    assert tab.custom_offers == ()
    assert key not in tab.compared
    assert model.rowCount() == len(offers_for("h100-sxm"))


def test_every_accelerator_plans_with_the_shared_owning_defaults(tab: CostTab) -> None:
    """The tab's fields carry model.planning's defaults without losing digits, so the tab and
    ``estimate tco`` (tests/test_planning.py) plan with the same figures."""
    checked = 0
    for acc_id in accelerator_catalog().ids:
        expected = planning.default_onprem(acc_id)
        tab.inputs.accelerator_chosen.emit(acc_id)
        tab.flush()
        assert tab.accelerator_id == acc_id
        defaults = planning.owning_defaults(acc_id)
        if expected is None:  # no catalog server price: the tab asks for a quote
            assert tab.inputs.power_kw.value() == defaults.power_kw, acc_id
            continue
        inputs = tab.cost_state.inputs
        assert inputs is not None and inputs.accelerator_id == acc_id
        assert inputs.onprem.server_price == expected.server_price, acc_id
        assert inputs.onprem.power_kw == expected.power_kw, acc_id
        assert inputs.onprem.gpus_per_server == expected.gpus_per_server, acc_id
        checked += 1
    assert checked >= 3


# make_custom_offer and the price-age rule are tested without Qt in tests/test_planning.py.


def test_stale_prices_are_marked_in_the_table(tab: CostTab) -> None:
    model = tab.offers.model
    column = COLUMN_INDEX["price_date"]
    seen = set()
    for row in range(model.rowCount()):
        offer = model.offer_at(row)
        index = model.index(row, column)
        status = price_ages.price_age(offer.price_date, TODAY).status
        assert index.data(STALE_ROLE) == status
        text = index.data()
        assert ("⚠ stale" in text) == (status == price_ages.STALE)
        assert ("⚠" in text) == (status in (price_ages.STALE, price_ages.MAYBE_STALE))
        assert offer.price_date in text
        seen.add(status)
    assert price_ages.STALE in seen and price_ages.FRESH in seen
    aws = next(r for r in range(model.rowCount()) if model.offer_at(r).price_date == "2025-06")
    assert "older than 12 months" in model.index(aws, column).data(Qt.ItemDataRole.ToolTipRole)


# --- shared state -------------------------------------------------------------------------------


def test_workload_changes_flow_into_the_demand(
    qtbot: QtBot, tab: CostTab, app_state: AppState
) -> None:
    assert tab.inputs.demand_source.currentData() == planning.DEMAND_TYPED  # no estimate yet
    training = TrainingInputs(params=7e9, tokens=20e9, accelerator="a100-sxm-80gb", gpus=64)
    app_state.set_workload(training=training)
    estimate = estimate_training(training)
    app_state.set_estimate(estimate)
    tab.flush()
    assert tab.accelerator_id == "a100-sxm-80gb"
    assert tab.inputs.accelerator.accelerator_id() == "a100-sxm-80gb"
    assert {tab.offers.model.offer_at(r).id for r in range(tab.offers.model.rowCount())} == {
        o.id for o in offers_for("a100-sxm-80gb")
    }
    assert tab.inputs.demand_source.currentData() == planning.DEMAND_RUNS
    assert tab.comparison is not None
    assert tab.comparison.demand.gpu_hours_per_month == pytest.approx(estimate.gpu_hours)

    app_state.set_runs_per_month(3)
    tab.flush()
    assert tab.inputs.runs_per_month.value() == 3
    assert tab.comparison.demand.gpu_hours_per_month == pytest.approx(3 * estimate.gpu_hours)
    assert tab.comparison.fleet is not None
    assert (
        tab.comparison.fleet.servers
        == planning.size_fleet(
            3 * estimate.gpu_hours, 0.5, tab.comparison.onprem.gpus_per_server
        ).servers
    )

    # Typing runs here writes the shared state.
    type_into(qtbot, tab.inputs.runs_per_month, "2")
    tab.flush()
    assert app_state.runs_per_month == 2

    # Spreading the run over the horizon is the other rule.
    combo = tab.inputs.demand_source
    combo.setCurrentIndex(combo.findData(planning.DEMAND_SPREAD))
    combo.activated.emit(combo.currentIndex())
    tab.flush()
    assert tab.comparison is not None
    assert tab.comparison.demand.gpu_hours_per_month == pytest.approx(
        estimate.gpu_hours / planning.DEFAULT_HORIZON_MONTHS
    )
    assert "÷ 48 months" in tab.inputs.demand_rule.text()


def test_cost_state_is_shared_and_settable(tab: CostTab, app_state: AppState) -> None:
    state = cost_state(app_state)
    assert isinstance(state, CostState) and state is tab.cost_state
    assert state.result is tab.comparison
    inputs = state.inputs
    assert inputs is not None and inputs.accelerator_id == "h100-sxm"
    changed = dataclasses.replace(
        inputs, onprem=dataclasses.replace(inputs.onprem, utilization=0.3), horizon_months=24
    )
    state.set_inputs(changed)  # from outside the tab, e.g. a scenario file
    tab.flush()
    assert tab.headline.utilization.fraction() == pytest.approx(0.3)
    assert tab.inputs.horizon.value() == 24
    assert tab.comparison is not None and tab.comparison.months is not None
    assert int(tab.comparison.months[-1]) == 24
    plan = state.plan()
    assert plan is not None and plan.on_prem is not None
    assert plan.on_prem.utilization == pytest.approx(0.3)


# --- invalid input ----------------------------------------------------------------------------


def test_invalid_input_is_marked_and_shows_dashes(
    qtbot: QtBot, tab: CostTab, app_state: AppState
) -> None:
    messages: list[str] = []
    app_state.status_message.connect(lambda text, _ms: messages.append(text))
    before = tab.cost_state.inputs
    type_into(qtbot, tab.inputs.pue, "0.5")  # parses, but the model allows 1-3
    tab.flush()
    marked = tab.marked_fields()
    # The field's label, not its code name (issue 16): "PUE: …", never "pue: …".
    assert tab.inputs.pue in marked
    assert marked[tab.inputs.pue].startswith("PUE: must be between 1 and 3")
    assert tab.inputs.pue.property("invalid") is True
    assert tab.headline.owning_card.value_text() == units.DASH
    assert [tab.table.cell_text(0, c) for c in range(1, 5)] == [units.DASH] * 4
    # What needs no owning figure is still shown: the cloud prices, ranked.
    table = tab.table.table
    assert table.rowCount() == len(tab.compared) + 1
    per_hour = sorted(cloud_for(key).effective_price for key in tab.compared)
    assert [tab.table.cell_text(r, 1) for r in range(1, table.rowCount())] == [
        units.format_money(p) for p in per_hour
    ]
    assert all(tab.table.cell_text(r, 2) == units.DASH for r in range(1, table.rowCount()))
    assert tab.cost_state.inputs == before  # the state keeps the last valid inputs
    assert tab.cost_state.result is None
    assert any("PUE: must be between 1 and 3" in m for m in messages)
    assert not any("pue:" in m for m in messages)

    type_into(qtbot, tab.inputs.server_price, "lots")
    tab.flush()
    assert tab.inputs.server_price in tab.marked_fields()
    texts = shown_texts(tab)
    assert not any("nan" in t.lower().split() or "inf" in t.lower().split() for t in texts)

    type_into(qtbot, tab.inputs.pue, "1.5")
    type_into(qtbot, tab.inputs.server_price, "300k")
    tab.flush()
    assert tab.marked_fields() == {}
    assert tab.headline.owning_card.value_text() != units.DASH

    # An invalid demand leaves the per-hour results and dashes the totals.
    type_into(qtbot, tab.inputs.gpu_hours, "-5")
    tab.flush()
    assert tab.inputs.gpu_hours in tab.marked_fields()
    assert tab.headline.owning_card.value_text() != units.DASH
    assert tab.headline.total_card.value_text() == units.DASH
    assert tab.table.cell_text(0, 4) == units.DASH
    # ... and the totals say why: the refused figure, not "Type the GPU-hours you need"
    reason = tab.marked_fields()[tab.inputs.gpu_hours]
    assert "must be greater than 0" in reason
    assert tab.comparison is not None and tab.comparison.demand.rule == reason
    shown = " ".join(label.text() for label in tab.findChildren(QLabel) if label.isVisible())
    assert "Type the GPU-hours you need each month." not in shown

    # A share of capex above 100% is refused by the field itself.
    type_into(qtbot, tab.inputs.ops_percent, "150")
    tab.flush()
    assert tab.inputs.ops_percent in tab.marked_fields()


def test_accelerator_without_server_price_asks_for_one(qtbot: QtBot, tab: CostTab) -> None:
    combo = tab.inputs.accelerator
    combo.set_accelerator_id("b200")
    combo.accelerator_changed.emit("b200")
    tab.flush()
    assert tab.accelerator_id == "b200"
    assert tab.inputs.server_price.is_empty()
    assert tab.inputs.server_price in tab.marked_fields()
    assert "No catalog server price" in tab.marked_fields()[tab.inputs.server_price]
    assert tab.headline.owning_card.value_text() == units.DASH
    cheapest = min(
        CloudInputs(
            cloud_price=next(o for o in offers_for("b200") if o.id == key[0]).price(key[1]) or 0,
            pricing=key[1],
            spot_overhead=planning.default_spot_overhead(),
        ).effective_price
        for key in tab.compared
    )
    assert tab.headline.cloud_card.value_text() == units.format_money(cheapest)
    type_into(qtbot, tab.inputs.server_price, "450k")
    tab.flush()
    assert tab.marked_fields() == {}
    assert tab.comparison is not None and tab.comparison.onprem.server_price == 450e3


def test_shutdown_leaves_no_timer(tab: CostTab) -> None:
    tab.schedule()
    assert tab._timer in active_timers()
    tab.shutdown()
    assert tab._timer not in active_timers()


def test_tab_leads_with_one_recommendation_for_the_demand(tab: CostTab) -> None:
    comparison = tab.comparison
    assert comparison is not None and comparison.verdict is not None
    head = tab.headline
    assert not head.recommendation.isHidden()
    text = head.recommendation.text()
    best = comparison.verdict.best
    assert units.format_money(best.cost_usd) in text
    assert f"over {comparison.inputs.horizon_months} months" in text
    # one fleet size everywhere: the verdict's owning plan is the fleet of the demand note
    assert comparison.fleet is not None
    if best.choice != planning.OWN:
        assert f"owning {comparison.fleet.gpus} GPUs" in text
    assert f"{comparison.fleet.gpus} GPUs" in tab.inputs.demand_rule.text() or (
        f"{comparison.fleet.servers} server" in tab.inputs.demand_rule.text()
    )
    # the slider says how it relates to the demand
    note = head.utilization_note.text()
    assert "at most 50%" in note and f"{comparison.fleet.gpus} GPUs" in note


def test_hybrid_key_names_the_colours_drawn(tab: CostTab) -> None:
    note = tab.hybrid.note.text()
    assert "Dark:" not in note and "served by owned GPUs" in note


def test_cleared_plots_do_not_keep_stale_axes(tab: CostTab) -> None:
    cumulative = tab.plots.cumulative_plot.getPlotItem()
    assert cumulative.viewRange()[1][1] > 1e5  # dollars of the current plan
    tab.plots.clear()
    assert cumulative.viewRange()[1][1] <= 1.0 + 1e-9
    assert not tab.plots.paybacks and not tab.plots.crossings
