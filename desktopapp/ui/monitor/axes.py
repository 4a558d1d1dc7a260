"""The Monitor plots' axes (pyqtgraph): a time axis that reads "before now" (``−30 s``,
``−5 min``, ticks on round steps) or clock time, and value axes with units in the labels (byte
rates in IEC units)."""

from __future__ import annotations

import math
from typing import Any

from desktopapp.model.units import GIB, KIB, MIB
from desktopapp.ui.common.pyqtgraph_module import pg
from desktopapp.ui.monitor.layout import BYTES_RATE, CELSIUS, WATTS, format_ago

_PG: Any = pg()  # pyqtgraph, imported the app's way (ui.common.pyqtgraph_module)

AGO = "ago"
CLOCK = "clock"
NICE_STEPS_S: tuple[float, ...] = (
    0.1,
    0.2,
    0.5,
    1,
    2,
    5,
    10,
    15,
    30,
    60,
    120,
    300,
    600,
    900,
    1800,
    3600,
    7200,
    10800,
    21600,
    43200,
    86400,
)


def byte_unit(value: float) -> tuple[float, str]:
    magnitude = abs(value) if math.isfinite(value) else 0.0
    for factor, name in ((GIB, "GiB/s"), (MIB, "MiB/s"), (KIB, "KiB/s")):
        if magnitude >= factor:
            return float(factor), name
    return 1.0, "B/s"


class TimeAxis(_PG.DateAxisItem):
    """Bottom axis: "before now" ticks (``−30 s``, ``−5 min``) or clock time."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom")
        self.mode = AGO

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> Any:
        if self.mode == CLOCK:
            return super().tickValues(minVal, maxVal, size)
        return _PG.AxisItem.tickValues(self, minVal, maxVal, size)

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> Any:
        span = maxVal - minVal
        if span <= 0 or size <= 0:
            return []
        most = max(2.0, size / 85.0)  # labelled ticks that fit
        major = NICE_STEPS_S[-1]
        for step in NICE_STEPS_S:
            if span / step <= most:
                major = step
                break
        minor = next((s for s in reversed(NICE_STEPS_S) if s < major and major % s == 0), major)
        return [(major, 0.0), (minor, 0.0)]

    def tickStrings(self, values: Any, scale: float, spacing: float) -> Any:
        if self.mode == CLOCK:
            return super().tickStrings(values, scale, spacing)
        return [format_ago(v, spacing) for v in values]


class ValueAxis(_PG.AxisItem):
    """Left axis with units in the tick labels; byte rates use IEC units (KiB/s, MiB/s)."""

    def __init__(self, kind: str) -> None:
        super().__init__(orientation="left")
        self.kind = kind
        self._unit = (1.0, "B/s")

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> Any:
        if self.kind != BYTES_RATE:
            return super().tickSpacing(minVal, maxVal, size)
        factor, name = byte_unit(max(abs(minVal), abs(maxVal)))
        self._unit = (factor, name)
        levels = super().tickSpacing(minVal / factor, maxVal / factor, size)
        return [(spacing * factor, offset * factor) for spacing, offset in levels]

    def tickStrings(self, values: Any, scale: float, spacing: float) -> Any:
        if self.kind == BYTES_RATE:
            factor, name = self._unit
            return [f"{v / factor:g} {name}" if v else "0" for v in values]
        if self.kind == WATTS:
            return [f"{v:g} W" for v in values]
        if self.kind == CELSIUS:
            return [f"{v:g} °C" for v in values]
        return super().tickStrings(values, scale, spacing)
