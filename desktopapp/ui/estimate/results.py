"""The Workload tab's result panels. They display what the tab computed with the model layer;
formatting goes through ``model.units``; nothing here computes a formula."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QWidget,
)

from desktopapp.application.workload import (
    NO_PRICE,
    HeroView,
    MemoryView,
    TrainingCurves,
    TrainingView,
)
from desktopapp.model import units
from desktopapp.model.units import DASH
from desktopapp.ui.common.layouts import card_grid, plot_row
from desktopapp.ui.common.range_bar import RangeBar
from desktopapp.ui.common.result_card import ResultCard
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import COLORS, INNER_SPACING, MEMORY_COLORS, SERIES, repolish
from desktopapp.ui.estimate.memory_bar import MemoryBar, Segment


class TrainingResults(Section):
    """Headline cards and the planning range (×1 to ×3) as bands."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Training estimate", parent=parent)
        # the answer in one sentence, and the chain of figures under it (issues 21 and 25)
        self.hero = QLabel()
        self.hero.setObjectName("PanelTitle")
        self.hero.setWordWrap(True)
        self.hero.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chain = QLabel()
        self.chain.setObjectName("Hint")
        self.chain.setWordWrap(True)
        self.serving_line = QLabel()
        self.serving_line.setObjectName("SectionTitle")
        self.serving_line.setWordWrap(True)
        self.serving_line.setVisible(False)
        # typed inputs beyond any real system (1e40 tokens): the figures still follow, with the
        # same warning `desktopapp estimate` prints
        self.warning_line = QLabel()
        self.warning_line.setObjectName("Hint")
        self.warning_line.setWordWrap(True)
        self.warning_line.setVisible(False)
        self.add(self.hero)
        self.add(self.chain)
        self.add(self.warning_line)
        self.add(self.serving_line)
        self.compute_card = ResultCard("Total compute")
        self.time_card = ResultCard("Wall time")
        self.gpu_hours_card = ResultCard("GPU-hours")
        self.cost_card = ResultCard("Cost")
        self.cards = (self.compute_card, self.time_card, self.gpu_hours_card, self.cost_card)
        self.add(card_grid(self.cards))

        self.range_caption = QLabel("Planning range · whole project, ×1 to ×3")
        self.range_caption.setObjectName("SectionTitle")
        self.range_note = QLabel()
        self.range_note.setObjectName("Hint")
        self.range_note.setWordWrap(True)
        self.time_range = RangeBar()
        self.cost_range = RangeBar()
        ranges = QGridLayout()
        ranges.setHorizontalSpacing(24)
        ranges.setVerticalSpacing(2)
        for col, (caption, bar) in enumerate(
            (("Wall time", self.time_range), ("Cost", self.cost_range))
        ):
            label = QLabel(caption)
            label.setObjectName("FieldLabel")
            ranges.addWidget(label, 0, col)
            ranges.addWidget(bar, 1, col)
        self.add(self.range_caption)
        self.add(ranges)
        self.add(self.range_note)

    def clear(self, reason: str, not_current: bool = False) -> None:
        """No figures: ``reason`` on the cards and in the headline (``not_current``: a field
        is invalid, so no figure on the tab is current)."""
        for card in self.cards:
            card.clear(reason)
        self.time_range.clear()
        self.cost_range.clear()
        self.range_note.setText("")
        self.hero.setText(f"Not current: {reason}" if not_current else reason)
        self.hero.setToolTip("")
        self.show_serving_line("")  # no serving line under a headline without figures
        self.chain.setText(
            "Correct the field marked on the left; the figures follow at once."
            if not_current
            else ""
        )

    def show_serving_line(self, text: str) -> None:
        """The serving figures in one sentence under the training headline ("" hides it)."""
        self.serving_line.setText(text)
        self.serving_line.setVisible(bool(text))

    def show_warnings(self, warnings: Sequence[str]) -> None:
        """One "⚠" line per implausible input under the headline (none: hidden)."""
        self.warning_line.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.warning_line.setVisible(bool(warnings))

    def show_hero(self, view: HeroView) -> None:
        self.hero.setText(view.sentence)
        self.hero.setToolTip(view.tooltip)
        self.chain.setText(view.chain)
        self.chain.setToolTip(view.tooltip)

    def show_view(self, view: TrainingView, price_error: str = "") -> None:
        """The cards; ``price_error``: the price field's message (the cost says that, not
        "no price given")."""
        self.compute_card.show_view(view.compute)
        self.time_card.show_view(view.time)
        self.gpu_hours_card.show_view(view.gpu_hours)
        no_price = "invalid price" if price_error else "no price given"
        if view.cost is None:
            self.cost_card.clear(price_error or NO_PRICE)
            self.cost_card.set_value(DASH, "", no_price, self.cost_card.toolTip())
        else:
            self.cost_card.show_view(view.cost)
        for bar, shown in ((self.time_range, view.time_range), (self.cost_range, view.cost_range)):
            if shown is None:
                bar.clear(no_price)
            else:
                bar.set_range(shown.low, shown.low, shown.high, shown.format, ticks=shown.ticks)
            bar.setToolTip(view.range_tooltip)
        self.range_note.setText(view.range_note)


