"""The Monitor tab's "This session" panel: how long the session ran and what it used (per-GPU
means, peaks and energy, CPU, RAM), from the application layer's
:class:`~desktopapp.application.monitor_summary.SessionTotals`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktopapp.application.monitor_summary import SessionTotals, format_energy
from desktopapp.model.units import format_bytes, format_duration
from desktopapp.ui.common.section import Section
from desktopapp.ui.monitor.layout import gpu_color
from desktopapp.ui.monitor.panels import make_label, num_text, pct_text, set_text


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
        value = make_label(wrap=True)  # long values wrap: no sideways scrolling of the side column
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
                f"{pct_text(gpu.mean_util_percent)} mean util · "
                f"{num_text(gpu.mean_power_w, 'W')} mean · "
                f"{energy}\npeak memory {format_bytes(gpu.peak_memory_bytes)} · "
                f"peak {num_text(gpu.peak_temperature_c, '°C')}",
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
            f"{pct_text(totals.cpu_mean_percent)} mean · {pct_text(totals.cpu_peak_percent)} peak",
        )
        set_text(self.ram, f"peak {format_bytes(totals.ram_peak_bytes)} in use")
