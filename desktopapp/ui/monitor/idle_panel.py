"""The idle-cost meter of the Monitor tab: the price per GPU-hour (typed here or from the
Workload tab), idle time, idle share, idle cost, the monthly projection and the idle alert
setting. It shows :class:`~desktopapp.model.idle_cost.IdleCostReport`; the price it shows and
what an edit does are decided in the application layer."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QHBoxLayout, QPushButton, QSpinBox, QWidget

from desktopapp.model.idle_cost import IdleCostReport
from desktopapp.model.units import (
    DASH,
    SECONDS_PER_HOUR,
    format_duration,
    format_money,
    format_percent,
)
from desktopapp.ui.common.marking import flagged_html
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.result_card import ResultCard, formula_tooltip
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import INNER_SPACING
from desktopapp.ui.monitor.panels import make_label, set_text


class IdleCostPanel(Section):
    """Price per GPU-hour, idle time and its cost, the monthly projection and the idle alert.

    ``price_changed(float)`` when a valid price is typed; ``price_reset()`` to follow the
    Workload tab again; ``alert_changed(object)`` with minutes or ``None``.
    """

    price_changed = Signal(float)
    price_reset = Signal()
    alert_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Idle GPU cost", parent=parent)
        self.price = QuantityEdit(
            "price_per_gpu_hour",
            currency=True,
            placeholder="e.g. 2.49",
            tooltip="USD per GPU-hour: a cloud price, or what owning costs you per hour",
        )
        self.price.setMaximumWidth(110)
        self._writing = False
        dollar = make_label("FieldLabel")
        dollar.setText("$")
        per = make_label("FieldLabel")
        per.setText("/ GPU-hour")
        self.reset_button = QPushButton("Use workload price")
        self.reset_button.setObjectName("LinkButton")
        self.reset_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.reset_button.setVisible(False)
        price_row = QHBoxLayout()
        price_row.setSpacing(6)
        price_row.addWidget(dollar)
        price_row.addWidget(self.price)
        price_row.addWidget(per)
        price_row.addStretch(1)
        price_row.addWidget(self.reset_button)
        self.add_row("Price", price_row)
        self.price_source = make_label("Hint", wrap=True)
        self.add_row("", self.price_source)
        # a refused price says why under the field, as the Workload tab's fields do (issue 25)
        self.price_error = make_label(wrap=True, rich=True)
        self.price_error.setVisible(False)
        self.add_row("", self.price_error)

        self.idle_card = ResultCard("Idle GPU time")
        self.share_card = ResultCard("Idle share")
        self.cost_card = ResultCard("Idle cost")
        self.monthly_card = ResultCard("Monthly waste")
        self.cards = QWidget()
        cards = QGridLayout(self.cards)
        cards.setContentsMargins(0, 0, 0, 0)
        cards.setSpacing(INNER_SPACING)
        for i, card in enumerate(
            (self.idle_card, self.share_card, self.cost_card, self.monthly_card)
        ):
            cards.addWidget(card, i // 2, i % 2)
        self.add(self.cards)

        self.alert_box = QCheckBox("Alert when a GPU is idle for")
        self.alert_minutes = QSpinBox()
        self.alert_minutes.setRange(1, 1440)
        self.alert_minutes.setValue(15)
        self.alert_minutes.setSuffix(" min")
        self.alert_minutes.setEnabled(False)
        self.alert_row = QWidget()
        alert_row = QHBoxLayout(self.alert_row)
        alert_row.setContentsMargins(0, 0, 0, 0)
        alert_row.setSpacing(6)
        alert_row.addWidget(self.alert_box)
        alert_row.addWidget(self.alert_minutes)
        alert_row.addStretch(1)
        self.add(self.alert_row)
        self.note = make_label("Hint", wrap=True)
        self.add(self.note)

        self.price.value_changed.connect(self._on_price)
        self.reset_button.clicked.connect(self.price_reset)
        self.alert_box.toggled.connect(self._on_alert)
        self.alert_minutes.valueChanged.connect(lambda _v: self._on_alert())
        self.show_no_gpu("Waiting for the first samples.")

    # --- inputs -------------------------------------------------------------------------------
    def set_price(self, usd: float, source: str, typed: bool) -> None:
        """Show the price in use (model → widget; no ``price_changed``)."""
        if self.price.value() != usd:
            self._writing = True
            try:
                self.price.setText(f"{usd:.2f}")
            finally:
                self._writing = False
        set_text(self.price_source, source)
        self.reset_button.setVisible(typed)

    def _on_price(self, value: object) -> None:
        if self._writing:
            return
        error = None if self.price.is_pristine_empty() else self.price.error()
        set_text(self.price_error, "" if error is None else flagged_html(error))
        self.price_error.setVisible(error is not None)
        if isinstance(value, float) and math.isfinite(value) and value >= 0:
            self.price_changed.emit(value)

    def alert_after_minutes(self) -> float | None:
        return float(self.alert_minutes.value()) if self.alert_box.isChecked() else None

    def _on_alert(self) -> None:
        self.alert_minutes.setEnabled(self.alert_box.isChecked())
        self.alert_changed.emit(self.alert_after_minutes())

    # --- results ------------------------------------------------------------------------------
    def show_no_gpu(self, reason: str) -> None:
        for card in (self.idle_card, self.share_card, self.cost_card, self.monthly_card):
            card.clear(reason)
        set_text(self.note, reason)

    def set_gpu_mode(self, has_gpu: bool) -> None:
        """Without a GPU only the price and the reason are shown."""
        self.cards.setVisible(has_gpu)
        self.alert_row.setVisible(has_gpu)

    def show_report(self, report: IdleCostReport, idle_threshold_percent: float) -> None:
        idle_s = report.idle_gpu_hours * SECONDS_PER_HOUR
        observed_s = report.observed_gpu_hours * SECONDS_PER_HOUR
        tip = formula_tooltip(
            "Idle GPU cost",
            report.formula,
            [(a.name, a.value) for a in report.assumptions],
        )
        share = format_percent(report.idle_fraction, 0)
        gpus = len(report.gpus)
        if observed_s <= 0:
            idle_text = DASH
        elif idle_s < 1e-3:
            idle_text = "0 s"
        else:
            idle_text = format_duration(idle_s)
        self.idle_card.set_formatted(
            idle_text,
            f"of {format_duration(observed_s)} GPU time watched" if observed_s > 0 else "",
            tip,
        )
        self.share_card.set_value(
            share,
            "",
            f"time below {idle_threshold_percent:g}% utilization",
            tip,
        )
        self.cost_card.set_value(
            format_money(report.idle_cost_usd),
            "",
            f"of {format_money(report.session_cost_usd)} this session",
            tip,
        )
        self.monthly_card.set_value(
            format_money(report.projected_monthly_waste_usd),
            "",
            f"if this continues on {gpus:,} GPU{'s' if gpus != 1 else ''}",
            tip,
        )
        streaks = [g for g in report.gpus if g.idle_streak_s >= 1]
        if streaks:
            longest = max(streaks, key=lambda g: g.idle_streak_s)
            note = (
                f"GPU {longest.index} has been idle for {format_duration(longest.idle_streak_s)}"
                " now."
            )
        elif observed_s > 0:
            note = "Every GPU is busy right now."
        else:
            note = "Counting starts with the second sample."
        set_text(self.note, note)
