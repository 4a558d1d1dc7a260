"""The Cost tab's results: a comparison shown in the panels (headline, table, plots, hybrid,
idle cost, assumptions). Every text and row comes from the presenter
(:mod:`desktopapp.application.cost`); this module only puts them into widgets."""

from __future__ import annotations

from desktopapp.application import cost as presenter
from desktopapp.application import cost_hybrid as hybrid_presenter
from desktopapp.application.cost import option_color
from desktopapp.application.text import assumption_rows
from desktopapp.model.planning import DEMAND_TYPED, CostComparison, OptionKey
from desktopapp.model.tco import IdleWaste
from desktopapp.model.units import DASH
from desktopapp.ui.common.marking import blocked
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.common.theme import COLORS
from desktopapp.ui.cost.inputs import CostInputsPanel
from desktopapp.ui.cost.results import (
    AssumptionsPanel,
    ComparisonPanel,
    HeadlinePanel,
    HybridPanel,
    IdlePanel,
    PlotsPanel,
)


def key_text(key: OptionKey) -> str:
    """A compared price as the hybrid picker's item data."""
    return f"{key[0]}|{key[1]}"


class ComparisonView:
    """Shows a :class:`CostComparison` in the tab's result panels."""

    def __init__(
        self,
        inputs: CostInputsPanel,
        headline: HeadlinePanel,
        table: ComparisonPanel,
        plots: PlotsPanel,
        hybrid: HybridPanel,
        idle: IdlePanel,
        assumptions: AssumptionsPanel,
    ) -> None:
        self.inputs = inputs
        self.headline = headline
        self.table = table
        self.plots = plots
        self.hybrid = hybrid
        self.idle = idle
        self.assumptions = assumptions

    def show(self, comparison: CostComparison, source: str, accelerator_name: str) -> None:
        self._show_demand(comparison, source)
        self._show_headline(comparison)
        self._show_table(comparison)
        self._show_plots(comparison)
        self._show_hybrid(comparison)
        self._show_idle(comparison, accelerator_name)
        self.assumptions.set_assumptions(presenter.fleet_assumptions(comparison))

    def set_table(self, view: presenter.TableView) -> None:
        self.table.set_rows([list(row) for row in view.rows], list(view.colors))
        self.table.note.setText(view.note)

    def _show_demand(self, comparison: CostComparison, source: str) -> None:
        inp = self.inputs
        demand = comparison.demand.gpu_hours_per_month
        if source != DEMAND_TYPED and demand is not None:
            # Shown, not typed: four significant figures read better than every digit.
            inp.gpu_hours.set_value(float(f"{demand:.4g}"))
        text, tip = presenter.demand_rule_view(comparison, source)
        inp.demand_rule.setText(text)
        inp.demand_rule.setToolTip(tip)

    def _show_headline(self, comparison: CostComparison) -> None:
        head = self.headline
        head.owning_card.show_view(presenter.owning_card(comparison))
        head.utilization_note.setText(presenter.utilization_note(comparison))
        recommendation = presenter.recommendation_html(comparison)
        head.recommendation.setText(recommendation)
        head.recommendation.setVisible(bool(recommendation))
        cheapest = comparison.cheapest
        if cheapest is None:
            reason = "Tick at least one cloud price in the table below to compare."
            head.cloud_card.clear(reason)
            head.break_even_card.clear(reason)
        else:
            head.cloud_card.show_view(presenter.cloud_card(cheapest))
            head.break_even_card.show_view(presenter.break_even_card(comparison))
        head.verdict.setText(presenter.verdict_html(comparison))
        head.verdict.setToolTip(presenter.owning_tooltip(comparison, "Owning against renting"))
        total = presenter.total_card(comparison)
        if total is None:
            tip = presenter.owning_tooltip(comparison, "Owning the planned fleet over the horizon")
            head.total_card.clear(comparison.demand.rule)
            head.total_card.set_value(DASH, "", "needs the demand per month", tip)
        else:
            head.total_card.show_view(total)

    def _show_table(self, comparison: CostComparison) -> None:
        self.table.set_horizon(comparison.inputs.horizon_months)
        self.set_table(presenter.table_view(comparison, COLORS))

    def _show_plots(self, comparison: CostComparison) -> None:
        fleet = comparison.fleet
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
            hybrid_presenter.fleet_cost_per_useful_hour(comparison),
        )
        self.plots.curve_plot.setToolTip(
            presenter.owning_tooltip(comparison, "Cost per useful GPU-hour against utilization")
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
            presenter.owning_tooltip(comparison, "Cumulative cost: capex up front, then monthly")
        )

    def _show_hybrid(self, comparison: CostComparison) -> None:
        panel = self.hybrid
        combo = panel.option_combo
        chosen = comparison.hybrid_option
        with blocked(combo):
            combo.clear()
            for result in comparison.options:
                combo.addItem(result.option.label, key_text(result.option.key))
            if chosen is not None:
                combo.setCurrentIndex(combo.findData(key_text(chosen.option.key)))
        view = hybrid_presenter.hybrid_view(comparison, COLORS["muted"])
        if isinstance(view, str) or comparison.hybrid is None or chosen is None:
            panel.clear(view if isinstance(view, str) else comparison.demand.rule)
            return
        hybrid = comparison.hybrid
        panel.summary.setText(view.summary)
        panel.summary.setToolTip(view.tooltip)
        panel.saving_card.show_view(view.saving)
        panel.set_bars(
            view.owned_gpu_hours, view.rented_gpu_hours, option_color(chosen.color_index)
        )
        panel.plot.setToolTip(
            formula_tooltip(
                "Demand per month: owned (dark) and rented (colour)",
                hybrid.formula,
                assumption_rows(hybrid.assumptions),
            )
        )

    def _show_idle(self, comparison: CostComparison, name: str) -> None:
        panel = self.idle
        rented = comparison.rented_idle
        if rented is None:
            panel.rented.setText("Tick a cloud price to see what an idle rented GPU costs.")
            panel.rented.setToolTip("")
        else:
            self.show_rented_idle(rented, name)
        text, tip = hybrid_presenter.owned_idle_view(comparison)
        panel.owned.setText(text)
        panel.owned.setToolTip(tip)

    def show_rented_idle(self, rented: tuple[IdleWaste, IdleWaste], name: str) -> None:
        text, tip = hybrid_presenter.rented_idle_view(rented, name)
        self.idle.rented.setText(text)
        self.idle.rented.setToolTip(tip)
