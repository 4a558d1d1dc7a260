"""Panels of the Monitor tab: the live readings strip, banners, the bottleneck diagnosis and the
idle-cost meter. They display what the model computed (``model.diagnosis``,
``model.idle_cost``); formatting goes through ``model.units``. Every label is created once and
only re-written when its text changes, so a refresh costs little when nothing moved.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent, QPen
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
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING, current_scale
from desktopapp.ui.monitor.layout import gpu_color
from desktopapp.ui.monitor.summary import SessionTotals, format_energy

_SEVERITY_NAMES: dict[str, tuple[str, str, str]] = {
    "ok": ("good", "good_soft", "OK"),
    "info": ("accent_dark", "accent_soft", "Info"),
    "warning": ("warn", "warn_soft", "Warning"),
    "critical": ("bad", "bad_soft", "Critical"),
}
_TONE_NAMES: dict[str, tuple[str, str]] = {
    "info": ("accent_dark", "accent_soft"),
    "warn": ("warn", "warn_soft"),
    "bad": ("bad", "bad_soft"),
}


def severity_style(severity: str) -> tuple[str, str, str]:
    """(text colour, background, badge word) of a verdict severity in the active palette."""
    fg, bg, word = _SEVERITY_NAMES.get(severity, _SEVERITY_NAMES["info"])
    return COLORS[fg], COLORS[bg], word


def tone_colors(tone: str) -> tuple[str, str]:
    """(text colour, background) of a banner tone in the active palette."""
    fg, bg = _TONE_NAMES[tone]
    return COLORS[fg], COLORS[bg]


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
        self.icon.setMinimumSize(18, 18)  # grows with presentation fonts
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
            fg, bg = tone_colors(tone)
            self.setStyleSheet(
                f"QFrame#MonitorBanner {{ background: {bg}; border: 1px solid {bg}; "
                f"border-left: 3px solid {fg}; border-radius: 6px; }} "
                f"QFrame#MonitorBanner QLabel {{ color: {fg}; }}"
            )
            self.icon.setText("i" if tone == "info" else "!")
            self.icon.setStyleSheet(
                f"background: {fg}; color: {COLORS['surface']}; border-radius: 9px; "
                "font-weight: 800;"
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


class _Tile(QWidget):
    """Caption, big value, small detail: one live reading.

    Painted directly instead of with labels: its text changes every second, and a label's new
    text asks every enclosing layout to re-check its size, which ends in repainting the whole
    window around the plots. The tile keeps a fixed size hint and repaints only itself.
    """

    def __init__(self, caption: str, accent: str) -> None:
        super().__init__()
        self.caption = caption.upper()
        self.accent = QColor(accent)
        self.value = ""
        self.detail = ""
        self._scale = 0.0
        self._caption_font = QFont()
        self._value_font = QFont()
        self._detail_font = QFont()
        self._make_fonts()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(120)

    def _make_fonts(self) -> bool:
        """Fonts for the theme's scale (presentation mode enlarges them); True if rebuilt."""
        scale = current_scale()
        if scale == self._scale:
            return False
        self._scale = scale
        for font, points, bold in (
            (self._caption_font, BASE_POINT_SIZE - 1, True),
            (self._value_font, BASE_POINT_SIZE + 4, True),
            (self._detail_font, BASE_POINT_SIZE - 1, False),
        ):
            font.setFamily(self.font().family())
            font.setPointSizeF(points * scale)
            font.setWeight(QFont.Weight.DemiBold if bold else QFont.Weight.Normal)
        return True

    def sizeHint(self) -> QSize:
        self._make_fonts()
        height = (
            QFontMetrics(self._caption_font).height()
            + QFontMetrics(self._value_font).height()
            + QFontMetrics(self._detail_font).height()
            + 12
        )
        return QSize(200, height)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self.sizeHint().height())

    def set(self, value: str, detail: str) -> None:
        if (value, detail) != (self.value, self.detail):
            self.value, self.detail = value, detail
            self.setToolTip(f"{self.caption.title()}: {value}\n{detail}")
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._make_fonts():
            self.updateGeometry()  # presentation mode changed: taller tile
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(QPen(QColor(COLORS["border"]), 1))
        painter.setBrush(QColor(COLORS["surface"]))
        painter.drawRoundedRect(rect, 6, 6)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.accent)
        painter.drawRoundedRect(QRectF(0, 0, 4, self.height()), 2, 2)
        x, width = 12, self.width() - 20
        y = 5
        for text, font, colour in (
            (self.caption, self._caption_font, COLORS["muted"]),
            (self.value or DASH, self._value_font, COLORS["text"]),
            (self.detail, self._detail_font, COLORS["faint"]),
        ):
            metrics = QFontMetrics(font)
            painter.setFont(font)
            painter.setPen(QColor(colour))
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
            painter.drawText(x, y + metrics.ascent(), shown)
            y += metrics.height()
        painter.end()


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
        fg, _bg, _word = severity_style(verdict.severity)
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
        fg, bg, word = severity_style(severity)
        self.card.setStyleSheet(
            f"QFrame#VerdictCard {{ background: {bg}; border: 1px solid {bg}; "
            f"border-left: 4px solid {fg}; border-radius: 6px; }}"
        )
        self.badge.setStyleSheet(
            f"background: {fg}; color: {COLORS['surface']}; border-radius: 8px; padding: 1px 8px; "
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


# --- session totals ---------------------------------------------------------------------------


class SessionPanel(Section):
    """How long the session ran and what it used: per-GPU means, peaks and energy, CPU, RAM.
    Built with the first sample, when the GPUs are known."""

    def __init__(self, gpus: Sequence[tuple[int, str]], parent: QWidget | None = None) -> None:
        super().__init__("This session", parent=parent)
        _caption, self.duration = self._value_row("Watched")
        self.gpu_rows: dict[int, QLabel] = {}
        for index, name in gpus:
            caption, label = self._value_row(f"GPU {index}")
            caption.setStyleSheet(f"color: {gpu_color(index)}; font-weight: 600;")
            label.setToolTip(name)
            self.gpu_rows[index] = label
        self.energy: QLabel | None = None
        if gpus:
            _caption, self.energy = self._value_row("GPU energy")
        _caption, self.cpu = self._value_row("CPU")
        _caption, self.ram = self._value_row("RAM")

    def _value_row(self, caption: str) -> tuple[QLabel, QLabel]:
        value = _label(wrap=True)  # long values wrap: no sideways scrolling of the side column
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return self.add_row(caption, value), value

    def show_totals(
        self, totals: SessionTotals, interval_s: float, warm_up: tuple[int, float] = (0, 0.0)
    ) -> None:
        """``warm_up``: (samples taken in the opening burst, their spacing in seconds)."""
        burst, burst_s = warm_up
        burst = min(burst, totals.samples)
        rate = f"every {interval_s:g} s"
        if burst:
            rate = f"the first {burst} taken {burst_s:g} s apart to fill the plots, then {rate}"
        set_text(
            self.duration,
            f"{format_duration(totals.duration_s)} · {totals.samples} samples ({rate})",
        )
        for gpu in totals.gpus:
            label = self.gpu_rows.get(gpu.index)
            if label is None:
                continue
            energy = format_energy(gpu.energy_j)
            if gpu.energy_estimated and math.isfinite(gpu.energy_j):
                energy = f"≈{energy}"
            set_text(
                label,
                f"{_pct(gpu.mean_util_percent)} mean util · {_num(gpu.mean_power_w, 'W')} mean · "
                f"{energy}\npeak memory {format_bytes(gpu.peak_memory_bytes)} · "
                f"peak {_num(gpu.peak_temperature_c, '°C')}",
            )
        if self.energy is not None:
            estimated = any(g.energy_estimated for g in totals.gpus)
            set_text(
                self.energy,
                format_energy(totals.gpu_energy_j)
                + (" (partly mean power × time)" if estimated else ""),
            )
        set_text(
            self.cpu,
            f"{_pct(totals.cpu_mean_percent)} mean · {_pct(totals.cpu_peak_percent)} peak",
        )
        set_text(self.ram, f"peak {format_bytes(totals.ram_peak_bytes)} in use")
