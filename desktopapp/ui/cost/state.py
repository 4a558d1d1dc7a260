"""The Cost tab's part of the shared planning state.

:class:`CostState` is a child ``QObject`` of the window's :class:`~desktopapp.ui.state.AppState`
(one per window; :func:`cost_state` finds or creates it), so every tab and the scenario code can
reach the cost plan through the ``AppState`` they already hold, and ``AppState`` itself needed no
change. It holds valid inputs only (a field being edited into something invalid leaves the last
valid inputs in place) and the latest comparison.

Signals (emitted only when something changed):

- ``inputs_changed(object)``: new :class:`~desktopapp.ui.cost.planning.CostInputs`.
- ``result_changed(object)``: new :class:`~desktopapp.ui.cost.planning.CostComparison`, or
  ``None`` while the inputs cannot be compared.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktopapp.model.scenario import DEFAULT_RUNS_PER_MONTH, CostPlan
from desktopapp.ui.cost.planning import CostComparison, CostInputs
from desktopapp.ui.state import AppState

OBJECT_NAME = "cost_state"


class CostState(QObject):
    inputs_changed = Signal(object)
    result_changed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(OBJECT_NAME)
        self._inputs: CostInputs | None = None
        self._result: CostComparison | None = None

    @property
    def inputs(self) -> CostInputs | None:
        return self._inputs

    def set_inputs(self, inputs: CostInputs) -> bool:
        """Replace the inputs; returns whether they changed."""
        if inputs == self._inputs:
            return False
        self._inputs = inputs
        self.inputs_changed.emit(inputs)
        return True

    @property
    def result(self) -> CostComparison | None:
        return self._result

    def set_result(self, result: CostComparison | None) -> None:
        if result is self._result:
            return
        self._result = result
        self.result_changed.emit(result)

    def plan(self, runs_per_month: float = DEFAULT_RUNS_PER_MONTH) -> CostPlan | None:
        """The cost section of a scenario file (None before the tab set any inputs);
        ``runs_per_month`` is the window's (``AppState.runs_per_month``)."""
        if self._inputs is None:
            return None
        hybrid = None
        if self._result is not None and self._result.hybrid_option is not None:
            hybrid = self._result.hybrid_option.option.key
        return self._inputs.to_plan(hybrid, runs_per_month)


def cost_state(state: AppState) -> CostState:
    """The window's cost state, created on first use as a child of ``state``."""
    found = state.findChild(CostState, OBJECT_NAME)
    if isinstance(found, CostState):
        return found
    return CostState(state)
