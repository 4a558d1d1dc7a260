"""Hardware tab, "Live results": the caption, the throughput plot, the findings, the results
table and "Use in estimates", rendering the controller's view-models."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from desktopapp.application.hardware_controller import Findings, PlotView
from desktopapp.devices.bench.core import BenchResult
from desktopapp.ui.common.layouts import scroll_area
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.hardware.bench_panel import ResultsModel, ThroughputPlot, results_table
from desktopapp.ui.hardware.use_panel import UseInEstimates
from desktopapp.ui.hardware.widgets import Notice


class LivePanel(QWidget):
    """The results of the run (or saved run) on screen."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results_model = ResultsModel(self)
        self.results_view = results_table(self.results_model)
        self.plot = ThroughputPlot()
        self.findings = Notice("Findings", tone="info")
        self.findings.setVisible(False)
        self.findings_scroll = scroll_area(content=self.findings)
        self.findings_scroll.setMinimumWidth(260)
        self.findings_scroll.setVisible(False)
        self.caption = QLabel("")
        self.caption.setObjectName("Muted")
        # It names the run, its date and measured peaks: its length follows the measurement,
        # so it wraps rather than set the tab's width (it pushed the tab 10 px past the window
        # in presentation mode at 1440x900 for some runs).
        self.caption.setWordWrap(True)
        top_split = QSplitter(Qt.Orientation.Horizontal)
        top_split.setChildrenCollapsible(False)
        top_split.addWidget(self.plot)
        top_split.addWidget(self.findings_scroll)
        top_split.setStretchFactor(0, 3)
        top_split.setStretchFactor(1, 2)
        top_split.setSizes([540, 340])
        live_split = QSplitter(Qt.Orientation.Vertical)
        live_split.setChildrenCollapsible(False)
        live_split.addWidget(top_split)
        live_split.addWidget(self.results_view)
        self.results_view.setMinimumHeight(150)  # a few rows stay readable in presentation
        live_split.setSizes([290, 230])
        self.use = UseInEstimates()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.caption)
        layout.addWidget(live_split, 1)
        layout.addWidget(self.use)

    def set_results(self, results: Sequence[BenchResult]) -> None:
        self.results_model.set_results(results)  # the table refits its columns itself

    def append_result(self, result: BenchResult) -> None:
        self.results_model.append(result)
        self.results_view.scrollToBottom()

    def show_findings(self, view: Findings) -> None:
        if view.visible:
            self.findings.set_lines(view.lines, title=view.title)
        else:
            self.findings.set_lines([])
        self.findings_scroll.setVisible(view.visible)

    def show_plot(self, view: PlotView) -> None:
        self.plot.show_data(view.series, view.peaks, view.peak_suffix)
        if view.peak_source is not None:
            self.plot.setToolTip(
                formula_tooltip("Peaks", note=view.peak_source) if view.peak_source else ""
            )


__all__ = ["LivePanel"]
