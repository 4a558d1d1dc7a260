"""Cloud vs on-prem tab: rent or buy, and at what utilization owning pays off.

Follows the tab contract in :mod:`desktopapp.ui`: ``create_tab(state, parent)``. The cost
inputs and results are kept in the window's plan (``AppState.plan``, Qt-free), seen through
``AppState.cost`` (:class:`desktopapp.ui.state.CostState`, Qt signals). Planning is
:mod:`desktopapp.model.planning`; texts come from :mod:`desktopapp.application.cost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.state import AppState


def create_tab(state: AppState, parent: QWidget | None = None) -> QWidget:
    """The tab widget (``ready`` signal, ``is_ready()`` and ``shutdown()`` included)."""
    from desktopapp.ui.cost.tab import CostTab

    return CostTab(state, parent)
