"""The modelled training run (issue 13): MFU, step time and GPU-hours band cards, the
parallel plan, the step-time breakdown bar and the scaling plots against GPUs with the knee.
Renders :mod:`desktopapp.application.training_view`; computes nothing."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from desktopapp.application.training_view import BreakdownPart, ModelledView
from desktopapp.application.workload import ScalingPlots
from desktopapp.ui.common.layouts import card_grid, plot_row
from desktopapp.ui.common.result_card import ResultCard
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import COLORS, SERIES


class BreakdownBar(QWidget):
    """One horizontal bar: the step's parts left to right, widths by share."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parts: tuple[BreakdownPart, ...] = ()
        self.setMinimumHeight(22)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(300, 26)

    def set_parts(self, parts: tuple[BreakdownPart, ...]) -> None:
        self.parts = parts
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(COLORS.get("border", "#cccccc")))
        painter.drawRoundedRect(rect, 4, 4)
        x = rect.left()
        for i, part in enumerate(self.parts):
            width = rect.width() * part.share
            painter.setBrush(QColor(SERIES[i % len(SERIES)]))
            painter.drawRect(QRectF(x, rect.top(), width, rect.height()))
            x += width
        painter.end()


def _legend(parts: tuple[BreakdownPart, ...]) -> str:
    return "   ".join(
        f'<span style="color:{SERIES[i % len(SERIES)]}">■</span> {p.text}'
        for i, p in enumerate(parts)
    )