class PlotsPanel(Section):
    """Wall time and cost against devices (log x, 1-4096) and cost against utilization.

    The plots (and pyqtgraph, the slowest import of the window) are built after the tab has
    shown its figures: :meth:`build_later` queues the build for the next turn of the event loop,
    and reading a plot attribute builds them at once. Data set before that is kept and drawn
    when they exist, so the Workload tab is filled without waiting for the plots. While the
    panel is hidden (the modelled run's scaling plots replace it) the build waits until it is
    shown: a panel nobody sees costs the first window nothing.
    """

    _PLOT_PARTS = (
        "time_plot",
        "cost_plot",
        "util_plot",
        "time_curve",
        "cost_curve",
        "util_curve",
        "time_marker",
        "cost_marker",
        "util_marker",
        "util_band",
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Scaling", parent=parent)
        self._parts: dict[str, Any] | None = None
        self._pending: TrainingCurves | None = None  # drawn once built (None: cleared)
        self._build_wanted = False  # build_later was called: build when (or once) shown
        self._plot_row = QHBoxLayout()
        self._plot_row.setSpacing(INNER_SPACING)
        self.add(self._plot_row, 1)
        self.setMinimumHeight(260)

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes not set yet: the plot parts before the build.
        if name in PlotsPanel._PLOT_PARTS:
            return self.ensure_built()[name]
        raise AttributeError(name)

    @property
    def is_built(self) -> bool:
        return self._parts is not None

    @property
    def is_drawn(self) -> bool:
        """The plots exist and show the latest curves (nothing is waiting to be drawn)."""
        return self._parts is not None and self._pending is None

    def build_later(self) -> None:
        """Build the plots on the next turn of the event loop (after the figures), or, while
        the panel is hidden then, as soon as it is shown."""
        from PySide6.QtCore import QTimer

        self._build_wanted = True
        QTimer.singleShot(0, self, self._build_if_shown)

    def _build_if_shown(self) -> None:
        if self._parts is None and not self.isHidden():
            self.ensure_built()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._build_wanted and self._parts is None:
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self, self._build_if_shown)

    def ensure_built(self) -> dict[str, Any]:
        if self._parts is None:
            self._parts = self._build()
            for name, part in self._parts.items():
                setattr(self, name, part)
            from desktopapp.ui.common.export import install_export_actions

            install_export_actions(self)  # save/copy actions, as on plots built with the tab
            pending, self._pending = self._pending, None
            if pending is not None:
                self._draw(pending)
            else:
                self._clear_items()
        return self._parts

    def _build(self) -> dict[str, Any]:
        from desktopapp.ui.common import plots

        time_plot = plots.make_plot(
            "Wall time vs devices", "devices", "hours", log_x=True, log_y=True
        )
        cost_plot = plots.make_plot(
            "Cost vs devices", "devices", "cost", log_x=True, y_format=_axis_money
        )
        util_plot = plots.make_plot(
            "Cost vs utilization", "utilization (%)", "cost", y_format=_axis_money
        )
        parts: dict[str, Any] = {
            "time_plot": time_plot,
            "cost_plot": cost_plot,
            "util_plot": util_plot,
            "time_curve": time_plot.plot(pen=plots.pen(0)),
            "cost_curve": cost_plot.plot(pen=plots.pen(1)),
            "util_curve": util_plot.plot(pen=plots.pen(1)),
            "time_marker": plots.marker(SERIES[0]),
            "cost_marker": plots.marker(SERIES[1]),
            "util_marker": plots.marker(SERIES[1]),
            "util_band": plots.vertical_band(30, 50, COLORS["good_soft"]),
        }
        time_plot.addItem(parts["time_marker"])
        cost_plot.addItem(parts["cost_marker"])
        util_plot.addItem(parts["util_marker"])
        util_plot.addItem(parts["util_band"])
        for plot in (time_plot, cost_plot):
            # log10(1) … log10(4096) with room for the end labels, all drawn (issue 25)
            plot.setXRange(-0.12, 3.95, padding=0.0)
            plots.set_log_ticks(plot, (1, 8, 64, 512, 4096))
            plot.getPlotItem().getAxis("bottom").setStyle(hideOverlappingLabels=False)
        util_plot.setXRange(5, 80, padding=0.02)
        for plot in (time_plot, cost_plot, util_plot):
            plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            plot.setMinimumHeight(220)
        self._plot_row.addWidget(plot_row((time_plot, cost_plot, util_plot), min_plot_width=240))
        return parts

    def set_data(self, *args: Any) -> None:
        """The curves in ``TrainingCurves.args()`` order (see :meth:`show_curves`)."""
        self.show_curves(TrainingCurves(*args))

    def show_curves(self, curves: TrainingCurves) -> None:
        """Draw ``curves`` now, or once the plots are built."""
        if self._parts is None:
            self._pending = curves
            return
        self._draw(curves)

    def _draw(self, c: TrainingCurves) -> None:
        from desktopapp.ui.common.plots import set_curve

        p = self.ensure_built()
        set_curve(p["time_curve"], c.devices, c.hours)
        p["time_marker"].setData([c.current_devices], [c.current_hours])
        if c.cost_by_devices is None or c.current_cost is None:
            for name in ("cost_curve", "cost_marker", "util_curve", "util_marker"):
                p[name].setData([], [])
        else:
            set_curve(p["cost_curve"], c.devices, c.cost_by_devices)
            p["cost_marker"].setData([c.current_devices], [c.current_cost])
            assert c.cost_by_utilization is not None
            set_curve(p["util_curve"], c.utilization_pct, c.cost_by_utilization)
            p["util_marker"].setData([c.current_utilization_pct], [c.current_cost])
        p["time_plot"].getPlotItem().enableAutoRange(axis="y")
        # With linear scaling the cost is the same at every device count: show it flat against
        # zero rather than zooming into rounding noise.
        for plot, values in (
            (p["cost_plot"], c.cost_by_devices),
            (p["util_plot"], c.cost_by_utilization),
        ):
            top = _finite_max(values)
            if top is None:
                plot.getPlotItem().enableAutoRange(axis="y")
            else:
                plot.setYRange(0.0, top * 1.25, padding=0.0)

    def clear(self) -> None:
        if self._parts is None:
            self._pending = None
            return
        self._clear_items()

    def _clear_items(self) -> None:
        assert self._parts is not None
        for name in (
            "time_curve",
            "cost_curve",
            "util_curve",
            "time_marker",
            "cost_marker",
            "util_marker",
        ):
            self._parts[name].setData([], [])


