"""The Cost tab's part of the shared planning state: ``AppState.cost``, a Qt adapter
(:class:`~desktopapp.ui.state.CostState`) over the cost plan held by the Qt-free
:class:`~desktopapp.application.plan.PlanState`.

Signals (emitted only when something changed):

- ``inputs_changed(object)``: new :class:`~desktopapp.model.planning.CostInputs`.
- ``result_changed(object)``: new :class:`~desktopapp.model.planning.CostComparison`, or
  ``None`` while the inputs cannot be compared.
"""

from __future__ import annotations

from desktopapp.ui.state import AppState, CostState

__all__ = ["CostState", "cost_state"]


def cost_state(state: AppState) -> CostState:
    """The window's cost state (``state.cost``)."""
    return state.cost
