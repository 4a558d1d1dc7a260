"""Hardware tab: what this machine has, what it really delivers against its datasheet and
earlier runs, and the measured throughput handed to the Workload tab.

Follows the tab contract in :mod:`desktopapp.ui`: ``create_tab(state, parent)``. Creating the
tab imports neither torch nor pyqtgraph: CPU facts show at once, NVML is read in a worker,
torch is probed in a worker after the tab is first shown, and the plot is built on the first
result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.state import AppState


def create_tab(state: AppState, parent: QWidget | None = None) -> QWidget:
    """The tab widget (``ready`` signal, ``is_ready()`` and ``shutdown()`` included)."""
    from desktopapp.ui.hardware.tab import HardwareTab

    return HardwareTab(state, parent)
