"""Benchmark panel pieces: the controls, the live results table and the TFLOP/s plot."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSignalBlocker,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.hardware import (
    DTYPE_TIPS,
    SUITE_INFO,
    best_text,
    log2_size,
    percent_text,
    result_tooltip,
    size_text,
    suite_text,
    table_result_text,
    tflops_text,
)
from desktopapp.devices.bench.core import DTYPES, BenchResult
from desktopapp.model.units import DASH, format_duration
from desktopapp.ui.common.table_fit import fit_columns
from desktopapp.ui.common.theme import COLORS, SERIES, plot_palette, themed
from desktopapp.ui.hardware.widgets import FlowLayout, ToggleChip

DTYPE_COLORS: Mapping[str, str] = {
    "fp32": SERIES[0],
    "bf16": SERIES[1],
    "tf32": SERIES[2],
    "fp16": SERIES[3],
    "fp8": SERIES[4],
}
DEFAULT_SUITES = ("matmul", "amp", "bandwidth")


class BenchControls(QFrame):
    """Device, mode, suites and precisions; Start/Cancel; progress with ETA and current step.

    ``start_requested()``, ``cancel_requested()``, ``device_changed(str)`` and
    ``mode_changed(bool quick)`` go to the tab, which forwards them to the controller.
    """

    start_requested = Signal()
    cancel_requested = Signal()
    device_changed = Signal(str)
    mode_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Section")
        title = QLabel("Benchmark")
        title.setObjectName("SectionTitle")
        note = QLabel("Measure what this machine really delivers, against its datasheet peak.")
        note.setObjectName("SectionNote")
        note.setWordWrap(True)
        header = QHBoxLayout()
        header.addWidget(title, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(note, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addLayout(self._build_target_row())
        layout.addLayout(self._build_choice_grid())
        status = self._build_run_row()
        layout.addWidget(self.progress)
        layout.addLayout(status)

        self.start_button.clicked.connect(self.start_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.device.activated.connect(self._on_device_activated)
        self.quick.toggled.connect(self._on_quick_toggled)

    def _build_target_row(self) -> QHBoxLayout:
        """Device and mode (Quick or Full)."""
        self.device = QComboBox()
        self.device.setMinimumContentsLength(24)
        self.device.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.device.setToolTip("Where the benchmark runs")
        self.quick = QRadioButton("Quick")
        self.quick.setToolTip("Small sizes and short time budgets: about half a minute")
        self.full = QRadioButton("Full")
        self.full.setToolTip("Larger sizes and longer budgets: steadier figures, a few minutes")
        self.quick.setChecked(True)
        self._mode_group = QButtonGroup(self)
        self._mode_group.addButton(self.quick)
        self._mode_group.addButton(self.full)
        top = QHBoxLayout()
        top.setSpacing(8)
        top.addWidget(self._caption("Device"))
        top.addWidget(self.device, 1)
        top.addSpacing(10)
        top.addWidget(self._caption("Mode"))
        top.addWidget(self.quick)
        top.addWidget(self.full)
        top.addStretch(1)
        return top

    def _build_choice_grid(self) -> QGridLayout:
        """The suites and matmul precisions, as chips."""
        self.suites: dict[str, ToggleChip] = {}
        suites_row = QWidget()
        suites_flow = FlowLayout(suites_row)
        for key, label, tip in SUITE_INFO:
            chip = ToggleChip(label, key, tip)
            chip.setChecked(key in DEFAULT_SUITES)
            self.suites[key] = chip
            suites_flow.addWidget(chip)
        self.dtypes: dict[str, ToggleChip] = {}
        dtypes_row = QWidget()
        dtypes_flow = FlowLayout(dtypes_row)
        for dtype in DTYPES:
            chip = ToggleChip(dtype, dtype, DTYPE_TIPS.get(dtype, ""))
            self.dtypes[dtype] = chip
            dtypes_flow.addWidget(chip)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        grid.addWidget(self._caption("Suites"), 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(suites_row, 0, 1)
        grid.addWidget(self._caption("Matmul precisions"), 1, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(dtypes_row, 1, 1)
        grid.setColumnStretch(1, 1)
        return grid

    def _build_run_row(self) -> QHBoxLayout:
        """The progress bar (``self.progress``) and the status row: step, ETA, Cancel, Run."""
        self.start_button = QPushButton("Run benchmark")
        self.start_button.setObjectName("Primary")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop after the current step (within about a second)")

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        self.step_label = QLabel("Ready. Choose what to measure and press Run benchmark.")
        self.step_label.setObjectName("Muted")
        self.step_label.setWordWrap(True)
        self.eta_label = QLabel("")
        self.eta_label.setObjectName("Muted")
        self.eta_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

        # The buttons sit with the status line, not beside Device and Mode: that row left them
        # narrower than their text at 1024 px and in presentation mode (issue 16).
        status = QHBoxLayout()
        status.addWidget(self.step_label, 1)
        status.addWidget(self.eta_label)
        status.addWidget(self.cancel_button)
        status.addWidget(self.start_button)
        return status

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Wrapped status and note lines keep the height their text needs at this width.
        for label in (self.step_label,):
            if label.width() > 0:
                needed = label.heightForWidth(label.width())
                if needed > 0 and needed != label.minimumHeight():
                    label.setMinimumHeight(needed)

    @staticmethod
    def _caption(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("FieldLabel")
        return label

    # --- model → widgets ------------------------------------------------------------------
    def set_devices(self, devices: Sequence[tuple[str, str]], current: str) -> None:
        with QSignalBlocker(self.device):
            self.device.clear()
            for spec, label in devices:
                self.device.addItem(label, spec)
            index = max(0, self.device.findData(current))
            self.device.setCurrentIndex(index)

    def device_spec(self) -> str:
        return str(self.device.currentData() or "cpu")

    def set_dtypes(self, availability: Mapping[str, str], checked: Sequence[str]) -> None:
        for dtype, chip in self.dtypes.items():
            with QSignalBlocker(chip):
                why = availability.get(dtype, "")
                chip.set_available(not why, why)
                chip.setChecked(not why and dtype in checked)

    def set_suite_availability(self, availability: Mapping[str, str]) -> None:
        for key, chip in self.suites.items():
            why = availability.get(key, "")
            with QSignalBlocker(chip):
                chip.set_available(not why, why)
                if why:
                    chip.setChecked(False)

    def selected_suites(self) -> tuple[str, ...]:
        return tuple(k for k, chip in self.suites.items() if chip.isChecked() and chip.isEnabled())

    def selected_dtypes(self) -> tuple[str, ...]:
        return tuple(k for k, chip in self.dtypes.items() if chip.isChecked() and chip.isEnabled())

    def is_quick(self) -> bool:
        return self.quick.isChecked()

    def set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.cancel_button.setText("Cancel")
        for widget in (self.device, self.quick, self.full):
            widget.setEnabled(not running)
        for chip in (*self.suites.values(), *self.dtypes.values()):
            chip.setEnabled(not running and chip.available)

    def show_progress(self, fraction: float, message: str, eta: str) -> None:
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self.step_label.setText(message)
        self.eta_label.setText(eta)

    # --- widgets → tab ----------------------------------------------------------------------
    def _on_device_activated(self, _index: int) -> None:
        self.device_changed.emit(self.device_spec())

    def _on_quick_toggled(self, quick: bool) -> None:
        self.mode_changed.emit(quick)


class ResultsModel(QAbstractTableModel):
    """Benchmark results, one row each, appended as they arrive."""

    # The device is in the caption and each row's tooltip, not a column: in presentation mode
    # the key figures (result, best repeat, time, % of peak) need the width (issue 25). Two
    # lines where a column's figures are much narrower than its name, so that the suite column,
    # which gives way first, still reads "Matmul" in presentation mode; exports join the lines.
    HEADERS = ("Suite", "Precision", "Size", "Result", "Best", "Time\nper op", "% of\npeak")
    HEADER_TIPS = (
        "",
        "",
        "",
        "The sustained figure: the median over the timed repeats (what Use in estimates takes)",
        "The fastest repeat (the peak that mamf-finder and nccl-tests users quote)",
        "Median time of one operation",
        "Result against the datasheet (GPU) or estimated (CPU) peak; MFU for training steps",
    )
    _NUMERIC = frozenset({2, 3, 4, 5, 6})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[BenchResult] = []

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex | None = None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return self.HEADER_TIPS[section] or None
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.TextAlignmentRole and section in self._NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        result = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell_text(result, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return result_tooltip(result)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            flag = Qt.AlignmentFlag
            horizontal = flag.AlignRight if column in self._NUMERIC else flag.AlignLeft
            return int(horizontal | flag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and column == 1:
            return QColor(themed(DTYPE_COLORS.get(result.dtype, COLORS["text"])))
        if role == Qt.ItemDataRole.ForegroundRole and column == 5:
            return QColor(COLORS["muted"])
        return None

    @staticmethod
    def cell_text(result: BenchResult, column: int) -> str:
        if column == 0:
            return suite_text(result)
        if column == 1:
            return result.dtype
        if column == 2:
            return size_text(result)
        if column == 3:
            return table_result_text(result)
        if column == 4:
            return best_text(result)
        if column == 5:
            seconds = result.seconds
            return format_duration(seconds) if math.isfinite(seconds) else DASH
        return percent_text(result)

    def append(self, result: BenchResult) -> None:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(result)
        self.endInsertRows()

    def set_results(self, results: Sequence[BenchResult]) -> None:
        self.beginResetModel()
        self._rows = list(results)
        self.endResetModel()

    def results(self) -> list[BenchResult]:
        return list(self._rows)

    def row_texts(self, row: int) -> list[str]:
        return [self.cell_text(self._rows[row], c) for c in range(len(self.HEADERS))]


def results_table(model: ResultsModel) -> QTableView:
    table = QTableView()
    table.setObjectName("ResultsTable")
    table.setModel(model)
    table.setAlternatingRowColors(True)
    table.setShowGrid(False)
    table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setHighlightSections(False)
    # Figures are sized to their contents whatever the font (presentation mode); the suite
    # name ("Bandwidth · device copy") takes what is left and wraps rather than elide.
    fit_columns(table, wrap=(0,))
    return table


# A peak label's size as fractions of the throughput plot's ranges (about 16 px of the ~130 px
# plot area at its minimum height; about 45% of the width in presentation mode), and the part
# of the height below the legend's row.
LABEL_HEIGHT_FRACTION = 0.12
LABEL_WIDTH_FRACTION = 0.45
LEGEND_FREE_FRACTION = 0.85


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


class ThroughputPlot(QStackedWidget):
    """Achieved matmul TFLOP/s against matrix size per precision (log₂ x axis), with each
    precision's peak as a dashed line. pyqtgraph is loaded on the first :meth:`show_data`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty = QLabel(
            "Run the matmul suite to see achieved TFLOP/s by matrix size,\n"
            "one line per precision, against the peak."
        )
        self.empty.setObjectName("Empty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # A hidden page still sets the stack's minimum width: unwrapped, this text at the
        # presentation size held the plot at 652 px and, with the findings beside it, pushed
        # the Hardware tab past a 1440x900 window.
        self.empty.setWordWrap(True)
        self.addWidget(self.empty)
        self.plot: Any = None
        self.curves: dict[tuple[str, str], Any] = {}
        self.peak_lines: dict[str, Any] = {}
        self.peak_labels: dict[str, Any] = {}
        self.setMinimumHeight(220)

    def _ensure_plot(self) -> Any:
        if self.plot is None:
            from desktopapp.ui.common.plots import legend_text_size, make_plot

            self.plot = make_plot(
                "Achieved matmul throughput", "matrix size N (N×N · N×N, log₂ scale)", "TFLOP/s"
            )
            self.plot.getPlotItem().addLegend(
                offset=(8, 4), labelTextSize=legend_text_size(), colCount=4, verSpacing=-4
            )
            self.plot.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
            self.addWidget(self.plot)
        return self.plot

    def prepare(self) -> None:
        """Build the (empty) plot now, out of sight until there is data: making it on the
        first result of a run would stall the GUI thread while the run goes on."""
        self._ensure_plot()

    def clear_data(self) -> None:
        self.curves = {}
        self.peak_lines = {}
        self.peak_labels = {}
        if self.plot is not None:
            item = self.plot.getPlotItem()
            item.clear()
            legend = item.legend
            if legend is not None:
                legend.clear()
        self.setCurrentWidget(self.empty)

    def show_data(
        self,
        series: Mapping[tuple[str, str], Sequence[tuple[int, float]]],
        peaks: Mapping[str, float],
        peak_note: str = "",
    ) -> None:
        """Show ``series`` (from :func:`summary.matmul_series`) and ``peaks`` (by dtype). Called
        on every result of a run: each curve, peak line and label is made once and then given
        its new data (``setData``), so an update costs the GUI thread almost nothing (issue 25:
        no GUI stall while a benchmark runs)."""
        if not series:
            self.clear_data()
            return
        from desktopapp.ui.common.plots import pen, pg

        module = pg()
        plot = self._ensure_plot()
        item = plot.getPlotItem()
        for key in [k for k in self.curves if k not in series]:
            item.removeItem(self.curves.pop(key))  # and its legend entry
        sizes = sorted({size for points in series.values() for size, _ in points})
        xs_all = [log2_size(s) for s in sizes]
        x_low, x_high = min(xs_all) - 0.35, max(xs_all) + 0.35
        top = 0.0
        outline = module.mkPen(QColor(plot_palette().marker_outline), width=1.2)
        for (dtype, variant), points in series.items():
            color = QColor(themed(DTYPE_COLORS.get(dtype, SERIES[5])))
            style = Qt.PenStyle.SolidLine if not variant else Qt.PenStyle.DotLine
            qpen = module.mkPen(color, width=2.2 if not variant else 1.6, style=style)
            xs = [log2_size(size) for size, _ in points]
            ys = [value for _, value in points]
            top = max(top, *ys)
            curve = self.curves.get((dtype, variant))
            if curve is None:
                name = dtype if not variant else f"{dtype} ({variant})"
                curve = item.plot(
                    xs,
                    ys,
                    pen=qpen,
                    symbol="o",
                    symbolSize=7 if not variant else 5,
                    symbolBrush=module.mkBrush(color),
                    symbolPen=outline,
                    name=name,
                )
                self.curves[(dtype, variant)] = curve
            else:  # the colours follow the theme, which may have changed since
                curve.setData(xs, ys)
                curve.setPen(qpen)
                curve.setSymbolBrush(module.mkBrush(color))
                curve.setSymbolPen(outline)
        top_all = max([top, *(peaks.get(dtype) or 0.0 for dtype, _ in series)])
        y_high = top_all * 1.3 if top_all > 0 else 1.0
        label_h = LABEL_HEIGHT_FRACTION * y_high  # a peak label's height, in TFLOP/s
        left = [  # the points under a label at the left end of the plot
            value
            for points in series.values()
            for size, value in points
            if log2_size(size) <= x_low + LABEL_WIDTH_FRACTION * (x_high - x_low)
        ]
        shown = {dtype for dtype, _ in series if peaks.get(dtype)}
        for dtype in [d for d in self.peak_lines if d not in shown]:
            item.removeItem(self.peak_lines.pop(dtype))
            item.removeItem(self.peak_labels.pop(dtype))
        for dtype in dict.fromkeys(dtype for dtype, _ in series):
            peak = peaks.get(dtype)
            if not peak:
                continue
            color = QColor(themed(DTYPE_COLORS.get(dtype, SERIES[5])))
            line_pen = pen(0, width=1.4, dashed=True)
            line_pen.setColor(color)
            text = f"{dtype} peak {tflops_text(peak)}{peak_note}"
            line = self.peak_lines.get(dtype)
            if line is None:
                line = module.PlotDataItem([x_low, x_high], [peak, peak], pen=line_pen)
                item.addItem(line)
                label = module.TextItem(text, color=color, anchor=(0, 0))
                item.addItem(label)
                self.peak_lines[dtype] = line
                self.peak_labels[dtype] = label
            else:
                line.setData([x_low, x_high], [peak, peak])
                line.setPen(line_pen)
                label = self.peak_labels[dtype]
                label.setText(text, color=color)
            # At the left end (the curves rise towards the peak on the right, so a label there
            # sat on a curve): below the line, unless a curve runs just under it there (a CPU
            # near its peak), then above it, with room made under the legend (issue 25).
            above = any(peak - label_h <= v <= peak for v in left) and not any(
                peak <= v <= peak + label_h for v in left
            )
            label.setAnchor((0, 1) if above else (0, 0))
            label.setPos(x_low, peak)
            if above:
                y_high = max(y_high, (peak + label_h) / LEGEND_FREE_FRACTION)
        # Ticks and ranges only when they change: each call makes the axes lay out and draw
        # their labels again on the next paint, the largest part of an update's GUI time
        # (benchmarks/gui_responsiveness.py --trace-stalls).
        axis = item.getAxis("bottom")
        ticks = [[(log2_size(s), f"{s:,}") for s in sizes], []]
        if axis._tickLevels != ticks:  # pyqtgraph keeps the fixed ticks there (no getter)
            axis.setTicks(ticks)
        (x0, x1), (y0, y1) = item.getViewBox().viewRange()
        if not (_same(x0, x_low) and _same(x1, x_high)):
            item.setXRange(x_low, x_high, padding=0)
        if not (_same(y0, 0.0) and _same(y1, y_high)):
            item.setYRange(0, y_high, padding=0)
        self.setCurrentWidget(plot)

    def has_data(self) -> bool:
        return bool(self.curves)


__all__ = [
    "DTYPE_COLORS",
    "BenchControls",
    "ResultsModel",
    "ThroughputPlot",
    "results_table",
]
