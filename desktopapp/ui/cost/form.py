"""Widgets ⇄ model for the Cost tab: the owning fields read into ``OnPremInputs``; a model
error (``InputError.field``) is put on the widget it names, in the user's words; defaults,
inputs set from outside (a scenario) and the owning fields' notes written into the widgets
(without signals, so nothing here counts as an edit)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtWidgets import QWidget

from desktopapp.application.cost import OwningFields, OwningFieldsView
from desktopapp.model.planning import (
    DEFAULT_HORIZON_MONTHS,
    DEMAND_RUNS,
    DEMAND_TYPED,
    CostInputs,
    default_source,
    default_spot_overhead,
    default_value,
)
from desktopapp.model.tco import OnPremInputs
from desktopapp.model.validation import user_message
from desktopapp.ui.common.marking import blocked, field_of, read_quantity, select_data
from desktopapp.ui.cost.inputs import CostInputsPanel
from desktopapp.ui.cost.offers import OffersPanel
from desktopapp.ui.cost.results import HeadlinePanel


class CostForm:
    """The Cost tab's input widgets read as model inputs, and written from them."""

    def __init__(
        self, inputs: CostInputsPanel, headline: HeadlinePanel, offers: OffersPanel
    ) -> None:
        self.inputs = inputs
        self.headline = headline
        self.offers = offers

    def field_widgets(self) -> Mapping[str, QWidget]:
        inp = self.inputs
        return {
            "server_price": inp.server_price,
            "power_kw": inp.power_kw,
            "power_kw_idle": inp.power_kw_idle,
            "gpus": inp.gpus_per_server,
            "gpus_per_server": inp.gpus_per_server,
            "life_years": inp.life,
            "pue": inp.pue,
            "kwh_price": inp.kwh_price,
            "ops_fraction": inp.ops_percent,
            "facility_usd_per_kw_month": inp.facility,
            "utilization": self.headline.utilization,
            "spot_overhead": self.offers.spot_overhead,
            "gpu_hours_per_month": inp.gpu_hours,
            "demand": inp.gpu_hours,
            "gpus_busy": inp.gpu_hours,
            "runs_per_month": inp.runs_per_month,
            "months": inp.horizon,
            "shape": inp.profile,
        }

    def onprem(self, errors: dict[QWidget, str], owning: OwningFields) -> OnPremInputs | None:
        """One server at the chosen utilization, from the owning fields (None when invalid)."""
        inp = self.inputs
        server_price = read_quantity(inp.server_price, errors)
        power = read_quantity(inp.power_kw, errors)
        idle = read_quantity(inp.power_kw_idle, errors)
        pue = read_quantity(inp.pue, errors)
        kwh = read_quantity(inp.kwh_price, errors)
        ops = read_quantity(inp.ops_percent, errors)
        facility = read_quantity(inp.facility, errors)
        if server_price is None and inp.server_price.is_pristine_empty():
            errors[inp.server_price] = inp.server_price_source.toolTip()
        if power is None and inp.power_kw.is_pristine_empty():
            errors[inp.power_kw] = inp.power_source.toolTip()
        if inp.power_kw_idle.error() is not None and not inp.power_kw_idle.is_empty():
            return None
        values = (server_price, power, pue, kwh, ops, facility)
        if any(v is None for v in values):
            return None
        assert server_price is not None and power is not None and pue is not None
        assert kwh is not None and ops is not None and facility is not None
        per_server = inp.gpus_per_server.value()
        try:
            return OnPremInputs(
                server_price=server_price,
                power_kw=power,
                gpus=per_server,
                gpus_per_server=per_server,
                life_years=float(inp.life.currentData()),
                power_kw_idle=idle,
                pue=pue,
                kwh_price=kwh,
                ops_fraction=ops / 100.0,
                facility_usd_per_kw_month=facility,
                utilization=self.headline.utilization.fraction(),
                server_price_source=inp.server_price_source.toolTip()
                if not owning.price_typed
                else "typed in",
                power_source=inp.power_source.toolTip() if not owning.power_typed else "typed in",
            )
        except ValueError as exc:
            self.blame(exc, errors)
            return None

    def blame(self, exc: ValueError, errors: dict[QWidget, str]) -> None:
        """Put a model error on the widget it names, in the user's words (the field's label,
        not its code name: "PUE: must be between 1 and 3", never "pue: …")."""
        widget = self.field_widgets().get(field_of(exc), self.inputs.server_price)
        errors[widget] = user_message(exc)

    # --- model → widgets ----------------------------------------------------------------------
    def show_generic_defaults(
        self, demand_source: str, gpu_hours: float, runs_per_month: float
    ) -> None:
        """The reference defaults that do not depend on the accelerator, with their sources
        in the tooltips."""
        inp = self.inputs
        with blocked(inp.life, inp.horizon, inp.demand_source, inp.profile):
            select_data(inp.life, int(default_value("life_years")))
            inp.horizon.setValue(DEFAULT_HORIZON_MONTHS)
            select_data(inp.profile, "flat")
            select_data(inp.demand_source, demand_source)
        inp.gpu_hours.set_value(gpu_hours)
        inp.runs_per_month.set_value(runs_per_month)
        inp.pue.set_value(default_value("pue"))
        inp.kwh_price.set_value(default_value("kwh_price"))
        inp.ops_percent.set_value(default_value("ops_fraction") * 100.0)
        inp.facility.set_value(default_value("facility_usd_per_kw_month"))
        inp.power_kw_idle.set_value(None)
        self.headline.utilization.set_fraction(default_value("utilization"))
        self.offers.spot_overhead.set_value(default_spot_overhead() * 100.0)
        for edit, name in (
            (inp.pue, "pue"),
            (inp.kwh_price, "kwh_price"),
            (inp.ops_percent, "ops_fraction"),
            (inp.facility, "facility_usd_per_kw_month"),
        ):
            edit.setToolTip(f"{edit.toolTip()}\nDefault: {default_source(name)}")
        inp.defaults_note.setText(
            "Defaults: PUE, electricity and operations from the reference data (hover a field "
            "for its source); idle power empty means the servers draw full power all the time."
        )

    def show_inputs(self, inputs: CostInputs) -> None:
        """Every field from inputs set from outside (a scenario, another view of the state)."""
        inp = self.inputs
        onprem = inputs.onprem
        with blocked(inp.gpus_per_server, inp.life, inp.horizon, inp.demand_source, inp.profile):
            inp.gpus_per_server.setValue(onprem.gpus_per_server)
            select_data(inp.life, int(onprem.life_years))
            inp.horizon.setValue(inputs.horizon_months)
            select_data(inp.demand_source, inputs.demand_source)
            select_data(inp.profile, inputs.profile)
        inp.gpu_hours.set_value(inputs.typed_gpu_hours)
        inp.server_price.set_value(float(onprem.server_price))
        inp.power_kw.set_value(float(onprem.power_kw))
        inp.power_kw_idle.set_value(onprem.power_kw_idle)
        inp.pue.set_value(onprem.pue)
        inp.kwh_price.set_value(onprem.kwh_price)
        inp.ops_percent.set_value(onprem.ops_fraction * 100.0)
        inp.facility.set_value(onprem.facility_usd_per_kw_month)
        self.headline.utilization.set_fraction(onprem.utilization)
        self.offers.spot_overhead.set_value(inputs.spot_overhead * 100.0)

    def show_owning(self, view: OwningFieldsView) -> None:
        """Server price and power: the catalog value unless typed in, where each came from."""
        inp = self.inputs
        if view.show_price:
            inp.server_price.set_value(view.server_price)
        inp.server_price_source.setText(view.server_price_note)
        inp.server_price_source.setToolTip(view.server_price_tooltip)
        inp.server_price_reset_button.setEnabled(view.server_price_resettable)
        if view.show_power:
            inp.power_kw.set_value(view.power_kw)
        inp.power_source.setText(view.power_note)
        inp.power_source.setToolTip(view.power_tooltip)
        inp.power_reset_button.setEnabled(view.power_resettable)

    def show_demand_source(self) -> None:
        """The typed GPU-hours only for a typed demand; the runs row only for runs."""
        inp = self.inputs
        source = str(inp.demand_source.currentData())
        inp.gpu_hours.setEnabled(source == DEMAND_TYPED)
        inp.show_runs_row(source == DEMAND_RUNS)
