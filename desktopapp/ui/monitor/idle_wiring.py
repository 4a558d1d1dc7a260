"""The idle-cost meter's wiring: the price typed in the panel, "use workload price", the alert
minutes and the Workload tab's price go to the
:class:`~desktopapp.application.monitor_controller.MonitorController`, which reprices the
session; what it answers (:class:`~desktopapp.application.monitor_views.IdleView`, the
repriced tables) is shown in the panel, the alert banner and the tables box."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QWidget

from desktopapp.application.monitor import IdlePrice
from desktopapp.application.monitor_controller import MonitorController
from desktopapp.application.monitor_views import (
    IdleView,
)
from desktopapp.ui.monitor.assembly import MonitorWidgets
from desktopapp.ui.state import AppState


class IdleCostWiring(QObject):
    """Forwards the edits and renders the answers (see the module docstring)."""

    def __init__(
        self,
        monitor: MonitorController,
        state: AppState,
        widgets: MonitorWidgets,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._monitor = monitor
        self._widget = parent
        self._panel = widgets.side.idle_panel
        self._alert = widgets.alert_banner
        self._tables = widgets.tables
        self._panel.price_changed.connect(self._on_price_typed)
        self._panel.price_reset.connect(self._on_price_reset)
        self._panel.alert_changed.connect(self._on_alert_changed)
        self._alert.dismissed.connect(monitor.dismiss_alert)
        state.estimate_changed.connect(self._on_estimate_changed)
        state.workload_changed.connect(self.follow_workload)

    def show(self, view: IdleView) -> None:
        self._panel.show_report(view.report, view.idle_threshold_percent)
        self._alert.show_view(view.alert)
        if view.flash:
            QApplication.alert(self._widget.window(), 0)

    def follow_workload(self) -> None:
        """Show the Workload tab's price, unless a typed one overrides it."""
        price = self._monitor.follow_workload()
        if price is not None:
            self._show_price(price)

    def _on_estimate_changed(self, _estimate: object) -> None:
        self.follow_workload()  # the Workload tab sets the price before the estimate

    def _on_price_typed(self, value: float) -> None:
        self._show_price(self._monitor.type_price(value))

    def _on_price_reset(self) -> None:
        self._show_price(self._monitor.reset_price())

    def _on_alert_changed(self, minutes: object) -> None:
        self._monitor.set_alert_after(float(minutes) if isinstance(minutes, int | float) else None)
        self._show_repriced()

    def _show_price(self, price: IdlePrice) -> None:
        self._panel.set_price(price.usd_per_gpu_hour, price.source, typed=price.typed)
        self._show_repriced()

    def _show_repriced(self) -> None:
        """The idle panel and the tables of the repriced session."""
        idle = self._monitor.idle_view()
        if idle is not None:
            self.show(idle)
        tables = self._monitor.tables_view()
        if tables is not None:
            self._tables.show_view(tables)
