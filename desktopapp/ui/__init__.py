"""Qt user interface: the main window and one subpackage per tab.

Tab contract
============

Every tab lives in ``desktopapp/ui/<name>/`` and its ``__init__.py`` exposes::

    def create_tab(state: AppState, parent: QWidget | None = None) -> QWidget: ...

- ``state`` is the window's shared :class:`desktopapp.ui.state.AppState`. A tab reads and writes
  the planning state only through its API (``set_workload``, ``set_estimate``,
  ``set_custom_accelerator``, ``show_status`` …) and listens to its signals.
- The main window builds tabs through :data:`desktopapp.ui.tabs.FACTORIES` (real imports,
  inside functions): the visible tab at start, the others the first time they are shown.
  Importing a tab package must be cheap: no torch, no NVML, no pyqtgraph at module level
  (import them inside the functions that need them).
- The widget follows :class:`desktopapp.ui.tabs.TabView`: ``ready`` (a ``Signal()``),
  ``is_ready() -> bool`` (the tab has shown its first data; ``desktopapp --screenshot`` waits
  for it) and ``shutdown()`` (called once when the window closes: stop timers and workers,
  registered in :mod:`desktopapp.ui.common.workers`). ``flush()`` (:class:`~desktopapp.ui.tabs.
  Flushable`) runs a pending recompute.

Policy and texts live in the Qt-free application layer (:mod:`desktopapp.application`); a tab
puts them into widgets and forwards edits. Tabs never compute formulas themselves; they call
the model layer (``desktopapp.model``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TabInfo:
    """One tab of the main window: package name, title and a line for the placeholder."""

    name: str  # package under desktopapp.ui, also the --tab value
    title: str
    summary: str
    shortcut: str  # View menu shortcut


TABS: tuple[TabInfo, ...] = (
    TabInfo(
        "estimate",
        "Workload estimation",
        "Compute, wall time, cost and memory of a training or inference workload.",
        "Ctrl+1",
    ),
    TabInfo(
        "cost",
        "Cloud vs on-prem",
        "Compare renting cloud GPUs with buying and running your own: break-even utilization, "
        "total cost of ownership and hybrid plans.",
        "Ctrl+2",
    ),
    TabInfo(
        "hardware",
        "Hardware",
        "Detect the accelerators in this machine, benchmark what they deliver and feed the "
        "measured throughput back into your estimates.",
        "Ctrl+3",
    ),
    TabInfo(
        "monitor",
        "Monitor",
        "Watch utilization, memory, power and temperature while a job runs, with a diagnosis of "
        "what is holding it back.",
        "Ctrl+4",
    ),
)

TAB_NAMES: tuple[str, ...] = tuple(tab.name for tab in TABS)


def tab_info(name: str) -> TabInfo:
    for tab in TABS:
        if tab.name == name:
            return tab
    raise ValueError(f"tab: must be one of {', '.join(TAB_NAMES)}, got {name!r}")
