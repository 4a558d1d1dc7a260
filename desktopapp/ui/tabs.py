"""The tab protocol and the four tab factories, imported for real (no dynamic lookup).

Each factory imports its tab package inside the function, so start-up builds only the tab that
is shown first and never imports the others (nor pyqtgraph, torch or NVML) on the way.
:class:`TabView` is what the main window calls on a tab; :class:`RecomputingTab` and the
Hardware and Monitor tabs implement it, and ``tests/ui/test_main_window.py`` checks each one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.state import AppState

TabFactory = Callable[["AppState", "QWidget | None"], "QWidget"]


@runtime_checkable
class TabView(Protocol):
    """What the window asks of a tab's widget (besides its ``ready`` signal)."""

    def is_ready(self) -> bool:
        """The tab has shown its first data (``--screenshot`` waits for it)."""
        ...

    def shutdown(self) -> None:
        """Stop timers and workers; called once when the window closes."""
        ...


@runtime_checkable
class Flushable(Protocol):
    def flush(self) -> None:
        """Run a pending recompute now (after a scenario was applied; tests)."""
        ...


def _estimate(state: AppState, parent: QWidget | None) -> QWidget:
    from desktopapp.ui.estimate import create_tab

    return create_tab(state, parent)


def _cost(state: AppState, parent: QWidget | None) -> QWidget:
    from desktopapp.ui.cost import create_tab

    return create_tab(state, parent)


def _hardware(state: AppState, parent: QWidget | None) -> QWidget:
    from desktopapp.ui.hardware import create_tab

    return create_tab(state, parent)


def _monitor(state: AppState, parent: QWidget | None) -> QWidget:
    from desktopapp.ui.monitor import create_tab

    return create_tab(state, parent)


FACTORIES: Mapping[str, TabFactory] = {
    "estimate": _estimate,
    "cost": _cost,
    "hardware": _hardware,
    "monitor": _monitor,
}
