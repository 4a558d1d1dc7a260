"""Widgets → model for the Cost tab: the owning fields read into ``OnPremInputs``; a model
error (``InputError.field``) is put on the widget it names."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtWidgets import QWidget

from desktopapp.application.cost import OwningFields
from desktopapp.model.tco import OnPremInputs
from desktopapp.ui.common.marking import field_of, read_quantity
from desktopapp.ui.cost.inputs import CostInputsPanel
from desktopapp.ui.cost.offers import OffersPanel
from desktopapp.ui.cost.results import HeadlinePanel


class CostForm:
    """The Cost tab's input widgets read as model inputs."""

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
        widget = self.field_widgets().get(field_of(exc), self.inputs.server_price)
        errors[widget] = str(exc).splitlines()[0]