class ModelledPanel(Section):
    """Predicted MFU, step time, GPU-hours band, plan, breakdown and scaling with the knee."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Modelled run · parallel plan and scaling", parent=parent)
        self.mfu_card = ResultCard("Predicted MFU")
        self.step_card = ResultCard("Step time")
        self.band_card = ResultCard("Likely GPU-hours")
        self.cards = (self.mfu_card, self.step_card, self.band_card)
        self.add(card_grid(self.cards, columns=(3, 2, 1)))
        self.message = QLabel()
        self.message.setObjectName("Hint")
        self.message.setWordWrap(True)
        self.plan_label = QLabel()
        self.plan_label.setWordWrap(True)
        self.plan_label.setObjectName("SectionTitle")
        self.reason_label = QLabel()
        self.reason_label.setObjectName("Hint")
        self.reason_label.setWordWrap(True)
        self.bar = BreakdownBar()
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.knee_label = QLabel()
        self.knee_label.setWordWrap(True)
        # a plan the user gave: what it forced against the automatic plan, in words (issue 21)
        self.plan_changes = QLabel()
        self.plan_changes.setWordWrap(True)
        self.plan_changes.setTextFormat(Qt.TextFormat.PlainText)
        self.plan_changes.setVisible(False)
        for widget in (
            self.message,
            self.plan_label,
            self.plan_changes,
            self.reason_label,
            self.bar,
            self.legend,
            self.knee_label,
        ):
            self.add(widget)
        self._plots: dict[str, Any] | None = None
        self.plots_holder: QWidget | None = None
        self.view: ModelledView | None = None
        self.extras: ScalingPlots | None = None
        # The plots are built after the tab shows its figures (as PlotsPanel does): the first
        # window appears without waiting for three pyqtgraph plots.
        self._plots_allowed = False
        self._scaling_drawn = False  # the plots show the current view's scaling

    @property
    def is_drawn(self) -> bool:
        """The scaling plots exist and show the current modelled run, or there is none."""
        return self.view is None or self._scaling_drawn

    def build_later(self) -> None:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, self, self._allow_plots)

    def _allow_plots(self) -> None:
        self._plots_allowed = True
        if self.view is not None:
            self._show_scaling(self.view)

    def _build_plots(self) -> dict[str, Any]:
        if self._plots is not None:
            return self._plots
        from desktopapp.model import units
        from desktopapp.ui.common import plots

        time_plot = plots.make_plot(
            "Wall time vs GPUs", "GPUs", "wall time", log_x=True, log_y=True, y_unit="h"
        )
        cost_plot = plots.make_plot(
            "Cost vs GPUs", "GPUs", "cost", log_x=True, y_format=lambda v: units.format_money(v, 2)
        )
        mfu_plot = plots.make_plot("MFU vs GPUs", "GPUs", "MFU", log_x=True, y_unit="%")
        parts: dict[str, Any] = {
            "plots": (time_plot, cost_plot, mfu_plot),
            "curves": [],
            "knees": [],
            "markers": [],
        }
        pg = plots.pg()
        for i, plot in enumerate(parts["plots"]):
            parts["curves"].append(plot.plot(pen=plots.pen(i)))
            marker = plots.marker(SERIES[i % len(SERIES)])
            plot.addItem(marker)
            parts["markers"].append(marker)
            knee = pg.InfiniteLine(angle=90, pen=plots.pen(3, width=1.4, dashed=True))
            knee.setVisible(False)
            plot.addItem(knee)
            parts["knees"].append(knee)
            # room past 4,096 so its label is drawn (the axis hides a label that overflows)
            plot.setXRange(-0.12, 3.95, padding=0.0)
            plots.set_log_ticks(plot, (1, 8, 64, 512, 4096))
            # labels through the whole plotted range: 1 and 4,096 at the ends are drawn even
            # when they reach past the axis (issue 25: labels stopped at 512)
            plot.getPlotItem().getAxis("bottom").setStyle(hideOverlappingLabels=False)
        for plot in parts["plots"]:
            plot.setMinimumHeight(200)
        self.plots_holder = plot_row(parts["plots"], min_plot_width=240)
        self.add(self.plots_holder, 1)
        self._plots = parts
        return parts

    def show_plan_changes(self, text: str) -> None:
        self.plan_changes.setText(f"⚠ {text}" if text else "")
        self.plan_changes.setVisible(bool(text) and self.view is not None)

    def clear(self, reason: str) -> None:
        self.view = None
        self.plan_changes.setVisible(False)
        for card in self.cards:
            card.clear(reason)
        self.message.setText(reason)
        self.message.setVisible(True)
        for widget in (self.plan_label, self.reason_label, self.bar, self.legend, self.knee_label):
            widget.setVisible(False)
        if self.plots_holder is not None:
            self.plots_holder.setVisible(False)

    def show_view(self, view: ModelledView, extras: ScalingPlots | None = None) -> None:
        """``extras``: the charts' unit, ticks, current GPU count and the scaling sentence
        (application.workload.scaling_plots)."""
        self.view = view
        self.extras = extras
        self._scaling_drawn = False
        self.mfu_card.show_view(view.mfu)
        self.step_card.show_view(view.step)
        self.band_card.show_view(view.band)
        self.message.setText("\n".join(view.warnings))
        self.message.setVisible(bool(view.warnings))
        self.plan_label.setText(view.plan_text)
        self.plan_label.setToolTip(view.plan_tooltip)
        self.reason_label.setText(view.plan_reason)
        self.bar.set_parts(view.breakdown)
        self.bar.setToolTip(view.breakdown_tooltip)
        self.legend.setText(_legend(view.breakdown))
        self.legend.setToolTip(view.breakdown_tooltip)
        self.knee_label.setText(view.scaling.knee_text if extras is None else extras.sentence)
        for widget in (self.plan_label, self.reason_label, self.bar, self.legend, self.knee_label):
            widget.setVisible(True)
        self.plan_changes.setVisible(bool(self.plan_changes.text()))
        if self._plots_allowed:
            self._show_scaling(view)

    def _show_scaling(self, view: ModelledView) -> None:
        parts = self._build_plots()
        assert self.plots_holder is not None
        self.plots_holder.setVisible(True)
        sc = view.scaling
        import math

        from desktopapp.ui.common import plots

        extras = self.extras
        time = sc.hours if extras is None else extras.time
        ys = (time, sc.cost, sc.mfu_pct)
        here = None if extras is None else extras.current
        here_ys = (None, None, None) if here is None else here[1:]
        for curve, knee, marker, y, here_y in zip(
            parts["curves"], parts["knees"], parts["markers"], ys, here_ys, strict=True
        ):
            if y is None:
                curve.setData([], [])
            else:
                plots.set_curve(curve, sc.gpus, y)
            knee.setVisible(sc.knee_gpus is not None)
            if sc.knee_gpus is not None:
                knee.setValue(math.log10(sc.knee_gpus))
            # you are here: the current GPU count on every curve
            if here is None or here_y is None or y is None:
                marker.setData([], [])
            else:
                marker.setData([here[0]], [here_y])
        time_plot, cost_plot, _mfu_plot = parts["plots"]
        if extras is not None:
            plots.set_titles(time_plot, "Wall time vs GPUs", "GPUs", extras.time_title)
            axis = time_plot.getPlotItem().getAxis("left")
            axis.setTicks([[(math.log10(v), text) for v, text in extras.time_ticks], []])
            if extras.cost_top is not None:
                # from zero (a 14% rise must not look like a cliff), $0 labelled
                cost_plot.setYRange(-0.03 * extras.cost_top, extras.cost_top, padding=0.0)
        for plot in parts["plots"]:
            plot.setToolTip(self.knee_label.text())
        self._scaling_drawn = True


__all__ = ["BreakdownBar", "ModelledPanel"]
