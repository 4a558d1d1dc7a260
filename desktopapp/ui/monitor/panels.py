"""Panels of the Monitor tab: the live readings strip, banners, the bottleneck diagnosis and the
idle-cost meter. They display what the model computed (``model.diagnosis``,
``model.idle_cost``); formatting goes through ``model.units``. Every label is created once and
only re-written when its text changes, so a refresh costs little when nothing moved.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktopapp.devices.sampler import SystemSample
from desktopapp.model.diagnosis import Diagnosis, Verdict
from desktopapp.model.idle_cost import IdleCostReport
from desktopapp.model.units import (
    DASH,
    SECONDS_PER_HOUR,
    format_bytes,
    format_duration,
    format_money,
    format_percent,
)
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.result_card import ResultCard, formula_tooltip
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING
from desktopapp.ui.monitor.layout import gpu_color

# severity → (text colour, background, badge word)
SEVERITY_STYLE: dict[str, tuple[str, str, str]] = {
    "ok": (COLORS["good"], COLORS["good_soft"], "OK"),
    "info": (COLORS["accent_dark"], COLORS["accent_soft"], "Info"),
    "warning": (COLORS["warn"], COLORS["warn_soft"], "Warning"),
    "critical": (COLORS["bad"], COLORS["bad_soft"], "Critical"),
}
TONES: dict[str, tuple[str, str, str]] = {  # banner tone → (text, background, border)
    "info": (COLORS["accent_dark"], COLORS["accent_soft"], "#C9DAFB"),
    "warn": (COLORS["warn"], COLORS["warn_soft"], "#F1D9AE"),
    "bad": (COLORS["bad"], COLORS["bad_soft"], "#F4C7C7"),
}


def set_text(label: QLabel, text: str) -> bool:
    """``label.setText`` only when the text changed (no relayout otherwise)."""
    if label.text() == text:
        return False
    label.setText(text)
    return True


def _label(object_name: str = "", wrap: bool = False, rich: bool = False) -> QLabel:
    label = QLabel()
    if object_name:
        label.setObjectName(object_name)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    return label


# --- banner ---------------------------------------------------------------------------------


class Banner(QFrame):
    """A one-line, non-modal message bar with an optional action and a close button."""

    action_clicked = Signal()
    dismissed = Signal()

    def __init__(self, closable: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MonitorBanner")
        self.icon = QLabel()
        self.icon.setFixedSize(18, 18)
        self.icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.text = _label(wrap=True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.setObjectName("LinkButton")
        self.action.setCursor(Qt.CursorShape.PointingHandCursor)
        self.action.setVisible(False)
        self.action.clicked.connect(self.action_clicked)
        self.close_button = QPushButton("✕")
        self.close_button.setObjectName("LinkButton")
        self.close_button.setToolTip("Dismiss")
        self.close_button.setVisible(closable)
        self.close_button.clicked.connect(self._dismiss)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        row.setSpacing(8)
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.text, 1)
        row.addWidget(self.action, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._tone = ""
        self.setVisible(False)

    def show_message(self, text: str, tone: str = "info", action: str = "") -> None:
        if tone != self._tone:
            fg, bg, border = TONES[tone]
            self.setStyleSheet(
                f"QFrame#MonitorBanner {{ background: {bg}; border: 1px solid {border}; "
                f"border-radius: 6px; }} QFrame#MonitorBanner QLabel {{ color: {fg}; }}"
            )
            self.icon.setText("i" if tone == "info" else "!")
            self.icon.setStyleSheet(
                f"background: {fg}; color: white; border-radius: 9px; font-weight: 800;"
            )
            self._tone = tone
        set_text(self.text, text)
        self.action.setText(action)
        self.action.setVisible(bool(action))
        self.setVisible(True)

    def message(self) -> str:
        return "" if self.isHidden() else self.text.text()

    def _dismiss(self) -> None:
        self.setVisible(False)
        self.dismissed.emit()


# --- live readings ----------------------------------------------------------------------------


class _Tile(QFrame):
    """Caption, big value, small detail: one live reading."""

    def __init__(self, caption: str, accent: str) -> None:
        super().__init__()
        self.setObjectName("LiveTile")
        self.setStyleSheet(
            f"QFrame#LiveTile {{ background: {COLORS['surface']}; "
            f"border: 1px solid {COLORS['border']}; border-left: 3px solid {accent}; "
            "border-radius: 6px; }"
        )
        self.caption = _label("CardCaption")
        self.caption.setText(caption.upper())
        self.value = _label()
        self.value.setStyleSheet(
            f"font-size: {BASE_POINT_SIZE + 4:.0f}pt; font-weight: 600; color: {COLORS['text']};"
        )
        self.detail = _label("CardDetail")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 5, 10, 6)
        layout.setSpacing(0)
        layout.addWidget(self.caption)
        layout.addWidget(self.value)
        layout.addWidget(self.detail)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set(self, value: str, detail: str) -> None:
        set_text(self.value, value)
        set_text(self.detail, detail)


def _pct(value: float) -> str:
    return f"{value:.0f}%" if math.isfinite(value) else DASH


def _num(value: float, unit: str) -> str:
    return f"{value:.0f} {unit}" if math.isfinite(value) else DASH


class LiveStrip(QWidget):
    """The newest reading of each GPU and of the host, as tiles across the top of the tab."""

    def __init__(self, gpu_names: Sequence[tuple[int, str]], parent: QWidget | None = None):
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(INNER_SPACING)
        self.gpu_tiles: dict[int, _Tile] = {}
        for index, name in gpu_names:
            tile = _Tile(f"GPU {index} · {name}", gpu_color(index))
            tile.setToolTip(name)
            self.gpu_tiles[index] = tile
            row.addWidget(tile, 2)
        self.cpu = _Tile("CPU", COLORS["accent"])
        self.ram = _Tile("Memory", "#8E5CD9")
        self.disk = _Tile("Disk", "#2A9D8F")
        self.net = _Tile("Network", "#C2478A")
        for tile in (self.cpu, self.ram, self.disk, self.net):
            row.addWidget(tile, 1)

    def show_sample(self, sample: SystemSample) -> None:
        for gpu in sample.gpus:
            tile = self.gpu_tiles.get(gpu.index)
            if tile is None:
                continue
            if not gpu.available:
                tile.set("lost", "the GPU stopped answering")
                continue
            mem = (
                f"{format_bytes(gpu.memory_used_bytes)} of {format_bytes(gpu.memory_total_bytes)}"
                if math.isfinite(gpu.memory_used_bytes)
                else "memory —"
            )
            tile.set(
                f"{_pct(gpu.util_percent)}  ·  {_num(gpu.power_w, 'W')}  ·  "
                f"{_num(gpu.temperature_c, '°C')}",
                mem,
            )
        cpu = sample.cpu
        self.cpu.set(
            _pct(cpu.percent),
            f"busiest core {_pct(cpu.max_core_percent)} · {cpu.count} cores",
        )
        ram = sample.memory
        self.ram.set(
            _pct(ram.percent),
            f"{format_bytes(ram.used_bytes)} of {format_bytes(ram.total_bytes)}",
        )
        io = sample.io
        self.disk.set(
            f"{format_bytes(io.disk_read_bytes_s)}/s",
            f"read · write {format_bytes(io.disk_write_bytes_s)}/s",
        )
        self.net.set(
            f"{format_bytes(io.net_rx_bytes_s)}/s",
            f"received · sent {format_bytes(io.net_tx_bytes_s)}/s",
        )


# --- diagnosis --------------------------------------------------------------------------------


class _VerdictRow(QWidget):
    """A secondary verdict: coloured dot, title and evidence on one or two lines."""

    def __init__(self) -> None:
        super().__init__()
        self.dot = QLabel("●")
        self.text = _label(wrap=True, rich=True)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 2)
        row.setSpacing(6)
        row.addWidget(self.dot, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.text, 1)

    def show_verdict(self, verdict: Verdict) -> None:
        fg, _bg, _word = SEVERITY_STYLE.get(verdict.severity, SEVERITY_STYLE["info"])
        self.dot.setStyleSheet(f"color: {fg};")
        set_text(
            self.text,
            f"<b>{html.escape(verdict.title)}</b><br>"
            f"<span style='color:{COLORS['muted']}'>{html.escape(verdict.evidence)}</span>",
        )
        self.setToolTip(verdict.advice)
        self.setVisible(True)


class DiagnosisPanel(Section):
    """The most severe verdict large (severity colour, evidence, advice); the others below."""

    MAX_OTHERS = 3

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Bottleneck diagnosis", parent=parent)
        self.window_label = _label("Hint")
        self.add_header_widget(self.window_label)
        self.card = QFrame()
        self.card.setObjectName("VerdictCard")
        self.badge = _label()
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.since = _label("Hint")
        self.title = _label(wrap=True)
        self.title.setStyleSheet(
            f"font-size: {BASE_POINT_SIZE + 2:.0f}pt; font-weight: 700; color: {COLORS['text']};"
        )
        self.evidence = _label(wrap=True, rich=True)
        self.advice = _label(wrap=True, rich=True)
        top = QHBoxLayout()
        top.setSpacing(8)
        top.addWidget(self.badge)
        top.addWidget(self.since, 1)
        inner = QVBoxLayout(self.card)
        inner.setContentsMargins(12, 10, 12, 10)
        inner.setSpacing(5)
        inner.addLayout(top)
        inner.addWidget(self.title)
        inner.addWidget(self.evidence)
        inner.addWidget(self.advice)
        self.add(self.card)
        self.others: list[_VerdictRow] = []
        for _ in range(self.MAX_OTHERS):
            row = _VerdictRow()
            row.setVisible(False)
            self.others.append(row)
            self.add(row)
        self._severity = ""
        self.current: Verdict | None = None
        self.clear("Waiting for the first samples.")

    def _set_severity(self, severity: str) -> None:
        if severity == self._severity:
            return
        fg, bg, word = SEVERITY_STYLE.get(severity, SEVERITY_STYLE["info"])
        self.card.setStyleSheet(
            f"QFrame#VerdictCard {{ background: {bg}; border: 1px solid {bg}; "
            f"border-left: 4px solid {fg}; border-radius: 6px; }}"
        )
        self.badge.setStyleSheet(
            f"background: {fg}; color: white; border-radius: 8px; padding: 1px 8px; "
            f"font-weight: 700; font-size: {BASE_POINT_SIZE - 1:.0f}pt;"
        )
        self.badge.setText(word.upper())
        self._severity = severity

    def clear(self, message: str) -> None:
        self._set_severity("info")
        set_text(self.title, "Collecting data")
        set_text(self.evidence, html.escape(message))
        set_text(self.advice, "")
        set_text(self.since, "")
        for row in self.others:
            row.setVisible(False)
        self.current = None

    def show_diagnosis(self, diagnosis: Diagnosis) -> None:
        main = diagnosis.worst
        if main is None:
            self.clear("No verdict yet.")
            return
        self.current = main
        self._set_severity(main.severity)
        set_text(self.window_label, f"over the last {diagnosis.window_s:.0f} s")
        set_text(self.title, main.title)
        set_text(
            self.evidence,
            f"<span style='color:{COLORS['muted']}'>Evidence:</span> {html.escape(main.evidence)}",
        )
        set_text(
            self.advice,
            f"<span style='color:{COLORS['muted']}'>What to do:</span> {html.escape(main.advice)}",
        )
        held = diagnosis.timestamp - main.since
        set_text(
            self.since,
            f"for {format_duration(held)}" if math.isfinite(held) and held >= 1 else "just now",
        )
        others = [v for v in diagnosis.verdicts if v is not main][: self.MAX_OTHERS]
        for i, row in enumerate(self.others):
            if i < len(others):
                row.show_verdict(others[i])
            else:
                row.setVisible(False)

    def text(self) -> str:
        """Everything the panel shows, as plain text (tests, accessibility)."""
        parts = [self.badge.text(), self.title.text(), self.evidence.text(), self.advice.text()]
        parts += [r.text.text() for r in self.others if r.isVisibleTo(self)]
        return "\n".join(p for p in parts if p)


# --- idle cost --------------------------------------------------------------------------------


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
        dollar = _label("FieldLabel")
        dollar.setText("$")
        per = _label("FieldLabel")
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
        self.price_source = _label("Hint", wrap=True)
        self.add_row("", self.price_source)

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
        self.note = _label("Hint", wrap=True)
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
            f"if this continues on {gpus} GPU{'s' if gpus != 1 else ''}",
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
