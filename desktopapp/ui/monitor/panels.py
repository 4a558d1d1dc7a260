"""Panels of the Monitor tab: the live readings strip, banners and the bottleneck diagnosis
(the idle-cost meter is in :mod:`~desktopapp.ui.monitor.idle_panel`, the session totals in
:mod:`~desktopapp.ui.monitor.session_panel`). They display what the model computed
(``model.diagnosis``); formatting goes through ``model.units``. Every label is created once and
only re-written when its text changes, so a refresh costs little when nothing moved.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.monitor_views import (
    BannerView,
)
from desktopapp.devices.sampler import SystemSample
from desktopapp.model.diagnosis import Diagnosis, Verdict
from desktopapp.model.units import (
    DASH,
    format_bytes,
    format_duration,
)
from desktopapp.ui.common.scaled_sheet import follow_scale, scaled_pt
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING, current_scale
from desktopapp.ui.monitor.layout import gpu_color

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


def make_label(object_name: str = "", wrap: bool = False, rich: bool = False) -> QLabel:
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
        self.text = make_label(wrap=True)
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

    def show_view(self, view: BannerView | None) -> None:
        """Show the application layer's banner, or hide the bar for ``None``."""
        if view is None:
            self.setVisible(False)
        else:
            self.show_message(view.text, view.tone)

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

    def needed_width(self) -> int:
        """Width that shows caption, value and detail whole."""
        self._make_fonts()
        texts = (
            (self.caption, self._caption_font),
            (self.value or DASH, self._value_font),
            (self.detail, self._detail_font),
        )
        return 20 + max(QFontMetrics(font).horizontalAdvance(text) for text, font in texts)

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


def pct_text(value: float) -> str:
    return f"{value:.0f}%" if math.isfinite(value) else DASH


def num_text(value: float, unit: str) -> str:
    return f"{value:.0f} {unit}" if math.isfinite(value) else DASH


class LiveStrip(QWidget):
    """The newest reading of each GPU and of the host, as tiles across the top of the tab; on
    a window too narrow for one row of whole readings (presentation fonts at 1024 px) the
    tiles wrap into as many rows as they need instead of cutting their text."""

    def __init__(self, gpu_names: Sequence[tuple[int, str]], parent: QWidget | None = None):
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(INNER_SPACING)
        self.gpu_tiles: dict[int, _Tile] = {}
        tiles: list[_Tile] = []
        for index, name in gpu_names:
            tile = _Tile(f"GPU {index} · {name}", gpu_color(index))
            tile.setToolTip(name)
            self.gpu_tiles[index] = tile
            tiles.append(tile)
        self.cpu = _Tile("CPU", COLORS["accent"])
        self.ram = _Tile("Memory", "#8E5CD9")
        self.disk = _Tile("Disk", "#2A9D8F")
        self.net = _Tile("Network", "#C2478A")
        self.tiles = [*tiles, self.cpu, self.ram, self.disk, self.net]
        self.columns = 0
        self.reflow()

    def _columns_for(self, width: int) -> int:
        needed = max(tile.needed_width() for tile in self.tiles)
        spacing = self.grid.spacing()
        fit = max(1, (width + spacing) // (needed + spacing)) if width > 0 else len(self.tiles)
        count = min(len(self.tiles), fit)
        rows = -(-len(self.tiles) // count)
        return -(-len(self.tiles) // rows)  # balanced rows: 2 × 2, not 3 + 1

    def reflow(self) -> None:
        """Lay the tiles out in as many columns as fit whole (re-done on a resize or when a
        reading grows)."""
        columns = self._columns_for(self.width())
        if columns == self.columns:
            return
        self.columns = columns
        for tile in self.tiles:
            self.grid.removeWidget(tile)
        for c in range(len(self.tiles)):
            self.grid.setColumnStretch(c, 0)
        for i, tile in enumerate(self.tiles):
            self.grid.addWidget(tile, i // columns, i % columns)
        for c in range(columns):
            self.grid.setColumnStretch(c, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.reflow()

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
                f"{pct_text(gpu.util_percent)}  ·  {num_text(gpu.power_w, 'W')}  ·  "
                f"{num_text(gpu.temperature_c, '°C')}",
                mem,
            )
        cpu = sample.cpu
        self.cpu.set(
            pct_text(cpu.percent),
            f"busiest core {pct_text(cpu.max_core_percent)} · {cpu.count} cores",
        )
        ram = sample.memory
        self.ram.set(
            pct_text(ram.percent),
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
        self.reflow()


# --- diagnosis --------------------------------------------------------------------------------


class _VerdictRow(QWidget):
    """A secondary verdict: coloured dot, title and evidence on one or two lines."""

    def __init__(self) -> None:
        super().__init__()
        self.dot = QLabel("●")
        self.text = make_label(wrap=True, rich=True)
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
        self.window_label = make_label("Hint")
        self.add_header_widget(self.window_label)
        self.card = QFrame()
        self.card.setObjectName("VerdictCard")
        self.badge = make_label()
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.since = make_label("Hint")
        self.title = make_label(wrap=True)
        follow_scale(
            self.title,
            lambda: (
                f"font-size: {scaled_pt(BASE_POINT_SIZE + 2)}; font-weight: 700; "
                f"color: {COLORS['text']};"
            ),
        )
        self.evidence = make_label(wrap=True, rich=True)
        self.advice = make_label(wrap=True, rich=True)
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
        self._restyle_badge = follow_scale(self.badge, self._badge_sheet)
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
        self._severity = severity
        self._restyle_badge()
        self.badge.setText(word.upper())

    def _badge_sheet(self) -> str:
        if not self._severity:
            return ""
        fg, _bg, _word = severity_style(self._severity)
        return (
            f"background: {fg}; color: {COLORS['surface']}; border-radius: 8px; padding: 1px 8px; "
            f"font-weight: 700; font-size: {scaled_pt(BASE_POINT_SIZE - 1)};"
        )

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