def _axis_money(value: float) -> str:
    return units.format_money(value, digits=2) if value else "0"


def _finite_max(values: Any | None) -> float | None:
    if values is None:
        return None
    import numpy as np

    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0 or float(arr.max()) <= 0:
        return None
    return float(arr.max())


class _LegendItem(QWidget):
    def __init__(self, key: str, caption: str) -> None:
        super().__init__()
        swatch = QLabel()
        swatch.setFixedSize(11, 11)
        swatch.setStyleSheet(f"background: {MEMORY_COLORS[key]}; border-radius: 2px;")
        self.caption = QLabel(caption)
        self.caption.setObjectName("FieldLabel")
        self.value = QLabel(DASH)
        self.value.setStyleSheet("font-weight: 600;")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(swatch)
        layout.addWidget(self.caption)
        layout.addWidget(self.value)
        layout.addStretch(1)


MEMORY_PARTS: tuple[tuple[str, str], ...] = (
    ("weights", "Weights"),
    ("gradients", "Gradients"),
    ("optimizer", "Optimizer"),
    ("activations", "Activations"),
    ("kv_cache", "KV cache"),
    ("overhead", "Overhead"),
)


class MemoryPanel(Section):
    """Stacked bar per device against the device memory, a verdict and what would make it fit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Memory per device (training)", parent=parent)
        self.verdict = QLabel(DASH)
        self.verdict.setObjectName("Verdict")
        self.verdict.setProperty("verdict", "none")
        self.verdict.setWordWrap(True)
        self.add(self.verdict)  # under the title: beside it, the two set a wide minimum
        self.bar = MemoryBar()
        self.add(self.bar)
        self.legend: dict[str, _LegendItem] = {
            key: _LegendItem(key, caption) for key, caption in MEMORY_PARTS
        }
        # three columns while they fit, then two, then one (issue 16: nothing cut off)
        self.add(card_grid(self.legend.values(), columns=(3, 2, 1)))
        self.advice = QLabel()
        self.advice.setWordWrap(True)
        self.advice.setTextFormat(Qt.TextFormat.RichText)
        self.add(self.advice)

    def show_view(self, view: MemoryView) -> None:
        self.set_parts(dict(view.parts), view.capacity)
        self.bar.setToolTip(view.bar_tooltip)
        self.set_verdict(view.verdict, view.tone)
        self.set_advice(view.advice, view.heading)

    def set_verdict(self, text: str, tone: str) -> None:
        self.verdict.setText(text)
        if self.verdict.property("verdict") != tone:
            self.verdict.setProperty("verdict", tone)
            repolish(self.verdict)

    def verdict_tone(self) -> str:
        return str(self.verdict.property("verdict"))

    def set_parts(self, parts: dict[str, tuple[float, str]], capacity: float | None) -> None:
        """``parts``: key → (bytes, formatted bytes)."""
        segments = []
        for key, caption in MEMORY_PARTS:
            value, text = parts.get(key, (0.0, DASH))
            self.legend[key].value.setText(text)
            segments.append(Segment(key, caption, value))
        self.bar.set_segments(segments, capacity)

    def set_advice(self, lines: Iterable[str], heading: str) -> None:
        items = "".join(f"<li style='margin-bottom:3px'>{line}</li>" for line in lines)
        self.advice.setText(
            f"<b>{html.escape(heading)}</b><ul style='margin:4px 0 0 -20px'>{items}</ul>"
            if items
            else (
                f"<span style='color:{COLORS['muted']}'>{html.escape(heading)}</span>"
                if heading
                else ""
            )
        )

    def clear(self, reason: str) -> None:
        self.bar.clear()
        for item in self.legend.values():
            item.value.setText(DASH)
        self.set_verdict(DASH, "none")
        self.set_advice([], reason)
