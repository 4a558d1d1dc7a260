"""Cloud vs on-prem tab: rent or buy, and at what utilization does owning pay off?

Inputs on the left (demand, servers), the verdict, plots, the comparison table, the hybrid
plan, the idle-cost warning and the cloud-price table on the right. Edits are coalesced by a
short single-shot timer; :meth:`CostTab.recompute` is the one handler that reads every field,
builds the model inputs (:class:`~desktopapp.ui.cost.planning.CostInputs`), runs the comparison
and shows it. A ``ValueError`` from the model names a field; the tab marks that field and shows
"—" for what cannot be computed. Everything takes milliseconds, so it runs on the GUI thread.

Shared state: the Workload tab's accelerator and estimate arrive through ``AppState`` signals;
the runs per month are ``AppState.runs_per_month``; the cost inputs and the latest comparison
live in :class:`~desktopapp.ui.cost.state.CostState`, a child of ``AppState``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QWidget

from desktopapp.model import units
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer, accelerator_catalog
from desktopapp.model.tco import TCO_FORMULA, IdleWaste, OnPremInputs
from desktopapp.model.units import DASH
from desktopapp.ui.common.layouts import scrolling_column, two_panes
from desktopapp.ui.common.marking import (
    FieldMarks,
    blocked,
    field_of,
    read_quantity,
    select_data,
)
from desktopapp.ui.common.recompute import RecomputingTab
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.common.theme import COLORS, SPACING
from desktopapp.ui.cost.inputs import CostInputsPanel
from desktopapp.ui.cost.offers import CustomOfferDialog, OffersPanel
from desktopapp.ui.cost.planning import (
    CUSTOM_OFFER_KIND,
    DEFAULT_ACCELERATOR,
    DEFAULT_GPU_HOURS_PER_MONTH,
    DEFAULT_HORIZON_MONTHS,
    DEMAND_RUNS,
    DEMAND_SPREAD,
    DEMAND_TYPED,
    CostComparison,
    CostInputs,
    OptionKey,
    OptionResult,
    cloud_only,
    cloud_options,
    compare,
    default_compared,
    default_source,
    default_spot_overhead,
    default_value,
    format_gpu_hours,
    offers_with_custom,
    owning_defaults,
)
from desktopapp.ui.cost.results import (
    OWNING_COLOR,
    AssumptionsPanel,
    ComparisonPanel,
    HeadlinePanel,
    HybridPanel,
    IdlePanel,
    PlotsPanel,
    assumption_rows,
    break_even_text,
    option_color,
)
from desktopapp.ui.cost.state import CostState, cost_state
from desktopapp.ui.state import AppState


def _key_text(key: OptionKey) -> str:
    return f"{key[0]}|{key[1]}"


class CostTab(RecomputingTab):
    """The Cloud vs on-prem tab (see the module docstring)."""

    def __init__(
        self, state: AppState, parent: QWidget | None = None, today: date | None = None
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.cost_state: CostState = cost_state(state)
        self.today = today or date.today()
        self._catalog = accelerator_catalog()
        self._writing = False
        self._marks = FieldMarks(state, "Cost: cannot compare: ")
        self._price_typed = False
        self._power_typed = False
        self._demand_source_set_by_user = False
        self._typed_gpu_hours: float | None = DEFAULT_GPU_HOURS_PER_MONTH
        self._accelerator_id = DEFAULT_ACCELERATOR
        self._compared: tuple[OptionKey, ...] = ()
        self._custom: tuple[CloudOffer, ...] = ()
        self._hybrid_key: OptionKey | None = None
        self.comparison: CostComparison | None = None
        self.errors: dict[str, str] = {}

        self.inputs = CostInputsPanel()
        self.headline = HeadlinePanel()
        self.plots = PlotsPanel()
        self.table = ComparisonPanel()
        self.hybrid = HybridPanel()
        self.idle = IdlePanel()
        self.offers = OffersPanel(self.today)
        self.assumptions = AssumptionsPanel()
        self._build_layout()
        self.inputs.accelerator.set_accelerators(self._catalog.accelerators)

        self._set_generic_defaults()
        if self.cost_state.inputs is not None:
            self._apply_inputs(self.cost_state.inputs)
        else:
            acc = self._workload_accelerator() or DEFAULT_ACCELERATOR
            self._set_accelerator(acc)
        self._connect()
        self.recompute()

    # --- layout ---------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        row = QHBoxLayout()
        row.setSpacing(SPACING)
        row.addWidget(self.hybrid, 3)
        row.addWidget(self.idle, 2)
        self.results_scroll: QScrollArea = scrolling_column(
            (self.headline, self.plots, self.table, row, self.offers, self.assumptions),
            horizontal=Qt.ScrollBarPolicy.ScrollBarAsNeeded,
        )
        self.splitter = two_panes(self, self.inputs, self.results_scroll, (420, 980))

    def _connect(self) -> None:
        inp = self.inputs
        inp.edited.connect(self.schedule)
        inp.accelerator_chosen.connect(self._on_accelerator_chosen)
        inp.demand_source_chosen.connect(self._on_demand_source_chosen)
        inp.gpus_per_server_changed.connect(self._on_gpus_per_server)
        inp.server_price_typed.connect(self._on_server_price_typed)
        inp.server_price_reset.connect(self._on_server_price_reset)
        inp.power_typed.connect(self._on_power_typed)
        inp.power_reset.connect(self._on_power_reset)
        self.headline.utilization.value_changed.connect(lambda _v: self.schedule())
        self.offers.model.compare_toggled.connect(self._on_compare_toggled)
        self.offers.add_requested.connect(self.open_add_dialog)
        self.offers.remove_requested.connect(self.remove_custom_offer)
        self.offers.reset_requested.connect(self.reset_comparison)
        self.offers.spot_overhead_edited.connect(self.schedule)
        self.hybrid.option_combo.activated.connect(self._on_hybrid_chosen)
        self.state.accelerator_changed.connect(self._on_state_accelerator)
        self.state.estimate_changed.connect(self._on_state_estimate)
        self.state.runs_per_month_changed.connect(self._on_state_runs)
        self.cost_state.inputs_changed.connect(self._on_cost_state_inputs)

    # --- defaults and state → widgets ----------------------------------------------------------
    def _set_generic_defaults(self) -> None:
        inp = self.inputs
        with blocked(inp.life, inp.horizon, inp.demand_source, inp.profile):
            select_data(inp.life, int(default_value("life_years")))
            inp.horizon.setValue(DEFAULT_HORIZON_MONTHS)
            select_data(inp.profile, "flat")
            has_estimate = self.state.estimate is not None
            select_data(inp.demand_source, DEMAND_RUNS if has_estimate else DEMAND_TYPED)
        self._typed_gpu_hours = DEFAULT_GPU_HOURS_PER_MONTH
        inp.gpu_hours.set_value(self._typed_gpu_hours)
        inp.runs_per_month.set_value(self.state.runs_per_month)
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
        self._refresh_demand_fields()

    def _workload_accelerator(self) -> str | None:
        acc_id = self.state.accelerator_id
        if acc_id and self._catalog.find(acc_id) is not None:
            return self._catalog.get(acc_id).id
        return None

    def _set_accelerator(self, acc_id: str) -> None:
        """Switch to an accelerator: its catalog server, power and cloud offers."""
        acc = self._catalog.find(acc_id)
        self._accelerator_id = acc.id if acc is not None else acc_id
        self.inputs.accelerator.set_accelerator_id(self._accelerator_id)
        self._price_typed = False
        self._power_typed = False
        defaults = owning_defaults(self._accelerator_id)
        with blocked(self.inputs.gpus_per_server):
            self.inputs.gpus_per_server.setValue(defaults.gpus_per_server)
        self._apply_owning_defaults()
        offers = offers_with_custom(self._accelerator_id, self._custom)
        self._compared = default_compared(offers)
        self._hybrid_key = None
        self._refresh_offers()
        self._refresh_accelerator_note()

    def _accelerator_name(self) -> str:
        acc = self._catalog.find(self._accelerator_id)
        return acc.name if acc is not None else self._accelerator_id

    def _apply_owning_defaults(self) -> None:
        """Catalog server price and power for the GPUs per server, unless typed in."""
        inp = self.inputs
        defaults = owning_defaults(self._accelerator_id, inp.gpus_per_server.value())
        if not self._price_typed:
            inp.server_price.set_value(defaults.server_price)
            text = html.escape(defaults.server_price_source)
            if defaults.server_price is None:  # nothing to fall back on: ask for a quote
                text = f"<span style='color:{COLORS['bad']}'>{text}</span>"
            inp.server_price_source.setText(text)
        else:
            inp.server_price_source.setText("Typed in by you.")
        inp.server_price_source.setToolTip(defaults.server_price_source)
        inp.server_price_reset_button.setEnabled(
            self._price_typed and defaults.server_price is not None
        )
        if not self._power_typed:
            inp.power_kw.set_value(defaults.power_kw)
            inp.power_source.setText(html.escape(defaults.power_note))
        else:
            inp.power_source.setText("Typed in by you.")
        inp.power_source.setToolTip(defaults.power_source)
        inp.power_reset_button.setEnabled(self._power_typed and defaults.power_kw is not None)

    def _refresh_offers(self) -> None:
        offers = offers_with_custom(self._accelerator_id, self._custom)
        self.offers.set_offers(offers, self._accelerator_name())
        self._show_compared()

    def _show_compared(self) -> None:
        colors = {key: option_color(i) for i, key in enumerate(self._existing_compared())}
        self.offers.set_compared(self._compared, colors)

    def _existing_compared(self) -> list[OptionKey]:
        """Compared keys that are prices of the current offers, in comparison order."""
        offers = offers_with_custom(self._accelerator_id, self._custom)
        return [o.key for o in cloud_options(offers, self._compared, 0.0)]

    def _refresh_accelerator_note(self) -> None:
        workload = self._workload_accelerator()
        note = self.inputs.accelerator_note
        if workload is None:
            note.setText("The Workload tab's accelerator is used here once it has one.")
        elif workload == self._accelerator_id:
            note.setText("Follows the Workload tab.")
        else:
            name = self._catalog.get(workload).name
            note.setText(
                f"The Workload tab plans on {html.escape(name)}; changing it there changes it here."
            )

    def _refresh_demand_fields(self) -> None:
        inp = self.inputs
        source = str(inp.demand_source.currentData())
        inp.gpu_hours.setEnabled(source == DEMAND_TYPED)
        inp.show_runs_row(source == DEMAND_RUNS)

    def _apply_inputs(self, inputs: CostInputs) -> None:
        """Show inputs set from outside (a scenario, another view of the state). Their demand
        source is a choice made there: a workload estimate arriving later does not change it."""
        inp = self.inputs
        onprem = inputs.onprem
        self._custom = inputs.custom_offers
        self._demand_source_set_by_user = True
        self._typed_gpu_hours = inputs.typed_gpu_hours
        acc = self._catalog.find(inputs.accelerator_id)
        self._accelerator_id = acc.id if acc is not None else inputs.accelerator_id
        inp.accelerator.set_accelerator_id(self._accelerator_id)
        with blocked(inp.gpus_per_server, inp.life, inp.horizon, inp.demand_source, inp.profile):
            inp.gpus_per_server.setValue(onprem.gpus_per_server)
            select_data(inp.life, int(onprem.life_years))
            inp.horizon.setValue(inputs.horizon_months)
            select_data(inp.demand_source, inputs.demand_source)
            select_data(inp.profile, inputs.profile)
        inp.gpu_hours.set_value(inputs.typed_gpu_hours)
        defaults = owning_defaults(self._accelerator_id, onprem.gpus_per_server)
        self._price_typed = defaults.server_price is None or not math.isclose(
            float(onprem.server_price), defaults.server_price
        )
        self._power_typed = defaults.power_kw is None or not math.isclose(
            float(onprem.power_kw), defaults.power_kw
        )
        inp.server_price.set_value(float(onprem.server_price))
        inp.power_kw.set_value(float(onprem.power_kw))
        inp.power_kw_idle.set_value(onprem.power_kw_idle)
        inp.pue.set_value(onprem.pue)
        inp.kwh_price.set_value(onprem.kwh_price)
        inp.ops_percent.set_value(onprem.ops_fraction * 100.0)
        inp.facility.set_value(onprem.facility_usd_per_kw_month)
        self.headline.utilization.set_fraction(onprem.utilization)
        self.offers.spot_overhead.set_value(inputs.spot_overhead * 100.0)
        self._compared = inputs.compared
        self._hybrid_key = inputs.hybrid_option
        self._apply_owning_defaults()
        self._refresh_offers()
        self._refresh_accelerator_note()
        self._refresh_demand_fields()

    # --- user actions ----------------------------------------------------------------------------
    def _on_accelerator_chosen(self, acc_id: str) -> None:
        self._set_accelerator(acc_id)
        self.schedule()

    def _on_demand_source_chosen(self, _source: str) -> None:
        self._demand_source_set_by_user = True
        self._refresh_demand_fields()
        self.schedule()

    def _on_gpus_per_server(self, _value: int) -> None:
        self._apply_owning_defaults()
        self.schedule()

    def _on_server_price_typed(self) -> None:
        self._price_typed = True
        self._apply_owning_defaults()
        self.schedule()

    def _on_server_price_reset(self) -> None:
        self._price_typed = False
        self._apply_owning_defaults()
        self.schedule()

    def _on_power_typed(self) -> None:
        self._power_typed = True
        self._apply_owning_defaults()
        self.schedule()

    def _on_power_reset(self) -> None:
        self._power_typed = False
        self._apply_owning_defaults()
        self.schedule()

    def _on_compare_toggled(self, offer_id: str, pricing: str, checked: bool) -> None:
        self.set_compared(offer_id, pricing, checked)

    def set_compared(self, offer_id: str, pricing: str, checked: bool) -> None:
        """Compare (or stop comparing) one price of one offer."""
        key = (offer_id, pricing)
        keys = [k for k in self._compared if k != key]
        if checked:
            keys.append(key)
        self._compared = tuple(keys)
        self._show_compared()
        self.schedule()

    def reset_comparison(self) -> None:
        self._compared = default_compared(offers_with_custom(self._accelerator_id, self._custom))
        self._show_compared()
        self.schedule()

    def _on_hybrid_chosen(self, index: int) -> None:
        text = str(self.hybrid.option_combo.itemData(index) or "")
        offer_id, _sep, pricing = text.rpartition("|")
        self._hybrid_key = (offer_id, pricing) if offer_id else None
        self.schedule()

    def open_add_dialog(self) -> CustomOfferDialog:
        """The dialog for a user's own offer (window-modal); adds the offer when accepted."""
        existing = [o.id for o in self._custom]
        dialog = CustomOfferDialog(
            self._accelerator_id, self._accelerator_name(), existing, self.today, self
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.accepted.connect(lambda: self._on_dialog_accepted(dialog))
        dialog.open()
        return dialog

    def _on_dialog_accepted(self, dialog: CustomOfferDialog) -> None:
        offer = dialog.offer()
        if offer is not None:
            self.add_custom_offer(offer)

    def add_custom_offer(self, offer: CloudOffer) -> None:
        """Add a user's offer (``kind`` "custom") and compare its first listed price."""
        if offer.kind != CUSTOM_OFFER_KIND:
            raise ValueError("kind: only offers of kind 'custom' can be added")
        self._custom = (*[o for o in self._custom if o.id != offer.id], offer)
        first = next((p for p in PRICING_MODELS if (offer.price(p) or 0) > 0), None)
        if first is not None and offer.accelerator_id == self._accelerator_id:
            self._compared = (*[k for k in self._compared if k[0] != offer.id], (offer.id, first))
        self._refresh_offers()
        self.state.show_status(f"Added {offer.name} to the cloud prices.")
        self.schedule()

    def remove_custom_offer(self, offer_id: str) -> None:
        self._custom = tuple(o for o in self._custom if o.id != offer_id)
        self._compared = tuple(k for k in self._compared if k[0] != offer_id)
        self._refresh_offers()
        self.schedule()

    # --- shared state → this tab -----------------------------------------------------------------
    def _on_state_accelerator(self, acc_id: str) -> None:
        found = self._catalog.find(acc_id) if acc_id else None
        if found is None:
            self._refresh_accelerator_note()
            return
        if found.id != self._accelerator_id:
            self._set_accelerator(found.id)
            self.schedule()
        self._refresh_accelerator_note()

    def _on_state_estimate(self, estimate: object) -> None:
        inp = self.inputs
        if (
            estimate is not None
            and not self._demand_source_set_by_user
            and inp.demand_source.currentData() == DEMAND_TYPED
        ):
            select_data(inp.demand_source, DEMAND_RUNS)
            self._refresh_demand_fields()
        self.schedule()

    def _on_state_runs(self, runs: float) -> None:
        if self._writing:
            return
        if self.inputs.runs_per_month.value() != runs:
            self.inputs.runs_per_month.set_value(runs)
        self.schedule()

    def _on_cost_state_inputs(self, inputs: object) -> None:
        if self._writing or not isinstance(inputs, CostInputs):
            return
        self._apply_inputs(inputs)
        self.schedule()

    # --- widgets → model (the one handler) -------------------------------------------------------
    def _field_widgets(self) -> Mapping[str, QWidget]:
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

    def _build_onprem(self, errors: dict[QWidget, str]) -> OnPremInputs | None:
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
                if not self._price_typed
                else "typed in",
                power_source=inp.power_source.toolTip() if not self._power_typed else "typed in",
            )
        except ValueError as exc:
            self._blame(exc, errors)
            return None

    def _blame(self, exc: ValueError, errors: dict[QWidget, str]) -> None:
        widget = self._field_widgets().get(field_of(exc), self.inputs.server_price)
        errors[widget] = str(exc).splitlines()[0]

    def build_inputs(self, errors: dict[QWidget, str]) -> CostInputs | None:
        """Read every field into :class:`CostInputs` (None, with ``errors``, when invalid)."""
        inp = self.inputs
        onprem = self._build_onprem(errors)
        source = str(inp.demand_source.currentData())
        if source == DEMAND_TYPED:
            self._typed_gpu_hours = read_quantity(inp.gpu_hours, errors)
        # With another source the field only shows the demand worked out from the workload:
        # the inputs (and a scenario file) keep the figure last typed in or opened.
        typed = self._typed_gpu_hours
        if source == DEMAND_RUNS:
            read_quantity(inp.runs_per_month, errors)
        spot = read_quantity(self.offers.spot_overhead, errors)
        if onprem is None or spot is None:
            return None
        return CostInputs(
            accelerator_id=self._accelerator_id,
            onprem=onprem,
            demand_source=source,
            typed_gpu_hours=typed,
            horizon_months=inp.horizon.value(),
            profile=str(inp.profile.currentData()),
            spot_overhead=spot / 100.0,
            compared=self._compared,
            custom_offers=self._custom,
            hybrid_option=self._hybrid_key,
        )

    def recompute(self) -> None:
        """Read every input, run the model and update every result (one pass)."""
        self._timer.stop()
        errors: dict[QWidget, str] = {}
        inputs = self.build_inputs(errors)
        runs = self.inputs.runs_per_month.value()
        comparison: CostComparison | None = None
        if inputs is not None:
            estimate = self.state.estimate
            run_hours = None if estimate is None else float(estimate.gpu_hours)
            try:
                comparison = compare(inputs, run_hours, runs if runs is not None else 0.0)
            except ValueError as exc:
                self._blame(exc, errors)
        self._publish(inputs, comparison, runs)
        self.comparison = comparison
        self._show(comparison, errors)
        self._marks.show(errors)
        self.errors = {
            getattr(w, "field", w.objectName() or type(w).__name__): m for w, m in errors.items()
        }
        self.recomputed_once()

    def _publish(
        self, inputs: CostInputs | None, comparison: CostComparison | None, runs: float | None
    ) -> None:
        self._writing = True
        try:
            if runs is not None and str(self.inputs.demand_source.currentData()) == DEMAND_RUNS:
                self.state.set_runs_per_month(runs)
            if inputs is not None:
                self.cost_state.set_inputs(inputs)
            self.cost_state.set_result(comparison)
        finally:
            self._writing = False

    # --- show -------------------------------------------------------------------------------
    def _show(self, comparison: CostComparison | None, errors: dict[QWidget, str]) -> None:
        self._show_compared()
        if comparison is None:
            reason = next(iter(errors.values()), "Fill in the inputs on the left.")
            self.headline.clear(f"Cannot compare: {reason}")
            self.table.clear(reason)
            self.plots.clear()
            self.hybrid.clear(reason)
            self.idle.clear(reason)
            self.assumptions.set_assumptions(())
            self.inputs.demand_rule.setText("")
            self._show_cloud_only(reason)
            return
        self._show_demand(comparison)
        self._show_headline(comparison)
        self._show_table(comparison)
        self._show_plots(comparison)
        self._show_hybrid(comparison)
        self._show_idle(comparison)
        self.assumptions.set_assumptions(comparison.assumptions)

    def _show_cloud_only(self, reason: str) -> None:
        """Owning cannot be computed: still rank the compared cloud prices and show what an
        idle rented GPU costs (both need no owning figure)."""
        spot = self.offers.spot_overhead.value()
        if spot is None:
            return
        offers = offers_with_custom(self._accelerator_id, self._custom)
        view = cloud_only(offers, self._compared, spot / 100.0)
        if not view.prices:
            return
        ranked = sorted(view.prices, key=lambda item: item[1])
        option, price = ranked[0]
        head = self.headline
        head.cloud_card.set_formatted(
            units.format_money(price),
            f"per useful hour: {option.short_label}",
            formula_tooltip(
                "Cloud per useful GPU-hour = price × (1 + spot overhead, spot only)",
                option.cloud.price_source,
            ),
        )
        head.verdict.setText(
            f"<span style='color:{COLORS['bad']}'>{html.escape(reason)}</span><br>"
            f"Owning needs that figure. Renting, the cheapest of the {len(ranked)} prices "
            f"compared is <b>{units.format_money(price)}</b> per useful GPU-hour "
            f"({html.escape(option.label)})."
        )
        colors = {key: option_color(i) for i, key in enumerate(self._existing_compared())}
        Cell = tuple[str, str, str | None]
        dash: Cell = (DASH, reason, None)
        blank: Cell = ("", "", None)
        rows: list[list[Cell]] = [[("Own", reason, None), dash, dash, dash, dash, blank, blank]]
        for item, per_hour in ranked:
            tip = formula_tooltip(item.label, "price × (1 + spot overhead, spot only)")
            rows.append(
                [(item.label, tip, None), (units.format_money(per_hour), tip, None)] + [dash] * 5
            )
        self.table.set_rows(rows, [OWNING_COLOR] + [colors[i.key] for i, _p in ranked])
        self.table.note.setText(f"Owning cannot be computed: {reason}")
        if view.idle is not None:
            self._show_rented_idle(view.idle)

    def _owning_tooltip(self, comparison: CostComparison, title: str) -> str:
        rows = assumption_rows(comparison.assumptions)
        return formula_tooltip(title, TCO_FORMULA, rows)

    def _show_demand(self, comparison: CostComparison) -> None:
        demand = comparison.demand
        inp = self.inputs
        source = str(inp.demand_source.currentData())
        if source != DEMAND_TYPED and demand.gpu_hours_per_month is not None:
            # Shown, not typed: four significant figures read better than every digit.
            inp.gpu_hours.set_value(float(f"{demand.gpu_hours_per_month:.4g}"))
        text = "" if source == DEMAND_TYPED else html.escape(demand.rule) + "<br>"
        fleet = comparison.fleet
        if fleet is not None:
            text += (
                f"Owning: <b>{fleet.servers} server{'s' if fleet.servers != 1 else ''}</b> of "
                f"{comparison.onprem.gpus_per_server} GPUs, busy "
                f"{busy_percent(fleet.utilization)} of hours."
            )
        inp.demand_rule.setText(text)
        if source == DEMAND_SPREAD:
            inp.demand_rule.setToolTip("GPU-hours of the run ÷ horizon months")
        elif source == DEMAND_RUNS:
            inp.demand_rule.setToolTip("GPU-hours per run × runs per month")
        else:
            inp.demand_rule.setToolTip("")

    def _show_headline(self, comparison: CostComparison) -> None:
        head = self.headline
        u = comparison.onprem.utilization
        owning = comparison.owning_per_useful_hour
        tip = self._owning_tooltip(comparison, "Owning per useful GPU-hour = C(u) / u")
        head.owning_card.set_formatted(
            units.format_money(owning),
            f"at {units.format_percent(u, 0)} busy; {units.format_money(comparison.hourly.total)}"
            " per hour it runs",
            tip,
        )
        head.utilization_note.setText(
            "Cost per useful hour and break-even use this. The owned fleet is sized so your "
            "demand keeps it at most this busy."
        )
        cheapest = comparison.cheapest
        if cheapest is None:
            reason = "Tick at least one cloud price in the table below to compare."
            head.cloud_card.clear(reason)
            head.break_even_card.clear(reason)
            head.verdict.setText(
                f"Owning costs <b>{units.format_money(owning)}</b> per useful GPU-hour at "
                f"{units.format_percent(u, 0)} utilization. {html.escape(reason)}"
            )
        else:
            spot = " incl. spot overhead" if cheapest.option.cloud.overhead else ""
            head.cloud_card.set_formatted(
                units.format_money(cheapest.per_useful_hour),
                f"per useful hour: {cheapest.option.short_label}{spot}",
                self._option_tooltip(cheapest, "Cloud per useful GPU-hour"),
            )
            self._show_break_even_card(comparison)
            head.verdict.setText(self._verdict(comparison))
        head.verdict.setToolTip(self._owning_tooltip(comparison, "Owning against renting"))
        total_tip = self._owning_tooltip(comparison, "Owning the planned fleet over the horizon")
        months = comparison.inputs.horizon_months
        if comparison.owning_horizon_usd is None or comparison.fleet is None:
            head.total_card.clear(comparison.demand.rule)
            head.total_card.set_value(DASH, "", "needs the demand per month", total_tip)
        else:
            detail = f"{comparison.fleet.gpus} GPUs, {months} months"
            if cheapest is not None and cheapest.horizon_usd is not None:
                detail += f"; cheapest renting {units.format_money(cheapest.horizon_usd)}"
            head.total_card.set_formatted(
                units.format_money(comparison.owning_horizon_usd), detail, total_tip
            )

    def _show_break_even_card(self, comparison: CostComparison) -> None:
        card = self.headline.break_even_card
        values = [r.break_even for r in comparison.options]
        paying = sorted(v for v in values if v <= 1.0)
        never = len(values) - len(paying)
        lines = [
            (r.option.label, break_even_text(r.break_even))
            for r in sorted(comparison.options, key=lambda r: r.break_even)
        ]
        tip = formula_tooltip(
            "Break-even utilization u* = (fixed + idle energy) / (P − load energy)",
            TCO_FORMULA,
            lines,
        )
        if not paying:
            card.set_value("never", "", "owning costs more than every price compared", tip)
            return
        low, high = paying[0], paying[-1]
        value = (
            units.format_percent(low, 0)
            if math.isclose(low, high, abs_tol=0.005)
            else f"{low * 100:.0f}–{units.format_percent(high, 0)}"
        )
        detail = f"busy hours, across {len(paying)} price{'s' if len(paying) != 1 else ''}"
        if never:
            detail += f"; never against {never}"
        card.set_value(value, "", detail, tip)

    def _verdict(self, comparison: CostComparison) -> str:
        u = comparison.onprem.utilization
        owning = comparison.owning_per_useful_hour
        options = comparison.options
        beaten = sum(1 for r in options if r.owning_cheaper)
        first = (
            f"At <b>{units.format_percent(u, 0)}</b> utilization owning costs "
            f"<b>{units.format_money(owning)}</b> per useful GPU-hour: cheaper than "
            f"<b>{beaten} of {len(options)}</b> cloud price{'s' if len(options) != 1 else ''} "
            "compared."
        )
        ordered = sorted(options, key=lambda r: r.break_even)
        paying = [r for r in ordered if r.break_even <= 1.0]
        never = [r for r in ordered if r.break_even > 1.0]
        parts = []
        if paying:
            low = paying[0]
            parts.append(
                f"Owning pays off above <b>{break_even_text(low.break_even)}</b> against "
                f"{html.escape(low.option.label)}"
            )
            if len(paying) > 1:
                high = paying[-1]
                parts.append(
                    f"but needs <b>{break_even_text(high.break_even)}</b> against "
                    f"{html.escape(high.option.label)}"
                )
        if never:
            names = ", ".join(html.escape(r.option.label) for r in never[:2])
            more = f" and {len(never) - 2} more" if len(never) > 2 else ""
            parts.append(f"it never pays off against {names}{more}")
        second = ("; ".join(parts) + ".") if parts else ""
        if second:
            second = second[0].upper() + second[1:]
        return f"{first} {second}".strip()

    def _option_tooltip(self, result: OptionResult, title: str) -> str:
        return formula_tooltip(
            title,
            result.at_utilization.formula,
            assumption_rows(result.at_utilization.assumptions),
        )

    def _show_table(self, comparison: CostComparison) -> None:
        months = comparison.inputs.horizon_months
        self.table.set_horizon(months)
        owning_tip = self._owning_tooltip(comparison, "Owning")
        fleet = comparison.fleet
        own_label = (
            f"Own {fleet.servers} × {comparison.onprem.gpus_per_server}-GPU server"
            f"{'s' if fleet.servers != 1 else ''}"
            if fleet is not None
            else "Own"
        )
        rows: list[list[tuple[str, str, str | None]]] = [
            [
                (own_label, owning_tip, None),
                (units.format_money(comparison.owning_per_useful_hour), owning_tip, None),
                (DASH, "Owning is the reference", None),
                (units.format_money(comparison.owning_monthly_usd), owning_tip, None),
                (units.format_money(comparison.owning_horizon_usd), owning_tip, None),
                ("", "", None),
                ("", "", None),
            ]
        ]
        colors = [OWNING_COLOR]
        for result in sorted(comparison.options, key=lambda r: r.per_useful_hour):
            tip = self._option_tooltip(result, result.option.label)
            plan_tip = (
                formula_tooltip(
                    f"{result.option.label}: the plan over {months} months",
                    result.plan.formula,
                    assumption_rows(result.plan.assumptions),
                )
                if result.plan is not None
                else comparison.demand.rule
            )
            if result.plan is None:
                payback = DASH
            elif result.payback_month is not None:
                payback = f"month {result.payback_month}"
            else:
                payback = "beyond life"
            saving = result.saving_usd
            if saving is None:
                verdict: tuple[str, str, str | None] = (DASH, comparison.demand.rule, None)
            elif saving >= 0:
                verdict = (f"Own saves {units.format_money(saving)}", plan_tip, COLORS["good"])
            else:
                verdict = (f"Rent saves {units.format_money(-saving)}", plan_tip, COLORS["warn"])
            rows.append(
                [
                    (result.option.label, tip, None),
                    (units.format_money(result.per_useful_hour), tip, None),
                    (break_even_text(result.break_even), tip, None),
                    (units.format_money(result.monthly_usd), plan_tip, None),
                    (units.format_money(result.horizon_usd), plan_tip, None),
                    (payback, plan_tip, None),
                    verdict,
                ]
            )
            colors.append(option_color(result.color_index))
        self.table.set_rows(rows, colors)
        if fleet is None:
            self.table.note.setText(f"Totals need the demand per month: {comparison.demand.rule}")
        else:
            demand = format_gpu_hours(comparison.demand.gpu_hours_per_month)
            self.table.note.setText(
                f"Per useful GPU-hour at {units.format_percent(comparison.onprem.utilization, 0)}"
                f" utilization; totals for {demand}"
                f" a month, owning {fleet.gpus} GPUs busy "
                f"{busy_percent(fleet.utilization)} of hours. Owning pays for the "
                "servers up front (again at the end of their life); payback is the first month "
                "owning has cost no more than renting."
            )

    def _show_plots(self, comparison: CostComparison) -> None:
        fleet = comparison.fleet
        fleet_cost = None if fleet is None else _per_useful_at(comparison, fleet.utilization)
        self.plots.set_curves(
            comparison.curve_utilization,
            comparison.owning_curve,
            comparison.onprem.utilization,
            comparison.owning_per_useful_hour,
            [
                (r.option.label, option_color(r.color_index), r.per_useful_hour, r.break_even)
                for r in comparison.options
            ],
            None if fleet is None else fleet.utilization,
            fleet_cost,
        )
        self.plots.curve_plot.setToolTip(
            self._owning_tooltip(comparison, "Cost per useful GPU-hour against utilization")
        )
        self.plots.set_cumulative(
            comparison.months,
            comparison.owning_cumulative,
            [
                (
                    r.option.label,
                    option_color(r.color_index),
                    r.plan.cumulative.cloud_usd,
                    r.payback_month,
                )
                for r in comparison.options
                if r.plan is not None
            ],
        )
        self.plots.cumulative_plot.setToolTip(
            self._owning_tooltip(comparison, "Cumulative cost: capex up front, then monthly")
        )

    def _show_hybrid(self, comparison: CostComparison) -> None:
        panel = self.hybrid
        combo = panel.option_combo
        chosen = comparison.hybrid_option
        with blocked(combo):
            combo.clear()
            for result in comparison.options:
                combo.addItem(result.option.label, _key_text(result.option.key))
            if chosen is not None:
                combo.setCurrentIndex(combo.findData(_key_text(chosen.option.key)))
        hybrid = comparison.hybrid
        if hybrid is None or chosen is None:
            panel.clear(
                "Needs the demand per month and at least one cloud price."
                if chosen is None
                else comparison.demand.rule
            )
            return
        months = comparison.inputs.horizon_months
        per_server = comparison.onprem.gpus_per_server
        tip = formula_tooltip("Hybrid plan", hybrid.formula, assumption_rows(hybrid.assumptions))
        servers = hybrid.best_gpus // per_server
        if hybrid.best_gpus == 0:
            lead = (
                f"<b>Rent everything</b> on {html.escape(chosen.option.label)}: owned GPUs would "
                f"sit idle too often for this demand profile."
            )
        elif hybrid.best_gpus >= hybrid.all_owned_gpus:
            lead = (
                f"<b>Own it all: {hybrid.best_gpus} GPUs</b> ({servers} server"
                f"{'s' if servers != 1 else ''}) cover even the busiest month."
            )
        else:
            lead = (
                f"<b>Own {hybrid.best_gpus} GPUs</b> ({servers} server"
                f"{'s' if servers != 1 else ''}) and rent the rest on "
                f"{html.escape(chosen.option.label)}."
            )
        panel.summary.setText(
            f"{lead}<br><span style='color:{COLORS['muted']}'>Over {months} months: "
            f"<b>{units.format_money(hybrid.best_cost_usd)}</b>, against "
            f"{units.format_money(hybrid.all_cloud_cost_usd)} renting everything and "
            f"{units.format_money(hybrid.all_owned_cost_usd)} owning enough for the peak "
            f"({hybrid.all_owned_gpus} GPUs).</span>"
        )
        panel.summary.setToolTip(tip)
        if hybrid.best_gpus == 0:
            detail = "renting everything is cheapest"
        elif hybrid.best_gpus >= hybrid.all_owned_gpus:
            detail = "owning for the busiest month is cheapest"
        else:
            detail = (
                f"and {units.format_money(hybrid.saving_vs_all_owned_usd)} less than owning "
                "for the busiest month"
            )
        panel.saving_card.set_formatted(
            units.format_money(hybrid.saving_vs_all_cloud_usd), detail, tip
        )
        panel.set_bars(
            hybrid.owned_gpu_hours, hybrid.cloud_gpu_hours, option_color(chosen.color_index)
        )
        panel.plot.setToolTip(
            formula_tooltip(
                "Demand per month: owned (dark) and rented (colour)",
                hybrid.formula,
                assumption_rows(hybrid.assumptions),
            )
        )

    def _show_idle(self, comparison: CostComparison) -> None:
        panel = self.idle
        rented = comparison.rented_idle
        if rented is None:
            panel.rented.setText("Tick a cloud price to see what an idle rented GPU costs.")
            panel.rented.setToolTip("")
        else:
            self._show_rented_idle(rented)
        owned = comparison.owned_idle
        if owned is None or comparison.fleet is None:
            panel.owned.setText(
                "Owned GPUs cost the same whether busy or not: enter the demand to see how "
                "much of your fleet would sit idle."
            )
            panel.owned.setToolTip("")
            return
        idle_pct = units.format_percent(owned.idle_fraction, 0 if owned.idle_fraction < 0.99 else 1)
        panel.owned.setText(
            f"Your {owned.gpus} owned GPUs would be idle {idle_pct} of the time. An idle owned "
            f"GPU still costs {units.format_money(owned.price_per_hour)} an hour (depreciation, "
            f"operations, idle power): <b>{units.format_money(owned.monthly_usd)} a month</b> "
            "for the fleet."
        )
        panel.owned.setToolTip(
            formula_tooltip(
                "Idle owned GPUs",
                f"{owned.formula}; price = fixed + idle energy per GPU-hour",
                assumption_rows(owned.assumptions),
            )
        )

    def _show_rented_idle(self, rented: tuple[IdleWaste, IdleWaste]) -> None:
        panel = self.idle
        name = html.escape(self._accelerator_name())
        low, high = rented
        if math.isclose(low.price_per_hour, high.price_per_hour):
            prices = units.format_money(low.price_per_hour)
            monthly = units.format_money(low.monthly_usd)
        else:
            prices = (
                f"{units.format_money(low.price_per_hour)}–"
                f"{units.format_money(high.price_per_hour)}"
            )
            monthly = (
                f"{units.format_money(low.monthly_usd)}–{units.format_money(high.monthly_usd)}"
            )
        panel.rented.setText(
            f"A rented {name} left running idle is billed in full: at {prices} per GPU-hour "
            f"that is <b>{monthly} a month</b> per GPU. Stop instances nobody is using."
        )
        panel.rented.setToolTip(
            formula_tooltip("Idle cloud GPU", high.formula, assumption_rows(high.assumptions))
        )

    def marked_fields(self) -> dict[QWidget, str]:
        """Widgets currently marked invalid, with the reason."""
        return self._marks.marked()

    # --- for tests and the main window ----------------------------------------------------------
    @property
    def accelerator_id(self) -> str:
        return self._accelerator_id

    @property
    def compared(self) -> tuple[OptionKey, ...]:
        return self._compared

    @property
    def custom_offers(self) -> tuple[CloudOffer, ...]:
        return self._custom


def busy_percent(fraction: float) -> str:
    """A utilization with enough digits to tell a nearly idle fleet from an idle one."""
    digits = 0 if fraction >= 0.1 else (1 if fraction >= 0.01 else 2)
    return units.format_percent(fraction, digits)


def _per_useful_at(comparison: CostComparison, utilization: float) -> float:
    """Owning per useful GPU-hour at another utilization (the fleet's), from the model."""
    from desktopapp.model.tco import onprem_cost_per_useful_hour

    return float(onprem_cost_per_useful_hour(comparison.onprem, utilization)[0])
