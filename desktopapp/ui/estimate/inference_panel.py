"""The Workload tab's inference panel: serving cards (throughput, TTFT, TPOT, cost) or the
roofline's, and the throughput curve. Renders :class:`~desktopapp.application.workload.
InferenceView`; computes nothing."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import (
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.workload import (
    NO_PRICE,
    InferenceCurve,
    InferenceView,
)
from desktopapp.model import units
from desktopapp.ui.common.layouts import card_grid
from desktopapp.ui.common.result_card import ResultCard
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import SERIES


def _axis_si(value: float) -> str:
    return units.format_si(value, "", digits=2).replace(" ", "") if value else "0"


class InferencePanel(Section):
    """Language models: throughput, time to first token, cost per million and time per output
    token, with throughput against latency as the concurrency grows. Per-sample models: the
    roofline's throughput, latency, cost and bound, with throughput against batch size."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Inference", parent=parent)
        self.throughput_card = ResultCard("Throughput")
        self.latency_card = ResultCard("Latency per request")
        self.cost_card = ResultCard("Cost per million")
        self.bound_card = ResultCard("Roofline bound")
        self.cards = (self.throughput_card, self.latency_card, self.cost_card, self.bound_card)
        self.add(card_grid(self.cards))
        # The plot is built after the tab shows its figures (see PlotsPanel): until then a
        # frame of the same height holds its place and the last data waits.
        self._slot = QVBoxLayout()
        self._slot.setContentsMargins(0, 0, 0, 0)
        holder = QWidget()
        holder.setMinimumHeight(240)
        holder.setLayout(self._slot)
        self.add(holder)
        self.holder = holder
        self._parts: dict[str, Any] | None = None
        self._pending: InferenceCurve | None = None
        self._labels: list[Any] = []  # the concurrency labels on the serving curve

    def __getattr__(self, name: str) -> Any:
        if name in ("plot", "curve", "marker", "target"):
            return self.ensure_built()[name]
        raise AttributeError(name)

    @property
    def is_built(self) -> bool:
        return self._parts is not None

    @property
    def is_drawn(self) -> bool:
        """The plot exists and shows the latest curve, or no plot is shown (a model that
        cannot be served as set up)."""
        if self.holder.isHidden():
            return True
        return self._parts is not None and self._pending is None

    def build_later(self) -> None:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, self, self.ensure_built)

    def ensure_built(self) -> dict[str, Any]:
        if self._parts is None:
            from desktopapp.ui.common import plots

            plot = plots.make_plot(
                "Throughput vs batch size",
                "batch size",
                "per second",
                log_x=True,
                y_format=_axis_si,
            )
            plot.setMinimumHeight(220)
            curve = plot.plot(pen=plots.pen(2))
            marker = plots.marker(SERIES[2])
            plot.addItem(marker)
            target = plots.pg().InfiniteLine(angle=90, movable=False, pen=plots.pen(3, 1.6, True))
            target.setVisible(False)
            plot.addItem(target)
            self._slot.addWidget(plot)
            self._parts = {"plot": plot, "curve": curve, "marker": marker, "target": target}
            for name, part in self._parts.items():
                setattr(self, name, part)
            from desktopapp.ui.common.export import install_export_actions

            install_export_actions(self)
            pending, self._pending = self._pending, None
            if pending is not None:
                self.set_curve(pending)
        return self._parts

    def show_view(self, view: InferenceView) -> None:
        infeasible = bool(view.infeasible)
        # a model that cannot be served as set up shows why, not figures (issue 25)
        for card in self.cards:
            card.setVisible(not infeasible)
        self.holder.setVisible(not infeasible)
        if infeasible:
            self.set_note(view.infeasible)
            self.clear(view.infeasible)
            return
        for card, caption in zip(self.cards, view.captions, strict=True):
            card.set_caption(caption)
        self.throughput_card.show_view(view.throughput)
        self.latency_card.show_view(view.latency)
        if view.cost is None:
            self.cost_card.clear(NO_PRICE)
        else:
            self.cost_card.show_view(view.cost)
        self.bound_card.show_view(view.bound)
        self.set_note(view.note)
        self.set_curve(view.curve)

    def set_curve(self, curve: InferenceCurve) -> None:
        if self._parts is None:
            self._pending = curve
            return
        from desktopapp.ui.common.plots import set_curve, set_log_ticks, set_titles

        plot = self._parts["plot"]
        item = plot.getPlotItem()
        item.setLogMode(x=curve.log_x, y=False)
        set_titles(plot, curve.title, curve.x_label, f"{curve.unit}s / second")
        if curve.log_x:
            set_log_ticks(plot, (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024))
        else:
            item.getAxis("bottom").setTicks(None)
        set_curve(self._parts["curve"], curve.x, curve.throughput)
        self._parts["marker"].setData([curve.current[0]], [curve.current[1]])
        self._show_labels(curve)
        target = self._parts["target"]
        target.setVisible(curve.target_x is not None)
        if curve.target_x is not None:
            target.setValue(curve.target_x)
        item.enableAutoRange(axis="x")
        # throughput from zero: a flat (compute-bound) curve is a line, not six ticks that all
        # read "1.1k", and a 10% rise does not look like a cliff
        top = max((y for y in curve.throughput if math.isfinite(y)), default=0.0)
        item.setYRange(0.0, top * 1.15 if 0 < top < 1e300 else 1.0, padding=0.0)

    def _show_labels(self, curve: InferenceCurve) -> None:
        """Concurrency at a few points of the serving curve ("64" beside its point)."""
        from desktopapp.ui.common.plots import annotation

        plot = self._parts["plot"] if self._parts is not None else None
        if plot is None:
            return
        for item in self._labels:
            plot.removeItem(item)
        self._labels = []
        for x, y, text in curve.labels:
            label = annotation(text, anchor=(0.0, 1.0), boxed=False)
            label.setPos(x, y)
            plot.addItem(label)
            self._labels.append(label)

    def clear(self, reason: str) -> None:
        for card in self.cards:
            card.clear(reason)
        if self._parts is None:
            self._pending = None
            return
        for item in self._labels:
            self._parts["plot"].removeItem(item)
        self._labels = []
        self._parts["curve"].setData([], [])
        self._parts["marker"].setData([], [])
        self._parts["target"].setVisible(False)
