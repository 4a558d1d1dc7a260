"""The Monitor tab's toolbar: status pill, sampling interval, timebase, time axis, sensor notes,
pause, record and the CSV export menu. It only shows and forwards: the tab decides what the
buttons do, the application layer what the pill and the record button say."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from desktopapp.application.monitor_views import (
    StatusView,
)
from desktopapp.model.ringbuffer import TIMEBASES
from desktopapp.ui.common.scaled_sheet import follow_scale, scaled_pt
from desktopapp.ui.common.theme import BASE_POINT_SIZE, COLORS, INNER_SPACING
from desktopapp.ui.hardware.widgets import FlowLayout
from desktopapp.ui.monitor.controls import Segmented, caption
from desktopapp.ui.monitor.panels import set_text

INTERVALS_S: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
DEFAULT_INTERVAL_S = 1.0
TIMEBASE_LABELS: dict[str, str] = {
    "1 min": "1 min",
    "10 min": "10 min",
    "1 h": "1 h",
    "session": "Session",
}
DEFAULT_TIMEBASE = "1 min"
# Status pill tone → (text colour, background) names in the palette.
_STATUS_COLORS: dict[str, tuple[str, str]] = {
    "stopped": ("muted", "surface_alt"),
    "rec": ("bad", "bad_soft"),
    "paused": ("muted", "surface_alt"),
    "live": ("good", "good_soft"),
    "idle": ("muted", "surface_alt"),
}


def _group(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(INNER_SPACING)
    for widget in widgets:
        row.addWidget(widget)
    return holder


class MonitorToolbar(QWidget):
    """The controls in groups that wrap to a second line when the window is narrow (issue
    16: buttons never narrower than their text, at 1024 px and in presentation mode)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status_pill = QLabel()
        self.status_pill.setObjectName("MonitorStatus")
        self._status_tone = next(iter(_STATUS_COLORS))
        self._restyle_pill = follow_scale(self.status_pill, self._pill_sheet)
        self.interval_combo = QComboBox()
        for seconds in INTERVALS_S:
            self.interval_combo.addItem(f"every {seconds:g} s", seconds)
        self.interval_combo.setCurrentIndex(INTERVALS_S.index(DEFAULT_INTERVAL_S))
        self.interval_combo.setToolTip("How often to sample")
        self.timebase = Segmented(
            [(key, TIMEBASE_LABELS[key]) for key in TIMEBASES], DEFAULT_TIMEBASE
        )
        self.timebase.setToolTip("How much history the plots show")
        self.axis_mode = Segmented([("ago", "Before now"), ("clock", "Clock")], "ago")
        self.axis_mode.setToolTip("Time axis: time before now, or the time of day")
        self.notes_label = QLabel()
        self.notes_label.setObjectName("Hint")
        self.notes_label.setWordWrap(True)
        self.notes_label.hide()  # shown with a note (show_notes)
        self.pause_button = QPushButton("❚❚  Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip("Freeze the plots (sampling stops; recording waits too)")
        self.record_button = QPushButton("●  Record")
        self.record_button.setCheckable(True)
        self.record_button.setToolTip("Record this session to the monitor database")
        self.export_button = QPushButton("Export CSV")
        self.export_menu = QMenu(self)
        self.export_history_action = self.export_menu.addAction("Shown history, full rate…")
        self.export_recording_action = self.export_menu.addAction("Last recorded session…")
        self.export_recording_action.setEnabled(False)
        self.earlier_menu = self.export_menu.addMenu("Earlier recordings")
        self.export_button.setMenu(self.export_menu)
        self._lay_out()

    def _lay_out(self) -> None:
        for segmented in (self.timebase, self.axis_mode):
            for button in segmented.buttons.values():
                button.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        flow = FlowLayout(self, spacing=INNER_SPACING + 6)
        flow.addWidget(self.status_pill)
        flow.addWidget(_group(caption("Sample"), self.interval_combo))
        flow.addWidget(_group(caption("Show"), self.timebase))
        flow.addWidget(self.axis_mode)
        flow.addWidget(self.notes_label)
        flow.addWidget(_group(self.pause_button, self.record_button, self.export_button))
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    # --- rendering ----------------------------------------------------------------------------
    def show_status(self, status: StatusView, record_text: str) -> None:
        if set_text(self.status_pill, status.text) or status.tone != self._status_tone:
            self._status_tone = status.tone
            self._restyle_pill()
        self.record_button.setText(record_text)

    def _pill_sheet(self) -> str:
        fg, bg = (COLORS[name] for name in _STATUS_COLORS[self._status_tone])
        return (
            f"background: {bg}; color: {fg}; border-radius: 10px; padding: 3px 10px; "
            f"font-weight: 700; font-size: {scaled_pt(BASE_POINT_SIZE - 1)};"
        )

    def show_notes(self, label: str, tooltip: str) -> None:
        set_text(self.notes_label, label)
        self.notes_label.setToolTip(tooltip)
        # An empty note takes no slot: the toolbar's wrapped row then starts at the margin.
        self.notes_label.setVisible(bool(label))

    def show_paused(self, paused: bool) -> None:
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self.pause_button.setText("▶  Resume" if paused else "❚❚  Pause")

    def show_interval(self, seconds: float) -> None:
        if seconds in INTERVALS_S:
            self.interval_combo.setCurrentIndex(INTERVALS_S.index(seconds))

    def set_recording_checked(self, checked: bool, *, quiet: bool = False) -> None:
        """Check or uncheck the record button; ``quiet``: without ``toggled``."""
        if self.record_button.isChecked() == checked:
            return
        self.record_button.blockSignals(quiet)
        try:
            self.record_button.setChecked(checked)
        finally:
            self.record_button.blockSignals(False)
