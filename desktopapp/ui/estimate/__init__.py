"""Workload estimation tab: compute, wall time, cost, memory and inference of a workload.

Follows the tab contract in :mod:`desktopapp.ui`: ``create_tab(state, parent)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.state import AppState


def create_tab(state: AppState, parent: QWidget | None = None) -> QWidget:
    """The tab widget (``ready`` signal, ``is_ready()`` and ``shutdown()`` included)."""
    from desktopapp.ui.estimate.tab import EstimateTab

    return EstimateTab(state, parent)
