"""Monitor tab: live GPU, CPU, memory, disk and network over time, a bottleneck diagnosis in
words and the money idle GPUs burn; sessions can be recorded and exported to CSV.

Follows the tab contract in :mod:`desktopapp.ui`: ``create_tab(state, parent)``. Importing this
package is cheap: Qt widgets, pyqtgraph and the samplers load inside :func:`create_tab`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.state import AppState


def create_tab(state: AppState, parent: QWidget | None = None) -> QWidget:
    """The tab widget (``ready`` signal, ``is_ready()`` and ``shutdown()`` included)."""
    from desktopapp.ui.monitor.tab import create_monitor_tab

    return create_monitor_tab(state, parent)
