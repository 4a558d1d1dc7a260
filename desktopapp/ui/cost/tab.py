"""Cloud vs on-prem tab: rent or buy, and at what utilization does owning pay off?

Inputs on the left (demand, servers), the verdict, plots, the comparison table, the hybrid
plan, the idle-cost warning and the cloud-price table on the right. Edits are coalesced by a
short single-shot timer; :meth:`CostTab.recompute` is the one handler that reads every field,
builds the model inputs (:class:`~desktopapp.model.planning.CostInputs`), runs the comparison
and shows it. A ``ValueError`` from the model names a field; the tab marks that field and shows
"—" for what cannot be computed. Everything takes milliseconds, so it runs on the GUI thread.

Shared state: the Workload tab's accelerator and estimate arrive through ``AppState`` signals;
the runs per month are ``AppState.runs_per_month``; the cost inputs and the latest comparison
live in the window's plan, seen through ``AppState.cost``. Widgets → model is
:mod:`desktopapp.ui.cost.form`; results are shown by :mod:`desktopapp.ui.cost.view` with the
texts of :mod:`desktopapp.application.cost`.
"""

from __future__ import annotations

import html
from datetime import date

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QScrollArea, QWidget

from desktopapp.application import cost as presenter
from desktopapp.application.cost import option_color
from desktopapp.application.cost_controller import CostController
from desktopapp.model.catalog import CloudOffer, accelerator_catalog
from desktopapp.model.planning import (
    DEFAULT_ACCELERATOR,
    DEFAULT_GPU_HOURS_PER_MONTH,
    DEMAND_RUNS,
    DEMAND_TYPED,
    CostComparison,
    CostInputs,
    OptionKey,
    cloud_only,
    compare,
    owning_defaults,
)
from desktopapp.ui.common.layouts import scrolling_column, stack_when_narrow, two_panes
from desktopapp.ui.common.marking import FieldMarks, blocked, read_quantity, select_data
from desktopapp.ui.common.recompute import RecomputingTab
from desktopapp.ui.common.theme import COLORS
from desktopapp.ui.cost.form import CostForm
from desktopapp.ui.cost.inputs import CostInputsPanel
from desktopapp.ui.cost.offer_dialog import CustomOfferDialog
from desktopapp.ui.cost.offers import OffersPanel
from desktopapp.ui.cost.results import (
    AssumptionsPanel,
    ComparisonPanel,
    HeadlinePanel,
    HybridPanel,
    IdlePanel,
    PlotsPanel,
)
from desktopapp.ui.cost.state import CostState, cost_state
from desktopapp.ui.cost.view import ComparisonView
from desktopapp.ui.state import AppState


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
        # the tab's policy, Qt-free (application/cost_controller.py)
        self.policy = CostController()
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
        self.form = CostForm(self.inputs, self.headline, self.offers)
        self.view = ComparisonView(
            self.inputs,
            self.headline,
            self.table,
            self.plots,
            self.hybrid,
            self.idle,
            self.assumptions,
        )
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
        # Hybrid and idle side by side while both fit, one under the other otherwise (no
        # sideways scrolling from 1280 px, issue 16).
        row = stack_when_narrow((self.hybrid, self.idle))
        row.setStretchFactor(0, 3)
        row.setStretchFactor(1, 2)
        self.hybrid_row = row
        # While a Workload field is invalid the demand below is the last valid workload's:
        # said at the top, never served silently (issue 21).
        self.not_current = QLabel()
        self.not_current.setObjectName("Verdict")
        self.not_current.setProperty("verdict", "bad")
        self.not_current.setWordWrap(True)
        self.not_current.setVisible(False)
        self.results_scroll: QScrollArea = scrolling_column(
            (
                self.not_current,
                self.headline,
                self.plots,
                self.table,
                row,
                self.offers,
                self.assumptions,
            )
        )
        # The inputs above the results when both do not fit side by side (1024 px in
        # presentation mode), instead of a results pane that scrolls sideways (issue 16).
        self.splitter = two_panes(self, self.inputs, self.results_scroll, (420, 980), stacking=True)

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
        self.state.validity_changed.connect(lambda _reasons: self._show_currency())
        self.state.runs_per_month_changed.connect(self._on_state_runs)
        self.cost_state.inputs_changed.connect(self._on_cost_state_inputs)

    # --- defaults and state → widgets ----------------------------------------------------------
    def _set_generic_defaults(self) -> None:
        source = self.policy.generic_defaults(self.state.estimate is not None)
        self.form.show_generic_defaults(
            source, DEFAULT_GPU_HOURS_PER_MONTH, self.state.runs_per_month
        )
        self._refresh_demand_fields()

    def _workload_accelerator(self) -> str | None:
        acc_id = self.state.accelerator_id
        if acc_id and self._catalog.find(acc_id) is not None:
            return self._catalog.get(acc_id).id
        return None

    def _set_accelerator(self, acc_id: str) -> None:
        """Switch to an accelerator: its catalog server, power and cloud offers."""
        self.policy.switch_accelerator(acc_id)
        self.inputs.accelerator.set_accelerator_id(self._accelerator_id)
        defaults = owning_defaults(self._accelerator_id)
        with blocked(self.inputs.gpus_per_server):
            self.inputs.gpus_per_server.setValue(defaults.gpus_per_server)
        self._apply_owning_defaults()
        self._refresh_offers()
        self._refresh_accelerator_note()

    def _accelerator_name(self) -> str:
        acc = self._catalog.find(self._accelerator_id)
        return acc.name if acc is not None else self._accelerator_id

    def _apply_owning_defaults(self) -> None:
        """Catalog server price and power for the GPUs per server, unless typed in."""
        defaults = owning_defaults(self._accelerator_id, self.inputs.gpus_per_server.value())
        self.form.show_owning(self.policy.owning.view(defaults, COLORS))

    @property
    def _accelerator_id(self) -> str:
        return self.policy.accelerator_id

    def _refresh_offers(self) -> None:
        self.offers.set_offers(self.policy.offers(), self._accelerator_name())
        self._show_compared()

    def _show_compared(self) -> None:
        colors = {key: option_color(i) for i, key in enumerate(self._existing_compared())}
        self.offers.set_compared(self.policy.compared, colors)

    def _existing_compared(self) -> list[OptionKey]:
        return self.policy.existing_compared()

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
        self.form.show_demand_source()

    def _apply_inputs(self, inputs: CostInputs) -> None:
        """Show inputs set from outside (a scenario, another view of the state). Their demand
        source is a choice made there: a workload estimate arriving later does not change it."""
        onprem = inputs.onprem
        acc = self._catalog.find(inputs.accelerator_id)
        acc_id = acc.id if acc is not None else inputs.accelerator_id
        defaults = owning_defaults(acc_id, onprem.gpus_per_server)
        self.policy.apply_inputs(
            inputs,
            presenter.OwningFields.for_values(
                defaults, float(onprem.server_price), float(onprem.power_kw)
            ),
        )
        self.inputs.accelerator.set_accelerator_id(self._accelerator_id)
        self.form.show_inputs(inputs)
        self._apply_owning_defaults()
        self._refresh_offers()
        self._refresh_accelerator_note()
        self._refresh_demand_fields()

    # --- user actions ----------------------------------------------------------------------------
    def _on_accelerator_chosen(self, acc_id: str) -> None:
        self._set_accelerator(acc_id)
        self.schedule()

    def _on_demand_source_chosen(self, _source: str) -> None:
        self.policy.demand_source_chosen()
        self._refresh_demand_fields()
        self.schedule()

    def _on_gpus_per_server(self, _value: int) -> None:
        self._apply_owning_defaults()
        self.schedule()

    def _on_server_price_typed(self) -> None:
        self.policy.server_price_typed(True)
        self._apply_owning_defaults()
        self.schedule()

    def _on_server_price_reset(self) -> None:
        self.policy.server_price_typed(False)
        self._apply_owning_defaults()
        self.schedule()

    def _on_power_typed(self) -> None:
        self.policy.power_typed(True)
        self._apply_owning_defaults()
        self.schedule()

    def _on_power_reset(self) -> None:
        self.policy.power_typed(False)
        self._apply_owning_defaults()
        self.schedule()

    def _on_compare_toggled(self, offer_id: str, pricing: str, checked: bool) -> None:
        self.set_compared(offer_id, pricing, checked)

    def set_compared(self, offer_id: str, pricing: str, checked: bool) -> None:
        """Compare (or stop comparing) one price of one offer."""
        self.policy.set_compared((offer_id, pricing), checked)
        self._show_compared()
        self.schedule()

    def reset_comparison(self) -> None:
        self.policy.reset_comparison()
        self._show_compared()
        self.schedule()

    def _on_hybrid_chosen(self, index: int) -> None:
        self.policy.choose_hybrid(str(self.hybrid.option_combo.itemData(index) or ""))
        self.schedule()

    def open_add_dialog(self) -> CustomOfferDialog:
        """The dialog for a user's own offer (window-modal); adds the offer when accepted."""
        existing = [o.id for o in self.policy.custom]
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
        self.policy.add_custom_offer(offer)
        self._refresh_offers()
        self.state.show_status(f"Added {offer.name} to the cloud prices.")
        self.schedule()

    def remove_custom_offer(self, offer_id: str) -> None:
        self.policy.remove_custom_offer(offer_id)
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
        if self.policy.follows_new_estimate(
            estimate is not None, str(inp.demand_source.currentData())
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
    def build_inputs(self, errors: dict[QWidget, str]) -> CostInputs | None:
        """Read every field into :class:`CostInputs` (None, with ``errors``, when invalid)."""
        inp = self.inputs
        onprem = self.form.onprem(errors, self.policy.owning)
        source = str(inp.demand_source.currentData())
        if source == DEMAND_TYPED:
            self.policy.typed_gpu_hours = read_quantity(inp.gpu_hours, errors)
        # With another source the field only shows the demand worked out from the workload:
        # the inputs (and a scenario file) keep the figure last typed in or opened.
        if source == DEMAND_RUNS:
            read_quantity(inp.runs_per_month, errors)
        spot = read_quantity(self.offers.spot_overhead, errors)
        if onprem is None or spot is None:
            return None
        return self.policy.inputs(
            onprem, source, inp.horizon.value(), str(inp.profile.currentData()), spot / 100.0
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
                comparison = compare(
                    inputs,
                    run_hours,
                    runs if runs is not None else 0.0,
                    errors.get(self.inputs.gpu_hours),  # a refused figure: say why, not "type"
                )
            except ValueError as exc:
                self.form.blame(exc, errors)
        self._publish(inputs, comparison, runs)
        self.comparison = comparison
        self._show(comparison, errors)
        self._show_currency()
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
        source = str(self.inputs.demand_source.currentData())
        self.view.show(comparison, source, self._accelerator_name())

    def _show_currency(self) -> None:
        """The banner saying the figures are not current, and why (hidden when current)."""
        text = self.state.plan.not_current_text()
        self.not_current.setText(
            f"Not current: {text}. The figures below are for the last valid workload."
            if text
            else ""
        )
        self.not_current.setVisible(bool(text))

    def _show_cloud_only(self, reason: str) -> None:
        """Owning cannot be computed: still rank the compared cloud prices and show what an
        idle rented GPU costs (both need no owning figure)."""
        spot = self.offers.spot_overhead.value()
        if spot is None:
            return
        offers = self.policy.offers()
        view = cloud_only(offers, self.policy.compared, spot / 100.0)
        colors = {key: option_color(i) for i, key in enumerate(self._existing_compared())}
        shown = presenter.cloud_only_view(view, reason, colors, COLORS["bad"])
        if shown is None:
            return
        self.headline.cloud_card.show_view(shown.card)
        self.headline.verdict.setText(shown.verdict)
        self.view.set_table(shown.table)
        if view.idle is not None:
            self.view.show_rented_idle(view.idle, self._accelerator_name())

    def marked_fields(self) -> dict[QWidget, str]:
        """Widgets currently marked invalid, with the reason."""
        return self._marks.marked()

    # --- for tests and the main window ----------------------------------------------------------
    @property
    def accelerator_id(self) -> str:
        return self._accelerator_id

    @property
    def compared(self) -> tuple[OptionKey, ...]:
        return self.policy.compared

    @property
    def custom_offers(self) -> tuple[CloudOffer, ...]:
        return self.policy.custom
