"""Monitor tab, "Cluster": a fleet read from Prometheus (DCGM-exporter, node-exporter).

The server is read off the GUI thread (:class:`TaskRunner`; a slow server never blocks the
window, and a late answer to an older request is dropped). Shows the fleet summary (busy, idle,
unreachable, idle cost per hour and month at the price given), a per-GPU heat map over the last
hour, the GPU table and the diagnosis. Problems are one line. The token file's path lives in
this panel only; the token itself is read when a request is made and is never shown or saved.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.model.units import format_bytes
from desktopapp.ui.common.plots import make_plot, pg
from desktopapp.ui.common.table_fit import fit_columns
from desktopapp.ui.common.workers import TaskRunner

REFRESH_MS = 15_000
COLUMNS = ("node", "gpu", "util", "memory", "power", "temp", "pod / job", "state")


def _fetch(url: str, token_file: str, price: float) -> Any:  # worker thread
    from desktopapp.devices.cluster import PrometheusClient, collect, read_token_file

    token = read_token_file(token_file) if token_file else None
    return collect(PrometheusClient(url, token), price_per_gpu_hour=price)


KEY_URL = "cluster/prometheus_url"
KEY_TOKEN_FILE = "cluster/token_file"


def _settings() -> Any:
    from desktopapp.ui.settings import app_settings

    return app_settings()


class ClusterPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.url = QLineEdit()
        self.url.setPlaceholderText("http://prometheus:9090")
        self.token_file = QLineEdit()
        self.token_file.setPlaceholderText("bearer token file (optional)")
        # The Prometheus URL and token file are remembered between sessions (issue 16).
        settings = _settings()
        self.url.setText(str(settings.value(KEY_URL, "") or ""))
        self.token_file.setText(str(settings.value(KEY_TOKEN_FILE, "") or ""))
        self.url.editingFinished.connect(self.remember)
        self.token_file.editingFinished.connect(self.remember)
        browse = QPushButton("…")
        browse.setToolTip("Choose the file holding the bearer token")
        browse.clicked.connect(self._browse)
        self.price = QDoubleSpinBox()
        self.price.setRange(0.0, 1000.0)
        self.price.setValue(2.0)
        self.price.setPrefix("$")
        self.price.setSuffix(" /GPU-h")
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.auto = QCheckBox("every 15 s")
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.auto.toggled.connect(lambda on: self.timer.start() if on else self.timer.stop())
        top = QHBoxLayout()
        top.addWidget(QLabel("Prometheus"))
        top.addWidget(self.url, 2)
        top.addWidget(self.token_file, 1)
        top.addWidget(browse)
        top.addWidget(self.price)
        top.addWidget(self.refresh_button)
        top.addWidget(self.auto)
        self.summary = QLabel("Enter a Prometheus URL and press Refresh.")
        self.summary.setWordWrap(True)
        self.problems = QLabel("")
        self.problems.setObjectName("Hint")
        self.problems.setWordWrap(True)
        self.heat = make_plot("GPU utilization, last hour", "minutes before now", "GPU")
        self.heat_image = pg().ImageItem()
        self.heat.getPlotItem().addItem(self.heat_image)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # figures at their width whatever the font; node, pod / job and state wrap
        fit_columns(self.table, wrap=(0, 6, 7))
        self.diagnosis = QLabel("")
        self.diagnosis.setWordWrap(True)
        split = QSplitter()
        split.addWidget(self.heat)
        split.addWidget(self.table)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addWidget(self.diagnosis)
        layout.addWidget(self.problems)
        self.runner = TaskRunner("monitor-cluster", self)
        self.runner.result_ready.connect(self.show_snapshot)
        self.runner.error.connect(self.show_error)
        self.snapshot: Any = None
        self._read_at = ""  # when the shown snapshot was read (HH:MM:SS)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Bearer token file")
        if path:
            self.token_file.setText(path)

    def remember(self) -> None:
        """Keep the URL and token file for the next session."""
        settings = _settings()
        settings.setValue(KEY_URL, self.url.text().strip())
        settings.setValue(KEY_TOKEN_FILE, self.token_file.text().strip())
        settings.sync()

    def refresh(self) -> None:
        url = self.url.text().strip()
        if not url:
            self.show_error("enter the Prometheus URL, e.g. http://prometheus:9090")
            return
        self.remember()
        token_file, price = self.token_file.text().strip(), self.price.value()
        self.summary.setText(f"reading {url}…")
        self.runner.submit(lambda: _fetch(url, token_file, price))

    def show_error(self, message: str) -> None:
        text = message.splitlines()[0] if message else "error"
        if self.snapshot is not None:  # the table is not this read's: say whose it is
            text += f" — the table shows the read of {self._read_at}"
        self.summary.setText(text)

    def show_snapshot(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        self._read_at = datetime.now().strftime("%H:%M:%S")
        fleet = snapshot.fleet
        source = f"; utilization from {snapshot.metric_source}" if snapshot.metric_source else ""
        self.summary.setText(
            f"{fleet.busy} busy, {fleet.idle} idle, {fleet.unreachable} unreachable GPUs — idle "
            f"GPUs cost ${fleet.idle_cost_per_hour:,.2f} per hour, "
            f"${fleet.idle_cost_per_month:,.0f} per month at "
            f"${fleet.price_per_gpu_hour:.2f}/GPU-h{source}"
        )
        self.table.setRowCount(len(snapshot.gpus))
        for i, g in enumerate(snapshot.gpus):
            state = "unreachable" if not g.reachable else ("idle" if g.util < 5 else "busy")
            cells = (
                g.node,
                g.gpu,
                f"{g.util:.0f}%" if math.isfinite(g.util) else "—",
                format_bytes(g.memory_used_bytes) if math.isfinite(g.memory_used_bytes) else "—",
                f"{g.power_w:.0f} W" if math.isfinite(g.power_w) else "—",
                f"{g.temperature_c:.0f} °C" if math.isfinite(g.temperature_c) else "—",
                g.pod or g.job or "—",
                state,
            )
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self._draw_heat(snapshot.heat_map)
        self.diagnosis.setText("\n".join(f"• {line}" for line in snapshot.findings))
        self.problems.setText("\n".join(snapshot.problems))

    def _draw_heat(self, heat: Any) -> None:
        series = list(heat.get("series", [])) if heat else []
        if not series:
            self.heat_image.clear()
            return
        times = sorted({t for s in series for t in s["times"]})
        index = {t: k for k, t in enumerate(times)}
        grid = np.full((len(times), len(series)), np.nan)
        scale = 100.0 if str(heat.get("metric", "")).startswith("DCGM_FI_PROF") else 1.0
        for row, s in enumerate(series):
            for t, v in zip(s["times"], s["values"], strict=False):
                grid[index[t], row] = v * scale
        self.heat_image.setImage(np.nan_to_num(grid, nan=0.0), levels=(0.0, 100.0))
        lut = pg().colormap.get("viridis").getLookupTable(nPts=256)
        self.heat_image.setLookupTable(lut)
        span_min = (times[-1] - times[0]) / 60.0 if len(times) > 1 else 1.0
        self.heat_image.setRect(-span_min, 0.0, max(span_min, 1.0 / 60), float(len(series)))
        labels = [(k + 0.5, f"{s['node']}/{s['gpu']}") for k, s in enumerate(series)]
        self.heat.getPlotItem().getAxis("left").setTicks([labels])
